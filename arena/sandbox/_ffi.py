"""Every private wasmtime-py name and every ctypes use of the sandbox, in one place.

wasmtime-py's public API converts every argument on every call, which costs
more than all the rest of a controller call's host work (docs/benchmarks.md);
the hot path needs the C API underneath it. Everything that reaches past the
public API lives here, so a wasmtime upgrade has one module to check; no other
module imports ctypes. The controller makes its ctypes objects once, with the
helpers below, and the per-tick path passes them as they are.
"""

from __future__ import annotations

import ctypes
from typing import Any, Final

import wasmtime
from wasmtime import _bindings as _b, _ffi as _wasmtime_ffi

from arena.sandbox._limits import BUFFER_BYTES

__all__ = [
    "ONE",
    "U64",
    "Address",
    "Buffer",
    "ErrorPtr",
    "FuncHandle",
    "MemoryHandle",
    "TrapPtr",
    "ValRaw1",
    "address_of",
    "call_unchecked",
    "context_of",
    "engine_increment_epoch",
    "engine_pointer",
    "error_from",
    "error_has_frames",
    "func_handle",
    "func_ref",
    "function_addresses",
    "get_fuel",
    "innermost_frame",
    "memory_data",
    "memory_data_size",
    "memory_handle",
    "ref",
    "set_epoch_deadline",
    "set_fuel",
    "set_handle",
    "trap_from",
    "valtype_name",
]

TrapPtr = ctypes.POINTER(_b.wasm_trap_t)
ErrorPtr = ctypes.POINTER(_b.wasmtime_error_t)
ValRaw1 = _b.wasmtime_val_raw_t * 1
MemoryHandle = _b.wasmtime_memory_t
FuncHandle = _b.wasmtime_func_t
Buffer = ctypes.c_ubyte * BUFFER_BYTES
Address = ctypes.c_void_p
"""A pointer held by value (a store's context): its ``value`` is the address, or None."""
U64 = ctypes.c_uint64
"""A uint64_t argument or out-parameter (fuel, an epoch deadline)."""
ONE: Final = ctypes.c_size_t(1)
# What wasm_frame_module_offset returns when the offset is not known (SIZE_MAX),
# as it is for a stack overflow caught at a function's entry.
_UNKNOWN_OFFSET: Final = ctypes.c_size_t(-1).value


def _raw_function(name: str, restype: type | None) -> Any:
    """A fresh ctypes function for ``name`` WITHOUT argtypes.

    wasmtime-py's bindings declare argtypes, and ctypes converts each pointer
    argument on every call, a cost paid on every tick (docs/benchmarks.md).
    Without argtypes the callers must pass exactly typed ctypes objects
    (c_void_p, c_uint64, byref(...)); the sandbox does. ``dll[name]`` builds a new function object,
    so wasmtime-py's own (cached, typed) ones are untouched.
    """
    func = _wasmtime_ffi.dll[name]
    func.restype = restype
    return func


set_fuel = _raw_function("wasmtime_context_set_fuel", ctypes.c_void_p)
get_fuel = _raw_function("wasmtime_context_get_fuel", ctypes.c_void_p)
set_epoch_deadline = _raw_function("wasmtime_context_set_epoch_deadline", None)
memory_data_size = _raw_function("wasmtime_memory_data_size", ctypes.c_size_t)
memory_data = _raw_function("wasmtime_memory_data", ctypes.c_void_p)
call_unchecked = _raw_function("wasmtime_func_call_unchecked", ctypes.c_void_p)
engine_increment_epoch = _b._wasmtime_engine_increment_epoch


def function_addresses() -> tuple[int, int, int, int, int]:
    """The addresses of the tick call's C functions, for a call made from C
    (``arena.sandbox._native``): set fuel, set the epoch deadline, call, memory size, get fuel."""
    funcs = (set_fuel, set_epoch_deadline, call_unchecked, memory_data_size, get_fuel)
    a, b, c, d, e = (int(ctypes.cast(f, ctypes.c_void_p).value or 0) for f in funcs)
    return a, b, c, d, e


def address_of(obj: Any) -> int:
    """The address of a ctypes object's storage (a handle, a value, a pointer), which a
    call made from C reads or writes in place."""
    return ctypes.addressof(obj)


