"""The wasm sandbox that hosts untrusted controllers (rules §8 and §9).

The only code that imports wasmtime. One engine per process, with fuel
metering and epoch interruption; modules compiled out of process under time
and memory bounds and cached by sha256; one store and instance per
``Controller``. Guest faults never raise: they come back as ``Fault``.

The limits and the structural limits load with the package; what compiles or
runs a module (``check_module``, ``Controller``, ``WASMTIME_VERSION``) loads
wasmtime on first use, so a command that only reads limits never starts the
engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena._lazy import lazy_names
from arena.sandbox._limits import (
    BUFFER_BYTES,
    MAX_MODULE_BYTES,
    MAX_TABLES,
    RECORD_BYTES,
    TABLE_ELEMENTS,
    Admission,
    Fault,
    Limits,
)
from arena.sandbox._structure import STRUCTURAL_LIMITS, StructuralLimits

if TYPE_CHECKING:
    from arena.sandbox._admission import check_module
    from arena.sandbox._controller import Controller
    from arena.sandbox._engine import WASMTIME_VERSION

# What needs the engine loads on first use (PEP 562), as the executors do.
_LAZY = {
    "check_module": "arena.sandbox._admission",
    "Controller": "arena.sandbox._controller",
    "WASMTIME_VERSION": "arena.sandbox._engine",
}

__all__ = [
    "BUFFER_BYTES",
    "MAX_MODULE_BYTES",
    "MAX_TABLES",
    "RECORD_BYTES",
    "STRUCTURAL_LIMITS",
    "TABLE_ELEMENTS",
    "WASMTIME_VERSION",
    "Admission",
    "Controller",
    "Fault",
    "Limits",
    "StructuralLimits",
    "check_module",
]

__getattr__, __dir__ = lazy_names(__name__, _LAZY, globals(), __all__)
