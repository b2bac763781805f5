"""Property-based fuzzing of the parsers that take untrusted input (issue 14, hostile input).

Each must give a result or its own clear error for any input, within bounded
time: the map parser (text and files), the contract's reply decoder and the
action rules, and the case manifest loader (tests/test_cases.py fuzzes that one
with mutated manifests; random bytes here too). The replay reader has its own
(tests/test_replays.py).
"""

from __future__ import annotations

import struct
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import arena
import sim
from arena.match import decode_actions

ROW_CHARS = ".#AB123456789"
SECONDS = 5.0


def _bounded(started: float) -> None:
    assert time.monotonic() - started < SECONDS


def _parses_or_refuses(text: str) -> None:
    started = time.monotonic()
    try:
        m = sim.parse_map(text, source="fuzz")
    except sim.MapError as exc:
        assert str(exc).startswith("fuzz:")
    else:
        sim.check_map(m)  # what parses obeys every rule
    _bounded(started)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=600))
def test_any_text_is_a_map_or_a_map_error(text: str) -> None:
    _parses_or_refuses(text)


@st.composite
def map_like(draw: st.DrawFn) -> str:
    """Text shaped like a map (header lines, rows of map characters), often nearly valid."""
    width = draw(st.integers(6, 14))
    height = draw(st.integers(6, 14))
    rows = [
        "".join(draw(st.sampled_from(ROW_CHARS[:2] * 8 + ROW_CHARS)) for _ in range(width))
        for _ in range(height)
    ]
    header = draw(
        st.lists(st.sampled_from(["; note", "ore_scale = 5", "", "size = 9"]), max_size=3)
    )
    return "\n".join([*header, *rows]) + draw(st.sampled_from(["", "\n", "\n\n", "\nx"]))


@settings(max_examples=300, deadline=None)
@given(map_like())
def test_map_shaped_text_is_a_map_or_a_map_error(text: str) -> None:
    _parses_or_refuses(text)


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.binary(max_size=2048))
def test_any_map_file_is_a_map_or_an_error_naming_the_file(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "fuzz.map"
    path.write_bytes(data)
    try:
        arena.load_map(path)
    except (sim.MapError, arena.ArenaError) as exc:
        assert str(path) in str(exc)


@settings(max_examples=500, deadline=None)
@given(
    n=st.integers(-(2**31), 2**31 - 1),
    raw=st.binary(max_size=12 * 70).map(lambda b: b[: len(b) // 12 * 12]),
    roster=st.sets(st.integers(1, 70), max_size=64),
    max_units=st.integers(1, 64),
)
def test_any_reply_is_valid_or_names_the_broken_rule(
    n: int, raw: bytes, roster: set[int], max_units: int
) -> None:
    records = decode_actions(raw)
    assert len(records) == len(raw) // 12
    assert all(len(r) == 3 for r in records)
    verdict = sim.validate_actions(n, records, roster, max_units)
    if verdict is not None:
        assert verdict.startswith(("action count n", "record "))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(*[st.integers(-(2**31), 2**31 - 1)] * 3), max_size=65))
def test_packed_records_decode_back(records: list[tuple[int, int, int]]) -> None:
    raw = b"".join(struct.pack("<3i", *r) for r in records)
    assert decode_actions(raw) == records


@pytest.mark.parametrize("size", [0, 11, 12 * 6553])
def test_reply_sizes_at_the_edges(size: int) -> None:
    records = decode_actions(bytes(size - size % 12))
    assert len(records) == size // 12
