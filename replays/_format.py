"""Replay format version 1: a msgpack stream of one header, one frame per tick, one result.

Every object is a msgpack map with short string keys (frames are the bulk of a
file, so their keys are one letter). Coordinates and cells are absolute (side
0's frame; a cell is ``y * width + x``). Actions are recorded as submitted, in
the submitter's own frame, because re-simulation must feed the rules what the
controllers said.

header  {"type": "header", "format": "foray-replay", "version": 1,
         "rules_version", "generator_version", "wasmtime", "case": {"slug", "version"} | None,
         "seed", "config": {constant: int}, "limits": {name: number},
         "map": {"width", "height", "rock": bin, "ore": [int], "colonies": [[x, y], [x, y]]},
         "sides": [{"name", "sha256"}, {"name", "sha256"}]}

frame   The state after tick "t" was resolved. Three shapes:

  keyframe (every tick t with t % KEYFRAME_INTERVAL == 0):
        {"t", "a", "f", "u", "g", "k", "b", "e", "o", "v", "x"}
  delta frame (every other applied tick):
        {"t", "a", "f", "m", "h", "k", "b", "e", "o", "v", "x"}
  forfeit frame (the tick in which a side forfeited; it was NOT applied, and
  it is the last frame):
        {"t", "a", "f", "x"}

  "a"  per side, the records as submitted, flat. In applied frames every record
       is valid, so it is packed as two ints: [id, op * 8 + arg, ...]. In a
       forfeit frame records may be anything, so they are raw triples
       [id, op, arg, ...] (an out-of-range count n is recorded as no records).
  "f"  [fuel A, fuel B] used this tick.
  "u"  per side, every living unit by id, flat: [id, kind, x, y, hp, carry, ...].
  "g"  [cell, amount, ...] for every cell holding ore, ascending (keyframes only).
  "m"  per side, a bin: one byte per unit of the previous frame's state that is
       still alive, in id order: the absolute direction it moved (0 stayed,
       1 N, 2 E, 3 S, 4 W).
  "h"  per side, flat [id, hp, carry, ...] for those surviving units whose hp or
       carry changed. Units spawned this tick are in "v" with their cell; they
       start with their kind's hp from the header's config and carry 0.
  "k", "b", "e"  [A, B] colony hp, banked, energy.
  "o"  [cell, amount, ...] for the cells whose ore changed, ascending.
  "v"  events: [attacks [side, id, cell, ...], deaths [side, id, ...],
       spawns [side, id, kind, cell, ...], deposits [side, id, amount, ...]].
  "x"  the u64 checksum of the resolved state (of the unchanged state, in a
       forfeit frame).

  A viewer draws tick t from the latest keyframe at or before t (its units
  "u" and its ore "g"), applying the delta frames after it in order: drop the
  dead, move the survivors by "m", apply "h", add the spawned, set the ore of
  "o". Units are listed in id order: the sim keeps each roster in id order.

result  {"type": "result", "winner": 0 | 1 | None, "reason", "ticks",
         "sides": [{"banked", "fuel_total", "fuel_peak",
                    "forfeit": None | {"tick", "kind", "detail"}}, x2]}
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, BinaryIO

import msgpack

import sim

__all__ = [
    "FORMAT",
    "KEYFRAME_INTERVAL",
    "MEDIA_TYPE",
    "MOVE_DELTAS",
    "VERSION",
    "FrameEncoder",
    "ReplayWriter",
    "pack_actions",
    "raw_actions",
    "unpack_actions",
    "unraw_actions",
]

FORMAT = "foray-replay"
VERSION = 1
MEDIA_TYPE = "application/x-msgpack"
KEYFRAME_INTERVAL = 20
"""Full unit lists every this many ticks bound how far a viewer replays deltas to seek."""


def pack_actions(records: Sequence[sim.Record]) -> list[int]:
    """Valid records, flat and packed: [id, op * 8 + arg, ...]."""
    out: list[int] = []
    for uid, op, arg in records:
        out += (uid, op * 8 + arg)
    return out


def unpack_actions(flat: Sequence[int]) -> list[sim.Record]:
    """The inverse of :func:`pack_actions`."""
    return [(flat[i], flat[i + 1] >> 3, flat[i + 1] & 7) for i in range(0, len(flat), 2)]


def raw_actions(records: Sequence[sim.Record]) -> list[int]:
    """Records as submitted, flat triples (forfeit frames)."""
    return [v for record in records for v in record]


def unraw_actions(flat: Sequence[int]) -> list[sim.Record]:
    """The inverse of :func:`raw_actions`."""
    return [(flat[i], flat[i + 1], flat[i + 2]) for i in range(0, len(flat), 3)]


class FrameEncoder:
    """Builds the frames of one match in order; keeps the previous state for deltas.

    The match runner records with it and the re-simulation check rebuilds with it,
    so what is written and what is checked cannot drift apart.
    """

    def __init__(self, game: sim.Game) -> None:
        self._prev = self._snapshot(game)

    @staticmethod
    def _snapshot(game: sim.Game) -> list[dict[int, tuple[int, int, int]]]:
        return [
            {uid: (u.cell, u.hp, u.carry) for uid, u in side.units.items()} for side in game.sides
        ]

    def applied(
        self,
        game: sim.Game,
        tick: int,
        submitted: Sequence[Sequence[sim.Record]],
        fuel: Sequence[int],
        ev: sim.TickEvents,
    ) -> dict[str, Any]:
        """The frame of an applied tick; ``game`` is the state after ``game.step``."""
        w = game.width
        frame: dict[str, Any] = {
            "t": tick,
            "a": [pack_actions(r) for r in submitted],
            "f": list(fuel),
        }
        if tick % KEYFRAME_INTERVAL == 0:
            units = []
            for side in game.sides:
                flat: list[int] = []
                for u in side.units.values():
                    flat += (u.id, u.kind, u.cell % w, u.cell // w, u.hp, u.carry)
                units.append(flat)
            frame["u"] = units
            ore_now: list[int] = []
            for cell, amount in enumerate(game.ore):
                if amount:
                    ore_now += (cell, amount)
            frame["g"] = ore_now
        else:
            moves, changes = [], []
            for side, prev in zip(game.sides, self._prev, strict=True):
                moved = bytearray()
                changed: list[int] = []
                for uid, (cell, hp, carry) in prev.items():
                    now = side.units.get(uid)
                    if now is None:
                        continue
                    moved.append(_direction(cell, now.cell, w))
                    if (now.hp, now.carry) != (hp, carry):
                        changed += (uid, now.hp, now.carry)
                moves.append(bytes(moved))
                changes.append(changed)
            frame["m"] = moves
            frame["h"] = changes
        self._prev = self._snapshot(game)
        ore: list[int] = []
        for cell in sorted(ev.ore_changed):
            ore += (cell, game.ore[cell])
        s0, s1 = game.sides
        frame.update(
            {
                "k": [s0.colony_hp, s1.colony_hp],
                "b": [s0.banked, s1.banked],
                "e": [s0.energy, s1.energy],
                "o": ore,
                "v": [
                    [v for e in ev.attacks for v in e],
                    [v for e in ev.deaths for v in e],
                    [v for e in ev.spawns for v in e],
                    [v for e in ev.deposits for v in e],
                ],
                "x": game.checksum(),
            }
        )
        return frame

    @staticmethod
    def forfeit(
        game: sim.Game,
        tick: int,
        submitted: Sequence[Sequence[sim.Record]],
        fuel: Sequence[int],
    ) -> dict[str, Any]:
        """The frame of a tick in which a side forfeited: not applied."""
        return {
            "t": tick,
            "a": [raw_actions(r) for r in submitted],
            "f": list(fuel),
            "x": game.checksum(),
        }


MOVE_DELTAS: tuple[tuple[int, int], ...] = ((0, 0), (0, -1), (1, 0), (0, 1), (-1, 0))
"""(dx, dy) of each byte of "m": 0 stayed, 1 N, 2 E, 3 S, 4 W (absolute)."""


def _direction(before: int, after: int, width: int) -> int:
    """The byte of "m" for a one-cell step (0 for none)."""
    step = after - before
    for d, (dx, dy) in enumerate(MOVE_DELTAS):
        if step == dx + dy * width:
            return d
    raise AssertionError(f"a unit moved from cell {before} to {after} in one tick")


class ReplayWriter:
    """Append header, frames and result to a binary stream, in that order."""

    def __init__(self, out: BinaryIO) -> None:
        self._out = out
        self._packer = msgpack.Packer(use_bin_type=True)
        self._state = "header"

    def header(self, header: dict[str, Any]) -> None:
        self._expect("header")
        self._write({"type": "header", "format": FORMAT, "version": VERSION, **header})
        self._state = "frames"

    def frame(self, frame: dict[str, Any]) -> None:
        self._expect("frames")
        self._write(frame)

    def result(self, result: dict[str, Any]) -> None:
        self._expect("frames")
        self._write({"type": "result", **result})
        self._state = "done"

    def _expect(self, state: str) -> None:
        if self._state != state:
            raise RuntimeError(f"replay writer: cannot write {state} in state {self._state}")

    def _write(self, obj: dict[str, Any]) -> None:
        self._out.write(self._packer.pack(obj))
