"""Whose is what in ``arena replay show``: each event's side, unit and cell, and the timeline.

The events come from ``replays.iter_ticks``, which completes the frames' terse
events from the drawn states; this module only words them (text and JSON) and
gathers a side's timeline: its deaths, spawns, deposits (with the banked total)
and its colony's hp when it changes. Cells are absolute (side A's view).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import replays
from arena.cli._common import shown, stdout_console

__all__ = [
    "concerns",
    "event_json",
    "event_text",
    "events_cell",
    "print_timeline",
    "timeline",
]

_SIDES = "AB"
_KINDS = {1: "worker", 2: "soldier"}


def _kind(unit_kind: int) -> str:
    return _KINDS.get(unit_kind, str(unit_kind))


def _who(side: int, unit: int) -> str:
    """A unit as the side's letter and its own id (``A#3``), or a side's colony."""
    return f"{_SIDES[side]} colony" if unit == 0 else f"{_SIDES[side]}#{unit}"


def _at(x: int, y: int) -> str:
    return f"({x}, {y})"


def concerns(event: replays.UnitEvent, side: int) -> bool:
    """Whether ``event`` is about ``side``: one of its units did it, or it hit one of them."""
    return event.side == side or (event.hit is not None and event.hit[0] == side)


def event_json(event: replays.UnitEvent) -> dict[str, Any]:
    """An event as ``--json`` gives it (the keys are documented in docs/controllers.md)."""
    foe = _SIDES[1 - event.side]
    return {
        "tick": event.tick,
        "kind": str(event.kind),
        "side": _SIDES[event.side],
        "unit": event.unit,
        "unit_kind": _kind(event.unit_kind),
        "x": event.x,
        "y": event.y,
        "target": None if event.target is None else {"x": event.target[0], "y": event.target[1]},
        "hit": None if event.hit is None else {"side": _SIDES[event.hit[0]], "unit": event.hit[1]},
        "amount": event.amount,
        "by": [{"side": foe, "unit": uid} for uid in event.by],
        "text": event_text(event),
    }


def event_text(event: replays.UnitEvent) -> str:
    """One event in a line: ``A#3 attacks (12, 7) from (11, 7): B#5 -3 hp``."""
    who, at = _who(event.side, event.unit), _at(event.x, event.y)
    kind = replays.EventKind
    target = "" if event.target is None else _at(*event.target)
    if event.kind is kind.ATTACK:
        hit = "no damage" if event.hit is None else f"{_who(*event.hit)} -{event.amount} hp"
        return f"{who} attacks {target} from {at}: {hit}"
    if event.kind is kind.DEATH:
        by = ", ".join(_who(1 - event.side, uid) for uid in event.by)
        dropped = f", drops {event.amount} ore" if event.amount else ""
        return (
            f"{who} {_kind(event.unit_kind)} dies at {at}"
            + (f", killed by {by}" if by else "")
            + dropped
        )
    if event.kind is kind.MINE:
        return f"{who} mines {target} from {at}"
    if event.kind is kind.DEPOSIT:
        return f"{who} deposits {event.amount} at {at}"
    return f"{who} {_kind(event.unit_kind)} spawned at {at}, cost {event.amount}"


def events_cell(events: Iterable[dict[str, Any]]) -> str:
    """A summary row's events (as ``event_json`` gives them): one line each, but a side's
    mines counted in one line (a busy side mines with most of its workers every tick)."""
    lines: list[str] = []
    mines = dict.fromkeys(_SIDES, 0)
    for event in events:
        if event["kind"] == "mine":
            mines[event["side"]] += 1
        else:
            lines.append(event["text"])
    lines += [f"{side} mines {n} ore" for side, n in mines.items() if n]
    return "\n".join(lines)


# --------------------------------------------------------------------------- timeline