def ref(obj: Any) -> Any:
    """A pointer to ``obj`` to pass to an argtype-free call (it keeps ``obj`` alive).

    Made once at setup: ``byref`` costs a call, the per-tick path passes the result.
    """
    return ctypes.byref(obj)


def set_handle(storage: Any, handle: Any) -> None:
    """Copy a C handle (a ``MemoryHandle`` or ``FuncHandle``) into preallocated storage,
    so that pointers already made to the storage (``ref``) see it."""
    ctypes.pointer(storage)[0] = handle


def func_ref(func: wasmtime.Func) -> Any:
    """A pointer to an exported function's handle, for one argtype-free call."""
    return ctypes.byref(func._func)


def engine_pointer(engine: wasmtime.Engine) -> Any:
    """The C pointer of an engine, for the epoch ticker thread."""
    return engine.ptr()


def context_of(store: wasmtime.Store) -> int | None:
    """The address of a store's context, for the argtype-free calls."""
    return ctypes.cast(store._context(), ctypes.c_void_p).value


def memory_handle(memory: wasmtime.Memory) -> Any:
    """The C handle of an exported memory."""
    return memory._memory


def func_handle(func: wasmtime.Func) -> Any:
    """The C handle of an exported function."""
    return func._func


def trap_from(pointer: Any) -> wasmtime.Trap:
    """Take ownership of a trap pointer a call returned (freed when collected)."""
    return wasmtime.Trap._from_ptr(pointer)


def error_from(pointer: int) -> wasmtime.WasmtimeError:
    """Take ownership of an error pointer a call returned."""
    return wasmtime.WasmtimeError._from_ptr(ctypes.cast(pointer, ErrorPtr))


def innermost_frame(trap: wasmtime.Trap) -> tuple[int, int | None] | None:
    """(function index, module offset) of the frame a trap struck in; None outside wasm code.

    The offset is None when wasmtime does not know it (a stack overflow). Reads
    the offsets only: a frame's function name comes from the module and is
    never read (wasmtime would demangle it, at the module's will).
    """
    frames = _b.wasm_frame_vec_t(0, None)
    _b.wasm_trap_trace(trap.ptr(), ctypes.byref(frames))
    try:
        if not frames.size:
            return None
        first = frames.data[0]
        offset = int(_b.wasm_frame_module_offset(first))
        return int(_b.wasm_frame_func_index(first)), None if offset == _UNKNOWN_OFFSET else offset
    finally:
        _b.wasm_frame_vec_delete(ctypes.byref(frames))


def error_has_frames(error: wasmtime.WasmtimeError) -> bool:
    """Whether wasm frames are attached to an error (formatting it would format them)."""
    frames = _b.wasm_frame_vec_t(0, None)
    _b.wasmtime_error_wasm_trace(error.ptr(), ctypes.byref(frames))
    try:
        return bool(frames.size)
    finally:
        _b.wasm_frame_vec_delete(ctypes.byref(frames))


# Every value type a compiled module's function type can hold under the engine's
# features (rules §8.3), each made once. wasmtime-py's ``ValType.externref`` is
# the C API's kind 128, externref (wasmtime-py's ``str`` calls it anyref).
_NAMED_VALTYPES: Final = (
    ("i32", wasmtime.ValType.i32()),
    ("i64", wasmtime.ValType.i64()),
    ("f32", wasmtime.ValType.f32()),
    ("f64", wasmtime.ValType.f64()),
    ("v128", wasmtime.ValType._from_ptr(_b.wasmtime_wasm_valtype_v128(), None)),
    ("funcref", wasmtime.ValType.funcref()),
    ("externref", wasmtime.ValType.externref()),
)


def valtype_name(ty: wasmtime.ValType) -> str:
    """A value type's name in the text format, found by comparing it with each known type.

    Never by its kind: ``wasm_valtype_kind`` (under wasmtime-py's ``str`` and
    ``==`` of a ``ValType``) aborts the whole process on a v128.
    """
    for name, known in _NAMED_VALTYPES:
        if _b.wasmtime_wasm_valtype_equal(ty.ptr(), known.ptr()):
            return name
    return "an unknown type"
