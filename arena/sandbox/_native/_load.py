"""A controller's tick call in C (``_call.c``): the happy path of ``Controller.tick``.

The same wasmtime C functions the ctypes path calls (``arena.sandbox._ffi``), in
the same order, from C: what it saves is ctypes' own cost of each call. Built
with the native core by ``scripts/build_native.py``, never on import; off
wherever the native core is (``sim.native_unavailable``), and refused when the
sources have moved on from its build.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import sim

__all__ = ["SOURCES", "load"]

SOURCES = ("_call.c",)
"""The files the module is built from, in this directory."""

_HERE = Path(__file__).resolve().parent
_loaded: list[ModuleType | None] = []


def load() -> ModuleType | None:
    """The tick call's module, or None (tried once per process)."""
    if not _loaded:
        _loaded.append(_try_load())
    return _loaded[0]


def _try_load() -> ModuleType | None:
    if sim.native_unavailable() is not None:
        return None
    try:
        from arena.sandbox._native import _call as module
    except ImportError:
        return None
    try:
        expected = sim.native_source_hash([_HERE / name for name in SOURCES])
    except OSError:
        return None
    return module if expected == module.SOURCE_HASH else None
