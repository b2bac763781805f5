"""The field (issue 26): one standing round-robin per case version, grown as controllers arrive.

A field is a stored tournament of format ``field`` (``arena.tournament.Format.FIELD``):
made on first need with the case's committed opponents (the hidden one too), then
entered by every controller whose pushed run could compete, once per module. It is
played by this coordinator's loop (``_play``), never finished: ``play_field`` keeps one
``Scheduler`` for the life of a server, reads only the newcomers from the store when
woken (``Scheduler.add_entrant``: O(field), whatever was recorded) and plays their
meetings; started again it rebuilds the scheduler from the store, page by page, and
plays what is missing. A withdrawn entrant's matches stay recorded, it leaves the
standings, and its meetings not yet played are not played (until it is reinstated).
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import trio

from arena._errors import ArenaError
from arena.cases import Case, find_case
from arena.coordinator._players import MatchPlayer
from arena.coordinator._run import OnProgress, _load, _play
from arena.coordinator._stored import played_of, tournament_plan
from arena.match import Contestant
from arena.store import FIELD_FORMAT, FieldEntry, Origin, Store, TournamentRecord
from arena.tournament import Pairing, Standings, standings_without

__all__ = [
    "FieldSignal",
    "FieldStandings",
    "enter_field",
    "enter_waiting_runs",
    "field_json",
    "field_standings",
    "find_field",
    "open_field",
    "play_field",
]


def _version(case: Case) -> tuple[str, int]:
    """The case's slug and version (a case outside the catalog has none: refused)."""
    ref = case.ref
    return ref.slug, int(ref.version)


def open_field(store: Store, case: Case) -> TournamentRecord:
    """The field of ``case``'s version: made now, with the case's committed opponents in
    manifest order (each stored, hidden ones hidden), if it has none yet."""
    slug, version = _version(case)
    found = store.field_id(slug, version)
    if found is not None:
        return store.tournament(found)
    from arena.store import Entrant

    entrants = []
    for opponent in case.opponents:
        stored = store.add_controller(
            opponent.read_module(),
            name=opponent.name,
            origin=Origin.BASELINE,
            hidden=opponent.hidden,
        )
        entrants.append(Entrant(opponent.name, stored.sha256))
    # Rules that differ from the catalog's copy of the case (a test's small case) are kept,
    # so a resumed field plays under the very rules of its first matches.
    catalog = find_case(slug, version).rules.to_dict()
    rules = {k: v for k, v in case.rules.to_dict().items() if catalog[k] != v}
    options: dict[str, Any] = {
        "case": {"slug": slug, "version": version},
        "rules": rules,
        "baselines": len(entrants),
    }
    return store.create_field(slug, version, entrants, seeds=case.match.seeds, options=options)


def _field_of(store: Store, case: Case) -> int:
    """The tournament id of ``case``'s field, made if need be. Only its id: reading the
    whole record counts its matches, which a newcomer's entering must not pay for."""
    found = store.field_id(*_version(case))
    return open_field(store, case).id if found is None else found


def enter_field(store: Store, case: Case, name: str, sha256: str) -> FieldEntry:
    """Enter the stored controller ``sha256`` in the field of ``case`` (made if need be);
    once per module (``Store.enter_field``)."""
    return store.enter_field(_field_of(store, case), name, sha256)


def enter_waiting_runs(store: Store, case: Case) -> list[FieldEntry]:
    """Enter every controller of a published run of ``case`` that could compete and is not
    in its field yet (a server stopped between recording a push and entering it, or runs
    recorded before the field existed), oldest run first. Made if need be (only then)."""
    waiting = store.runs_to_enter(*_version(case))
    if not waiting:
        return []
    tid = _field_of(store, case)
    return [store.enter_field(tid, name, sha256) for name, sha256 in waiting]


def find_field(store: Store, slug: str, version: int) -> TournamentRecord:
    """The field of case ``slug`` version ``version``; ``ArenaError`` naming those there are."""
    tid = store.field_id(slug, version)
    if tid is None:
        there = ", ".join(f"{f.case_slug}/{f.case_version}" for f in store.fields()) or "none"
        raise ArenaError(f"no field of {slug}/{version} in the store (fields: {there})")
    return store.tournament(tid)


