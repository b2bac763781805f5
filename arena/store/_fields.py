"""The fields (issue 26): one standing tournament of format ``field`` per case version.

A field is a tournaments row like any other (its matches, exclusions and
publication are the tournaments'); the ``fields`` table maps a case version to
it. It never finishes: entrants are appended to its ``tournament_field`` rows
as they arrive, and an operator withdraws one (a ``tournament_exclusions`` row)
while it runs. Every method here costs what the field's entrants cost, never
what its matches do: counts come from SQL aggregates over indexes.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any, Final

import msgspec

from arena._errors import ArenaError
from arena.store._controllers import check_controllers
from arena.store._errors import NotInStoreError
from arena.store._records import Entrant, RunOutcome, TournamentRecord
from arena.store._store import check_entrant, check_seed, utc_now
from arena.store._tournaments import (
    Tournaments,
    add_exclusion,
    drop_exclusion,
    insert_tournament,
    one_tournament,
)

__all__ = ["FIELD_FORMAT", "FieldEntry", "FieldSummary", "Fields"]

FIELD_FORMAT: Final = "field"
"""The tournaments' format of a field (``arena.tournament.Format.FIELD``'s value)."""


class FieldEntry(msgspec.Struct, frozen=True):
    """A controller in a field: its name there, its module, its place in arrival order."""

    entrant: Entrant
    position: int
    new: bool
    """Whether this call entered it (False: it was in the field already)."""


class FieldSummary(msgspec.Struct, frozen=True):
    """A field in a listing: its case version, its tournament, its counts now."""

    case_slug: str
    case_version: int
    tournament_id: int
    entrants: int
    """Entrants in its standings (the withdrawn ones left out)."""
    played: int
    """Matches recorded between two of those entrants."""
    seeds: int

    @property
    def total(self) -> int:
        """Matches a field of ``entrants`` plays in all: each pair on every seed, both sides."""
        return self.entrants * (self.entrants - 1) * self.seeds

    def to_json(self) -> dict[str, Any]:
        return {
            "case": {"slug": self.case_slug, "version": self.case_version},
            "tournament": self.tournament_id,
            "entrants": self.entrants,
            "matches": {
                "played": self.played,
                "pending": self.total - self.played,
                "total": self.total,
            },
        }


_SUMMARY: Final = """
    SELECT f.case_slug, f.case_version, f.tournament_id, t.seeds,
        (SELECT count(*) FROM tournament_field AS e WHERE e.tournament_id = f.tournament_id
            AND e.name NOT IN (SELECT name FROM tournament_exclusions
                               WHERE tournament_id = f.tournament_id)) AS entrants,
        (SELECT count(*) FROM matches AS m WHERE m.tournament_id = f.tournament_id
            AND NOT EXISTS (SELECT 1 FROM match_sides AS s JOIN tournament_exclusions AS x
                            ON x.tournament_id = m.tournament_id AND x.name = s.name
                            WHERE s.match_id = m.id)) AS played
    FROM fields AS f JOIN tournaments AS t ON t.id = f.tournament_id
