"""wasmtime's C API, in one place: the few dozen functions the host calls, through ctypes.

The library is the one the ``wasmtime`` package ships (``_libwasmtime.so`` beside
its Python files), loaded here without importing that package: wasmtime-py's
own import declares every one of the C API's 762 functions and wraps each in
Python, about half of a one-off match's start-up past the interpreter's
(docs/benchmarks.md, "The engine's library without wasmtime-py"). The host
needs 50 of them. The compile worker, a process of its own, still compiles
through wasmtime-py's public API (``_compile_worker.py``), with the same
settings; what it writes, this module's ``Module.deserialize`` reads.

Every ctypes use of the sandbox is here (a test keeps it so), so a wasmtime
upgrade has one module to check (and ``_trap_codes``, the codes' names);
``tests/test_sandbox_ffi.py`` compares each layout below, and each trap code,
with wasmtime-py's bindings of the installed version.
Objects wasmtime hands over (a module, a store, a trap, an error) are owned
by the small classes below, which free them; a trap and an error are read
whole when taken, then freed at once. The controller makes its ctypes objects
once, with the helpers below, and the per-tick path passes them as they are.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Mapping
from ctypes import POINTER, byref, c_bool, c_int64, c_size_t, c_uint8, c_uint32, c_uint64, c_void_p
from importlib.util import find_spec
from typing import Any, Final

import msgspec

from arena.sandbox._limits import BUFFER_BYTES
from arena.sandbox._trap_codes import trap_name

__all__ = [
    "ONE",
    "U64",
    "WASMTIME_LIBRARY",
    "Address",
    "Buffer",
    "Engine",
    "Export",
    "FuncExport",
    "FuncHandle",
    "Instance",
    "MemoryExport",
    "MemoryHandle",
    "Module",
    "OtherExport",
    "Store",
    "Trap",
    "ValRaw1",
    "WasmtimeError",
    "address_of",
    "call_unchecked",
    "function_addresses",
    "get_fuel",
    "memory_data",
    "memory_data_size",
    "ref",
    "set_epoch_deadline",
    "set_fuel",
    "wasmtime_dir",
]


def wasmtime_dir() -> str:
    """The installed ``wasmtime`` package's directory, found without importing it."""
    spec = find_spec("wasmtime")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("the wasmtime package is not installed (scripts/setup.sh installs it)")
    return str(next(iter(spec.submodule_search_locations)))


def _library_path() -> str:
    # The place wasmtime-py's own _ffi.py loads it from.
    machine = {"AMD64": "x86_64", "arm64": "aarch64", "ARM64": "aarch64"}.get(
        os.uname().machine, os.uname().machine
    )
    name = {"darwin": "_libwasmtime.dylib", "win32": "_wasmtime.dll"}.get(
        sys.platform, "_libwasmtime.so"
    )
    return os.path.join(wasmtime_dir(), f"{sys.platform}-{machine}", name)


WASMTIME_LIBRARY: Final = _library_path()
"""The wasmtime C library the sandbox runs modules with."""
_lib = ctypes.CDLL(WASMTIME_LIBRARY)


# ---- layouts (wasmtime.h, as wasmtime-py's bindings give them) -----------------


class _ByteVec(ctypes.Structure):
    _fields_ = [("size", c_size_t), ("data", c_void_p)]


class _PointerVec(ctypes.Structure):
    """Any ``wasm_*_vec_t`` of pointers (frames, import and export types, value types)."""

    _fields_ = [("size", c_size_t), ("data", POINTER(c_void_p))]


class FuncHandle(ctypes.Structure):
    """``wasmtime_func_t``: an exported function of one store."""

    _fields_ = [("store_id", c_uint64), ("private", c_void_p)]


class _MemoryId(ctypes.Structure):
    _fields_ = [("store_id", c_uint64), ("private1", c_uint32)]


class MemoryHandle(ctypes.Structure):
    """``wasmtime_memory_t``: an exported linear memory of one store."""

    _fields_ = [("id", _MemoryId), ("private2", c_uint32)]


