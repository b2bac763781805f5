"""Conformance: one test per rule of rules §3-§7, each on a tiny hand-made map."""

from __future__ import annotations

import pytest

import sim
from sim import ATTACK, DEPOSIT, EAST, MINE, MOVE, NORTH, SOLDIER, SOUTH, SPAWN, WEST, WORKER

OPEN = """\
A.......
........
........
........
........
........
........
.......B
"""
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
HERE = 0


def game(text: str = OPEN, **overrides: int) -> sim.Game:
    """A game on ``text`` with no start workers unless asked."""
    overrides.setdefault("start_workers", 0)
    m = sim.parse_map(text)
    return sim.Game(m, sim.Config(width=m.width, height=m.height, **overrides))


def pos(u: sim.Unit, g: sim.Game) -> tuple[int, int]:
    return g.xy(u.cell)


def step(
    g: sim.Game, a: list[sim.Record] | None = None, b: list[sim.Record] | None = None
) -> sim.TickEvents:
    return g.step([a or [], b or []])


# -- setup and frames ---------------------------------------------------------------


def test_start_workers_stand_on_free_neighbours_in_owner_order() -> None:
    g = game(OPEN, start_workers=3)
    # Colony A at (0, 0): N is off the map, so E then S; only two fit.
    assert [(u.id, pos(u, g)) for u in g.roster(0).values()] == [(1, (1, 0)), (2, (0, 1))]
    # Side 1's N is absolute south (off the map), its E is absolute west.
    assert [(u.id, pos(u, g)) for u in g.roster(1).values()] == [(1, (6, 7)), (2, (7, 6))]
    assert g.sides[0].next_id == 3


def test_side_one_sees_a_rotated_board() -> None:
    g = game(OPEN, start_workers=3)
    a, b = g.observe(0), g.observe(1)
    assert a.own == b.own == [(1, WORKER, 1, 0, 4, 0), (2, WORKER, 0, 1, 4, 0)]


def test_directions_are_in_the_controllers_frame() -> None:
    g = game()
    u0 = g.add_unit(0, WORKER, 3, 3)
    u1 = g.add_unit(1, WORKER, 5, 5)
    step(g, [(u0.id, MOVE, NORTH)], [(u1.id, MOVE, NORTH)])
    assert pos(u0, g) == (3, 2)
    assert pos(u1, g) == (5, 6)  # side 1's north is absolute south


# -- attack and deaths --------------------------------------------------------------


def test_attack_damages_an_enemy_unit() -> None:
    g = game()
    s = g.add_unit(0, SOLDIER, 3, 3)
    e = g.add_unit(1, SOLDIER, 4, 3)
    ev = step(g, [(s.id, ATTACK, EAST)])
    assert e.hp == 10 - 3
    assert ev.attacks == [(0, s.id, 3 * 8 + 4)]


def test_attack_damages_the_enemy_colony() -> None:
    g = game()
    s = g.add_unit(0, SOLDIER, 6, 7)
    step(g, [(s.id, ATTACK, EAST)])
    assert g.sides[1].colony_hp == 60 - 3
    assert g.sides[0].colony_hp == 60


def test_no_friendly_fire() -> None:
    g = game()
    s = g.add_unit(0, SOLDIER, 3, 3)
    f = g.add_unit(0, WORKER, 4, 3)
    c = g.add_unit(0, SOLDIER, 1, 0)
    step(g, [(s.id, ATTACK, EAST), (c.id, ATTACK, WEST)])
    assert f.hp == 4 and g.sides[0].colony_hp == 60


def test_a_worker_cannot_attack() -> None:
    g = game()
    w = g.add_unit(0, WORKER, 3, 3)
    e = g.add_unit(1, WORKER, 4, 3)
    ev = step(g, [(w.id, ATTACK, EAST)])
    assert e.hp == 4 and ev.attacks == []


def test_damage_is_summed_and_applied_at_once() -> None:
    g = game()
    s1 = g.add_unit(0, SOLDIER, 3, 3)
    s2 = g.add_unit(0, SOLDIER, 4, 2)
    e = g.add_unit(1, SOLDIER, 4, 3, hp=6)
    ev = step(g, [(s1.id, ATTACK, EAST), (s2.id, ATTACK, SOUTH)])
    assert e.id not in g.roster(1) and ev.deaths == [(1, e.id)]


