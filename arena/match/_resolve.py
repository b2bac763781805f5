"""Turn a command-line controller argument into a contestant: a .wasm path or a baseline."""

from __future__ import annotations

from pathlib import Path

import sim
from arena._errors import ArenaError, UnknownControllerError
from arena.baselines import BASELINES, load_baseline
from arena.match._runner import Contestant
from arena.sandbox import MAX_MODULE_BYTES

__all__ = ["MAX_MAP_BYTES", "load_contestant", "load_map"]

MAX_MAP_BYTES = 64 * 1024
"""A 64x64 map with comments fits many times over; more is not a map."""


def load_contestant(spec: str) -> Contestant:
    """A file path if one exists (or the argument ends in .wasm), else a baseline name."""
    path = Path(spec)
    if path.suffix == ".wasm" or path.exists():
        try:
            # Read no more than admissibility could accept, plus one byte so an
            # oversized module is still refused by size; stat sizes are not
            # trusted (a device or a pipe has none).
            with path.open("rb") as f:
                blob = f.read(MAX_MODULE_BYTES + 1)
        except OSError as exc:
            raise UnknownControllerError(
                f"{spec}: cannot read the module: {exc.strerror or exc}"
            ) from None
        return Contestant(path.stem, blob)
    if spec not in BASELINES:
        known = ", ".join(sorted(BASELINES))
        raise UnknownControllerError(
            f"{spec!r} is neither a .wasm file nor a baseline (baselines: {known})"
        )
    return Contestant(spec, load_baseline(spec))


def load_map(path: Path) -> sim.GameMap:
    """Read and check a map file.

    A file that cannot be read is an ``ArenaError``; one that is not a valid map
    (too large, not UTF-8, breaking a rule) is a ``sim.MapError`` naming the
    file, and the line and cell where it can.
    """
    try:
        with path.open("rb") as f:
            data = f.read(MAX_MAP_BYTES + 1)
    except OSError as exc:
        raise ArenaError(f"{path}: cannot read the map: {exc.strerror or exc}") from None
    if len(data) > MAX_MAP_BYTES:
        raise sim.MapError(f"{path}: larger than {MAX_MAP_BYTES} bytes: not a map file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise sim.MapError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    return sim.parse_map(text, source=str(path))
