"""Maps (rules §2): the text format and the rule checker (the generator is ``_mapgen``).

Pure: the parser takes text, the generator draws from its own PRNG, nothing here
reads files, clocks or global random state.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import msgspec

__all__ = [
    "DEFAULT_ORE_SCALE",
    "MAX_ORE_SCALE",
    "MAX_SIDE",
    "MIN_COLONY_DISTANCE",
    "MIN_SIDE",
    "GameMap",
    "MapError",
    "check_map",
    "format_map",
    "parse_map",
]

MIN_SIDE = 8
MAX_SIDE = 64
MIN_COLONY_DISTANCE = 3
DEFAULT_ORE_SCALE = 10
# The spec only says "positive"; a bound keeps untrusted files from asking for
# absurd integers.
MAX_ORE_SCALE = 1_000_000

_ROW_CHARS = frozenset(".#AB123456789")
# Rock bytes (0 open, 1 rock) to the binary digits of the open cells' bitmask.
_OPEN_DIGITS = bytes.maketrans(b"\x00\x01", b"10")
_DIGITS = frozenset("0123456789")
_SIDE_LETTERS = ("A", "B")


class MapError(ValueError):
    """A map is malformed or breaks a rule.

    The message names the source, the line (1-based, for text maps) and the
    cell where relevant; the same facts are kept in ``line`` and ``cell``.
    """

    line: int | None
    cell: tuple[int, int] | None

    def __init__(
        self,
        message: str,
        *,
        line: int | None = None,
        cell: tuple[int, int] | None = None,
    ) -> None:
        super().__init__(message)
        self.line = line
        self.cell = cell


def _fail(
    where: str,
    detail: str,
    *,
    line: int | None = None,
    cell: tuple[int, int] | None = None,
) -> MapError:
    """Build a MapError whose message starts ``where:line:`` like a compiler's."""
    prefix = f"{where}:{line}: " if line is not None else f"{where}: "
    return MapError(prefix + detail, line=line, cell=cell)


class GameMap(msgspec.Struct, frozen=True):
    """An immutable map: terrain, ore and the two colonies.

    ``rock`` and ``ore`` are row-major (index ``y * width + x``). Construction
    checks only the shape; ``check_map`` checks the rules of rules §2.
    """

    width: int
    height: int
    rock: bytes
    ore: tuple[int, ...]
    colonies: tuple[tuple[int, int], tuple[int, int]]

    def __post_init__(self) -> None:
        # Shape errors here would otherwise surface as IndexErrors deep in the sim.
        if type(self.width) is not int or type(self.height) is not int:
            raise MapError("map width and height must be integers")
        if self.width < 1 or self.height < 1:
            raise MapError(f"map size {self.width}x{self.height} is empty")
        area = self.width * self.height
        if type(self.rock) is not bytes or len(self.rock) != area:
            raise MapError(f"rock must be {area} bytes")
        if any(b > 1 for b in self.rock):
            raise MapError("rock bytes must be 0 (open) or 1 (rock)")
        if type(self.ore) is not tuple or len(self.ore) != area:
            raise MapError(f"ore must be a tuple of {area} integers")
        if any(type(a) is not int or a < 0 for a in self.ore):
            raise MapError("ore amounts must be integers >= 0")
        if type(self.colonies) is not tuple or len(self.colonies) != 2:
            raise MapError("colonies must be a pair of (x, y) cells")
        for side, cell in enumerate(self.colonies):
            if (
                type(cell) is not tuple
                or len(cell) != 2
                or any(type(c) is not int for c in cell)
                or not self.in_bounds(cell[0], cell[1])
            ):
                raise MapError(f"colony {_SIDE_LETTERS[side]} {cell!r} is not a cell of the map")

    def in_bounds(self, x: int, y: int) -> bool:
        """Whether (x, y) lies on the map."""
        return 0 <= x < self.width and 0 <= y < self.height

    def index(self, x: int, y: int) -> int:
        """Row-major index of (x, y) into ``rock`` and ``ore``."""
        return y * self.width + x

    def is_rock(self, x: int, y: int) -> bool:
        """Whether (x, y) is rock; (x, y) must be on the map."""
        return self.rock[y * self.width + x] == 1

    def is_open(self, x: int, y: int) -> bool:
        """Whether (x, y) is on the map and open (colony cells are open)."""
        return self.in_bounds(x, y) and self.rock[y * self.width + x] == 0

    def ore_at(self, x: int, y: int) -> int:
        """Ore amount on (x, y)."""
        return self.ore[y * self.width + x]

    def mirror(self, x: int, y: int) -> tuple[int, int]:
        """The point-symmetric partner of (x, y)."""
        return (self.width - 1 - x, self.height - 1 - y)

    def colony_side(self, x: int, y: int) -> int | None:
        """0 or 1 if (x, y) is that side's colony, else None."""
        for side, cell in enumerate(self.colonies):
            if cell == (x, y):
                return side
        return None

    def neighbours(self, x: int, y: int) -> list[tuple[int, int]]:
        """The on-map 4-neighbours of (x, y), in N, E, S, W order."""
        out = []
        for nx_, ny in ((x, y - 1), (x + 1, y), (x, y + 1), (x - 1, y)):
            if self.in_bounds(nx_, ny):
                out.append((nx_, ny))
        return out


