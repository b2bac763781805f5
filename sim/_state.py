"""The game state and its fixed-timestep resolution (rules §3-§7).

Positions are held as absolute cell indices ``y * width + x``. Controllers speak
in their own view; side 1's view is the absolute one rotated 180 degrees, which
on cell indices is simply ``index -> cells - 1 - index``.

The state keeps a digest of the ore (``ORE_DIGEST`` below) up to date cell by
cell, so the checksum of a tick costs the units and the cells that changed,
never the whole map.
"""

from __future__ import annotations

import functools
import hashlib
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

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
    "FlatObservation",
    "Forfeit",
    "Game",
    "Observation",
    "Outcome",
    "SideState",
    "TickEvents",
    "Unit",
    "UnitWords",
    "forfeit_outcome",
]

RULES_VERSION = 1
"""Bumped whenever a rule changes what a match resolves to."""

# A side-1 controller's direction in absolute terms: its NORTH is absolute SOUTH.
_TURN = ((0, 1, 2, 3, 4), (0, 3, 4, 1, 2))

# The vocabulary as plain ints for the hot paths: comparisons of two exact ints
# take the interpreter's fast path, comparisons with an IntEnum member do not.
_MOVE, _ATTACK, _MINE, _DEPOSIT, _SPAWN = map(int, (MOVE, ATTACK, MINE, DEPOSIT, SPAWN))
_WORKER, _SOLDIER = int(WORKER), int(SOLDIER)

_MASK64 = (1 << 64) - 1
_GOLDEN64 = 0x9E3779B97F4A7C15


def _mix64(z: int) -> int:
    """SplitMix64's finalizer: a bijection on 64-bit words in which every input bit
    reaches every output bit."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def _cell_key(cell: int) -> int:
    """Key of a cell in the ore digest: the (cell + 1)-th output of SplitMix64 seeded with 0."""
    return _mix64(((cell + 1) * _GOLDEN64) & _MASK64)


def _neighbours(w: int, h: int, dx: int, dy: int) -> list[int]:
    """Per cell of a w x h map, the cell (dx, dy) away, or -1 off the map (a row at a time)."""
    out: list[int] = []
    for y in range(h):
        if not 0 <= y + dy < h:
            out += [-1] * w
            continue
        base = (y + dy) * w + dx
        row = list(range(base, base + w))
        if dx > 0:
            row[w - dx :] = [-1] * dx
        elif dx < 0:
            row[:-dx] = [-1] * -dx
        out += row
    return out


# The set bits of each byte value, low to high.
_BYTE_BITS = tuple(tuple(b for b in range(8) if byte >> b & 1) for byte in range(256))

# The most patterns of visible ore cells a row keeps (a bound on memory: a row of
# a 64-wide map has 2**64 of them, a match shows a few at a time).
_PATTERNS_PER_ROW = 32

# One visible ore cell as FlatObservation.ore packs it: x, y, amount as little-endian int32s.
_ORE_TRIPLE = struct.Struct("<3i")


@functools.lru_cache(maxsize=256)
def _checksum_layout(words: int) -> struct.Struct:
    """``words`` little-endian int64s, then the ore digest as a little-endian u64."""
    return struct.Struct(f"<{words}qQ")


def _side_and_id(u: Unit) -> tuple[int, int]:
    return u.side, u.id


def _ore_term(key: int, amount: int) -> int:
    """One cell's share of the ore digest; a cell without ore adds nothing."""
    return _mix64(key ^ (amount & _MASK64)) if amount else 0


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


UnitWords = tuple[list[int], list[int]]
"""Per side, its units by id as flat ints: id, kind, cell, hp, carry each (``Game.unit_words``)."""


