"""The wasm sandbox that hosts untrusted controllers (rules §8 and §9).

The only code that imports wasmtime. One engine per process, with fuel
metering and epoch interruption; modules compiled out of process under time
and memory bounds and cached by sha256; one store and instance per
``Controller``. Guest faults never raise: they come back as ``Fault``.
"""

from arena.sandbox._admission import check_module
from arena.sandbox._controller import Controller
from arena.sandbox._engine import WASMTIME_VERSION
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