# --------------------------------------------------------------------------- checker


def _line_of(row_lines: Sequence[int] | None, y: int) -> int | None:
    return None if row_lines is None else row_lines[y]


def _check(game_map: GameMap, where: str, row_lines: Sequence[int] | None) -> None:
    """Every rule of section 2; ``row_lines[y]`` is the text line of row y, if any."""
    w, h = game_map.width, game_map.height
    rock, ore = game_map.rock, game_map.ore
    if not (MIN_SIDE <= w <= MAX_SIDE and MIN_SIDE <= h <= MAX_SIDE):
        raise _fail(
            where,
            f"map is {w}x{h}; width and height must each be {MIN_SIDE}..{MAX_SIDE}",
            line=_line_of(row_lines, 0),
        )

    colonies = game_map.colonies
    for side, (cx, cy) in enumerate(colonies):
        letter = _SIDE_LETTERS[side]
        i = cy * w + cx
        if rock[i]:
            raise _fail(
                where,
                f"colony {letter} at cell ({cx}, {cy}) is on rock",
                line=_line_of(row_lines, cy),
                cell=(cx, cy),
            )
        if ore[i]:
            raise _fail(
                where,
                f"colony {letter} at cell ({cx}, {cy}) holds ore {ore[i]}; colony cells hold none",
                line=_line_of(row_lines, cy),
                cell=(cx, cy),
            )
    for i, amount in enumerate(ore):
        if amount and rock[i]:
            x, y = i % w, i // w
            raise _fail(
                where,
                f"cell ({x}, {y}) is rock but holds ore {amount}",
                line=_line_of(row_lines, y),
                cell=(x, y),
            )

    (ax, ay), (bx, by) = colonies
    distance = abs(ax - bx) + abs(ay - by)
    if distance < MIN_COLONY_DISTANCE:
        raise _fail(
            where,
            f"colonies A ({ax}, {ay}) and B ({bx}, {by}) are {distance} apart (Manhattan); "
            f"they must be at least {MIN_COLONY_DISTANCE} apart",
            line=_line_of(row_lines, by),
            cell=(bx, by),
        )

    _check_symmetry(game_map, where, row_lines)

    # Open non-colony cells, 4-connected: the cells units move on. A
    # breadth-first search from each colony's walkable neighbours finds them.
    colony_idx = {cy * w + cx for cx, cy in colonies}
    first_bad: tuple[int, int] | None = None  # (row-major index, side) for the report
    for side, (cx, cy) in enumerate(colonies):
        starts = [
            ny * w + nx_
            for nx_, ny in game_map.neighbours(cx, cy)
            if not rock[ny * w + nx_] and ny * w + nx_ not in colony_idx
        ]
        if not starts:
            raise _fail(
                where,
                f"colony {_SIDE_LETTERS[side]} at cell ({cx}, {cy}) has no open neighbour",
                line=_line_of(row_lines, cy),
                cell=(cx, cy),
            )
        walkable = _walkable(rock, colony_idx)
        unreached = walkable & ~_reachable(walkable, w, h, starts)
        missing = (unreached & -unreached).bit_length() - 1 if unreached else None
        if missing is not None and (first_bad is None or missing < first_bad[0]):
            first_bad = (missing, side)
    if first_bad is not None:
        i, side = first_bad
        x, y = i % w, i // w
        cx, cy = colonies[side]
        raise _fail(
            where,
            f"cell ({x}, {y}) is open but unreachable from colony {_SIDE_LETTERS[side]} "
            f"at ({cx}, {cy})",
            line=_line_of(row_lines, y),
            cell=(x, y),
        )


def _describe(game_map: GameMap, x: int, y: int) -> str:
    side = game_map.colony_side(x, y)
    if side is not None:
        return f"colony {_SIDE_LETTERS[side]}"
    if game_map.is_rock(x, y):
        return "rock"
    amount = game_map.ore_at(x, y)
    return f"open with ore {amount}" if amount else "open without ore"


