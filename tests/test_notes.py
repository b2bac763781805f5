"""Notes from the bot (rules §9.9): an optional export whose text rides in the replay."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
import wasmtime

import arena
import arena.match
import arena.sandbox
import replays
import sim
from arena.baselines import BASELINES_DIR, compile_zig
from tests._support import BOTS, Builder, cli

NOTES = BOTS / "notes.c"
ACTS = BOTS / "acts_and_notes.c"
SHORT = sim.Config(max_ticks=12)
Capture = pytest.CaptureFixture[str]


def _play(
    a: bytes, b: bytes, config: sim.Config = SHORT, limits: arena.sandbox.Limits | None = None
) -> arena.MatchResult:
    return arena.match.run_match(
        arena.Contestant("a", a), arena.Contestant("b", b), config=config, limits=limits
    )


def _notes(result: arena.MatchResult) -> list[replays.Notes | None]:
    return [f.notes for f in replays.read_replay(result.replay).frames]


def test_notes_round_trip_through_the_replay(build_c: Builder, idle: bytes) -> None:
    result = _play(build_c(NOTES), idle)
    notes = _notes(result)
    assert notes == [(f"tick {t}: 3 units \u00b7 ok", None) for t in range(12)]
    assert replays.verify_replay(result.replay).ok
    again = arena.match.replay_matches(result.replay, build_c(NOTES), idle)
    assert again.ok, again.detail


def test_a_module_without_the_export_records_no_notes(busy: bytes, idle: bytes) -> None:
    result = _play(busy, idle)
    assert _notes(result) == [None] * 12
    assert b"\xa1n" not in result.replay  # no frame carries the key


@pytest.mark.parametrize(
    ("mode", "note"),
    [(1, 300), (2, -5), (3, "a\ufffd\ufffdb")],
)
def test_lengths_out_of_range_are_dropped_and_bad_utf8_is_replaced(
    build_c: Builder, idle: bytes, mode: int, note: str | int
) -> None:
    result = _play(build_c(NOTES, f"NOTE={mode}", "NOTE_TICK=5"), idle)
    notes = _notes(result)
    assert notes[4] == ("tick 4: 3 units \u00b7 ok", None)
    assert notes[5:] == [(note, None)] * 7
    assert result.sides[0].forfeit is None  # a dropped note changes nothing in the game
    assert replays.verify_replay(result.replay).ok


@pytest.mark.parametrize(("mode", "kind"), [(4, sim.ForfeitKind.TRAP), (5, sim.ForfeitKind.FUEL)])
def test_a_note_call_that_faults_is_the_ticks_fault(
    build_c: Builder, idle: bytes, mode: int, kind: sim.ForfeitKind
) -> None:
    result = _play(build_c(NOTES, f"NOTE={mode}", "NOTE_TICK=3"), idle)
    forfeit = result.sides[0].forfeit
    assert forfeit is not None and (forfeit.tick, forfeit.kind) == (3, kind)
    assert (result.winner, result.ticks) == (1, 4)
    assert result.sides[0].tick_fuel[3] == arena.sandbox.Limits().fuel_per_tick  # charged it all
    frames = replays.read_replay(result.replay).frames
    assert isinstance(frames[-1], replays.ForfeitFrame)
    assert frames[-1].notes == (None, None)  # the faulted side has no note
    assert replays.verify_replay(result.replay).ok


def test_the_actions_are_read_before_the_note_overwrites_them(
    build_c: Builder, idle: bytes
) -> None:
    """The note is written over the records foray_tick left: the records taken are the tick's."""
    result = _play(build_c(ACTS), idle, sim.Config(max_ticks=40))
    assert result.sides[0].forfeit is None and result.ticks == 40
    replay = replays.read_replay(result.replay)
    lengths = set()
    for game, frame in replays.iter_games(replay):
        own = game.observe(0).own[:20]
        moves = [(u.id, sim.MOVE, 1 + (frame.tick + i) % 4) for i, u in enumerate(own)]
        expected = (*moves, (0, sim.SPAWN, sim.WORKER))
        assert frame.actions[0] == expected, frame.tick
        assert frame.notes is not None
        note = frame.notes[0]
        assert isinstance(note, str) and note.startswith(f"n={len(expected)} ")
        assert len(note) == 12 * len(expected)  # it covered every record
        lengths.add(len(expected))
    assert len(lengths) > 1  # the roster grew: notes of several lengths