def test_a_soldier_that_dies_still_lands_its_hit() -> None:
    g = game()
    a = g.add_unit(0, SOLDIER, 3, 3, hp=3)
    b = g.add_unit(1, SOLDIER, 4, 3, hp=3)
    # Side 1's WEST is absolute EAST; to hit (3, 3) from (4, 3) it says EAST.
    step(g, [(a.id, ATTACK, EAST)], [(b.id, ATTACK, EAST)])
    assert g.roster(0) == {} and g.roster(1) == {}


def test_attacks_use_start_of_tick_positions() -> None:
    g = game()
    s = g.add_unit(0, SOLDIER, 3, 3)
    e = g.add_unit(1, WORKER, 4, 3)
    # The enemy tries to step away (absolute east = its WEST); the hit lands first.
    step(g, [(s.id, ATTACK, EAST)], [(e.id, MOVE, WEST)])
    assert e.hp == 1 and pos(e, g) == (5, 3)


def test_a_dead_units_action_is_dropped_and_its_cell_freed() -> None:
    g = game()
    s = g.add_unit(0, SOLDIER, 3, 3)
    e = g.add_unit(1, WORKER, 4, 3, hp=3)
    mover = g.add_unit(0, WORKER, 5, 3)
    step(g, [(s.id, ATTACK, EAST), (mover.id, MOVE, WEST)], [(e.id, MOVE, SOUTH)])
    assert e.id not in g.roster(1)
    assert pos(mover, g) == (4, 3)  # the victim's cell is free for this tick's moves


def test_dropped_ore_lands_on_the_cell_and_can_be_mined_that_tick() -> None:
    g = game()
    s = g.add_unit(0, SOLDIER, 3, 3)
    e = g.add_unit(1, WORKER, 4, 3, hp=3, carry=3)
    g.set_ore(4, 3, 2)
    miner = g.add_unit(0, WORKER, 5, 3)
    ev = step(g, [(s.id, ATTACK, EAST), (miner.id, MINE, WEST)])
    assert e.id not in g.roster(1)
    assert miner.carry == 1
    assert g.ore[3 * 8 + 4] == 2 + 3 - 1
    assert 3 * 8 + 4 in ev.ore_changed


def test_colony_destroyed_at_zero_hp_is_a_sweep() -> None:
    g = game(colony_hp=3)
    s = g.add_unit(0, SOLDIER, 6, 7)
    step(g, [(s.id, ATTACK, EAST)])
    assert g.sides[1].colony_hp == 0
    assert g.outcome((0, 0)) == sim.Outcome(0, sim.Reason.SWEEP)


def test_both_colonies_destroyed_goes_to_score() -> None:
    g = game(colony_hp=3)
    a = g.add_unit(0, SOLDIER, 6, 7)
    b = g.add_unit(1, SOLDIER, 1, 0)
    g.sides[1].banked = 5
    step(g, [(a.id, ATTACK, EAST)], [(b.id, ATTACK, EAST)])
    assert g.outcome((0, 0)) == sim.Outcome(1, sim.Reason.SCORE)


def test_destroyed_colony_spawns_nothing_and_takes_no_deposit() -> None:
    g = game(colony_hp=3, start_energy=50)
    s = g.add_unit(1, SOLDIER, 1, 0)
    w = g.add_unit(0, WORKER, 0, 1, carry=2)
    step(g, [(w.id, DEPOSIT, 0), (0, SPAWN, WORKER)], [(s.id, ATTACK, EAST)])
    assert g.sides[0].colony_hp == 0
    assert w.carry == 2 and g.sides[0].banked == 0 and len(g.roster(0)) == 1


# -- moves ----------------------------------------------------------------------------


def test_move_into_a_free_cell() -> None:
    g = game()
    u = g.add_unit(0, WORKER, 3, 3)
    step(g, [(u.id, MOVE, EAST)])
    assert pos(u, g) == (4, 3)