"""


class Fields(Tournaments):
    """``Store``'s fields: made once per case version, entered, withdrawn from, listed."""

    def create_field(
        self,
        case_slug: str,
        case_version: int,
        field: Sequence[Entrant],
        *,
        seeds: Sequence[int],
        options: Mapping[str, Any],
    ) -> TournamentRecord:
        """The field of this case version: made now (a running tournament of format
        ``field`` over ``field``, in that order, published) unless it exists, then returned
        as it is. Two processes making it at once make one."""
        entrants = tuple(check_entrant(e) for e in field)
        if len({e.sha256 for e in entrants}) != len(entrants) or not entrants:
            raise ArenaError("a field starts with one controller or more, each once")
        seeds_json = json.dumps([check_seed(s) for s in seeds])
        options_json = json.dumps(dict(options), sort_keys=True, separators=(",", ":"))

        def tx(conn: sqlite3.Connection) -> TournamentRecord:
            found = _field_id(conn, case_slug, case_version)
            if found is not None:
                return one_tournament(conn, found)
            check_controllers(conn, entrants, self.path)
            now = utc_now()
            tid = insert_tournament(conn, FIELD_FORMAT, seeds_json, options_json, entrants, now)
            conn.execute(
                "INSERT INTO fields (case_slug, case_version, tournament_id, created_at)"
                " VALUES (?, ?, ?, ?)",
                (case_slug, case_version, tid, now),
            )
            # Public from the start, its matches with it (those to come too): the field's
            # standings, replays and controllers are the public site's (docs/web.md).
            conn.execute(
                "INSERT INTO published_tournaments (tournament_id, published_at) VALUES (?, ?)",
                (tid, now),
            )
            return one_tournament(conn, tid)

        return self._db.write(tx, f"making the field of {case_slug} v{case_version}")

    def field_id(self, case_slug: str, case_version: int) -> int | None:
        """The tournament id of this case version's field, or None if it has none yet."""
        return self._db.read(lambda c: _field_id(c, case_slug, case_version), "looking up a field")

    def fields(self) -> list[FieldSummary]:
        """Every field, by case slug and version, with its counts."""

        def tx(conn: sqlite3.Connection) -> list[FieldSummary]:
            rows = conn.execute(f"{_SUMMARY} ORDER BY f.case_slug, f.case_version").fetchall()
            return [_summary(r) for r in rows]

        return self._db.read(tx, "listing the fields")

    def field_summary(self, tournament_id: int) -> FieldSummary:
        """One field's counts (``fields``), by its tournament id."""

        def tx(conn: sqlite3.Connection) -> FieldSummary | None:
            row = conn.execute(f"{_SUMMARY} WHERE f.tournament_id = ?", (tournament_id,))
            found = row.fetchone()
            return None if found is None else _summary(found)

        return self._by_id("field", tournament_id, lambda c, _: tx(c))

    def enter_field(self, tournament_id: int, name: str, sha256: str) -> FieldEntry:
        """Append the stored controller ``sha256`` to the field, last; once per module: a
        module in the field already is returned as it is (``new`` False). Its name there
        is ``name``, or ``name@<its first 8 hex>`` when another module holds ``name``."""
        entrant = check_entrant(Entrant(name, sha256))

        def tx(conn: sqlite3.Connection) -> FieldEntry:
            _check_field(conn, tournament_id, self.path)
            row = conn.execute(
                "SELECT name, position FROM tournament_field"
                " WHERE tournament_id = ? AND sha256 = ?",
                (tournament_id, sha256),
            ).fetchone()
            if row is not None:
                return FieldEntry(Entrant(row[0], sha256), row[1], new=False)
            check_controllers(conn, [entrant], self.path)
            taken = conn.execute(
                "SELECT 1 FROM tournament_field WHERE tournament_id = ? AND name = ?",
                (tournament_id, name),
            ).fetchone()
            named = f"{name}@{sha256[:8]}" if taken else name
            (position,) = conn.execute(
                "SELECT coalesce(max(position) + 1, 0) FROM tournament_field"
                " WHERE tournament_id = ?",
                (tournament_id,),
            ).fetchone()
            conn.execute(
                "INSERT INTO tournament_field (tournament_id, position, name, sha256)"
                " VALUES (?, ?, ?, ?)",
                (tournament_id, position, named, sha256),
            )
            return FieldEntry(Entrant(named, sha256), position, new=True)

        return self._db.write(tx, f"entering a controller in field {tournament_id}")

    def field_entrants(self, tournament_id: int, *, start: int = 0) -> list[Entrant]:
        """The field's entrants from position ``start`` on, in arrival order: a coordinator
        that holds the first ``start`` reads only the newcomers."""
        return self._db.read(
            lambda c: [
                Entrant(r[0], r[1])
                for r in c.execute(
                    "SELECT name, sha256 FROM tournament_field WHERE tournament_id = ?"
                    " AND position >= ? ORDER BY position",
                    (tournament_id, start),
                )
            ],
            "reading a field's entrants",
        )

    def withdrawn(self, tournament_id: int) -> set[str]:
        """The names withdrawn from a tournament's standings (a field's, or any one's)."""
        return self._db.read(
            lambda c: {
                r[0]
                for r in c.execute(
                    "SELECT name FROM tournament_exclusions WHERE tournament_id = ?",
                    (tournament_id,),
                )
            },
            "reading a field's withdrawals",
        )

    def withdraw_entrant(self, tournament_id: int, name: str, reason: str) -> TournamentRecord:
        """Withdraw ``name`` from a field, for ``reason``: its recorded matches stay, it leaves
        the standings, and its meetings not played yet are not played. Refused for a name
        not in the field, one withdrawn already, an empty reason or another format."""
        reason = reason.strip()
        if not reason:
            raise ArenaError("give the reason for the withdrawal (--reason TEXT)")

        def tx(conn: sqlite3.Connection) -> TournamentRecord:
            _check_field(conn, tournament_id, self.path)
            _check_entrant(conn, tournament_id, name)
            if conn.execute(
                "SELECT 1 FROM tournament_exclusions WHERE tournament_id = ? AND name = ?",
                (tournament_id, name),
            ).fetchone():
                raise ArenaError(f"{name!r} is withdrawn from field {tournament_id} already")
            add_exclusion(conn, tournament_id, name, reason)
            return one_tournament(conn, tournament_id)

        return self._db.write(tx, f"withdrawing an entrant of field {tournament_id}")

    def reinstate_entrant(self, tournament_id: int, name: str) -> TournamentRecord:
        """Undo ``withdraw_entrant``: ``name`` is in the standings again, and its missing
        meetings are played."""

        def tx(conn: sqlite3.Connection) -> TournamentRecord:
            _check_field(conn, tournament_id, self.path)
            _check_entrant(conn, tournament_id, name)
            if not drop_exclusion(conn, tournament_id, name):
                raise ArenaError(f"{name!r} is not withdrawn from field {tournament_id}")
            return one_tournament(conn, tournament_id)

        return self._db.write(tx, f"reinstating an entrant of field {tournament_id}")

    def runs_to_enter(self, case_slug: str, case_version: int) -> list[tuple[str, str]]:
        """(controller name, sha256) of the published runs of this case version that could
        compete and whose module is not in its field yet, oldest run first, each module once:
        what a server that stopped between recording a push and entering it finds to enter."""

        def tx(conn: sqlite3.Connection) -> list[tuple[str, str]]:
            tid = _field_id(conn, case_slug, case_version)
            rows = conn.execute(
                "SELECT r.controller, r.controller_sha256, min(r.id) AS first FROM runs AS r"
                " WHERE r.case_slug = ? AND r.case_version = ? AND r.outcome <> ?"
                " AND r.controller_sha256 IS NOT NULL"
                " AND r.id IN (SELECT run_id FROM published_runs)"
                " AND r.controller_sha256 NOT IN"
                " (SELECT sha256 FROM tournament_field WHERE tournament_id = ?)"
                " GROUP BY r.controller_sha256 ORDER BY first",
                (case_slug, case_version, str(RunOutcome.COULD_NOT_COMPETE), tid or -1),
            ).fetchall()
            return [(r[0], r[1]) for r in rows]

        return self._db.read(tx, "finding runs to enter in a field")


