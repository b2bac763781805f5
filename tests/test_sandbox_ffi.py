"""The host's binding of wasmtime's C API (``arena.sandbox._ffi``) against wasmtime-py's.

The host loads the library wasmtime-py ships without wasmtime-py's Python
(docs/decisions.md, "The engine's library without wasmtime-py"). wasmtime-py's
bindings are generated from the headers of the same release, so each layout,
code and setting the binding writes by hand is compared with theirs here: an
upgrade that moves one fails by name.
"""

from __future__ import annotations

import ctypes

import pytest
import wasmtime
from wasmtime import _bindings, _ffi as wasmtime_ffi

from arena.sandbox import WASMTIME_VERSION, Limits, _ffi
from arena.sandbox._admission import error_text, new_store, trap_text
from arena.sandbox._compile_worker import CONFIG_DESCRIPTION, engine_settings
from arena.sandbox._engine import engine, load_module
from arena.sandbox._trap_codes import INTERRUPT, OUT_OF_FUEL, TRAP_CODES, trap_name


def test_the_library_is_the_one_wasmtime_py_loads() -> None:
    from importlib import metadata

    assert str(wasmtime_ffi.filename) == _ffi.WASMTIME_LIBRARY
    assert metadata.version("wasmtime") == WASMTIME_VERSION


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        (_ffi.FuncHandle, _bindings.wasmtime_func_t),
        (_ffi.MemoryHandle, _bindings.wasmtime_memory_t),
        (_ffi._Extern, _bindings.wasmtime_extern_t),
        (_ffi._InstanceHandle, _bindings.wasmtime_instance_t),
        (_ffi._ValRaw, _bindings.wasmtime_val_raw_t),
        (_ffi._ByteVec, _bindings.wasm_byte_vec_t),
        (_ffi._PointerVec, _bindings.wasm_frame_vec_t),
    ],
    ids=lambda t: t.__name__,
)
def test_each_layout_is_wasmtime_pys(ours: type, theirs: type) -> None:
    assert (ctypes.sizeof(ours), ctypes.alignment(ours)) == (
        ctypes.sizeof(theirs),
        ctypes.alignment(theirs),
    )


def test_the_extern_kinds_and_union_are_wasmtime_pys() -> None:
    assert wasmtime_ffi.WASMTIME_EXTERN_FUNC.value == _ffi._EXTERN_FUNC
    assert wasmtime_ffi.WASMTIME_EXTERN_MEMORY.value == _ffi._EXTERN_MEMORY
    assert _ffi._Extern.of.offset == _bindings.wasmtime_extern_t.of.offset
    assert ctypes.sizeof(_ffi._ExternUnion) == ctypes.sizeof(_bindings.wasmtime_extern_union_t)


def test_the_trap_codes_are_wasmtime_pys() -> None:
    assert dict(enumerate(TRAP_CODES)) == {c.value: c.name for c in wasmtime.TrapCode}
    assert (
        wasmtime.TrapCode.INTERRUPT.value,
        wasmtime.TrapCode.OUT_OF_FUEL.value,
    ) == (INTERRUPT, OUT_OF_FUEL)
    newer = len(TRAP_CODES) + 3
    assert trap_name(newer) == f"CODE_{newer}"


def test_each_setting_is_a_wasmtime_py_config_attribute() -> None:
    """The compile worker sets them on wasmtime-py's ``Config``; the host calls the C
    setters of the same names: each must be both."""
    for name in engine_settings():
        assert isinstance(getattr(wasmtime.Config, name), property), name
        assert hasattr(_bindings, f"wasmtime_config_{name}_set"), name
    assert set(engine_settings()) == {*CONFIG_DESCRIPTION, "parallel_compilation"}


def _store(fuel: int) -> _ffi.Store:
    store = new_store(Limits())
    store.set_fuel(fuel)
    store.set_epoch_deadline(1_000_000)
    return store


def _module(wat: str) -> _ffi.Module:
    import hashlib

    blob = bytes(wasmtime.wat2wasm(wat))
    module = load_module(blob, hashlib.sha256(blob).hexdigest(), Limits())
    assert isinstance(module, _ffi.Module), module
    return module


def test_a_modules_imports_and_exports_are_read() -> None:
    module = _module(
        """(module
             (import "env" "f" (func))
             (import "wasi_snapshot_preview1" "fd_write" (func (param i32) (result i32)))
             (memory (export "memory") 3)
             (global (export "g") i32 (i32.const 0))
             (func (export "v") (param v128 f64 i64 f32 funcref) (result i32)
               i32.const 0))"""
    )
    assert module.imports() == [("env", "f"), ("wasi_snapshot_preview1", "fd_write")]
    assert module.exports() == {
        "memory": _ffi.MemoryExport(3),
        "g": _ffi.OtherExport(),
        "v": _ffi.FuncExport(("v128", "f64", "i64", "f32", "funcref"), ("i32",)),
    }


def test_a_trap_is_read_with_its_code_and_frame() -> None:
    module = _module(
        """(module (memory (export "memory") 1)
             (func $boom unreachable)
             (func $outer call $boom)
             (start $outer))"""
    )
    store = _store(10_000)
    with pytest.raises(_ffi.Trap) as caught:
        store.instantiate(module)
    trap = caught.value
    assert trap_name(trap.code) == "UNREACHABLE"
    assert trap.frame is not None and trap.frame[0] == 0
    assert trap_text(trap).startswith(
        "wasm trap: wasm `unreachable` instruction executed (in function 0, at module offset 0x"
    )
    store.close()


def test_fuel_and_a_refused_instantiation_come_back_as_they_should() -> None:
    module = _module('(module (memory (export "memory") 1) (func $s (loop br 0)) (start 0))')
    store = _store(1_000)
    with pytest.raises(_ffi.Trap) as caught:
        store.instantiate(module)
    assert caught.value.code == OUT_OF_FUEL
    store.close()
    # The store allows one memory; a second instance's is refused by the limiter.
    store = _store(0)
    store.instantiate(_module('(module (memory (export "memory") 1))'))
    with pytest.raises(_ffi.WasmtimeError) as refused:
        store.instantiate(_module('(module (memory (export "memory") 1))'))
    assert refused.value.message is not None
    assert "instance" in error_text(refused.value) or "memor" in error_text(refused.value)
    store.close()


def test_an_artifact_from_another_engine_is_refused_as_an_error() -> None:
    with pytest.raises(_ffi.WasmtimeError) as refused:
        _ffi.Module.deserialize(engine(), b"\x7fELF not an artifact at all")
    assert refused.value.message


def test_an_export_of_the_wrong_kind_or_absent_is_none() -> None:
    module = _module(
        '(module (memory (export "memory") 1) (func (export "f")) (global (export "g") i32'
        " (i32.const 1)))"
    )
    store = _store(0)
    instance = store.instantiate(module)
    assert isinstance(instance.memory("memory"), _ffi.MemoryHandle)
    assert isinstance(instance.func("f"), _ffi.FuncHandle)
    assert instance.func("memory") is None and instance.memory("f") is None
    assert instance.func("g") is None and instance.func("absent") is None
    store.close()
