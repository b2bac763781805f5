"""Whose is what: each event of a replay with its side, its unit and its cell, for authors.

A frame records its events tersely (``replays._format``): an attack as (side,
id, target cell), a death as (side, id), a spawn with its kind and cell, a
deposit with its amount, and no mining at all, since the state says what
mining did. ``iter_ticks`` completes each event from the drawn states before
and after its tick (``iter_states``; before tick 0, the start the rules set
up): where the unit stood, what an attack hit, where a unit died and whose
attacks killed it, the ore it dropped, what a spawn cost. A mine is a worker
whose carry grew, at the cell its MINE record named. Cells are absolute (side
A's view), as in the rest of a replay.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum

import sim
from replays._errors import ReplayError
from replays._format import DeltaFrame, KeyFrame
from replays._reader import Replay
from replays._states import FrameState, iter_states

__all__ = ["AppliedTick", "EventKind", "UnitEvent", "iter_ticks"]


class EventKind(StrEnum):
    """What a unit did or what befell it in a tick, in the order the rules resolve them (§6)."""

    ATTACK = "attack"
    DEATH = "death"
    MINE = "mine"
    DEPOSIT = "deposit"
    SPAWN = "spawn"


@dataclass(frozen=True, slots=True)
class UnitEvent:
    """One unit's event of one tick. ``x``, ``y`` and ``target`` are absolute cells."""

    tick: int
    kind: EventKind
    side: int
    """The unit's side: 0 (A) or 1 (B). A death is the dead unit's side's event."""
    unit: int
    """The unit's id among its side's units (both sides have a unit 1)."""
    unit_kind: int
    """``sim.WORKER`` (1) or ``sim.SOLDIER`` (2)."""
    x: int
    y: int
    """Where the unit stood: where it attacked, died, mined or deposited from (a unit
    that does any of these does not move that tick), or where it was spawned."""
    target: tuple[int, int] | None = None
    """An attack's cell struck; a mine's cell mined (the unit's own for direction 0)."""
    hit: tuple[int, int] | None = None
    """What an attack damaged: (side, unit id), with id 0 for the colony; None when it
    struck an own unit, rock or nothing (rules §6.2)."""
    amount: int = 0
    """An attack: the damage dealt (0 when nothing was hit). A death: the ore it dropped.
    A mine: the ore taken (1). A deposit: the ore banked. A spawn: the energy it cost."""
    by: tuple[int, ...] = ()
    """A death: the ids of the enemy soldiers whose attacks hit the unit this tick
    (the other side's ids), ascending."""


@dataclass(frozen=True, slots=True)
class AppliedTick:
    """One applied tick of a replay: its frame, the state after it and its events."""

    tick: int
    frame: KeyFrame | DeltaFrame
    """As recorded: ``actions`` (own view), ``fuel``, ``notes``, the terse ``events``."""
    state: FrameState
    """The drawn state after the tick (``iter_states``)."""
    events: tuple[UnitEvent, ...]
    """Attacks, deaths, mines, deposits and spawns, in that order (the rules' order);
    deaths by (side, id), mines by (side, id), the others as recorded."""


# Per side, a unit id -> the unit as drawn.
_Roster = tuple[dict[int, sim.UnitRecord], dict[int, sim.UnitRecord]]


def iter_ticks(replay: Replay) -> Iterator[AppliedTick]:
    """Yield every applied tick of a validated replay with its events, in tick order.

    A forfeit tick is not applied and yields nothing. Raises ReplayError (with
    ``tick``) where a frame's events do not fit the state before it (a tampered
    file; ``verify_replay`` says more), as ``iter_states`` does for its deltas.
    """
    rules = _Rules.of(replay)
    before = _start(replay)
    frames = iter(f for f in replay.frames if isinstance(f, KeyFrame | DeltaFrame))
    for state, frame in zip(iter_states(replay), frames, strict=True):
        after: _Roster = (
            {u.id: u for u in state.units[0]},
            {u.id: u for u in state.units[1]},
        )
        try:
            events = _events(frame, before, after, rules)
        except _Misfit as exc:
            raise ReplayError(f"frame of tick {frame.tick}: {exc}", frame.tick) from None
        yield AppliedTick(frame.tick, frame, state, events)
        before = after


