"""The tournaments table and its field: a tournament's row, its entrants, its status changes.

The store keeps a tournament's format, options and standings as given: their
meaning belongs to ``arena.tournament`` and the coordinator, which writes them.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from arena._errors import ArenaError
from arena.store._controllers import check_controllers
from arena.store._errors import NotInStoreError
from arena.store._match_rows import MATCHES, match_record, matches_of
from arena.store._records import (
    Entrant,
    Exclusion,
    MatchRecord,
    TournamentRecord,
    TournamentStatus,
)
from arena.store._store import (
    MAX_NAME_CHARS,
    MAX_PAGE,
    Core,
    check_entrant,
    check_limit,
    check_seed,
    cut,
    page_bound,
    parse_stamp,
    utc_now,
)

__all__ = [
    "MATCH_PAGE",
    "Tournaments",
    "add_exclusion",
    "check_takes_match",
    "drop_exclusion",
    "insert_tournament",
    "one_tournament",
]

MATCH_PAGE: Final = 5_000
"""Matches per read when a tournament's matches are folded page by page: a resume holds one
page, whatever the tournament's size (docs/scaling.md has what a page weighs)."""
_TOURNAMENTS: Final = """
    SELECT t.*, (SELECT count(*) FROM matches WHERE tournament_id = t.id) AS match_count,
           t.id IN (SELECT tournament_id FROM published_tournaments) AS published
    FROM tournaments AS t
"""


