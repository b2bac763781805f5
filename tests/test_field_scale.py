"""What a field's coordinator, resume and standings cost grows with its entrants, not with the
matches recorded (issue 26, scale): counted in SQLite's steps and in objects held, never
timed. The same entrants with many more matches recorded (more seeds) cost the same."""

from __future__ import annotations

import functools
import gc
import sqlite3
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
import trio

import sim
from arena.bench import MadeUpPlayer
from arena.bench._field import _a_real_replay, _Filler
from arena.bench._scale import numbered_field
from arena.cases import Case, default_case
from arena.coordinator import FieldSignal, enter_field, field_json, open_field, play_field
from arena.store import Store
from arena.tournament import (
    Format,
    Pairing,
    Played,
    ScheduleMismatchError,
    Scheduler,
    Standings,
    TournamentPlan,
    TournamentSetupError,
    standings_without,
)
from arena.tournament._standings import Tally
from tests.test_coordinator import InProcess
from tests.test_field import SHORT_CASE, upload


@pytest.fixture(scope="module")
def replay() -> bytes:
    return _a_real_replay()


@pytest.fixture
def steps(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """SQLite's virtual machine steps (in tens) on every connection opened from now on."""
    counted = [0]
    real_connect = sqlite3.connect

    def counting(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn: sqlite3.Connection = real_connect(*args, **kwargs)

        def tick() -> int:
            counted[0] += 1
            return 0

        conn.set_progress_handler(tick, 10)
        return conn

    monkeypatch.setattr(sqlite3, "connect", counting)
    return counted


def _case(seeds: int) -> Case:
    base = default_case()
    return msgspec.structs.replace(
        base, match=msgspec.structs.replace(base.match, seeds=tuple(range(seeds)))
    )


def _field(root: Path, seeds: int, entrants: int, replay: bytes) -> tuple[Store, _Filler]:
    """A stored field of ``entrants`` on ``seeds`` seeds, every meeting recorded (made up)."""
    store = Store.open(root)
    filler = _Filler(store, _case(seeds), MadeUpPlayer(replay))
    filler.grow(iter(numbered_field(entrants)), entrants)
    return store, filler


def _first_page_steps(store: Store, tid: int, steps: list[int]) -> int:
    before = steps[0]
    pages: Iterator[Any] = store.iter_tournament_matches(tid, page=8)
    assert len([next(pages) for _ in range(8)]) == 8
    return steps[0] - before


@pytest.mark.slow
def test_a_page_of_a_tournaments_matches_costs_its_own_rows(
    tmp_path: Path, steps: list[int], replay: bytes
) -> None:
    """The first page of a field's matches (a resume's, a recount's) with 32 times the
    matches recorded: about the same SQLite steps (before an index in id order, every later
    match was read and sorted for each page)."""
    counted = []
    for seeds in (1, 32):
        store, filler = _field(tmp_path / str(seeds), seeds, 8, replay)
        with store:
            assert store.tournament(filler.tid).matches == 56 * seeds
            counted.append(_first_page_steps(store, filler.tid, steps))
    few, more = counted
    assert more < 1.5 * few + 20, (few, more)


# --------------------------------------------------------------------------- withdrawn


def _result(p: Pairing) -> Played:
    """A made-up result that depends on the pairing (so the ratings depend on the order)."""
    winner = None if (p.round + p.slot) % 5 == 0 else (p.round * 7 + p.slot) % 2
    return Played(p, winner, sim.Reason.SCORE, (10, 5), (90_000, 80_000), 400)


def _field_played(entrants: int, seeds: int, out: set[str]) -> tuple[TournamentPlan, list[Played]]:
    """A field of ``entrants`` (grown one by one) with every meeting recorded but those of
    ``out`` (withdrawn from the start): the plan and the results in schedule order."""
    names = [f"e{i}" for i in range(entrants)]
    sched = Scheduler(TournamentPlan(Format.FIELD, (names[0],), tuple(range(seeds))))
    results = []
    for name in names[1:]:
        sched.add_entrant(name)
        for p in list(sched.ready()):
            if p.a not in out and p.b not in out:
                results.append(_result(p))
                sched.record(results[-1])
    return sched.plan, results


def _held(sched: Scheduler) -> int:
    """Objects the scheduler holds for the rounds not complete and the ratings' queue."""
    return len(sched._done) + len(sched._count) + len(sched._to_rate)


@pytest.mark.parametrize("seeds", [1, 4])
def test_a_withdrawn_entrants_unplayed_meetings_hold_nothing(seeds: int) -> None:
    """The second entrant withdrawn from the start, every other meeting of 30 entrants
    recorded: no round is left incomplete and no result waits to be rated (before, every
    round after its first missing meeting kept its flags and every later result waited)."""
    plan, results = _field_played(30, seeds, {"e1"})
    sched = Scheduler(plan, results, withdrawn={"e1"})
    assert sched.recorded == len(results) == (29 * 28 // 2) * 2 * seeds
    assert _held(sched) == 0 and sched.finished
    assert list(sched.ready()) == [] and sched.next_round() is None
    rated = sched.standings().rows[0].rating
    assert rated != Scheduler(plan).standings().rows[0].rating  # the results were rated
    # Reinstated: its meetings are back to play, from the first of them.
    back = Scheduler(plan, results)
    missing = list(back.ready())
    assert len(missing) == 29 * 2 * seeds and all("e1" in (p.a, p.b) for p in missing)
    assert back.next_round() == [p for p in missing if p.round == missing[0].round]


def test_a_withdrawn_entrants_ratings_are_a_function_of_the_results_and_withdrawals() -> None:
    """Whatever order the results come in, and whether some of the withdrawn entrant's
    meetings were recorded (before it left, or in flight): the same standings, ratings
    included (its meetings are never rated); a newcomer after it meets only the others."""
    plan, results = _field_played(12, 2, {"e3"})
    extra = [_result(p) for p in Scheduler(plan, results).ready() if p.round % 3 == 0][:20]
    assert extra and all("e3" in (p.pairing.a, p.pairing.b) for p in extra)
    expected = Scheduler(plan, results, withdrawn={"e3"}).standings()
    mixed = [*results, *extra]
    for order in (mixed, mixed[::-1], sorted(mixed, key=lambda p: (p.pairing.slot, p.key))):
        sched = Scheduler(plan, order, withdrawn={"e3"})
        assert sched.recorded == len(mixed) and sched.finished
        assert _held(sched) == 0 and sum(bin(b).count("1") for b in sched._late[3]) == len(extra)
        got = sched.standings()
        assert [(r.name, r.rating) for r in got.rows] == [(r.name, r.rating) for r in expected.rows]
        with pytest.raises(ScheduleMismatchError, match="recorded twice"):
            sched.record(extra[0])
    sched = Scheduler(plan, results, withdrawn={"e3"})
    sched.add_entrant("e12")
    ready = list(sched.ready())
    assert len(ready) == 11 * 2 * 2 and not any("e3" in (p.a, p.b) for p in ready)


def test_only_a_field_withdraws_as_it_plays() -> None:
    plan = TournamentPlan(Format.ROUND_ROBIN, ("a", "b", "c"), (1,))
    with pytest.raises(TournamentSetupError, match="only a field"):
        Scheduler(plan, withdrawn={"a"})
    with pytest.raises(TournamentSetupError, match="'z' is not in the field"):
        Scheduler(TournamentPlan(Format.FIELD, ("a", "b"), (1,)), withdrawn={"z"})


# --------------------------------------------------------------------------- the recount


def _recount_holding_every_result(
    plan: TournamentPlan, results: list[Played], excluded: set[str]
) -> list[tuple[str, int, int, Any]]:
    """The standings' rows as ``standings_without`` made them before it streamed: every
    result held, those kept sorted into schedule order and rated."""
    names = [n for n in plan.order if n not in excluded]
    index = {name: i for i, name in enumerate(names)}
    tally = Tally(names)
    kept = sorted(
        (p for p in results if p.pairing.a in index and p.pairing.b in index),
        key=lambda p: (p.pairing.round, p.pairing.slot),
    )
    for p in kept:
        a, b = index[p.pairing.a], index[p.pairing.b]
        tally.add(a, b, p)
        if p.error is None:
            tally.rate(a, b, p.winner)
    rows = tally.standings(plan.format, len(kept), 0, False).rows
    return [(r.name, r.wins, r.errors, r.rating) for r in rows]


def _rows(standings: Standings) -> list[tuple[str, int, int, Any]]:
    return [(r.name, r.wins, r.errors, r.rating) for r in standings.rows]


def test_the_streamed_recount_equals_one_of_every_result_held() -> None:
    """A field with an entrant withdrawn after some of its meetings, a gap (a meeting not
    recorded yet), errors, in any order: the same rows, ratings included, as when every
    result was held and sorted; and a round-robin with one excluded."""
    plan, results = _field_played(14, 2, {"e4"})
    pending = list(Scheduler(plan, results).ready())
    some = [_result(p) for p in pending[:30]]  # e4's first meetings, before it left
    errors = [Played(r.pairing, None, None, error="made up") for r in results[5:9]]
    mixed = [*results[:5], *errors, *results[9:40], *results[41:], *some]  # one gap
    for order in (mixed, mixed[::-1], sorted(mixed, key=lambda p: p.key)):
        got = standings_without(plan, order, {"e4"})
        assert _rows(got) == _recount_holding_every_result(plan, order, {"e4"})
        assert got.matches == len(mixed) - len(some) and not got.complete
    rr = TournamentPlan(Format.ROUND_ROBIN, tuple(f"e{i}" for i in range(6)), (1, 2))
    played = [_result(p) for p in Scheduler(rr).ready()]
    assert _rows(standings_without(rr, played[::-1], {"e2"})) == _recount_holding_every_result(
        rr, played, {"e2"}
    )


def _recount_peak(store: Store, tid: int) -> int:
    """Bytes the standings' recount of the field ``tid`` held at most (Python's own). The
    ratings leave cyclic garbage: collected often, the peak is what is held, not what waits
    for the collector."""
    field_json(store, tid)  # once first: what any first call makes (caches, statements)
    gc.collect()
    threshold = gc.get_threshold()
    gc.set_threshold(10)
    tracemalloc.start()
    try:
        field_json(store, tid)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        gc.set_threshold(*threshold)


@pytest.mark.slow
def test_the_standings_recount_holds_a_page_not_every_result(
    tmp_path: Path, replay: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same 8 entrants, one withdrawn, with 32 times the matches recorded: the recount
    (the API's, the events stream's, ``arena field``'s) holds about the same bytes; pages of
    8 matches, so that one page is not the whole field."""
    paged = Store.iter_tournament_matches
    monkeypatch.setattr(
        Store, "iter_tournament_matches", lambda self, tid: paged(self, tid, page=8)
    )
    peaks = []
    for seeds in (1, 32):
        store, filler = _field(tmp_path / str(seeds), seeds, 8, replay)
        with store:
            store.withdraw_entrant(filler.tid, filler.names[2], "a test")
            assert store.tournament(filler.tid).matches == 56 * seeds
            peaks.append(_recount_peak(store, filler.tid))
    few, more = peaks
    assert more < 1.5 * few, (few, more)


@pytest.mark.slow
def test_a_running_field_takes_a_withdrawal_and_its_undoing_without_a_restart(
    data_dir: Path,
) -> None:
    """One coordinator for the whole test (as a server's): a withdrawal and a newcomer, then
    the withdrawal undone; the scheduler is made again from the store each time, so the
    newcomer meets only those not withdrawn, then the reinstated one, each match once."""
    with Store.open(data_dir) as store:
        tid = open_field(store, SHORT_CASE).id
        player = InProcess()
        signal = FieldSignal()

        def withdraw_and_enter() -> None:
            store.withdraw_entrant(tid, "greedy-raider", "a test")
            enter_field(store, SHORT_CASE, "bot", upload(store, 3, "bot"))

        def reinstate() -> None:
            store.reinstate_entrant(tid, "greedy-raider")

        steps: Iterator[Callable[[], None]] = iter([withdraw_and_enter, reinstate])

        async def main() -> None:
            async with trio.open_nursery() as nursery:

                async def idle() -> None:
                    step = next(steps, None)
                    if step is None:
                        nursery.cancel_scope.cancel()
                        return
                    step()
                    signal.poke()

                nursery.start_soon(
                    functools.partial(
                        play_field, store, tid, player, slots=2, signal=signal, on_idle=idle
                    )
                )

        trio.run(main)
        pairs = [(j.a.name, j.b.name) for j in player.played]
        assert len(pairs) == 12 + 6 + 2 == len(set(pairs))
        assert pairs[-2:] in (
            [("greedy-raider", "bot"), ("bot", "greedy-raider")],
            [("bot", "greedy-raider"), ("greedy-raider", "bot")],
        )
        assert all("greedy-raider" not in p for p in pairs[12:18])
        assert field_json(store, tid)["matches"] == {"played": 20, "pending": 0, "total": 20}
