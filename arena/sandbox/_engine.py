"""The process-wide wasmtime engine, its epoch ticker, and compiled modules.

One ``Engine`` per process, with fuel metering and epoch interruption. Modules
are compiled in a child process under a time and address-space bound
(``_compile_worker.py``), then deserialized here and cached by sha256.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import threading
import time
from importlib import metadata
from pathlib import Path
from typing import Final

import wasmtime

from arena._files import atomic_write
from arena.sandbox import _ffi
from arena.sandbox._compile_worker import (
    CONFIG_HASH,
    EXIT_INVALID,
    EXIT_MEMORY,
    MAX_REASON_BYTES,
    make_config,
)
from arena.sandbox._limits import MAX_MODULE_BYTES, Limits

__all__ = [
    "EPOCH_INTERVAL",
    "WASMTIME_VERSION",
    "CompileTimeout",
    "engine",
    "epoch_ticks",
    "format_reason",
    "load_module",
]

WASMTIME_VERSION: Final[str] = metadata.version("wasmtime")
"""The installed wasmtime version: fuel costs depend on it, so replays record it."""

EPOCH_INTERVAL: Final = 0.005
"""Period of the epoch ticker; the backstops are rounded up to whole periods."""

_WORKER_PATH: Final = Path(__file__).with_name("_compile_worker.py")


class _EngineState:
    """The engine of one process; rebuilt after a fork (threads do not survive it)."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.engine = wasmtime.Engine(make_config())
        self.modules: dict[str, wasmtime.Module] = {}
        engine = self.engine
        increment = _ffi.engine_increment_epoch
        engine_ptr = _ffi.engine_pointer(engine)

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


def engine() -> wasmtime.Engine:
    """This process's engine (its epoch ticker running)."""
    return _engine_state().engine


def epoch_ticks(seconds: float) -> int:
    """Epoch periods for a backstop of ``seconds``; +1 because the current one is partly over."""
    return math.ceil(seconds / EPOCH_INTERVAL) + 1


def format_reason(blob: bytes) -> str | None:
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


class CompileTimeout(str):
    """A refusal that the wall clock decided: the compile backstop fired (rules §8.7).

    A ``str`` like every other refusal reason, so it passes through the caches
    unchanged; admission turns it into the forfeit kind ``timeout``, not ``init``.
    """


def _compile_out_of_process(blob: bytes, limits: Limits) -> bytes | str:
    """Return the serialized artifact, or the reason the module is refused."""
    cmd = [sys.executable, "-I", str(_WORKER_PATH), str(limits.compile_memory_bytes)]
    try:
        proc = subprocess.run(
            cmd, input=blob, capture_output=True, timeout=limits.compile_timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return CompileTimeout(f"compile exceeded the {limits.compile_timeout:g} s backstop")
    if proc.returncode == 0:
        return proc.stdout
    if proc.returncode == EXIT_INVALID:
        # The compiler's words may quote the module (an export's name): bounded.
        text = proc.stdout[:MAX_REASON_BYTES].decode("utf-8", "replace")
        return "invalid module: " + " ".join(text.split())
    stderr = proc.stderr.decode("utf-8", "replace")
    if proc.returncode == EXIT_MEMORY or proc.returncode < 0 or "memory allocation" in stderr:
        # An allocation failure under RLIMIT_AS aborts the compiler (a signal).
        return f"compile exceeded memory bound ({limits.compile_memory_bytes} bytes)"
    if proc.returncode == 101:  # a Rust panic in the compiler: the module's doing
        return "compile failed: the compiler panicked"
    raise RuntimeError(f"compile worker failed (exit {proc.returncode}):\n{stderr.strip()}")


def load_module(blob: bytes, sha: str, limits: Limits) -> wasmtime.Module | str:
    """Compile (or fetch from the caches) ``blob``; a str is the refusal reason."""
    reason = format_reason(blob)
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
            atomic_write(cache_path, artifact)
    try:
        module = wasmtime.Module.deserialize(state.engine, artifact)
    except wasmtime.WasmtimeError:
        if cache_path is None or not cache_path.is_file():
            raise  # our own fresh artifact failed: a host bug
        # A stale or damaged cache entry: drop it and compile afresh.
        cache_path.unlink(missing_ok=True)
        return load_module(blob, sha, limits)
    state.modules[sha] = module
    return module


def forget_module(sha: str) -> None:
    """Drop a module from this process's cache (tests count compiles with it)."""
    _engine_state().modules.pop(sha, None)
