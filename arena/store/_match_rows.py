"""A match and its two sides as rows: the query that reads them, rows into records, results
into rows, and the matches of a tournament or a run."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

import msgspec

import sim
from arena.store._db import Database
from arena.store._errors import NotInStoreError
from arena.store._records import (
    SIDE_KEYS,
    Entrant,
    MatchRecord,
    MatchStatus,
    ResultRecord,
    Role,
    SideRecord,
)
from arena.store._store import parse_stamp

if TYPE_CHECKING:
    from arena.match import MatchResult

__all__ = [
    "MATCHES",
    "PUBLISHED_MATCH",
    "ResultRows",
    "insert_match_rows",
    "match_or_none",
    "match_record",
    "matches_of",
    "one_match",
    "result_columns",
    "result_record",
    "side_columns",
]

_SIDES = """
    a.name AS a_name, a.sha256 AS a_sha256, a.banked AS a_banked,
    a.fuel_total AS a_fuel_total, a.fuel_peak AS a_fuel_peak, a.forfeit_tick AS a_forfeit_tick,
    a.forfeit_kind AS a_forfeit_kind, a.forfeit_detail AS a_forfeit_detail,
    b.name AS b_name, b.sha256 AS b_sha256, b.banked AS b_banked,
    b.fuel_total AS b_fuel_total, b.fuel_peak AS b_fuel_peak, b.forfeit_tick AS b_forfeit_tick,
    b.forfeit_kind AS b_forfeit_kind, b.forfeit_detail AS b_forfeit_detail,
    a.extra AS a_extra, b.extra AS b_extra
"""
PUBLISHED_MATCH: Final = """(
    m.id IN (SELECT match_id FROM published_matches)
    OR m.run_id IN (SELECT run_id FROM published_runs)
    OR m.tournament_id IN (SELECT tournament_id FROM published_tournaments)
)"""
"""Whether the match ``m`` is published: itself (a quick match), or with its run or
tournament."""
MATCHES: Final = f"""
    SELECT m.*, {_SIDES}, {PUBLISHED_MATCH} AS published
    FROM matches AS m
    JOIN match_sides AS a ON a.match_id = m.id AND a.side = 0
    JOIN match_sides AS b ON b.match_id = m.id AND b.side = 1
"""
"""Every read of matches selects through this: a match's row with its two sides'."""
_OWNERS: Final = {"tournament": ("tournaments", "tournament_id"), "run": ("runs", "run_id")}


# --------------------------------------------------------------------------- rows -> records


def _side(row: sqlite3.Row, p: str) -> SideRecord:
    forfeit = None
    if row[f"{p}_forfeit_kind"] is not None:
        forfeit = sim.Forfeit(
            row[f"{p}_forfeit_tick"],
            sim.ForfeitKind(row[f"{p}_forfeit_kind"]),
            row[f"{p}_forfeit_detail"],
        )
    return SideRecord(
        name=row[f"{p}_name"],
        sha256=row[f"{p}_sha256"],
        banked=row[f"{p}_banked"],
        fuel_total=row[f"{p}_fuel_total"],
        fuel_peak=row[f"{p}_fuel_peak"],
        forfeit=forfeit,
        extra={} if row[f"{p}_extra"] is None else json.loads(row[f"{p}_extra"]),
    )


def match_record(row: sqlite3.Row) -> MatchRecord:
    """A row of ``MATCHES`` as a record."""
    status = MatchStatus(row["status"])
    result = None
    if status is MatchStatus.FINISHED:
        result = ResultRecord(
            winner=row["winner"],
            reason=sim.Reason(row["reason"]),
            ticks=row["ticks"],
            replay_sha256=row["replay_sha256"],
            sides=(_side(row, "a"), _side(row, "b")),
        )
    return MatchRecord(
        id=row["id"],
        status=status,
        seed=row["seed"],
        entrants=(
            Entrant(row["a_name"], row["a_sha256"]),
            Entrant(row["b_name"], row["b_sha256"]),
        ),
        result=result,
        error=row["error"],
        created_at=parse_stamp(row["created_at"]),
        finished_at=None if row["finished_at"] is None else parse_stamp(row["finished_at"]),
        tournament_id=row["tournament_id"],
        pairing_key=row["pairing_key"],
        run_id=row["run_id"],
        opponent=row["opponent"],
        role=None if row["role"] is None else Role(row["role"]),
        published=bool(row["published"]),
    )


def match_or_none(conn: sqlite3.Connection, match_id: int) -> MatchRecord | None:
    """The match ``match_id``, if there is one."""
    row = conn.execute(f"{MATCHES} WHERE m.id = ?", (match_id,)).fetchone()
    return None if row is None else match_record(row)


def one_match(conn: sqlite3.Connection, match_id: int) -> MatchRecord:
    """The match ``match_id``, written in this transaction."""
    record = match_or_none(conn, match_id)
    assert record is not None, f"match {match_id} was just written"
    return record


def matches_of(
    db: Database, what: str, owner_id: int, *, after: int = 0, limit: int = -1
) -> list[MatchRecord]:
    """The matches of a tournament or run (``what``) by id, those past id ``after``, at most
    ``limit`` (-1: all), in the order they were recorded."""
    table, column = _OWNERS[what]

    def tx(conn: sqlite3.Connection) -> list[MatchRecord]:
        if conn.execute(f"SELECT 1 FROM {table} WHERE id = ?", (owner_id,)).fetchone() is None:
            raise NotInStoreError(f"no {what} {owner_id} in the store {db.path}")
        rows = conn.execute(
            f"{MATCHES} WHERE m.{column} = ? AND m.id > ? ORDER BY m.id LIMIT ?",
            (owner_id, after, limit),
        )
        return [match_record(r) for r in rows]

    return db.read(tx, f"reading a {what}'s matches")


# --------------------------------------------------------------------------- results -> rows


class ResultRows(msgspec.Struct, frozen=True):
    """A result whose replay file is stored, ready to become rows."""

    result: MatchResult
    replay_sha256: str
    entrants: tuple[Entrant, Entrant]
    extra: tuple[dict[str, Any], dict[str, Any]]
    """Each side's keys of the match JSON beyond ``SIDE_KEYS``."""

    @classmethod
    def of(
        cls, result: MatchResult, replay_sha256: str, entrants: tuple[Entrant, Entrant]
    ) -> ResultRows:
        a, b = ({k: v for k, v in s.to_dict().items() if k not in SIDE_KEYS} for s in result.sides)
        return cls(result, replay_sha256, entrants, (a, b))


