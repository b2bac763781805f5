"""Golden files: the same inputs give the same bytes, on every machine, release after release.

A change that alters them is a change of the rules, the generator, the replay
format or wasmtime's fuel costs: bump the matching version, then regenerate with
``FORAY_REGENERATE_GOLDEN=1 pytest tests/test_golden.py`` and say why in the commit.
The files of an older replay format version stay, and must still read and verify.
"""

from __future__ import annotations

import hashlib
import io
import os
from pathlib import Path

import msgpack
import pytest

import arena
import arena.match
import replays
import sim
from tests._support import EXTRA, Builder, cli, policy, require_native

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


def _golden_match(build_c: Builder, native: bool | None = None) -> arena.MatchResult:
    busy, idle = build_c(EXTRA / "busy.c"), build_c(EXTRA / "idle.c")
    return arena.match.run_match(
        arena.Contestant("busy", busy),
        arena.Contestant("idle", idle),
        seed=77,
        config=sim.Config(max_ticks=60, start_energy=60),
        native=native,
    )


@pytest.mark.parametrize("native", [True, False], ids=["native core", "pure rules"])
def test_a_match_replay_is_golden(build_c: Builder, native: bool) -> None:
    """On both tick loops, and verified on both rules (tests/test_native.py)."""
    if native:
        require_native(sim.native_unavailable() is None)
    result = _golden_match(build_c, native)
    assert replays.VERSION == 2
    _compare("busy-vs-idle-seed77-v2.replay", result.replay)
    assert replays.verify_replay(result.replay, native=native).ok


def _objects(data: bytes) -> list[dict[str, object]]:
    return list(msgpack.Unpacker(io.BytesIO(data), raw=False))


def test_a_version_1_replay_still_reads_and_verifies(build_c: Builder) -> None:
    """The same match recorded in format version 1: only the version and the checksums differ."""
    v1 = (GOLDEN / "busy-vs-idle-seed77-v1.replay").read_bytes()
    assert replays.read_replay(v1).header.version == 1
    assert replays.verify_replay(v1) == replays.VerifyReport(True, 60, None, None)
    v2 = _objects(_golden_match(build_c).replay)
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
    # run_match writes the version it is asked for, and version 2 by default.
    again = arena.match.run_match(
        arena.Contestant("busy", busy),
        arena.Contestant("idle", idle),
        seed=77,
        config=sim.Config(max_ticks=60, start_energy=60),
        replay_version=1,
    )
    assert again.replay == v1.read_bytes()
    assert _golden_match(build_c).replay == (GOLDEN / "busy-vs-idle-seed77-v2.replay").read_bytes()
