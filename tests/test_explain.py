"""What became of each action: one behaviour each, on tiny hand-made maps (rules §6)."""

from __future__ import annotations

from collections.abc import Sequence

import sim
from sim import ATTACK, DEPOSIT, EAST, MINE, MOVE, NORTH, SOLDIER, SOUTH, SPAWN, WEST, WORKER, Fate

# Colony A at (3, 3) with room on all four sides; B at its mirror (6, 6).
CENTRED = """\
..........
..........
..........
...A......
..........
..........
......B...
..........
..........
..........
"""
ROCKY = """\
A.......
........
..#.....
........
........
.....#..
........
.......B
"""


def game(text: str = CENTRED, **overrides: int) -> sim.Game:
    overrides.setdefault("start_workers", 0)
    m = sim.parse_map(text)
    return sim.Game(m, sim.Config(width=m.width, height=m.height, **overrides))


def explain(g: sim.Game, a: Sequence[sim.Record], b: Sequence[sim.Record] = ()) -> list[str]:
    """Side A's reports as 'fate: detail'; the game is left as it was."""
    before = g.checksum()
    reports, _ = sim.explain_tick(g, [a, b])
    assert g.checksum() == before
    assert [r.record for r in reports] == list(a)
    return [f"{r.fate}: {r.detail}" for r in reports]


def test_a_move_that_happens_is_applied() -> None:
    g = game()
    u = g.add_unit(0, WORKER, 0, 0)
    assert explain(g, [(u.id, MOVE, EAST)]) == ["applied: MOVE to (1, 0)"]


def test_a_move_into_rock_or_off_the_map_is_blocked() -> None:
    g = game(ROCKY)
    u = g.add_unit(0, WORKER, 1, 2)
    edge = g.add_unit(0, WORKER, 0, 5)
    assert explain(g, [(u.id, MOVE, EAST), (edge.id, MOVE, WEST)]) == [
        "blocked: MOVE to (2, 2): rock",
        "blocked: MOVE: the target is off the map",
    ]


def test_a_move_into_a_colony_names_it() -> None:
    g = game()
    u = g.add_unit(0, WORKER, 5, 6)
    assert explain(g, [(u.id, MOVE, EAST)]) == ["blocked: MOVE to (6, 6): the enemy colony"]


def test_a_contested_cell_names_the_rivals() -> None:
    g = game()
    u = g.add_unit(0, WORKER, 0, 0)
    g.add_unit(1, WORKER, 2, 0)  # B's view is turned: its WEST is absolute EAST
    assert explain(g, [(u.id, MOVE, EAST)], [(1, MOVE, EAST)]) == [
        "blocked: MOVE to (1, 0): contested by enemy unit 1"
    ]


def test_a_swap_and_a_stayer_block() -> None:
    g = game()
    a = g.add_unit(0, WORKER, 0, 0)
    b = g.add_unit(0, WORKER, 1, 0)
    c = g.add_unit(0, WORKER, 0, 8)
    g.add_unit(0, SOLDIER, 0, 9)
    assert explain(g, [(a.id, MOVE, EAST), (b.id, MOVE, WEST), (c.id, MOVE, SOUTH)]) == [
        "blocked: MOVE to (1, 0): would swap with own worker 2",
        "blocked: MOVE to (0, 0): would swap with own worker 1",
        "blocked: MOVE to (0, 9): own soldier 4 stayed there",
    ]


def test_mining_applied_empty_full_and_oversubscribed() -> None:
    g = game()
    g.set_ore(0, 0, 5)
    g.set_ore(5, 0, 1)
    a = g.add_unit(0, WORKER, 0, 0)
    empty = g.add_unit(0, WORKER, 0, 9)
    full = g.add_unit(0, WORKER, 1, 0, carry=4)
    x = g.add_unit(0, WORKER, 4, 0)
    y = g.add_unit(0, WORKER, 6, 0)
    records = [
        (a.id, MINE, 0),
        (empty.id, MINE, 0),
        (full.id, MINE, WEST),
        (x.id, MINE, EAST),
        (y.id, MINE, WEST),
    ]
    assert explain(g, records) == [
        "applied: MINE at (0, 0): +1 ore (carry 1)",
        "no effect: MINE at (0, 9): no ore there",
        "no effect: MINE: already carrying carry_cap (4)",
        "blocked: MINE at (5, 0): more requests than its 1 ore; nobody mined it",
        "blocked: MINE at (5, 0): more requests than its 1 ore; nobody mined it",
    ]


def test_deposits_and_attacks() -> None:
    g = game(soldier_attack=4, worker_hp=4)
    home = g.add_unit(0, WORKER, 3, 2, carry=3)
    far = g.add_unit(0, WORKER, 0, 0, carry=2)
    s = g.add_unit(0, SOLDIER, 8, 8)
    g.add_unit(1, WORKER, 9, 8)
    miss = g.add_unit(0, SOLDIER, 0, 5)
    records = [
        (home.id, DEPOSIT, 0),
        (far.id, DEPOSIT, 0),
        (s.id, ATTACK, EAST),
        (miss.id, ATTACK, NORTH),
    ]
    assert explain(g, records) == [
        "applied: DEPOSIT banked 3",
        "no effect: DEPOSIT: not next to the own colony (4-adjacent)",
        "applied: ATTACK hit enemy worker 1 (killed)",
        "no effect: ATTACK struck (0, 4): no enemy there",
    ]


def test_spawns_applied_poor_and_crowded() -> None:
    g = game(start_energy=5)
    assert explain(g, [(0, SPAWN, WORKER)]) == ["applied: SPAWN worker 1 at (3, 2)"]
    poor = game(start_energy=3)
    assert explain(poor, [(0, SPAWN, SOLDIER)]) == ["blocked: SPAWN soldier: energy 3 < cost 12"]
    crowded = game(start_energy=50)
    for x, y in ((3, 2), (4, 3), (3, 4), (2, 3)):
        crowded.add_unit(0, SOLDIER, x, y)
    assert explain(crowded, [(0, SPAWN, WORKER)]) == [
        "blocked: SPAWN worker: no free cell next to the colony"
    ]


def test_a_unit_killed_this_tick_does_not_act() -> None:
    g = game(soldier_attack=10)
    w = g.add_unit(0, WORKER, 8, 9)
    g.add_unit(1, SOLDIER, 9, 9)  # B's EAST is absolute WEST
    assert explain(g, [(w.id, MOVE, NORTH)], [(1, ATTACK, EAST)]) == [
        "blocked: MOVE: the unit died this tick, before acting"
    ]


def test_explanations_in_side_b_use_its_own_view() -> None:
    g = game()
    g.add_unit(1, WORKER, 9, 9)  # (0, 0) in B's view
    _, reports = sim.explain_tick(g, [[], [(1, MOVE, EAST)]])
    assert [r.detail for r in reports] == ["MOVE to (1, 0)"]
    assert reports[0].fate == Fate.APPLIED
