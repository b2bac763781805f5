"""Whole matches between real wasm controllers: outcomes, forfeits, JSON and determinism."""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
from pathlib import Path

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import arena
import arena.match
import arena.sandbox
import replays
import sim
from arena.cases import default_case
from tests._support import BOTS, Builder, examples

FAULTY = BOTS / "faulty.c"
RICH = sim.Config(start_energy=100)


def play(a: bytes, b: bytes, **kw: object) -> arena.MatchResult:
    return arena.match.run_match(arena.Contestant("a", a), arena.Contestant("b", b), **kw)  # type: ignore[arg-type]


def test_a_deterministic_controller_against_itself_is_a_draw(busy: bytes) -> None:
    r = play(busy, busy, config=RICH, seed=11)
    assert (r.winner, r.reason, r.ticks) == (None, "draw", 400)
    a, b = r.sides
    assert a.banked == b.banked > 0
    assert a.fuel_total == b.fuel_total and a.fuel_peak == b.fuel_peak


def test_match_json_has_exactly_the_designed_keys(busy: bytes, idle: bytes) -> None:
    out = play(busy, idle, seed=2).to_json("some/path.replay")
    assert set(out) == {"winner", "reason", "ticks", "seed", "replay", "replay_sha256", "sides"}
    designed = {"name", "sha256", "banked", "fuel_total", "fuel_peak", "forfeit"}
    for side in out["sides"]:
        # Keys are only ever added (the fuel statistics of issue 13), never renamed.
        assert set(side) == designed | {"fuel_per_tick"}
        assert set(side["fuel_per_tick"]) == {"mean", "median", "p90", "peak", "peak_tick"}
    assert out["replay"] == "some/path.replay" and out["seed"] == 2


@pytest.mark.parametrize("version", replays.SUPPORTED_VERSIONS)
def test_a_match_is_recorded_in_the_replay_version_asked_for(
    busy: bytes, idle: bytes, version: int
) -> None:
    r = play(busy, idle, config=sim.Config(max_ticks=5), replay_version=version)
    assert replays.read_replay(r.replay).header.version == version
    assert replays.verify_replay(r.replay).ok
    assert arena.match.replay_matches(r.replay, busy, idle).ok  # played again in its own version
    default = play(busy, idle, config=sim.Config(max_ticks=5))
    assert replays.read_replay(default.replay).header.version == replays.VERSION


@pytest.mark.parametrize("version", [0, 4, True, "2"])
def test_run_match_refuses_a_replay_version_it_cannot_write(idle: bytes, version: object) -> None:
    with pytest.raises(arena.ArenaError, match=f"replay format version {version!r}"):
        play(idle, idle, replay_version=version)


def test_less_fuel_wins_a_level_score(busy: bytes, idle: bytes) -> None:
    # Neither banks in 3 ticks; the idle controller burns less fuel.
    r = play(busy, idle, config=sim.Config(max_ticks=3))
    assert (r.winner, r.reason) == (1, "fuel")
    assert r.sides[1].fuel_total < r.sides[0].fuel_total


@pytest.mark.parametrize(
    ("fault", "kind", "detail"),
    [
        (1, "trap", "unreachable"),
        (2, "invalid_action", "unit id 999"),
        (3, "invalid_action", "n = -1"),
        (5, "fuel", ""),
        (6, "invalid_action", "repeats record 0"),
    ],
)
def test_a_fault_in_a_tick_forfeits_there(
    build_c: Builder, idle: bytes, fault: int, kind: str, detail: str
) -> None:
    bad = build_c(FAULTY, f"FAULT={fault}", "FAULT_TICK=3")
    r = play(idle, bad)
    assert (r.winner, r.reason, r.ticks) == (0, "forfeit", 4)
    f = r.sides[1].forfeit
    assert f is not None and (f.tick, f.kind) == (3, kind) and detail in f.detail
    assert r.sides[0].forfeit is None


@pytest.mark.parametrize("tick", [0, 5])
def test_the_observation_carries_last_ticks_fuel(build_c: Builder, idle: bytes, tick: int) -> None:
    shower = build_c(FAULTY, "FAULT=7", f"FAULT_TICK={tick}")
    r = play(shower, idle)
    f = r.sides[0].forfeit
    assert f is not None and f.kind == "invalid_action" and f.tick == tick
    frames = list(msgpack.Unpacker(io.BytesIO(r.replay), raw=False))[1:-1]
    expected = frames[tick - 1]["f"][0] if tick else 0
    assert f"unit id {1_000_000 + expected} " in f.detail
    assert tick == 0 or expected > 0


@pytest.mark.parametrize(
    ("n", "words", "rule"),
    [
        (50, "0,0,0", "n = 50 is outside 0..49"),
        (-7, "0,0,0", "n = -7 is outside 0..49"),
        (1, "4,0,0", "unit id 4 is not one of the side's units"),
        (1, "-1,0,0", "unit id -1 is not one of the side's units"),
        (2, "1,1,1,1,1,2", "unit id 1 repeats record 0"),
        (1, "1,6,0", "op 6 is outside 0..5"),
        (1, "1,0,1", "NOOP takes an arg in 0..0, got 1"),
        (1, "1,1,0", "MOVE takes an arg in 1..4, got 0"),
        (1, "1,2,5", "ATTACK takes an arg in 1..4, got 5"),
        (1, "1,3,-1", "MINE takes an arg in 0..4, got -1"),
        (1, "1,4,2", "DEPOSIT takes an arg in 0..0, got 2"),
        (1, "0,5,3", "SPAWN takes an arg in 1..2, got 3"),
        (1, "2,5,1", "SPAWN is for the colony (id 0), not unit 2"),
        (1, "0,1,1", "the colony (id 0) takes only SPAWN or NOOP, not MOVE"),
    ],
)
def test_each_contract_rule_broken_by_a_module_forfeits(
    build_c: Builder, idle: bytes, n: int, words: str, rule: str
) -> None:
    bad = build_c(FAULTY, "FAULT=8", "FAULT_TICK=0", f"REPLY_N={n}", f"REPLY_WORDS={words}")
    r = play(bad, idle)
    f = r.sides[0].forfeit
    assert (r.winner, r.reason, r.ticks) == (1, "forfeit", 1)
    assert f is not None and (f.tick, f.kind) == (0, "invalid_action")
    assert rule in f.detail
    if 1 <= n <= 49:  # the detail names the record that broke the rule
        assert f"record {n - 1} " in f.detail


