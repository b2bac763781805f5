"""Admissibility (rules §8): may a module compete at all, and if not, exactly why.

Every text a refusal or a fault carries is the host's own words; what comes
from wasmtime or the module is bounded at the source (``bounded``). A trap is
described by its code and where it struck, never by wasmtime's formatted
message: formatting a backtrace demangles the module's function names, work a
hostile module controls and no fuel or clock bounds.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import Final

from arena.sandbox import _ffi
from arena.sandbox._engine import CompileTimeout, engine, epoch_ticks, format_reason, load_module
from arena.sandbox._ffi import FuncExport, MemoryExport, Trap, WasmtimeError
from arena.sandbox._limits import MAX_TABLES, TABLE_ELEMENTS, Admission, Fault, Limits
from arena.sandbox._structure import Structure, read_structure, segments_reason
from arena.sandbox._toolchains import Imports, imports_reason
from arena.sandbox._trap_codes import OUT_OF_FUEL, trap_words
from sim import ForfeitKind

__all__ = [
    "EXPORT_SIGNATURES",
    "MAX_FOREIGN_CHARS",
    "bounded",
    "check_module",
    "error_text",
    "new_store",
    "prepare",
    "structure_reason",
    "trap_text",
]

EXPORT_SIGNATURES: Final[dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
    "foray_buffer": ((), ("i32",)),
    "foray_init": (("i32",), ("i32",)),
    "foray_tick": (("i32",), ("i32",)),
}
"""The exported functions every controller must have, with their (params, results)."""
OPTIONAL_SIGNATURES: Final[dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
    "foray_note": ((), ("i32",)),
}
"""Exports a controller may have (rules §9.9): if present, they must have this type."""

MAX_FOREIGN_CHARS: Final = 300
"""Characters of any text that came from wasmtime or the module, kept in a fault or reason."""


def bounded(text: str, most: int = MAX_FOREIGN_CHARS) -> str:
    """``text`` cut to ``most`` characters (the cut marked with an ellipsis)."""
    return text if len(text) <= most else text[: most - 1] + "…"


def trap_text(trap: Trap) -> str:
    """What trapped and where, from the trap code and the innermost frame's offsets only."""
    text = "wasm trap: " + trap_words(trap.code)
    frame = trap.frame
    if frame is not None:
        func, offset = frame
        where = "an unknown module offset" if offset is None else f"module offset {offset:#x}"
        text += f" (in function {func}, at {where})"
    return text


def error_text(exc: WasmtimeError) -> str:
    """An error's text, bounded; if wasm frames are attached, formatting it is not safe."""
    if exc.message is None:
        return "an error inside WebAssembly code"
    return bounded(" ".join(exc.message.split()))


def _signature(params: tuple[str, ...], results: tuple[str, ...]) -> str:
    return f"({', '.join(params)}) -> {', '.join(results) or '()'}"


def structure_reason(module: _ffi.Module, limits: Limits) -> str | None:
    """Imports, exports and their types, and the declared memory size.

    Every missing or mistyped export is named at once, so an author fixes them
    in one build; the memory size is judged once the exports are right.
    """
    if found := module.imports():
        imports = Imports()
        for module_name, name in found:
            imports.add(module_name, name)
        return imports_reason(imports)
    exports = module.exports()
    missing: list[str] = []
    wrong: list[str] = []
    memory_type = exports.get("memory")
    if memory_type is None:
        missing.append("memory")
    elif not isinstance(memory_type, MemoryExport):
        wrong.append("export memory is not a memory")
    optional = {name: sig for name, sig in OPTIONAL_SIGNATURES.items() if name in exports}
    for name, (params, results) in {**EXPORT_SIGNATURES, **optional}.items():
        ty = exports.get(name)
        if ty is None:
            missing.append(name)
        elif not isinstance(ty, FuncExport):
            wrong.append(f"export {name} is not a function")
        elif (got := (ty.params, ty.results)) != (params, results):
            wrong.append(
                f"export {name} has type {_signature(*got)}, expected {_signature(params, results)}"
            )
    if missing or wrong:
        return "; ".join(([f"missing export {', '.join(missing)}"] if missing else []) + wrong)
    assert isinstance(memory_type, MemoryExport)
    initial = memory_type.minimum_pages * 65_536
    if initial > limits.max_memory_bytes:
        return f"initial memory {initial} bytes is over max_memory_bytes {limits.max_memory_bytes}"
    return None


