"""``arena replay``: ``verify`` a replay, ``show`` what a bot saw and did, its ``fuel``.

``verify`` re-simulates the replay (``replays.verify_replay``) or, with
``--modules``, plays its match again and compares the bytes. ``show`` and
``fuel`` work from the replay alone: the state of any tick is re-simulated from
the header and the recorded actions (``replays.iter_games``), the observation
is encoded exactly as the match runner encoded it and decoded field by field.
Each event says whose unit did what where (``replays.iter_ticks``), and
``show --timeline`` tells each side's story (``arena.cli._replay_events``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import replays
import sim
from arena.cli._common import emit_json, shown, stdout_console
from arena.cli._replay_events import (
    concerns,
    event_json,
    events_cell,
    print_timeline,
    timeline,
)
from arena.cli._replay_fuel import memory_text, report_fuel

__all__ = ["register"]

_SIDES = "AB"
_KINDS = {1: "worker", 2: "soldier"}
_DIRECTIONS = ("HERE", "NORTH", "EAST", "SOUTH", "WEST")


def _load(path: str) -> Any:
    from arena._files import open_regular

    with open_regular(Path(path), "replay") as f:
        try:
            return replays.read_replay(f)
        except replays.ReplayError as exc:  # said with the file it is about
            raise replays.ReplayError(f"{path}: {exc}", exc.tick) from None


def _sides(choice: str | None) -> list[int]:
    return [0, 1] if choice is None else [_SIDES.index(choice)]


# --------------------------------------------------------------------------- show


def _board(game: Any) -> list[str]:
    """The board at the start of a tick, absolute (side A's view): one string per row."""
    w = game.width
    rows = []
    cells = ["#" if rock else "." for rock in game.map.rock]
    for c, amount in enumerate(game.ore):
        if amount > 0:
            cells[c] = str(min(9, (amount + 9) // 10))
    for s, side in enumerate(game.sides):
        cells[side.colony] = _SIDES[s]
        for u in side.units.values():
            glyph = "w" if u.kind == 1 else "s"
            cells[u.cell] = glyph if s == 0 else glyph.upper()
    for y in range(game.height):
        rows.append("".join(cells[y * w : (y + 1) * w]))
    return rows


def _colonies(game: Any) -> list[dict[str, Any]]:
    """Both colonies at the start of a tick: where they are (absolute) and their hp."""
    w = game.width
    return [
        {
            "side": _SIDES[s],
            "x": side.colony % w,
            "y": side.colony // w,
            "hp": side.colony_hp,
            "max_hp": game.config.colony_hp,
        }
        for s, side in enumerate(game.sides)
    ]


def _carrying(game: Any) -> list[dict[str, Any]]:
    """The units that carry ore at the start of a tick, side A's first, by id (absolute)."""
    w = game.width
    return [
        {
            "side": _SIDES[s],
            "unit": u.id,
            "kind": _KINDS.get(u.kind, str(u.kind)),
            "x": u.cell % w,
            "y": u.cell // w,
            "carry": u.carry,
        }
        for s, side in enumerate(game.sides)
        for u in side.units.values()
        if u.carry > 0
    ]


def _record_text(record: Sequence[int]) -> str:
    uid, op, arg = record
    who = "colony" if uid == 0 else f"unit {uid}"
    if not 0 <= op <= sim.SPAWN:
        return f"{who} op {op} arg {arg}"
    name = sim.Op(op).name
    if op in (sim.MOVE, sim.ATTACK, sim.MINE) and 0 <= arg <= 4:
        return f"{who} {name} {_DIRECTIONS[arg]}"
    if op == sim.SPAWN and arg in _KINDS:
        return f"{who} {name} {_KINDS[arg]}"
    return f"{who} {name} {arg}"


def _tick_report(replay: Any, tick: int, sides: list[int]) -> dict[str, Any]:
    from arena.match import decode_obs, encode_obs

    game, frame = next((g, f) for g, f in replays.iter_games(replay) if f.tick == tick)
    applied = not isinstance(frame, replays.ForfeitFrame)
    fates: tuple[tuple[sim.ActionReport, ...], ...] = ((), ())
    if applied:
        fates = sim.explain_tick(game, frame.actions)
    previous = replay.frames[tick - 1].fuel if tick > 0 else (0, 0)
    memory = replays.memory_series(replay)  # None before format version 3
    out_sides = []
    for s in sides:
        obs, last_fuel = decode_obs(encode_obs(game.observe(s), previous[s]))
        actions = []
        records = frame.actions[s]
        forfeit = replay.result.sides[s].forfeit
        if applied:
            for report in fates[s]:
                actions.append(_action(report.record, str(report.fate), report.detail))
        else:
            broken = sim.validate_actions(
                len(records), records, game.roster(s), game.config.max_units
            )
            for record in records:
                actions.append(_action(record, "not applied", broken or "the tick was not applied"))
        acted = {r[0] for r in records}
        # A side that forfeited at this tick with no records recorded: none were read (an
        # out-of-range count) or its call never returned them (fuel, trap, timeout, memory).
        unread = None
        if not applied and not records and forfeit is not None and forfeit.tick == tick:
            unread = f"none recorded: the side forfeited ({forfeit.kind}): {forfeit.detail}"
        side: dict[str, Any] = {
            "side": _SIDES[s],
            "name": replay.header.sides[s].name,
            "observation": {
                "tick": obs.tick,
                "banked": obs.banked,
                "energy": obs.energy,
                "colony_hp": obs.colony_hp,
                "enemy_banked": obs.enemy_banked,
                "enemy_colony_hp": obs.enemy_colony_hp,
                "last_fuel": last_fuel,
                "own": [u._asdict() for u in obs.own],
                "enemy": [u._asdict() for u in obs.enemy],
                "ore": [o._asdict() for o in obs.ore],
            },
            "actions": actions,
            "unread": unread,
            "no_action": [] if unread else [u.id for u in obs.own if u.id not in acted],
            "fuel": frame.fuel[s],
            "memory": None if memory is None else memory[s][tick],
            "note": None if frame.notes is None else frame.notes[s],
            "forfeit": None if forfeit is None or forfeit.tick != tick else forfeit.to_dict(),
        }
        out_sides.append(side)
    # What the tick resolved to needs the state after it, which iter_ticks draws.
    events: list[dict[str, Any]] = []
    if applied:
        done = next(t for t in replays.iter_ticks(replay) if t.tick == tick)
        events = [event_json(e) for e in _concerning(done.events, sides)]
    return {
        "tick": tick,
        "applied": applied,
        "board": _board(game),
        "colonies": _colonies(game),
        "carrying": _carrying(game),
        "sides": out_sides,
        "events": events,
    }


def _action(record: Sequence[int], fate: str, detail: str) -> dict[str, Any]:
    uid, op, arg = record
    return {
        "unit": uid,
        "op": op,
        "arg": arg,
        "text": _record_text(record),
        "fate": fate,
        "detail": detail,
    }


def _print_tick(report: dict[str, Any], replay: Any) -> None:
    from rich.markup import escape

    console = stdout_console(highlight=False, soft_wrap=True)
    tick = report["tick"]
    names = [shown(s.name) for s in replay.header.sides]
    console.print(
        f"tick {tick} of {replay.ticks}: {escape(names[0])} (A) vs {escape(names[1])} (B),"
        f" seed {replay.header.seed}"
        + ("" if report["applied"] else " [bold red]- not applied: a side forfeited[/]")
    )
    reversed_ = "; reversed: carrying ore" if console.color_system is not None else ""
    console.print(
        f"board at the start of the tick (absolute; A w/s, B W/S, ore 1-9 x10, # rock{reversed_}):"
    )
    colour = {"A": "bold blue", "B": "bold red", "w": "blue", "s": "blue", "W": "red", "S": "red"}
    # On a terminal a unit that carries ore is drawn reversed; in plain text the
    # list under the board says which (a glyph of its own would hide the kind).
    laden = {(c["x"], c["y"]) for c in report["carrying"]}
    for y, row in enumerate(report["board"]):
        text = "".join(
            f"[{colour[ch]}{' reverse' if (x, y) in laden else ''}]{ch}[/]"
            if ch in colour
            else ("[yellow]" + ch + "[/]" if ch.isdigit() else ch)
            for x, ch in enumerate(row)
        )
        console.print(f"{y:>3} {text}")
    console.print(
        "colonies: "
        + "; ".join(
            f"{c['side']} at ({c['x']}, {c['y']}) hp {c['hp']}/{c['max_hp']}"
            for c in report["colonies"]
        )
    )
    carrying = report["carrying"]
    console.print(
        f"carrying ore ({len(carrying)}):"
        + (
            " "
            + ", ".join(
                f"{c['side']} {c['kind']} {c['unit']} at ({c['x']}, {c['y']}) carry {c['carry']}"
                for c in carrying
            )
            if carrying
            else " none"
        )
    )
    for side in report["sides"]:
        obs = side["observation"]
        enemy_hp = obs["enemy_colony_hp"]
        console.print(
            f"\nside {side['side']} ({escape(shown(side['name']))}): the observation as its"
            " controller received it (own view)"
        )
        console.print(
            f"  tick {obs['tick']}, banked {obs['banked']}, energy {obs['energy']},"
            f" colony hp {obs['colony_hp']}, enemy banked {obs['enemy_banked']},"
            f" enemy colony hp {enemy_hp if enemy_hp >= 0 else '-1 (not visible)'},"
            f" last fuel {obs['last_fuel']:,}"
        )
        for label, units in (("own units", obs["own"]), ("visible enemy units", obs["enemy"])):
            console.print(f"  {label} ({len(units)}):" + ("" if units else " none"))
            for u in units:
                console.print(
                    f"    id {u['id']:>2} {_KINDS.get(u['kind'], u['kind']):<7}"
                    f" at ({u['x']}, {u['y']}) hp {u['hp']} carry {u['carry']}"
                )
        ore = ", ".join(f"({o['x']}, {o['y']}) {o['amount']}" for o in obs["ore"])
        console.print(f"  visible ore ({len(obs['ore'])} cells): {ore or 'none'}")
        if side["memory"] is not None:
            cap = replay.header.limits.get("max_memory_bytes") or side["memory"] or 1
            console.print(f"  memory after its calls: {memory_text(side['memory'], cap)}")
        if side["unread"]:
            unread = escape(shown(side["unread"]))
            console.print(f"  actions returned: {unread}; fuel used {side['fuel']:,}")
        else:
            returned = len(side["actions"])
            console.print(f"  actions returned ({returned}), fuel used {side['fuel']:,}:")
        for a in side["actions"]:
            console.print(f"    {a['text']:<22} {a['fate']}: {escape(shown(a['detail']))}")
        if side["no_action"]:
            ids = ", ".join(str(i) for i in side["no_action"])
            console.print(f"  units given no action (NOOP): {ids}")
        note = side["note"]
        if isinstance(note, str):
            console.print(f"  note: {escape(shown(note))}")
        elif note is not None:
            console.print(f"  note dropped: foray_note returned {note} (rules §9.9: 0..256)")
        if side["forfeit"]:
            f = side["forfeit"]
            console.print(
                f"  [bold red]forfeit {f['kind']} at tick {f['tick']}:[/]"
                f" {escape(shown(f['detail']))}"
            )
    events = report["events"]
    if not report["applied"]:
        console.print("\nevents of the tick: none (it was not applied)")
        return
    console.print(
        f"\nevents of the tick, as it resolved ({len(events)}; absolute cells):"
        + ("" if events else " none")
    )
    for e in events:
        console.print(f"  {e['text']}")


def _summary(replay: Any, sides: list[int]) -> list[dict[str, Any]]:
    applied = {t.tick: t for t in replays.iter_ticks(replay)}
    rows = []
    for frame in replay.frames:
        tick = applied.get(frame.tick)
        row: dict[str, Any] = {"tick": frame.tick, "fuel": list(frame.fuel)}
        if tick is None:
            row.update(banked=None, units=None, events=None, applied=False, event_list=[])
        else:
            ev = frame.events
            row.update(
                banked=list(tick.state.banked),
                units=[len(tick.state.units[0]), len(tick.state.units[1])],
                events={
                    "attacks": len(ev.attacks),
                    "deaths": len(ev.deaths),
                    "spawns": len(ev.spawns),
                    "deposits": len(ev.deposits),
                },
                applied=True,
                event_list=[event_json(e) for e in _concerning(tick.events, sides)],
            )
        rows.append(row)
    return rows


def _concerning(
    events: Sequence[replays.UnitEvent], sides: list[int]
) -> Sequence[replays.UnitEvent]:
    """The events about the sides shown (all of them for both sides)."""
    if len(sides) == 2:
        return events
    return [e for e in events if concerns(e, sides[0])]


def _print_summary(rows: list[dict[str, Any]], replay: Any) -> None:
    from rich.table import Table

    names = [shown(s.name) for s in replay.header.sides]
    result = replay.result
    verdict = "draw" if result.winner is None else f"{_SIDES[result.winner]} wins"
    table = Table(
        title=f"{names[0]} (A) vs {names[1]} (B), seed {replay.header.seed}:"
        f" {verdict} ({result.reason}) after {result.ticks} ticks; cells are absolute"
        " (side A's view), units are a side's letter and its own id",
        box=None,
    )
    for column in ("tick", "banked A-B", "units A-B", "fuel A", "fuel B", "events"):
        table.add_column(column, justify="right" if column != "events" else "left")
    for row in rows:
        if not row["applied"]:
            table.add_row(
                str(row["tick"]), "", "", f"{row['fuel'][0]:,}", f"{row['fuel'][1]:,}", "forfeit"
            )
            continue
        table.add_row(
            str(row["tick"]),
            "-".join(map(str, row["banked"])),
            "-".join(map(str, row["units"])),
            f"{row['fuel'][0]:,}",
            f"{row['fuel'][1]:,}",
            events_cell(row["event_list"]),
        )
    stdout_console(highlight=False, soft_wrap=True).print(table)


def cmd_show(args: argparse.Namespace) -> int:
    from arena._errors import ArenaError

    replay = _load(args.file)
    if args.timeline:
        sides = timeline(replay, _sides(args.side))
        if args.json:
            emit_json({"sides": sides})
        else:
            print_timeline(sides, replay)
        return 0
    if args.tick is None:
        rows = _summary(replay, _sides(args.side))
        if args.json:
            emit_json({"ticks": rows})
        else:
            _print_summary(rows, replay)
        return 0
    if not 0 <= args.tick < replay.ticks:
        held = (
            f"ticks 0..{replay.ticks - 1}"
            if replay.ticks
            else "it has none: the match ended at init"
        )
        raise ArenaError(f"{args.file}: tick {args.tick} is not in the replay ({held})")
    report = _tick_report(replay, args.tick, _sides(args.side))
    if args.json:
        emit_json(report)
    else:
        _print_tick(report, replay)
    return 0


# --------------------------------------------------------------------------- fuel


def cmd_fuel(args: argparse.Namespace) -> int:
    return report_fuel(_load(args.file), _sides(args.side), args.top, args.json)


# --------------------------------------------------------------------------- verify


def cmd_verify(args: argparse.Namespace) -> int:
    from arena._files import open_regular, read_regular

    path = Path(args.file)
    if args.modules:
        from arena.match import load_contestant, replay_matches

        a, b = (load_contestant(spec) for spec in args.modules)
        # The whole file, bounded by the reader's own size limit (one byte more
        # is read so that the reader refuses an oversized file by size).
        data = read_regular(path, replays.DEFAULT_LIMITS.max_bytes, "replay")
        # Compared byte for byte with the match played again: the replay's own bytes.
        report = replay_matches(replays.decompress_replay(data), a.blob, b.blob)
        how = "played again from the modules, byte for byte the same"
    else:
        # Streamed: the reader bounds the file's size and every length in it.
        with open_regular(path, "replay") as f:
            report = replays.verify_replay(f)
        how = "re-simulated"
    if args.json:
        emit_json(report.to_json())
        if not report.ok:  # the JSON's keys are the design's; why it failed goes to stderr
            print(f"{shown(path)}: FAILED: {shown(report.detail)}", file=sys.stderr)
    elif report.ok:
        print(f"{shown(path)}: ok, {report.ticks} ticks {how}")
    else:
        print(f"{shown(path)}: FAILED: {shown(report.detail)}", file=sys.stderr)
    return 0 if report.ok else 1


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    r = sub.add_parser("replay", help="replay files").add_subparsers(
        dest="replay_command", required=True
    )
    v = r.add_parser(
        "verify",
        help="re-simulate a replay and check it (with --modules: play it again and compare)",
    )
    v.add_argument("file")
    v.add_argument(
        "--modules",
        nargs=2,
        metavar=("A", "B"),
        help="side A's and side B's modules (.wasm paths or baseline names): play the"
        " match again and require the same replay bytes",
    )
    v.add_argument("--json", action="store_true")
    v.set_defaults(func=cmd_verify)
    s = r.add_parser(
        "show",
        help="what each side saw and did at a tick (or a per-tick summary, or each side's"
        " timeline)",
    )
    s.add_argument("file")
    what = s.add_mutually_exclusive_group()
    what.add_argument(
        "--tick", type=int, help="the tick to show (default: a summary of every tick)"
    )
    what.add_argument(
        "--timeline",
        action="store_true",
        help="per side, tick by tick: deaths, spawns, deposits with the banked total, colony hp",
    )
    s.add_argument(
        "--side",
        choices=list(_SIDES),
        help="only this side, or the events about it (default: both)",
    )
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_show)
    f = r.add_parser(
        "fuel", help="each side's fuel per tick and its memory over time, against the caps"
    )
    f.add_argument("file")
    f.add_argument("--side", choices=list(_SIDES), help="only this side (default: both)")
    f.add_argument(
        "--top",
        type=int,
        default=5,
        help="how many ticks closest to the fuel cap, and of the last ticks memory grew in",
    )
    f.add_argument("--json", action="store_true")
    f.set_defaults(func=cmd_fuel)
