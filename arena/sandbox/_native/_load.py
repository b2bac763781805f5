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


def _import() -> ModuleType:
    from arena.sandbox._native import _call

    return _call


load = sim.NativeLoader(_import, Path(__file__).resolve().parent, SOURCES)
"""The extension's module, or None (tried once per process)."""
