"""Golden files: the same inputs give the same bytes, on every machine, release after release.

A change that alters them is a change of the rules, the generator, the replay
format or wasmtime's fuel costs: bump the matching version, then regenerate with
``FORAY_REGENERATE_GOLDEN=1 pytest tests/test_golden.py`` and say why in the commit.
The files of an older replay format version stay, and must still read and verify.
"""

from __future__ import annotations

import hashlib
import io
import itertools
import os
from pathlib import Path

import msgpack
import pytest

import arena
import arena.match
import replays
import sim
from arena.sandbox import Limits
from tests._support import BOTS, EXTRA, Builder, cli, policy, require_native

GOLDEN = Path(__file__).resolve().parent / "golden"
REGENERATE = os.environ.get("FORAY_REGENERATE_GOLDEN") == "1"


def _compare(name: str, data: bytes) -> None:
    path = GOLDEN / name
    if REGENERATE:
        path.write_bytes(data)
    assert path.is_file(), f"{path.name} is missing: regenerate the golden files"
    golden = path.read_bytes()
    assert data == golden, (
        f"{name}: {len(data)} bytes (sha256 {hashlib.sha256(data).hexdigest()[:16]}) differ"
        f" from the golden {len(golden)} bytes (sha256 {hashlib.sha256(golden).hexdigest()[:16]})"
    )


def test_checksums_of_a_scripted_game_are_golden() -> None:
    """Both checksums: the current one, and format version 1's (its replays still verify)."""
    cfg = sim.Config(max_ticks=120, start_energy=40)
    g = sim.Game(sim.generate_map(2024), cfg)
    v1, v2 = [], []
    for _ in range(cfg.max_ticks):
        g.step([policy(g.observe(s), cfg.max_units) for s in (0, 1)])
        v1.append(f"{g.tick - 1} {g.checksum_v1():016x}\n")
        v2.append(f"{g.tick - 1} {g.checksum():016x}\n")
    _compare("scripted-checksums-v1.txt", "".join(v1).encode())
    _compare("scripted-checksums-v2.txt", "".join(v2).encode())


def _golden_match(
    build_c: Builder, native: bool | None = None, version: int = replays.VERSION
) -> arena.MatchResult:
    busy, idle = build_c(EXTRA / "busy.c"), build_c(EXTRA / "idle.c")
    return arena.match.run_match(
        arena.Contestant("busy", busy),
        arena.Contestant("idle", idle),
        seed=77,
        config=sim.Config(max_ticks=60, start_energy=60),
        native=native,
        replay_version=version,
    )


def _memory_forfeit(build_c: Builder, native: bool | None = None) -> arena.MatchResult:
    """A side that grows its memory a page every 3 ticks from tick 4, to a forfeit past a
    2 MiB cap (tests/bots/faulty.c, FAULT_GROW), against a busy one."""
    grow = build_c(BOTS / "faulty.c", "FAULT=9", "FAULT_TICK=4", "GROW_EVERY=3")
    return arena.match.run_match(
        arena.Contestant("grow", grow),
        arena.Contestant("busy", build_c(EXTRA / "busy.c")),
        seed=5,
        limits=Limits(max_memory_bytes=2 * 1024 * 1024),
        native=native,
    )


@pytest.mark.parametrize("native", [True, False], ids=["native core", "pure rules"])
def test_a_match_replay_is_golden(build_c: Builder, native: bool) -> None:
    """On both tick loops, and verified on both rules (tests/test_native.py): in the version
    written now, and in version 2, whose file keeps the bytes it had."""
    if native:
        require_native(sim.native_unavailable() is None)
    assert replays.VERSION == 3
    for version in (3, 2):
        result = _golden_match(build_c, native, version)
        _compare(f"busy-vs-idle-seed77-v{version}.replay", result.replay)
        assert replays.verify_replay(result.replay, native=native).ok


@pytest.mark.parametrize("native", [True, False], ids=["native core", "pure rules"])
def test_a_memory_forfeit_replay_is_golden(build_c: Builder, native: bool) -> None:
    """Memory over time (version 3): the sizes at each keyframe tick and each change, up
    to the one past the cap in the forfeit frame, on both tick loops and both rules."""
    if native:
        require_native(sim.native_unavailable() is None)
    result = _memory_forfeit(build_c, native)
    _compare("memory-forfeit-seed5-v3.replay", result.replay)
    assert replays.verify_replay(result.replay, native=native).ok
    replay = replays.read_replay(result.replay)
    forfeit = replay.result.sides[0].forfeit
    assert forfeit is not None and forfeit.kind == sim.ForfeitKind.MEMORY
    series = replays.memory_series(replay)
    assert series is not None
    grown, busy = series
    page, cap = 65_536, 2 * 1024 * 1024
    assert grown[-1] > cap and f"memory is {grown[-1]} bytes" in forfeit.detail
    assert grown[-2] <= cap and set(busy) == {busy[0]}
    # A page at ticks 4, 7, 10, ...: each frame carries "l" only then, and every 20 ticks.
    assert [t for t in range(1, len(grown)) if grown[t] != grown[t - 1]] == list(range(4, 50, 3))
    assert all(b - a in (0, page) for a, b in itertools.pairwise(grown))
    carrying = [f.tick for f in replay.frames if f.memory is not None]
    assert carrying == sorted({*range(4, 50, 3), 0, 20, 40})


