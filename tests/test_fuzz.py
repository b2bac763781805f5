"""Property-based fuzzing of the parsers that take untrusted input (issue 14, hostile input).

Each must give a result or its own clear error for any input, within bounded
time: the map parser (text and files), the contract's codec both ways (the
reply decoder and the action rules; the OBS message reader), and the push
bundle (any bytes, real bundles mutated byte by byte and field by field, and
huge declared lengths, which must cost no memory). The case manifest loader is
fuzzed in tests/test_cases.py (mutated manifests), the replay reader in
tests/test_replays.py (random bytes, huge lengths, deep nesting).
"""

from __future__ import annotations

import dataclasses
import struct
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import arena
import arena.match
import sim
import web
import web._bundle as web_bundle
from arena.match import ObservationError, decode_actions, decode_obs, encode_obs
from tests._support import GOLDEN_REPLAY, examples

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


@settings(max_examples=examples(300), deadline=None)
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


@pytest.mark.slow
@settings(max_examples=examples(300), deadline=None)
@given(map_like())
def test_map_shaped_text_is_a_map_or_a_map_error(text: str) -> None:
    _parses_or_refuses(text)


@settings(
    max_examples=examples(100),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(st.binary(max_size=2048))
def test_any_map_file_is_a_map_or_an_error_naming_the_file(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "fuzz.map"
    path.write_bytes(data)
    try:
        arena.match.load_map(path)
    except (sim.MapError, arena.ArenaError) as exc:
        assert str(path) in str(exc)


@settings(max_examples=examples(500), deadline=None)
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


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.tuples(*[st.integers(-(2**31), 2**31 - 1)] * 3), max_size=65))
def test_packed_records_decode_back(records: list[tuple[int, int, int]]) -> None:
    raw = b"".join(struct.pack("<3i", *r) for r in records)
    assert decode_actions(raw) == records


@pytest.mark.parametrize("size", [0, 11, 12 * 6553])
def test_reply_sizes_at_the_edges(size: int) -> None:
    records = decode_actions(bytes(size - size % 12))
    assert len(records) == size // 12


# --------------------------------------------------------------------------- OBS messages

OBS_HEADER = 64


def _obs_or_refused(message: bytes) -> None:
    try:
        obs, fuel = decode_obs(message)
    except ObservationError as exc:
        assert str(exc).startswith("OBS message: ")
        return
    # What is read is what the host writes: packed again, the same bytes
    # (the reserved words 10..15, which no reader looks at, written as zeros).
    expected = message[:40] + bytes(24) + message[OBS_HEADER:]
    assert encode_obs(obs, fuel) == expected


@settings(max_examples=examples(300), deadline=2000)
@given(st.binary(max_size=400))
def test_any_bytes_are_an_obs_message_or_an_observation_error(data: bytes) -> None:
    _obs_or_refused(data)


@st.composite
def obs_like(draw: st.DrawFn) -> bytes:
    """A header with counts (often consistent, sometimes huge or negative) and a body."""
    i32 = st.integers(-(2**31), 2**31 - 1)
    counts = [draw(st.one_of(st.integers(0, 4), i32)) for _ in range(3)]
    head = [draw(i32) for _ in range(6)] + counts + [draw(i32)] + [draw(st.integers(0, 1))] * 6
    body_words = 6 * max(0, counts[0]) + 6 * max(0, counts[1]) + 3 * max(0, counts[2])
    body_words = min(body_words, 200) + draw(st.sampled_from([0, 0, 0, -1, 1, 3]))
    body = struct.pack(f"<{max(0, body_words)}i", *([7] * max(0, body_words)))
    return struct.pack("<16i", *head) + body


@settings(max_examples=examples(300), deadline=2000)
@given(obs_like())
def test_obs_shaped_bytes_are_an_obs_message_or_an_observation_error(data: bytes) -> None:
    _obs_or_refused(data)


def test_obs_counts_in_the_billions_cost_nothing() -> None:
    head = struct.pack("<16i", 1, 0, 0, 0, 0, 0, 2**31 - 1, 2**31 - 1, 2**31 - 1, *[0] * 7)
    assert _peak_bytes(lambda: _refused_obs(head + bytes(24))) < 64 * 1024


def _refused_obs(message: bytes) -> None:
    with pytest.raises(ObservationError, match="make"):
        decode_obs(message)


# --------------------------------------------------------------------------- push bundles


def _peak_bytes(work: Callable[[], None]) -> int:
    """The most memory Python's allocators held at once while ``work`` ran, in bytes."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        work()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


SAMPLE = web.Bundle(
    case_slug="foray",
    case_version=1,
    manifest_sha256="ab" * 32,
    controller="my-bot",
    module=b"\0asm\x01\0\0\0" + bytes(64),
    outcome="win",
    reason=None,
    build_log="zig cc ... ok\n",
    matches=tuple(
        web.PushedMatch(
            opponent=name,
            role=role,
            result={"winner": 0, "reason": "score", "seed": seed, "ticks": 42},
            replay=GOLDEN_REPLAY.read_bytes()[:2000],
        )
        for name, role, seed in [("greedy-raider", "canonical", 1), ("random", "evidence", 2)]
    ),
)
"""A bundle of the real shape (decoding never reads a replay or compiles a module)."""


def _bundle_or_refused(data: bytes) -> None:
    started = time.monotonic()
    try:
        bundle = web.decode_bundle(data)
    except web.BundleError as exc:
        assert str(exc).startswith("bundle: ")
    else:
        assert web.decode_bundle(bundle.encode()) == bundle  # what is read is whole
    _bounded(started)


def test_the_sample_bundle_is_one() -> None:
    assert web.decode_bundle(SAMPLE.encode()) == SAMPLE


@settings(max_examples=examples(300), deadline=2000)
@given(st.binary(max_size=1024))
def test_any_bytes_are_a_bundle_or_a_bundle_error(data: bytes) -> None:
    _bundle_or_refused(data)


@st.composite
def byte_mutations(draw: st.DrawFn) -> bytes:
    """The sample's bytes with a few bytes flipped, cut, inserted or deleted."""
    data = bytearray(SAMPLE.encode())
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(data) - 1))
        kind = draw(st.sampled_from(["flip", "insert", "delete", "cut"]))
        if kind == "flip":
            data[at] ^= draw(st.integers(1, 255))
        elif kind == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=8))
        elif kind == "delete":
            del data[at : at + draw(st.integers(1, 8))]
        else:
            del data[at:]
        if not data:
            break
    return bytes(data)


