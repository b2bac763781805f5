"""The wasm sandbox that hosts untrusted controllers (spec sections 8 and 9).

One shared wasmtime ``Engine`` per process, with fuel metering and epoch
interruption. Modules are compiled in a child process under a time and address
space bound (``arena/_compile_worker.py``), then deserialized here and cached
by sha256. Each ``Controller`` owns one ``Store`` and one instance.

Guest faults never raise: they come back as ``Fault``. Only host bugs raise.
"""

from __future__ import annotations

import ctypes
import hashlib
import math
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, Final

import wasmtime
from wasmtime import _bindings as _ffi
from wasmtime import _ffi as _wasmtime_ffi

from arena._compile_worker import CONFIG_HASH, EXIT_INVALID, EXIT_MEMORY, make_config

__all__ = [
    "BUFFER_BYTES",
    "MAX_MODULE_BYTES",
    "MAX_TABLES",
    "TABLE_ELEMENTS",
    "WASMTIME_VERSION",
    "Admission",
    "Controller",
    "Fault",
    "Limits",
    "check_module",
]

WASMTIME_VERSION: Final[str] = metadata.version("wasmtime")
"""The installed wasmtime version: fuel costs depend on it, so replays record it."""

MAX_MODULE_BYTES: Final = 8 * 1024 * 1024
BUFFER_BYTES: Final = 65_536
RECORD_BYTES: Final = 12
_MAX_RECORDS_IN_BUFFER: Final = BUFFER_BYTES // RECORD_BYTES
TABLE_ELEMENTS: Final = 10_000
# Tables are bounded per table by TABLE_ELEMENTS; a few are allowed because
# reference types (on by default in toolchains) permit more than one.
MAX_TABLES: Final = 8
# Period of the epoch ticker; the backstops are rounded up to whole periods.
EPOCH_INTERVAL: Final = 0.005

_WORKER_PATH: Final = Path(__file__).with_name("_compile_worker.py")
_I32_SIGNATURES: Final[dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
    "foray_buffer": ((), ("i32",)),
    "foray_init": (("i32",), ("i32",)),
    "foray_tick": (("i32",), ("i32",)),
}
_TRAP_OUT_OF_FUEL: Final = wasmtime.TrapCode.OUT_OF_FUEL
_TRAP_INTERRUPT: Final = wasmtime.TrapCode.INTERRUPT


def _check_int(name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} must be an int in [{low}, {high}], got {value!r}")


def _check_seconds(name: str, value: object, low: float, high: float) -> None:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not low < value <= high
    ):
        raise ValueError(f"{name} must be a number of seconds in ({low}, {high}], got {value!r}")


@dataclass(frozen=True, slots=True)
class Limits:
    """Per-controller, per-match resource limits (spec section 8 defaults)."""

    fuel_per_tick: int = 5_000_000
    init_fuel: int = 50_000_000
    max_memory_bytes: int = 64 * 1024 * 1024
    tick_timeout: float = 2.0
    init_timeout: float = 10.0
    compile_timeout: float = 20.0
    compile_memory_bytes: int = 2 * 1024**3

    def __post_init__(self) -> None:
        _check_int("fuel_per_tick", self.fuel_per_tick, 1, 10**13)
        _check_int("init_fuel", self.init_fuel, 1, 10**14)
        # The buffer must fit; the hard limit (twice the cap) must fit in 4 GiB.
        _check_int("max_memory_bytes", self.max_memory_bytes, BUFFER_BYTES, 2**31)
        _check_seconds("tick_timeout", self.tick_timeout, 0.0, 3600.0)
        _check_seconds("init_timeout", self.init_timeout, 0.0, 3600.0)
        _check_seconds("compile_timeout", self.compile_timeout, 0.0, 3600.0)
        # The compiling child alone (interpreter + wasmtime) maps about 70 MB.
        _check_int("compile_memory_bytes", self.compile_memory_bytes, 2**28, 2**40)


@dataclass(frozen=True, slots=True)
class Fault:
    """A guest fault: ``kind`` is init, fuel, memory, trap or timeout."""

    kind: str
    detail: str