def test_the_note_draws_on_the_ticks_fuel_budget(build_c: Builder, idle: bytes) -> None:
    """A tick that takes 60% of the budget and a note that takes 60%: the tick's fuel."""
    steps = "100000"
    tick_only = build_c(ACTS, f"TICK_SPIN={steps}")
    note_only = build_c(ACTS, f"NOTE_SPIN={steps}")
    both = build_c(ACTS, f"TICK_SPIN={steps}", f"NOTE_SPIN={steps}")
    # The budget from what each call alone costs under the default limits.
    alone = max(max(_play(m, idle).sides[0].tick_fuel) for m in (tick_only, note_only))
    cap = alone * 5 // 3
    assert min(_play(both, idle).sides[0].tick_fuel) > cap  # together they need more
    limits = arena.sandbox.Limits(fuel_per_tick=cap)
    for module in (tick_only, note_only):
        fits = _play(module, idle, limits=limits)
        assert fits.sides[0].forfeit is None and max(fits.sides[0].tick_fuel) <= 0.61 * cap
    result = _play(both, idle, limits=limits)
    forfeit = result.sides[0].forfeit
    assert forfeit is not None and (forfeit.tick, forfeit.kind) == (0, sim.ForfeitKind.FUEL)
    assert result.sides[0].tick_fuel == (cap,)
    assert replays.verify_replay(result.replay).ok


def test_a_note_that_spins_hits_the_wall_clock_backstop(build_c: Builder, idle: bytes) -> None:
    """With fuel to spare the note call runs until the tick's backstop: kind timeout."""
    limits = arena.sandbox.Limits(tick_timeout=0.05, fuel_per_tick=10**12)
    start = time.monotonic()
    result = _play(build_c(NOTES, "NOTE=5", "NOTE_TICK=3"), idle, limits=limits)
    elapsed = time.monotonic() - start
    forfeit = result.sides[0].forfeit
    assert forfeit is not None and (forfeit.tick, forfeit.kind) == (3, sim.ForfeitKind.TIMEOUT)
    assert "wall-clock backstop" in forfeit.detail
    assert (result.winner, result.ticks) == (1, 4)
    assert elapsed < 5.0  # the backstop, not the fuel, ended it
    frames = replays.read_replay(result.replay).frames
    assert isinstance(frames[-1], replays.ForfeitFrame) and frames[-1].notes == (None, None)


def test_the_zig_sdk_leaves_notes(tmp_path: Path, idle: bytes) -> None:
    shutil.copy(BASELINES_DIR / "foray.zig", tmp_path / "foray.zig")
    shutil.copy(BOTS / "notes.zig", tmp_path / "notes.zig")
    blob = compile_zig(tmp_path / "notes.zig", tmp_path / "notes.wasm")
    result = _play(blob, idle)
    assert _notes(result) == [("units: 3", None)] * 12


def test_the_c_sdk_leaves_notes_only_when_asked(tmp_path: Path, idle: bytes) -> None:
    source = tmp_path / "bot.c"
    source.write_text(
        '#include "foray.h"\n'
        "void bot_init(const foray_init_t *g) { (void)g; }\n"
        "void bot_tick(const foray_obs_t *o, foray_actions_t *a) {\n"
        '    (void)a; foray_say(o->tick % 2 ? "odd" : "even");\n'
        "}\n"
    )
    blob = arena.baselines.compile_c(
        [source], tmp_path / "bot.wasm", include=[BASELINES_DIR], extra_flags=["-DFORAY_NOTES"]
    )
    assert _notes(_play(blob, idle))[:3] == [("even", None), ("odd", None), ("even", None)]


def test_a_note_export_of_the_wrong_type_is_not_admissible(build_c: Builder) -> None:
    good = wasmtime.wat2wasm(
        """(module (memory (export "memory") 2)
        (func (export "foray_buffer") (result i32) i32.const 0)
        (func (export "foray_init") (param i32) (result i32) i32.const 0)
        (func (export "foray_tick") (param i32) (result i32) i32.const 0)
        (func (export "foray_note") (param i32) (result i32) i32.const 0))"""
    )
    reason = arena.check_module(bytes(good)).reason
    assert reason == "export foray_note has type (i32) -> i32, expected () -> i32"


def test_replay_show_prints_the_notes(
    capsys: Capture, tmp_path: Path, build_c: Builder, idle: bytes
) -> None:
    path = tmp_path / "n.replay"
    path.write_bytes(_play(build_c(NOTES, "NOTE=2", "NOTE_TICK=6"), idle).replay)
    shown = cli(capsys, "replay", "show", str(path), "--tick", "5", "--side", "A")
    assert shown.code == 0 and "note: tick 5: 3 units \u00b7 ok" in shown.out
    dropped = cli(capsys, "replay", "show", str(path), "--tick", "6", "--json")
    assert [side["note"] for side in dropped.json()["sides"]] == [-5, None]


def test_the_reader_bounds_notes() -> None:
    from tests._support import pack, play_scripted

    played = play_scripted(3, max_ticks=3, size=8)
    for note, words in (
        ("x" * 257, "over 256"),
        (12, "lies in 0..256"),
        (1.5, "expected a string, an integer or nil"),
    ):
        frames = [dict(f) for f in played.frames]
        frames[1]["n"] = [note, None]
        with pytest.raises(replays.ReplayError, match=words):
            replays.read_replay(pack(played.header, frames, played.result))
