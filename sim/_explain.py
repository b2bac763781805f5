"""What became of each action of a tick: applied, blocked (and by what), or without effect.

For authors reading a replay: the rules resolve a tick without keeping reasons
(rules §6), so this module plays the tick on a copy of the state and reads the
reasons off the state before and after, in the order the rules apply them.
Coordinates in the details are in the acting side's own view.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from sim._actions import (
    _TURN,
    ATTACK,
    DEPOSIT,
    DIRECTION_DELTAS,
    MINE,
    MOVE,
    NOOP,
    SOLDIER,
    SPAWN,
    WORKER,
    Op,
    Record,
)
from sim._game import Game
from sim._rules import TickEvents
from sim._units import Unit

__all__ = ["ActionReport", "Fate", "explain_tick"]


class Fate(StrEnum):
    """What the rules made of one action record."""

    APPLIED = "applied"
    BLOCKED = "blocked"
    NO_EFFECT = "no effect"


@dataclass(frozen=True, slots=True)
class ActionReport:
    """One record as submitted (unit id, op, arg) and what became of it, with why."""

    record: Record
    fate: Fate
    detail: str


_KIND: dict[int, str] = {WORKER: "worker", SOLDIER: "soldier"}


def explain_tick(
    game: Game, actions: Sequence[Sequence[Record]]
) -> tuple[tuple[ActionReport, ...], tuple[ActionReport, ...]]:
    """Explain every record of a tick about to be stepped; ``game`` itself is not changed.

    ``actions`` must be valid for this tick (``validate_actions``), as for ``Game.step``.
    """
    after = copy.deepcopy(game)
    events = after.step(actions)
    return (
        tuple(_Explainer(game, after, events, actions, 0).reports()),
        tuple(_Explainer(game, after, events, actions, 1).reports()),
    )


class _Explainer:
    def __init__(
        self,
        before: Game,
        after: Game,
        events: TickEvents,
        actions: Sequence[Sequence[Record]],
        side: int,
    ) -> None:
        self.before, self.after, self.events = before, after, events
        self.actions, self.side = actions, side
        self.dead = set(events.deaths)
        # Absolute target cell of every MOVE, to find contests.
        self.aims: dict[int, list[tuple[int, int]]] = {}
        for s in (0, 1):
            units = before.sides[s].units
            for uid, op, arg in actions[s]:
                if op == MOVE and uid in units:
                    target = self._neighbour(units[uid].cell, _TURN[s][arg])
                    if target is not None:
                        self.aims.setdefault(target, []).append((s, uid))

    # -- geometry --------------------------------------------------------------

    def _neighbour(self, cell: int, direction: int) -> int | None:
        w, h = self.before.width, self.before.height
        dx, dy = DIRECTION_DELTAS[direction]
        x, y = cell % w + dx, cell // w + dy
        return x + y * w if 0 <= x < w and 0 <= y < h else None

    def _at(self, cell: int) -> str:
        x, y = self.before.own_xy(self.side, cell)
        return f"({x}, {y})"

    def _who(self, unit: Unit) -> str:
        whose = "own" if unit.side == self.side else "enemy"
        return f"{whose} {_KIND.get(unit.kind, 'unit')} {unit.id}"

    def _what(self, cell: int) -> str:
        for s in (0, 1):
            if self.before.sides[s].colony == cell:
                return "the own colony" if s == self.side else "the enemy colony"
        return "rock"

    # -- reports -----------------------------------------------------------------

    def reports(self) -> list[ActionReport]:
        out = []
        for record in self.actions[self.side]:
            fate, detail = self._explain(record)
            out.append(ActionReport(record, fate, detail))
        return out

    def _explain(self, record: Record) -> tuple[Fate, str]:
        uid, op, arg = record
        if uid == 0:
            return self._spawn(arg) if op == SPAWN else (Fate.NO_EFFECT, "NOOP")
        unit = self.before.sides[self.side].units[uid]
        if op == NOOP:
            return Fate.NO_EFFECT, "NOOP"
        if op == ATTACK:
            return self._attack(unit, arg)
        if (self.side, uid) in self.dead:
            return Fate.BLOCKED, f"{Op(op).name}: the unit died this tick, before acting"
        if op == MOVE:
            return self._move(unit, arg)
        if op == MINE:
            return self._mine(unit, arg)
        assert op == DEPOSIT
        return self._deposit(unit)

    def _attack(self, unit: Unit, arg: int) -> tuple[Fate, str]:
        if unit.kind != SOLDIER:
            return Fate.NO_EFFECT, "ATTACK: only soldiers attack"
        target = self._neighbour(unit.cell, _TURN[self.side][arg])
        if target is None:
            return Fate.NO_EFFECT, "ATTACK: the target is off the map"
        victim = self.before.occ[target]
        if victim is not None and victim.side != self.side:
            killed = (victim.side, victim.id) in self.dead
            return Fate.APPLIED, f"ATTACK hit {self._who(victim)}" + (" (killed)" if killed else "")
        if target == self.before.sides[1 - self.side].colony:
            return Fate.APPLIED, "ATTACK hit the enemy colony"
        return Fate.NO_EFFECT, f"ATTACK struck {self._at(target)}: no enemy there"

    def _move(self, unit: Unit, arg: int) -> tuple[Fate, str]:
        target = self._neighbour(unit.cell, _TURN[self.side][arg])
        moved = self.after.sides[self.side].units[unit.id].cell
        if target is None:
            return Fate.BLOCKED, "MOVE: the target is off the map"
        where = self._at(target)
        if moved == target:
            return Fate.APPLIED, f"MOVE to {where}"
        if self.before.blocked[target]:
            return Fate.BLOCKED, f"MOVE to {where}: {self._what(target)}"
        rivals = [who for who in self.aims.get(target, []) if who != (self.side, unit.id)]
        if rivals:
            names = ", ".join(
                f"{'own' if s == self.side else 'enemy'} unit {uid}" for s, uid in rivals
            )
            return Fate.BLOCKED, f"MOVE to {where}: contested by {names}"
        holder = self.before.occ[target]
        if holder is not None and (holder.side, holder.id) not in self.dead:
            if (holder.side, holder.id) in self.aims.get(unit.cell, []):
                return Fate.BLOCKED, f"MOVE to {where}: would swap with {self._who(holder)}"
            return Fate.BLOCKED, f"MOVE to {where}: {self._who(holder)} stayed there"
        return Fate.BLOCKED, f"MOVE to {where}: a chain or cycle of moves was stopped"

    def _mine(self, unit: Unit, arg: int) -> tuple[Fate, str]:
        if unit.kind != WORKER:
            return Fate.NO_EFFECT, "MINE: only workers mine"
        cfg = self.before.config
        if unit.carry >= cfg.carry_cap:
            return Fate.NO_EFFECT, f"MINE: already carrying carry_cap ({cfg.carry_cap})"
        mover = self.after.sides[self.side].units[unit.id]
        target = self._neighbour(mover.cell, _TURN[self.side][arg])
        if target is None:
            return Fate.NO_EFFECT, "MINE: the target is off the map"
        if mover.carry > unit.carry:
            return Fate.APPLIED, f"MINE at {self._at(target)}: +1 ore (carry {mover.carry})"
        # Mining comes after deaths (which drop their ore) and moves (rules §6.5).
        ore = self.before.ore[target] + sum(
            u.carry
            for s in (0, 1)
            for u in self.before.sides[s].units.values()
            if (s, u.id) in self.dead and u.cell == target
        )
        if ore == 0:
            return Fate.NO_EFFECT, f"MINE at {self._at(target)}: no ore there"
        return Fate.BLOCKED, (
            f"MINE at {self._at(target)}: more requests than its {ore} ore; nobody mined it"
        )

    def _deposit(self, unit: Unit) -> tuple[Fate, str]:
        if unit.kind != WORKER:
            return Fate.NO_EFFECT, "DEPOSIT: only workers deposit"
        for s, uid, amount in self.events.deposits:
            if (s, uid) == (self.side, unit.id):
                return Fate.APPLIED, f"DEPOSIT banked {amount}"
        if unit.carry == 0:
            return Fate.NO_EFFECT, "DEPOSIT: carrying nothing"
        if self.after.sides[self.side].colony_hp <= 0:
            return Fate.NO_EFFECT, "DEPOSIT: the colony is destroyed"
        return Fate.NO_EFFECT, "DEPOSIT: not next to the own colony (4-adjacent)"

    def _spawn(self, kind: int) -> tuple[Fate, str]:
        for s, uid, k, cell in self.events.spawns:
            if s == self.side:
                return Fate.APPLIED, f"SPAWN {_KIND[k]} {uid} at {self._at(cell)}"
        me = self.after.sides[self.side]
        cfg = self.before.config
        cost = cfg.worker_cost if kind == WORKER else cfg.soldier_cost
        if me.colony_hp <= 0:
            return Fate.NO_EFFECT, "SPAWN: the colony is destroyed"
        if me.energy < cost:
            return Fate.BLOCKED, f"SPAWN {_KIND[kind]}: energy {me.energy} < cost {cost}"
        if len(me.units) >= cfg.max_units:
            return Fate.BLOCKED, f"SPAWN {_KIND[kind]}: max_units ({cfg.max_units}) living"
        return Fate.BLOCKED, f"SPAWN {_KIND[kind]}: no free cell next to the colony"
