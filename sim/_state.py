"""The game state and its fixed-timestep resolution (rules §3-§7).

Positions are held as absolute cell indices ``y * width + x``. Controllers speak
in their own view; side 1's view is the absolute one rotated 180 degrees, which
on cell indices is simply ``index -> cells - 1 - index``.
"""

from __future__ import annotations

import hashlib
import sys
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sim._actions import (
    ATTACK,
    DEPOSIT,
    DIRECTION_DELTAS,
    MINE,
    MOVE,
    SOLDIER,
    SPAWN,
    WORKER,
    ForfeitKind,
    OreRecord,
    Reason,
    Record,
    UnitRecord,
)
from sim._config import Config
from sim._maps import GameMap

__all__ = [
    "RULES_VERSION",
    "Forfeit",
    "Game",
    "Observation",
    "Outcome",
    "SideState",
    "TickEvents",
    "Unit",
    "forfeit_outcome",
]

RULES_VERSION = 1
"""Bumped whenever a rule changes what a match resolves to."""

# A side-1 controller's direction in absolute terms: its NORTH is absolute SOUTH.
_TURN = ((0, 1, 2, 3, 4), (0, 3, 4, 1, 2))


class Unit:
    """A living unit. ``cell`` is its absolute cell index."""

    __slots__ = ("carry", "cell", "hp", "id", "kind", "side")

    def __init__(self, side: int, uid: int, kind: int, cell: int, hp: int) -> None:
        self.side = side
        self.id = uid
        self.kind = kind
        self.cell = cell
        self.hp = hp
        self.carry = 0

    def __repr__(self) -> str:
        return (
            f"Unit(side={self.side}, id={self.id}, kind={self.kind}, cell={self.cell}, "
            f"hp={self.hp}, carry={self.carry})"
        )


class SideState:
    """One side's state: colony cell and hp, banked score, energy, living units by id.

    ``units`` is in id order: ids only grow and dicts keep insertion order, and
    observations and replays rely on it.
    """

    __slots__ = ("banked", "colony", "colony_hp", "energy", "next_id", "units")

    def __init__(self, colony: int, config: Config) -> None:
        self.colony = colony
        self.colony_hp = config.colony_hp
        self.banked = 0
        self.energy = config.start_energy
        self.next_id = 1
        self.units: dict[int, Unit] = {}


@dataclass(slots=True)
class Observation:
    """What one side sees at the start of a tick, in its own view (rules §9, OBS)."""

    tick: int
    banked: int
    energy: int
    colony_hp: int
    enemy_banked: int
    enemy_colony_hp: int  # -1 when the enemy colony's cell is not visible
    own: list[UnitRecord]  # by id
    enemy: list[UnitRecord]  # visible enemy units, by id
    ore: list[OreRecord]  # visible cells holding ore, by (y, x)