class _ExternUnion(ctypes.Union):
    # The largest member is the memory's; the others (table, global, tag, shared
    # memory) are no larger, and a controller exports none the host reads.
    _fields_ = [("func", FuncHandle), ("memory", MemoryHandle)]


class _Extern(ctypes.Structure):
    _fields_ = [("kind", c_uint8), ("of", _ExternUnion)]


class _InstanceHandle(ctypes.Structure):
    _fields_ = [("store_id", c_uint64), ("private", c_size_t)]


class _ValRaw(ctypes.Union):
    _fields_ = [("i32", ctypes.c_int32), ("i64", c_int64), ("v128", c_uint8 * 16)]


_EXTERN_FUNC: Final = 0
_EXTERN_MEMORY: Final = 3

ValRaw1 = _ValRaw * 1
"""The one argument or result of a controller's calls, in and out in place."""
Buffer = ctypes.c_ubyte * BUFFER_BYTES
Address = c_void_p
"""A pointer held by value (a store's context, a trap): its ``value`` is the address, or None."""
U64 = c_uint64
"""A uint64_t argument or out-parameter (fuel, an epoch deadline)."""
ONE: Final = c_size_t(1)
# What wasm_frame_module_offset returns when the offset is not known (SIZE_MAX),
# as it is for a stack overflow caught at a function's entry.
_UNKNOWN_OFFSET: Final = c_size_t(-1).value


def _function(name: str, restype: Any, *argtypes: Any) -> Any:
    func = _lib[name]
    func.restype = restype
    func.argtypes = argtypes
    return func


def _raw_function(name: str, restype: Any) -> Any:
    """A ctypes function for ``name`` WITHOUT argtypes, for the per-tick path.

    With argtypes ctypes converts each argument on every call, a cost paid on
    every tick (docs/benchmarks.md). Without them the callers must pass exactly
    typed ctypes objects (c_void_p, c_uint64, byref(...)); the sandbox does.
    """
    func = _lib[name]
    func.restype = restype
    return func


_P = c_void_p  # every pointer argument and result: an int (or None), a byref, a ctypes object

_config_new = _function("wasm_config_new", _P)
_engine_new = _function("wasm_engine_new_with_config", _P, _P)
_increment_epoch = _function("wasmtime_engine_increment_epoch", None, _P)
_module_deserialize = _function("wasmtime_module_deserialize", _P, _P, _P, c_size_t, _P)
_module_delete = _function("wasmtime_module_delete", None, _P)
_module_imports = _function("wasmtime_module_imports", None, _P, _P)
_module_exports = _function("wasmtime_module_exports", None, _P, _P)
_importtype_vec_delete = _function("wasm_importtype_vec_delete", None, _P)
_exporttype_vec_delete = _function("wasm_exporttype_vec_delete", None, _P)
_importtype_module = _function("wasm_importtype_module", POINTER(_ByteVec), _P)
_importtype_name = _function("wasm_importtype_name", POINTER(_ByteVec), _P)
_exporttype_name = _function("wasm_exporttype_name", POINTER(_ByteVec), _P)
_exporttype_type = _function("wasm_exporttype_type", _P, _P)
_as_functype = _function("wasm_externtype_as_functype_const", _P, _P)
_as_memorytype = _function("wasm_externtype_as_memorytype_const", _P, _P)
_functype_params = _function("wasm_functype_params", POINTER(_PointerVec), _P)
_functype_results = _function("wasm_functype_results", POINTER(_PointerVec), _P)
_memorytype_minimum = _function("wasmtime_memorytype_minimum", c_uint64, _P)
_valtype_new = _function("wasm_valtype_new", _P, c_uint8)
_valtype_v128 = _function("wasmtime_wasm_valtype_v128", _P)
_valtype_equal = _function("wasmtime_wasm_valtype_equal", c_bool, _P, _P)
_store_new = _function("wasmtime_store_new", _P, _P, _P, _P)
_store_delete = _function("wasmtime_store_delete", None, _P)
_store_context = _function("wasmtime_store_context", _P, _P)
_store_limiter = _function(
    "wasmtime_store_limiter", None, _P, c_int64, c_int64, c_int64, c_int64, c_int64
)
_context_set_fuel = _function("wasmtime_context_set_fuel", _P, _P, c_uint64)
_context_set_epoch_deadline = _function("wasmtime_context_set_epoch_deadline", None, _P, c_uint64)
_instance_new = _function("wasmtime_instance_new", _P, _P, _P, _P, c_size_t, _P, _P)
_instance_export_get = _function("wasmtime_instance_export_get", c_bool, _P, _P, _P, c_size_t, _P)
_trap_code = _function("wasmtime_trap_code", c_bool, _P, _P)
_trap_trace = _function("wasm_trap_trace", None, _P, _P)
_trap_delete = _function("wasm_trap_delete", None, _P)
_frame_vec_delete = _function("wasm_frame_vec_delete", None, _P)
_frame_func_index = _function("wasm_frame_func_index", c_uint32, _P)
_frame_module_offset = _function("wasm_frame_module_offset", c_size_t, _P)
_error_message = _function("wasmtime_error_message", None, _P, _P)
_error_wasm_trace = _function("wasmtime_error_wasm_trace", None, _P, _P)
_error_delete = _function("wasmtime_error_delete", None, _P)
_byte_vec_delete = _function("wasm_byte_vec_delete", None, _P)

