"""The author's workbench: what a bot saw and did (``replay show``) and spent (``replay fuel``)."""

from __future__ import annotations

from pathlib import Path

import pytest

import arena
import arena.match
import replays
import sim
from tests._support import BOTS, TESTS, Builder, cli

Capture = pytest.CaptureFixture[str]
GOLDEN = TESTS / "golden" / "busy-vs-idle-seed77-v2.replay"


def test_the_summary_has_a_row_per_tick(capsys: Capture) -> None:
    out = cli(capsys, "replay", "show", str(GOLDEN), "--json")
    assert out.code == 0, out.err
    rows = out.json()["ticks"]
    replay = replays.read_replay(GOLDEN.read_bytes())
    states = list(replays.iter_states(replay))
    assert [r["tick"] for r in rows] == list(range(replay.ticks))
    assert [r["banked"] for r in rows] == [list(s.banked) for s in states]
    assert [r["units"] for r in rows] == [[len(s.units[0]), len(s.units[1])] for s in states]
    assert [r["fuel"] for r in rows] == [list(f.fuel) for f in replay.frames]
    text = cli(capsys, "replay", "show", str(GOLDEN))
    assert text.code == 0 and "busy (A) vs idle (B), seed 77" in text.out
    assert len(text.out.splitlines()) >= replay.ticks


def test_a_tick_shows_the_observation_as_received(capsys: Capture) -> None:
    tick = 25
    out = cli(capsys, "replay", "show", str(GOLDEN), "--tick", str(tick), "--json")
    assert out.code == 0, out.err
    report = out.json()
    replay = replays.read_replay(GOLDEN.read_bytes())
    game, frame = next((g, f) for g, f in replays.iter_games(replay) if f.tick == tick)
    for s, side in enumerate(report["sides"]):
        obs = game.observe(s)
        shown = side["observation"]
        assert shown["tick"] == tick and shown["banked"] == obs.banked
        assert [tuple(u.values()) for u in shown["own"]] == [tuple(u) for u in obs.own]
        assert [tuple(o.values()) for o in shown["ore"]] == [tuple(o) for o in obs.ore]
        assert shown["last_fuel"] == replay.frames[tick - 1].fuel[s]
        assert side["fuel"] == frame.fuel[s]
        assert [(a["unit"], a["op"], a["arg"]) for a in side["actions"]] == list(frame.actions[s])
        acted = {a["unit"] for a in side["actions"]}
        assert side["no_action"] == [u.id for u in obs.own if u.id not in acted]
    # busy commands every unit; idle none: both kinds of list are exercised.
    assert report["sides"][0]["actions"] and not report["sides"][1]["actions"]
    assert report["sides"][1]["no_action"]
    fates = {a["fate"] for a in report["sides"][0]["actions"]}
    assert fates <= {"applied", "blocked", "no effect"} and "applied" in fates
    assert len(report["board"]) == replay.header.game_map.height


def test_a_tick_in_text_for_one_side(capsys: Capture) -> None:
    out = cli(capsys, "replay", "show", str(GOLDEN), "--tick", "3", "--side", "B")
    assert out.code == 0, out.err
    assert "side B (idle)" in out.out and "side A" not in out.out
    assert "the observation as its controller received it" in out.out
    assert "units given no action (NOOP)" in out.out


def test_a_tick_shows_the_colonies_hp_and_the_carried_ore(capsys: Capture) -> None:
    """Golden tick 25: worker 11 of side A carries 2 ore (the sim says so, not the tool)."""
    tick = 25
    replay = replays.read_replay(GOLDEN.read_bytes())
    game, _ = next((g, f) for g, f in replays.iter_games(replay) if f.tick == tick)
    laden = [(s, u) for s, side in enumerate(game.sides) for u in side.units.values() if u.carry]
    assert [(s, u.id, u.carry) for s, u in laden] == [(0, 11, 2)]
    unit = laden[0][1]
    x, y = unit.cell % game.width, unit.cell // game.width
    out = cli(capsys, "replay", "show", str(GOLDEN), "--tick", str(tick), "--json")
    assert out.code == 0, out.err
    report = out.json()
    assert report["carrying"] == [
        {"side": "A", "unit": 11, "kind": "worker", "x": x, "y": y, "carry": 2}
    ]
    assert report["board"][y][x] == "w"  # the board keeps the kind; the list adds the carry
    assert report["colonies"] == [
        {
            "side": "AB"[s],
            "x": side.colony % game.width,
            "y": side.colony // game.width,
            "hp": 60,
            "max_hp": 60,
        }
        for s, side in enumerate(game.sides)
    ]
    for c in report["colonies"]:
        assert report["board"][c["y"]][c["x"]] == c["side"]
    text = cli(capsys, "replay", "show", str(GOLDEN), "--tick", str(tick)).out
    assert f"carrying ore (1): A worker 11 at ({x}, {y}) carry 2" in text
    assert "colonies: A at (3, 3) hp 60/60; B at (28, 28) hp 60/60" in text
    # Not a terminal: plain text, no escape sequences.
    assert "\x1b[" not in text
    quiet = cli(capsys, "replay", "show", str(GOLDEN), "--tick", "0", "--json").json()
    assert quiet["carrying"] == []
    text = cli(capsys, "replay", "show", str(GOLDEN), "--tick", "0").out
    assert "carrying ore (0): none" in text


