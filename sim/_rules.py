"""The rules of a tick (rules §6-§7): ``step`` resolves both sides' actions on a state,
``outcome`` judges whether the match has ended and how."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from sim._actions import (
    _ATTACK,
    _DEPOSIT,
    _MINE,
    _MOVE,
    _SOLDIER,
    _SPAWN,
    _TURN,
    _WORKER,
    ForfeitKind,
    Reason,
    Record,
)
from sim._state import State
from sim._units import Unit

__all__ = [
    "RULES_VERSION",
    "Forfeit",
    "Outcome",
    "TickEvents",
    "forfeit_outcome",
    "judge",
    "outcome",
    "step",
]

RULES_VERSION = 1
"""Bumped whenever a rule changes what a match resolves to."""


class TickEvents(msgspec.Struct):
    """What happened in one tick, in absolute coordinates (for replays and viewers)."""

    attacks: list[tuple[int, int, int]] = msgspec.field(default_factory=list)
    """(side, unit id, target cell)"""
    deaths: list[tuple[int, int]] = msgspec.field(default_factory=list)
    """(side, unit id)"""
    spawns: list[tuple[int, int, int, int]] = msgspec.field(default_factory=list)
    """(side, id, kind, cell)"""
    deposits: list[tuple[int, int, int]] = msgspec.field(default_factory=list)
    """(side, unit id, amount)"""
    mined: list[tuple[int, int, int]] = msgspec.field(default_factory=list)
    """(side, unit id, cell)"""
    ore_changed: set[int] = msgspec.field(default_factory=set)  # cells whose ore changed
    colony_damage: list[int] = msgspec.field(default_factory=lambda: [0, 0])


class Outcome(msgspec.Struct, frozen=True):
    """How a match ended: ``winner`` is 0, 1 or None (a draw)."""

    winner: int | None
    reason: Reason


class Forfeit(msgspec.Struct, frozen=True):
    """A controller's fault as an outcome: the tick, the kind (rules §8) and a readable detail."""

    tick: int
    kind: ForfeitKind
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {"tick": self.tick, "kind": str(self.kind), "detail": self.detail}


def forfeit_outcome(forfeited: tuple[bool, bool]) -> Outcome:
    """Rules §7.1: the side that did not forfeit wins; both in one tick is a draw."""
    a, b = forfeited
    if not (a or b):
        raise ValueError("forfeit_outcome needs at least one forfeit")
    return Outcome(None if a and b else (1 if a else 0), Reason.FORFEIT)


def _side_and_id(u: Unit) -> tuple[int, int]:
    return u.side, u.id


def step(state: State, actions: Sequence[Sequence[Record]]) -> TickEvents:
    """Resolve one tick of ``state`` from both sides' valid records (each in its own view).

    Records must already satisfy :func:`sim.validate_actions` against this
    tick's rosters; the arena forfeits a side whose reply does not.
    """
    cfg = state.config
    ev = TickEvents()
    neighbour = state._step
    # Sort the orders by op once; an order a unit's kind cannot carry out
    # (a worker attacking, a soldier mining or depositing) is a no-op. Nobody
    # moves before step 4, so attack and move targets are known now.
    attacks: list[tuple[Unit, int]] = []  # (soldier, target cell or -1 off the map)
    moves: list[tuple[Unit, int]] = []  # (unit, target cell or -1 off the map)
    mines: list[tuple[Unit, int]] = []  # (worker, absolute direction)
    deposits: list[Unit] = []
    spawn_kind = [0, 0]
    for s in (0, 1):
        units = state.sides[s].units
        turn = _TURN[s]
        side_step = state._side_step[s]
        for uid, op, arg in actions[s]:
            if uid == 0:
                if op == _SPAWN:
                    spawn_kind[s] = arg
                continue
            u = units[uid]
            if op == _MOVE:
                moves.append((u, side_step[arg][u.cell]))
            elif op == _ATTACK:
                if u.kind == _SOLDIER:
                    attacks.append((u, side_step[arg][u.cell]))
            elif op == _MINE:
                if u.kind == _WORKER:
                    mines.append((u, turn[arg]))
            elif op == _DEPOSIT and u.kind == _WORKER:
                deposits.append(u)

    # 2-3. Attack and deaths: most ticks have no attack, and nothing to do here.
    if attacks:
        dead = _attack(state, attacks, ev)
        if dead:
            moves = [m for m in moves if m[0] not in dead]
            mines = [m for m in mines if m[0] not in dead]
            deposits = [u for u in deposits if u not in dead]

    # 4. Move.
    _move(state, moves)

    # 5. Mine, from the cells after the moves: a cell serves all its requests or none.
    ore = state.ore
    requests: dict[int, list[Unit]] = {}
    for u, d in mines:
        if u.carry < cfg.carry_cap:
            target = neighbour[d][u.cell]
            if target >= 0 and ore[target] > 0:
                requests.setdefault(target, []).append(u)
    for cell, miners in requests.items():
        if ore[cell] >= len(miners):
            state._add_ore(cell, -len(miners))
            ev.ore_changed.add(cell)
            for u in miners:
                u.carry += 1
                ev.mined.append((u.side, u.id, cell))

    # 6. Deposit.
    for u in deposits:
        if u.carry:
            side = state.sides[u.side]
            if side.colony_hp > 0 and u.cell in state._colony_adjacent[u.side]:
                side.banked += u.carry
                side.energy += u.carry
                ev.deposits.append((u.side, u.id, u.carry))
                u.carry = 0

    # 7. Spawn: paid for only when a free cell next to the colony takes the unit.
    for s in (0, 1):
        kind = spawn_kind[s]
        if kind:
            side = state.sides[s]
            cost = cfg.worker_cost if kind == _WORKER else cfg.soldier_cost
            if side.colony_hp > 0 and side.energy >= cost and len(side.units) < cfg.max_units:
                uid = state._spawn(s, kind)
                if uid:
                    side.energy -= cost
                    ev.spawns.append((s, uid, kind, side.units[uid].cell))

    state.tick += 1
    return ev