def timeline(replay: replays.Replay, sides: Sequence[int]) -> list[dict[str, Any]]:
    """Per side, in tick order: its units' deaths and spawns, its deposits with the banked
    total after each, and its colony's hp whenever it changes (with the attackers)."""
    config = replay.header.config
    colonies = replay.header.game_map.colonies
    entries: list[list[dict[str, Any]]] = [[], []]
    banked = [0, 0]
    colony_hp = [config.colony_hp, config.colony_hp]
    for applied in replays.iter_ticks(replay):
        attackers: list[list[int]] = [[], []]
        for event in applied.events:
            s = event.side
            if event.kind is replays.EventKind.ATTACK and event.hit and event.hit[1] == 0:
                attackers[event.hit[0]].append(event.unit)
            elif event.kind is replays.EventKind.DEPOSIT:
                banked[s] += event.amount
                entries[s].append({**event_json(event), "banked": banked[s]})
            elif event.kind in (replays.EventKind.DEATH, replays.EventKind.SPAWN):
                entries[s].append(event_json(event))
        for s in (0, 1):
            hp = applied.state.colony_hp[s]
            if hp != colony_hp[s]:
                x, y = colonies[s]
                entries[s].append(
                    {
                        "tick": applied.tick,
                        "kind": "colony",
                        "side": _SIDES[s],
                        "x": x,
                        "y": y,
                        "hp": hp,
                        "max_hp": config.colony_hp,
                        "change": hp - colony_hp[s],
                        "by": [{"side": _SIDES[1 - s], "unit": u} for u in sorted(attackers[s])],
                    }
                )
                colony_hp[s] = hp
    return [
        {
            "side": _SIDES[s],
            "name": replay.header.sides[s].name,
            "deaths": sum(e["kind"] == "death" for e in entries[s]),
            "spawns": sum(e["kind"] == "spawn" for e in entries[s]),
            "banked": banked[s],
            "colony_hp": colony_hp[s],
            "timeline": entries[s],
        }
        for s in sides
    ]


def _entry_row(entry: dict[str, Any]) -> tuple[str, str, str, str, str]:
    kind, who = entry["kind"], f"{entry['side']}#{entry.get('unit')}"
    by = ", ".join(f"{b['side']}#{b['unit']}" for b in entry["by"])
    if kind == "colony":
        return (
            str(entry["tick"]),
            "colony",
            f"{entry['side']} colony",
            _at(entry["x"], entry["y"]),
            f"hp {entry['hp']}/{entry['max_hp']} ({entry['change']:+})"
            + (f", hit by {by}" if by else ""),
        )
    if kind == "death":
        detail = f"killed by {by}" if by else "killed"
        if entry["amount"]:
            detail += f"; dropped {entry['amount']} ore"
    elif kind == "spawn":
        detail = f"cost {entry['amount']}"
    else:
        detail = f"+{entry['amount']}, banked {entry['banked']}"
    return (
        str(entry["tick"]),
        kind,
        f"{who} {entry['unit_kind']}",
        _at(entry["x"], entry["y"]),
        detail,
    )


def print_timeline(sides: list[dict[str, Any]], replay: replays.Replay) -> None:
    """Each side's timeline as a table that fits 80 columns."""
    from rich.markup import escape
    from rich.table import Table

    console = stdout_console(highlight=False)
    result = replay.result
    verdict = "draw" if result.winner is None else f"{_SIDES[result.winner]} wins"
    console.print(
        f"{escape(shown(replay.header.sides[0].name))} (A) vs"
        f" {escape(shown(replay.header.sides[1].name))} (B), seed {replay.header.seed}:"
        f" {verdict} ({result.reason}) after {result.ticks} ticks; cells are absolute"
        " (side A's view)"
    )
    for side in sides:
        table = Table(
            title=f"side {side['side']} ({escape(shown(side['name']))}): {side['deaths']}"
            f" deaths, {side['spawns']} spawns, banked {side['banked']}, colony hp"
            f" {side['colony_hp']} at the end",
            title_justify="left",
            box=None,
        )
        table.add_column("tick", justify="right")
        for column in ("event", "unit", "cell", "detail"):
            table.add_column(column, overflow="fold")
        for entry in side["timeline"]:
            table.add_row(*_entry_row(entry))
        if not side["timeline"]:
            table.add_row("", "nothing", "", "", "no deaths, spawns, deposits or damage")
        console.print()
        console.print(table)
