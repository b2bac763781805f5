"""Golden files: the same inputs give the same bytes, on every machine, release after release.

A change that alters them is a change of the rules, the generator, the replay
format or wasmtime's fuel costs: bump the matching version, then regenerate with
``FORAY_REGENERATE_GOLDEN=1 pytest tests/test_golden.py`` and say why in the commit.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import arena
import sim
from tests._support import EXTRA, Builder, policy

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
    cfg = sim.Config(max_ticks=120, start_energy=40)
    g = sim.Game(sim.generate_map(2024), cfg)
    lines = []
    for _ in range(cfg.max_ticks):
        g.step([policy(g.observe(s), cfg.max_units) for s in (0, 1)])
        lines.append(f"{g.tick - 1} {g.checksum():016x}\n")
    _compare("scripted-checksums.txt", "".join(lines).encode())


def test_a_match_replay_is_golden(build_c: Builder) -> None:
    busy, idle = build_c(EXTRA / "busy.c"), build_c(EXTRA / "idle.c")
    result = arena.run_match(
        arena.Contestant("busy", busy),
        arena.Contestant("idle", idle),
        seed=77,
        config=sim.Config(max_ticks=60, start_energy=60),
    )
    _compare("busy-vs-idle-seed77.replay", result.replay)
