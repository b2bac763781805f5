"""Tournaments: the pairings of every format, the standings, ratings and resume.

No wasm here: a seeded random outcome per match stands in for playing it, so
every property runs whole tournaments over drawn fields in milliseconds.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Iterable

import networkx as nx
import pytest
from hypothesis import given, settings, strategies as st
from openskill.models import PlackettLuce

import sim
from arena.match import MatchResult, SideResult
from arena.tournament import (
    Format,
    Pairing,
    Played,
    Rating,
    ScheduleMismatchError,
    Scheduler,
    Standings,
    TournamentPlan,
    TournamentSetupError,
    gauntlet_losses,
    rating_history,
    standings_without,
)
from tests._support import examples

DESIGN_ROW_KEYS = {"rank", "name", "wins", "losses", "draws", "forfeits", "fuel_total", "rating"}


# --------------------------------------------------------------------------- simulated play


def outcome(p: Pairing, salt: int) -> Played:
    """A result drawn from (salt, the match's key): the same match always ends the same way.

    Fuel comes in coarse steps so that bracket meetings level on wins and fuel happen.
    """
    r = random.Random(f"{salt}/{p.key}")
    if r.random() < 0.03:
        return Played.failed(p, "the worker died twice")
    winner = r.choice([0, 1, None])
    forfeits: list[sim.ForfeitKind | None] = [None, None]
    if winner is None:
        reason = sim.Reason.DRAW
    elif r.random() < 0.2:
        reason = sim.Reason.FORFEIT
        forfeits[1 - winner] = r.choice(list(sim.ForfeitKind))
    else:
        reason = r.choice([sim.Reason.SWEEP, sim.Reason.SCORE, sim.Reason.FUEL])
    return Played(
        p,
        winner=winner,
        reason=reason,
        banked=(r.randrange(200), r.randrange(200)),
        fuel_total=(r.randrange(3) * 1000, r.randrange(3) * 1000),
        ticks=r.randrange(1, 500),
        forfeits=(forfeits[0], forfeits[1]),
    )


def play_rounds(sched: Scheduler, salt: int) -> list[Played]:
    """A coordinator that plays whole rounds, in order."""
    log = []
    while (pairings := sched.next_round()) is not None:
        assert pairings, "next_round is None or not empty"
        for p in pairings:
            log.append(outcome(p, salt))
            sched.record(log[-1])
    return log


def play_parallel(
    sched: Scheduler, salt: int, rng: random.Random, jobs: int = 3, stop: int | None = None
) -> list[Played]:
    """A coordinator with ``jobs`` matches in flight that finish in an order drawn from rng."""
    log: list[Played] = []
    flying: dict[str, Pairing] = {}
    while not sched.finished and (stop is None or len(log) < stop):
        for p in sched.ready():
            if len(flying) >= jobs:
                break
            flying.setdefault(p.key, p)
        assert flying, "not finished, yet nothing to play"
        p = flying.pop(rng.choice(sorted(flying)))
        log.append(outcome(p, salt))
        sched.record(log[-1])
    return log


# --------------------------------------------------------------------------- strategies

names = st.lists(
    st.text(st.characters(codec="utf-8"), min_size=1, max_size=5),
    min_size=2,
    max_size=8,
    unique=True,
)
seed_lists = st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=2, unique=True)


@st.composite
def plans(draw: st.DrawFn, formats: Iterable[Format] = tuple(Format)) -> TournamentPlan:
    fmt = draw(st.sampled_from(list(formats)))
    field = tuple(draw(names))
    rounds = shuffle = None
    if fmt is Format.SWISS:
        most = len(field) - 1 if len(field) % 2 == 0 else len(field)
        rounds = draw(st.none() | st.integers(1, most))
    if fmt is Format.BRACKET:
        shuffle = draw(st.none() | st.integers(0, 2**32 - 1))
    return TournamentPlan(fmt, field, tuple(draw(seed_lists)), rounds=rounds, shuffle=shuffle)


def meetings(plan: TournamentPlan, log: Iterable[Played]) -> dict[tuple[int, int], list[Pairing]]:
    """The matches of each meeting, by (stage, slot)."""
    out: dict[tuple[int, int], list[Pairing]] = defaultdict(list)
    for played in log:
        out[(plan.stage_of(played.pairing), played.pairing.slot)].append(played.pairing)
    return out


# --------------------------------------------------------------------------- every format


@settings(max_examples=examples(60), deadline=None)
@given(plan=plans(), salt=st.integers(0, 2**16))
def test_each_meeting_plays_every_seed_with_both_sides_exactly_once(
    plan: TournamentPlan, salt: int
) -> None:
    sched = plan.scheduler()
    log = play_rounds(sched, salt)
    keys = [p.key for p in log]
    assert len(set(keys)) == len(keys)
    for (stage, _slot), games in meetings(plan, log).items():
        a, b = games[0].a, games[0].b
        want = sorted((s, x, y) for s in plan.seeds for x, y in ((a, b), (b, a)))
        assert sorted((g.seed, g.a, g.b) for g in games) == want
        # the plan tells the two side assignments apart: one each per seed
        assert 0 <= stage < plan.stages
        first = {(g.a, g.b) for g in games if plan.side_of(g) == 0}
        swapped = {(g.b, g.a) for g in games if plan.side_of(g) == 1}
        assert len(first) == 1 and first == swapped
    assert len(log) == sched.total <= plan.matches
    assert sched.total == plan.matches or plan.format is Format.SWISS


@settings(max_examples=examples(60), deadline=None)
@given(
    # a field's round is one newcomer's meetings with everyone before it (tests/test_field.py)
    plan=plans([f for f in Format if f is not Format.FIELD]),
    salt=st.integers(0, 2**16),
    order=st.randoms(use_true_random=False),
)
def test_no_controller_plays_twice_in_a_round(
    plan: TournamentPlan, salt: int, order: random.Random
) -> None:
    log = play_parallel(plan.scheduler(), salt, order)
    by_round: dict[int, list[str]] = defaultdict(list)
    for played in log:
        by_round[played.pairing.round].extend(played.pairing.names)
    for entrants in by_round.values():
        assert len(entrants) == len(set(entrants))


@settings(max_examples=examples(40), deadline=None)
@given(plan=plans(), salt=st.integers(0, 2**16), order=st.randoms(use_true_random=False))
def test_parallel_and_round_by_round_play_give_the_same_tournament(
    plan: TournamentPlan, salt: int, order: random.Random
) -> None:
    one, many = plan.scheduler(), plan.scheduler()
    by_rounds = play_rounds(one, salt)
    in_parallel = play_parallel(many, salt, order, jobs=order.randrange(1, 6))
    assert sorted(p.key for p in by_rounds) == sorted(p.key for p in in_parallel)
    assert one.standings() == many.standings()
    assert one.standings().complete and one.recorded == one.total
    assert one.leader == one.standings().leader == one.standings().rows[0].name


@settings(max_examples=examples(50), deadline=None)
@given(plan=plans(), salt=st.integers(0, 2**16), data=st.data())
def test_a_resumed_tournament_plays_what_is_missing_and_ends_the_same(
    plan: TournamentPlan, salt: int, data: st.DataObject
) -> None:
    order = data.draw(st.randoms(use_true_random=False))
    whole = plan.scheduler()
    full = play_parallel(whole, salt, order)
    # a coordinator that dies after k results; its store holds them in any order
    crashed = plan.scheduler()
    k = data.draw(st.integers(0, len(full)))
    stored = play_parallel(crashed, salt, random.Random(order.random()), stop=k)
    order.shuffle(stored)
    resumed = Scheduler(plan, stored)
    assert resumed.standings() == crashed.standings()
    assert resumed.leader == crashed.standings().leader
    assert plan.next_round(stored) == crashed.next_round() == resumed.next_round()
    rest = play_parallel(resumed, salt, order)
    assert not {p.key for p in rest} & {p.key for p in stored}
    assert sorted(p.key for p in stored + rest) == sorted(p.key for p in full)
    assert resumed.standings() == whole.standings() == plan.standings(full)


# --------------------------------------------------------------------------- round-robin


@settings(max_examples=examples(25), deadline=None)
@given(n=st.integers(2, 24))
def test_round_robin_stages_are_a_proper_edge_colouring_of_the_complete_graph(n: int) -> None:
    field = tuple(f"c{i}" for i in range(n))
    plan = TournamentPlan(Format.ROUND_ROBIN, field, (7,))
    log = play_rounds(plan.scheduler(), 1)
    classes: dict[int, set[tuple[str, str]]] = defaultdict(set)
    for played in log:
        a, b = sorted(played.pairing.names)
        classes[plan.stage_of(played.pairing)].add((a, b))
    complete = nx.complete_graph(field)
    assert len(classes) == plan.stages == (n - 1 if n % 2 == 0 else n)
    coloured = [edge for edges in classes.values() for edge in edges]
    assert len(coloured) == complete.number_of_edges()
    assert {frozenset(e) for e in coloured} == {frozenset(e) for e in complete.edges}
    for edges in classes.values():
        assert nx.is_matching(complete, edges) and len(edges) == n // 2
        assert nx.is_perfect_matching(complete, edges) == (n % 2 == 0)
    # an odd field: one entrant sits out each class, a different one each time
    sat_out = [set(field) - {x for e in edges for x in e} for edges in classes.values()]
    assert sorted(x for s in sat_out for x in s) == (sorted(field) if n % 2 else [])


def test_round_robin_is_laid_out_lazily() -> None:
    """A thousand entrants: the first matches come without the half million being built."""
    plan = TournamentPlan(Format.ROUND_ROBIN, tuple(f"c{i}" for i in range(1000)), (1, 2))
    sched = plan.scheduler()
    assert plan.matches == 1000 * 999 * 2
    first = next(sched.ready())
    assert (first.round, first.slot, first.seed) == (0, 0, 1)
    assert len(sched.next_round() or []) == 500


# --------------------------------------------------------------------------- bracket


def first_stage(plan: TournamentPlan, log: Iterable[Played]) -> dict[str, int]:
    out: dict[str, int] = {}
    for played in sorted(log, key=lambda p: p.pairing.round):
        for name in played.pairing.names:
            out.setdefault(name, plan.stage_of(played.pairing))
    return out


@settings(max_examples=examples(60), deadline=None)
@given(plan=plans([Format.BRACKET]), salt=st.integers(0, 2**16))
def test_a_bracket_of_n_has_n_minus_one_eliminations_and_one_champion(
    plan: TournamentPlan, salt: int
) -> None:
    n = len(plan.field)
    sched = plan.scheduler()
    log = play_rounds(sched, salt)
    games = meetings(plan, log)
    assert len(games) == n - 1
    seed_rank = {name: i for i, name in enumerate(plan.order)}
    last = {name: plan.stage_of(p.pairing) for p in log for name in p.pairing.names}
    losers = []
    for (stage, _), pairings in games.items():
        a, b = pairings[0].a, pairings[0].b
        wins, fuel = Counter[str](), Counter[str]()
        for p in pairings:
            played = outcome(p, salt)
            if played.error is None:
                if played.winner is not None:
                    wins[p.names[played.winner]] += 1
                fuel[p.a] += played.fuel_total[0]
                fuel[p.b] += played.fuel_total[1]
        # more wins; level: less fuel; level: the higher seed
        ahead = sorted((a, b), key=lambda x: (-wins[x], fuel[x], seed_rank[x]))
        winner, loser = ahead
        assert last[loser] == stage, "the loser plays no more"
        losers.append(loser)
        assert last[winner] > stage or stage == plan.stages - 1
    assert len(set(losers)) == n - 1
    (champion,) = set(plan.field) - set(losers)
    rows = sched.standings().rows
    assert [r.name for r in rows if r.reached == plan.stages] == [champion]
    # byes: the top seeds start in round 1, everyone else in round 0
    size = 1 << (n - 1).bit_length()
    starts = first_stage(plan, log)
    assert [starts[name] for name in plan.order] == [1] * (size - n) + [0] * (2 * n - size)
    # standings rank by wins, then by the round reached
    ranked = [(row.wins, row.reached or 0) for row in rows]
    assert ranked == sorted(ranked, reverse=True)
    for row in sched.standings().rows:
        assert row.reached == (plan.stages if row.name == champion else last[row.name])


@settings(max_examples=examples(30), deadline=None)
@given(n=st.integers(2, 40))
def test_the_bracket_is_a_digraph_in_which_every_match_points_to_the_next(n: int) -> None:
    plan = TournamentPlan(Format.BRACKET, tuple(f"c{i}" for i in range(n)), (1,))
    graph = plan.bracket_graph()
    assert graph.number_of_nodes() == n - 1
    assert nx.is_arborescence(graph.reverse())
    (final,) = [node for node in graph if graph.out_degree(node) == 0]
    assert graph.nodes[final]["stage"] == plan.stages - 1
    for node in graph:  # two entrants each: seeded in, or a match's winner
        seeded = sum(e is not None for e in graph.nodes[node]["seeded"])
        assert seeded + graph.in_degree(node) == 2
    # the top two seeds can only meet in the final
    sched = plan.scheduler()
    play_rounds(sched, 3)
    meets = [
        node
        for node, data in sched.bracket().nodes(data=True)
        if {data["a"], data["b"]} == {"c0", "c1"}
    ]
    assert meets in ([], [final])


def test_a_shuffled_bracket_is_seeded_by_its_own_draw() -> None:
    field = tuple(f"c{i}" for i in range(8))
    drawn = TournamentPlan(Format.BRACKET, field, (1,), shuffle=99)
    assert drawn.order == TournamentPlan(Format.BRACKET, field, (1,), shuffle=99).order
    assert sorted(drawn.order) == sorted(field) and drawn.order != field
    orders = {TournamentPlan(Format.BRACKET, field, (1,), shuffle=s).order for s in range(20)}
    assert len(orders) == 20
    first = drawn.scheduler().next_round() or []
    assert (first[0].a, first[0].b) == (drawn.order[0], drawn.order[7])
    with pytest.raises(TournamentSetupError, match="shuffle is for bracket"):
        TournamentPlan(Format.SWISS, field, (1,), shuffle=3)


def test_a_bracket_meeting_level_on_wins_and_fuel_goes_to_the_higher_seed() -> None:
    plan = TournamentPlan(Format.BRACKET, ("top", "low"), (1, 2))
    level = [
        Played(p, winner=p.seed % 2, reason=sim.Reason.SCORE, fuel_total=(5, 5), ticks=9)
        for p in plan.scheduler().ready()
    ]  # seed 1: side B wins, both sides: one win each over the four matches
    assert Counter(p.pairing.names[p.winner or 0] for p in level) == {"top": 2, "low": 2}
    rows = plan.standings(level).rows
    assert [(r.name, r.reached) for r in rows] == [("top", 1), ("low", 0)]
    cheaper = [
        Played(p.pairing, p.winner, p.reason, fuel_total=(4, 5) if p.pairing.a == "low" else (5, 4))
        for p in level
    ]
    assert plan.standings(cheaper).leader == "low"


# --------------------------------------------------------------------------- swiss


@settings(max_examples=examples(60), deadline=None)
@given(plan=plans([Format.SWISS]), salt=st.integers(0, 2**16))
def test_swiss_never_pairs_twice(plan: TournamentPlan, salt: int) -> None:
    log = play_rounds(plan.scheduler(), salt)
    pairs = [frozenset(games[0].names) for games in meetings(plan, log).values()]
    assert len(pairs) == len(set(pairs))
    stages = {stage for stage, _ in meetings(plan, log)}
    assert stages == set(range(len(stages)))


@settings(max_examples=examples(40), deadline=None)
@given(field=names, seeds=seed_lists, salt=st.integers(0, 2**16))
def test_a_default_swiss_pairs_everyone_every_round_and_byes_go_round(
    field: list[str], seeds: list[int], salt: int
) -> None:
    n = len(field)
    plan = TournamentPlan(Format.SWISS, tuple(field), tuple(seeds))
    assert plan.rounds == (n - 1).bit_length()
    log = play_rounds(plan.scheduler(), salt)
    met = meetings(plan, log)
    assert len(log) == plan.matches and len(met) == plan.rounds * (n // 2)
    sat_out = Counter(
        name
        for stage in range(plan.rounds)
        for name in set(field) - {x for (s, _), g in met.items() if s == stage for x in g[0].names}
    )
    assert set(sat_out.values()) <= {1}, "nobody sits out twice"
    assert sum(sat_out.values()) == (plan.rounds if n % 2 else 0)


def test_swiss_pairs_by_score_and_gives_the_bye_to_the_lowest_ranked() -> None:
    plan = TournamentPlan(Format.SWISS, ("a", "b", "c", "d", "e"), (1,), rounds=3)
    sched = plan.scheduler()

    def play(winners: set[str]) -> list[frozenset[str]]:
        pairings = sched.next_round() or []
        pairs = [frozenset(p.names) for p in pairings]
        while pairings:
            for p in pairings:
                won = 0 if p.a in winners else 1
                sched.record(Played(p, winner=won, reason=sim.Reason.SCORE, ticks=1))
            pairings = sched.next_round() or []
            if pairings and pairings[0].round % plan.rounds_per_stage == 0:
                break
            pairs += [frozenset(p.names) for p in pairings]
        return sorted(set(pairs), key=sorted)

    # round 1: seeded order, top half against bottom half; e (last) sits out
    assert play({"a", "b"}) == [frozenset("ac"), frozenset("bd")]
    # a, b 2 wins; c, d, e 0: the winners meet; the bye to d, lowest without one
    assert play({"a", "c"}) == [frozenset("ab"), frozenset("ce")]
    # a 4, c 2, b 2, e 0, d 0: a meets the best it has not met
    third = play(set())
    assert frozenset("ac") not in third and len(third) == 2


# --------------------------------------------------------------------------- gauntlet


@settings(max_examples=examples(30), deadline=None)
@given(plan=plans([Format.GAUNTLET]), salt=st.integers(0, 2**16))
def test_the_gauntlet_plays_the_first_controller_against_each_other_one(
    plan: TournamentPlan, salt: int
) -> None:
    log = play_rounds(plan.scheduler(), salt)
    first, *others = plan.field
    pairs = Counter(frozenset(p.pairing.names) for p in log)
    assert pairs == {frozenset((first, o)): 2 * len(plan.seeds) for o in others}
    standings = plan.standings(log)
    table = standings.gauntlet
    assert sorted(row.opponent for row in table) == sorted(others)
    me = standings.row(first)
    assert sum(row.wins for row in table) == me.wins
    assert sum(row.losses for row in table) == me.losses
    assert sum(row.forfeits[0] for row in table) == me.forfeits
    assert sum(row.fuel_total[0] for row in table) == me.fuel_total
    for row in table:
        them = standings.row(row.opponent)
        assert (row.losses, row.wins, row.draws) == (them.wins, them.losses, them.draws)
        assert row.forfeits[1] == them.forfeits
        assert row.matches + row.errors == 2 * len(plan.seeds)
        json = row.to_json()
        assert json["fuel_per_tick"][0] == row.fuel_total[0] / (row.ticks or 1)
        assert set(json) >= {"opponent", "wins", "losses", "draws", "banked", "fuel_per_tick"}
    assert TournamentPlan(Format.ROUND_ROBIN, plan.field, plan.seeds).standings([]).gauntlet == ()


@settings(max_examples=examples(30), deadline=None)
@given(plan=plans([Format.GAUNTLET]), salt=st.integers(0, 2**16), data=st.data())
def test_a_gauntlet_counts_each_opponent_by_side_and_ranks_all_by_wins(
    plan: TournamentPlan, salt: int, data: st.DataObject
) -> None:
    """Per opponent and side, the entrant's wins-losses-draws, errors and forfeits by kind,
    counted again here from the results, the opponents hardest first; the standings rank
    every entrant by wins, as any format's do."""
    full = play_rounds(plan.scheduler(), salt)
    log = full[: data.draw(st.integers(0, len(full)))]
    standings = plan.standings(log)
    first = plan.field[0]
    assert standings.entrant == first
    assert [r.rank for r in standings.rows] == list(range(1, len(plan.field) + 1))
    assert sorted(g.opponent for g in standings.gauntlet) == sorted(plan.field[1:])
    for row in standings.gauntlet:
        for side, counts in enumerate((row.as_a, row.as_b)):
            mine = [
                p
                for p in log
                if p.pairing.names[side] == first and p.pairing.names[1 - side] == row.opponent
            ]
            counted = [p for p in mine if p.error is None]
            assert counts.wins == sum(p.winner == side for p in counted)
            assert counts.losses == sum(p.winner == 1 - side for p in counted)
            assert counts.draws == sum(p.winner is None for p in counted)
            assert counts.errors == len(mine) - len(counted)
            kinds = Counter(p.forfeits[side] for p in counted)
            assert all(counts.forfeit_kinds[k] == kinds[k] for k in sim.ForfeitKind)
        assert row.wins == row.as_a.wins + row.as_b.wins
        assert row.losses == row.as_a.losses + row.as_b.losses
        assert row.to_json()["as_b"]["losses"] == row.as_b.losses
    # the hardest first: more wins against the entrant, fewer losses to it, seeded order
    fared = [(-g.losses, g.wins, plan.field.index(g.opponent)) for g in standings.gauntlet]
    assert fared == sorted(fared)
    json = standings.to_json()
    assert json["entrant"] == first
    assert [r["rank"] for r in json["standings"]] == list(range(1, len(plan.field) + 1))


def test_a_gauntlet_lists_its_entrants_losses_worst_seeds_first() -> None:
    plan = TournamentPlan(Format.GAUNTLET, ("me", "x", "y"), (5, 6, 7))
    sched = plan.scheduler()
    log: list[Played] = []
    # me loses to y on seed 7 both sides (one by a fuel forfeit), to x on seed 6 as B;
    # a draw, an error and wins elsewhere
    for p in sched.ready():
        mine = p.names.index("me")
        other = "x" if "x" in p.names else "y"
        if (other, p.seed) == ("y", 7) or (other, p.seed, mine) == ("x", 6, 1):
            forfeit = sim.ForfeitKind.FUEL if mine == 0 and other == "y" else None
            log.append(
                Played(
                    p,
                    winner=1 - mine,
                    reason=sim.Reason.FORFEIT if forfeit else sim.Reason.SCORE,
                    banked=(3, 9) if mine == 0 else (9, 3),
                    forfeits=(forfeit, None),
                )
            )
        elif p.seed == 5 and other == "x":
            log.append(Played(p, winner=None, reason=sim.Reason.DRAW))
        elif p.seed == 5 and other == "y" and mine == 1:
            log.append(Played.failed(p, "the worker died twice"))
        else:
            log.append(Played(p, winner=mine, reason=sim.Reason.SWEEP))
    refs = {p.pairing: (i, f"r{i}") for i, p in enumerate(log)}
    losses = gauntlet_losses(plan, ((p, *refs[p.pairing]) for p in reversed(log)))
    assert [(x.seed, x.opponent, x.side, x.seed_losses) for x in losses] == [
        (7, "y", 0, 2),
        (7, "y", 1, 2),
        (6, "x", 1, 1),
    ]
    worst = losses[0]
    assert (worst.reason, worst.forfeit, worst.banked) == (
        sim.Reason.FORFEIT,
        sim.ForfeitKind.FUEL,
        (3, 9),
    )
    assert losses[1].banked == (3, 9) and losses[1].forfeit is None
    assert (worst.match_id, worst.replay) == refs[worst_pairing(log, 7, "y", 0)]
    assert worst.to_json() == {
        "seed": 7,
        "opponent": "y",
        "side": "A",
        "reason": "forfeit",
        "forfeit": "fuel",
        "banked": [3, 9],
        "seed_losses": 2,
        "match": worst.match_id,
        "replay": worst.replay,
    }
    standings = plan.standings(log)
    assert [g.opponent for g in standings.gauntlet] == ["y", "x"]  # y beat it twice, x once
    x = standings.gauntlet[1]
    assert (x.as_a.wins, x.as_a.losses, x.as_a.draws) == (2, 0, 1)
    assert (x.as_b.wins, x.as_b.losses, x.as_b.draws) == (1, 1, 1)
    y = standings.gauntlet[0]
    assert (y.as_a.wins, y.as_a.losses, y.as_a.forfeit_kinds[sim.ForfeitKind.FUEL]) == (2, 1, 1)
    assert (y.as_b.wins, y.as_b.losses, y.as_b.errors) == (1, 1, 1)
    with pytest.raises(ValueError, match="no gauntlet losses"):
        gauntlet_losses(TournamentPlan(Format.ROUND_ROBIN, ("a", "b"), (0,)), [])


def worst_pairing(log: list[Played], seed: int, opponent: str, side: int) -> Pairing:
    return next(
        p.pairing
        for p in log
        if p.pairing.seed == seed
        and p.pairing.names[side] == "me"
        and p.pairing.names[1 - side] == opponent
    )


# --------------------------------------------------------------------------- standings


def reference_order(plan: TournamentPlan, log: Iterable[Played], st_: Standings) -> list[str]:
    """The tie-break rules written out again: wins, head-to-head wins among the tied,
    less total fuel, name (a bracket's round reached comes right after wins), in every
    format."""
    wins, fuel, beat = Counter[str](), Counter[str](), Counter[tuple[str, str]]()
    for played in log:
        if played.error is not None:
            continue
        p = played.pairing
        fuel[p.a] += played.fuel_total[0]
        fuel[p.b] += played.fuel_total[1]
        if played.winner is not None:
            w, loser = p.names[played.winner], p.names[1 - played.winner]
            wins[w] += 1
            beat[(w, loser)] += 1
    reached = {row.name: row.reached or 0 for row in st_.rows}
    group = defaultdict(list)
    for name in plan.field:
        group[(wins[name], reached[name])].append(name)

    def h2h(name: str) -> int:
        return sum(beat[(name, other)] for other in group[(wins[name], reached[name])])

    return sorted(plan.field, key=lambda x: (-wins[x], -reached[x], -h2h(x), fuel[x], x))


@settings(max_examples=examples(60), deadline=None)
@given(plan=plans(), salt=st.integers(0, 2**16), data=st.data())
def test_standings_follow_the_tie_break_order(
    plan: TournamentPlan, salt: int, data: st.DataObject
) -> None:
    full = play_rounds(plan.scheduler(), salt)
    log = full[: data.draw(st.integers(0, len(full)))]
    standings = plan.standings(log)
    assert [row.name for row in standings.rows] == reference_order(plan, log, standings)
    ranks = [row.rank for row in standings.rows]
    assert ranks == list(range(1, len(plan.field) + 1))
    counted = [p for p in log if p.error is None]
    for row in standings.rows:
        mine = [p for p in counted if row.name in p.pairing.names]
        assert row.matches == len(mine)
        assert row.errors == sum(row.name in p.pairing.names for p in log if p.error)
        kinds = Counter(p.forfeits[p.pairing.names.index(row.name)] for p in mine)
        assert row.forfeits == sum(n for k, n in kinds.items() if k is not None)
        assert all(row.forfeit_kinds[k] == kinds[k] for k in sim.ForfeitKind)
    matrix = standings.matrix
    for row in standings.rows:
        assert sum(matrix.wins(row.name, other) for other in plan.field) == row.wins
        assert sum(matrix.draws(row.name, other) for other in plan.field) == row.draws


def test_a_three_way_tie_is_broken_by_wins_among_the_three_then_fuel_then_name() -> None:
    plan = TournamentPlan(Format.ROUND_ROBIN, ("ann", "bob", "cat", "dan"), (1,))
    # each pair meets twice (both sides): who won each of the two (None: a draw)
    games: dict[tuple[str, str], list[str | None]] = {
        ("ann", "bob"): ["bob", None],
        ("bob", "cat"): ["bob", None],
        ("ann", "cat"): ["ann", "cat"],
        ("bob", "dan"): [None, None],
        ("ann", "dan"): ["ann", None],
        ("cat", "dan"): ["cat", None],
    }

    def standings(cat_fuel: int) -> list[tuple[str, int]]:
        log: list[Played] = []
        for pairings in iter(lambda: plan.next_round(log), None):
            for p in pairings:
                a, b = sorted(p.names)
                who = games[(a, b)][p.round % 2]
                winner = None if who is None else p.names.index(who)
                fuel = (cat_fuel if p.a == "cat" else 10, cat_fuel if p.b == "cat" else 10)
                log.append(Played(p, winner, sim.Reason.SCORE, fuel_total=fuel, ticks=1))
        return [(row.name, row.wins) for row in plan.standings(log).rows]

    # ann, bob and cat won two each; among the three, bob won two, ann and cat one each
    assert standings(cat_fuel=10) == [("bob", 2), ("ann", 2), ("cat", 2), ("dan", 0)]
    # level on head-to-head: less total fuel first (else the name)
    assert standings(cat_fuel=9) == [("bob", 2), ("cat", 2), ("ann", 2), ("dan", 0)]


@settings(max_examples=examples(40), deadline=None)
@given(plan=plans(), salt=st.integers(0, 2**16), order=st.randoms(use_true_random=False))
def test_ratings_take_the_matches_in_schedule_order_whatever_order_they_came_in(
    plan: TournamentPlan, salt: int, order: random.Random
) -> None:
    log = play_parallel(plan.scheduler(), salt, order)
    model = PlackettLuce()
    ratings = {name: model.rating() for name in plan.field}
    for played in sorted(log, key=lambda p: (p.pairing.round, p.pairing.slot)):
        if played.error is not None:
            continue
        a, b = played.pairing.names
        w = played.winner
        ranks = [0.0, 0.0] if w is None else [float(w), float(1 - w)]
        [[ratings[a]], [ratings[b]]] = model.rate([[ratings[a]], [ratings[b]]], ranks=ranks)
    standings = plan.standings(reversed(log))
    for row in standings.rows:
        assert (row.rating.mu, row.rating.sigma) == (ratings[row.name].mu, ratings[row.name].sigma)
        assert row.rating.ordinal == pytest.approx(ratings[row.name].ordinal())
    assert standings == plan.standings(log)


@settings(max_examples=examples(40), deadline=None)
@given(plan=plans(), salt=st.integers(0, 2**16), order=st.randoms(use_true_random=False))
def test_the_rating_history_ends_where_the_standings_do(
    plan: TournamentPlan, salt: int, order: random.Random
) -> None:
    log = play_parallel(plan.scheduler(), salt, order)
    history = rating_history(reversed(log))
    assert [h.played for h in history] == sorted(
        log, key=lambda p: (p.pairing.round, p.pairing.slot)
    )
    last: dict[str, Rating] = {}
    for h in history:
        assert h.counted == (h.played.error is None)
        for name, rating in zip(h.played.pairing.names, h.ratings, strict=True):
            if not h.counted:  # a match that did not count leaves both ratings as they were
                assert last.get(name, rating) == rating
            last[name] = rating
    for row in plan.standings(log).rows:
        if row.name in last:
            assert last[row.name] == row.rating


def test_the_rating_history_skips_an_excluded_entrants_matches() -> None:
    plan = TournamentPlan(Format.ROUND_ROBIN, ("ann", "bob", "cat"), (1, 2))
    log = play_rounds(plan.scheduler(), 3)
    history = rating_history(log, excluded={"cat"})
    assert all(h.counted == ("cat" not in h.played.pairing.names) for h in history)
    rows = {r.name: r.rating for r in standings_without(plan, log, {"cat"}).rows}
    for h in reversed(history):
        if h.counted:
            assert dict(zip(h.played.pairing.names, h.ratings, strict=True)) == {
                n: rows[n] for n in h.played.pairing.names
            }
            break


def test_a_failed_match_is_done_and_counts_for_nothing() -> None:
    plan = TournamentPlan(Format.ROUND_ROBIN, ("x", "y"), (5,))
    sched = plan.scheduler()
    first = sched.next_round() or []
    sched.record(Played.failed(first[0], "worker killed twice"))
    second = sched.next_round() or []
    assert second[0].round == 1
    sched.record(Played(second[0], 0, sim.Reason.SWEEP, fuel_total=(3, 4), ticks=2))
    assert sched.finished and sched.recorded == 2
    rows = {row.name: row for row in sched.standings().rows}
    assert (rows["y"].wins, rows["y"].errors, rows["y"].fuel_total) == (1, 1, 3)
    assert (rows["x"].losses, rows["x"].errors, rows["x"].matches) == (1, 1, 1)


def test_the_json_rows_carry_the_design_keys() -> None:
    plan = TournamentPlan(Format.SWISS, ("p", "q", "r"), (1, 2))
    log = play_rounds(plan.scheduler(), 11)
    doc = plan.standings(log).to_json()
    assert {"format", "matches", "standings"} <= set(doc) and doc["format"] == "swiss"
    assert doc["matches"] == len(log) and doc["complete"] is True
    for row in doc["standings"]:
        assert set(row) >= DESIGN_ROW_KEYS
        assert set(row["rating"]) == {"mu", "sigma", "ordinal"}
        assert set(row["forfeit_kinds"]) == {str(k) for k in sim.ForfeitKind}
    matrix = plan.standings(log).matrix.to_json()
    assert matrix["names"] == ["p", "q", "r"] and len(matrix["wins"]) == 3


# --------------------------------------------------------------------------- records and errors


@settings(max_examples=examples(25), deadline=None)
@given(plan=plans(), salt=st.integers(0, 2**16))
def test_plans_and_results_survive_their_json(plan: TournamentPlan, salt: int) -> None:
    assert TournamentPlan.from_json(plan.to_json()) == plan
    for p in play_rounds(plan.scheduler(), salt):
        assert Played.from_json(p.to_json()) == p


def test_a_match_result_becomes_a_played_record() -> None:
    forfeit = sim.Forfeit(12, sim.ForfeitKind.TRAP, "unreachable")
    sides = (
        SideResult("a", "0" * 64, banked=30, fuel_total=900, fuel_peak=50, forfeit=None),
        SideResult("b", "1" * 64, banked=10, fuel_total=700, fuel_peak=60, forfeit=forfeit),
    )
    result = MatchResult(0, sim.Reason.FORFEIT, ticks=12, seed=4, sides=sides, replay=b"")
    pairing = Pairing(0, 0, "a", "b", 4)
    played = Played.from_result(pairing, result)
    assert played == Played(
        pairing,
        winner=0,
        reason=sim.Reason.FORFEIT,
        banked=(30, 10),
        fuel_total=(900, 700),
        ticks=12,
        forfeits=(None, sim.ForfeitKind.TRAP),
    )


def test_keys_name_a_match_unambiguously() -> None:
    one = Pairing(3, 1, "a:b", "c", 9).key
    other = Pairing(3, 1, "a", "b:c", 9).key
    assert one != other and one == '[3,1,9,"a:b","c"]'


@given(
    round_=st.integers(0, 2**31),
    slot=st.integers(0, 2**16),
    seed=st.integers(0, 2**32 - 1),
    a=st.text(min_size=1),
    b=st.text(min_size=1),
)
def test_a_pairing_is_read_back_from_its_key(
    round_: int, slot: int, seed: int, a: str, b: str
) -> None:
    pairing = Pairing(round_, slot, a, b, seed)
    assert Pairing.from_key(pairing.key) == pairing


@pytest.mark.parametrize(
    "key",
    [
        "",
        "0:3",
        "[0,1,2]",
        '[0,1,2,"a"]',
        '[0,1,2,"a","b","c"]',
        '[0,1,2,"a",7]',
        '["0",1,2,"a","b"]',
        '[0,true,2,"a","b"]',
        '[0,1.5,2,"a","b"]',
        '{"round":0}',
        "[" * 5000,
    ],
)
def test_a_string_that_is_no_pairing_key_is_refused_by_name(key: str) -> None:
    with pytest.raises(ScheduleMismatchError, match="is not a pairing key") as caught:
        Pairing.from_key(key)
    assert repr(key)[:40] in str(caught.value)


@pytest.mark.parametrize("fmt", list(Format))
def test_results_the_schedule_does_not_hold_are_refused(fmt: Format) -> None:
    plan = TournamentPlan(fmt, ("a", "b", "c", "d"), (1, 2))
    sched = plan.scheduler()
    p = (sched.next_round() or [])[0]
    good = Played(p, 0, sim.Reason.SCORE)
    wrong = [
        Pairing(p.round, p.slot, p.b, p.a, p.seed),
        Pairing(p.round, p.slot, p.a, p.b, 3),
        Pairing(p.round, 99, p.a, p.b, p.seed),
        Pairing(10**6, 0, p.a, p.b, p.seed),
        Pairing(-1, 0, p.a, p.b, p.seed),
    ]
    for bad in wrong:
        with pytest.raises(ScheduleMismatchError):
            Scheduler(plan, [Played(bad, 0, sim.Reason.SCORE)]).next_round()
    sched.record(good)
    with pytest.raises(ScheduleMismatchError, match="recorded twice"):
        sched.record(good)


def test_a_result_for_a_later_swiss_round_is_checked_once_that_round_is_paired() -> None:
    plan = TournamentPlan(Format.SWISS, ("a", "b", "c", "d"), (1,))
    log = play_rounds(plan.scheduler(), 5)
    later = next(p for p in log if plan.stage_of(p.pairing) == 1)
    first = [p for p in log if plan.stage_of(p.pairing) == 0]
    bogus = Played(Pairing(later.pairing.round, 0, "a", "b", 1), 0, sim.Reason.SCORE)
    if frozenset(later.pairing.names) == frozenset("ab"):
        bogus = Played(Pairing(later.pairing.round, 0, "a", "c", 1), 0, sim.Reason.SCORE)
    sched = Scheduler(plan, [later])  # held until round 1 is paired
    assert sched.recorded == 0
    for p in first:
        sched.record(p)
    assert sched.recorded == len(first) + 1
    held = Scheduler(plan, [bogus])
    with pytest.raises(ScheduleMismatchError):
        for p in first:
            held.record(p)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"format": "league"}, "format 'league' is not one of"),
        ({"field": ("a",)}, "two entrants or more"),
        ({"field": ("a", "b", "a")}, "'a' is in the field twice"),
        ({"field": ("a", "")}, "non-empty string"),
        ({"seeds": ()}, "at least one seed"),
        ({"seeds": (1, 1)}, "repeat"),
        ({"seeds": (-1,)}, "seed -1 is not an unsigned 32-bit integer"),
        ({"seeds": (2**32,)}, "unsigned 32-bit"),
        ({"rounds": 2}, "rounds is for swiss"),
        ({"format": Format.SWISS, "rounds": 0}, r"swiss rounds 0 is not in 1\.\.3"),
        ({"format": Format.SWISS, "rounds": 4}, r"not in 1\.\.3"),
        ({"format": Format.BRACKET, "shuffle": -2}, "shuffle seed -2"),
    ],
)
def test_a_tournament_that_cannot_be_held_is_refused(
    kwargs: dict[str, object], message: str
) -> None:
    args: dict[str, object] = {"format": Format.ROUND_ROBIN, "field": ("a", "b", "c", "d")}
    args["seeds"] = (1,)
    args.update(kwargs)
    with pytest.raises(TournamentSetupError, match=message):
        TournamentPlan(**args)  # type: ignore[arg-type]