class FlatObservation(NamedTuple):
    """An ``Observation`` as flat ints, built without an object per unit or cell.

    The numbers are the same and in the same order: ``own`` and ``enemy`` hold
    six ints per unit in ``UnitRecord`` order (id, kind, x, y, hp, carry),
    ``ore`` three per cell in ``OreRecord`` order (x, y, amount), already packed
    as little-endian int32s, the layout of the OBS message's ore records (rules
    §9). The visible ore is about half a message and changes a few rows at a
    time, so the game keeps it packed row by row and joins the rows' bytes, a
    few times cheaper than joining their ints and packing them again every tick.
    The arena packs the rest into the OBS message in one pass.
    """

    tick: int
    banked: int
    energy: int
    colony_hp: int
    enemy_banked: int
    enemy_colony_hp: int  # -1 when the enemy colony's cell is not visible
    own: Sequence[int]
    enemy: Sequence[int]
    ore: bytes


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
        # Change the ore only through _add_ore (or set_ore): it keeps the
        # bitmask of the cells holding ore and the ore digest in step.
        self.ore = list(game_map.ore)
        # Sets of cells are bitmasks in Python ints: bit c is cell c, so row y
        # is the w bits from y * w. Vision is one too, and the visible ore is
        # one AND.
        self._ore_bits = 0
        # Each cell's key in the ore digest, made when the cell first holds ore
        # (0: not yet), and its current term, so a change mixes once.
        self._cell_keys = [0] * n
        self._ore_terms = [0] * n
        self._ore_digest = 0
        for i, a in enumerate(self.ore):
            if a > 0:
                self._ore_bits |= 1 << i
            if a:
                key = self._cell_keys[i] = _cell_key(i)
                self._ore_terms[i] = _ore_term(key, a)
                self._ore_digest ^= self._ore_terms[i]
        # What each side saw last, kept until what it depends on changes:
        # its units' cells and their vision; the visible ore bits, each row's
        # visible ore in its view (packed, see FlatObservation.ore), and all of
        # them joined. _ore_dirty[side] holds the cells whose ore changed since
        # that side last looked.
        self._sight: list[tuple[list[int], int] | None] = [None, None]
        self._ore_dirty = [0, 0]
        self._ore_seen = [0, 0]
        self._ore_segments: tuple[list[bytes], list[bytes]] = ([b""] * h, [b""] * h)
        # Per side and row, the segments built for the row's patterns of visible
        # ore cells (bits -> bytes), until an amount in the row changes.
        self._ore_patterns: tuple[list[dict[int, bytes]], list[dict[int, bytes]]] = (
            [{} for _ in range(h)],
            [{} for _ in range(h)],
        )
        self._ore_flat = [b"", b""]
        self._ore_cells: tuple[int, list[int]] = (0, [])  # (ore bits, their cells)
        colonies = [x + y * w for x, y in game_map.colonies]
        # Cells no unit may enter: rock and both colonies.
        self.blocked = bytearray(game_map.rock)
        for c in colonies:
            self.blocked[c] = 1
        # _step[d][i]: neighbour of cell i in absolute direction d, or -1 off the map.
        self._step = [_neighbours(w, h, dx, dy) for dx, dy in DIRECTION_DELTAS]
        # The same tables indexed by a side's own direction (side 1's NORTH is SOUTH).
        self._side_step = tuple([self._step[_TURN[s][d]] for d in range(5)] for s in (0, 1))
        self.sides = (SideState(colonies[0], config), SideState(colonies[1], config))
        # Vision tables (Chebyshev squares, rules §3): for each cell, a unit's
        # square is its row's span times its rows' template; each colony's square.
        self._row_mask = (1 << w) - 1
        # _below[y]: the cells of the rows above row y (0..y-1), to clear a mask's row
        # y and up with one AND.
        self._below = [(1 << (y * w)) - 1 for y in range(h)]
        self._vision_span, self._vision_rows = self._square(config.unit_vision)
        self._squares: list[int | None] = [None] * n  # a unit's square, made on first use
        colony_span, colony_rows = self._square(config.colony_vision)
        self._colony_sight = tuple(colony_span[c] * colony_rows[c] for c in colonies)
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
        f = self.observe_flat(side)
        own, enemy, ore = f.own, f.enemy, f.ore
        return Observation(
            tick=f.tick,
            banked=f.banked,
            energy=f.energy,
            colony_hp=f.colony_hp,
            enemy_banked=f.enemy_banked,
            enemy_colony_hp=f.enemy_colony_hp,
            own=[UnitRecord(*own[i : i + 6]) for i in range(0, len(own), 6)],
            enemy=[UnitRecord(*enemy[i : i + 6]) for i in range(0, len(enemy), 6)],
            ore=[OreRecord(*triple) for triple in _ORE_TRIPLE.iter_unpack(ore)],
        )

    def observe_flat(self, side: int) -> FlatObservation:
        """``observe(side)`` as flat sequences of ints: what the match loop packs every tick.

        The sequences belong to the game (a later call may return the same ones):
        read them, do not change them.
        """
        me, foe = self.sides[side], self.sides[1 - side]
        vx, vy = self._view_xy[side]  # each cell's coordinates in the receiver's view
        # Units are created in id order and dicts keep it, so both lists are sorted.
        # The pass over the own units also gathers their cells for the vision.
        own: list[int] = []
        cells: list[int] = []
        for u in me.units.values():
            c = u.cell
            cells.append(c)
            own += (u.id, u.kind, vx[c], vy[c], u.hp, u.carry)
        sight = self._vision(side, cells)
        enemy: list[int] = []
        for u in foe.units.values():
            c = u.cell
            if (sight >> c) & 1:
                enemy += (u.id, u.kind, vx[c], vy[c], u.hp, u.carry)
        return FlatObservation(
            self.tick,
            me.banked,
            me.energy,
            me.colony_hp,
            foe.banked,
            foe.colony_hp if (sight >> foe.colony) & 1 else -1,
            own,
            enemy,
            self._visible_ore(side, sight),
        )

    def _vision(self, side: int, cells: list[int]) -> int:
        """The bitmask of the cells ``side`` sees: the union of the squares of its units
        (on ``cells``, in id order) and its colony's (kept while its units stand still)."""
        kept = self._sight[side]
        if kept is not None and kept[0] == cells:
            return kept[1]
        squares = self._squares
        sight = self._colony_sight[side]
        for c in cells:
            square = squares[c]
            if square is None:
                square = squares[c] = self._vision_span[c] * self._vision_rows[c]
            sight |= square
        self._sight[side] = (cells, sight)
        return sight

    def _visible_ore(self, side: int, sight: int) -> bytes:
        """The packed (x, y, amount) of the visible cells holding ore, row-major in ``side``'s
        view. Only the rows whose visible cells or amounts changed are built again."""
        seen = sight & self._ore_bits
        w, row_mask, below = self.width, self._row_mask, self._below
        dirty = self._ore_dirty[side]
        changed = seen ^ self._ore_seen[side]
        if dirty:
            # Some amounts changed: their rows' kept patterns are stale, seen or not.
            self._ore_dirty[side] = 0
            changed |= dirty & seen
            patterns = self._ore_patterns[side]
            while dirty:
                y = (dirty.bit_length() - 1) // w
                patterns[y].clear()
                dirty &= below[y]
        if not changed:
            return self._ore_flat[side]
        self._ore_seen[side] = seen
        segments = self._ore_segments[side]
        patterns = self._ore_patterns[side]
        while changed:
            y = (changed.bit_length() - 1) // w
            bits = (seen >> (y * w)) & row_mask
            # Vision sways to and fro as units walk: about half the rows built
            # again show a pattern of cells the row showed before.
            kept = patterns[y]
            segment = kept.get(bits)
            if segment is None:
                if len(kept) >= _PATTERNS_PER_ROW:
                    kept.clear()
                segment = kept[bits] = self._ore_row(side, y, bits)
            segments[y] = segment
            changed &= below[y]  # the rows before y are left
        # Row-major in side 1's view is ours backwards (each row too: _ore_row).
        ore = b"".join(reversed(segments) if side else segments)
        self._ore_flat[side] = ore
        return ore

    def _ore_row(self, side: int, y: int, bits: int) -> bytes:
        """The packed (x, y, amount) triples of the cells of row ``y`` in ``bits``, in
        ``side``'s view and order: side 1 sees each row backwards."""
        vx, vy = self._view_xy[side]
        amounts = self.ore
        base = y * self.width - 1
        pack = _ORE_TRIPLE.pack
        packed: list[bytes] = []
        while bits:
            if side:
                top = bits.bit_length()
                bits ^= 1 << (top - 1)
                c = base + top
            else:
                low = bits & -bits
                bits ^= low
                c = base + low.bit_length()
            packed.append(pack(vx[c], vy[c], amounts[c]))
        return b"".join(packed)

    def ore_cells(self) -> list[int]:
        """The cells holding ore, ascending (read from the ore bitmask, not the whole map)."""
        bits = self._ore_bits
        if bits != self._ore_cells[0]:  # kept while no cell gains or loses all its ore
            # A byte of the mask at a time, its set bits from a table: twice as fast
            # as peeling the lowest bit off a map-sized int once per cell.
            data = bits.to_bytes((self.cells + 7) // 8, "little")
            cells = [8 * i + b for i, byte in enumerate(data) if byte for b in _BYTE_BITS[byte]]
            self._ore_cells = (bits, cells)
        return list(self._ore_cells[1])

    def _square(self, r: int) -> tuple[list[int], list[int]]:
        """For a Chebyshev radius ``r``, per cell: the row bitmask of the columns within
        ``r`` of it, and a 1 at bit y * w for each row y within ``r`` of it. Their product
        is the bitmask of the cells within ``r`` (the rows' spans never overlap)."""
        w, h = self.width, self.height
        spans = [
            ((1 << (min(w - 1, x + r) - max(0, x - r) + 1)) - 1) << max(0, x - r) for x in range(w)
        ]
        rows = [
            sum(1 << (yy * w) for yy in range(max(0, y - r), min(h - 1, y + r) + 1))
            for y in range(h)
        ]
        return spans * h, [rows[y] for y in range(h) for _ in range(w)]

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
        default_hp = self.config.worker_hp if kind == _WORKER else self.config.soldier_hp
        unit = Unit(side, me.next_id, int(kind), cell, default_hp if hp is None else hp)
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
        # Sort the orders by op once; an order a unit's kind cannot carry out
        # (a worker attacking, a soldier mining or depositing) is a no-op. Nobody
        # moves before step 4, so attack and move targets are known now.
        attacks: list[tuple[Unit, int]] = []  # (soldier, target cell or -1 off the map)
        moves: list[tuple[Unit, int]] = []  # (unit, target cell or -1 off the map)
        mines: list[tuple[Unit, int]] = []  # (worker, absolute direction)
        deposits: list[Unit] = []
        spawn_kind = [0, 0]
        for s in (0, 1):
            units = self.sides[s].units
            turn = _TURN[s]
            side_step = self._side_step[s]
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
            dead = self._attack(attacks, ev)
            if dead:
                moves = [m for m in moves if m[0] not in dead]
                mines = [m for m in mines if m[0] not in dead]
                deposits = [u for u in deposits if u not in dead]

        # 4. Move.
        self._move(moves)

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
                uid = self._spawn(s, spawn_kind[s], True)  # positional: the call's fast path
                if uid:
                    ev.spawns.append((s, uid, spawn_kind[s], self.sides[s].units[uid].cell))

        self.tick += 1
        return ev

    def _attack(self, attacks: list[tuple[Unit, int]], ev: TickEvents) -> set[Unit]:
        """Rules §6.2-§6.3 for the soldiers' ``attacks``: return the units that died."""
        cfg = self.config
        occ = self.occ
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
            elif target == self.sides[1 - u.side].colony:
                colony_damage[1 - u.side] += cfg.soldier_attack

        # 3. Deaths: drop carried ore on the cell; colonies at hp <= 0 are destroyed.
        dead: set[Unit] = set()
        for victim, dmg in damage.items():
            victim.hp -= dmg
            if victim.hp <= 0:
                dead.add(victim)
        for victim in sorted(dead, key=_side_and_id) if dead else ():
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
        return dead

    def _add_ore(self, cell: int, amount: int) -> None:
        ore = self.ore
        old = ore[cell]
        new = old + amount
        ore[cell] = new
        # The ore digest: take the cell's old term out, put its new one in.
        keys = self._cell_keys
        key = keys[cell] or _cell_key(cell)
        keys[cell] = key
        term = _mix64(key ^ (new & _MASK64)) if new else 0
        self._ore_digest ^= self._ore_terms[cell] ^ term
        self._ore_terms[cell] = term
        bit = 1 << cell
        if (old > 0) != (new > 0):  # the cell gains or loses all its ore
            self._ore_bits ^= bit
        dirty = self._ore_dirty
        dirty[0] |= bit
        dirty[1] |= bit

    def _spawn(self, s: int, kind: int, pay: bool = False) -> int:
        """Place a new unit on the first free colony neighbour; return its id or 0."""
        cfg = self.config
        side = self.sides[s]
        kind = int(kind)  # a plain int in every unit, however it was asked for
        cost = cfg.worker_cost if kind == _WORKER else cfg.soldier_cost
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
        hp = cfg.worker_hp if kind == _WORKER else cfg.soldier_hp
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

    def unit_words(self) -> UnitWords:
        """Per side, its living units by id as flat ints: id, kind, cell, hp, carry each.

        The checksum hashes these words; a frame encoder that needs them too can
        take them once and hand them to ``checksum``.
        """
        a: list[int] = []
        for u in self.sides[0].units.values():
            a += (u.id, u.kind, u.cell, u.hp, u.carry)
        b: list[int] = []
        for u in self.sides[1].units.values():
            b += (u.id, u.kind, u.cell, u.hp, u.carry)
        return a, b

    def checksum(self, units: UnitWords | None = None) -> int:
        """A 64-bit digest of the whole resolved state, the same on every machine.

        BLAKE2b (8-byte digest) of the little-endian int64 words: the tick; per
        side its banked, energy, colony hp, next id and unit count, then per
        unit by id its id, kind, cell, hp and carry; then the ore digest as a
        little-endian u64. The ore digest is the XOR, over every cell c whose
        ore amount a is not 0, of mix64(K[c] ^ a), where mix64 is SplitMix64's
        finalizer and K[c] = mix64((c + 1) * 0x9E3779B97F4A7C15 mod 2**64). It is
        kept up to date as ore changes, so a tick's checksum does not grow with
        the map. (Replay format version 2.) ``units`` is this state's
        ``unit_words()``, when the caller has them.
        """
        a, b = self.unit_words() if units is None else units
        s0, s1 = self.sides
        # The words of _state_words, packed as they are gathered: no list of them first.
        data = _checksum_layout(len(a) + len(b) + 11).pack(
            self.tick,
            s0.banked,
            s0.energy,
            s0.colony_hp,
            s0.next_id,
            len(s0.units),
            *a,
            s1.banked,
            s1.energy,
            s1.colony_hp,
            s1.next_id,
            len(s1.units),
            *b,
            self._ore_digest,
        )
        return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")

    def checksum_v1(self, units: UnitWords | None = None) -> int:
        """The checksum of replay format version 1, kept so that its replays still verify.

        BLAKE2b (8-byte digest) of the same words as ``checksum`` up to the
        units, followed by every cell's ore amount as a little-endian int64:
        the whole map, every tick.
        """
        words = self._state_words(units)
        words += self.ore
        digest = hashlib.blake2b(struct.pack(f"<{len(words)}q", *words), digest_size=8)
        return int.from_bytes(digest.digest(), "little")

    def _state_words(self, units: UnitWords | None) -> list[int]:
        """The tick; per side its totals, then its ``unit_words``."""
        if units is None:
            units = self.unit_words()
        words = [self.tick]
        for side, flat in zip(self.sides, units, strict=True):
            words += (side.banked, side.energy, side.colony_hp, side.next_id, len(side.units))
            words += flat
        return words
