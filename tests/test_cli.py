"""The command line as a user types it: exit codes, messages and JSON keys.

Commands run in this process (``arena.cli.main`` with captured output); a few
smoke tests at the end start ``python -m arena`` as its own process.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgpack
import pytest
import zstandard

import arena
import replays
from tests._support import EXTRA, Builder, cli, cli_process, require_native

Capture = pytest.CaptureFixture[str]


def test_map_generate_then_check(capsys: Capture, tmp_path: Path) -> None:
    gen = cli(capsys, "map", "generate", "--seed", "7", "--width", "20", "--height", "16")
    assert gen.code == 0
    rows = [line for line in gen.out.splitlines() if line and not line.startswith(";")]
    assert len(rows) == 16 and all(len(r) == 20 for r in rows)
    path = tmp_path / "g.map"
    path.write_text(gen.out)
    check = cli(capsys, "map", "check", str(path))
    assert check.code == 0 and "20x16" in check.out


def test_map_check_names_the_line(capsys: Capture, tmp_path: Path) -> None:
    path = tmp_path / "bad.map"
    path.write_text("A.......\n" + "........\n" * 6 + ".......X\n")
    check = cli(capsys, "map", "check", str(path))
    assert check.code == 1
    assert f"{path}:8:" in check.err and "X" in check.err


def test_map_generate_refuses_a_bad_seed(capsys: Capture) -> None:
    out = cli(capsys, "map", "generate", "--seed", str(2**32))
    assert out.code == 2 and "unsigned 32-bit" in out.err


def test_check_json(capsys: Capture, tmp_path: Path, idle: bytes) -> None:
    good = tmp_path / "idle.wasm"
    good.write_bytes(idle)
    out = cli(capsys, "check", str(good), "--json")
    assert out.code == 0
    report = out.json()
    assert report == {"admissible": True, "sha256": report["sha256"], "reason": None}
    bad = tmp_path / "bad.wasm"
    bad.write_bytes(b"not wasm at all")
    out = cli(capsys, "check", str(bad), "--json")
    assert out.code == 1
    report = out.json()
    assert report["admissible"] is False and "bad magic bytes" in report["reason"]


def test_check_gives_assemblyscript_its_own_fix(
    capsys: Capture, tmp_path: Path, zoo: dict[str, bytes]
) -> None:
    """asc's default build imports env.abort: the fix is asc's flags, not C's."""
    module = tmp_path / "as.wasm"
    module.write_bytes(zoo["imports_assemblyscript"])
    out = cli(capsys, "check", str(module))
    assert out.code == 1
    assert out.out.startswith("as: not admissible: 3 imports are not allowed (env.abort,")
    assert "in AssemblyScript, build with asc --runtime stub --use abort=" in out.out
    assert "zig cc" not in out.out


def test_match_with_an_unknown_controller_says_so(capsys: Capture) -> None:
    out = cli(capsys, "match", "no-such-bot", "no-such-bot-either")
    assert out.code == 2
    assert "'no-such-bot' is neither a .wasm file nor a baseline" in out.err


def test_a_baseline_name_wins_over_a_file_of_that_name(
    capsys: Capture, tmp_path: Path, idle: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "random").write_bytes(idle)
    baseline = hashlib.sha256(arena.load_baseline("random")).hexdigest()
    out = cli(capsys, "match", "random", "./random", "--max-ticks", "2", "--no-record", "--json")
    assert out.code == 0, out.err
    a, b = out.json()["sides"]
    assert out.json()["replay"] == "" and out.json()["id"] is None  # --no-record: no file
    assert (a["name"], a["sha256"]) == ("random", baseline)
    assert (b["name"], b["sha256"]) == ("random", hashlib.sha256(idle).hexdigest())


