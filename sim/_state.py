"""A game's state: the board, the ore, both sides with their units, and how a cell changes.

Positions are held as absolute cell indices ``y * width + x``. Controllers speak
in their own view; side 1's view is the absolute one rotated 180 degrees, which
on cell indices is simply ``index -> cells - 1 - index``.

The rules (``sim._rules``) change the state by moving units and through
``_add_ore`` and ``_spawn``. ``_add_ore`` keeps up to date, cell by cell, what
others read of the ore: the bitmask of the cells holding ore, the checksum's
ore digest (``sim._checksum``), and per side the cells whose ore changed since
that side's observer (``sim._observer``) last looked.
"""

from __future__ import annotations

from sim._actions import _TURN, _WORKER, DIRECTION_DELTAS
from sim._checksum import cell_key, ore_term
from sim._config import Config
from sim._maps import GameMap
from sim._units import SideState, Unit

__all__ = ["State"]


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


class State:
    """One match's state and how its cells change; ``sim.Game`` adds the rules, the
    observer and the checksum."""

    def __init__(self, game_map: GameMap, config: Config) -> None:
        self.map = game_map
        self.config = config
        w, h = game_map.width, game_map.height
        self.width, self.height = w, h
        n = w * h
        self.cells = n
        self.tick = 0
        # Change the ore only through _add_ore (or set_ore): it keeps the
        # bitmask of the cells holding ore, the ore digest and the marks in step.
        self.ore = list(game_map.ore)
        # Sets of cells are bitmasks in Python ints: bit c is cell c, so row y
        # is the w bits from y * w.
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
                key = self._cell_keys[i] = cell_key(i)
                self._ore_terms[i] = ore_term(key, a)
                self._ore_digest ^= self._ore_terms[i]
        # Per side, the cells whose ore changed since its observer last looked
        # (the observer clears its side's mask).
        self._ore_unseen = [0, 0]
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
        self.occ: list[Unit | None] = [None] * n
        # Each colony's neighbours in the owner's N, E, S, W order (spawn order).
        self._spawn_cells = tuple(
            [c for c in (self._step[_TURN[s][d]][colonies[s]] for d in (1, 2, 3, 4)) if c >= 0]
            for s in (0, 1)
        )
        self._colony_adjacent = tuple(frozenset(cells) for cells in self._spawn_cells)
        for s in (0, 1):
            for _ in range(config.start_workers):
                self._spawn(s, _WORKER)

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

    def ore_cells(self) -> list[int]:
        """The cells holding ore, ascending (read from the ore bitmask, not the whole map)."""
        bits = self._ore_bits
        if bits != self._ore_cells[0]:  # kept while no cell gains or loses all its ore
            # A byte of the mask at a time, its set bits from a table, rather than
            # peeling the lowest bit off a map-sized int once per cell.
            data = bits.to_bytes((self.cells + 7) // 8, "little")
            cells = [8 * i + b for i, byte in enumerate(data) if byte for b in _BYTE_BITS[byte]]
            self._ore_cells = (bits, cells)
        return list(self._ore_cells[1])

    # -- scenarios -----------------------------------------------------------------

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

    # -- changes -------------------------------------------------------------------

    def _add_ore(self, cell: int, amount: int) -> None:
        ore = self.ore
        old = ore[cell]
        new = old + amount
        ore[cell] = new
        # The ore digest: take the cell's old term out, put its new one in.
        keys = self._cell_keys
        key = keys[cell] or cell_key(cell)
        keys[cell] = key
        term = ore_term(key, new)
        self._ore_digest ^= self._ore_terms[cell] ^ term
        self._ore_terms[cell] = term
        bit = 1 << cell
        if (old > 0) != (new > 0):  # the cell gains or loses all its ore
            self._ore_bits ^= bit
        unseen = self._ore_unseen
        unseen[0] |= bit
        unseen[1] |= bit

    def _spawn(self, s: int, kind: int) -> int:
        """Place a new unit of side ``s`` on the first free colony neighbour; return its id,
        or 0 when none is free. Whether the side may spawn is the rules' to judge."""
        for cell in self._spawn_cells[s]:
            if not self.blocked[cell] and self.occ[cell] is None:
                break
        else:
            return 0
        kind = int(kind)  # a plain int in every unit, however it was asked for
        side = self.sides[s]
        uid = side.next_id
        side.next_id += 1
        hp = self.config.worker_hp if kind == _WORKER else self.config.soldier_hp
        unit = Unit(s, uid, kind, cell, hp)
        side.units[uid] = unit
        self.occ[cell] = unit
        return uid
