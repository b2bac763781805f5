"""The database schema as forward migrations: ``PRAGMA user_version`` counts those applied.

Migration ``i`` (0-based) takes a database at version ``i`` to version ``i + 1``.
A published migration is never edited: a change of schema is a new step at the
end. Each step is a tuple of single statements (``executescript`` would commit
on its own, and a step must run inside the transaction that bumps the version).
"""

from __future__ import annotations

from typing import Final

__all__ = ["MIGRATIONS", "SCHEMA_VERSION"]

_V1: Final = (
    # Controllers by sha256; the module itself is the file modules/<sha256>.wasm.
    """
    CREATE TABLE controllers (
        sha256     TEXT PRIMARY KEY CHECK (length(sha256) = 64),
        name       TEXT NOT NULL,
        origin     TEXT NOT NULL CHECK (origin IN ('baseline', 'file', 'upload', 'run')),
        hidden     INTEGER NOT NULL CHECK (hidden IN (0, 1)),
        size       INTEGER NOT NULL,
        created_at TEXT NOT NULL
    ) STRICT
    """,
    "CREATE INDEX controllers_by_name ON controllers (name, created_at)",
    """
    CREATE TABLE tournaments (
        id          INTEGER PRIMARY KEY,
        format      TEXT NOT NULL,
        seeds       TEXT NOT NULL,   -- JSON list of ints
        options     TEXT NOT NULL,   -- JSON object
        status      TEXT NOT NULL CHECK (status IN ('running', 'finished', 'failed')),
        standings   TEXT,            -- JSON, written when it finishes
        error       TEXT,
        created_at  TEXT NOT NULL,
        finished_at TEXT,
        CHECK ((status = 'finished') = (standings IS NOT NULL)),
        CHECK ((status = 'failed') = (error IS NOT NULL))
    ) STRICT
    """,
    """
    CREATE TABLE tournament_field (
        tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
        position      INTEGER NOT NULL,   -- 0 = the first seed
        name          TEXT NOT NULL,
        sha256        TEXT NOT NULL REFERENCES controllers (sha256),
        PRIMARY KEY (tournament_id, position)
    ) STRICT, WITHOUT ROWID
    """,
    """
    CREATE TABLE runs (
        id                INTEGER PRIMARY KEY,
        case_slug         TEXT NOT NULL,
        case_version      INTEGER NOT NULL,
        manifest_sha256   TEXT NOT NULL CHECK (length(manifest_sha256) = 64),
        controller        TEXT NOT NULL,
        controller_sha256 TEXT CHECK (length(controller_sha256) = 64),
        outcome           TEXT NOT NULL
                          CHECK (outcome IN ('win', 'loss', 'draw', 'could-not-compete')),
        reason            TEXT,
        build_log         TEXT NOT NULL,
        created_at        TEXT NOT NULL
    ) STRICT
    """,
    "CREATE INDEX runs_by_identity ON runs (case_slug, case_version, controller_sha256, id)",
    """
    CREATE TABLE matches (
        id            INTEGER PRIMARY KEY,
        status        TEXT NOT NULL CHECK (status IN ('pending', 'finished', 'error')),
        seed          INTEGER NOT NULL,
        winner        INTEGER CHECK (winner IN (0, 1)),
        reason        TEXT,
        ticks         INTEGER,
        replay_sha256 TEXT CHECK (length(replay_sha256) = 64),
        error         TEXT,
        tournament_id INTEGER REFERENCES tournaments (id),
        pairing_key   TEXT,
        run_id        INTEGER REFERENCES runs (id),
        opponent      TEXT,
        role          TEXT CHECK (role IN ('canonical', 'evidence', 'exhibition')),
        created_at    TEXT NOT NULL,
        finished_at   TEXT,
        CHECK ((tournament_id IS NULL) = (pairing_key IS NULL)),
        CHECK ((run_id IS NULL) = (role IS NULL) AND (run_id IS NULL) = (opponent IS NULL)),
        CHECK (tournament_id IS NULL OR run_id IS NULL),
        CHECK ((status = 'finished') = (reason IS NOT NULL)),
        CHECK ((status = 'finished') = (ticks IS NOT NULL)),
        CHECK ((status = 'finished') = (replay_sha256 IS NOT NULL)),
        CHECK ((status = 'error') = (error IS NOT NULL)),
        CHECK ((status = 'pending') = (finished_at IS NULL))
    ) STRICT
    """,
    # A pairing is recorded once per tournament (partial indexes: a quick match
    # adds no entry to either).
    """
    CREATE UNIQUE INDEX matches_by_pairing ON matches (tournament_id, pairing_key)
    WHERE tournament_id IS NOT NULL
    """,
    "CREATE INDEX matches_of_run ON matches (run_id) WHERE run_id IS NOT NULL",
    """
    CREATE TABLE match_sides (
        match_id       INTEGER NOT NULL REFERENCES matches (id),
        side           INTEGER NOT NULL CHECK (side IN (0, 1)),
        name           TEXT NOT NULL,
        sha256         TEXT NOT NULL REFERENCES controllers (sha256),
        banked         INTEGER,   -- the result's columns: NULL while pending or in error
        fuel_total     INTEGER,
        fuel_peak      INTEGER,
        forfeit_tick   INTEGER,
        forfeit_kind   TEXT,
        forfeit_detail TEXT,
        extra          TEXT,      -- JSON object: the side's keys of the match JSON beyond these
        PRIMARY KEY (match_id, side),
        CHECK ((forfeit_tick IS NULL) = (forfeit_kind IS NULL)),
        CHECK ((forfeit_tick IS NULL) = (forfeit_detail IS NULL))
    ) STRICT, WITHOUT ROWID
    """,
    "CREATE INDEX match_sides_by_controller ON match_sides (sha256, match_id)",
    # What is final stays final: a run, a settled match and its sides never change.
    """
    CREATE TRIGGER runs_are_immutable BEFORE UPDATE ON runs
    BEGIN SELECT RAISE(ABORT, 'a run is immutable'); END
    """,
    """
    CREATE TRIGGER settled_matches_are_immutable BEFORE UPDATE ON matches
    WHEN OLD.status <> 'pending'
    BEGIN SELECT RAISE(ABORT, 'a finished match is immutable'); END
    """,
    """
    CREATE TRIGGER settled_sides_are_immutable BEFORE UPDATE ON match_sides
    WHEN (SELECT status FROM matches WHERE id = OLD.match_id) <> 'pending'
    BEGIN SELECT RAISE(ABORT, 'a finished match is immutable'); END
    """,
)

