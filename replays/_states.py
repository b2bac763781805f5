"""Drawn states: the full state a viewer shows after each applied tick, rebuilt from the frames.

Keyframes carry every living unit; the delta frames between them carry only what
changed. ``iter_states`` applies them exactly as ``replays._format`` defines: from
the latest keyframe, per delta frame, drop the dead ("v" deaths), move the
survivors by "m", apply "h", add the spawned ("v" spawns, with their kind's hp
from the header's config and carry 0). The ore is a keyframe's "g" (every cell
holding ore), then each delta frame's "o".

A delta frame that does not fit the state it applies to raises ReplayError
naming the tick, as the reader does for a malformed frame.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple

import sim
from replays._format import MOVE_DELTAS
from replays._reader import Replay, ReplayError, is_forfeit_frame, replay_config

__all__ = ["FrameState", "UnitState", "iter_states"]


class UnitState(NamedTuple):
    """One living unit as drawn; compares equal to the tuple (id, kind, x, y, hp, carry)."""

    id: int
    kind: int
    x: int
    y: int
    hp: int
    carry: int


@dataclass(frozen=True, slots=True)
class FrameState:
    """The drawn state after applied tick ``tick`` (absolute coordinates, side 0's frame)."""

    tick: int
    units: tuple[tuple[UnitState, ...], tuple[UnitState, ...]]
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
    config = replay_config(replay.header)
    m = replay.header["map"]
    width, height = m["width"], m["height"]
    ore = list(m["ore"])
    units: _Units | None = None
    for frame in replay.frames:
        if is_forfeit_frame(frame):
            continue
        t: int = frame["t"]
        try:
            if "u" in frame:
                units = _keyframe(frame["u"])
            elif units is None:
                raise _Misfit("m", "a delta frame with no keyframe before it")
            else:
                _apply_delta(units, frame, width, height, config)
        except _Misfit as exc:
            raise ReplayError(f"frame of tick {t}: {exc}", t) from None
        if "g" in frame:
            ore = [0] * len(ore)
        flat_ore: list[int] = frame["g"] if "g" in frame else frame["o"]
        for i in range(0, len(flat_ore), 2):
            ore[flat_ore[i]] = flat_ore[i + 1]
        k, b, e = frame["k"], frame["b"], frame["e"]
        yield FrameState(
            tick=t,
            units=(_drawn(units[0]), _drawn(units[1])),
            colony_hp=(k[0], k[1]),
            banked=(b[0], b[1]),
            energy=(e[0], e[1]),
            ore=tuple(ore),
        )


def _drawn(units: dict[int, list[int]]) -> tuple[UnitState, ...]:
    return tuple(UnitState(uid, *fields) for uid, fields in units.items())


def _keyframe(flat_units: list[list[int]]) -> _Units:
    return [{flat[i]: flat[i + 1 : i + 6] for i in range(0, len(flat), 6)} for flat in flat_units]


def _apply_delta(
    units: _Units, frame: dict[str, Any], width: int, height: int, config: sim.Config
) -> None:
    """Turn the previous state into this frame's, in place, in the format's order."""
    _attacks, deaths, spawns, _deposits = frame["v"]
    # 1. Drop the dead: units of the previous state.
    for i in range(0, len(deaths), 2):
        side, uid = deaths[i], deaths[i + 1]
        if units[side].pop(uid, None) is None:
            raise _Misfit(
                f"v.deaths[{i}]", f"unit {uid} of side {side} is not alive in the previous state"
            )
    for side, (moves, changes) in enumerate(zip(frame["m"], frame["h"], strict=True)):
        survivors = units[side]
        # 2. Move the survivors, one byte each, in id order.
        if len(moves) != len(survivors):
            raise _Misfit(
                f"m[{side}]",
                f"{len(moves)} moves for the {len(survivors)} surviving unit(s) of the"
                " previous state",
            )
        for i, (uid, unit) in enumerate(survivors.items()):
            dx, dy = MOVE_DELTAS[moves[i]]
            x, y = unit[1] + dx, unit[2] + dy
            if not (0 <= x < width and 0 <= y < height):
                raise _Misfit(
                    f"m[{side}][{i}]",
                    f"unit {uid} at ({unit[1]}, {unit[2]}) moves {moves[i]} off the map",
                )
            unit[1], unit[2] = x, y
        # 3. Apply the hp and carry changes.
        for i in range(0, len(changes), 3):
            uid = changes[i]
            changed = survivors.get(uid)
            if changed is None:
                raise _Misfit(
                    f"h[{side}][{i}:{i + 3}]",
                    f"unit {uid} is not a surviving unit of side {side}'s previous state",
                )
            changed[3], changed[4] = changes[i + 1], changes[i + 2]
    # 4. Add the spawned, with their kind's hp and nothing carried.
    hp = {sim.WORKER: config.worker_hp, sim.SOLDIER: config.soldier_hp}
    for i in range(0, len(spawns), 4):
        side, uid, kind, cell = spawns[i : i + 4]
        path = f"v.spawns[{i}]"
        living = units[side]
        highest = next(reversed(living), 0)
        if uid <= highest:
            raise _Misfit(
                path, f"unit id {uid} is not above side {side}'s highest living id {highest}"
            )
        if kind not in hp:
            raise _Misfit(path, f"kind {kind} is neither {sim.WORKER} nor {sim.SOLDIER}")
        if len(living) >= config.max_units:
            raise _Misfit(path, f"side {side} already has max_units {config.max_units} units")
        x, y = cell % width, cell // width
        if not (0 <= x < width and 0 <= y < height):
            raise _Misfit(path, f"cell {cell} is off the map")
        living[uid] = [kind, x, y, hp[kind], 0]