@dataclass(frozen=True, slots=True)
class Admission:
    """Whether a module may compete at all, and if not, exactly why."""

    admissible: bool
    sha256: str
    reason: str | None


# --------------------------------------------------------------------------
# The process-wide engine, its epoch ticker and the compiled-module cache.


class _EngineState:
    """The engine of one process; rebuilt after a fork (threads do not survive it)."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.engine = wasmtime.Engine(make_config())
        self.modules: dict[str, wasmtime.Module] = {}
        engine = self.engine
        increment = _ffi._wasmtime_engine_increment_epoch
        engine_ptr = engine.ptr()

        def tick_epoch() -> None:
            # `engine` stays referenced by this closure, so it outlives the thread.
            while True:
                time.sleep(EPOCH_INTERVAL)
                increment(engine_ptr)

        self.ticker = threading.Thread(target=tick_epoch, name="foray-epoch", daemon=True)
        self.ticker.start()


_state: _EngineState | None = None
_state_lock = threading.Lock()


def _engine_state() -> _EngineState:
    global _state
    state = _state
    if state is not None and state.pid == os.getpid():
        return state
    with _state_lock:
        if _state is None or _state.pid != os.getpid():
            _state = _EngineState()
        return _state


def _epoch_ticks(seconds: float) -> int:
    # +1 because the current period is already partly over.
    return math.ceil(seconds / EPOCH_INTERVAL) + 1


def _format_reason(blob: bytes) -> str | None:
    """The byte-level checks: size, binary format, core module."""
    if len(blob) > MAX_MODULE_BYTES:
        return f"module is {len(blob)} bytes, over the {MAX_MODULE_BYTES}-byte (8 MiB) limit"
    if not blob.startswith(b"\0asm"):
        if blob.lstrip()[:1] in (b"(", b";"):
            return "WebAssembly text format is refused: submit a binary module"
        return "not a WebAssembly binary (bad magic bytes)"
    if blob[4:8] != b"\x01\x00\x00\x00":
        return "not a core WebAssembly module (components and other versions are refused)"
    return None


def _disk_cache_path(sha: str) -> Path | None:
    root = os.environ.get("FORAY_CACHE_DIR")
    if not root:
        return None
    return Path(root) / f"{sha}-wasmtime{WASMTIME_VERSION}-{CONFIG_HASH}.cwasm"


def _compile_out_of_process(blob: bytes, limits: Limits) -> bytes | str:
    """Return the serialized artifact, or the reason the module is refused."""
    cmd = [sys.executable, "-I", str(_WORKER_PATH), str(limits.compile_memory_bytes)]
    try:
        proc = subprocess.run(
            cmd, input=blob, capture_output=True, timeout=limits.compile_timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return f"compile exceeded {limits.compile_timeout:g} s"
    if proc.returncode == 0:
        return proc.stdout
    if proc.returncode == EXIT_INVALID:
        return "invalid module: " + proc.stdout.decode("utf-8", "replace").strip()
    stderr = proc.stderr.decode("utf-8", "replace")
    if proc.returncode == EXIT_MEMORY or proc.returncode < 0 or "memory allocation" in stderr:
        # An allocation failure under RLIMIT_AS aborts the compiler (a signal).
        return f"compile exceeded memory bound ({limits.compile_memory_bytes} bytes)"
    if proc.returncode == 101:  # a Rust panic in the compiler: the module's doing
        return "compile failed: the compiler panicked"
    raise RuntimeError(f"compile worker failed (exit {proc.returncode}):\n{stderr.strip()}")


def _load_module(blob: bytes, sha: str, limits: Limits) -> wasmtime.Module | str:
    """Compile (or fetch from the caches) ``blob``; a str is the refusal reason."""
    reason = _format_reason(blob)
    if reason is not None:
        return reason
    state = _engine_state()
    module = state.modules.get(sha)
    if module is not None:
        return module
    cache_path = _disk_cache_path(sha)
    artifact: bytes | None = None
    if cache_path is not None and cache_path.is_file():
        artifact = cache_path.read_bytes()
    if artifact is None:
        compiled = _compile_out_of_process(blob, limits)
        if isinstance(compiled, str):
            return compiled
        artifact = compiled
        if cache_path is not None:
            # Atomic: a concurrent reader sees the whole artifact or none.
            cache_path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=cache_path.parent, suffix=".tmp")
            with os.fdopen(fd, "wb") as f:
                f.write(artifact)
            os.replace(tmp, cache_path)
    try:
        module = wasmtime.Module.deserialize(state.engine, artifact)
    except wasmtime.WasmtimeError:
        if cache_path is None or not cache_path.is_file():
            raise  # our own fresh artifact failed: a host bug
        # A stale or damaged cache entry: drop it and compile afresh.
        cache_path.unlink(missing_ok=True)
        return _load_module(blob, sha, limits)
    state.modules[sha] = module
    return module


def _valtypes(types: list[wasmtime.ValType]) -> tuple[str, ...]:
    return tuple(str(t) for t in types)


def _signature(params: tuple[str, ...], results: tuple[str, ...]) -> str:
    return f"({', '.join(params)}) -> {', '.join(results) or '()'}"


def _structure_reason(module: wasmtime.Module, limits: Limits) -> str | None:
    """Imports, exports and their types, and the declared memory size."""
    for imp in module.imports:
        return f"import {imp.module}.{imp.name} is not allowed (modules may have no imports)"
    exports = {exp.name: exp.type for exp in module.exports}
    memory_type = exports.get("memory")
    if memory_type is None:
        return "missing export memory"
    if not isinstance(memory_type, wasmtime.MemoryType):
        return "export memory is not a memory"
    for name, (params, results) in _I32_SIGNATURES.items():
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


def _new_store(engine: wasmtime.Engine, limits: Limits) -> wasmtime.Store:
    store = wasmtime.Store(engine)
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


def _trap_detail(message: str) -> str:
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


def check_module(blob: bytes, limits: Limits = Limits()) -> Admission:
    """Decide whether ``blob`` may compete at all (spec section 8).

    Checks the binary format and size, compiles out of process within the
    compile bounds, checks imports and exports, then instantiates with zero
    fuel under the store caps: this proves memory, tables and segments fit
    without running any guest code (a start function stops at once, out of
    fuel; its behaviour is judged by ``Controller.init``).
    """
    blob = bytes(blob)
    sha = hashlib.sha256(blob).hexdigest()
    module = _load_module(blob, sha, limits)
    if isinstance(module, str):
        return Admission(False, sha, module)
    reason = _structure_reason(module, limits)
    if reason is None:
        store = _new_store(_engine_state().engine, limits)
        store.set_fuel(0)
        store.set_epoch_deadline(_epoch_ticks(limits.init_timeout))
        try:
            wasmtime.Instance(store, module, [])
        except wasmtime.Trap as trap:
            if trap.trap_code != _TRAP_OUT_OF_FUEL:
                reason = "instantiation failed: " + _trap_detail(trap.message)
        except wasmtime.WasmtimeError as exc:
            reason = "instantiation failed: " + _trap_detail(str(exc))
    return Admission(reason is None, sha, reason)


# --------------------------------------------------------------------------
# The controller.

_NEW, _READY, _DEAD = 0, 1, 2
_TrapPtr = ctypes.POINTER(_ffi.wasm_trap_t)
_ErrorPtr = ctypes.POINTER(_ffi.wasmtime_error_t)
_ValRaw1 = _ffi.wasmtime_val_raw_t * 1
_Buffer = ctypes.c_ubyte * BUFFER_BYTES


def _raw_function(name: str, restype: type | None) -> Any:
    """A fresh ctypes function for ``name`` WITHOUT argtypes.

    wasmtime-py's bindings declare argtypes, and ctypes' per-argument
    conversion of pointer types costs about 1 us each call. Without argtypes
    the callers must pass exactly typed ctypes objects (c_void_p, c_uint64,
    byref(...)); this module does. ``dll[name]`` builds a new function object,
    so wasmtime-py's own (cached, typed) ones are untouched.
    """
    func = _wasmtime_ffi.dll[name]
    func.restype = restype
    return func


_set_fuel = _raw_function("wasmtime_context_set_fuel", ctypes.c_void_p)
_get_fuel = _raw_function("wasmtime_context_get_fuel", ctypes.c_void_p)
_set_deadline = _raw_function("wasmtime_context_set_epoch_deadline", None)
_memory_data_size = _raw_function("wasmtime_memory_data_size", ctypes.c_size_t)
_memory_data = _raw_function("wasmtime_memory_data", ctypes.c_void_p)
_call_unchecked = _raw_function("wasmtime_func_call_unchecked", ctypes.c_void_p)
_ONE = ctypes.c_size_t(1)


class _GuestFault(Exception):
    """Internal: a guest fault during init, turned into a ``Fault``."""

    def __init__(self, fault: Fault) -> None:
        super().__init__(fault.detail)
        self.fault = fault


class Controller:
    """One controller instance for one match. Never raises for guest faults.

    Call ``init`` once, then ``tick`` once per game tick until a fault. Calling
    ``init`` twice, or ``tick`` before a successful ``init`` or after a fault,
    is a host bug and raises ``RuntimeError``.
    """

    fuel_total: int
    """Fuel of init and all ticks so far; failures are charged their whole budget."""
    fuel_peak: int
    """The largest fuel of a single tick."""
    last_fuel: int
    """Fuel of the latest tick call (0 before the first tick)."""

    def __init__(self, blob: bytes, limits: Limits) -> None:
        self.blob: bytes = bytes(blob)
        self.limits: Limits = limits
        self.sha256: str = hashlib.sha256(self.blob).hexdigest()
        self.fuel_total = 0
        self.fuel_peak = 0
        self.last_fuel = 0
        self._phase = _NEW
        self._store: wasmtime.Store | None = None
        # Preallocated ctypes arguments for the argtype-free calls below.
        self._ctx = ctypes.c_void_p(0)
        self._tick_budget = ctypes.c_uint64(limits.fuel_per_tick)
        self._tick_deadline = ctypes.c_uint64(_epoch_ticks(limits.tick_timeout))
        self._vals = _ValRaw1()
        self._trap = _TrapPtr()
        self._trap_ref = ctypes.byref(self._trap)
        self._fuel_left = ctypes.c_uint64(0)
        self._fuel_ref = ctypes.byref(self._fuel_left)
        self._memory = _ffi.wasmtime_memory_t()
        self._memory_ref = ctypes.byref(self._memory)
        self._tick_func = _ffi.wasmtime_func_t()
        self._tick_ref = ctypes.byref(self._tick_func)
        self._view = memoryview(b"")

    # ---- init ----------------------------------------------------------

    def init(self, message: bytes) -> Fault | None:
        """Compile (cached), instantiate, then call ``foray_buffer`` and ``foray_init``.

        The start function, ``foray_buffer`` and ``foray_init`` share one
        ``init_fuel`` budget. Any failure is an ``init`` fault charged the whole
        budget, except a fired wall-clock backstop, which is ``timeout`` (the
        one non-deterministic kind is recorded as such).
        """
        if self._phase != _NEW:
            raise RuntimeError("Controller.init called twice")
        if len(message) > BUFFER_BYTES:
            raise ValueError(f"INIT message is {len(message)} bytes, over {BUFFER_BYTES}")
        try:
            used = self._init(bytes(message))
        except _GuestFault as exc:
            self.fuel_total += self.limits.init_fuel
            self.close()
            return exc.fault
        self.fuel_total += used
        self._phase = _READY
        return None

    def _init(self, message: bytes) -> int:
        limits = self.limits
        module = _load_module(self.blob, self.sha256, limits)
        if isinstance(module, str):
            raise _GuestFault(Fault("init", f"module not admissible: {module}"))
        reason = _structure_reason(module, limits)
        if reason is not None:
            raise _GuestFault(Fault("init", reason))
        # The init backstop bounds the guest's run, not our compile above.
        started = time.monotonic()
        store = _new_store(_engine_state().engine, limits)
        self._store = store
        self._ctx.value = ctypes.cast(store._context(), ctypes.c_void_p).value
        store.set_fuel(limits.init_fuel)
        store.set_epoch_deadline(_epoch_ticks(limits.init_timeout))
        try:
            instance = wasmtime.Instance(store, module, [])
        except wasmtime.Trap as trap:
            code = trap.trap_code
            if code == _TRAP_INTERRUPT:
                raise _GuestFault(self._init_timeout()) from None
            if code == _TRAP_OUT_OF_FUEL:
                raise _GuestFault(
                    Fault("init", "the start function ran out of init_fuel")
                ) from None
            detail = _trap_detail(trap.message)
            raise _GuestFault(Fault("init", f"the start function trapped: {detail}")) from None
        except wasmtime.WasmtimeError as exc:
            detail = _trap_detail(str(exc))
            raise _GuestFault(Fault("init", f"instantiation failed: {detail}")) from None
        exports = instance.exports(store)
        memory = exports["memory"]
        buffer_func = exports["foray_buffer"]
        init_func = exports["foray_init"]
        tick_func = exports["foray_tick"]
        assert isinstance(memory, wasmtime.Memory)
        assert isinstance(buffer_func, wasmtime.Func)
        assert isinstance(init_func, wasmtime.Func)
        assert isinstance(tick_func, wasmtime.Func)
        ctypes.pointer(self._memory)[0] = memory._memory
        ctypes.pointer(self._tick_func)[0] = tick_func._func
        self._check_init_memory("instantiation")

        def remaining() -> float:
            return max(0.0, limits.init_timeout - (time.monotonic() - started))

        store.set_epoch_deadline(_epoch_ticks(remaining()))
        address = self._init_call(buffer_func, None, "foray_buffer")
        self._check_init_memory("foray_buffer")
        address &= 0xFFFF_FFFF  # the address is read as unsigned
        size = self._memory_size()
        if address + BUFFER_BYTES > size:
            raise _GuestFault(
                Fault(
                    "init",
                    f"foray_buffer returned {address:#x}: the {BUFFER_BYTES}-byte buffer"
                    f" does not lie inside memory ({size} bytes)",
                )
            )
        # The memory never moves (memory_may_move is off) and never shrinks,
        # so a view of the buffer stays valid for the store's whole life.
        base = _memory_data(self._ctx, self._memory_ref)
        self._view = memoryview(_Buffer.from_address(base + address)).cast("B")
        self._view[: len(message)] = message
        store.set_epoch_deadline(_epoch_ticks(remaining()))
        status = self._init_call(init_func, len(message), "foray_init")
        self._check_init_memory("foray_init")
        if status != 0:
            raise _GuestFault(Fault("init", f"foray_init returned {status}, expected 0"))
        return limits.init_fuel - self._read_fuel()

    def _init_call(self, func: wasmtime.Func, arg: int | None, name: str) -> int:
        vals = self._vals
        if arg is not None:
            vals[0].i32 = arg
        err = _call_unchecked(self._ctx, ctypes.byref(func._func), vals, _ONE, self._trap_ref)
        fault = self._classify(err)
        if fault is None:
            return int(vals[0].i32)
        kind, detail = fault
        if kind == "timeout":
            raise _GuestFault(self._init_timeout())
        if kind == "memory":
            raise _GuestFault(Fault("init", f"{name}: {detail}"))
        if kind == "fuel":
            raise _GuestFault(Fault("init", f"{name} ran out of init_fuel"))
        raise _GuestFault(Fault("init", f"{name} trapped: {detail}"))

    def _init_timeout(self) -> Fault:
        return Fault(
            "timeout", f"init exceeded the {self.limits.init_timeout:g} s wall-clock backstop"
        )

    def _check_init_memory(self, where: str) -> None:
        size = self._memory_size()
        if size > self.limits.max_memory_bytes:
            raise _GuestFault(
                Fault(
                    "init",
                    f"memory is {size} bytes after {where},"
                    f" over max_memory_bytes {self.limits.max_memory_bytes}",
                )
            )

    # ---- shared low-level helpers ---------------------------------------

    def _memory_size(self) -> int:
        return int(_memory_data_size(self._ctx, self._memory_ref))

    def _read_fuel(self) -> int:
        err = _get_fuel(self._ctx, self._fuel_ref)
        if err:
            raise wasmtime.WasmtimeError._from_ptr(ctypes.cast(err, _ErrorPtr))
        return int(self._fuel_left.value)

    def _classify(self, err: int | None) -> tuple[str, str] | None:
        """Classify how a call ended: None on success, else (kind, detail).

        kind is memory, fuel, timeout or trap. Memory wins over everything:
        memory never shrinks, so once it is over the cap, every way the call
        could have ended (finished, trapped, out of fuel) is a memory fault.
        """
        if err:
            # Not a trap: wasmtime refused the call itself, which is our bug.
            raise wasmtime.WasmtimeError._from_ptr(ctypes.cast(err, _ErrorPtr))
        if not self._trap:
            return None
        trap = wasmtime.Trap._from_ptr(self._trap)  # owns the pointer; freed on GC
        self._trap = _TrapPtr()
        self._trap_ref = ctypes.byref(self._trap)
        size = self._memory_size()
        if size > self.limits.max_memory_bytes:
            return "memory", (
                f"memory is {size} bytes, over max_memory_bytes {self.limits.max_memory_bytes}"
                f" (the call ended with: {_trap_detail(trap.message)})"
            )
        code = trap.trap_code
        if code == _TRAP_OUT_OF_FUEL:
            return "fuel", "out of fuel"
        if code == _TRAP_INTERRUPT:
            return "timeout", "wall-clock backstop fired"
        return "trap", _trap_detail(trap.message)

    # ---- tick ------------------------------------------------------------

    def tick(self, message: bytes, max_records: int) -> tuple[int, bytes] | Fault:
        """Run one ``foray_tick`` call with ``fuel_per_tick`` fuel.

        Writes ``message`` at the buffer's start (the rest is not cleared).
        Returns ``(n, raw)`` with ``raw`` the first ``n * 12`` buffer bytes when
        ``0 <= n <= max_records`` and the records fit in the buffer, else
        ``(n, b"")`` for the caller to reject; or a ``Fault``.
        """
        if self._phase != _READY:
            raise RuntimeError("Controller.tick called before a successful init or after a fault")
        size = len(message)
        if size > BUFFER_BYTES:
            raise ValueError(f"OBS message is {size} bytes, over {BUFFER_BYTES}")
        # The hot path: raw ctypes calls without argtypes (see _raw_function).
        ctx = self._ctx
        _set_fuel(ctx, self._tick_budget)
        _set_deadline(ctx, self._tick_deadline)
        view = self._view
        view[:size] = message
        vals = self._vals
        vals[0].i32 = size
        err = _call_unchecked(ctx, self._tick_ref, vals, _ONE, self._trap_ref)
        if err or self._trap:
            return self._tick_fault(err)
        _get_fuel(ctx, self._fuel_ref)
        used: int = self.limits.fuel_per_tick - self._fuel_left.value
        self.last_fuel = used
        self.fuel_total += used
        if used > self.fuel_peak:
            self.fuel_peak = used
        memory: int = _memory_data_size(ctx, self._memory_ref)
        if memory > self.limits.max_memory_bytes:
            self.close()
            cap = self.limits.max_memory_bytes
            return Fault("memory", f"memory is {memory} bytes, over max_memory_bytes {cap}")
        n: int = vals[0].i32
        if 0 <= n <= max_records and n <= _MAX_RECORDS_IN_BUFFER:
            return n, view[: n * RECORD_BYTES].tobytes()
        return n, b""

    def _tick_fault(self, err: int | None) -> Fault:
        fault = self._classify(err)
        assert fault is not None
        kind, detail = fault
        budget = self.limits.fuel_per_tick
        # After a trap the store's fuel reading is unreliable: charge it all.
        self.last_fuel = budget
        self.fuel_total += budget
        self.fuel_peak = max(self.fuel_peak, budget)
        self.close()
        if kind == "fuel":
            detail = f"tick ran out of fuel_per_tick ({budget})"
        elif kind == "timeout":
            detail = f"tick exceeded the {self.limits.tick_timeout:g} s wall-clock backstop"
        return Fault(kind, detail)

    def close(self) -> None:
        """Drop the instance and its memory now; the controller is then dead."""
        self._phase = _DEAD
        self._view = memoryview(b"")
        self._ctx.value = None
        self._store = None
