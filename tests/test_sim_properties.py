"""Hypothesis properties of the rules: order independence, mirror symmetry, determinism,
and the incremental state (checksum, cached views) against readings from scratch."""

from __future__ import annotations

import random

from hypothesis import given, settings, strategies as st

import sim
from sim import MOVE, SOLDIER, WORKER
from tests._support import brute_observation, examples, policy, random_policy, reference_checksum

OPEN_10 = "A" + "." * 9 + "\n" + ("." * 10 + "\n") * 8 + "." * 9 + "B\n"


def mirrored(g: sim.Game) -> bool:
    """Whether side 1's state is side 0's turned 180 degrees."""
    a, b = g.sides
    if (a.banked, a.energy, a.colony_hp, a.next_id) != (b.banked, b.energy, b.colony_hp, b.next_id):
        return False
    last = g.cells - 1
    ua = [(u.id, u.kind, u.cell, u.hp, u.carry) for u in a.units.values()]
    ub = [(u.id, u.kind, last - u.cell, u.hp, u.carry) for u in b.units.values()]
    return ua == ub and g.ore == g.ore[::-1]


@settings(max_examples=examples(25), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), size=st.sampled_from([(8, 8), (16, 12), (32, 32)]))
def test_a_policy_playing_itself_stays_mirrored_and_draws(seed: int, size: tuple[int, int]) -> None:
    w, h = size
    cfg = sim.Config(width=w, height=h, max_ticks=60, start_energy=40)
    g = sim.Game(sim.generate_map(seed, w, h), cfg)
    outcome = None
    while outcome is None:
        a = policy(g.observe(0), cfg.max_units)
        b = policy(g.observe(1), cfg.max_units)
        assert a == b
        assert sim.validate_actions(len(a), a, g.roster(0), cfg.max_units) is None
        g.step([a, b])
        assert mirrored(g), f"asymmetric after tick {g.tick - 1}"
        outcome = g.outcome((1000, 1000))
    assert outcome == sim.Outcome(None, sim.Reason.DRAW)


def _scatter(draw: st.DrawFn) -> tuple[sim.Game, list[list[sim.Record]]]:
    g = sim.Game(sim.parse_map(OPEN_10), sim.Config(width=10, height=10, start_workers=0))
    cells = draw(st.lists(st.integers(1, 98), min_size=2, max_size=40, unique=True))
    records: list[list[sim.Record]] = [[], []]
    for cell in cells:
        side = draw(st.integers(0, 1))
        u = g.add_unit(side, draw(st.sampled_from([WORKER, SOLDIER])), cell % 10, cell // 10)
        records[side].append((u.id, MOVE, draw(st.integers(1, 4))))
    return g, records


def _positions(g: sim.Game) -> list[tuple[int, int, int]]:
    return sorted((u.side, u.id, u.cell) for s in g.sides for u in s.units.values())


@settings(max_examples=examples(200), deadline=None)
@given(data=st.data())
def test_moves_do_not_depend_on_listing_order(data: st.DataObject) -> None:
    g1, records = data.draw(st.builds(lambda: None).flatmap(lambda _: st.composite(_scatter)()))
    g2 = sim.Game(g1.map, g1.config)
    for s in (0, 1):
        for u in g1.roster(s).values():
            g2.add_unit(s, u.kind, *g1.xy(u.cell))
    shuffled = [data.draw(st.permutations(r)) for r in records]
    g1.step(records)
    g2.step(shuffled)
    assert _positions(g1) == _positions(g2)
    # No two units ever share a cell, and nobody stands on rock or a colony.
    cells = [c for _, _, c in _positions(g1)]
    assert len(cells) == len(set(cells))
    assert not any(g1.blocked[c] for c in cells)


@settings(max_examples=examples(10), deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_same_inputs_give_the_same_checksums(seed: int) -> None:
    def run() -> list[int]:
        cfg = sim.Config(max_ticks=40, start_energy=30)
        g = sim.Game(sim.generate_map(seed), cfg)
        sums = []
        for _ in range(cfg.max_ticks):
            g.step([policy(g.observe(s), cfg.max_units) for s in (0, 1)])
            sums.append(g.checksum())
        return sums

    first = run()
    assert first == run()
    assert len(set(first)) > 1


@settings(max_examples=examples(100), deadline=None)
@given(
    data=st.data(),
    unit_vision=st.integers(0, 6),
    colony_vision=st.integers(0, 6),
)
def test_observations_match_a_brute_force_reading_of_the_spec(
    data: st.DataObject, unit_vision: int, colony_vision: int
) -> None:
    cfg = sim.Config(
        width=10, height=10, start_workers=0, unit_vision=unit_vision, colony_vision=colony_vision
    )
    g = sim.Game(sim.parse_map(OPEN_10), cfg)
    for cell in data.draw(st.lists(st.integers(1, 98), max_size=30, unique=True)):
        g.add_unit(data.draw(st.integers(0, 1)), WORKER, cell % 10, cell // 10)
    for cell in data.draw(st.lists(st.integers(1, 98), max_size=30, unique=True)):
        g.set_ore(cell % 10, cell // 10, data.draw(st.integers(1, 50)))
    for side in (0, 1):
        assert g.observe(side) == brute_observation(g, side)


@settings(max_examples=examples(30), deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    size=st.sampled_from([(8, 8), (12, 9), (16, 16)]),
    fierce=st.booleans(),
    ore_edits=st.lists(
        st.tuples(st.integers(0, 39), st.integers(0, 16 * 16 - 1), st.integers(0, 20)),
        max_size=8,
    ),
)
def test_the_incremental_state_equals_a_reading_from_scratch(
    seed: int, size: tuple[int, int], fierce: bool, ore_edits: list[tuple[int, int, int]]
) -> None:
    """Over random play (mining, deaths that drop ore, ore set by hand): the checksum,
    kept up to date cell by cell, is the one computed from the whole state, and the
    observations, kept while nothing they show changed, are the spec's reading."""
    w, h = size
    cfg = sim.Config(width=w, height=h, max_ticks=40, start_energy=40)
    if fierce:
        cfg = cfg.replace(soldier_cost=6, soldier_hp=4, worker_hp=2)
    g = sim.Game(sim.generate_map(seed, w, h), cfg)
    rngs = [random.Random(seed), random.Random(seed + 1)]
    assert g.checksum() == reference_checksum(g)
    while g.outcome((0, 0)) is None:
        for tick, cell, amount in ore_edits:
            if tick == g.tick and cell < g.cells and not g.blocked[cell]:
                g.set_ore(*g.xy(cell), amount)
        for side in (0, 1):
            assert g.observe(side) == brute_observation(g, side)
        g.step([random_policy(g, s, rngs[s], fierce) for s in (0, 1)])
        assert g.checksum() == reference_checksum(g)
        assert g.ore_cells() == [c for c in range(g.cells) if g.ore[c] > 0]
