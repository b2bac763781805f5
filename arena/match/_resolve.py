"""Turn a command-line controller argument into a contestant: a .wasm path or a baseline."""

from __future__ import annotations

import os
from pathlib import Path

import sim
from arena._errors import UnknownControllerError
from arena._files import read_regular
from arena.baselines import BASELINES, load_baseline
from arena.match._result import Contestant
from arena.sandbox import MAX_MODULE_BYTES

__all__ = ["MAX_MAP_BYTES", "load_contestant", "load_map"]

MAX_MAP_BYTES = 64 * 1024
"""A 64x64 map with comments fits many times over; more is not a map."""


def load_contestant(spec: str) -> Contestant:
    """A baseline's name, else a file's path (one that exists, or any ending in .wasm).

    A baseline's name wins over a file of that name in the working directory: the
    name says which module plays, whatever directory the command runs in (``./random``
    names the file). A file must be a regular file (a FIFO or a device is refused at once); it is
    read up to one byte past what admissibility could accept, so an oversized
    module is still refused by size. The side's name is the file's stem; a stem
    that is not UTF-8 keeps its undecodable bytes as U+FFFD.
    """
    if spec in BASELINES:
        return Contestant(spec, load_baseline(spec))
    path = Path(spec)
    if path.suffix == ".wasm" or os.path.lexists(path):
        blob = read_regular(path, MAX_MODULE_BYTES, "module")
        return Contestant(os.fsencode(path.stem).decode("utf-8", "replace"), blob)
    known = ", ".join(sorted(BASELINES))
    raise UnknownControllerError(
        f"{spec!r} is neither a .wasm file nor a baseline (baselines: {known})"
    )


def load_map(path: Path) -> sim.GameMap:
    """Read and check a map file.

    A file that cannot be read, or is not a regular file (a directory, a FIFO),
    is an ``ArenaError``; one that is not a valid map (too large, not UTF-8,
    breaking a rule) is a ``sim.MapError`` naming the file, and the line and
    cell where it can.
    """
    data = read_regular(path, MAX_MAP_BYTES, "map")
    if len(data) > MAX_MAP_BYTES:
        raise sim.MapError(f"{path}: larger than {MAX_MAP_BYTES} bytes: not a map file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise sim.MapError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    return sim.parse_map(text, source=str(path))