# The per-tick calls (and init's), argtype-free.
set_fuel = _raw_function("wasmtime_context_set_fuel", c_void_p)
get_fuel = _raw_function("wasmtime_context_get_fuel", c_void_p)
set_epoch_deadline = _raw_function("wasmtime_context_set_epoch_deadline", None)
memory_data_size = _raw_function("wasmtime_memory_data_size", c_size_t)
memory_data = _raw_function("wasmtime_memory_data", c_void_p)
call_unchecked = _raw_function("wasmtime_func_call_unchecked", c_void_p)


def _text(vec: Any) -> str:
    """A ``wasm_byte_vec_t``'s bytes as text (names and messages are UTF-8)."""
    return ctypes.string_at(vec.data, vec.size).decode("utf-8", "replace") if vec.size else ""


# ---- guest faults and host errors, read whole when taken ----------------------


def _innermost(frames: _PointerVec) -> tuple[int, int | None] | None:
    if not frames.size:
        return None
    first = frames.data[0]
    offset = int(_frame_module_offset(first))
    return int(_frame_func_index(first)), None if offset == _UNKNOWN_OFFSET else offset


class Trap(Exception):
    """A guest's call or instantiation trapped: its code and where, read from wasmtime's trap.

    The guest's fault, which the sandbox turns into a forfeit; never wasmtime's
    formatted message, whose backtrace would demangle the module's own names.
    """

    def __init__(self, code: int | None, frame: tuple[int, int | None] | None) -> None:
        super().__init__(trap_name(code))
        self.code = code
        """The trap code (``_trap_codes`` names it), or None for a trap without one."""
        self.frame = frame
        """(function index, module offset) of the frame it struck in; None outside wasm
        code. The offset is None when wasmtime does not know it (a stack overflow)."""

    @classmethod
    def take(cls, pointer: int) -> Trap:
        """Read a ``wasm_trap_t`` wasmtime handed over, and free it."""
        try:
            raw = c_uint8()
            code = raw.value if _trap_code(pointer, byref(raw)) else None
            frames = _PointerVec(0, None)
            _trap_trace(pointer, byref(frames))
            try:
                frame = _innermost(frames)
            finally:
                _frame_vec_delete(byref(frames))
            return cls(code, frame)
        finally:
            _trap_delete(pointer)


class WasmtimeError(Exception):
    """wasmtime refused something (a module's artifact, an instantiation, a call).

    Which of them is whose fault is for the caller to say. The message is read
    only when no wasm frames are attached: formatting those would demangle the
    module's names, work a hostile module controls (``message`` is then None).
    """

    def __init__(self, message: str | None) -> None:
        super().__init__(message or "an error inside WebAssembly code")
        self.message = message

    @classmethod
    def take(cls, pointer: int) -> WasmtimeError:
        """Read a ``wasmtime_error_t`` wasmtime handed over, and free it."""
        try:
            frames = _PointerVec(0, None)
            _error_wasm_trace(pointer, byref(frames))
            has_frames = bool(frames.size)
            _frame_vec_delete(byref(frames))
            if has_frames:
                return cls(None)
            vec = _ByteVec(0, None)
            _error_message(pointer, byref(vec))
            try:
                return cls(_text(vec))
            finally:
                _byte_vec_delete(byref(vec))
        finally:
            _error_delete(pointer)


