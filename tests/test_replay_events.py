"""Whose is what: each event's side, unit and cell (``replays.iter_ticks``, ``arena replay
show``), each side's timeline (``--timeline``), and the example script of docs/replays.md.

Every event is checked against an independent reading: the match re-simulated
with ``sim``, whose ``Game.step`` reports each tick's events (mining too, which
no frame records) and whose state before and after the tick says where each
unit stood and what it lost. Replays come from real matches of the baselines,
from scripted matches (random fierce policies, so that units fight and die on
both sides) and from the golden files.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import re
import runpy
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings, strategies as st

import arena
import arena.match
import replays
import sim
from arena.cli import main
from tests._support import ROOT, TESTS, cli, examples, pack, play_scripted

Capture = pytest.CaptureFixture[str]
GOLDEN = TESTS / "golden" / "busy-vs-idle-seed77-v2.replay"
EXAMPLE = ROOT / "docs" / "examples" / "replay_summary.py"
SIDES = "AB"

# An event as a tuple both readings give: (tick, kind, side, unit, unit kind, x, y, target,
# amount); what an attack hit and who killed a unit are checked apart.
Seen = tuple[int, str, int, int, int, int, int, tuple[int, int] | None, int]


@dataclass
class Reading:
    """What the sim says happened, tick by tick."""

    events: dict[int, list[Seen]]
    damage: dict[tuple[int, int, int], int]
    """(tick, side, id) -> the hp a surviving unit lost; (tick, side, 0) -> a colony's."""
    hp_before: dict[tuple[int, int, int], int]
    """(tick, side, id) -> the hp of a unit that died in that tick, before it."""
    at: dict[tuple[int, tuple[int, int]], tuple[int, int]]
    """(tick, cell) -> (side, id) of the unit standing there at the start of the tick."""