@dataclass(slots=True)
class TickEvents:
    """What happened in one tick, in absolute coordinates (for replays and viewers)."""

    attacks: list[tuple[int, int, int]] = field(
        default_factory=list
    )  # (side, unit id, target cell)
    deaths: list[tuple[int, int]] = field(default_factory=list)  # (side, unit id)
    spawns: list[tuple[int, int, int, int]] = field(default_factory=list)  # (side, id, kind, cell)
    deposits: list[tuple[int, int, int]] = field(default_factory=list)  # (side, unit id, amount)
    mined: list[tuple[int, int, int]] = field(default_factory=list)  # (side, unit id, cell)
    ore_changed: set[int] = field(default_factory=set)  # cells whose ore changed
    colony_damage: list[int] = field(default_factory=lambda: [0, 0])


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a match ended: ``winner`` is 0, 1 or None (a draw)."""

    winner: int | None
    reason: Reason


@dataclass(frozen=True, slots=True)
class Forfeit:
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


class Game:
    """One match's state. Pure: no I/O, no clock; the same inputs give the same states."""

    def __init__(self, game_map: GameMap, config: Config) -> None:
        self.map = game_map
        self.config = config
        w, h = game_map.width, game_map.height
        self.width, self.height = w, h
        n = w * h
        self.cells = n
        self.tick = 0
        # An array, so the checksum can hash it without conversion.
        self.ore = array("q", game_map.ore)
        # Row bitmasks of the cells holding ore: vision is row bitmasks too, so
        # the visible ore of a row is one AND.
        self._ore_rows = [0] * h
        for i, a in enumerate(self.ore):
            if a > 0:
                self._ore_rows[i // w] |= 1 << (i % w)
        colonies = [x + y * w for x, y in game_map.colonies]
        # Cells no unit may enter: rock and both colonies.
        self.blocked = bytearray(game_map.rock)
        for c in colonies:
            self.blocked[c] = 1
        # _step[d][i]: neighbour of cell i in absolute direction d, or -1 off the map.
        self._step: list[list[int]] = []
        for dx, dy in DIRECTION_DELTAS:
            self._step.append(
                [
                    (x + dx) + (y + dy) * w if 0 <= x + dx < w and 0 <= y + dy < h else -1
                    for y in range(h)
                    for x in range(w)
                ]
            )
        self.sides = (SideState(colonies[0], config), SideState(colonies[1], config))
        self._span_cache: dict[int, list[int]] = {}
        # Per cell: its absolute x and y, and both sides' views of them (side 1's
        # view turns the board 180 degrees: cell i is its cell n-1-i).
        self._x = [i % w for i in range(n)]
        self._y = [i // w for i in range(n)]
        self._view_xy = ((self._x, self._y), (self._x[::-1], self._y[::-1]))
        self.occ: list[Unit | None] = [None] * n
        # Each colony's neighbours in the owner's N, E, S, W order (spawn order).
        self._spawn_cells = tuple(
            [c for c in (self._step[_TURN[s][d]][colonies[s]] for d in (1, 2, 3, 4)) if c >= 0]
            for s in (0, 1)
        )
        self._colony_adjacent = tuple(frozenset(cells) for cells in self._spawn_cells)
        for s in (0, 1):
            for _ in range(config.start_workers):
                self._spawn(s, WORKER)

    # -- queries -----------------------------------------------------------------

    def xy(self, cell: int) -> tuple[int, int]:
        return cell % self.width, cell // self.width

    def own_xy(self, side: int, cell: int) -> tuple[int, int]:
        """A cell's coordinates in ``side``'s view."""
        if side:
            cell = self.cells - 1 - cell
        return cell % self.width, cell // self.width

    def colony_alive(self, side: int) -> bool:
        return self.sides[side].colony_hp > 0

    def roster(self, side: int) -> dict[int, Unit]:
        """The side's living units by id (the ids its controller may address)."""
        return self.sides[side].units

    def observe(self, side: int) -> Observation:
        """The observation of ``side`` at the start of the current tick (rules §9)."""
        me, foe = self.sides[side], self.sides[1 - side]
        w = self.width
        rows = self._visibility(side)
        xs, ys = self._x, self._y  # absolute coordinates of each cell
        vx, vy = self._view_xy[side]  # the same in the receiver's view
        # Units are created in id order and dicts keep it, so both lists are sorted.
        own = [
            UnitRecord(u.id, u.kind, vx[u.cell], vy[u.cell], u.hp, u.carry)
            for u in me.units.values()
        ]
        enemy = [
            UnitRecord(u.id, u.kind, vx[u.cell], vy[u.cell], u.hp, u.carry)
            for u in foe.units.values()
            if (rows[ys[u.cell]] >> xs[u.cell]) & 1
        ]
        ore: list[OreRecord] = []
        amounts = self.ore
        for y, bits in enumerate(self._ore_rows):
            bits &= rows[y]
            while bits:
                low = bits & -bits
                bits ^= low
                c = y * w + low.bit_length() - 1
                ore.append(OreRecord(vx[c], vy[c], amounts[c]))
        if side:  # row-major in the receiver's view is the reverse of ours
            ore.reverse()
        foe_seen = (rows[ys[foe.colony]] >> xs[foe.colony]) & 1
        return Observation(
            tick=self.tick,
            banked=me.banked,
            energy=me.energy,
            colony_hp=me.colony_hp,
            enemy_banked=foe.banked,
            enemy_colony_hp=foe.colony_hp if foe_seen else -1,
            own=own,
            enemy=enemy,
            ore=ore,
        )

    def _visibility(self, side: int) -> list[int]:
        """Row bitmasks of the cells ``side`` sees (bit x of row y)."""
        w, h = self.width, self.height
        me = self.sides[side]
        # Chebyshev squares: first OR each unit's horizontal span into its own
        # row, then spread every such row vertically once.
        spans = self._spans(self.config.unit_vision)
        xs, ys = self._x, self._y
        own_rows: dict[int, int] = {}
        for u in me.units.values():
            y = ys[u.cell]
            own_rows[y] = own_rows.get(y, 0) | spans[xs[u.cell]]
        rows = [0] * h
        r = self.config.unit_vision
        for y, mask in own_rows.items():
            for yy in range(max(0, y - r), min(h - 1, y + r) + 1):
                rows[yy] |= mask
        r = self.config.colony_vision
        cy = me.colony // w
        mask = self._spans(r)[me.colony - cy * w]
        for yy in range(max(0, cy - r), min(h - 1, cy + r) + 1):
            rows[yy] |= mask
        return rows

    def _spans(self, r: int) -> list[int]:
        """For each x, the row bitmask of the columns within ``r`` of it (cached)."""
        spans = self._span_cache.get(r)
        if spans is None:
            w = self.width
            spans = [
                ((1 << (min(w - 1, x + r) - max(0, x - r) + 1)) - 1) << max(0, x - r)
                for x in range(w)
            ]
            self._span_cache[r] = spans
        return spans

    def add_unit(
        self, side: int, kind: int, x: int, y: int, *, hp: int | None = None, carry: int = 0
    ) -> Unit:
        """Place a unit at absolute (x, y) with the next id: for scenarios and tests."""
        cell = x + y * self.width
        if not (0 <= x < self.width and 0 <= y < self.height) or self.blocked[cell]:
            raise ValueError(f"cannot place a unit at ({x}, {y}): off the map, rock or a colony")
        if self.occ[cell] is not None:
            raise ValueError(f"cannot place a unit at ({x}, {y}): occupied")
        me = self.sides[side]
        default_hp = self.config.worker_hp if kind == WORKER else self.config.soldier_hp
        unit = Unit(side, me.next_id, kind, cell, default_hp if hp is None else hp)
        unit.carry = carry
        me.next_id += 1
        me.units[unit.id] = unit
        self.occ[cell] = unit
        return unit

    def set_ore(self, x: int, y: int, amount: int) -> None:
        """Set the ore on absolute (x, y): for scenarios and tests."""
        cell = x + y * self.width
        self._add_ore(cell, amount - self.ore[cell])

    # -- resolution ----------------------------------------------------------------

    def step(self, actions: Sequence[Sequence[Record]]) -> TickEvents:
        """Resolve one tick from both sides' valid records (each in its own view).

        Records must already satisfy :func:`sim.validate_actions` against this
        tick's rosters; the arena forfeits a side whose reply does not.
        """
        cfg = self.config
        ev = TickEvents()
        step = self._step
        occ = self.occ
        # Sort the orders by op once; an order a unit's kind cannot carry out
        # (a worker attacking, a soldier mining or depositing) is a no-op.
        attacks: list[tuple[Unit, int]] = []  # (soldier, absolute direction)
        moves: list[tuple[Unit, int]] = []
        mines: list[tuple[Unit, int]] = []
        deposits: list[Unit] = []
        spawn_kind = [0, 0]
        for s in (0, 1):
            units = self.sides[s].units
            turn = _TURN[s]
            for uid, op, arg in actions[s]:
                if uid == 0:
                    if op == SPAWN:
                        spawn_kind[s] = arg
                    continue
                u = units[uid]
                if op == MOVE:
                    moves.append((u, turn[arg]))
                elif op == ATTACK:
                    if u.kind == SOLDIER:
                        attacks.append((u, turn[arg]))
                elif op == MINE:
                    if u.kind == WORKER:
                        mines.append((u, turn[arg]))
                elif op == DEPOSIT and u.kind == WORKER:
                    deposits.append(u)

        # 2. Attack, from start-of-tick positions; damage is summed, applied at once.
        damage: dict[Unit, int] = {}
        colony_damage = ev.colony_damage
        for u, d in attacks:
            target = step[d][u.cell]
            if target < 0:
                continue
            ev.attacks.append((u.side, u.id, target))
            victim = occ[target]
            if victim is not None and victim.side != u.side:
                damage[victim] = damage.get(victim, 0) + cfg.soldier_attack
            elif target == self.sides[1 - u.side].colony:
                colony_damage[1 - u.side] += cfg.soldier_attack

        # 3. Deaths: drop carried ore on the cell; colonies at hp <= 0 are destroyed.
        dead: set[Unit] = set()
        for victim, dmg in damage.items():
            victim.hp -= dmg
            if victim.hp <= 0:
                dead.add(victim)
        for victim in sorted(dead, key=lambda u: (u.side, u.id)):
            ev.deaths.append((victim.side, victim.id))
            del self.sides[victim.side].units[victim.id]
            occ[victim.cell] = None
            if victim.carry:
                self._add_ore(victim.cell, victim.carry)
                ev.ore_changed.add(victim.cell)
        for s in (0, 1):
            if colony_damage[s]:
                side = self.sides[s]
                side.colony_hp = max(0, side.colony_hp - colony_damage[s])
        if dead:
            moves = [m for m in moves if m[0] not in dead]
            mines = [m for m in mines if m[0] not in dead]
            deposits = [u for u in deposits if u not in dead]

        # 4. Move.
        self._move([(u, step[d][u.cell]) for u, d in moves])

        # 5. Mine, from the cells after the moves: a cell serves all its requests or none.
        requests: dict[int, list[Unit]] = {}
        for u, d in mines:
            if u.carry < cfg.carry_cap:
                target = step[d][u.cell]
                if target >= 0 and self.ore[target] > 0:
                    requests.setdefault(target, []).append(u)
        for cell, miners in requests.items():
            if self.ore[cell] >= len(miners):
                self._add_ore(cell, -len(miners))
                ev.ore_changed.add(cell)
                for u in miners:
                    u.carry += 1
                    ev.mined.append((u.side, u.id, cell))

        # 6. Deposit.
        for u in deposits:
            if u.carry:
                side = self.sides[u.side]
                if side.colony_hp > 0 and u.cell in self._colony_adjacent[u.side]:
                    side.banked += u.carry
                    side.energy += u.carry
                    ev.deposits.append((u.side, u.id, u.carry))
                    u.carry = 0

        # 7. Spawn.
        for s in (0, 1):
            if spawn_kind[s]:
                uid = self._spawn(s, spawn_kind[s], pay=True)
                if uid:
                    ev.spawns.append((s, uid, spawn_kind[s], self.sides[s].units[uid].cell))

        self.tick += 1
        return ev

    def _add_ore(self, cell: int, amount: int) -> None:
        self.ore[cell] += amount
        y, bit = divmod(cell, self.width)
        if self.ore[cell] > 0:
            self._ore_rows[y] |= 1 << bit
        else:
            self._ore_rows[y] &= ~(1 << bit)

    def _spawn(self, s: int, kind: int, *, pay: bool = False) -> int:
        """Place a new unit on the first free colony neighbour; return its id or 0."""
        cfg = self.config
        side = self.sides[s]
        cost = cfg.worker_cost if kind == WORKER else cfg.soldier_cost
        if pay and (side.colony_hp <= 0 or side.energy < cost or len(side.units) >= cfg.max_units):
            return 0
        for cell in self._spawn_cells[s]:
            if not self.blocked[cell] and self.occ[cell] is None:
                break
        else:
            return 0
        if pay:
            side.energy -= cost
        uid = side.next_id
        side.next_id += 1
        hp = cfg.worker_hp if kind == WORKER else cfg.soldier_hp
        unit = Unit(s, uid, kind, cell, hp)
        side.units[uid] = unit
        self.occ[cell] = unit
        return uid

    def _move(self, wishes: list[tuple[Unit, int]]) -> None:
        """Rules §6.4, simultaneous moves resolved to the greatest fixed point.

        A move fails if its target is off the map, blocked or contested, if it is
        one half of a swap, or if its target holds a unit that stays; failures
        cascade backwards along chains. What is left (chains into free cells and
        uncontested cycles of four or more) all moves. Failure only ever spreads,
        so the result cannot depend on the order units are listed in.
        """
        if not wishes:
            return
        occ, blocked = self.occ, self.blocked
        # The mover aiming at each cell; a cell two or more aim at is contested.
        aimed_at: dict[int, Unit] = {}
        contested: list[int] = []
        failed: list[Unit] = []
        for u, t in wishes:
            if t < 0 or blocked[t]:
                failed.append(u)
            elif t in aimed_at:
                contested.append(t)
                failed.append(u)
            else:
                aimed_at[t] = u
        for t in contested:
            loser = aimed_at.pop(t, None)
            if loser is not None:
                failed.append(loser)
        target = {u: t for t, u in aimed_at.items()}
        for u, t in target.items():
            v = occ[t]
            if v is None:
                continue
            vt = target.get(v)
            if vt is None or vt == u.cell:  # a stayer, or a swap
                failed.append(u)
        while failed:
            u = failed.pop()
            target.pop(u, None)
            w = aimed_at.get(u.cell)
            if w is not None and w in target:
                failed.append(w)
        for u in target:
            occ[u.cell] = None
        for u, t in target.items():
            u.cell = t
            occ[t] = u

    # -- end of match ----------------------------------------------------------------

    def outcome(self, fuel_totals: tuple[int, int]) -> Outcome | None:
        """Rules §7.2-§7.3, checked after a tick has been stepped; None while play goes on."""
        alive = (self.sides[0].colony_hp > 0, self.sides[1].colony_hp > 0)
        if alive[0] != alive[1]:
            return Outcome(0 if alive[0] else 1, Reason.SWEEP)
        if alive[0] and self.tick < self.config.max_ticks:
            return None
        a, b = self.sides[0].banked, self.sides[1].banked
        if a != b:
            return Outcome(0 if a > b else 1, Reason.SCORE)
        fa, fb = fuel_totals
        if fa != fb:
            return Outcome(0 if fa < fb else 1, Reason.FUEL)
        return Outcome(None, Reason.DRAW)

    # -- canonical state ---------------------------------------------------------------

    def checksum(self) -> int:
        """A 64-bit digest of the whole resolved state, the same on every machine."""
        words = [self.tick]
        for side in self.sides:
            words += (side.banked, side.energy, side.colony_hp, side.next_id, len(side.units))
            for u in side.units.values():
                words += (u.id, u.kind, u.cell, u.hp, u.carry)
        head = array("q", words)
        ore = self.ore
        if sys.byteorder != "little":
            head.byteswap()
            ore = array("q", ore)
            ore.byteswap()
        digest = hashlib.blake2b(head.tobytes(), digest_size=8)
        digest.update(ore.tobytes())
        return int.from_bytes(digest.digest(), "little")
