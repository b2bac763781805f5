"""The baselines' pecking order, on a handful of seeds (docs/baselines.md has the full tables).

Every entrant plays every other on seeds 0..SEEDS-1 with both side assignments,
through ``arena.bench.play_all`` (the engine of ``arena baselines strength``).
Matches are deterministic, so these figures are the same on every machine.
"""

from __future__ import annotations

import itertools

import pytest

import arena
import arena.match
import sim
from arena.baselines import BASELINES, load_baseline
from arena.bench import ECONOMY, FuelTally, Tally, default_field, play_all

pytestmark = [pytest.mark.processes, pytest.mark.slow]

SEEDS = 4
PROBE = "fuel-probe"
SOLDIERS = ("border-soldier", "greedy-raider")

Results = tuple[dict[tuple[str, str], Tally], dict[str, FuelTally]]


@pytest.fixture(scope="module")
def results() -> Results:
    return play_all(default_field(), SEEDS, jobs=2)


def test_field_is_the_four_baselines_and_economy() -> None:
    assert sorted(default_field()) == sorted(
        ["random", "border-soldier", "greedy-raider", PROBE, ECONOMY]
    )


@pytest.mark.parametrize("other", ["random", *SOLDIERS, ECONOMY])
def test_fuel_probe_beats_each_other_entrant_in_most_matches(results: Results, other: str) -> None:
    tally = results[0][(PROBE, other)]
    assert tally.games == 2 * SEEDS
    assert 4 * tally.wins >= 3 * tally.games, f"{PROBE} vs {other}: {tally}"


@pytest.mark.parametrize("soldier", SOLDIERS)
def test_soldier_baselines_always_beat_random(results: Results, soldier: str) -> None:
    tally = results[0][(soldier, "random")]
    assert tally.wins == tally.games == 2 * SEEDS, f"{soldier} vs random: {tally}"


@pytest.mark.parametrize("soldier", SOLDIERS)
def test_fuel_probe_uses_less_fuel_per_tick(results: Results, soldier: str) -> None:
    fuel = results[1]
    assert fuel[PROBE].mean < fuel[soldier].mean


def test_no_forfeits(results: Results) -> None:
    forfeits = [f for standing in results[1].values() for f in standing.forfeits]
    assert forfeits == []


@pytest.mark.parametrize("size", [(8, 8), (9, 13), (24, 40), (64, 64), (64, 8)])
def test_no_baseline_forfeits_on_any_map_size(size: tuple[int, int]) -> None:
    w, h = size
    field = [arena.Contestant(name, load_baseline(name)) for name in BASELINES]
    for a, b in itertools.permutations(field, 2):
        r = arena.match.run_match(a, b, seed=5, config=sim.Config(width=w, height=h))
        forfeits = [(s.name, s.forfeit) for s in r.sides if s.forfeit]
        assert forfeits == [], f"{a.name} vs {b.name} on {w}x{h}: {forfeits}"
