"""Maps: text format, rule checker and seeded generator (rules §2)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from sim import (
    GENERATOR_VERSION,
    GameMap,
    MapError,
    check_map,
    format_map,
    generate_map,
    parse_map,
)
from tests._support import examples

MAPS = Path(__file__).parent / "maps"

# The top half of a valid 8x8 map; `sym` completes it by point symmetry.
TOP = [
    "........",
    ".A..1...",
    "...#....",
    "..2..9..",
]


def sym(top: list[str]) -> list[str]:
    """Complete a top half into a point-symmetric map (A mirrors to B)."""
    swap = str.maketrans("AB", "BA")
    return top + [row[::-1].translate(swap) for row in reversed(top)]


def text(rows: list[str], header: str = "") -> str:
    return header + "\n".join(rows) + "\n"


def set_cell(rows: list[str], x: int, y: int, ch: str) -> list[str]:
    out = list(rows)
    out[y] = out[y][:x] + ch + out[y][x + 1 :]
    return out


def error_of(source_text: str) -> MapError:
    with pytest.raises(MapError) as info:
        parse_map(source_text, "t.map")
    return info.value


# --------------------------------------------------------------------------- parse


def test_parse_fixture_map() -> None:
    m = parse_map((MAPS / "tiny.txt").read_text(), "tiny.txt")
    assert (m.width, m.height) == (8, 8)
    assert m.colonies == ((1, 1), (6, 6))
    assert m.is_rock(3, 2) and m.is_rock(4, 5)
    assert m.ore_at(4, 1) == 5  # digit 1 x ore_scale 5
    assert m.ore_at(5, 3) == 45
    assert m.ore_at(2, 4) == 45
    assert m.ore_at(1, 1) == 0 and m.ore_at(6, 6) == 0
    assert len(m.rock) == 64 and len(m.ore) == 64
    assert m.mirror(1, 1) == (6, 6)
    assert m.colony_side(6, 6) == 1 and m.colony_side(0, 0) is None
    assert m.is_open(0, 0) and not m.is_open(-1, 0) and not m.is_open(3, 2)


def test_parse_default_scale_and_crlf() -> None:
    m = parse_map(text(sym(TOP)).replace("\n", "\r\n"))
    assert m.ore_at(4, 1) == 10 and m.ore_at(5, 3) == 90


def test_header_comments_blank_lines_and_trailing_blank_lines() -> None:
    src = "\n; comment\n\nore_scale=3\n  ; indented comment\n" + text(sym(TOP)) + "\n\n  \n"
    assert parse_map(src).ore_at(4, 1) == 3


# --------------------------------------------------------------------------- parse errors


def test_too_few_rows() -> None:
    err = error_of(text(sym(TOP)[:7]))
    assert err.line == 1 and "height must be 8..64" in str(err) and "t.map:1:" in str(err)


def test_too_narrow_and_too_wide() -> None:
    err = error_of(text(["......."] * 8))
    assert err.line == 1 and "width must be 8..64" in str(err)
    err = error_of("; c\n" + text(["." * 65] * 8))
    assert err.line == 2 and "65 cells wide" in str(err)


def test_too_many_rows() -> None:
    rows = ["A" + "." * 7] + ["." * 8] * 63 + ["." * 7 + "B"]
    err = error_of(text(rows))
    assert err.line == 65 and "more than 64 rows" in str(err)


def test_ragged_row_names_line() -> None:
    rows = sym(TOP)
    rows[3] = rows[3][:-1]
    err = error_of("; x\n" + text(rows))
    assert err.line == 5 and "t.map:5:" in str(err) and "7 cells wide" in str(err)


def test_unknown_character_names_line_and_cell() -> None:
    err = error_of(text(set_cell(sym(TOP), 2, 2, "x")))
    assert err.line == 3 and err.cell == (2, 2)
    assert "'x'" in str(err) and "(2, 2)" in str(err) and "t.map:3:" in str(err)


def test_inner_space_is_unknown() -> None:
    err = error_of(text(set_cell(sym(TOP), 0, 0, " ")))
    assert err.cell == (0, 0)


def test_missing_colony() -> None:
    err = error_of(text(set_cell(sym(TOP), 6, 6, ".")))
    assert "no colony B" in str(err) and "lines 1-8" in str(err)
    err = error_of(text(set_cell(sym(TOP), 1, 1, ".")))
    assert "no colony A" in str(err)


def test_two_a_colonies_names_second() -> None:
    err = error_of(text(set_cell(sym(TOP), 6, 1, "A")))
    assert err.line == 2 and err.cell == (6, 1)
    assert "second colony A" in str(err) and "(1, 1)" in str(err)


def test_unknown_key() -> None:
    err = error_of("ore_scale = 10\nfog = 1\n" + text(sym(TOP)))
    assert err.line == 2 and "unknown key 'fog'" in str(err) and "t.map:2:" in str(err)


@pytest.mark.parametrize("value", ["0", "-3", "abc", "", "1.5", "99999999", "٣"])
def test_bad_ore_scale(value: str) -> None:
    err = error_of(f"; c\nore_scale = {value}\n" + text(sym(TOP)))
    assert err.line == 2 and "ore_scale" in str(err)


def test_duplicate_ore_scale() -> None:
    err = error_of("ore_scale = 2\nore_scale = 3\n" + text(sym(TOP)))
    assert err.line == 2


@pytest.mark.parametrize("tail", ["; late comment", "ore_scale = 5", "........"])
def test_text_after_rows(tail: str) -> None:
    err = error_of(text(sym(TOP)) + "\n" + tail + "\n")
    assert err.line == 10 and "only blank lines may follow the rows" in str(err)


def test_comment_inside_rows() -> None:
    rows = sym(TOP)
    err = error_of(text([*rows[:4], "; hi", *rows[4:]]))
    assert err.line == 5 and "before the rows" in str(err)


def test_no_rows() -> None:
    err = error_of("; only a comment\n\n")
    assert "no map rows" in str(err)


# --------------------------------------------------------------------------- rules


def test_asymmetric_terrain_names_first_cell_and_mirror() -> None:
    # Rock at (5, 2) but not at its mirror (2, 5): (5, 2) comes first row-major.
    err = error_of("; h\n" + text(set_cell(sym(TOP), 5, 2, "#")))
    msg = str(err)
    assert err.line == 4 and err.cell == (5, 2)
    assert "(5, 2) is rock" in msg and "mirror (2, 5)" in msg and "t.map:4:" in msg
    # The same fault in the bottom half is reported at the top-half mirror cell.
    err = error_of(text(set_cell(sym(TOP), 2, 5, "#")))
    assert err.line == 3 and err.cell == (5, 2) and "mirror (2, 5) is rock" in str(err)


def test_asymmetric_ore() -> None:
    err = error_of(text(set_cell(sym(TOP), 2, 4, "8")))
    msg = str(err)
    assert err.line == 4 and err.cell == (5, 3)
    assert "ore 90" in msg and "ore 80" in msg and "mirror (2, 4)" in msg


def test_colony_not_mirrored() -> None:
    rows = set_cell(set_cell(sym(TOP), 6, 6, "."), 5, 6, "B")
    err = error_of(text(rows))
    assert err.cell == (1, 1) and "mirror (6, 6)" in str(err) and "colony A" in str(err)


def test_colonies_too_close() -> None:
    rows = ["." * 8] * 8
    rows = set_cell(set_cell(rows, 3, 3, "A"), 4, 4, "B")
    err = error_of(text(rows))
    assert "2 apart" in str(err) and "at least 3" in str(err) and err.line == 5


def test_unreachable_cell() -> None:
    # (6, 2) is walled in by rock; its mirror pocket (1, 5) comes later.
    top = [
        "........",
        ".A....#.",
        ".....#.#",
        "..2..9#.",
    ]
    err = error_of(text(sym(top)))
    assert err.cell == (6, 2) and err.line == 3
    assert "(6, 2)" in str(err) and "unreachable" in str(err)


def test_colony_without_open_neighbour() -> None:
    top = [
        ".#......",
        "#A#.1...",
        ".#.#....",
        "..2..9..",
    ]
    err = error_of(text(sym(top)))
    assert "colony A" in str(err) and "no open neighbour" in str(err) and err.line == 2


def test_check_map_on_built_map() -> None:
    good = parse_map(text(sym(TOP)))
    check_map(good)
    ore = list(good.ore)
    ore[0] = 10  # (0, 0) only; its mirror (7, 7) stays empty
    bad = GameMap(good.width, good.height, good.rock, tuple(ore), good.colonies)
    with pytest.raises(MapError) as info:
        check_map(bad, where="built")
    assert str(info.value).startswith("built: ") and info.value.line is None
    assert info.value.cell == (0, 0)


def test_ore_on_rock_or_colony_refused() -> None:
    good = parse_map(text(sym(TOP)))
    ore = list(good.ore)
    ore[2 * 8 + 3] = 10  # rock at (3, 2)
    with pytest.raises(MapError, match=r"\(3, 2\) is rock but holds ore"):
        check_map(GameMap(8, 8, good.rock, tuple(ore), good.colonies))
    ore = list(good.ore)
    ore[1 * 8 + 1] = 10  # colony A
    with pytest.raises(MapError, match="colony A"):
        check_map(GameMap(8, 8, good.rock, tuple(ore), good.colonies))


def test_gamemap_shape_checked() -> None:
    with pytest.raises(MapError):
        GameMap(8, 8, bytes(63), (0,) * 64, ((0, 0), (7, 7)))
    with pytest.raises(MapError):
        GameMap(8, 8, bytes([2]) * 64, (0,) * 64, ((0, 0), (7, 7)))
    with pytest.raises(MapError):
        GameMap(8, 8, bytes(64), (-1,) * 64, ((0, 0), (7, 7)))
    with pytest.raises(MapError):
        GameMap(8, 8, bytes(64), (0,) * 64, ((0, 0), (8, 7)))


# --------------------------------------------------------------------------- format


def test_format_parse_round_trip() -> None:
    src = text(sym(TOP))
    m = parse_map(src)
    assert format_map(m) == src
    assert parse_map(format_map(m)) == m


def test_format_with_ore_scale() -> None:
    m = parse_map((MAPS / "tiny.txt").read_text())
    out = format_map(m, ore_scale=5)
    assert out.startswith("ore_scale = 5\n")
    assert parse_map(out) == m
    with pytest.raises(MapError, match=r"cell \(4, 1\) holds ore 5"):
        format_map(m)  # 5 is not a digit times 10


def test_format_refuses_out_of_range_digit() -> None:
    m = parse_map(text(sym(TOP)))
    with pytest.raises(MapError, match="not a digit"):
        format_map(m, ore_scale=5)  # 90 would need digit 18
    with pytest.raises(MapError):
        format_map(m, ore_scale=0)


# --------------------------------------------------------------------------- generator


def test_generator_deterministic_and_seed_sensitive() -> None:
    assert generate_map(7) == generate_map(7)
    assert generate_map(7, 20, 40) == generate_map(7, 20, 40)
    assert generate_map(7) != generate_map(8)
    assert generate_map(0) != generate_map(2**32 - 1)
    assert generate_map(7, 20, 40) != generate_map(7, 40, 20)


def test_generator_golden() -> None:
    # If this changes, the generator's output changed: bump GENERATOR_VERSION
    # (old replays name maps by seed) and update the digest.
    assert GENERATOR_VERSION == 1
    digest = hashlib.sha256(format_map(generate_map(12345, 32, 32)).encode()).hexdigest()
    assert digest == GOLDEN_32


GOLDEN_32 = "cd4736e399e7f8e66cae9b9e656111ebb93e5c9df63627c102b3fbd270ed9081"


@pytest.mark.parametrize("seed", [-1, 2**32, True, 1.0])
def test_generator_refuses_bad_seed(seed: object) -> None:
    with pytest.raises(MapError, match="seed"):
        generate_map(seed)  # type: ignore[arg-type]


@pytest.mark.parametrize(("width", "height", "name"), [(7, 32, "width"), (32, 65, "height")])
def test_generator_refuses_bad_size(width: int, height: int, name: str) -> None:
    with pytest.raises(MapError, match=name):
        generate_map(1, width, height)


def test_generator_colonies() -> None:
    assert generate_map(3).colonies == ((3, 3), (28, 28))
    assert generate_map(3, 8, 8).colonies == ((2, 2), (5, 5))
    assert generate_map(3, 9, 64).colonies == ((3, 3), (5, 60))


@settings(max_examples=examples(40), deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    width=st.integers(8, 64),
    height=st.integers(8, 64),
)
def test_generated_maps_are_legal_and_round_trip(seed: int, width: int, height: int) -> None:
    m = generate_map(seed, width, height)
    assert (m.width, m.height) == (width, height)
    check_map(m)
    assert all(a == 0 or (a % 10 == 0 and 10 <= a <= 90) for a in m.ore)
    assert parse_map(format_map(m)) == m


def test_rock_fraction() -> None:
    for seed in range(8):
        m = generate_map(seed, 32, 32)
        assert 0.08 <= sum(m.rock) / len(m.rock) <= 0.17, seed


def test_ore_richer_toward_centre() -> None:
    centre_total = centre_cells = edge_total = edge_cells = 0
    for seed in range(8):
        m = generate_map(seed, 32, 32)
        for y in range(32):
            for x in range(32):
                if 8 <= x < 24 and 8 <= y < 24:
                    centre_total += m.ore_at(x, y)
                    centre_cells += 1
                else:
                    edge_total += m.ore_at(x, y)
                    edge_cells += 1
    assert centre_total / centre_cells > 1.5 * (edge_total / edge_cells)


def test_colony_ring_clear() -> None:
    for seed in range(5):
        m = generate_map(seed)
        for cx, cy in m.colonies:
            for dy in (-1, 0, 1):
                for dx in (-1, 0, 1):
                    assert m.is_open(cx + dx, cy + dy)
                    assert m.ore_at(cx + dx, cy + dy) == 0