class Tournaments(Core):
    """``Store``'s tournaments: create one, change its status, read it and its matches."""

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
        entrants = tuple(check_entrant(e) for e in field)
        if len({e.sha256 for e in entrants}) != len(entrants):
            raise ArenaError("a tournament's field names the same controller twice")
        if not format or len(format) > MAX_NAME_CHARS:
            raise ArenaError(f"tournament format {format!r} is empty or too long")
        seeds_json = json.dumps([check_seed(s) for s in seeds])
        options_json = _json(dict(options or {}))

        def tx(conn: sqlite3.Connection) -> TournamentRecord:
            check_controllers(conn, entrants, self.path)
            tid = insert_tournament(
                conn, str(format), seeds_json, options_json, entrants, utc_now()
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
            (cut(error), utc_now()),
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
            record = _or_none(conn, tournament_id)
            if record is None:
                raise NotInStoreError(f"no tournament {tournament_id} in the store {self.path}")
            if record.status not in allowed:
                raise ArenaError(f"tournament {tournament_id} is {record.status} already")
            conn.execute(
                f"UPDATE tournaments SET {assignments} WHERE id = ?", (*args, tournament_id)
            )
            return one_tournament(conn, tournament_id)

        return self._db.write(tx, f"updating tournament {tournament_id}")

    def exclude_entrant(self, tournament_id: int, name: str, reason: str) -> TournamentRecord:
        """Leave entrant ``name`` out of a finished tournament's standings, for ``reason``
        (recorded with the moment); its matches are kept. Refused for a running tournament,
        a name not in its field, an empty reason or an entrant excluded already."""
        reason = reason.strip()
        if not reason:
            raise ArenaError("give the reason for the exclusion (--reason TEXT)")

        def tx(conn: sqlite3.Connection) -> TournamentRecord:
            record = self._settled(conn, tournament_id)
            record.check_excludable(name)
            add_exclusion(conn, tournament_id, name, reason)
            return one_tournament(conn, tournament_id)

        return self._db.write(tx, f"excluding an entrant of tournament {tournament_id}")

    def include_entrant(self, tournament_id: int, name: str) -> TournamentRecord:
        """Undo ``exclude_entrant``: ``name`` counts in the standings again."""

        def tx(conn: sqlite3.Connection) -> TournamentRecord:
            self._settled(conn, tournament_id)
            if not drop_exclusion(conn, tournament_id, name):
                raise ArenaError(f"{name!r} is not excluded from tournament {tournament_id}")
            return one_tournament(conn, tournament_id)

        return self._db.write(tx, f"including an entrant of tournament {tournament_id} again")

    def _settled(self, conn: sqlite3.Connection, tournament_id: int) -> TournamentRecord:
        record = _or_none(conn, tournament_id)
        if record is None:
            raise NotInStoreError(f"no tournament {tournament_id} in the store {self.path}")
        if record.status is TournamentStatus.RUNNING:
            raise ArenaError(
                f"tournament {tournament_id} is running: its field changes once it is over"
            )
        return record

    def tournament(self, tournament_id: int) -> TournamentRecord:
        """One tournament by id."""
        return self._by_id("tournament", tournament_id, _or_none)

    def tournaments(
        self, *, limit: int = 50, before: int | None = None, published_only: bool = False
    ) -> list[TournamentRecord]:
        """The most recent tournaments first (paged like ``matches``); only the published
        ones if asked for."""
        below = page_bound(limit, before)
        only = " AND published" if published_only else ""

        def tx(conn: sqlite3.Connection) -> list[TournamentRecord]:
            rows = conn.execute(
                f"SELECT * FROM ({_TOURNAMENTS}) AS t WHERE t.id < ?{only}"
                " ORDER BY t.id DESC LIMIT ?",
                (below, limit),
            ).fetchall()
            return [_record(conn, r) for r in rows]

        return self._db.read(tx, "listing tournaments")

    def running_tournaments(self, *, limit: int = MAX_PAGE) -> list[TournamentRecord]:
        """Tournaments still running (not finished, not failed), oldest first: what a
        server that stopped (or was killed) mid-tournament finds to play on."""
        check_limit(limit)

        def tx(conn: sqlite3.Connection) -> list[TournamentRecord]:
            rows = conn.execute(
                f"{_TOURNAMENTS} WHERE t.status = 'running' ORDER BY t.id LIMIT ?", (limit,)
            ).fetchall()
            return [_record(conn, r) for r in rows]

        return self._db.read(tx, "listing running tournaments")

    def tournament_matches(self, tournament_id: int) -> list[MatchRecord]:
        """A tournament's recorded matches, in the order they were recorded."""
        return matches_of(self._db, "tournament", tournament_id)

    def tournament_with_matches(
        self, tournament_id: int
    ) -> tuple[TournamentRecord, list[MatchRecord]]:
        """A tournament and its recorded matches (in the order they were recorded), read in one
        transaction: its status and its matches are of the same moment. Read apart, a
        tournament could be seen finished with its last matches missing (they were recorded,
        and it finished, between the two reads)."""

        def tx(conn: sqlite3.Connection) -> tuple[TournamentRecord, list[MatchRecord]] | None:
            record = _or_none(conn, tournament_id)
            if record is None:
                return None
            rows = conn.execute(
                f"{MATCHES} WHERE m.tournament_id = ? ORDER BY m.id", (tournament_id,)
            )
            return record, [match_record(r) for r in rows]

        return self._by_id("tournament", tournament_id, lambda c, _: tx(c))

    def iter_tournament_matches(
        self, tournament_id: int, *, page: int = MATCH_PAGE
    ) -> Iterator[MatchRecord]:
        """``tournament_matches`` read ``page`` at a time (one read each), so a caller that
        folds them (a resume, the standings) holds one page, not a whole tournament's."""
        after = 0
        while True:
            records = matches_of(self._db, "tournament", tournament_id, after=after, limit=page)
            yield from records
            if len(records) < page:
                return
            after = records[-1].id
            del records  # not held while the next page is read


def insert_tournament(
    conn: sqlite3.Connection,
    format: str,
    seeds_json: str,
    options_json: str,
    entrants: Sequence[Entrant],
    now: str,
) -> int:
    """Write a running tournament's row and its field in seeded order; its id."""
    cur = conn.execute(
        "INSERT INTO tournaments (format, seeds, options, status, created_at)"
        " VALUES (?, ?, ?, 'running', ?)",
        (format, seeds_json, options_json, now),
    )
    tid = cur.lastrowid
    assert tid is not None
    conn.executemany(
        "INSERT INTO tournament_field (tournament_id, position, name, sha256) VALUES (?, ?, ?, ?)",
        [(tid, i, e.name, e.sha256) for i, e in enumerate(entrants)],
    )
    return tid


def add_exclusion(conn: sqlite3.Connection, tournament_id: int, name: str, reason: str) -> None:
    """Record ``name`` as left out of tournament ``tournament_id``'s standings, for ``reason``
    (an operator's exclusion, or a field's withdrawal)."""
    conn.execute(
        "INSERT INTO tournament_exclusions (tournament_id, name, reason, created_at)"
        " VALUES (?, ?, ?, ?)",
        (tournament_id, name, cut(reason), utc_now()),
    )


def drop_exclusion(conn: sqlite3.Connection, tournament_id: int, name: str) -> bool:
    """Count ``name`` in the standings again; False if it was not left out."""
    cur = conn.execute(
        "DELETE FROM tournament_exclusions WHERE tournament_id = ? AND name = ?",
        (tournament_id, name),
    )
    return cur.rowcount > 0


def check_takes_match(
    conn: sqlite3.Connection, tournament_id: int, entrants: Sequence[Entrant], store: Path
) -> None:
    """Refuse a match for a tournament that is not running, or between controllers outside
    its field."""
    shas = sorted({e.sha256 for e in entrants})
    marks = ", ".join("?" * len(shas))
    row = conn.execute(
        "SELECT status, (SELECT count(*) FROM tournament_field"
        f" WHERE tournament_id = t.id AND sha256 IN ({marks}))"
        " FROM tournaments AS t WHERE id = ?",
        (*shas, tournament_id),
    ).fetchone()
    if row is None:
        raise NotInStoreError(f"no tournament {tournament_id} in the store {store}")
    if row[0] != TournamentStatus.RUNNING:
        raise ArenaError(f"tournament {tournament_id} is {row[0]}: it takes no more matches")
    if row[1] != len(shas):
        raise ValueError(
            f"a match of {' and '.join(repr(e.name) for e in entrants)} is not between "
            f"controllers of the field of tournament {tournament_id}"
        )


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _record(conn: sqlite3.Connection, row: sqlite3.Row) -> TournamentRecord:
    field = tuple(
        Entrant(r["name"], r["sha256"])
        for r in conn.execute(
            "SELECT name, sha256 FROM tournament_field WHERE tournament_id = ? ORDER BY position",
            (row["id"],),
        )
    )
    return TournamentRecord(
        id=row["id"],
        format=row["format"],
        field=field,
        seeds=tuple(json.loads(row["seeds"])),
        options=json.loads(row["options"]),
        status=TournamentStatus(row["status"]),
        standings=None if row["standings"] is None else json.loads(row["standings"]),
        error=row["error"],
        matches=row["match_count"],
        created_at=parse_stamp(row["created_at"]),
        finished_at=None if row["finished_at"] is None else parse_stamp(row["finished_at"]),
        published=bool(row["published"]),
        excluded=tuple(
            Exclusion(r["name"], r["reason"], parse_stamp(r["created_at"]))
            for r in conn.execute(
                "SELECT x.name, x.reason, x.created_at FROM tournament_exclusions AS x"
                " JOIN tournament_field AS f ON f.tournament_id = x.tournament_id"
                " AND f.name = x.name WHERE x.tournament_id = ? ORDER BY f.position",
                (row["id"],),
            )
        ),
    )


def _or_none(conn: sqlite3.Connection, tournament_id: int) -> TournamentRecord | None:
    row = conn.execute(f"{_TOURNAMENTS} WHERE t.id = ?", (tournament_id,)).fetchone()
    return None if row is None else _record(conn, row)


def one_tournament(conn: sqlite3.Connection, tournament_id: int) -> TournamentRecord:
    record = _or_none(conn, tournament_id)
    assert record is not None, f"tournament {tournament_id} was just written"
    return record