def test_a_well_formed_reply_from_a_module_plays_on(build_c: Builder, idle: bytes) -> None:
    good = build_c(FAULTY, "FAULT=8", "FAULT_TICK=0", "REPLY_N=3", "REPLY_WORDS=1,1,2,0,5,1,3,3,0")
    r = play(good, idle, config=sim.Config(max_ticks=5))
    assert r.ticks == 5 and r.sides[0].forfeit is None


def test_both_forfeiting_in_one_tick_is_a_draw(build_c: Builder) -> None:
    bad = build_c(FAULTY, "FAULT=1", "FAULT_TICK=2")
    r = play(bad, bad)
    assert (r.winner, r.reason, r.ticks) == (None, "forfeit", 3)
    assert all(s.forfeit and s.forfeit.kind == "trap" for s in r.sides)


def test_a_failed_init_forfeits_before_tick_zero(build_c: Builder, idle: bytes) -> None:
    bad = build_c(FAULTY, "FAULT=4")
    r = play(bad, idle)
    assert (r.winner, r.reason, r.ticks) == (1, "forfeit", 0)
    f = r.sides[0].forfeit
    assert f is not None and (f.tick, f.kind) == (0, "init")
    assert r.sides[0].fuel_total == arena.sandbox.Limits().init_fuel  # charged its whole budget


def test_garbage_module_forfeits_init(idle: bytes) -> None:
    r = play(b"\0asm garbage", idle)
    f = r.sides[0].forfeit
    assert r.ticks == 0 and f is not None and f.kind == "init"


def test_the_replay_records_every_tick(busy: bytes, idle: bytes) -> None:
    r = play(busy, idle, config=sim.Config(max_ticks=20), seed=9)
    objs = list(msgpack.Unpacker(io.BytesIO(r.replay), raw=False))
    header, frames, result = objs[0], objs[1:-1], objs[-1]
    assert header["type"] == "header" and header["seed"] == 9
    assert header["wasmtime"] == arena.sandbox.WASMTIME_VERSION
    assert [f["t"] for f in frames] == list(range(20))
    assert result["type"] == "result" and result["ticks"] == 20


def _cli_match(tmp: Path, name: str, a: Path, b: Path) -> dict[str, object]:
    replay = tmp / name
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "arena",
            "match",
            str(a),
            str(b),
            "--seed",
            "5",
            "--replay",
            str(replay),
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


@pytest.mark.processes
def test_two_processes_write_the_same_replay_bytes(
    tmp_path: Path, busy: bytes, idle: bytes
) -> None:
    a, b = tmp_path / "busy.wasm", tmp_path / "idle.wasm"
    a.write_bytes(busy)
    b.write_bytes(idle)
    first = _cli_match(tmp_path, "one.replay", a, b)
    second = _cli_match(tmp_path, "two.replay", a, b)
    one, two = (tmp_path / "one.replay").read_bytes(), (tmp_path / "two.replay").read_bytes()
    assert one == two
    assert first["replay_sha256"] == second["replay_sha256"]
    # And the same bytes as an in-process run under the default case (arena match's rules).
    assert play(busy, idle, seed=5).replay != b""
    case = default_case()
    r = arena.match.run_match(
        arena.Contestant("busy", busy),
        arena.Contestant("idle", idle),
        seed=5,
        config=case.rules,
        limits=case.limits,
        case=case.ref,
    )
    assert r.replay == one


def test_a_controller_compiles_once_per_machine(
    monkeypatch: pytest.MonkeyPatch, build_c: Builder, tmp_path: Path
) -> None:
    from arena.sandbox import _engine

    monkeypatch.setenv("FORAY_CACHE_DIR", str(tmp_path))  # nothing compiled yet
    blob = build_c(FAULTY, "FAULT=0", "FAULT_TICK=999")
    calls = []
    real = _engine._compile_out_of_process

    def counting(data: bytes, limits: arena.sandbox.Limits) -> bytes | str:
        calls.append(len(data))
        return real(data, limits)

    monkeypatch.setattr(_engine, "_compile_out_of_process", counting)
    sha = hashlib.sha256(blob).hexdigest()
    _engine.forget_module(sha)
    for seed in (1, 2):
        play(blob, blob, seed=seed, config=sim.Config(max_ticks=5))
    # A new process finds it on disk.
    _engine.forget_module(sha)
    play(blob, blob, seed=3, config=sim.Config(max_ticks=5))
    assert calls == [len(blob)]


@settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(seed=st.integers(0, 2**32 - 1))
def test_hostile_replies_become_forfeits_and_every_replay_verifies(
    build_c: Builder, busy: bytes, seed: int
) -> None:
    chaos = build_c(BOTS / "chaos.c")
    r = play(chaos, busy, seed=seed, config=sim.Config(max_ticks=60))
    f = r.sides[0].forfeit
    assert f is None or f.kind == "invalid_action"
    assert r.sides[1].forfeit is None
    report = replays.verify_replay(r.replay)
    assert report.ok, report.detail
    assert report.ticks == r.ticks