def new_store(limits: Limits) -> _ffi.Store:
    """A store with the caps of ``limits`` (no fuel set yet)."""
    store = _ffi.Store(engine())
    # The hard limit sits above the cap: the C API's limiter cannot report a
    # refused grow, so the cap is judged by the memory's size after each call.
    store.set_limits(
        memory_size=2 * limits.max_memory_bytes,
        table_elements=TABLE_ELEMENTS,
        instances=1,
        tables=MAX_TABLES,
        memories=1,
    )
    return store


_STRUCTURES_KEPT: Final = 256
_structures: OrderedDict[str, Structure | str] = OrderedDict()
_structures_lock = threading.Lock()


def _structure(blob: bytes, sha: str) -> Structure | str:
    """``read_structure(blob)``, kept by sha256: reading the code takes time linear in its
    size (docs/benchmarks.md), and every match's init checks its modules again."""
    with _structures_lock:
        found = _structures.get(sha)
        if found is not None:
            _structures.move_to_end(sha)
            return found
    found = read_structure(blob)
    with _structures_lock:
        _structures[sha] = found
        while len(_structures) > _STRUCTURES_KEPT:
            _structures.popitem(last=False)
    return found


def prepare(blob: bytes, sha: str, limits: Limits) -> _ffi.Module | Fault:
    """Checks 1-9 of rules §8.2 and the static part of check 10, in order; no guest code runs.

    Returns the compiled module, or the ``Fault`` a match would record: kind
    ``init``, or ``timeout`` when the compile backstop fired (a wall-clock
    verdict, rules §8.7).
    """
    reason = format_reason(blob)
    if reason is not None:
        return Fault(ForfeitKind.INIT, reason)
    structure = _structure(blob, sha)
    if isinstance(structure, str):
        return Fault(ForfeitKind.INIT, structure)
    module = load_module(blob, sha, limits)
    if isinstance(module, CompileTimeout):
        return Fault(ForfeitKind.TIMEOUT, str(module))
    if isinstance(module, str):
        return Fault(ForfeitKind.INIT, module)
    reason = structure_reason(module, limits) or segments_reason(structure)
    if reason is not None:
        return Fault(ForfeitKind.INIT, reason)
    return module


def check_module(blob: bytes, limits: Limits | None = None) -> Admission:
    """Decide whether ``blob`` may compete at all (rules §8.2).

    Checks the size and binary format, the structural limits (before any
    compile), compiles out of process within the compile bounds, checks imports
    and exports, proves that every active segment fits its memory or table,
    then instantiates with zero fuel under the store caps: this proves memory
    and tables fit without running any guest code (a start function stops at
    once, out of fuel; its behaviour is judged by ``Controller.init``).

    A compile that exceeds ``compile_timeout`` is refused with a reason that
    says so: that verdict is the wall clock's, not the module's.
    """
    limits = limits or Limits()
    blob = bytes(blob)
    sha = hashlib.sha256(blob).hexdigest()
    module = prepare(blob, sha, limits)
    if isinstance(module, Fault):
        reason = module.detail
        if module.kind == ForfeitKind.TIMEOUT:
            reason += " (a wall-clock verdict: a match records it as kind timeout)"
        return Admission(False, sha, reason)
    store = new_store(limits)
    store.set_fuel(0)
    store.set_epoch_deadline(epoch_ticks(limits.init_timeout))
    refused: str | None = None
    try:
        store.instantiate(module)
    except Trap as trap:
        if trap.code != OUT_OF_FUEL:
            refused = "instantiation failed: " + trap_text(trap)
    except WasmtimeError as exc:
        refused = "instantiation failed: " + error_text(exc)
    finally:
        store.close()
    return Admission(refused is None, sha, refused)
