"""Drawn states: the full state a viewer shows after each applied tick, rebuilt from the frames.

Keyframes carry every living unit; the delta frames between them carry only what
changed. ``iter_states`` applies them exactly as ``replays._format`` defines: from
the latest keyframe, per delta frame, drop the dead (deaths), move the
survivors by ``moves``, apply ``changes``, add the spawned (with their kind's hp
from the header's config and carry 0). The ore is a keyframe's ``ore`` (every
cell holding ore), then each delta frame's ``ore_changed``.

A delta frame that does not fit the state it applies to raises ReplayError
naming the tick, as the reader does for a malformed frame.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import sim
from replays._errors import ReplayError
from replays._format import DeltaFrame, ForfeitFrame, Frame, KeyFrame
from replays._reader import Replay

__all__ = ["FrameState", "iter_games", "iter_states"]


@dataclass(frozen=True, slots=True)
class FrameState:
    """The drawn state after applied tick ``tick`` (absolute coordinates, side 0's view)."""

    tick: int
    units: tuple[tuple[sim.UnitRecord, ...], tuple[sim.UnitRecord, ...]]
    """Per side, every living unit, by id."""
    colony_hp: tuple[int, int]
    banked: tuple[int, int]
    energy: tuple[int, int]
    ore: tuple[int, ...]
    """The ore of every cell, ``width * height`` amounts; cell ``y * width + x``."""


class _Misfit(Exception):
    """A delta that does not fit the state; the caller names the tick."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"field {path!r}: {message}")


# Per side: unit id -> [kind, x, y, hp, carry], in ascending id order.
_Units = list[dict[int, list[int]]]


def iter_states(replay: Replay) -> Iterator[FrameState]:
    """Yield the drawn state after every applied frame of a validated replay, in tick order.

    The unapplied frame of a forfeit tick yields nothing. Raises ReplayError
    (with ``tick``) at the first delta frame that does not fit the state before it.
    """
    config = replay.header.config
    m = replay.header.game_map
    width, height = m.width, m.height
    ore = list(m.ore)
    units: _Units | None = None
    for frame in replay.frames:
        if isinstance(frame, ForfeitFrame):
            continue
        t = frame.tick
        try:
            if isinstance(frame, KeyFrame):
                units = [{u.id: list(u[1:]) for u in side} for side in frame.units]
            elif units is None:
                raise _Misfit("m", "a delta frame with no keyframe before it")
            else:
                _apply_delta(units, frame, width, height, config)
        except _Misfit as exc:
            raise ReplayError(f"frame of tick {t}: {exc}", t) from None
        if isinstance(frame, KeyFrame):
            ore = [0] * len(ore)
            changed = frame.ore
        else:
            changed = frame.ore_changed
        for cell, amount in changed:
            ore[cell] = amount
        yield FrameState(
            tick=t,
            units=(_drawn(units[0]), _drawn(units[1])),
            colony_hp=frame.colony_hp,
            banked=frame.banked,
            energy=frame.energy,
            ore=tuple(ore),
        )


def _drawn(units: dict[int, list[int]]) -> tuple[sim.UnitRecord, ...]:
    return tuple(sim.UnitRecord(uid, *fields) for uid, fields in units.items())


def _apply_delta(
    units: _Units, frame: DeltaFrame, width: int, height: int, config: sim.Config
) -> None:
    """Turn the previous state into this frame's, in place, in the format's order."""
    # 1. Drop the dead: units of the previous state.
    for i, (side, uid) in enumerate(frame.events.deaths):
        if units[side].pop(uid, None) is None:
            raise _Misfit(
                f"v.deaths[{2 * i}]",
                f"unit {uid} of side {side} is not alive in the previous state",
            )
    for side, (moves, changes) in enumerate(zip(frame.moves, frame.changes, strict=True)):
        survivors = units[side]
        # 2. Move the survivors, one byte each, in id order.
        if len(moves) != len(survivors):
            raise _Misfit(
                f"m[{side}]",
                f"{len(moves)} moves for the {len(survivors)} surviving unit(s) of the"
                " previous state",
            )
        for i, (uid, unit) in enumerate(survivors.items()):
            dx, dy = sim.DIRECTION_DELTAS[moves[i]]
            x, y = unit[1] + dx, unit[2] + dy
            if not (0 <= x < width and 0 <= y < height):
                raise _Misfit(
                    f"m[{side}][{i}]",
                    f"unit {uid} at ({unit[1]}, {unit[2]}) moves {moves[i]} off the map",
                )
            unit[1], unit[2] = x, y
        # 3. Apply the hp and carry changes.
        for i, (uid, hp, carry) in enumerate(changes):
            changed = survivors.get(uid)
            if changed is None:
                raise _Misfit(
                    f"h[{side}][{3 * i}:{3 * i + 3}]",
                    f"unit {uid} is not a surviving unit of side {side}'s previous state",
                )
            changed[3], changed[4] = hp, carry
    # 4. Add the spawned, with their kind's hp and nothing carried.
    hp_of: dict[int, int] = {sim.WORKER: config.worker_hp, sim.SOLDIER: config.soldier_hp}
    for i, (side, uid, kind, cell) in enumerate(frame.events.spawns):
        path = f"v.spawns[{4 * i}]"
        living = units[side]
        highest = next(reversed(living), 0)
        if uid <= highest:
            raise _Misfit(
                path, f"unit id {uid} is not above side {side}'s highest living id {highest}"
            )
        if kind not in hp_of:
            raise _Misfit(path, f"kind {kind} is neither {sim.WORKER} nor {sim.SOLDIER}")
        if len(living) >= config.max_units:
            raise _Misfit(path, f"side {side} already has max_units {config.max_units} units")
        x, y = cell % width, cell // width
        if not (0 <= x < width and 0 <= y < height):
            raise _Misfit(path, f"cell {cell} is off the map")
        living[uid] = [kind, x, y, hp_of[kind], 0]


def iter_games(replay: Replay) -> Iterator[tuple[sim.Game, Frame]]:
    """Re-simulate a replay: yield the game at the START of each tick, with that tick's frame.

    The same ``sim.Game`` is stepped after each applied frame, so a consumer
    must read what it needs before asking for the next tick. Recorded actions
    that the rules would not accept raise ReplayError naming the tick (a
    tampered file; ``verify_replay`` says more).
    """
    header = replay.header
    game = sim.Game(header.game_map, header.config)
    max_units = header.config.max_units
    for frame in replay.frames:
        yield game, frame
        if isinstance(frame, ForfeitFrame):
            return
        for side in (0, 1):
            records = frame.actions[side]
            broken = sim.validate_actions(len(records), records, game.roster(side), max_units)
            if broken is not None:
                raise ReplayError(
                    f"frame of tick {frame.tick}: side {side}'s recorded actions break the"
                    f" contract ({broken})",
                    frame.tick,
                )
        game.step(frame.actions)