@pytest.mark.parametrize(
    ("where", "direction"),
    [((2, 1), SOUTH), ((0, 3), WEST), ((1, 0), WEST)],
    ids=["rock", "off-map", "colony"],
)
def test_blocked_moves_stay(where: tuple[int, int], direction: int) -> None:
    g = game(ROCKY)
    u = g.add_unit(0, WORKER, *where)
    step(g, [(u.id, MOVE, direction)])
    assert pos(u, g) == where


def test_a_shared_target_is_entered_by_none() -> None:
    g = game()
    a = g.add_unit(0, WORKER, 3, 3)
    b = g.add_unit(1, WORKER, 5, 3)
    step(g, [(a.id, MOVE, EAST)], [(b.id, MOVE, EAST)])  # side 1's EAST is absolute west
    assert pos(a, g) == (3, 3) and pos(b, g) == (5, 3)


def test_blocked_by_a_unit_that_stays() -> None:
    g = game()
    a = g.add_unit(0, WORKER, 3, 3)
    g.add_unit(0, WORKER, 4, 3)
    step(g, [(a.id, MOVE, EAST)])
    assert pos(a, g) == (3, 3)


def test_a_chain_follows_its_leader() -> None:
    g = game()
    units = [g.add_unit(0, WORKER, x, 3) for x in (1, 2, 3, 4)]
    step(g, [(u.id, MOVE, EAST) for u in units])
    assert [pos(u, g) for u in units] == [(2, 3), (3, 3), (4, 3), (5, 3)]


def test_a_chain_blocked_at_its_head_stays_whole() -> None:
    g = game(ROCKY)
    units = [g.add_unit(0, WORKER, x, 2) for x in (3, 4, 5)]
    # Moving west: the head at (3, 2) walks into rock at (2, 2).
    step(g, [(u.id, MOVE, WEST) for u in units])
    assert [pos(u, g) for u in units] == [(3, 2), (4, 2), (5, 2)]


def test_a_swap_fails_for_both() -> None:
    g = game()
    a = g.add_unit(0, WORKER, 3, 3)
    b = g.add_unit(0, WORKER, 4, 3)
    step(g, [(a.id, MOVE, EAST), (b.id, MOVE, WEST)])
    assert pos(a, g) == (3, 3) and pos(b, g) == (4, 3)


def test_a_four_cycle_all_moves() -> None:
    g = game()
    a = g.add_unit(0, WORKER, 3, 3)  # -> east
    b = g.add_unit(0, WORKER, 4, 3)  # -> south
    c = g.add_unit(1, WORKER, 4, 4)  # -> west (side 1 says EAST)
    d = g.add_unit(0, WORKER, 3, 4)  # -> north
    step(g, [(a.id, MOVE, EAST), (b.id, MOVE, SOUTH), (d.id, MOVE, NORTH)], [(c.id, MOVE, EAST)])
    assert [pos(u, g) for u in (a, b, c, d)] == [(4, 3), (4, 4), (3, 4), (3, 3)]


def test_a_cycle_contested_from_outside_stops_whole() -> None:
    g = game()
    a = g.add_unit(0, WORKER, 3, 3)
    b = g.add_unit(0, WORKER, 4, 3)
    c = g.add_unit(0, WORKER, 4, 4)
    d = g.add_unit(0, WORKER, 3, 4)
    outsider = g.add_unit(0, WORKER, 5, 3)  # also wants (4, 3)
    moves = [(a.id, MOVE, EAST), (b.id, MOVE, SOUTH), (c.id, MOVE, WEST), (d.id, MOVE, NORTH)]
    step(g, [*moves, (outsider.id, MOVE, WEST)])
    assert [pos(u, g) for u in (a, b, c, d, outsider)] == [(3, 3), (4, 3), (4, 4), (3, 4), (5, 3)]


def test_a_unit_follows_into_a_cell_being_left() -> None:
    g = game()
    a = g.add_unit(0, WORKER, 3, 3)
    b = g.add_unit(1, WORKER, 4, 3)
    step(g, [(a.id, MOVE, EAST)], [(b.id, MOVE, NORTH)])  # b goes absolute south
    assert pos(a, g) == (4, 3) and pos(b, g) == (4, 4)


