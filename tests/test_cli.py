"""The command line as a user types it: exit codes, messages and JSON keys."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import EXTRA, Builder


def arena(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args], capture_output=True, text=True, cwd=cwd, check=False
    )


def test_map_generate_then_check(tmp_path: Path) -> None:
    gen = arena("map", "generate", "--seed", "7", "--width", "20", "--height", "16")
    assert gen.returncode == 0
    rows = [line for line in gen.stdout.splitlines() if line and not line.startswith(";")]
    assert len(rows) == 16 and all(len(r) == 20 for r in rows)
    path = tmp_path / "g.map"
    path.write_text(gen.stdout)
    check = arena("map", "check", str(path))
    assert check.returncode == 0 and "20x16" in check.stdout


def test_map_check_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.map"
    path.write_text("A.......\n" + "........\n" * 6 + ".......X\n")
    check = arena("map", "check", str(path))
    assert check.returncode == 1
    assert f"{path}:8:" in check.stderr and "X" in check.stderr


def test_map_generate_refuses_a_bad_seed() -> None:
    out = arena("map", "generate", "--seed", str(2**32))
    assert out.returncode == 2 and "unsigned 32-bit" in out.stderr


def test_check_json(tmp_path: Path, idle: bytes) -> None:
    good = tmp_path / "idle.wasm"
    good.write_bytes(idle)
    out = arena("check", str(good), "--json")
    assert out.returncode == 0
    report = json.loads(out.stdout)
    assert report == {"admissible": True, "sha256": report["sha256"], "reason": None}
    bad = tmp_path / "bad.wasm"
    bad.write_bytes(b"not wasm at all")
    out = arena("check", str(bad), "--json")
    assert out.returncode == 1
    report = json.loads(out.stdout)
    assert report["admissible"] is False and report["reason"]


def test_match_with_an_unknown_controller_says_so() -> None:
    out = arena("match", "no-such-bot", "no-such-bot-either")
    assert out.returncode == 2
    assert "'no-such-bot' is neither a .wasm file nor a baseline" in out.stderr


def test_match_writes_its_replay_and_verify_accepts_it(tmp_path: Path, build_c: Builder) -> None:
    busy = tmp_path / "busy.wasm"
    busy.write_bytes(build_c(EXTRA / "busy.c"))
    replay = tmp_path / "m.replay"
    out = arena(
        "match", str(busy), str(busy), "--max-ticks", "30", "--replay", str(replay), "--json"
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["ticks"] == 30 and result["replay"] == str(replay)
    ok = arena("replay", "verify", str(replay), "--json")
    assert ok.returncode == 0 and json.loads(ok.stdout) == {
        "ok": True,
        "ticks": 30,
        "mismatch_tick": None,
    }
    data = bytearray(replay.read_bytes())
    data[len(data) // 2] ^= 0xFF
    broken = tmp_path / "broken.replay"
    broken.write_bytes(bytes(data))
    bad = arena("replay", "verify", str(broken), "--json")
    assert bad.returncode == 1 and json.loads(bad.stdout)["ok"] is False


def test_match_default_replay_goes_to_the_data_dir(tmp_path: Path, idle: bytes) -> None:
    wasm = tmp_path / "idle.wasm"
    wasm.write_bytes(idle)
    out = arena("match", str(wasm), str(wasm), "--max-ticks", "5", "--json", cwd=tmp_path)
    result = json.loads(out.stdout)
    path = tmp_path / result["replay"]
    assert path.parent == tmp_path / "data" / "replays"
    assert path.name == f"{result['replay_sha256']}.replay" and path.is_file()


def test_python_dash_m_and_help() -> None:
    out = arena("--help")
    assert out.returncode == 0 and "match" in out.stdout


def test_map_check_refuses_binary_and_huge_files(tmp_path: Path) -> None:
    binary = tmp_path / "bin.map"
    binary.write_bytes(b"A\xff\xfe....\n")
    out = arena("map", "check", str(binary))
    assert out.returncode == 1 and "not UTF-8" in out.stderr
    huge = tmp_path / "huge.map"
    huge.write_text(";" * 70_000 + "\n")
    out = arena("map", "check", str(huge))
    assert out.returncode == 1 and "larger than" in out.stderr
    missing = arena("match", "random", "random", "--map", str(tmp_path / "nope.map"))
    assert missing.returncode == 2 and "nope.map: cannot read the map" in missing.stderr


def test_bench_prints_its_figures() -> None:
    # A smoke test: the figures themselves are never asserted (docs/benchmarks.md).
    out = arena("bench", "sim", "--quick")
    assert out.returncode == 0, out.stderr
    assert "48 units per side" in out.stdout and "ticks/s" in out.stdout


def test_host_overhead_bench_runs(idle: bytes) -> None:
    import sim
    from arena._bench_match import host_overhead_us

    us, size, records = host_overhead_us(idle, sim.Game(sim.generate_map(1), sim.Config()), 50)
    assert us > 0 and size > 64 and records == 0


def test_demo_plays_every_pairing_and_verifies_each_replay(tmp_path: Path) -> None:
    out = arena("demo", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("verified") == 12 and "VERIFY FAILED" not in out.stdout
    assert len(list((tmp_path / "data" / "replays").glob("*.replay"))) == 12


@pytest.mark.parametrize("name", ["random", "border-soldier", "greedy-raider", "fuel-probe"])
def test_check_accepts_baseline_names(name: str) -> None:
    out = arena("check", name, "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["admissible"] is True


def test_match_accepts_baseline_names(tmp_path: Path) -> None:
    replay = tmp_path / "m.replay"
    out = arena(
        "match", "border-soldier", "greedy-raider", "--seed", "3", "--replay", str(replay), "--json"
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert [s["name"] for s in result["sides"]] == ["border-soldier", "greedy-raider"]
    assert all(s["forfeit"] is None for s in result["sides"])
    assert arena("replay", "verify", str(replay)).returncode == 0


def test_check_reads_a_bounded_prefix_of_an_endless_file() -> None:
    out = arena("check", "/dev/zero", "--json")
    assert out.returncode == 1
    assert "over the 8388608-byte (8 MiB) limit" in json.loads(out.stdout)["reason"]


def test_verify_refuses_an_endless_file_without_hanging() -> None:
    out = arena("replay", "verify", "/dev/zero", "--json")
    assert out.returncode == 1 and json.loads(out.stdout)["ok"] is False


def test_baselines_build_check_passes_on_the_committed_modules() -> None:
    out = arena("baselines", "build", "--check")
    assert out.returncode == 0, out.stderr
    assert "all baselines match a rebuild from source" in out.stdout