_V2: Final = (
    # The site's tokens (issue 25): only a digest of each (the sha256 of the token's
    # text) is kept; the token itself is shown once, when it is made. A revoked token
    # stays listed with when it was revoked. A name is held by one token not revoked
    # (a worker token's name is the worker it may answer for).
    """
    CREATE TABLE tokens (
        id         INTEGER PRIMARY KEY,
        name       TEXT NOT NULL,
        role       TEXT NOT NULL CHECK (role IN ('console', 'worker', 'push')),
        digest     TEXT NOT NULL UNIQUE CHECK (length(digest) = 64),
        created_at TEXT NOT NULL,
        revoked_at TEXT
    ) STRICT
    """,
    "CREATE UNIQUE INDEX tokens_by_name ON tokens (name) WHERE revoked_at IS NULL",
)

_V3: Final = (
    # What is published (issue 25): the public site shows these and nothing else. A
    # run pushed to a server is published as it is recorded; a tournament or a quick
    # match when an operator publishes it. A match of a published run or tournament is
    # published with it. Tables of their own: runs and settled matches are immutable.
    """
    CREATE TABLE published_runs (
        run_id       INTEGER PRIMARY KEY REFERENCES runs (id),
        published_at TEXT NOT NULL
    ) STRICT
    """,
    """
    CREATE TABLE published_tournaments (
        tournament_id INTEGER PRIMARY KEY REFERENCES tournaments (id),
        published_at  TEXT NOT NULL
    ) STRICT
    """,
    """
    CREATE TABLE published_matches (
        match_id     INTEGER PRIMARY KEY REFERENCES matches (id),
        published_at TEXT NOT NULL
    ) STRICT
    """,
)


_V4: Final = (
    # An entrant left out of a stored tournament's standings (recomputed from its
    # matches, which stay as they are), and why; undone by deleting the row.
    """
    CREATE TABLE tournament_exclusions (
        tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
        name          TEXT NOT NULL,
        reason        TEXT NOT NULL,
        created_at    TEXT NOT NULL,
        PRIMARY KEY (tournament_id, name)
    ) STRICT, WITHOUT ROWID
    """,
)

_V5: Final = (
    # The field (issue 26): one standing tournament of format 'field' per case version,
    # its entrants appended to tournament_field as they arrive (never reordered). A
    # controller enters a field once: the index also finds an entrant by module at once.
    """
    CREATE TABLE fields (
        case_slug     TEXT NOT NULL,
        case_version  INTEGER NOT NULL,
        tournament_id INTEGER NOT NULL UNIQUE REFERENCES tournaments (id),
        created_at    TEXT NOT NULL,
        PRIMARY KEY (case_slug, case_version)
    ) STRICT, WITHOUT ROWID
    """,
    "CREATE UNIQUE INDEX tournament_field_by_sha256 ON tournament_field (tournament_id, sha256)",
)

_HELD_MODULES: Final = (
    # A worker's local run's module that the site fetched for a quick match or a console
    # tournament (issue 25): stored as an upload, but held for review only, never
    # published, and deleted with the last quick match that plays it (``_held.py``).
    # Its own step, named rather than numbered: it stays whole whatever its place.
    """
    CREATE TABLE held_modules (
        sha256  TEXT PRIMARY KEY REFERENCES controllers (sha256),
        worker  TEXT NOT NULL,
        held_at TEXT NOT NULL   -- when it was last chosen for a match or a tournament
    ) STRICT, WITHOUT ROWID
    """,
)

_V7: Final = (
    # A tournament's matches in id order (issue 26, scale): a page of them (a resume's, a
    # recount's: ``id > last ORDER BY id LIMIT``) costs its own rows. Through the pairing
    # index, every later match of the tournament was read and sorted for each page.
    """
    CREATE INDEX matches_of_tournament ON matches (tournament_id, id)
    WHERE tournament_id IS NOT NULL
    """,
)

MIGRATIONS: Final[tuple[tuple[str, ...], ...]] = (
    _V1,
    _V2,
    _V3,
    _V4,
    _V5,
    _HELD_MODULES,
    _V7,
)
"""Every step, in order; never edit a published one, append a new one."""

SCHEMA_VERSION: Final = len(MIGRATIONS)
"""The schema version this code writes (``PRAGMA user_version`` after every step)."""