def resimulated(replay: replays.Replay) -> Reading:
    """The events of every applied tick, by re-simulating the recorded actions with ``sim``."""
    config = replay.header.config
    game = sim.Game(replay.header.game_map, config)
    w = game.width
    cost: dict[int, int] = {sim.WORKER: config.worker_cost, sim.SOLDIER: config.soldier_cost}
    reading = Reading({}, {}, {}, {})
    for frame in replay.frames:
        if isinstance(frame, replays.ForfeitFrame):
            break
        t = frame.tick
        before = {
            (s, u.id): (u.kind, u.cell % w, u.cell // w, u.hp, u.carry)
            for s, side in enumerate(game.sides)
            for u in side.units.values()
        }
        for (s, uid), (_, x, y, _, _) in before.items():
            reading.at[t, (x, y)] = (s, uid)
        ev = game.step(frame.actions)
        after = {(s, u.id): u for s, side in enumerate(game.sides) for u in side.units.values()}
        seen: list[Seen] = []
        for s, uid, cell in ev.attacks:
            kind, x, y, _, _ = before[s, uid]
            seen.append((t, "attack", s, uid, kind, x, y, (cell % w, cell // w), -1))
        for s, uid in ev.deaths:
            kind, x, y, hp, carry = before[s, uid]
            seen.append((t, "death", s, uid, kind, x, y, None, carry))
            reading.hp_before[t, s, uid] = hp
        for s, uid, cell in sorted(ev.mined):
            u = after[s, uid]
            seen.append(
                (t, "mine", s, uid, u.kind, u.cell % w, u.cell // w, (cell % w, cell // w), 1)
            )
        for s, uid, amount in ev.deposits:
            kind, x, y, _, _ = before[s, uid]
            seen.append((t, "deposit", s, uid, kind, x, y, None, amount))
        for s, uid, kind, cell in ev.spawns:
            seen.append((t, "spawn", s, uid, kind, cell % w, cell // w, None, cost[kind]))
        reading.events[t] = seen
        for key, u in after.items():
            if key in before:
                reading.damage[(t, *key)] = before[key][3] - u.hp
        for s in (0, 1):
            reading.damage[t, s, 0] = ev.colony_damage[s]
    return reading


def seen(e: replays.UnitEvent) -> Seen:
    amount = -1 if e.kind is replays.EventKind.ATTACK else e.amount
    return (e.tick, str(e.kind), e.side, e.unit, e.unit_kind, e.x, e.y, e.target, amount)


def seen_json(e: dict[str, Any]) -> Seen:
    kind = {"worker": sim.WORKER, "soldier": sim.SOLDIER}[e["unit_kind"]]
    target = None if e["target"] is None else (e["target"]["x"], e["target"]["y"])
    amount = -1 if e["kind"] == "attack" else e["amount"]
    side = SIDES.index(e["side"])
    return (e["tick"], e["kind"], side, e["unit"], kind, e["x"], e["y"], target, amount)


def check_against_the_sim(replay: replays.Replay) -> list[replays.AppliedTick]:
    """``iter_ticks`` agrees with the re-simulation on every event; return its ticks."""
    reading = resimulated(replay)
    ticks = list(replays.iter_ticks(replay))
    assert [t.tick for t in ticks] == sorted(reading.events)
    soldier_attack = replay.header.config.soldier_attack
    colonies = replay.header.game_map.colonies
    for tick in ticks:
        t = tick.tick
        assert [seen(e) for e in tick.events] == reading.events[t], f"tick {t}"
        # What an attack hit: the damage each unit and colony took is the sum of the hits.
        dealt: dict[tuple[int, int, int], int] = {}
        for e in tick.events:
            if e.kind is not replays.EventKind.ATTACK:
                continue
            assert e.target is not None
            occupant = reading.at.get((t, e.target))
            if e.hit is None:  # an own unit, rock or an empty cell: no damage
                assert e.amount == 0
                assert occupant is None or occupant[0] == e.side
                assert e.target != colonies[1 - e.side]
            else:
                assert e.amount == soldier_attack and e.hit[0] == 1 - e.side
                assert occupant == e.hit if e.hit[1] else e.target == colonies[e.hit[0]]
                dealt[(t, *e.hit)] = dealt.get((t, *e.hit), 0) + e.amount
        for (tt, s, uid), lost in reading.damage.items():
            if tt == t and lost:
                assert dealt.pop((t, s, uid), 0) == lost, f"tick {t}: side {s} unit {uid}"
        # What is left was dealt to the units that died: enough to kill, by the killers.
        for e in tick.events:
            if e.kind is replays.EventKind.DEATH:
                blow = dealt.pop((t, e.side, e.unit), 0)
                assert blow >= reading.hp_before[t, e.side, e.unit] > 0
                assert blow == soldier_attack * len(e.by) and list(e.by) == sorted(e.by)
                hitters = {
                    a.unit
                    for a in tick.events
                    if a.kind is replays.EventKind.ATTACK and a.hit == (e.side, e.unit)
                }
                assert set(e.by) == hitters
        assert dealt == {}, f"tick {t}: damage no unit took: {dealt}"
        assert tick.state.tick == t and tick.frame.tick == t
    return ticks


def recorded(
    factory: pytest.TempPathFactory, name: str, a: str, b: str, seed: int, max_ticks: int
) -> Path:
    """A match of two baselines, its replay written to a file of its own."""
    result = arena.match.run_match(
        arena.Contestant(a, arena.load_baseline(a)),
        arena.Contestant(b, arena.load_baseline(b)),
        seed=seed,
        config=sim.Config(max_ticks=max_ticks),
    )
    path = factory.mktemp(name) / f"{name}.replay"
    path.write_bytes(result.replay)
    return path


@pytest.fixture(scope="module")
def raid(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The match of docs/replays.md's example: units die on both sides, both sides mine."""
    return recorded(tmp_path_factory, "raid", "greedy-raider", "border-soldier", 3, 150)


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A raid that razes side B's colony."""
    return recorded(tmp_path_factory, "sweep", "greedy-raider", "random", 1, 200)


def read(path: Path) -> replays.Replay:
    return replays.read_replay(path.read_bytes())


# --------------------------------------------------------------------------- iter_ticks


def test_events_of_a_real_match_agree_with_the_sim(raid: Path) -> None:
    ticks = check_against_the_sim(read(raid))
    kinds = {(str(e.kind), e.side) for t in ticks for e in t.events}
    # Everything was exercised, on both sides.
    assert kinds == {
        (k, s) for k in ("attack", "death", "mine", "deposit", "spawn") for s in (0, 1)
    }
    assert any(e.kind == "death" and e.amount for t in ticks for e in t.events)


def test_events_of_the_golden_replays_agree_with_the_sim() -> None:
    for path in sorted((TESTS / "golden").glob("*.replay")):
        ticks = check_against_the_sim(read(path))
        assert any(t.events for t in ticks), path.name


@given(seed=st.integers(0, 2**16), forfeit=st.booleans())
@settings(max_examples=examples(40), deadline=None)
def test_events_of_fierce_scripted_matches_agree_with_the_sim(seed: int, forfeit: bool) -> None:
    """Soldiers that strike their own, the colony, rock and the void; workers that mine
    every direction on both sides; a forfeit tick that yields nothing."""
    played = play_scripted(
        seed, max_ticks=60, fierce=True, forfeit=(50, 1, "trap") if forfeit else None
    )
    replay = replays.read_replay(played.data)
    ticks = check_against_the_sim(replay)
    assert [t.state for t in ticks] == played.truth


def test_a_colony_hit_names_the_colony_and_its_attackers(sweep: Path) -> None:
    replay = read(sweep)
    ticks = check_against_the_sim(replay)
    hits = [e for t in ticks for e in t.events if e.hit == (1, 0)]
    assert hits and all(e.side == 0 and e.kind is replays.EventKind.ATTACK for e in hits)
    assert replay.result.reason == "sweep" and ticks[-1].state.colony_hp[1] == 0
    assert sum(e.amount for e in hits) >= replay.header.config.colony_hp


def test_an_event_that_does_not_fit_its_tick_is_a_replay_error() -> None:
    played = play_scripted(3, max_ticks=30, fierce=True)
    frames = copy.deepcopy(played.frames)
    frames[25]["v"][0] += [0, 99, 0]  # an attack by a unit side A never had
    tampered = replays.read_replay(pack(played.header, frames, played.result))
    with pytest.raises(replays.ReplayError) as caught:
        list(replays.iter_ticks(tampered))
    assert caught.value.tick == 25
    assert "frame of tick 25: an attack: unit 99 of side 0 is not alive" in str(caught.value)


def test_ore_from_nowhere_is_a_replay_error() -> None:
    """A carry that grew without a MINE record: the state says a unit mined, its actions deny it."""
    played = play_scripted(3, max_ticks=30)
    replay = replays.read_replay(played.data)
    tick, unit, carried = next(
        (f.tick, u, before[u.id].carry)
        for f in replay.frames
        if isinstance(f, replays.DeltaFrame)
        for before in [{u.id: u for u in played.truth[f.tick - 1].units[0]}]
        for u in played.truth[f.tick].units[0]
        if u.id in before and (u.id, sim.MINE) not in {r[:2] for r in f.actions[0]}
    )
    frames = copy.deepcopy(played.frames)
    flat = frames[tick]["h"][0]
    changes = {flat[i]: flat[i : i + 3] for i in range(0, len(flat), 3)}
    changes[unit.id] = [unit.id, unit.hp, carried + 1]
    flat[:] = [v for uid in sorted(changes) for v in changes[uid]]
    with pytest.raises(replays.ReplayError) as caught:
        list(replays.iter_ticks(replays.read_replay(pack(played.header, frames, played.result))))
    assert caught.value.tick == tick
    assert f"unit {unit.id} of side 0 carries more without a MINE record" in str(caught.value)


# --------------------------------------------------------------------------- the command


def test_the_summary_lists_each_event_with_its_side_unit_and_cell(
    raid: Path, capsys: Capture
) -> None:
    replay = read(raid)
    reading = resimulated(replay)
    out = cli(capsys, "replay", "show", str(raid), "--json")
    assert out.code == 0, out.err
    rows = out.json()["ticks"]
    for row, frame in zip(rows, replay.frames, strict=True):
        assert [seen_json(e) for e in row["event_list"]] == reading.events[frame.tick]
        assert not isinstance(frame, replays.ForfeitFrame)
        ev = frame.events
        # The design's key keeps its meaning: the counts.
        assert row["events"] == {
            "attacks": len(ev.attacks),
            "deaths": len(ev.deaths),
            "spawns": len(ev.spawns),
            "deposits": len(ev.deposits),
        }
    text = cli(capsys, "replay", "show", str(raid)).out
    assert "cells are absolute (side A's view)" in text
    row96 = text[text.index("\n   96 ") : text.index("\n   97 ")]
    assert "A#13 attacks (26, 13) from (26, 14): B#8 -3 hp" in row96
    assert "B#8 soldier dies at (26, 13), killed by A#13" in row96
    assert re.search(r"A mines \d+ ore", row96) and "mines (" not in text
    # The lines docs/controllers.md quotes are this match's.
    guide = (ROOT / "docs" / "controllers.md").read_text(encoding="utf-8")
    quoted = guide[guide.index("A#13 attacks") : guide.index("```", guide.index("A#13 attacks"))]
    for line in quoted.strip().splitlines():
        assert line in text, line
    only_b = cli(capsys, "replay", "show", str(raid), "--json", "--side", "B").json()["ticks"]
    for row, full in zip(only_b, rows, strict=True):
        assert row["event_list"] == [
            e
            for e in full["event_list"]
            if e["side"] == "B" or (e["hit"] is not None and e["hit"]["side"] == "B")
        ]


def test_a_tick_lists_what_it_resolved_to(raid: Path, capsys: Capture) -> None:
    summary = cli(capsys, "replay", "show", str(raid), "--json").json()["ticks"]
    out = cli(capsys, "replay", "show", str(raid), "--tick", "130", "--json")
    assert out.code == 0, out.err
    events = out.json()["events"]
    assert events == summary[130]["event_list"]
    death = next(e for e in events if e["kind"] == "death")
    assert death == {
        "tick": 130,
        "kind": "death",
        "side": "B",
        "unit": 15,
        "unit_kind": "worker",
        "x": 26,
        "y": 24,
        "target": None,
        "hit": None,
        "amount": 2,
        "by": [{"side": "A", "unit": 9}, {"side": "A", "unit": 18}],
        "text": "B#15 worker dies at (26, 24), killed by A#9, A#18, drops 2 ore",
    }
    text = cli(capsys, "replay", "show", str(raid), "--tick", "130", "--side", "A").out
    tail = text[text.index("events of the tick") :]
    assert "B#15 worker dies" not in tail and "A#9 attacks (26, 24) from" in tail
    assert all(" mines " not in line or line.strip().startswith("A#") for line in tail.splitlines())


def test_a_forfeit_tick_has_no_events(capsys: Capture, tmp_path: Path) -> None:
    played = play_scripted(4, max_ticks=20, forfeit=(6, 0, "trap"))
    path = tmp_path / "f.replay"
    path.write_bytes(played.data)
    out = cli(capsys, "replay", "show", str(path), "--tick", "6", "--json").json()
    assert out["applied"] is False and out["events"] == []
    assert (
        "events of the tick: none (it was not applied)"
        in cli(capsys, "replay", "show", str(path), "--tick", "6").out
    )
    rows = cli(capsys, "replay", "show", str(path), "--json").json()["ticks"]
    assert rows[-1]["applied"] is False and rows[-1]["event_list"] == []


# --------------------------------------------------------------------------- timeline


def test_the_timeline_is_each_sides_story(raid: Path, capsys: Capture) -> None:
    replay = read(raid)
    reading = resimulated(replay)
    out = cli(capsys, "replay", "show", str(raid), "--timeline", "--json")
    assert out.code == 0, out.err
    sides = out.json()["sides"]
    assert [s["side"] for s in sides] == ["A", "B"]
    keys = {"side", "name", "deaths", "spawns", "banked", "colony_hp", "timeline"}
    assert all(set(side) == keys for side in sides)
    applied = [f for f in replay.frames if not isinstance(f, replays.ForfeitFrame)]
    for s, side in enumerate(sides):
        line = side["timeline"]
        assert [e["tick"] for e in line] == sorted(e["tick"] for e in line)
        events = [e for e in line if e["kind"] != "colony"]
        expected = [
            e
            for t in sorted(reading.events)
            for e in reading.events[t]
            if e[2] == s and e[1] in ("death", "deposit", "spawn")
        ]
        assert sorted(map(seen_json, events)) == sorted(expected)
        # Banked over time: after a tick's last deposit, the frame's banked.
        last = {e["tick"]: e["banked"] for e in line if e["kind"] == "deposit"}
        assert last == {
            f.tick: f.banked[s]
            for f in applied
            if f.events.deposits and any(d[0] == s for d in f.events.deposits)
        }
        assert side["banked"] == replay.result.sides[s].banked
        # The colony's hp whenever it changed.
        hp = [replay.header.config.colony_hp] + [f.colony_hp[s] for f in applied]
        changes = {f.tick: f.colony_hp[s] for i, f in enumerate(applied) if hp[i + 1] != hp[i]}
        assert {e["tick"]: e["hp"] for e in line if e["kind"] == "colony"} == changes
        assert side["deaths"] == sum(
            len([d for d in f.events.deaths if d[0] == s]) for f in applied
        )
        assert side["spawns"] == sum(
            len([x for x in f.events.spawns if x[0] == s]) for f in applied
        )
    only = cli(capsys, "replay", "show", str(raid), "--timeline", "--json", "--side", "B")
    assert only.json()["sides"] == [sides[1]]


def test_the_timeline_names_the_colonys_attackers(sweep: Path, capsys: Capture) -> None:
    replay = read(sweep)
    reading = resimulated(replay)
    side = cli(capsys, "replay", "show", str(sweep), "--timeline", "--json", "--side", "B")
    hits = [e for e in side.json()["sides"][0]["timeline"] if e["kind"] == "colony"]
    assert hits[-1]["hp"] == 0 and replay.result.reason == "sweep"
    soldier_attack = replay.header.config.soldier_attack
    assert [h["tick"] for h in hits] == [
        t for t in sorted(reading.events) if reading.damage[t, 1, 0]
    ]
    keys = {"tick", "kind", "side", "x", "y", "hp", "max_hp", "change", "by"}
    assert all(set(hit) == keys for hit in hits)
    for hit in hits:
        # The sim's damage, before the hp is clamped at 0, is one blow per attacker.
        assert soldier_attack * len(hit["by"]) == reading.damage[hit["tick"], 1, 0]
        assert {b["side"] for b in hit["by"]} == {"A"} and hit["change"] < 0
        assert (hit["x"], hit["y"]) == replay.header.game_map.colonies[1]
        assert hit["max_hp"] == replay.header.config.colony_hp


def test_the_timeline_reads_on_80_columns(
    raid: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    out = cli(capsys, "replay", "show", str(raid), "--timeline")
    assert out.code == 0, out.err
    lines = out.out.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert any(
        re.fullmatch(r"\s+130\s+death\s+B#15 worker\s+\(26, 24\)\s+killed by A#9, A#18;.*", line)
        for line in lines
    )
    assert any(
        re.search(r"deposit\s+A#\d+ worker\s+\(\d+, \d+\)\s+\+\d+, banked \d+", line)
        for line in lines
    )


def mirrored(entry: dict[str, Any], width: int, height: int) -> dict[str, Any]:
    """An event or timeline entry as the other side's twin would have it."""
    other = {"A": "B", "B": "A"}
    out = dict(
        entry, side=other[entry["side"]], x=width - 1 - entry["x"], y=height - 1 - entry["y"]
    )
    out.pop("text", None)
    if entry.get("target") is not None:
        out["target"] = {
            "x": width - 1 - entry["target"]["x"],
            "y": height - 1 - entry["target"]["y"],
        }
    if entry.get("hit") is not None:
        out["hit"] = dict(entry["hit"], side=other[entry["hit"]["side"]])
    out["by"] = [dict(b, side=other[b["side"]]) for b in entry["by"]]
    return out


def arena_json(*args: str) -> Any:
    """``arena ARGS`` in this process, its JSON (no capsys: a property test runs it often)."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(list(args)) == 0
    return json.loads(printed.getvalue())


def twin(entry: dict[str, Any]) -> dict[str, Any]:
    """An entry without its text, which names the side (the twin's says B where it says A)."""
    return {k: v for k, v in entry.items() if k != "text"}


@given(
    bot=st.sampled_from(["greedy-raider", "border-soldier", "random"]),
    seed=st.integers(0, 2**32 - 1),
)
@example(bot="greedy-raider", seed=1)  # units die on both sides and both colonies fall
@settings(max_examples=examples(12), deadline=None)
def test_a_bot_playing_itself_has_mirrored_timelines(bot: str, seed: int) -> None:
    """Maps are point-symmetric and a deterministic bot plays either side the same
    (rules §3): side B's timeline is side A's turned 180 degrees, tick for tick, and
    so is every tick's list of events."""
    module = arena.load_baseline(bot)
    result = arena.match.run_match(
        arena.Contestant(bot, module),
        arena.Contestant(bot, module),
        seed=seed,
        config=sim.Config(max_ticks=150),
    )
    m = replays.read_replay(result.replay).header.game_map
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "mirror.replay"
        path.write_bytes(result.replay)
        a, b = arena_json("replay", "show", str(path), "--timeline", "--json")["sides"]
        rows = arena_json("replay", "show", str(path), "--json")["ticks"]
    assert [mirrored(e, m.width, m.height) for e in a["timeline"]] == list(map(twin, b["timeline"]))
    assert (a["deaths"], a["spawns"], a["banked"], a["colony_hp"]) == (
        b["deaths"],
        b["spawns"],
        b["banked"],
        b["colony_hp"],
    )
    for row in rows:
        # Within a kind, the sim lists side A's events first; the twins' order is the same.
        by_side = [[e for e in row["event_list"] if e["side"] == side] for side in SIDES]
        assert [mirrored(e, m.width, m.height) for e in by_side[0]] == list(map(twin, by_side[1]))


# --------------------------------------------------------------------------- the example


def _documented_output() -> str:
    page = (ROOT / "docs" / "replays.md").read_text(encoding="utf-8")
    start = page.index("python docs/examples/replay_summary.py raid.replay --side B")
    block = page.index("```text\n", start) + len("```text\n")
    return page[block : page.index("```", block)]


def test_the_example_script_prints_what_the_docs_show(
    raid: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "argv", [str(EXAMPLE), str(raid), "--side", "B"])
    capsys.readouterr()
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    printed = capsys.readouterr().out
    assert printed == _documented_output()
    # Its deaths are the sim's.
    reading = resimulated(read(raid))
    deaths = [
        e
        for t in sorted(reading.events)
        for e in reading.events[t]
        if e[1] == "death" and e[2] == 1
    ]
    assert len(deaths) == printed.count(" died at ") > 0
    for t, _, _, uid, _, x, y, _, _ in deaths:
        assert re.search(rf"tick +{t}: \w+ {uid} died at \({x}, {y}\)", printed)


@pytest.mark.processes
def test_the_example_script_runs_on_its_own(raid: Path, tmp_path: Path) -> None:
    """As an author runs it: a process of its own, from elsewhere, on the documented match."""
    ran = subprocess.run(
        [sys.executable, str(EXAMPLE), str(raid), "--side", "B"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": ""},
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == _documented_output()