@settings(max_examples=examples(300), deadline=2000)
@given(byte_mutations())
def test_real_bundles_mutated_byte_by_byte_are_bundles_or_errors(data: bytes) -> None:
    _bundle_or_refused(data)


WIRE_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False)
    | st.text(max_size=20)
    | st.binary(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=10,
)


@st.composite
def field_mutations(draw: st.DrawFn) -> bytes:
    """The sample's wire map with one field replaced, dropped or added (any msgpack value)."""
    wire = msgpack.unpackb(SAMPLE.encode(), raw=False)
    # Walk down to a map or array, then change one of its entries.
    node: Any = wire
    while True:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            break
        key = draw(st.sampled_from(keys))
        child = node[key]
        if isinstance(child, dict | list) and child and draw(st.booleans()):
            node = child
            continue
        action = draw(st.sampled_from(["replace", "drop", "add"]))
        if action == "replace":
            node[key] = draw(WIRE_VALUES)
        elif action == "drop":
            node.pop(key)
        elif isinstance(node, dict):
            node[draw(st.text(max_size=8))] = draw(WIRE_VALUES)
        else:
            node.append(draw(WIRE_VALUES))
        break
    packed: bytes = msgpack.packb(wire, use_bin_type=True)
    return packed


@settings(max_examples=examples(300), deadline=2000)
@given(field_mutations())
def test_real_bundles_mutated_field_by_field_are_bundles_or_errors(data: bytes) -> None:
    _bundle_or_refused(data)


# A header that declares 4 GiB (or 4 Gi items) where the sample has a small value.
HUGE = {
    "a string": b"\xdb\xff\xff\xff\xff",
    "binary data": b"\xc6\xff\xff\xff\xff",
    "an array": b"\xdd\xff\xff\xff\xff",
    "a map": b"\xdf\xff\xff\xff\xff",
    "an extension": b"\xc9\xff\xff\xff\xff\x01",
}


@pytest.mark.parametrize("declared", list(HUGE.values()), ids=list(HUGE))
@pytest.mark.parametrize("where", ["build_log", "module", "matches", "case"])
def test_huge_declared_lengths_are_refused_without_memory(declared: bytes, where: str) -> None:
    marker = "MARKER-" + where
    changed = {
        "build_log": dataclasses.replace(SAMPLE, build_log=marker),
        "module": dataclasses.replace(SAMPLE, controller=marker),
        "matches": dataclasses.replace(SAMPLE, outcome=marker),
        "case": dataclasses.replace(SAMPLE, case_slug=marker),
    }[where]
    data = changed.encode()
    packed = msgpack.packb(marker)
    assert data.count(packed) == 1
    data = data.replace(packed, declared + b"x" * 64)

    def decode() -> None:
        with pytest.raises(web.BundleError, match=r"^bundle: "):
            web.decode_bundle(data)

    assert _peak_bytes(decode) < 1024 * 1024 + 2 * len(data)


EIGHT_MIB = 8 * 1024 * 1024
HOSTILE_SHAPES = {
    # Each byte an empty array (or map) in one long array: a Python list (dict) per byte.
    "empty arrays": b"\xdd" + EIGHT_MIB.to_bytes(4, "big") + b"\x90" * EIGHT_MIB,
    "empty maps": b"\xdd" + EIGHT_MIB.to_bytes(4, "big") + b"\x80" * EIGHT_MIB,
    "arrays of arrays": b"\x9f" * EIGHT_MIB,
    "a map of nils": b"\xdf" + (EIGHT_MIB // 2).to_bytes(4, "big") + b"\xc0" * EIGHT_MIB,
    "nested maps": b"\x81\xa1a" * (EIGHT_MIB // 3),
}


@pytest.mark.parametrize("data", list(HOSTILE_SHAPES.values()), ids=list(HOSTILE_SHAPES))
def test_hostile_shapes_are_refused_before_anything_is_built(data: bytes) -> None:
    """8 MiB of nested or empty containers: refused by the walk over the bytes, which builds
    nothing (it was 580 MiB of lists, decoded on the server's loop)."""

    def decode() -> None:
        with pytest.raises(web.BundleError, match=r"^bundle: (over|nested over) "):
            web.decode_bundle(data)

    assert _peak_bytes(decode) < 1024 * 1024


def test_a_bundle_at_the_most_objects_and_levels_is_read() -> None:
    """The bounds leave room for a real run: the sample with its results as deep as the
    bound and as many matches as a run may hold."""
    deep: Any = 0
    for _ in range(web_bundle.MAX_DEPTH - 5):  # the top map, matches, a match, its result
        deep = [deep]
    many = dataclasses.replace(
        SAMPLE,
        matches=tuple(
            dataclasses.replace(SAMPLE.matches[0], result={"winner": 0, "deep": deep})
            for _ in range(web_bundle.MAX_MATCHES)
        ),
    )
    assert web.decode_bundle(many.encode()) == many