# -- mining -----------------------------------------------------------------------------


def test_a_worker_mines_its_own_cell_and_a_neighbour() -> None:
    g = game()
    u = g.add_unit(0, WORKER, 3, 3)
    g.set_ore(3, 3, 5)
    g.set_ore(3, 2, 5)
    step(g, [(u.id, MINE, HERE)])
    step(g, [(u.id, MINE, NORTH)])
    assert u.carry == 2 and g.ore[27] == 4 and g.ore[19] == 4


def test_contended_ore_serves_all_when_it_suffices() -> None:
    g = game()
    a = g.add_unit(0, WORKER, 3, 3)
    b = g.add_unit(1, WORKER, 5, 3)
    g.set_ore(4, 3, 2)
    step(g, [(a.id, MINE, EAST)], [(b.id, MINE, EAST)])
    assert a.carry == b.carry == 1 and g.ore[28] == 0


def test_contended_ore_serves_none_when_short() -> None:
    g = game()
    a = g.add_unit(0, WORKER, 3, 3)
    b = g.add_unit(1, WORKER, 5, 3)
    g.set_ore(4, 3, 1)
    step(g, [(a.id, MINE, EAST)], [(b.id, MINE, EAST)])
    assert a.carry == b.carry == 0 and g.ore[28] == 1


def test_a_full_worker_does_not_mine() -> None:
    g = game()
    u = g.add_unit(0, WORKER, 3, 3, carry=4)
    g.set_ore(3, 3, 5)
    step(g, [(u.id, MINE, HERE)])
    assert u.carry == 4 and g.ore[27] == 5


def test_a_soldier_cannot_mine() -> None:
    g = game()
    u = g.add_unit(0, SOLDIER, 3, 3)
    g.set_ore(3, 3, 5)
    step(g, [(u.id, MINE, HERE)])
    assert u.carry == 0 and g.ore[27] == 5


def test_a_full_worker_does_not_count_as_a_request() -> None:
    g = game()
    a = g.add_unit(0, WORKER, 3, 3, carry=4)
    b = g.add_unit(0, WORKER, 5, 3)
    g.set_ore(4, 3, 1)
    step(g, [(a.id, MINE, EAST), (b.id, MINE, WEST)])
    assert b.carry == 1


# -- deposit ----------------------------------------------------------------------------


def test_deposit_next_to_the_colony_banks_and_funds() -> None:
    g = game()
    u = g.add_unit(0, WORKER, 0, 1, carry=3)
    ev = step(g, [(u.id, DEPOSIT, 0)])
    assert (g.sides[0].banked, g.sides[0].energy, u.carry) == (3, 13, 0)
    assert ev.deposits == [(0, u.id, 3)]


def test_deposit_needs_four_adjacency() -> None:
    g = game()
    u = g.add_unit(0, WORKER, 1, 1, carry=3)  # diagonal
    step(g, [(u.id, DEPOSIT, 0)])
    assert (g.sides[0].banked, u.carry) == (0, 3)


def test_deposit_at_the_enemy_colony_does_nothing() -> None:
    g = game()
    u = g.add_unit(0, WORKER, 6, 7, carry=3)
    step(g, [(u.id, DEPOSIT, 0)])
    assert (g.sides[0].banked, g.sides[1].banked, u.carry) == (0, 0, 3)


# -- spawn --------------------------------------------------------------------------------


def test_spawn_takes_the_first_free_neighbour_in_owner_order() -> None:
    g = game(CENTRED, start_energy=100)
    step(g, [(0, SPAWN, WORKER)], [(0, SPAWN, SOLDIER)])
    (a,) = g.roster(0).values()
    (b,) = g.roster(1).values()
    assert pos(a, g) == (3, 2)  # A's north
    assert pos(b, g) == (6, 7) and b.kind == SOLDIER  # B's north is absolute south
    assert g.sides[0].energy == 95 and g.sides[1].energy == 88


def test_spawn_skips_an_occupied_neighbour() -> None:
    g = game(CENTRED, start_energy=100)
    g.add_unit(0, WORKER, 3, 2)
    ev = step(g, [(0, SPAWN, WORKER)])
    assert ev.spawns == [(0, 2, WORKER, 3 * 10 + 4)]
    assert pos(g.roster(0)[2], g) == (4, 3)  # east


