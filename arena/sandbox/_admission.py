"""Admissibility (rules §8): may a module compete at all, and if not, exactly why."""

from __future__ import annotations

import hashlib
from typing import Final

import wasmtime

from arena.sandbox._engine import engine, epoch_ticks, load_module
from arena.sandbox._limits import MAX_TABLES, TABLE_ELEMENTS, Admission, Limits

__all__ = ["EXPORT_SIGNATURES", "check_module", "new_store", "structure_reason", "trap_detail"]

EXPORT_SIGNATURES: Final[dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
    "foray_buffer": ((), ("i32",)),
    "foray_init": (("i32",), ("i32",)),
    "foray_tick": (("i32",), ("i32",)),
}
"""The exported functions every controller must have, with their (params, results)."""


def _valtypes(types: list[wasmtime.ValType]) -> tuple[str, ...]:
    return tuple(str(t) for t in types)


def _signature(params: tuple[str, ...], results: tuple[str, ...]) -> str:
    return f"({', '.join(params)}) -> {', '.join(results) or '()'}"


def structure_reason(module: wasmtime.Module, limits: Limits) -> str | None:
    """Imports, exports and their types, and the declared memory size."""
    for imp in module.imports:
        return f"import {imp.module}.{imp.name} is not allowed (modules may have no imports)"
    exports = {exp.name: exp.type for exp in module.exports}
    memory_type = exports.get("memory")
    if memory_type is None:
        return "missing export memory"
    if not isinstance(memory_type, wasmtime.MemoryType):
        return "export memory is not a memory"
    for name, (params, results) in EXPORT_SIGNATURES.items():
        ty = exports.get(name)
        if ty is None:
            return f"missing export {name}"
        if not isinstance(ty, wasmtime.FuncType):
            return f"export {name} is not a function"
        got = (_valtypes(ty.params), _valtypes(ty.results))
        if got != (params, results):
            return (
                f"export {name} has type {_signature(*got)}, expected {_signature(params, results)}"
            )
    initial = memory_type.limits.min * 65_536
    if initial > limits.max_memory_bytes:
        return f"initial memory {initial} bytes is over max_memory_bytes {limits.max_memory_bytes}"
    return None


def new_store(limits: Limits) -> wasmtime.Store:
    """A store with the caps of ``limits`` (no fuel set yet)."""
    store = wasmtime.Store(engine())
    # The hard limit sits above the cap: wasmtime-py cannot report a refused
    # grow, so the cap is judged by the memory's size after each call.
    store.set_limits(
        memory_size=2 * limits.max_memory_bytes,
        table_elements=TABLE_ELEMENTS,
        instances=1,
        tables=MAX_TABLES,
        memories=1,
    )
    return store


def trap_detail(message: str) -> str:
    """Shorten wasmtime's trap text: the trap first, then other causes, then the frame."""
    head, _, cause = message.rpartition("Caused by:")
    lines = [line.strip() for line in (cause or message).splitlines() if line.strip()]
    # Multi-cause messages number their lines ("0: ...", "1: ...").
    lines = [
        line.split(": ", 1)[1] if line[:1].isdigit() and ": " in line else line for line in lines
    ]
    lines.sort(key=lambda line: not line.startswith("wasm trap:"))
    frame = ""
    for line in head.splitlines():
        line = line.strip()
        if line.startswith("0:"):
            frame = " at " + " ".join(line[2:].split())
            break
    return "; ".join(lines) + frame


def check_module(blob: bytes, limits: Limits | None = None) -> Admission:
    """Decide whether ``blob`` may compete at all (rules §8).

    Checks the binary format and size, compiles out of process within the
    compile bounds, checks imports and exports, then instantiates with zero
    fuel under the store caps: this proves memory, tables and segments fit
    without running any guest code (a start function stops at once, out of
    fuel; its behaviour is judged by ``Controller.init``).
    """
    limits = limits or Limits()
    blob = bytes(blob)
    sha = hashlib.sha256(blob).hexdigest()
    module = load_module(blob, sha, limits)
    if isinstance(module, str):
        return Admission(False, sha, module)
    reason = structure_reason(module, limits)
    if reason is None:
        store = new_store(limits)
        store.set_fuel(0)
        store.set_epoch_deadline(epoch_ticks(limits.init_timeout))
        try:
            wasmtime.Instance(store, module, [])
        except wasmtime.Trap as trap:
            if trap.trap_code != wasmtime.TrapCode.OUT_OF_FUEL:
                reason = "instantiation failed: " + trap_detail(trap.message)
        except wasmtime.WasmtimeError as exc:
            reason = "instantiation failed: " + trap_detail(str(exc))
    return Admission(reason is None, sha, reason)
