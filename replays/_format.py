"""Replay format version 1: a msgpack stream of one header, one frame per tick, one result.

Every object is a msgpack map with short string keys (frames are the bulk of a
file, so their keys are one or two letters). All coordinates are absolute (side
0's frame); the actions are recorded exactly as submitted, in the submitter's own
frame, because re-simulation must feed the rules what the controllers said.

header  {"type": "header", "format": "foray-replay", "version": 1,
         "rules_version", "generator_version", "wasmtime", "case": {"slug", "version"} | None,
         "seed", "config": {constant: int}, "limits": {name: number},
         "map": {"width", "height", "rock": bin, "ore": [int], "colonies": [[x, y], [x, y]]},
         "sides": [{"name", "sha256"}, {"name", "sha256"}]}
frame   {"t": tick, "a": [[id, op, arg, ...] per side] (flat), "f": [fuel A, fuel B],
         "u": [[id, kind, x, y, hp, carry, ...] per side] (flat, by id),
         "k": [colony hp A, B], "b": [banked A, B], "e": [energy A, B],
         "o": [cell, amount, ...] (ore cells that changed this tick),
         "v": [attacks [side, id, cell, ...], deaths [side, id, ...], spawns [side, id, kind, ...],
               deposits [side, id, amount, ...]],
         "x": checksum of the resolved state (u64)}
         A frame of a tick in which a side forfeited carries "a" and "f" only (the
         tick was not applied) plus "x" of the unchanged state.
result  {"type": "result", "winner": 0 | 1 | None, "reason", "ticks",
         "sides": [{"banked", "fuel_total", "fuel_peak",
                    "forfeit": None | {"tick", "kind", "detail"}}, x2]}
"""

from __future__ import annotations

from typing import Any, BinaryIO

import msgpack

__all__ = ["FORMAT", "MEDIA_TYPE", "VERSION", "ReplayWriter"]

FORMAT = "foray-replay"
VERSION = 1
MEDIA_TYPE = "application/x-msgpack"


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
