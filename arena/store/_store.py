"""``Store``: the arena's records in one SQLite file; replays and modules as files by sha256.

What is written in which order (docs/storage.md): a file (replay, module) is
written atomically and fsynced before the row that points at it, and every
record is one transaction, so a reader never finds a row without its file and
a process killed at any point leaves either the whole record or none of it
(at worst an unreferenced file, which the next identical write reuses).
"""

from __future__ import annotations

import functools
import hashlib
import json
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import replays
from arena._errors import ArenaError
from arena._files import data_dir
from arena.store._blobs import Blobs, ReplayStream, check_sha256
from arena.store._db import Database
from arena.store._errors import CorruptFileError, NotInStoreError, StoreError
from arena.store._records import (
    ControllerRecord,
    Entrant,
    MatchRecord,
    MatchStatus,
    Origin,
    Role,
    RunMatch,
    RunOutcome,
    RunRecord,
    TournamentRecord,
    TournamentStatus,
)
from arena.store._rows import (
    MATCHES,
    RUNS,
    TOURNAMENTS,
    ResultRows,
    controller_record,
    insert_match_rows,
    match_or_none,
    match_record,
    one_match,
    one_run,
    one_tournament,
    result_columns,
    result_record,
    run_record,
    side_columns,
    stamp,
    tournament_or_none,
    tournament_record,
    utc_now,
)
from arena.store._schema import MIGRATIONS
from replays import MAX_NAME_CHARS

if TYPE_CHECKING:
    from arena.match import MatchResult

__all__ = [
    "MAX_BUILD_LOG_CHARS",
    "MAX_MODULE_FILE_BYTES",
    "MAX_NAME_CHARS",
    "MAX_PAGE",
    "MAX_TEXT_CHARS",
    "STALE_TEMPORARY_SECONDS",
    "STORE_FILE",
    "Store",
    "migrate",
]

STORE_FILE: Final = "arena.sqlite3"
"""The database's file name in the data directory."""
MAX_TEXT_CHARS: Final = 4096
"""Longest pairing key; longest error or reason kept (a longer one is cut, with a note)."""
MAX_BUILD_LOG_CHARS: Final = 64 * 1024
"""Longest build log kept: its end (where a build says what went wrong), with a note."""
MAX_PAGE: Final = 500
"""Most rows one listing returns."""
MATCH_PAGE: Final = 5_000
"""Matches per read when a tournament's matches are folded page by page (about 3 KB each)."""
MAX_MODULE_FILE_BYTES: Final = 64 * 1024 * 1024
"""A bound for reading a module file back (admission allows far less)."""
STALE_TEMPORARY_SECONDS: Final = 3600.0
"""Age past which a temporary file is a write that never finished (``Store.sweep``)."""


def migrate(
    path: Path, steps: Sequence[Sequence[str]] = MIGRATIONS, *, busy_timeout: float = 30.0
) -> int:
    """Bring the database file ``path`` up to version ``len(steps)``; return that version.

    Step ``i`` takes version ``i`` to ``i + 1`` in one transaction (with the
    bump of ``PRAGMA user_version``), so a failed step leaves the version
    before it; processes migrating at once apply each step once. Raises
    ``StoreVersionError`` for a file newer than ``steps``. ``Store.open``
    does this with ``MIGRATIONS``.
    """
    db = Database(Path(path), busy_timeout=busy_timeout)
    try:
        return db.open(steps)
    finally:
        db.close()