def _check(error: int | None) -> None:
    if error:
        raise WasmtimeError.take(error)


# ---- the engine, modules, stores, instances ----------------------------------


class Engine:
    """A ``wasm_engine_t`` configured by ``wasmtime_config_{name}_set`` for each setting.

    wasmtime-py's ``Config`` attributes are those setters by the same names, so the
    compile worker's engine and this one are configured alike. One per process,
    never freed (its epoch ticker runs until the process ends).
    """

    def __init__(self, settings: Mapping[str, bool | int]) -> None:
        config = _config_new()
        for name, value in settings.items():
            kind = c_bool if isinstance(value, bool) else c_size_t
            _function(f"wasmtime_config_{name}_set", None, _P, kind)(config, value)
        self.pointer: int = _engine_new(config)  # takes the config

    def increment_epoch(self) -> None:
        """One epoch more (the backstops' clock)."""
        _increment_epoch(self.pointer)


class FuncExport(msgspec.Struct, frozen=True):
    """An exported function's type: its parameters' and results' types by name."""

    params: tuple[str, ...]
    results: tuple[str, ...]


class MemoryExport(msgspec.Struct, frozen=True):
    """An exported memory's type: its initial size in 64 KiB pages."""

    minimum_pages: int


class OtherExport(msgspec.Struct, frozen=True):
    """An export of another kind (a global, a table, a tag), which no controller's contract
    names."""


Export = FuncExport | MemoryExport | OtherExport


_NAMED_VALTYPES: Final = (
    ("i32", _valtype_new(0)),
    ("i64", _valtype_new(1)),
    ("f32", _valtype_new(2)),
    ("f64", _valtype_new(3)),
    ("v128", _valtype_v128()),
    ("funcref", _valtype_new(129)),
    ("externref", _valtype_new(128)),
)
"""Every value type a compiled module's function type can hold under the engine's features
(rules §8.3), each made once and kept."""


def _valtype_names(vec: Any) -> tuple[str, ...]:
    # Never by wasm_valtype_kind, which aborts the whole process on a v128.
    names = []
    for i in range(vec.size):
        ty = vec.data[i]
        names.append(
            next(
                (n for n, known in _NAMED_VALTYPES if _valtype_equal(ty, known)), "an unknown type"
            )
        )
    return tuple(names)


class Module:
    """A compiled ``wasmtime_module_t``, freed with this object."""

    pointer: int = 0

    def __init__(self, pointer: int) -> None:
        self.pointer = pointer

    @classmethod
    def deserialize(cls, engine: Engine, artifact: bytes) -> Module:
        """The module an artifact of ``Module.serialize`` holds; ``WasmtimeError`` when this
        engine cannot use it (another version or configuration)."""
        out = c_void_p()
        _check(_module_deserialize(engine.pointer, artifact, len(artifact), byref(out)))
        return cls(int(out.value or 0))

    def imports(self) -> list[tuple[str, str]]:
        """Each import's (module, name)."""
        vec = _PointerVec(0, None)
        _module_imports(self.pointer, byref(vec))
        try:
            return [
                (
                    _text(_importtype_module(vec.data[i]).contents),
                    _text(_importtype_name(vec.data[i]).contents),
                )
                for i in range(vec.size)
            ]
        finally:
            _importtype_vec_delete(byref(vec))

    def exports(self) -> dict[str, Export]:
        """Each export's type by name."""
        vec = _PointerVec(0, None)
        _module_exports(self.pointer, byref(vec))
        try:
            found: dict[str, Export] = {}
            for i in range(vec.size):
                export = vec.data[i]
                externtype = _exporttype_type(export)
                kind: Export = OtherExport()
                if functype := _as_functype(externtype):
                    params = _valtype_names(_functype_params(functype).contents)
                    kind = FuncExport(params, _valtype_names(_functype_results(functype).contents))
                elif memorytype := _as_memorytype(externtype):
                    kind = MemoryExport(int(_memorytype_minimum(memorytype)))
                found[_text(_exporttype_name(export).contents)] = kind
            return found
        finally:
            _exporttype_vec_delete(byref(vec))

    def __del__(self) -> None:
        if self.pointer:
            _module_delete(self.pointer)
            self.pointer = 0