def _check_symmetry(game_map: GameMap, where: str, row_lines: Sequence[int] | None) -> None:
    w, h = game_map.width, game_map.height
    rock, ore = game_map.rock, game_map.ore
    a, b = game_map.colonies
    # A cell's "kind" must equal its mirror's, except that A's mirror must be B.
    swap = {a: b, b: a}
    for y in range(h):
        for x in range(w):
            mx, my = w - 1 - x, h - 1 - y
            i, j = y * w + x, my * w + mx
            here = (x, y)
            if here in swap:
                ok = swap[here] == (mx, my)
            else:
                ok = rock[i] == rock[j] and ore[i] == ore[j] and (mx, my) not in swap
            if not ok:
                raise _fail(
                    where,
                    f"not point-symmetric: cell ({x}, {y}) is {_describe(game_map, x, y)} "
                    f"but its mirror ({mx}, {my}) is {_describe(game_map, mx, my)}",
                    line=_line_of(row_lines, y),
                    cell=here,
                )


def check_map(game_map: GameMap, *, where: str = "<map>") -> None:
    """Raise MapError unless ``game_map`` obeys every rule of rules §2.

    Checks, in order: size 8..64 each way; colonies on open cells without ore;
    no ore on rock; colonies >= 3 apart (Manhattan); point symmetry (first
    offending cell in row-major order and its mirror); each colony has an open
    neighbour; every open non-colony cell is reachable (4-connected through open
    non-colony cells) from a neighbour of each colony.
    """
    _check(game_map, where, None)


# --------------------------------------------------------------------------- text


def _parse_ore_scale(value: str, source: str, line: int) -> int:
    if not value or any(ch not in _DIGITS for ch in value) or len(value) > 7:
        raise _fail(
            source,
            f"ore_scale must be a positive integer up to {MAX_ORE_SCALE}, got {value!r}",
            line=line,
        )
    scale = int(value)
    if not 1 <= scale <= MAX_ORE_SCALE:
        raise _fail(
            source,
            f"ore_scale must be a positive integer up to {MAX_ORE_SCALE}, got {value!r}",
            line=line,
        )
    return scale


def parse_map(text: str, source: str = "<map>") -> GameMap:
    """Parse the text map format of rules §2 and check every rule.

    Lines are split on ``\\n``; trailing whitespace (so ``\\r\\n`` too) is
    ignored. Errors are MapErrors whose message starts ``source:line:``.
    """
    lines = text.split("\n")
    ore_scale = DEFAULT_ORE_SCALE
    seen_scale = False
    rows: list[str] = []
    row_lines: list[int] = []
    width = 0
    state = "header"  # header -> rows -> after
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip()
        stripped = line.lstrip()
        if state == "header":
            if not stripped or stripped.startswith(";"):
                continue
            if "=" in stripped:
                key, _, value = stripped.partition("=")
                key, value = key.strip(), value.strip()
                if key != "ore_scale":
                    raise _fail(
                        source, f"unknown key {key!r} (only 'ore_scale' is known)", line=number
                    )
                if seen_scale:
                    raise _fail(source, "ore_scale is given twice", line=number)
                ore_scale = _parse_ore_scale(value, source, number)
                seen_scale = True
                continue
            state = "rows"
        if state == "rows":
            if not stripped:
                state = "after"
                continue
            if stripped.startswith(";") or "=" in stripped:
                raise _fail(
                    source,
                    "comments and key lines must come before the rows",
                    line=number,
                )
            y = len(rows)
            for x, ch in enumerate(line):
                if ch not in _ROW_CHARS:
                    raise _fail(
                        source,
                        f"unknown character {ch!r} at cell ({x}, {y}); rows use only .#AB1-9",
                        line=number,
                        cell=(x, y),
                    )
            if not rows:
                width = len(line)
                if not MIN_SIDE <= width <= MAX_SIDE:
                    raise _fail(
                        source,
                        f"row is {width} cells wide; width must be {MIN_SIDE}..{MAX_SIDE}",
                        line=number,
                    )
            elif len(line) != width:
                raise _fail(
                    source,
                    f"row is {len(line)} cells wide but the first row is {width}",
                    line=number,
                )
            if y >= MAX_SIDE:
                raise _fail(
                    source,
                    f"more than {MAX_SIDE} rows; height must be {MIN_SIDE}..{MAX_SIDE}",
                    line=number,
                )
            rows.append(line)
            row_lines.append(number)
            continue
        # state == "after"
        if stripped:
            raise _fail(source, "only blank lines may follow the rows", line=number)

    if not rows:
        raise _fail(source, "no map rows")
    height = len(rows)
    if height < MIN_SIDE:
        raise _fail(
            source,
            f"map has {height} rows; height must be {MIN_SIDE}..{MAX_SIDE}",
            line=row_lines[0],
        )

    rock = bytearray(width * height)
    ore = [0] * (width * height)
    found: list[tuple[int, int] | None] = [None, None]
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            i = y * width + x
            if ch == "#":
                rock[i] = 1
            elif ch in "AB":
                side = 0 if ch == "A" else 1
                earlier = found[side]
                if earlier is not None:
                    fx, fy = earlier
                    raise _fail(
                        source,
                        f"a second colony {ch} at cell ({x}, {y}); the first is at ({fx}, {fy})",
                        line=row_lines[y],
                        cell=(x, y),
                    )
                found[side] = (x, y)
            elif ch != ".":
                ore[i] = int(ch) * ore_scale
    first, last = row_lines[0], row_lines[-1]
    for side in (0, 1):
        if found[side] is None:
            raise _fail(
                source,
                f"no colony {_SIDE_LETTERS[side]} in the rows (lines {first}-{last})",
                line=first,
            )
    a, b = found
    assert a is not None and b is not None
    game_map = GameMap(width, height, bytes(rock), tuple(ore), (a, b))
    _check(game_map, source, row_lines)
    return game_map