class Store:
    """The arena's storage in one data directory: ``arena.sqlite3``, ``replays/``, ``modules/``.

    Open it with ``Store.open``. Every method is one transaction; it may be
    called from any thread (each thread gets its own connection) and from
    several processes at once. Writes wait for a busy lock up to
    ``busy_timeout`` seconds, then raise ``StoreBusyError``. A data directory
    that is read-only, full or damaged raises ``StoreError`` naming the path.
    """

    def __init__(self, root: Path, db: Database) -> None:
        """Use ``Store.open``."""
        self.root = root
        """The data directory."""
        self._db = db
        self._replays = Blobs(
            root / "replays", ".replay", "replay", replays.DEFAULT_LIMITS.max_bytes
        )
        self._modules = Blobs(root / "modules", ".wasm", "module", MAX_MODULE_FILE_BYTES)

    @classmethod
    def open(cls, root: Path | None = None, *, busy_timeout: float = 30.0) -> Store:
        """Open (creating it if need be) the store in ``root`` (default: ``arena.data_dir()``).

        Brings the schema up to date; raises ``StoreVersionError`` for a
        database written by a newer arena, ``StoreError`` for a directory or
        file that cannot be used.
        """
        if busy_timeout <= 0:
            raise ValueError(f"busy_timeout must be positive, got {busy_timeout}")
        root = data_dir() if root is None else Path(root)
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot use the data directory {root}: {exc.strerror or exc}"
            ) from exc
        db = Database(root / STORE_FILE, busy_timeout=busy_timeout)
        try:
            db.open(MIGRATIONS)
        except BaseException:
            db.close()
            raise
        return cls(root, db)

    @property
    def path(self) -> Path:
        """The database file."""
        return self._db.path

    def close(self) -> None:
        """Close the store's connections; the store cannot be used after."""
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def sweep(self, older_than: float = STALE_TEMPORARY_SECONDS) -> list[Path]:
        """Delete temporary files that writes killed mid-way left in ``replays/`` and ``modules/``.

        Only those older than ``older_than`` seconds (a younger one may be a
        write in flight in another process). They are never read, so this only
        frees room; ``arena serve`` does it when it starts. Returns the files
        deleted.
        """
        return self._replays.sweep(older_than) + self._modules.sweep(older_than)

    # ================================================================= controllers

    def add_controller(
        self, blob: bytes, *, name: str, origin: Origin, hidden: bool = False
    ) -> ControllerRecord:
        """Store a controller's module (``modules/<sha256>.wasm``) and its row; idempotent.

        The store does not judge the module: admission is the caller's. A
        controller stored before keeps its first name and origin; ``hidden``
        is sticky (once hidden, always hidden), so uploading a hidden
        opponent's bytes never makes it public. Returns the stored record.
        """
        _check_name(name, "controller name")
        origin = Origin(origin)
        sha256 = self._modules.put(blob)  # the file before the row that points at it
        now = utc_now()

        def tx(conn: sqlite3.Connection) -> ControllerRecord:
            _insert_controller(conn, sha256, name, origin, hidden, len(blob), now)
            row = conn.execute("SELECT * FROM controllers WHERE sha256 = ?", (sha256,)).fetchone()
            return controller_record(row)

        return self._db.write(tx, f"storing controller {name!r}")

    def controller(self, ref: str) -> ControllerRecord:
        """A controller by sha256, or by name (the one stored last under it).

        Hidden controllers are found too: check ``hidden`` before showing one.
        """

        def tx(conn: sqlite3.Connection) -> sqlite3.Row | None:
            row: sqlite3.Row | None = conn.execute(
                "SELECT * FROM controllers WHERE sha256 = ?", (ref,)
            ).fetchone()
            if row is None:
                row = conn.execute(
                    "SELECT * FROM controllers WHERE name = ?"
                    " ORDER BY created_at DESC, rowid DESC LIMIT 1",
                    (ref,),
                ).fetchone()
            return row

        row = self._db.read(tx, "reading a controller")
        if row is None:
            raise NotInStoreError(f"no controller {ref!r} in the store {self.path}")
        return controller_record(row)

    def controllers(self, *, include_hidden: bool = False) -> list[ControllerRecord]:
        """Every stored controller, by name then age; hidden ones only if asked for."""
        where = "" if include_hidden else " WHERE hidden = 0"
        rows = self._db.read(
            lambda c: c.execute(
                f"SELECT * FROM controllers{where} ORDER BY name, created_at, rowid"
            ).fetchall(),
            "listing controllers",
        )
        return [controller_record(r) for r in rows]

    def module_path(self, sha256: str) -> Path:
        """Where the module of ``sha256`` is stored (it is not read or checked)."""
        return self._modules.path(sha256)

    def read_module_bytes(self, sha256: str) -> bytes:
        """A stored module's bytes, checked against its sha256 (``CorruptFileError`` if not)."""
        try:
            return self._modules.read(sha256)
        except FileNotFoundError:
            raise self._missing(self._modules, sha256) from None

    # ================================================================= replays

    def replay_path(self, sha256: str) -> Path:
        """Where the replay of ``sha256`` is stored (it is not read or checked)."""
        return self._replays.path(sha256)

    def read_replay_bytes(self, sha256: str) -> bytes:
        """A stored replay's bytes, checked against its sha256 (``CorruptFileError`` if not)."""
        try:
            return self._replays.read(sha256)
        except FileNotFoundError:
            raise self._missing(self._replays, sha256) from None

    def open_replay(self, sha256: str, *, chunk_size: int = 64 * 1024) -> ReplayStream:
        """A stored replay, verified whole before this returns, to stream in chunks.

        Raises ``CorruptFileError`` now for a damaged file (before any byte is
        handed out); the stream checks the bytes again as they go and raises
        ``CorruptFileError`` at its end if the file changed meanwhile.
        """
        if chunk_size < 1:
            raise ValueError(f"chunk_size must be positive, got {chunk_size}")
        try:
            return self._replays.open(sha256, chunk_size)
        except FileNotFoundError:
            raise self._missing(self._replays, sha256) from None

    def _missing(self, blobs: Blobs, sha256: str) -> ArenaError:
        """A file that is not there: lost, if a row points at it; else never stored."""
        # Rare, so no index serves the replays' query: it scans the matches.
        query = (
            "SELECT 1 FROM matches WHERE replay_sha256 = ?"
            if blobs is self._replays
            else "SELECT 1 FROM controllers WHERE sha256 = ?"
        )
        referenced = self._db.read(
            lambda c: c.execute(query, (sha256,)).fetchone(), f"looking up a {blobs.what}"
        )
        if referenced:
            return CorruptFileError(
                f"the {blobs.what} file {blobs.path(sha256)} is missing, though the store uses it"
            )
        return NotInStoreError(f"no {blobs.what} {sha256} in the store {self.root}")

    # ================================================================= matches

    def record_match(
        self,
        result: MatchResult,
        *,
        tournament_id: int | None = None,
        pairing_key: str | None = None,
    ) -> MatchRecord:
        """Record a played match: its replay file first, then its row (one transaction).

        A tournament's match carries the pairing's key, unique in the
        tournament: recording the same key again changes nothing and returns
        the match recorded first (so a resumed coordinator cannot count a
        match twice). Both sides' controllers must be stored already.
        """
        return self.record_matches(
            [result], tournament_id=tournament_id, pairing_keys=[pairing_key]
        )[0]

    def record_matches(
        self,
        results: Sequence[MatchResult],
        *,
        tournament_id: int | None = None,
        pairing_keys: Sequence[str | None] | None = None,
    ) -> list[MatchRecord]:
        """``record_match`` for several results (a worker's batch), in order: every replay file
        first, written together (all fsynced before any row points at one, for one journal
        commit rather than one each), then each row in a transaction of its own.

        ``pairing_keys`` gives each result's key in the tournament. A failure
        leaves the rows recorded before it, and replay files no row points at
        (a later record of the same replay finds its file there).
        """
        keys = [None] * len(results) if pairing_keys is None else list(pairing_keys)
        if len(keys) != len(results):
            raise ValueError(f"{len(results)} results but {len(keys)} pairing keys")
        for key in keys:
            _check_pairing(tournament_id, key)
        records = []
        for result, played, key in zip(results, self._store_replays(results), keys, strict=True):
            records.append(
                self._db.write(
                    functools.partial(
                        self._insert_match,
                        entrants=played.entrants,
                        seed=result.seed,
                        played=played,
                        tournament_id=tournament_id,
                        pairing_key=key,
                    ),
                    "recording a match",
                )
            )
        return records

    def record_match_error(
        self,
        a: Entrant,
        b: Entrant,
        *,
        seed: int,
        error: str,
        tournament_id: int | None = None,
        pairing_key: str | None = None,
    ) -> MatchRecord:
        """Record a match that could not be played (e.g. its worker died twice), with why.

        Same rules as ``record_match`` (a tournament's pairing key is recorded once).
        """
        _check_pairing(tournament_id, pairing_key)
        entrants = (_check_entrant(a), _check_entrant(b))
        return self._db.write(
            lambda conn: self._insert_match(
                conn,
                entrants,
                seed,
                error=_cut(error),
                tournament_id=tournament_id,
                pairing_key=pairing_key,
            ),
            "recording a match",
        )

    def queue_match(self, a: Entrant, b: Entrant, *, seed: int) -> MatchRecord:
        """Record a match to be played (status pending): its id exists before its result."""
        entrants = (_check_entrant(a), _check_entrant(b))
        return self._db.write(
            lambda conn: self._insert_match(conn, entrants, seed), "queueing a match"
        )

    def finish_match(self, match_id: int, result: MatchResult) -> MatchRecord:
        """Give a pending match its result (replay file first, then the row)."""
        (played,) = self._store_replays([result])

        def tx(conn: sqlite3.Connection) -> MatchRecord:
            pending = self._pending(conn, match_id)
            if [e.sha256 for e in pending.entrants] != [e.sha256 for e in played.entrants]:
                raise ValueError(f"match {match_id}: the result's sides are not the queued ones")
            if pending.seed != result.seed:
                raise ValueError(f"match {match_id}: the result's seed is not the queued one")
            # The sides first: once the match is finished, a trigger freezes them.
            conn.executemany(
                "UPDATE match_sides SET name = ?, sha256 = ?, banked = ?, fuel_total = ?,"
                " fuel_peak = ?, forfeit_tick = ?, forfeit_kind = ?, forfeit_detail = ?,"
                " extra = ? WHERE match_id = ? AND side = ?",
                [
                    (*cols, match_id, side)
                    for side, cols in enumerate(side_columns(played, played.entrants))
                ],
            )
            conn.execute(
                "UPDATE matches SET status = 'finished', winner = ?, reason = ?, ticks = ?,"
                " replay_sha256 = ?, finished_at = ? WHERE id = ?",
                (*result_columns(played), utc_now(), match_id),
            )
            return one_match(conn, match_id)

        return self._db.write(tx, f"recording match {match_id}")

    def fail_match(self, match_id: int, error: str) -> MatchRecord:
        """A pending match that could not be played: status error, with why."""

        def tx(conn: sqlite3.Connection) -> MatchRecord:
            self._pending(conn, match_id)
            conn.execute(
                "UPDATE matches SET status = 'error', error = ?, finished_at = ? WHERE id = ?",
                (_cut(error), utc_now(), match_id),
            )
            return one_match(conn, match_id)

        return self._db.write(tx, f"recording match {match_id}")

    def match(self, match_id: int) -> MatchRecord:
        """One match by id."""
        record = self._db.read(lambda c: match_or_none(c, match_id), "reading a match")
        if record is None:
            raise NotInStoreError(f"no match {match_id} in the store {self.path}")
        return record

    def matches(
        self, *, limit: int = 50, before: int | None = None, controller: str | None = None
    ) -> list[MatchRecord]:
        """The most recent matches first, ``limit`` at most, with ids below ``before``.

        Page on with ``before=`` the last id of the previous page. With
        ``controller`` (a sha256), only the matches it played on either side.
        """
        _check_limit(limit)
        where = ["m.id < ?"]
        args: list[object] = [_id_bound(before)]
        if controller is not None:
            where.append(
                "m.id IN (SELECT match_id FROM match_sides WHERE sha256 = ? AND match_id < ?)"
            )
            args += [controller, _id_bound(before)]
        sql = f"{MATCHES} WHERE {' AND '.join(where)} ORDER BY m.id DESC LIMIT ?"
        rows = self._db.read(lambda c: c.execute(sql, (*args, limit)).fetchall(), "listing matches")
        return [match_record(r) for r in rows]

    def pending_matches(self, *, limit: int = MAX_PAGE) -> list[MatchRecord]:
        """Queued matches still without a result (status pending), oldest first.

        A server that stopped (or was killed) with matches queued finds them
        here when it starts again, and plays them.
        """
        _check_limit(limit)
        rows = self._db.read(
            lambda c: c.execute(
                f"{MATCHES} WHERE m.status = 'pending' ORDER BY m.id LIMIT ?", (limit,)
            ).fetchall(),
            "listing pending matches",
        )
        return [match_record(r) for r in rows]

    def _store_replays(self, results: Sequence[MatchResult]) -> list[ResultRows]:
        """Write the results' replay files, together (before any row points at one)."""
        entrants = [
            (_check_entrant(Entrant(a.name, a.sha256)), _check_entrant(Entrant(b.name, b.sha256)))
            for a, b in (result.sides for result in results)
        ]
        # Hashed once, here: MatchResult.replay_sha256 hashes on every access.
        shas = self._replays.put_all([result.replay for result in results])
        return [
            ResultRows.of(result, sha, pair)
            for result, sha, pair in zip(results, shas, entrants, strict=True)
        ]

    def _pending(self, conn: sqlite3.Connection, match_id: int) -> MatchRecord:
        record = match_or_none(conn, match_id)
        if record is None:
            raise NotInStoreError(f"no match {match_id} in the store {self.path}")
        if record.status is not MatchStatus.PENDING:
            raise ArenaError(f"match {match_id} is {record.status} already; it cannot change")
        return record

    def _insert_match(
        self,
        conn: sqlite3.Connection,
        entrants: tuple[Entrant, Entrant],
        seed: int,
        *,
        played: ResultRows | None = None,
        error: str | None = None,
        tournament_id: int | None = None,
        pairing_key: str | None = None,
        run: tuple[int, str, Role] | None = None,
    ) -> MatchRecord:
        if tournament_id is not None:
            existing = conn.execute(
                "SELECT id FROM matches WHERE tournament_id = ? AND pairing_key = ?",
                (tournament_id, pairing_key),
            ).fetchone()
            if existing is not None:
                return one_match(conn, existing[0])
            self._check_in_tournament(conn, tournament_id, entrants)
        status = (
            MatchStatus.FINISHED
            if played is not None
            else MatchStatus.ERROR
            if error is not None
            else MatchStatus.PENDING
        )
        now = datetime.now(UTC)
        finished_at = None if status is MatchStatus.PENDING else now
        run_id, opponent, role = run if run is not None else (None, None, None)
        try:
            match_id = insert_match_rows(
                conn,
                (
                    str(status),
                    _check_seed(seed),
                    *result_columns(played),
                    error,
                    tournament_id,
                    pairing_key,
                    run_id,
                    opponent,
                    None if role is None else str(role),
                    stamp(now),
                    None if finished_at is None else stamp(finished_at),
                ),
                side_columns(played, entrants),
            )
        except sqlite3.IntegrityError:
            # The foreign keys on controllers: say which one is missing.
            self._check_controllers(conn, entrants)
            raise
        # The record from what was written (reading it back would cost a query).
        return MatchRecord(
            id=match_id,
            status=status,
            seed=seed,
            entrants=entrants,
            result=None if played is None else result_record(played, entrants),
            error=error,
            created_at=now,
            finished_at=finished_at,
            tournament_id=tournament_id,
            pairing_key=pairing_key,
            run_id=run_id,
            opponent=opponent,
            role=role,
        )

    def _check_controllers(self, conn: sqlite3.Connection, entrants: Sequence[Entrant]) -> None:
        shas = sorted({e.sha256 for e in entrants})
        marks = ", ".join("?" * len(shas))
        known = {
            r[0]
            for r in conn.execute(f"SELECT sha256 FROM controllers WHERE sha256 IN ({marks})", shas)
        }
        for e in entrants:
            if e.sha256 not in known:
                raise NotInStoreError(
                    f"controller {e.name!r} ({e.sha256}) is not in the store {self.path}: "
                    "store it (add_controller) before its matches"
                )

    def _check_in_tournament(
        self, conn: sqlite3.Connection, tournament_id: int, entrants: Sequence[Entrant]
    ) -> None:
        shas = sorted({e.sha256 for e in entrants})
        marks = ", ".join("?" * len(shas))
        row = conn.execute(
            "SELECT status, (SELECT count(*) FROM tournament_field"
            f" WHERE tournament_id = t.id AND sha256 IN ({marks}))"
            " FROM tournaments AS t WHERE id = ?",
            (*shas, tournament_id),
        ).fetchone()
        if row is None:
            raise NotInStoreError(f"no tournament {tournament_id} in the store {self.path}")
        if row[0] != TournamentStatus.RUNNING:
            raise ArenaError(f"tournament {tournament_id} is {row[0]}: it takes no more matches")
        if row[1] != len(shas):
            raise ValueError(
                f"a match of {' and '.join(repr(e.name) for e in entrants)} is not between "
                f"controllers of the field of tournament {tournament_id}"
            )

    # ================================================================= tournaments

    def create_tournament(
        self,
        format: str,
        field: Sequence[Entrant],
        *,
        seeds: Sequence[int],
        options: Mapping[str, Any] | None = None,
    ) -> TournamentRecord:
        """Record a new tournament, status running: its format, field (seeded order), seeds.

        ``format`` is kept as given (a ``arena.tournament`` format's value);
        ``options`` is any JSON object the coordinator needs to resume it.
        Every entrant's controller must be stored already.
        """
        entrants = tuple(_check_entrant(e) for e in field)
        if len({e.sha256 for e in entrants}) != len(entrants):
            raise ArenaError("a tournament's field names the same controller twice")
        if not format or len(format) > MAX_NAME_CHARS:
            raise ArenaError(f"tournament format {format!r} is empty or too long")
        seeds_json = json.dumps([_check_seed(s) for s in seeds])
        options_json = _json(dict(options or {}))

        def tx(conn: sqlite3.Connection) -> TournamentRecord:
            self._check_controllers(conn, entrants)
            cur = conn.execute(
                "INSERT INTO tournaments (format, seeds, options, status, created_at)"
                " VALUES (?, ?, ?, 'running', ?)",
                (str(format), seeds_json, options_json, utc_now()),
            )
            tid = cur.lastrowid
            assert tid is not None
            conn.executemany(
                "INSERT INTO tournament_field (tournament_id, position, name, sha256)"
                " VALUES (?, ?, ?, ?)",
                [(tid, i, e.name, e.sha256) for i, e in enumerate(entrants)],
            )
            return one_tournament(conn, tid)

        return self._db.write(tx, "recording a tournament")

    def finish_tournament(self, tournament_id: int, standings: Any) -> TournamentRecord:
        """A running tournament is over: store its standings (any JSON), status finished."""
        standings_json = _json(standings)
        return self._tournament_status(
            tournament_id,
            "status = 'finished', standings = ?, finished_at = ?",
            (standings_json, utc_now()),
            (TournamentStatus.RUNNING,),
        )

    def fail_tournament(self, tournament_id: int, error: str) -> TournamentRecord:
        """A running tournament stopped for good: status failed, with why."""
        return self._tournament_status(
            tournament_id,
            "status = 'failed', error = ?, finished_at = ?",
            (_cut(error), utc_now()),
            (TournamentStatus.RUNNING,),
        )

    def resume_tournament(self, tournament_id: int) -> TournamentRecord:
        """Make a failed tournament running again (a running one stays as it is)."""
        return self._tournament_status(
            tournament_id,
            "status = 'running', error = NULL, finished_at = NULL",
            (),
            (TournamentStatus.RUNNING, TournamentStatus.FAILED),
        )

    def _tournament_status(
        self,
        tournament_id: int,
        assignments: str,
        args: tuple[object, ...],
        allowed: tuple[TournamentStatus, ...],
    ) -> TournamentRecord:
        def tx(conn: sqlite3.Connection) -> TournamentRecord:
            record = tournament_or_none(conn, tournament_id)
            if record is None:
                raise NotInStoreError(f"no tournament {tournament_id} in the store {self.path}")
            if record.status not in allowed:
                raise ArenaError(f"tournament {tournament_id} is {record.status} already")
            conn.execute(
                f"UPDATE tournaments SET {assignments} WHERE id = ?", (*args, tournament_id)
            )
            return one_tournament(conn, tournament_id)

        return self._db.write(tx, f"updating tournament {tournament_id}")

    def tournament(self, tournament_id: int) -> TournamentRecord:
        """One tournament by id."""
        record = self._db.read(
            lambda c: tournament_or_none(c, tournament_id), "reading a tournament"
        )
        if record is None:
            raise NotInStoreError(f"no tournament {tournament_id} in the store {self.path}")
        return record

    def tournaments(self, *, limit: int = 50, before: int | None = None) -> list[TournamentRecord]:
        """The most recent tournaments first (paged like ``matches``)."""
        _check_limit(limit)

        def tx(conn: sqlite3.Connection) -> list[TournamentRecord]:
            rows = conn.execute(
                f"{TOURNAMENTS} WHERE t.id < ? ORDER BY t.id DESC LIMIT ?",
                (_id_bound(before), limit),
            ).fetchall()
            return [tournament_record(conn, r) for r in rows]

        return self._db.read(tx, "listing tournaments")

    def tournament_matches(self, tournament_id: int) -> list[MatchRecord]:
        """A tournament's recorded matches, in the order they were recorded."""
        return self._matches_of("tournament", tournament_id)

    def iter_tournament_matches(
        self, tournament_id: int, *, page: int = MATCH_PAGE
    ) -> Iterator[MatchRecord]:
        """``tournament_matches`` read ``page`` at a time (one read each), so a caller that
        folds them (a resume, the standings) holds one page, not a whole tournament's."""
        after = 0
        while True:
            records = self._matches_of("tournament", tournament_id, after=after, limit=page)
            yield from records
            if len(records) < page:
                return
            after = records[-1].id

    def _matches_of(
        self, what: str, owner_id: int, *, after: int = 0, limit: int = -1
    ) -> list[MatchRecord]:
        """The matches of a tournament or run by id, those past id ``after``, at most ``limit``
        (-1: all)."""
        table, column = {"tournament": ("tournaments", "tournament_id"), "run": ("runs", "run_id")}[
            what
        ]

        def tx(conn: sqlite3.Connection) -> list[MatchRecord]:
            if conn.execute(f"SELECT 1 FROM {table} WHERE id = ?", (owner_id,)).fetchone() is None:
                raise NotInStoreError(f"no {what} {owner_id} in the store {self.path}")
            rows = conn.execute(
                f"{MATCHES} WHERE m.{column} = ? AND m.id > ? ORDER BY m.id LIMIT ?",
                (owner_id, after, limit),
            )
            return [match_record(r) for r in rows]

        return self._db.read(tx, f"reading a {what}'s matches")

    # ================================================================= runs

    def record_run(
        self,
        *,
        case_slug: str,
        case_version: int,
        manifest_sha256: str,
        controller: str,
        controller_sha256: str | None,
        outcome: RunOutcome,
        reason: str | None = None,
        build_log: str = "",
        matches: Sequence[RunMatch] = (),
        module: bytes | None = None,
        module_origin: Origin = Origin.UPLOAD,
    ) -> RunRecord:
        """Record a finished proof run with all its matches, at once: a run is never partial.

        Every replay file is written first, then the run and its matches in
        one transaction. A run that could not compete has no matches (and may
        have no module); one that competed has the controller on one side of
        each match. The build log keeps its last ``MAX_BUILD_LOG_CHARS``.
        Runs are immutable: proving again records a new run.

        ``module``, the controller's bytes, stores the controller (as
        ``add_controller`` with ``module_origin`` would) in the run's own
        transaction, its file first: a run pushed to a server and cut off
        leaves neither. Without it, the controller must be stored already.
        """
        _check_name(controller, "controller name")
        _check_name(case_slug, "case slug")
        check_sha256(manifest_sha256, "manifest")
        outcome = RunOutcome(outcome)
        if controller_sha256 is not None:
            check_sha256(controller_sha256, "controller")
        if outcome is RunOutcome.COULD_NOT_COMPETE:
            if matches:
                raise ValueError("a run that could not compete has no matches")
        elif controller_sha256 is None or not matches:
            raise ValueError("a run that competed has a module and its matches")
        for m in matches:
            if controller_sha256 not in [s.sha256 for s in m.result.sides]:
                raise ValueError(
                    f"the run's controller did not play its match against {m.opponent!r}"
                )
            _check_name(m.opponent, "opponent name")
        if module is not None:
            if hashlib.sha256(module).hexdigest() != controller_sha256:
                raise ValueError("the module given is not the run's controller (another sha256)")
            self._modules.put(module)  # the file before the row that points at it
        played = self._store_replays([m.result for m in matches])
        log = _cut_head(build_log, MAX_BUILD_LOG_CHARS)
        now = utc_now()

        def tx(conn: sqlite3.Connection) -> RunRecord:
            if module is not None:
                assert controller_sha256 is not None
                _insert_controller(
                    conn,
                    controller_sha256,
                    controller,
                    Origin(module_origin),
                    False,
                    len(module),
                    now,
                )
            cur = conn.execute(
                "INSERT INTO runs (case_slug, case_version, manifest_sha256, controller,"
                " controller_sha256, outcome, reason, build_log, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    case_slug,
                    int(case_version),
                    manifest_sha256,
                    controller,
                    controller_sha256,
                    str(outcome),
                    None if reason is None else _cut(reason),
                    log,
                    now,
                ),
            )
            run_id = cur.lastrowid
            assert run_id is not None
            for m, p in zip(matches, played, strict=True):
                self._insert_match(
                    conn,
                    p.entrants,
                    m.result.seed,
                    played=p,
                    run=(run_id, m.opponent, Role(m.role)),
                )
            return one_run(conn, run_id)

        return self._db.write(tx, "recording a run")

    def find_run(
        self, case_slug: str, case_version: int, controller_sha256: str
    ) -> RunRecord | None:
        """The latest run of this module on this case version, if there is one."""
        row = self._db.read(
            lambda c: c.execute(
                f"{RUNS} WHERE r.case_slug = ? AND r.case_version = ?"
                " AND r.controller_sha256 = ? ORDER BY r.id DESC LIMIT 1",
                (case_slug, case_version, controller_sha256),
            ).fetchone(),
            "looking up a run",
        )
        return None if row is None else run_record(row)

    def run(self, run_id: int) -> RunRecord:
        """One run by id."""
        row = self._db.read(
            lambda c: c.execute(f"{RUNS} WHERE r.id = ?", (run_id,)).fetchone(), "reading a run"
        )
        if row is None:
            raise NotInStoreError(f"no run {run_id} in the store {self.path}")
        return run_record(row)

    def runs(
        self, *, limit: int = 50, before: int | None = None, case_slug: str | None = None
    ) -> list[RunRecord]:
        """The most recent runs first (paged like ``matches``), of one case if given."""
        _check_limit(limit)
        where = "r.id < ?"
        args: list[object] = [_id_bound(before)]
        if case_slug is not None:
            where += " AND r.case_slug = ?"
            args.append(case_slug)
        rows = self._db.read(
            lambda c: c.execute(
                f"{RUNS} WHERE {where} ORDER BY r.id DESC LIMIT ?", (*args, limit)
            ).fetchall(),
            "listing runs",
        )
        return [run_record(r) for r in rows]

    def run_matches(self, run_id: int) -> list[MatchRecord]:
        """A run's matches, in the order they were given to ``record_run``."""
        return self._matches_of("run", run_id)

    def build_log(self, run_id: int) -> str:
        """A run's build log (its end, if it was longer than ``MAX_BUILD_LOG_CHARS``)."""
        row = self._db.read(
            lambda c: c.execute("SELECT build_log FROM runs WHERE id = ?", (run_id,)).fetchone(),
            "reading a build log",
        )
        if row is None:
            raise NotInStoreError(f"no run {run_id} in the store {self.path}")
        return str(row[0])


