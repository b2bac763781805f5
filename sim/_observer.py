"""What a side sees (rules §3.3, §9): its observation at the start of a tick, in its own view.

Kept apart from the state, as open_spiel keeps its ``Observer`` apart from
``State``: the observer reads the state and never changes it. It keeps what
each side saw until what that depends on changes: the side's vision while its
units stand still, each row's visible ore until that row's visible cells or
amounts change (the state marks the cells whose ore changed, ``State._add_ore``).
Sets of cells are bitmasks in Python ints (bit c is cell c, so row y is the w
bits from y * w): a side's vision is one OR per unit, its visible ore one AND.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import NamedTuple

import msgspec

from sim._actions import OreRecord, UnitRecord
from sim._state import State

__all__ = ["FlatObservation", "Observation", "Observer"]

# The most patterns of visible ore cells a row keeps (a bound on memory: a row of
# a 64-wide map has 2**64 of them, a match shows a few at a time).
_PATTERNS_PER_ROW = 32

# One visible ore cell as FlatObservation.ore packs it: x, y, amount as little-endian int32s.
_ORE_TRIPLE = struct.Struct("<3i")


class Observation(msgspec.Struct):
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


class FlatObservation(NamedTuple):
    """An ``Observation`` as flat ints, built without an object per unit or cell.

    The numbers are the same and in the same order: ``own`` and ``enemy`` hold
    six ints per unit in ``UnitRecord`` order (id, kind, x, y, hp, carry),
    ``ore`` three per cell in ``OreRecord`` order (x, y, amount), already packed
    as little-endian int32s, the layout of the OBS message's ore records (rules
    §9). The visible ore is much of a message and changes a few rows at a
    time, so the observer keeps it packed row by row and joins the rows' bytes
    rather than packing their ints again every tick. The arena packs the rest
    into the OBS message in one pass.
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


class Observer:
    """Both sides' observations of one state, built from it as it changes."""

    def __init__(self, state: State) -> None:
        self._state = state
        w, h = state.width, state.height
        n = w * h
        config = state.config
        # What each side saw last: its units' cells and their vision; the visible
        # ore bits, each row's visible ore in its view (packed, see
        # FlatObservation.ore), and all of them joined.
        self._sight: list[tuple[list[int], int] | None] = [None, None]
        self._ore_seen = [0, 0]
        self._ore_segments: tuple[list[bytes], list[bytes]] = ([b""] * h, [b""] * h)
        # Per side and row, the segments built for the row's patterns of visible
        # ore cells (bits -> bytes), until an amount in the row changes.
        self._ore_patterns: tuple[list[dict[int, bytes]], list[dict[int, bytes]]] = (
            [{} for _ in range(h)],
            [{} for _ in range(h)],
        )
        self._ore_flat = [b"", b""]
        # Vision tables (Chebyshev squares, rules §3): for each cell, a unit's
        # square is its row's span times its rows' template; each colony's square.
        self._row_mask = (1 << w) - 1
        # _below[y]: the cells of the rows above row y (0..y-1), to clear a mask's row
        # y and up with one AND.
        self._below = [(1 << (y * w)) - 1 for y in range(h)]
        self._vision_span, self._vision_rows = self._square(config.unit_vision)
        self._squares: list[int | None] = [None] * n  # a unit's square, made on first use
        colony_span, colony_rows = self._square(config.colony_vision)
        self._colony_sight = tuple(
            colony_span[side.colony] * colony_rows[side.colony] for side in state.sides
        )
        # Per cell: its absolute x and y, and both sides' views of them (side 1's
        # view turns the board 180 degrees: cell i is its cell n-1-i).
        x = [i % w for i in range(n)]
        y = [i // w for i in range(n)]
        self._view_xy = ((x, y), (x[::-1], y[::-1]))

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

        The sequences belong to the observer (a later call may return the same
        ones): read them, do not change them.
        """
        state = self._state
        me, foe = state.sides[side], state.sides[1 - side]
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
            state.tick,
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
        state = self._state
        seen = sight & state._ore_bits
        w, row_mask, below = state.width, self._row_mask, self._below
        dirty = state._ore_unseen[side]
        changed = seen ^ self._ore_seen[side]
        if dirty:
            # Some amounts changed: their rows' kept patterns are stale, seen or not.
            state._ore_unseen[side] = 0
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
            # Vision sways to and fro as units walk: many rows built again show
            # a pattern of cells the row showed before.
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
        amounts = self._state.ore
        base = y * self._state.width - 1
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

    def _square(self, r: int) -> tuple[list[int], list[int]]:
        """For a Chebyshev radius ``r``, per cell: the row bitmask of the columns within
        ``r`` of it, and a 1 at bit y * w for each row y within ``r`` of it. Their product
        is the bitmask of the cells within ``r`` (the rows' spans never overlap)."""
        w, h = self._state.width, self._state.height
        spans = [
            ((1 << (min(w - 1, x + r) - max(0, x - r) + 1)) - 1) << max(0, x - r) for x in range(w)
        ]
        rows = [
            sum(1 << (yy * w) for yy in range(max(0, y - r), min(h - 1, y + r) + 1))
            for y in range(h)
        ]
        return spans * h, [rows[y] for y in range(h) for _ in range(w)]