def _attack(state: State, attacks: list[tuple[Unit, int]], ev: TickEvents) -> set[Unit]:
    """Rules §6.2-§6.3 for the soldiers' ``attacks``: return the units that died."""
    cfg = state.config
    occ = state.occ
    # 2. Attack, from start-of-tick positions; damage is summed, applied at once.
    damage: dict[Unit, int] = {}
    colony_damage = ev.colony_damage
    for u, target in attacks:
        if target < 0:
            continue
        ev.attacks.append((u.side, u.id, target))
        victim = occ[target]
        if victim is not None and victim.side != u.side:
            damage[victim] = damage.get(victim, 0) + cfg.soldier_attack
        elif target == state.sides[1 - u.side].colony:
            colony_damage[1 - u.side] += cfg.soldier_attack

    # 3. Deaths: drop carried ore on the cell; colonies at hp <= 0 are destroyed.
    dead: set[Unit] = set()
    for victim, dmg in damage.items():
        victim.hp -= dmg
        if victim.hp <= 0:
            dead.add(victim)
    for victim in sorted(dead, key=_side_and_id) if dead else ():
        ev.deaths.append((victim.side, victim.id))
        del state.sides[victim.side].units[victim.id]
        occ[victim.cell] = None
        if victim.carry:
            state._add_ore(victim.cell, victim.carry)
            ev.ore_changed.add(victim.cell)
    for s in (0, 1):
        if colony_damage[s]:
            side = state.sides[s]
            side.colony_hp = max(0, side.colony_hp - colony_damage[s])
    return dead


def _move(state: State, wishes: list[tuple[Unit, int]]) -> None:
    """Rules §6.4, simultaneous moves resolved to the greatest fixed point.

    A move fails if its target is off the map, blocked or contested, if it is
    one half of a swap, or if its target holds a unit that stays; failures
    cascade backwards along chains. What is left (chains into free cells and
    uncontested cycles of four or more) all moves. Failure only ever spreads,
    so the result cannot depend on the order units are listed in.
    """
    if not wishes:
        return
    occ, blocked = state.occ, state.blocked
    # The mover aiming at each cell, and each mover's target; a cell two or
    # more aim at is contested. Moves into occupied cells are judged once
    # every target is known.
    aimed_at: dict[int, Unit] = {}
    target: dict[Unit, int] = {}
    contested: list[int] = []
    into_occupied: list[tuple[Unit, Unit]] = []  # (mover, the unit in its target)
    failed: list[Unit] = []
    for u, t in wishes:
        if t < 0 or blocked[t]:
            failed.append(u)
        elif t in aimed_at:
            contested.append(t)
            failed.append(u)
        else:
            aimed_at[t] = u
            target[u] = t
            v = occ[t]
            if v is not None:
                into_occupied.append((u, v))
    for t in contested:
        loser = aimed_at.pop(t, None)
        if loser is not None:
            del target[loser]
            failed.append(loser)
    for u, v in into_occupied:
        vt = target.get(v)
        if vt is None or vt == u.cell:  # a stayer, or a swap
            failed.append(u)
    while failed:
        u = failed.pop()
        target.pop(u, None)
        w = aimed_at.get(u.cell)
        if w is not None and w in target:
            failed.append(w)
    # One pass: a mover leaves its cell unless another mover has already
    # entered it.
    for u, t in target.items():
        if occ[u.cell] is u:
            occ[u.cell] = None
        u.cell = t
        occ[t] = u


def outcome(state: State, fuel_totals: tuple[int, int]) -> Outcome | None:
    """Rules §7.2-§7.3, checked after a tick has been stepped; None while play goes on."""
    s0, s1 = state.sides
    return judge(
        (s0.colony_hp, s1.colony_hp),
        (s0.banked, s1.banked),
        state.tick,
        state.config.max_ticks,
        fuel_totals,
    )


def judge(
    colony_hp: tuple[int, int],
    banked: tuple[int, int],
    tick: int,
    max_ticks: int,
    fuel_totals: tuple[int, int],
) -> Outcome | None:
    """``outcome`` of a state given by its figures (what a native core reports)."""
    alive = (colony_hp[0] > 0, colony_hp[1] > 0)
    if alive[0] != alive[1]:
        return Outcome(0 if alive[0] else 1, Reason.SWEEP)
    if alive[0] and tick < max_ticks:
        return None
    a, b = banked
    if a != b:
        return Outcome(0 if a > b else 1, Reason.SCORE)
    fa, fb = fuel_totals
    if fa != fb:
        return Outcome(0 if fa < fb else 1, Reason.FUEL)
    return Outcome(None, Reason.DRAW)