# ===================================================================== rows


def _insert_controller(
    conn: sqlite3.Connection,
    sha256: str,
    name: str,
    origin: Origin,
    hidden: bool,
    size: int,
    now: str,
) -> None:
    """A controller's row; one stored already keeps its name and origin (hidden is sticky)."""
    conn.execute(
        "INSERT INTO controllers (sha256, name, origin, hidden, size, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (sha256) DO UPDATE SET hidden = max(hidden, excluded.hidden)",
        (sha256, name, str(origin), int(hidden), size, now),
    )


# ===================================================================== checks


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _check_name(name: str, what: str) -> str:
    if not isinstance(name, str) or not 1 <= len(name) <= MAX_NAME_CHARS:
        raise ArenaError(f"{what} {name!r} must be 1..{MAX_NAME_CHARS} characters")
    return name


def _check_entrant(e: Entrant) -> Entrant:
    _check_name(e.name, "controller name")
    check_sha256(e.sha256, "controller")
    return e


def _check_seed(seed: int) -> int:
    if not isinstance(seed, int) or not 0 <= seed < 1 << 32:
        raise ValueError(f"seed {seed!r} is not an unsigned 32-bit integer")
    return seed


def _check_pairing(tournament_id: int | None, pairing_key: str | None) -> None:
    if (tournament_id is None) != (pairing_key is None):
        raise ValueError("a tournament's match needs both tournament_id and pairing_key")
    if pairing_key is not None and not (
        isinstance(pairing_key, str) and 1 <= len(pairing_key) <= MAX_TEXT_CHARS
    ):
        raise ArenaError(f"a pairing key must be 1..{MAX_TEXT_CHARS} characters")


def _check_limit(limit: int) -> None:
    if not 1 <= limit <= MAX_PAGE:
        raise ArenaError(f"a page holds 1..{MAX_PAGE} rows, not {limit}")


def _id_bound(before: int | None) -> int:
    return (1 << 63) - 1 if before is None else before


def _cut(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    """``text``, or its first ``limit`` characters and a note of how many more there were."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]} [... {len(text) - limit:,} more characters]"


def _cut_head(text: str, limit: int) -> str:
    """``text``, or a note of how many characters were cut and its last ``limit``."""
    if len(text) <= limit:
        return text
    return f"[... {len(text) - limit:,} characters cut]\n{text[-limit:]}"