def format_map(game_map: GameMap, *, ore_scale: int = DEFAULT_ORE_SCALE) -> str:
    """Write ``game_map`` in the text format; ``parse_map`` reads it back equal.

    The ``ore_scale = N`` line is written only when N is not the default 10.
    Raises MapError if some ore amount is not digit x ore_scale (digit 1..9),
    or if rock or a colony holds ore. Does not run ``check_map``.
    """
    if type(ore_scale) is not int or not 1 <= ore_scale <= MAX_ORE_SCALE:
        raise MapError(f"ore_scale must be an integer 1..{MAX_ORE_SCALE}, got {ore_scale!r}")
    w = game_map.width
    out: list[str] = []
    if ore_scale != DEFAULT_ORE_SCALE:
        out.append(f"ore_scale = {ore_scale}")
    for y in range(game_map.height):
        chars: list[str] = []
        for x in range(w):
            i = y * w + x
            amount = game_map.ore[i]
            side = game_map.colony_side(x, y)
            if side is not None or game_map.rock[i]:
                if amount:
                    raise MapError(
                        f"cell ({x}, {y}) holds ore {amount} on a colony or rock", cell=(x, y)
                    )
                chars.append(_SIDE_LETTERS[side] if side is not None else "#")
            elif amount == 0:
                chars.append(".")
            elif amount % ore_scale == 0 and 1 <= amount // ore_scale <= 9:
                chars.append(str(amount // ore_scale))
            else:
                raise MapError(
                    f"cell ({x}, {y}) holds ore {amount}, not a digit 1-9 times "
                    f"ore_scale {ore_scale}",
                    cell=(x, y),
                )
        out.append("".join(chars))
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- reachability


def _walkable(rock: Sequence[int], colonies: set[int]) -> int:
    """The bitmask (bit i is cell i) of the open cells that are not a colony."""
    bits = int(bytes(rock).translate(_OPEN_DIGITS)[::-1], 2)
    for c in colonies:
        bits &= ~(1 << c)
    return bits


def _reachable(walkable: int, width: int, height: int, starts: Sequence[int]) -> int:
    """The bitmask of the cells reachable 4-connected from ``starts`` through ``walkable``.

    A flood fill on bitmasks: each round takes every frontier cell's four
    neighbours at once (shifts by one column or one row; a column shift never
    wraps into the next row).
    """
    not_first, not_last = _column_masks(width, height)
    seen = 0
    for i in starts:
        seen |= 1 << i
    frontier = seen
    while frontier:
        grow = (
            ((frontier & not_last) << 1)
            | ((frontier & not_first) >> 1)
            | (frontier << width)
            | (frontier >> width)
        ) & walkable
        frontier = grow & ~seen
        seen |= frontier
    return seen


@functools.lru_cache(maxsize=16)
def _column_masks(width: int, height: int) -> tuple[int, int]:
    """Bitmasks of the cells not in the first column, and not in the last."""
    row = (1 << width) - 1
    every_row = sum(1 << (y * width) for y in range(height))
    return (row ^ 1) * every_row, (row >> 1) * every_row


def _cells_of(bits: int) -> list[int]:
    """The cells of a bitmask, ascending."""
    cells = []
    while bits:
        low = bits & -bits
        cells.append(low.bit_length() - 1)
        bits ^= low
    return cells