def test_match_writes_its_replay_and_verify_accepts_it(
    capsys: Capture, tmp_path: Path, build_c: Builder
) -> None:
    busy = tmp_path / "busy.wasm"
    busy.write_bytes(build_c(EXTRA / "busy.c"))
    replay = tmp_path / "m.replay"
    args = ("match", str(busy), str(busy), "--max-ticks", "30", "--replay", str(replay), "--json")
    out = cli(capsys, *args)
    assert out.code == 0, out.err
    result = out.json()
    assert result["ticks"] == 30 and result["replay"] == str(replay)
    ok = cli(capsys, "replay", "verify", str(replay), "--json")
    assert ok.code == 0 and ok.json() == {"ok": True, "ticks": 30, "mismatch_tick": None}
    data = bytearray(replay.read_bytes())
    data[len(data) // 2] ^= 0xFF
    broken = tmp_path / "broken.replay"
    broken.write_bytes(bytes(data))
    bad = cli(capsys, "replay", "verify", str(broken), "--json")
    assert bad.code == 1 and bad.json()["ok"] is False
    # The JSON keeps the design's keys; why it failed is said on stderr, naming the file.
    assert set(bad.json()) == {"ok", "ticks", "mismatch_tick"}
    assert bad.err.startswith(f"{broken}: FAILED: ")
    assert len(bad.err.strip()) > len(f"{broken}: FAILED: ")


def test_match_default_replay_goes_to_the_data_dir(
    capsys: Capture, tmp_path: Path, idle: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FORAY_DATA_DIR", raising=False)
    wasm = tmp_path / "idle.wasm"
    wasm.write_bytes(idle)
    out = cli(capsys, "match", str(wasm), str(wasm), "--max-ticks", "5", "--json")
    assert out.code == 0, out.err
    result = out.json()
    path = tmp_path / result["replay"]
    assert path.parent == tmp_path / "data" / "replays"
    assert path.name == f"{result['replay_sha256']}.replay" and path.is_file()


def test_match_keeps_the_default_case_beside_the_compiled_modules(
    capsys: Capture, tmp_path: Path, idle: bytes, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The loaded case goes to the disk cache (``$FORAY_CACHE_DIR``, else the data
    directory's ``cache/``), as the compiled modules do, even with --no-record."""
    wasm = tmp_path / "idle.wasm"
    wasm.write_bytes(idle)
    args = ("match", str(wasm), str(wasm), "--max-ticks", "1", "--no-record")
    monkeypatch.delenv("FORAY_CACHE_DIR")  # the tests' shared cache
    assert cli(capsys, *args).code == 0
    (entry,) = (data_dir / "cache" / "cases").glob("*.case")
    monkeypatch.setenv("FORAY_CACHE_DIR", str(tmp_path / "elsewhere"))
    assert cli(capsys, *args).code == 0
    assert [p.name for p in (tmp_path / "elsewhere" / "cases").glob("*.case")] == [entry.name]


def test_match_prints_a_readable_summary(capsys: Capture, tmp_path: Path) -> None:
    replay = tmp_path / "m.replay"
    out = cli(capsys, "match", "random", "border-soldier", "--replay", str(replay))
    assert out.code == 0, out.err
    lines = out.out.splitlines()
    assert "after 400 ticks, seed 0" in lines[0] or "sweep" in lines[0]
    assert lines[1].startswith("  A random: banked ") and lines[2].startswith("  B border-soldier")
    assert lines[3] == f"  replay: {replay}"


def test_map_check_refuses_binary_and_huge_files(capsys: Capture, tmp_path: Path) -> None:
    binary = tmp_path / "bin.map"
    binary.write_bytes(b"A\xff\xfe....\n")
    out = cli(capsys, "map", "check", str(binary))
    assert out.code == 1 and "not UTF-8" in out.err
    huge = tmp_path / "huge.map"
    huge.write_text(";" * 70_000 + "\n")
    out = cli(capsys, "map", "check", str(huge))
    assert out.code == 1 and "larger than" in out.err
    missing = cli(capsys, "match", "random", "random", "--map", str(tmp_path / "nope.map"))
    assert missing.code == 2 and "nope.map: cannot read the map" in missing.err


def test_a_broken_map_is_an_operator_error_for_match(capsys: Capture, tmp_path: Path) -> None:
    path = tmp_path / "bad.map"
    path.write_text("A.......\n" + "........\n" * 7)
    out = cli(capsys, "match", "random", "random", "--map", str(path))
    assert out.code == 2 and "no colony B" in out.err


def test_a_host_bug_is_not_an_operator_error(
    capsys: Capture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the project's own error types exit 2; anything else shows its traceback."""
    import sim

    def broken(*args: object) -> None:
        raise ValueError("a bug in the host")

    monkeypatch.setattr(sim, "generate_map", broken)
    with pytest.raises(ValueError, match="a bug in the host"):
        cli(capsys, "map", "generate")


def test_bench_prints_its_figures(capsys: Capture) -> None:
    # A smoke test: the figures themselves are never asserted (docs/benchmarks.md).
    out = cli(capsys, "bench", "sim", "--quick")
    assert out.code == 0, out.err
    assert "48 units per side" in out.out and "ticks/s" in out.out


def test_host_overhead_bench_runs(idle: bytes) -> None:
    import sim
    from arena.bench import host_overhead_us

    us, size, records = host_overhead_us(idle, sim.Game(sim.generate_map(1), sim.Config()), 50)
    assert us > 0 and size > 64 and records == 0


@pytest.mark.slow
def test_the_replay_size_bench_prints_the_stored_size_beside_zstd_19(capsys: Capture) -> None:
    from arena.bench._match import replay_size_figures

    figures = replay_size_figures(1, ticks=40)
    out = capsys.readouterr().out
    assert "stored (zstd level 3)" in out and "floor: zstd -19 of the raw file" in out
    assert 0 < figures["zstd19_bytes_per_tick"] <= figures["stored_bytes_per_tick"]
    assert figures["stored_bytes_per_tick"] < figures["raw_bytes_per_tick"]
    assert figures["verify_stored_ticks_per_s"] > 0


def test_store_bench_runs(capsys: Capture, idle: bytes) -> None:
    from arena.bench import store_figures

    store_figures(1, calls=4, idle=idle)
    out = capsys.readouterr().out
    assert "record a match with a new replay file" in out and "us CPU" in out


def test_the_part_figures_cover_every_part(idle: bytes) -> None:
    # The script arena bench runs in child processes, here in this one; figures unasserted.
    from arena.bench import PART_NAMES, measure_parts

    figures = measure_parts({"idle": idle}, idle, repeat=1)
    assert figures["one_pass_obs"] is True
    idle_figures = figures["scenarios"]["idle"]
    assert set(idle_figures["parts"]) == set(PART_NAMES)
    assert idle_figures["ticks"] == 400 and idle_figures["tick_us"] > 0
    assert set(figures["checksum_us"]) == {"32x32", "64x64"}
    # This tree has the native core: both tick loops, the floor, both replay checks.
    require_native(figures["native"])
    assert set(idle_figures["native"]["parts"]) == set(PART_NAMES)
    assert idle_figures["native"]["tick_us"] > 0 and idle_figures["floor_us"] > 0
    for rules in ("pure", "native"):
        assert set(idle_figures["verify"][rules]) == {"verify", "floor"}
    assert set(figures["native_checksum_us"]) == {"32x32", "64x64"}


def test_host_time_is_the_least_tick_less_the_least_wasm() -> None:
    # Two rounds: the second's wasm was slowed by the machine, so its own difference is below
    # nothing; the host time is each figure's least, the one less the other.
    from arena.bench._compare import _host_us, _least

    def round_(tick: float, native_tick: float, wasm: float) -> dict[str, Any]:
        scenario = {"tick_us": tick, "wasm_us": wasm, "native": {"tick_us": native_tick}}
        return {"scenarios": {"border-soldier": scenario}}

    rounds = [(110.0, 26.0, 18.0), (112.0, 24.0, 27.0)]
    assert min(native - wasm for _, native, wasm in rounds) < 0  # what was printed
    scenario = _least(round_(*rounds[0]), round_(*rounds[1]))["scenarios"]["border-soldier"]
    assert _host_us(scenario) == 110.0 - 18.0
    assert _host_us({**scenario, **scenario["native"]}) == 24.0 - 18.0


def test_bench_before_must_be_a_checkout(capsys: Capture, tmp_path: Path) -> None:
    out = cli(capsys, "bench", "parts", "--before", str(tmp_path))
    assert out.code == 2 and "not a checkout of the project" in out.err


@pytest.mark.processes
def test_demo_stores_a_round_robin_and_verifies_each_replay(
    capsys: Capture, data_dir: Path
) -> None:
    from arena.store import Store

    out = cli(capsys, "demo", "--no-serve")
    assert out.code == 0, out.err
    assert "12 of 12 verified by re-simulation" in out.out and "VERIFY FAILED" not in out.out
    assert "finished, 12/12 matches" in out.out
    # The template proved against the Foray case: one run of four matches.
    assert len(list((data_dir / "replays").glob("*.replay"))) == 12 + 4
    with Store.open(data_dir) as store:
        (run,) = store.runs()
        assert (run.controller, run.matches) == ("template", 4)
        # Published, both, with every match: the site shows them to a newcomer.
        assert run.published and store.tournaments()[0].published
        assert len(store.matches(published_only=True, limit=500)) == 12 + 4
        (tournament,) = store.tournaments()
        assert (tournament.format, str(tournament.status), tournament.matches) == (
            "round-robin",
            "finished",
            12,
        )
        assert [e.name for e in tournament.field] == [
            "random",
            "border-soldier",
            "greedy-raider",
            "fuel-probe",
        ]


@pytest.mark.parametrize("name", ["random", "border-soldier", "greedy-raider", "fuel-probe"])
def test_check_accepts_baseline_names(capsys: Capture, name: str) -> None:
    out = cli(capsys, "check", name, "--json")
    assert out.code == 0, out.err
    assert out.json()["admissible"] is True


def test_match_accepts_baseline_names(capsys: Capture, tmp_path: Path) -> None:
    replay = tmp_path / "m.replay"
    args = ("border-soldier", "greedy-raider", "--seed", "3", "--replay", str(replay), "--json")
    out = cli(capsys, "match", *args)
    assert out.code == 0, out.err
    result = out.json()
    assert [s["name"] for s in result["sides"]] == ["border-soldier", "greedy-raider"]
    assert all(s["forfeit"] is None for s in result["sides"])
    assert cli(capsys, "replay", "verify", str(replay)).code == 0


def test_check_refuses_a_device_without_reading_it(capsys: Capture) -> None:
    out = cli(capsys, "check", "/dev/zero", "--json")
    assert out.code == 2
    assert out.err == "error: /dev/zero: the module is a device, not a regular file\n"


def test_verify_refuses_a_device_without_reading_it(capsys: Capture) -> None:
    out = cli(capsys, "replay", "verify", "/dev/zero", "--json")
    assert out.code == 2
    assert out.err == "error: /dev/zero: the replay is a device, not a regular file\n"


def test_baselines_build_check_passes_on_the_committed_modules(capsys: Capture) -> None:
    out = cli(capsys, "baselines", "build", "--check")
    assert out.code == 0, out.err
    assert "all baselines match a rebuild from source" in out.out


# --------------------------------------------------------------------------- as a process


@pytest.mark.processes
def test_python_dash_m_and_help() -> None:
    out = cli_process("--help")
    assert out.returncode == 0 and "match" in out.stdout


@pytest.mark.processes
def test_a_whole_match_as_a_process(tmp_path: Path) -> None:
    replay = tmp_path / "m.replay"
    out = cli_process("match", "random", "random", "--max-ticks", "3", "--replay", str(replay))
    assert out.returncode == 0, out.stderr
    assert replay.is_file() and "after 3 ticks" in out.stdout


def test_a_one_off_match_imports_no_pairing_no_workers(tmp_path: Path) -> None:
    """``arena match`` plays in its own process: networkx, trio and the entry points stay out."""
    replay = str(tmp_path / "m.replay")
    code = (
        "import json, sys; from arena.cli import main; "
        f"main(['match', 'random', 'random', '--max-ticks', '2', '--replay', {replay!r}]); "
        "print(json.dumps(sorted(m for m in ('networkx', 'trio', 'trio_parallel', "
        "'importlib.metadata') if m in sys.modules)))"
    )
    env = {**os.environ, "FORAY_DATA_DIR": str(tmp_path / "data")}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.splitlines()[-1]) == []
    assert (tmp_path / "m.replay").is_file()


@pytest.mark.processes
def test_an_operator_error_as_a_process() -> None:
    out = cli_process("match", "no-such-bot", "random")
    assert out.returncode == 2 and out.stderr.startswith("error: ")
    assert "Traceback" not in out.stderr


V128 = {
    "v128_tick": "export foray_tick has type (v128) -> (), expected (i32) -> i32",
    "v128_buffer": "export foray_buffer has type () -> v128, expected () -> i32",
    "v128_note": "export foray_note has type () -> v128, expected () -> i32",
}
"""Zoo modules with a v128 in a contract export's signature, and the refusal each must get:
wasmtime's C API aborts the process (SIGABRT, no output) when asked the kind of a v128."""


@pytest.mark.processes
@pytest.mark.parametrize("name", sorted(V128))
def test_a_v128_signature_is_refused_by_every_command_as_a_process(
    tmp_path: Path, zoo: dict[str, bytes], name: str
) -> None:
    module = tmp_path / f"{name}.wasm"
    module.write_bytes(zoo[name])

    check = cli_process("check", str(module), "--json")
    assert check.returncode == 1, check.stderr
    report = json.loads(check.stdout)
    assert report["admissible"] is False and V128[name] in report["reason"]

    match = cli_process("match", str(module), "random", "--max-ticks", "3", "--json")
    assert match.returncode == 0, match.stderr
    forfeit = json.loads(match.stdout)["sides"][0]["forfeit"]
    assert forfeit["kind"] == "init" and forfeit["tick"] == 0
    assert forfeit["detail"].startswith("module not admissible: ")
    assert V128[name] in forfeit["detail"]

    project = tmp_path / "bot"
    project.mkdir()
    (project / "build.sh").write_text(f"cp {module} controller.wasm\n")
    build = cli_process("build", str(project), "--json")
    assert build.returncode == 1, build.stderr
    built = json.loads(build.stdout)
    assert built["ok"] is False and built["status"] == "failed"
    assert built["reason"].startswith("controller.wasm is not admissible: ")
    assert V128[name] in built["reason"]


# --------------------------------------------------------------------------- hostile paths


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.wasm"
    os.mkfifo(path)
    return path


def test_a_fifo_is_refused_without_blocking(capsys: Capture, fifo: Path) -> None:
    """Nobody writes to the FIFO: reading it would block forever."""
    for args, what in (
        (("check", str(fifo)), "module"),
        (("map", "check", str(fifo)), "map"),
        (("match", "random", "random", "--map", str(fifo)), "map"),
        (("replay", "verify", str(fifo)), "replay"),
        (("replay", "verify", str(fifo), "--modules", "random", "random"), "replay"),
    ):
        out = cli(capsys, *args)
        assert out.code == 2, args
        assert out.err == f"error: {fifo}: the {what} is a FIFO, not a regular file\n"


def test_map_check_exit_codes(capsys: Capture, tmp_path: Path) -> None:
    missing = cli(capsys, "map", "check", str(tmp_path / "nope.map"))
    assert missing.code == 2 and "nope.map: cannot read the map" in missing.err
    directory = cli(capsys, "map", "check", str(tmp_path))
    assert directory.code == 2
    assert directory.err == f"error: {tmp_path}: the map is a directory, not a regular file\n"
    bad = tmp_path / "bad.map"
    bad.write_text("not a map\n")
    assert cli(capsys, "map", "check", str(bad)).code == 1


@pytest.fixture
def no_play(monkeypatch: pytest.MonkeyPatch) -> None:
    """The output checks must come first: playing the match is a failure here."""
    import arena.executors

    def played(*args: object) -> None:
        raise AssertionError("the match was played before the output path was checked")

    monkeypatch.setattr(arena.executors, "play", played)


def test_replay_targets_are_checked_before_playing(
    capsys: Capture, tmp_path: Path, fifo: Path, no_play: None
) -> None:
    a_file = tmp_path / "file"
    a_file.write_text("x")
    for target, message in (
        (tmp_path, f"{tmp_path}: the replay would replace a directory; give a file path"),
        (fifo, f"{fifo}: the replay would replace a FIFO; give a file path"),
        (
            a_file / "m.replay",
            f"{a_file}: cannot write the replay there: it is a regular file, not a directory",
        ),
        (
            a_file / "sub" / "m.replay",
            f"{a_file / 'sub'}: cannot write the replay there: {a_file} is a regular file,"
            " not a directory",
        ),
    ):
        out = cli(capsys, "match", "random", "random", "--replay", str(target))
        assert (out.code, out.err) == (2, f"error: {message}\n")
    assert fifo.exists() and a_file.read_text() == "x"


def test_a_device_is_never_replaced(capsys: Capture, tmp_path: Path, no_play: None) -> None:
    out = cli(capsys, "match", "random", "random", "--replay", "/dev/null")
    assert (out.code, out.err) == (
        2,
        "error: /dev/null: the replay would replace a device; give a file path\n",
    )


def test_a_data_dir_that_is_a_file_is_refused_before_playing(
    capsys: Capture, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_play: None
) -> None:
    data = tmp_path / "data"
    data.write_text("x")
    monkeypatch.setenv("FORAY_DATA_DIR", str(data))
    out = cli(capsys, "match", "random", "random")
    assert out.code == 2
    assert out.err == (
        f"error: {data / 'replays'}: cannot write the replay there: {data} is a regular"
        " file, not a directory\n"
    )


def test_a_module_path_that_is_not_utf8(capsys: Capture, tmp_path: Path, idle: bytes) -> None:
    path = Path(os.fsdecode(bytes(tmp_path) + b"/bot\xff\x1b.wasm"))
    path.write_bytes(idle)
    replay = tmp_path / "m.replay"
    out = cli(capsys, "match", str(path), "random", "--max-ticks", "3", "--replay", str(replay))
    assert out.code == 0, out.err
    assert out.out.splitlines()[1].startswith("  A bot\ufffd\\x1b: banked 0")
    out = cli(capsys, "check", str(path))
    assert out.out.startswith("bot\ufffd\\x1b: admissible")
    assert cli(capsys, "replay", "verify", str(replay), "--modules", str(path), "random").code == 0
    missing = cli(capsys, "check", str(path) + "x")
    assert missing.code == 2 and missing.err.startswith("error: ") and "\\udcff" in missing.err


def test_an_oversized_module_file_is_refused_by_size(capsys: Capture, tmp_path: Path) -> None:
    big = tmp_path / "big.wasm"
    with big.open("wb") as f:
        f.truncate(8 * 1024 * 1024 + 10)
    out = cli(capsys, "check", str(big), "--json")
    assert out.code == 1 and "over the 8388608-byte (8 MiB) limit" in out.json()["reason"]


# --------------------------------------------------------------------------- verify --modules


def test_verify_with_modules(capsys: Capture, tmp_path: Path, idle: bytes) -> None:
    replay = tmp_path / "m.replay"
    args = ("match", "random", "greedy-raider", "--max-ticks", "20", "--replay", str(replay))
    assert cli(capsys, *args).code == 0
    ok = cli(capsys, "replay", "verify", str(replay), "--modules", "random", "greedy-raider")
    assert ok.code == 0 and "played again from the modules" in ok.out
    as_json = ("replay", "verify", str(replay), "--json", "--modules", "random", "greedy-raider")
    assert cli(capsys, *as_json).json() == {"ok": True, "ticks": 20, "mismatch_tick": None}
    swapped = cli(capsys, "replay", "verify", str(replay), "--modules", "greedy-raider", "random")
    assert swapped.code == 1 and "side A: the module given has sha256" in swapped.err


def test_the_replay_a_match_names_is_msgpack_named_by_its_sha256_and_a_compressed_one_reads(
    capsys: Capture, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file a match's JSON names (``replay``) is the replay's own msgpack stream, named by
    its sha256, even where replays are kept compressed; a compressed file of it (as the store
    keeps a tournament's) is read by every replay command, the same match again writes it
    back raw, and a damaged compressed file is a clear error."""
    monkeypatch.setenv("FORAY_DATA_DIR", str(tmp_path / "data"))
    argv = ("match", "random", "greedy-raider", "--max-ticks", "20", "--json")
    out = cli(capsys, *argv)
    assert out.code == 0, out.err
    stored = Path(out.json()["replay"])
    raw = stored.read_bytes()
    assert not raw.startswith(replays.ZSTD_MAGIC)
    assert stored.name == f"{hashlib.sha256(raw).hexdigest()}.replay"
    assert hashlib.sha256(raw).hexdigest() == out.json()["replay_sha256"]
    objects = list(msgpack.Unpacker(io.BytesIO(raw)))
    assert [o["type"] for o in (objects[0], objects[-1])] == ["header", "result"]
    assert len(objects) == 20 + 2

    packed = replays.compress_replay(raw)
    stored.write_bytes(packed)  # as a tournament's record of the same replay keeps it
    by_hand = tmp_path / "m.replay.zst"
    by_hand.write_bytes(zstandard.ZstdCompressor(level=19).compress(raw))
    for path in (stored, by_hand):
        ok = cli(capsys, "replay", "verify", str(path), "--json")
        assert ok.json() == {"ok": True, "ticks": 20, "mismatch_tick": None}
        again = ("replay", "verify", str(path), "--modules", "random", "greedy-raider")
        assert cli(capsys, *again).code == 0
        shown = cli(capsys, "replay", "show", str(path), "--tick", "3", "--json")
        assert shown.code == 0, shown.err
    assert cli(capsys, *argv).json()["replay"] == str(stored)
    assert stored.read_bytes() == raw
    cut = tmp_path / "cut.replay"
    cut.write_bytes(packed[:-7])
    bad = cli(capsys, "replay", "verify", str(cut))
    assert bad.code == 1 and "the zstd frame is truncated" in bad.err
    shown = cli(capsys, "replay", "show", str(cut))
    assert shown.code == 2 and shown.err.startswith(f"error: {cut}: ")
    assert "the zstd frame is truncated" in shown.err


def test_every_command_parses_on_its_own(capsys: pytest.CaptureFixture[str]) -> None:
    """The parser is built for the named command only: each command must still be found."""
    usage = cli(capsys, "--help").out  # the command list may wrap onto a second line
    commands = usage[usage.index("{") + 1 : usage.index("}")].split(",")
    assert {"map", "check", "match", "replay", "baselines", "demo", "bench"} <= set(commands)
    for command in commands:
        ran = cli(capsys, command, "--help")
        assert ran.code == 0 and ran.out.startswith(f"usage: arena {command} "), command


def _stored_tournament_of_long_names() -> None:
    from arena.store import Entrant, Origin, Store

    with Store.open() as store:
        field = []
        for i in range(3):
            name = f"controller-with-a-rather-long-descriptive-name-{i}"
            record = store.add_controller(f"module {i}".encode(), name=name, origin=Origin.FILE)
            field.append(Entrant(record.name, record.sha256))
        store.create_tournament("round-robin", field, seeds=[0])


def test_a_table_sent_to_a_pipe_never_wraps_its_rows(
    capsys: Capture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Output that is not a terminal keeps each row on one line (rich would assume 80 columns)."""
    monkeypatch.delenv("COLUMNS", raising=False)
    _stored_tournament_of_long_names()
    lines = cli(capsys, "tournaments").out.splitlines()
    row = next(line for line in lines if "long-descriptive-name-0" in line)
    assert "name-1" in row and "name-2" in row, lines
    assert max(map(len, lines)) > 80


def test_a_table_sent_to_a_pipe_takes_the_width_columns_gives(
    capsys: Capture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "70")
    _stored_tournament_of_long_names()
    lines = cli(capsys, "tournaments").out.splitlines()
    assert lines and max(map(len, lines)) <= 70