def _field_id(conn: sqlite3.Connection, case_slug: str, case_version: int) -> int | None:
    row = conn.execute(
        "SELECT tournament_id FROM fields WHERE case_slug = ? AND case_version = ?",
        (case_slug, case_version),
    ).fetchone()
    return None if row is None else int(row[0])


def _check_field(conn: sqlite3.Connection, tournament_id: int, store: object) -> None:
    row = conn.execute("SELECT format FROM tournaments WHERE id = ?", (tournament_id,)).fetchone()
    if row is None:
        raise NotInStoreError(f"no tournament {tournament_id} in the store {store}")
    if row[0] != FIELD_FORMAT:
        raise ArenaError(
            f"tournament {tournament_id} is a {row[0]}, not a field: only a field takes "
            "entrants and withdrawals as it runs"
        )


def _check_entrant(conn: sqlite3.Connection, tournament_id: int, name: str) -> None:
    if not conn.execute(
        "SELECT 1 FROM tournament_field WHERE tournament_id = ? AND name = ?",
        (tournament_id, name),
    ).fetchone():
        raise ArenaError(f"field {tournament_id} has no entrant {name!r}")


def _summary(row: sqlite3.Row) -> FieldSummary:
    return FieldSummary(
        case_slug=row["case_slug"],
        case_version=row["case_version"],
        tournament_id=row["tournament_id"],
        entrants=row["entrants"],
        played=row["played"],
        seeds=len(json.loads(row["seeds"])),
    )