def result_columns(
    played: ResultRows | None,
) -> tuple[int | None, str | None, int | None, str | None]:
    """winner, reason, ticks, replay_sha256 (all None without a result)."""
    if played is None:
        return None, None, None, None
    r = played.result
    return r.winner, str(sim.Reason(r.reason)), r.ticks, played.replay_sha256


def result_record(played: ResultRows, entrants: Sequence[Entrant]) -> ResultRecord:
    """The record of a result as it is written (its sides under the entrants' names)."""
    r = played.result
    a, b = (
        SideRecord(e.name, e.sha256, s.banked, s.fuel_total, s.fuel_peak, s.forfeit, extra)
        for s, e, extra in zip(r.sides, entrants, played.extra, strict=True)
    )
    return ResultRecord(r.winner, sim.Reason(r.reason), r.ticks, played.replay_sha256, (a, b))


def side_columns(
    played: ResultRows | None, entrants: Sequence[Entrant]
) -> list[tuple[object, ...]]:
    """Per side: name, sha256, banked, fuel_total, fuel_peak, forfeit tick, kind, detail, extra."""
    if played is None:
        return [(e.name, e.sha256, None, None, None, None, None, None, None) for e in entrants]
    return [
        (
            e.name,
            e.sha256,
            s.banked,
            s.fuel_total,
            s.fuel_peak,
            s.forfeit.tick if s.forfeit else None,
            str(s.forfeit.kind) if s.forfeit else None,
            s.forfeit.detail if s.forfeit else None,
            json.dumps(extra, separators=(",", ":"), allow_nan=False) if extra else None,
        )
        for s, e, extra in zip(played.result.sides, entrants, played.extra, strict=True)
    ]


def insert_match_rows(
    conn: sqlite3.Connection, match: tuple[object, ...], sides: list[tuple[object, ...]]
) -> int:
    """Insert a match's row and its sides' rows; the match's id."""
    cur = conn.execute(
        "INSERT INTO matches (status, seed, winner, reason, ticks, replay_sha256, error,"
        " tournament_id, pairing_key, run_id, opponent, role, created_at, finished_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        match,
    )
    match_id = cur.lastrowid
    assert match_id is not None
    conn.executemany(
        "INSERT INTO match_sides (match_id, side, name, sha256, banked, fuel_total,"
        " fuel_peak, forfeit_tick, forfeit_kind, forfeit_detail, extra)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(match_id, side, *cols) for side, cols in enumerate(sides)],
    )
    return match_id