def test_spawn_sees_the_cells_after_the_moves() -> None:
    g = game(CENTRED, start_energy=100)
    u = g.add_unit(0, WORKER, 3, 2)
    step(g, [(u.id, MOVE, NORTH), (0, SPAWN, WORKER)])
    assert pos(g.roster(0)[2], g) == (3, 2)


def test_no_room_no_spawn_no_cost() -> None:
    g = game(OPEN, start_energy=100)
    g.add_unit(0, WORKER, 1, 0)
    g.add_unit(1, WORKER, 0, 1)  # an enemy fills the other neighbour
    ev = step(g, [(0, SPAWN, SOLDIER)])
    assert ev.spawns == [] and g.sides[0].energy == 100


def test_spawn_needs_energy() -> None:
    g = game(CENTRED, start_energy=11)
    step(g, [(0, SPAWN, SOLDIER)])
    assert g.roster(0) == {} and g.sides[0].energy == 11


def test_spawn_is_paid_with_this_ticks_deposits() -> None:
    g = game(CENTRED, start_energy=10)
    u = g.add_unit(0, WORKER, 2, 3, carry=2)
    step(g, [(u.id, DEPOSIT, 0), (0, SPAWN, SOLDIER)])
    assert len(g.roster(0)) == 2 and g.sides[0].energy == 0


def test_spawn_respects_max_units() -> None:
    g = game(CENTRED, start_energy=100, max_units=1)
    g.add_unit(0, WORKER, 0, 0)
    step(g, [(0, SPAWN, WORKER)])
    assert len(g.roster(0)) == 1 and g.sides[0].energy == 100


def test_ids_are_never_reused() -> None:
    g = game(CENTRED, start_energy=100)
    s = g.add_unit(1, SOLDIER, 3, 1)
    step(g, [(0, SPAWN, WORKER)])
    step(g, [], [(s.id, ATTACK, NORTH)])  # absolute south: hits the new worker at (3, 2)
    step(g, [], [(s.id, ATTACK, NORTH)])
    assert g.roster(0) == {}
    step(g, [(0, SPAWN, WORKER)])
    assert list(g.roster(0)) == [2]


# -- end of match ---------------------------------------------------------------------------


def test_play_goes_on_before_the_last_tick() -> None:
    g = game(max_ticks=2)
    step(g)
    assert g.outcome((0, 0)) is None


def test_higher_banked_wins_on_score() -> None:
    g = game(max_ticks=1)
    u = g.add_unit(1, WORKER, 6, 7, carry=1)
    step(g, [], [(u.id, DEPOSIT, 0)])
    assert g.outcome((0, 10**9)) == sim.Outcome(1, sim.Reason.SCORE)


def test_level_banked_less_fuel_wins() -> None:
    g = game(max_ticks=1)
    step(g)
    assert g.outcome((100, 99)) == sim.Outcome(1, sim.Reason.FUEL)
    assert g.outcome((5, 6)) == sim.Outcome(0, sim.Reason.FUEL)


def test_level_banked_and_fuel_is_a_draw() -> None:
    g = game(max_ticks=1)
    step(g)
    assert g.outcome((7, 7)) == sim.Outcome(None, sim.Reason.DRAW)


def test_forfeit_outcomes() -> None:
    assert sim.forfeit_outcome((True, False)) == sim.Outcome(1, sim.Reason.FORFEIT)
    assert sim.forfeit_outcome((False, True)) == sim.Outcome(0, sim.Reason.FORFEIT)
    assert sim.forfeit_outcome((True, True)) == sim.Outcome(None, sim.Reason.FORFEIT)


# -- observations ---------------------------------------------------------------------------


def test_vision_is_chebyshev_around_units_and_colony() -> None:
    g = game(OPEN, unit_vision=1, colony_vision=1)
    g.add_unit(0, WORKER, 3, 3)
    near = g.add_unit(1, WORKER, 4, 4)  # diagonal: Chebyshev 1
    g.add_unit(1, WORKER, 5, 3)  # 2 away
    g.set_ore(2, 2, 1)
    g.set_ore(1, 2, 1)
    obs = g.observe(0)
    assert [e[0] for e in obs.enemy] == [near.id]
    assert obs.ore == [(2, 2, 1)]
    assert obs.enemy_colony_hp == -1