def _objects(data: bytes) -> list[dict[str, object]]:
    return list(msgpack.Unpacker(io.BytesIO(data), raw=False))


def test_a_version_1_replay_still_reads_and_verifies(build_c: Builder) -> None:
    """The same match recorded in format version 1: only the version and the checksums differ."""
    v1 = (GOLDEN / "busy-vs-idle-seed77-v1.replay").read_bytes()
    assert replays.read_replay(v1).header.version == 1
    assert replays.verify_replay(v1) == replays.VerifyReport(True, 60, None, None)
    v2 = _objects(_golden_match(build_c, version=2).replay)
    old = _objects(v1)
    assert len(old) == len(v2)
    assert old[0] == {**v2[0], "version": 1}
    for tick, (a, b) in enumerate(zip(old[1:-1], v2[1:-1], strict=True)):
        assert a["x"] != b["x"], tick
        assert {**a, "x": 0} == {**b, "x": 0}
    assert old[-1] == v2[-1]
    # Verification checks a version-1 file against version 1's checksum.
    tampered = old[:]
    tampered[5] = {**old[5], "x": v2[5]["x"]}
    packer = msgpack.Packer(use_bin_type=True)
    report = replays.verify_replay(b"".join(packer.pack(o) for o in tampered))
    assert (report.ok, report.mismatch_tick) == (False, 4)


def test_a_version_1_replay_is_proved_by_its_modules(
    build_c: Builder, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--modules`` plays the match again in the file's own format version, byte for byte."""
    v1 = GOLDEN / "busy-vs-idle-seed77-v1.replay"
    busy, idle = build_c(EXTRA / "busy.c"), build_c(EXTRA / "idle.c")
    rematch = arena.match.rematch(v1.read_bytes(), busy, idle)
    assert rematch.report == replays.VerifyReport(True, 60, None, None)
    assert rematch.result is not None and rematch.result.replay == v1.read_bytes()
    modules = []
    for name, blob in (("busy", busy), ("idle", idle)):
        modules.append(tmp_path / f"{name}.wasm")
        modules[-1].write_bytes(blob)
    out = cli(capsys, "replay", "verify", str(v1), "--modules", *map(str, modules), "--json")
    assert out.code == 0, out.out + out.err
    assert out.json() == {"ok": True, "ticks": 60, "mismatch_tick": None}
    # run_match writes the version it is asked for, and version 3 by default.
    again = arena.match.run_match(
        arena.Contestant("busy", busy),
        arena.Contestant("idle", idle),
        seed=77,
        config=sim.Config(max_ticks=60, start_energy=60),
        replay_version=1,
    )
    assert again.replay == v1.read_bytes()
    assert _golden_match(build_c).replay == (GOLDEN / "busy-vs-idle-seed77-v3.replay").read_bytes()


def test_version_3_is_version_2_with_each_sides_memory(build_c: Builder) -> None:
    """The same match in both: the header's version and the frames' "l" alone differ."""
    v2, v3 = (_objects(_golden_match(build_c, version=v).replay) for v in (2, 3))
    assert v3[0] == {**v2[0], "version": 3}
    assert [{k: v for k, v in f.items() if k != "l"} for f in v3[1:]] == v2[1:]
    # busy and idle never grow: their sizes come at the keyframe ticks alone.
    assert [f["t"] for f in v3[1:-1] if "l" in f] == [0, 20, 40]
    assert list(v3[1]) == ["t", "a", "f", "l", "u", "g", "k", "b", "e", "o", "v", "x"]


def test_memory_is_proved_by_the_modules(build_c: Builder) -> None:
    """The replay alone cannot tell a size that grew a tick later; playing the modules
    again can: its frames are byte for byte the file's, "l" included."""
    golden = (GOLDEN / "memory-forfeit-seed5-v3.replay").read_bytes()
    grow = build_c(BOTS / "faulty.c", "FAULT=9", "FAULT_TICK=4", "GROW_EVERY=3")
    busy = build_c(EXTRA / "busy.c")
    assert arena.match.rematch(golden, grow, busy).report.ok
    objects = _objects(golden)
    del objects[1 + 7]["l"]  # the page grown in tick 7 shows in tick 10's frame instead
    later = b"".join(msgpack.packb(o, use_bin_type=True) for o in objects)
    assert replays.verify_replay(later).ok
    report = arena.match.rematch(later, grow, busy).report
    assert (report.ok, report.mismatch_tick) == (False, 7)
