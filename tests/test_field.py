"""The field (issue 26), pure: a round-robin that grows, one entrant at a time.

No wasm here: ``tests.test_tournament.outcome`` draws each match's result from its key,
so a field grown entrant by entrant can be compared with a round-robin of the same
entrants, result for result.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from arena.tournament import (
    Format,
    Pairing,
    Played,
    ScheduleMismatchError,
    Scheduler,
    TournamentPlan,
    TournamentSetupError,
)
from tests._support import examples
from tests.test_tournament import names, outcome, seed_lists


def grow(
    field: tuple[str, ...], seeds: tuple[int, ...], salt: int
) -> tuple[Scheduler, list[Played]]:
    """A field started with its first entrant, each later one entering once the matches
    before it are played (as a site's field does when pushes come one by one)."""
    sched = Scheduler(TournamentPlan(Format.FIELD, field[:1], seeds))
    log: list[Played] = []
    for name in field[1:]:
        sched.add_entrant(name)
        for p in list(sched.ready()):
            log.append(outcome(p, salt))
            sched.record(log[-1])
    return sched, log


def counts(sched: Scheduler) -> dict[str, tuple[int, ...]]:
    """Each entrant's counts, ratings apart: wins, losses, draws, forfeits, errors, fuel."""
    return {
        r.name: (r.wins, r.losses, r.draws, r.forfeits, r.errors, r.fuel_total, r.banked)
        for r in sched.standings().rows
    }


def test_a_newcomer_meets_each_earlier_entrant_on_every_seed_and_side() -> None:
    plan = TournamentPlan(Format.FIELD, ("a", "b", "c"), (5, 9))
    got = sorted((p.round, p.slot, p.seed, p.a, p.b) for p in plan.scheduler().ready())
    # stage k-1 is entrant k's; round = stage * 2S + 2 * seed_index + side; slot = the earlier one
    assert got == [
        (0, 0, 5, "a", "b"), (1, 0, 5, "b", "a"), (2, 0, 9, "a", "b"), (3, 0, 9, "b", "a"),
        (4, 0, 5, "a", "c"), (4, 1, 5, "b", "c"), (5, 0, 5, "c", "a"), (5, 1, 5, "c", "b"),
        (6, 0, 9, "a", "c"), (6, 1, 9, "b", "c"), (7, 0, 9, "c", "a"), (7, 1, 9, "c", "b"),
    ]  # fmt: skip
    assert plan.matches == len(got) == 3 * 2 // 2 * 4 and plan.stages == 2


@settings(max_examples=examples(40), deadline=None)
@given(field=names, seeds=seed_lists)
def test_keys_never_change_as_the_field_grows(field: list[str], seeds: list[int]) -> None:
    before: set[Pairing] = set()
    for n in range(1, len(field) + 1):
        now = set(TournamentPlan(Format.FIELD, tuple(field[:n]), tuple(seeds)).scheduler().ready())
        assert before <= now  # every match of the smaller field is there, as it was
        new = now - before
        assert {e for p in new for e in p.names} <= set(field[:n]) and all(
            field[n - 1] in p.names for p in new
        )
        assert len(new) == (n - 1) * 2 * len(seeds)
        before = now


@settings(max_examples=examples(40), deadline=None)
@given(field=names, seeds=seed_lists, salt=st.integers(0, 2**16))
def test_the_field_plays_the_matches_of_a_round_robin_and_counts_them_alike(
    field: list[str], seeds: list[int], salt: int
) -> None:
    """As a set of (seed, side A, side B), a field's matches are a round-robin's; since a
    match's result is drawn from what it is, the counts and the rank order by wins are the
    same (only the ratings differ: they take the matches in each schedule's order)."""
    grown, log = grow(tuple(field), tuple(seeds), salt)
    robin = TournamentPlan(Format.ROUND_ROBIN, tuple(field), tuple(seeds)).scheduler()
    robin_matches = list(robin.ready())
    assert sorted((p.seed, p.a, p.b) for p in robin_matches) == sorted(
        (p.pairing.seed, p.pairing.a, p.pairing.b) for p in log
    )
    by_match = {(p.pairing.seed, p.pairing.a, p.pairing.b): p for p in log}
    for p in robin_matches:  # the round-robin's match, with the field's result of it
        r = by_match[(p.seed, p.a, p.b)]
        robin.record(
            Played(p, r.winner, r.reason, r.banked, r.fuel_total, r.ticks, r.forfeits, r.error)
        )
    assert grown.finished and robin.finished
    assert counts(grown) == counts(robin)
    assert [r.name for r in grown.standings().rows] == [r.name for r in robin.standings().rows]
    assert grown.standings().matrix == robin.standings().matrix


@settings(max_examples=examples(50), deadline=None)
@given(field=names, seeds=seed_lists, salt=st.integers(0, 2**16), data=st.data())
def test_the_order_of_results_does_not_matter(
    field: list[str], seeds: list[int], salt: int, data: st.DataObject
) -> None:
    """Results recorded in any order, entrants added at any point between them (a site
    resumed from its store, a push arriving mid-way), give the very same standings,
    ratings included."""
    whole, log = grow(tuple(field), tuple(seeds), salt)
    shuffled = data.draw(st.permutations(log))
    sched = Scheduler(TournamentPlan(Format.FIELD, tuple(field[:1]), tuple(seeds)))
    present = 1
    for played in shuffled:
        need = max(field.index(n) for n in played.pairing.names) + 1
        # a result comes only once its entrants are in; others may enter early
        while present < len(field) and (present < need or data.draw(st.booleans())):
            sched.add_entrant(field[present])
            present += 1
        sched.record(played)
    for name in field[present:]:
        sched.add_entrant(name)
    assert sched.standings() == whole.standings()
    assert Scheduler(
        TournamentPlan(Format.FIELD, tuple(field), tuple(seeds)), shuffled
    ).standings() == (whole.standings())


def test_a_newcomer_is_scheduled_after_what_is_missing_without_rereading_results() -> None:
    field = tuple(f"c{i}" for i in range(6))
    sched, log = grow(field[:5], (1,), 3)
    assert sched.finished and sched.recorded == len(log) == 5 * 4
    assert sched._done == {} and sched._count == {}  # complete rounds keep no flags
    sched.add_entrant("c5")
    assert not sched.finished and sched.total == 6 * 5
    ready = list(sched.ready())
    assert len(ready) == 5 * 2 and all("c5" in p.names for p in ready)
    with pytest.raises(ScheduleMismatchError, match="recorded twice"):
        sched.record(log[0])


def test_what_a_field_refuses() -> None:
    plan = TournamentPlan(Format.FIELD, ("only",), (0,))  # a field may start with one entrant
    sched = plan.scheduler()
    assert sched.finished and sched.standings().rows[0].name == "only"
    with pytest.raises(TournamentSetupError, match="twice"):
        sched.add_entrant("only")
    with pytest.raises(TournamentSetupError, match="non-empty"):
        sched.add_entrant("")
    with pytest.raises(TournamentSetupError, match="an entrant or more"):
        TournamentPlan(Format.FIELD, (), (0,))
    robin = TournamentPlan(Format.ROUND_ROBIN, ("a", "b"), (0,)).scheduler()
    with pytest.raises(TournamentSetupError, match="only a field"):
        robin.add_entrant("c")
    assert TournamentPlan.from_json(plan.to_json()) == plan