def _start(replay: Replay) -> _Roster:
    """The units before tick 0: the start workers the rules place (rules §4.5)."""
    game = sim.Game(replay.header.game_map, replay.header.config)
    w = game.width
    a, b = (
        {u.id: sim.UnitRecord(u.id, u.kind, u.cell % w, u.cell // w, u.hp, u.carry) for u in units}
        for units in (side.units.values() for side in game.sides)
    )
    return (a, b)


@dataclass(frozen=True, slots=True)
class _Rules:
    """What completing an event needs of the header."""

    width: int
    colonies: tuple[int, int]
    """Each side's colony cell."""
    damage: int
    cost: dict[int, int]
    """A unit kind's spawn cost."""

    @classmethod
    def of(cls, replay: Replay) -> _Rules:
        m, config = replay.header.game_map, replay.header.config
        (ax, ay), (bx, by) = m.colonies
        return cls(
            m.width,
            (ay * m.width + ax, by * m.width + bx),
            config.soldier_attack,
            {sim.WORKER: config.worker_cost, sim.SOLDIER: config.soldier_cost},
        )


class _Misfit(Exception):
    """An event that does not fit the state before its tick; the caller names the tick."""


def _unit(roster: _Roster, side: int, uid: int, what: str) -> sim.UnitRecord:
    unit = roster[side].get(uid) if side in (0, 1) else None
    if unit is None:
        raise _Misfit(f"{what}: unit {uid} of side {side} is not alive before the tick")
    return unit


def _events(
    frame: KeyFrame | DeltaFrame, before: _Roster, after: _Roster, rules: _Rules
) -> tuple[UnitEvent, ...]:
    t, width = frame.tick, rules.width
    recorded = frame.events
    out: list[UnitEvent] = []
    # Who stood where at the start of the tick: attacks strike from, and units
    # die on, their start-of-tick cells, before anything moves (rules §6.2-§6.3).
    standing = (
        {(u.x, u.y): (s, u.id) for s in (0, 1) for u in before[s].values()}
        if recorded.attacks
        else {}
    )
    struck: dict[tuple[int, int], list[int]] = {}  # (side, id) hit -> the attackers' ids
    for side, uid, cell in recorded.attacks:
        u = _unit(before, side, uid, "an attack")
        target = (cell % width, cell // width)
        occupant = standing.get(target)
        hit: tuple[int, int] | None = None
        if occupant is not None:
            if occupant[0] != side:
                hit = occupant
        elif cell == rules.colonies[1 - side]:
            hit = (1 - side, 0)
        if hit is not None:
            struck.setdefault(hit, []).append(uid)
        dealt = 0 if hit is None else rules.damage
        out.append(UnitEvent(t, EventKind.ATTACK, side, uid, u.kind, u.x, u.y, target, hit, dealt))
    for side, uid in recorded.deaths:
        u = _unit(before, side, uid, "a death")
        by = tuple(sorted(struck.get((side, uid), ())))
        out.append(
            UnitEvent(t, EventKind.DEATH, side, uid, u.kind, u.x, u.y, amount=u.carry, by=by)
        )
    for side in (0, 1):
        mines = {uid: arg for uid, op, arg in frame.actions[side] if op == sim.MINE}
        for uid, u in after[side].items():
            was = before[side].get(uid)
            if was is None or u.carry <= was.carry:
                continue
            if uid not in mines:
                raise _Misfit(f"unit {uid} of side {side} carries more without a MINE record")
            dx, dy = sim.DIRECTION_DELTAS[mines[uid]]
            if side:  # side B's directions are turned (rules §3.2)
                dx, dy = -dx, -dy
            target, gain = (u.x + dx, u.y + dy), u.carry - was.carry
            out.append(
                UnitEvent(t, EventKind.MINE, side, uid, u.kind, u.x, u.y, target, None, gain)
            )
    for side, uid, amount in recorded.deposits:
        u = _unit(before, side, uid, "a deposit")
        out.append(UnitEvent(t, EventKind.DEPOSIT, side, uid, u.kind, u.x, u.y, amount=amount))
    for side, uid, kind, cell in recorded.spawns:
        x, y, cost = cell % width, cell // width, rules.cost.get(kind, 0)
        out.append(UnitEvent(t, EventKind.SPAWN, side, uid, kind, x, y, amount=cost))
    return tuple(out)