def test_enemy_colony_hp_shows_when_in_sight() -> None:
    g = game(OPEN, unit_vision=1)
    g.add_unit(0, SOLDIER, 6, 6)
    assert g.observe(0).enemy_colony_hp == 60


def test_a_row_seen_again_shows_the_ore_it_holds_now() -> None:
    """The game keeps what each row showed for the cells its vision covered, as units
    sway to and fro; an amount that changed out of sight still shows as it is now."""
    g = game(OPEN, unit_vision=1, colony_vision=0)
    u = g.add_unit(0, WORKER, 3, 3)
    g.set_ore(2, 3, 5)  # seen from (3, 3), not from (4, 3)
    g.set_ore(4, 3, 7)  # seen from both
    assert g.observe(0).ore == [(2, 3, 5), (4, 3, 7)]
    step(g, [(u.id, MOVE, EAST)])
    assert g.observe(0).ore == [(4, 3, 7)]
    g.set_ore(2, 3, 9)
    step(g, [(u.id, MOVE, WEST)])
    assert g.observe(0).ore == [(2, 3, 9), (4, 3, 7)]
    step(g, [(u.id, MINE, WEST)])  # mined in sight, then seen from (4, 3) and back
    assert g.observe(0).ore == [(2, 3, 8), (4, 3, 7)]
    step(g, [(u.id, MOVE, EAST)])
    assert g.observe(0).ore == [(4, 3, 7)]
    step(g, [(u.id, MOVE, WEST)])
    assert g.observe(0).ore == [(2, 3, 8), (4, 3, 7)]


def test_ore_is_listed_in_row_major_order_of_the_receivers_frame() -> None:
    g = game(OPEN, unit_vision=8, colony_vision=8)
    g.set_ore(2, 1, 3)
    g.set_ore(5, 1, 4)
    g.set_ore(1, 6, 5)
    assert g.observe(0).ore == [(2, 1, 3), (5, 1, 4), (1, 6, 5)]
    assert g.observe(1).ore == [(6, 1, 5), (2, 6, 4), (5, 6, 3)]


# -- the contract's action rules ----------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "records", "rule"),
    [
        (-1, [], "outside 0..4"),
        (5, [], "outside 0..4"),
        (1, [(9, MOVE, 1)], "not one of the side's units"),
        (2, [(1, MOVE, 1), (1, MOVE, 2)], "repeats record 0"),
        (1, [(1, 6, 0)], "op 6 is outside 0..5"),
        (1, [(1, -1, 0)], "op -1 is outside 0..5"),
        (1, [(1, MOVE, 0)], "MOVE takes an arg in 1..4"),
        (1, [(1, ATTACK, 5)], "ATTACK takes an arg in 1..4"),
        (1, [(1, MINE, 5)], "MINE takes an arg in 0..4"),
        (1, [(1, DEPOSIT, 1)], "DEPOSIT takes an arg in 0..0"),
        (1, [(1, 0, 3)], "NOOP takes an arg in 0..0"),
        (1, [(1, SPAWN, 1)], "SPAWN is for the colony"),
        (1, [(0, MOVE, 1)], "takes only SPAWN or NOOP"),
        (1, [(0, SPAWN, 3)], "SPAWN takes an arg in 1..2"),
    ],
)
def test_each_contract_rule_is_named(n: int, records: list[sim.Record], rule: str) -> None:
    broken = sim.validate_actions(n, records, {1, 2}, max_units=3)
    assert broken is not None and rule in broken
    # The count is judged before any record; a record's fault names the record.
    where = f"record {len(records) - 1} " if 0 <= n <= 4 else "action count n"
    assert where in broken


def test_a_well_formed_reply_passes() -> None:
    records = [(0, SPAWN, 2), (1, MOVE, 4), (2, MINE, 0)]
    assert sim.validate_actions(3, records, {1, 2}, max_units=3) is None
