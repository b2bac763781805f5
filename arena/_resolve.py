"""Turn a command-line controller argument into a contestant: a .wasm path or a baseline."""

from __future__ import annotations

from pathlib import Path

from arena._errors import UnknownControllerError
from arena._match import Contestant
from arena._sandbox import MAX_MODULE_BYTES

__all__ = ["load_contestant"]


def load_contestant(spec: str) -> Contestant:
    """A file path if one exists (or the argument ends in .wasm), else a baseline name."""
    path = Path(spec)
    if path.suffix == ".wasm" or path.exists():
        try:
            size = path.stat().st_size
            if size > MAX_MODULE_BYTES:
                # Read no further than needed: admissibility refuses it anyway.
                with path.open("rb") as f:
                    blob = f.read(MAX_MODULE_BYTES + 1)
            else:
                blob = path.read_bytes()
        except OSError as exc:
            raise UnknownControllerError(f"{spec}: cannot read the module: {exc}") from None
        return Contestant(path.stem, blob)
    from arena._baselines import BASELINES, load_baseline

    if spec not in BASELINES:
        known = ", ".join(sorted(BASELINES))
        raise UnknownControllerError(
            f"{spec!r} is neither a .wasm file nor a baseline (baselines: {known})"
        )
    return Contestant(spec, load_baseline(spec))