def test_on_a_terminal_a_unit_that_carries_ore_is_drawn_reversed(
    capsys: Capture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")  # what a tty gives rich
    monkeypatch.delenv("NO_COLOR", raising=False)
    text = cli(capsys, "replay", "show", str(GOLDEN), "--tick", "25").out
    assert "reversed: carrying ore" in text
    row = next(line for line in text.splitlines() if line.startswith("  5 "))
    assert row.count("\x1b[7;34mw") == 1  # worker 11 at (3, 5), blue and reversed
    assert "\x1b[34mw" in text and "\x1b[1;34mA" in text  # the rest in their side's colour


def test_a_tick_shows_a_damaged_colony(capsys: Capture, tmp_path: Path) -> None:
    result = arena.match.run_match(
        arena.Contestant("raider", arena.load_baseline("greedy-raider")),
        arena.Contestant("random", arena.load_baseline("random")),
        seed=1,
        config=sim.Config(max_ticks=200),
    )
    path = tmp_path / "raid.replay"
    path.write_bytes(result.replay)
    games = replays.iter_games(replays.read_replay(result.replay))
    hp = {f.tick: (g.sides[0].colony_hp, g.sides[1].colony_hp) for g, f in games}
    tick = next(t for t, (_, b) in hp.items() if b < 60)  # the raid has begun
    out = cli(capsys, "replay", "show", str(path), "--tick", str(tick), "--json")
    assert out.code == 0, out.err
    a, b = out.json()["colonies"]
    assert (a["hp"], b["hp"]) == hp[tick] and b["max_hp"] == 60
    text = cli(capsys, "replay", "show", str(path), "--tick", str(tick)).out
    assert f"; B at ({b['x']}, {b['y']}) hp {b['hp']}/60\n" in text


def _faulty_replay(tmp_path: Path, build_c: Builder, busy: bytes, fault: str) -> Path:
    """The replay of ``faulty.c`` with ``FAULT=fault`` from tick 4 against busy (20 ticks)."""
    bad = build_c(BOTS / "faulty.c", f"FAULT={fault}", "FAULT_TICK=4")
    result = arena.match.run_match(
        arena.Contestant("faulty", bad),
        arena.Contestant("busy", busy),
        config=sim.Config(max_ticks=20),
    )
    path = tmp_path / "f.replay"
    path.write_bytes(result.replay)
    return path


def test_a_forfeit_tick_says_why_nothing_was_applied(
    capsys: Capture, tmp_path: Path, build_c: Builder, busy: bytes
) -> None:
    path = _faulty_replay(tmp_path, build_c, busy, "2")  # an unknown unit id at tick 4
    out = cli(capsys, "replay", "show", str(path), "--tick", "4", "--json")
    assert out.code == 0, out.err
    report = out.json()
    assert report["applied"] is False
    a, b = report["sides"]
    assert a["forfeit"]["kind"] == "invalid_action"
    assert all(x["fate"] == "not applied" for x in a["actions"])
    assert any("not one of the side's units" in x["detail"] for x in a["actions"])
    assert b["forfeit"] is None and all(x["fate"] == "not applied" for x in b["actions"])
    text = cli(capsys, "replay", "show", str(path), "--tick", "4")
    assert "not applied: a side forfeited" in text.out and "forfeit invalid_action" in text.out


@pytest.mark.parametrize(
    ("fault", "kind", "said"),
    [("3", "invalid_action", "action count n = -1"), ("1", "trap", "unreachable")],
)
def test_a_side_whose_records_were_never_read_is_not_said_to_have_returned_none(
    capsys: Capture, tmp_path: Path, build_c: Builder, busy: bytes, fault: str, kind: str, said: str
) -> None:
    """An out-of-range count (no records read) or a call that never returned: said so, not
    "actions returned (0)" and every unit given NOOP."""
    path = _faulty_replay(tmp_path, build_c, busy, fault)
    a = cli(capsys, "replay", "show", str(path), "--tick", "4", "--json").json()["sides"][0]
    assert a["forfeit"]["kind"] == kind and a["actions"] == [] and a["no_action"] == []
    assert a["unread"].startswith(f"none recorded: the side forfeited ({kind}): ")
    assert said in a["unread"]
    text = cli(capsys, "replay", "show", str(path), "--tick", "4").out
    assert f"actions returned: none recorded: the side forfeited ({kind})" in text
    assert "actions returned (0)" not in text.split("side B")[0]
    assert "units given no action" not in text.split("side B")[0]


def test_a_tick_outside_the_replay_is_an_operator_error(capsys: Capture) -> None:
    out = cli(capsys, "replay", "show", str(GOLDEN), "--tick", "60")
    assert out.code == 2 and "tick 60 is not in the replay (ticks 0..59)" in out.err


def test_a_replay_of_a_match_ended_at_init_has_no_tick_to_show(
    capsys: Capture, tmp_path: Path, build_c: Builder, busy: bytes
) -> None:
    bad = build_c(BOTS / "faulty.c", "FAULT=4")  # init returns non-zero
    result = arena.match.run_match(arena.Contestant("bad", bad), arena.Contestant("busy", busy))
    assert result.ticks == 0
    path = tmp_path / "init.replay"
    path.write_bytes(result.replay)
    out = cli(capsys, "replay", "show", str(path), "--tick", "0")
    assert out.code == 2
    assert "tick 0 is not in the replay (it has none: the match ended at init)" in out.err


def test_fuel_statistics_against_a_hand_count() -> None:
    stats = arena.match.FuelStats.of([5, 1, 9, 9, 3, 7, 2, 8, 4, 6])
    # sorted: 1 2 3 4 5 6 7 8 9 9 -> mean 5.4, median (5 + 6) / 2, nearest-rank p90 = 9th
    assert (stats.mean, stats.median, stats.p90, stats.peak, stats.peak_tick) == (
        5.4,
        5.5,
        9,
        9,
        2,
    )
    assert arena.match.FuelStats.of([]).to_dict() == {
        "mean": 0.0,
        "median": 0.0,
        "p90": 0,
        "peak": 0,
        "peak_tick": None,
    }


def test_match_json_carries_the_fuel_statistics(busy: bytes, idle: bytes) -> None:
    result = arena.match.run_match(
        arena.Contestant("busy", busy),
        arena.Contestant("idle", idle),
        config=sim.Config(max_ticks=30),
    )
    for side in result.sides:
        expected = arena.match.FuelStats.of(side.tick_fuel).to_dict()
        assert side.to_dict()["fuel_per_tick"] == expected
        assert expected["peak"] == side.fuel_peak and len(side.tick_fuel) == 30


def test_replay_fuel_prints_the_chart_and_the_closest_ticks(capsys: Capture) -> None:
    out = cli(capsys, "replay", "fuel", str(GOLDEN), "--json", "--top", "3")
    assert out.code == 0, out.err
    sides = out.json()["sides"]
    replay = replays.read_replay(GOLDEN.read_bytes())
    for s, side in enumerate(sides):
        fuel = [f.fuel[s] for f in replay.frames]
        assert side["per_tick"] == fuel and side["cap"] == 5_000_000
        top = sorted(fuel, reverse=True)[:3]
        assert [c["fuel"] for c in side["closest_to_cap"]] == top
    text = cli(capsys, "replay", "fuel", str(GOLDEN), "--side", "A")
    assert text.code == 0 and "against the cap 5,000,000" in text.out
    assert "closest to the cap" in text.out and "side B" not in text.out
    # Format version 2 records no memory, and says so.
    assert all(side["memory"] is None for side in sides)
    assert "memory: not recorded (format version 2; version 3 records it)" in text.out


def test_replay_fuel_tells_how_memory_grew_to_a_forfeit(capsys: Capture) -> None:
    """The golden memory forfeit: side A grows a page every 3 ticks from tick 4, past its
    2 MiB cap in tick 49; B never grows."""
    path = TESTS / "golden" / "memory-forfeit-seed5-v3.replay"
    out = cli(capsys, "replay", "fuel", str(path), "--json")
    assert out.code == 0, out.err
    a, b = (side["memory"] for side in out.json()["sides"])
    series = replays.memory_series(replays.read_replay(path.read_bytes()))
    assert series is not None and (a["per_tick"], b["per_tick"]) == tuple(map(list, series))
    page, cap = 65_536, 2 * 1024 * 1024
    assert a["cap"] == b["cap"] == cap
    assert (a["peak"], a["peak_tick"], a["share_of_cap"]) == (cap + page, 49, 1.0312)
    assert a["start"] == a["peak"] - 16 * page
    assert a["grew"] == [
        {"tick": t, "bytes": a["start"] + page * (i + 1), "by": page}
        for i, t in enumerate(range(4, 50, 3))
    ]
    assert b["grew"] == [] and b["peak"] == b["start"] and b["peak_tick"] == 0
    text = cli(capsys, "replay", "fuel", str(path), "--side", "A", "--top", "2").out
    assert "memory against max_memory_bytes 2,097,152 (top line)" in text
    assert "peak 2,162,688 bytes (33 pages, 103.1% of the cap) at tick 49; grew in 16" in text
    assert text.splitlines()[-3:] == [
        "  the last 2 tick(s) it grew in:",
        "    tick    46: +65,536 to 2,097,152 bytes (32 pages, 100.0% of the cap)",
        "    tick    49: +65,536 to 2,162,688 bytes (33 pages, 103.1% of the cap)",
    ]
    # A tick shows each side's memory after its calls: the forfeit tick's broke the cap.
    shown = cli(capsys, "replay", "show", str(path), "--tick", "49", "--json").json()
    assert [side["memory"] for side in shown["sides"]] == [cap + page, b["start"]]
    text = cli(capsys, "replay", "show", str(path), "--tick", "49", "--side", "A").out
    assert "memory after its calls: 2,162,688 bytes (33 pages, 103.1% of the cap)" in text
    old = cli(capsys, "replay", "show", str(GOLDEN), "--tick", "3", "--json").json()
    assert [side["memory"] for side in old["sides"]] == [None, None]


def test_check_says_a_tiny_module_probably_lost_its_exports(
    capsys: Capture, tmp_path: Path
) -> None:
    # A memory and nothing else: what a Zig build without -rdynamic gives.
    tiny = tmp_path / "bot.wasm"
    tiny.write_bytes(b"\0asm\x01\0\0\0\x05\x03\x01\0\x01\x07\x0a\x01\x06memory\x02\0")
    out = cli(capsys, "check", str(tiny), "--json")
    assert out.code == 1
    reason = out.json()["reason"]
    assert reason.startswith("missing export foray_buffer")
    assert "only 25 bytes: did the build keep your exports?" in reason and "-rdynamic" in reason


@pytest.mark.slow
def test_the_zig_template_builds_and_plays_the_c_templates_moves(tmp_path: Path) -> None:
    """The Zig SDK decodes and encodes the ABI exactly as foray.h does: same bot, same moves."""
    from arena.baselines import BASELINES_DIR, compile_c, compile_zig

    zig = compile_zig(BASELINES_DIR / "template.zig", tmp_path / "zig.wasm")
    c = compile_c([BASELINES_DIR / "template.c"], tmp_path / "c.wasm", include=[BASELINES_DIR])
    assert arena.check_module(zig).admissible
    random = arena.Contestant("random", arena.load_baseline("random"))
    config = sim.Config(max_ticks=120)
    played = [
        arena.match.run_match(arena.Contestant(name, blob), random, seed=5, config=config)
        for name, blob in (("zig", zig), ("c", c))
    ]
    frames = [replays.read_replay(r.replay).frames for r in played]
    assert all(r.sides[0].forfeit is None for r in played)
    assert [f.actions for f in frames[0]] == [f.actions for f in frames[1]]
    assert played[0].sides[0].banked == played[1].sides[0].banked > 0
    assert compile_zig(BASELINES_DIR / "template.zig", tmp_path / "again.wasm") == zig