@dataclass(frozen=True, slots=True)
class FieldStandings:
    """A field's standings now, recounted from its stored matches."""

    record: TournamentRecord
    standings: Standings
    pending: dict[str, int]
    """Each entrant in the standings: its meetings' matches not recorded yet."""

    def to_json(self) -> dict[str, Any]:
        """The API's and ``arena field --json``'s shape (docs/tournaments.md, "The field")."""
        record, standings = self.record, self.standings
        sha = {e.name: e.sha256 for e in record.field}
        baselines = {e.name for e in record.field[: int(record.options.get("baselines", 0))]}
        rows = []
        for r in standings.rows:
            row = r.to_json()
            played = r.matches + r.errors
            rows.append(
                {
                    "rank": r.rank,
                    "name": r.name,
                    "sha256": sha[r.name],
                    "wins": r.wins,
                    "losses": r.losses,
                    "draws": r.draws,
                    "errors": r.errors,
                    "played": played,
                    "pending": self.pending[r.name],
                    "forfeits": r.forfeits,
                    "forfeit_kinds": row["forfeit_kinds"],
                    "fuel_total": r.fuel_total,
                    "rating": row["rating"],
                    "baseline": r.name in baselines,
                }
            )
        played = standings.matches
        return {
            "case": record.options.get("case"),
            "tournament": record.id,
            "entrants": len(standings.rows),
            "matches": {
                "played": played,
                "pending": standings.total - played,
                "total": standings.total,
            },
            "standings": rows,
            "withdrawn": [{**x.to_json(), "sha256": sha[x.name]} for x in record.excluded],
        }


def field_standings(store: Store, tournament_id: int) -> FieldStandings:
    """A field's standings from its stored matches (read page by page), its withdrawn
    entrants left out; ratings take every counted match in schedule order."""
    record = store.tournament(tournament_id)
    if record.format != FIELD_FORMAT:
        raise ArenaError(f"tournament {tournament_id} is a {record.format}, not a field")
    plan = tournament_plan(record)
    excluded = {x.name for x in record.excluded}
    played = map(played_of, store.iter_tournament_matches(tournament_id))
    standings = standings_without(plan, played, excluded)
    per_opponent = plan.rounds_per_stage
    others = len(standings.rows) - 1
    pending = {r.name: others * per_opponent - r.matches - r.errors for r in standings.rows}
    return FieldStandings(record, standings, pending)


def field_json(store: Store, tournament_id: int) -> dict[str, Any]:
    """``field_standings(...).to_json()``."""
    return field_standings(store, tournament_id).to_json()


def _not_withdrawn(out: set[str]) -> Callable[[Pairing], bool]:
    """A field's matches to play: those of no entrant in ``out``."""
    return lambda p: p.a not in out and p.b not in out


class FieldSignal:
    """Wakes ``play_field`` (call ``poke`` in its trio loop): a newcomer, a withdrawal, its
    undoing. A poke while the field plays is kept: the loop looks again once it is done."""

    def __init__(self) -> None:
        self._poked = False
        self._event = trio.Event()

    def poke(self) -> None:
        self._poked = True
        self._event.set()

    async def wait(self) -> None:
        while not self._poked:
            self._event = trio.Event()
            await self._event.wait()
        self._poked = False


async def play_field(
    store: Store,
    tournament_id: int,
    player: MatchPlayer,
    *,
    slots: int,
    signal: FieldSignal,
    on_progress: OnProgress | None = None,
    on_idle: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """Play a field for as long as the caller lets it (cancel to stop): what is missing at
    once, then each newcomer's meetings as ``signal`` says there are some.

    The scheduler is built once from the store (a resume: page by page); a wake reads the
    entrants past those it holds and the withdrawals, never the matches. A match recorded
    already (by another coordinator) is counted as the store has it; each is recorded once.
    """
    t = await trio.to_thread.run_sync(_load, store, tournament_id)
    while True:
        # The withdrawals alone: the tournament's record would count its matches (an index
        # scan that grows with every match recorded) on each wake. Once they change, the
        # scheduler is made again from the store (a resume): its rounds settle past a
        # withdrawn entrant's meetings, and an undone withdrawal puts them back to play.
        out = await trio.to_thread.run_sync(store.withdrawn, tournament_id)
        if out != t.scheduler.withdrawn:
            t = await trio.to_thread.run_sync(_load, store, tournament_id)
        sched = t.scheduler
        newcomers = await trio.to_thread.run_sync(
            functools.partial(store.field_entrants, tournament_id, start=len(sched.plan.field))
        )
        for e in newcomers:
            module = await trio.to_thread.run_sync(store.read_module_bytes, e.sha256)
            sched.add_entrant(e.name)
            t.contestants[e.name] = Contestant(e.name, module)
            t.entrants[e.name] = e
        await _play(store, t, player, slots, on_progress, _not_withdrawn(out))
        if on_idle is not None:
            await on_idle()
        await signal.wait()