class Instance:
    """An instance of a module in a store: its exports by name."""

    def __init__(self, context: int, handle: _InstanceHandle) -> None:
        self._context = context
        self._handle = handle

    def _export(self, name: str, kind: int) -> _Extern | None:
        item = _Extern()
        raw = name.encode()
        found = _instance_export_get(self._context, byref(self._handle), raw, len(raw), byref(item))
        return item if found and item.kind == kind else None

    def func(self, name: str) -> FuncHandle | None:
        """The exported function ``name``, or None (absent, or not a function)."""
        item = self._export(name, _EXTERN_FUNC)
        return None if item is None else FuncHandle.from_buffer_copy(item.of.func)

    def memory(self, name: str) -> MemoryHandle | None:
        """The exported memory ``name``, or None (absent, or not a memory)."""
        item = self._export(name, _EXTERN_MEMORY)
        return None if item is None else MemoryHandle.from_buffer_copy(item.of.memory)


class Store:
    """A ``wasmtime_store_t`` (one controller's), freed by ``close`` or with this object."""

    pointer: int = 0
    context: int = 0

    def __init__(self, engine: Engine) -> None:
        self._engine = engine  # a store must not outlive its engine
        self.pointer: int = _store_new(engine.pointer, None, None)
        self.context: int = _store_context(self.pointer)
        """The store's context, which every call into it takes."""

    def set_limits(
        self, *, memory_size: int, table_elements: int, instances: int, tables: int, memories: int
    ) -> None:
        """The store's resource limiter (-1 leaves a limit unset)."""
        _store_limiter(self.pointer, memory_size, table_elements, instances, tables, memories)

    def set_fuel(self, fuel: int) -> None:
        _check(_context_set_fuel(self.context, fuel))

    def set_epoch_deadline(self, ticks_beyond_current: int) -> None:
        _context_set_epoch_deadline(self.context, ticks_beyond_current)

    def instantiate(self, module: Module) -> Instance:
        """Instantiate ``module`` (no imports); raises ``Trap`` or ``WasmtimeError``."""
        handle = _InstanceHandle()
        trap = c_void_p()
        _check(_instance_new(self.context, module.pointer, None, 0, byref(handle), byref(trap)))
        if trap.value:
            raise Trap.take(trap.value)
        return Instance(self.context, handle)

    def close(self) -> None:
        """Free the store, its instance and memory, now."""
        if self.pointer:
            _store_delete(self.pointer)
            self.pointer = self.context = 0

    def __del__(self) -> None:
        self.close()


# ---- the controller's per-call objects ----------------------------------------


def function_addresses() -> tuple[int, int, int, int, int]:
    """The addresses of the tick call's C functions, for a call made from C
    (``arena.sandbox._native``): set fuel, set the epoch deadline, call, memory size, get fuel."""
    funcs = (set_fuel, set_epoch_deadline, call_unchecked, memory_data_size, get_fuel)
    a, b, c, d, e = (int(ctypes.cast(f, c_void_p).value or 0) for f in funcs)
    return a, b, c, d, e


def address_of(obj: Any) -> int:
    """The address of a ctypes object's storage (a handle, a value, a pointer), which a
    call made from C reads or writes in place."""
    return ctypes.addressof(obj)


def ref(obj: Any) -> Any:
    """A pointer to ``obj`` to pass to an argtype-free call (it keeps ``obj`` alive).

    Made once at setup: ``byref`` costs a call, the per-tick path passes the result.
    """
    return byref(obj)
