"""The process-wide wasmtime engine, its epoch ticker, and compiled modules.

One ``Engine`` per process, with fuel metering and epoch interruption. Modules
are compiled in a child process under a time and address-space bound
(``_compile_worker.py``), then deserialized here. Compiled modules are cached
twice, both caches bounded: in this process (least recently used out, by count
and by artifact bytes), and on disk for every process of the machine (least
recently used out, by total bytes; see ``DiskCache``).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import math
import os
import re
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from arena._errors import ArenaError
from arena._files import atomic_write, cache_dir
from arena.sandbox import _ffi
from arena.sandbox._compile_worker import (
    CONFIG_HASH,
    EXIT_INVALID,
    EXIT_MEMORY,
    MAX_REASON_BYTES,
    engine_settings,
)
from arena.sandbox._features import engine_refusal
from arena.sandbox._limits import MAX_MODULE_BYTES, Limits

__all__ = [
    "DISK_CACHE_BYTES",
    "EPOCH_INTERVAL",
    "MEMORY_CACHE_BYTES",
    "MEMORY_CACHE_MODULES",
    "WASMTIME_VERSION",
    "CompileTimeout",
    "DiskCache",
    "disk_cache",
    "engine",
    "epoch_ticks",
    "format_reason",
    "load_module",
]


def _wasmtime_version() -> str:
    """The installed wasmtime's version, read from its ``.dist-info`` directory's name.

    ``importlib.metadata`` costs more to import than a one-off match should
    spend (docs/benchmarks.md), and so does wasmtime-py itself (``_ffi``); the
    directory sits next to the package and is named ``wasmtime-{version}.dist-info``.
    Falls back to ``importlib.metadata``.
    """
    site = Path(_ffi.wasmtime_dir()).resolve().parent
    prefix = "wasmtime-"
    with contextlib.suppress(OSError):
        for entry in os.scandir(site):
            name = entry.name
            if name.startswith(prefix) and name.endswith(".dist-info"):
                return name[len(prefix) : -len(".dist-info")]
    from importlib import metadata

    return metadata.version("wasmtime")


WASMTIME_VERSION: Final[str] = _wasmtime_version()
"""The installed wasmtime version: fuel costs depend on it, so replays record it."""

MEMORY_CACHE_MODULES: Final = 64
"""Compiled modules kept in one process at most."""
MEMORY_CACHE_BYTES: Final = 512 * 1024 * 1024
"""Bytes of compiled code (by artifact size) kept in one process at most."""
DISK_CACHE_BYTES: Final = 2 * 1024**3
"""Default bound on the disk cache's total bytes (``FORAY_CACHE_BYTES`` overrides; 0 turns
the disk cache off)."""

EPOCH_INTERVAL: Final = 0.005
"""Period of the epoch ticker; the backstops are rounded up to whole periods."""

_WORKER_PATH: Final = Path(__file__).with_name("_compile_worker.py")


class _EngineState:
    """The engine of one process; rebuilt after a fork (threads do not survive it)."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.engine = _ffi.Engine(engine_settings())
        self.modules = _MemoryCache(MEMORY_CACHE_MODULES, MEMORY_CACHE_BYTES)
        increment = self.engine.increment_epoch

        def tick_epoch() -> None:
            # The engine stays referenced by this closure, so it outlives the thread.
            while True:
                time.sleep(EPOCH_INTERVAL)
                increment()

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


def engine() -> _ffi.Engine:
    """This process's engine (its epoch ticker running)."""
    return _engine_state().engine


def epoch_ticks(seconds: float) -> int:
    """Epoch periods for a backstop of ``seconds``; +1 because the current one is partly over."""
    return math.ceil(seconds / EPOCH_INTERVAL) + 1


_TINY_BYTES: Final = 256
"""Below this size, a file that is not a module probably came from a build that went wrong."""


def format_reason(blob: bytes) -> str | None:
    """The byte-level checks: size, binary format, core module."""
    if len(blob) > MAX_MODULE_BYTES:
        return f"module is {len(blob)} bytes, over the {MAX_MODULE_BYTES}-byte (8 MiB) limit"
    if not blob.startswith(b"\0asm"):
        if blob.lstrip()[:1] in (b"(", b";"):
            return "WebAssembly text format is refused: submit a binary module"
        return "not a WebAssembly binary (bad magic bytes" + _tiny_hint(blob) + ")"
    if len(blob) < 8:
        return f"not a whole WebAssembly module (its 8-byte header is cut short{_tiny_hint(blob)})"
    if blob[4:8] != b"\x01\x00\x00\x00":
        return "not a core WebAssembly module (components and other versions are refused)"
    return None


def _tiny_hint(blob: bytes) -> str:
    """What a near-empty file usually means (rules §9.10), or nothing for a larger one."""
    if len(blob) >= _TINY_BYTES:
        return ""
    return (
        f"; it is only {len(blob)} bytes: did the build write the module and keep your"
        " exports? Zig needs -rdynamic, clang --export=NAME or -Wl,--export-dynamic"
    )


class _MemoryCache:
    """Compiled modules by sha256, least recently used first; bounded by count and bytes."""

    def __init__(self, max_modules: int, max_bytes: int) -> None:
        self.max_modules = max_modules
        self.max_bytes = max_bytes
        self.bytes = 0
        self._entries: OrderedDict[str, tuple[_ffi.Module, int]] = OrderedDict()

    def get(self, sha: str) -> _ffi.Module | None:
        entry = self._entries.get(sha)
        if entry is None:
            return None
        self._entries.move_to_end(sha)
        return entry[0]

    def put(self, sha: str, module: _ffi.Module, size: int) -> None:
        self.forget(sha)
        self._entries[sha] = (module, size)
        self.bytes += size
        # The newest entry stays even alone over the bound: it is about to be used.
        while len(self._entries) > 1 and (
            len(self._entries) > self.max_modules or self.bytes > self.max_bytes
        ):
            _, (_, dropped) = self._entries.popitem(last=False)
            self.bytes -= dropped

    def forget(self, sha: str) -> None:
        entry = self._entries.pop(sha, None)
        if entry is not None:
            self.bytes -= entry[1]

    def __len__(self) -> int:
        return len(self._entries)


class DiskCache:
    """Compiled artifacts on disk, shared by every process of the machine.

    An entry is ``{sha256}-wasmtime{version}-{config hash}.cwasm``: the module's
    hash, the wasmtime version and the engine configuration key it, since an
    artifact is only valid for the exact engine that made it. Its bytes are a
    magic string, a BLAKE2b-256 digest of the entry's name and artifact, then
    the artifact (``Module.serialize``). wasmtime's own check on deserializing
    covers the version and configuration but not the integrity of the code, so
    an entry whose digest does not match (truncated, damaged, renamed) is
    deleted and the module compiled afresh: never trusted. Entries are written
    atomically; a lock file per entry makes concurrent processes wait for one
    compile instead of each compiling. Each use touches the entry's mtime; after
    a write, the least recently used entries go until the total is within
    ``max_bytes``.

    The directory must be trusted: an artifact is native code that runs in the
    host process.
    """

    MAGIC: Final = b"FORAYCW1"

    def __init__(self, root: Path, max_bytes: int) -> None:
        self.root = root
        self.max_bytes = max_bytes

    def path(self, sha: str) -> Path:
        return self.root / f"{sha}-wasmtime{WASMTIME_VERSION}-{CONFIG_HASH}.cwasm"

    def _digest(self, path: Path, artifact: bytes | memoryview) -> bytes:
        h = hashlib.blake2b(path.name.encode(), digest_size=32)
        h.update(artifact)
        return h.digest()

    def read(self, sha: str) -> bytes | None:
        """The artifact of ``sha`` if a valid entry holds it; a damaged entry is deleted."""
        path = self.path(sha)
        try:
            data = path.read_bytes()
        except OSError:
            return None
        head = len(self.MAGIC) + 32
        view = memoryview(data)
        if (
            len(data) <= head
            or data[: len(self.MAGIC)] != self.MAGIC
            or data[len(self.MAGIC) : head] != self._digest(path, view[head:])
        ):
            self.drop(sha)
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # recently used: evicted last
        return data[head:]

    def write(self, sha: str, artifact: bytes) -> None:
        """Store an artifact (atomically), then evict down to the bound.

        The cache only saves time: a directory that cannot be written costs
        compiles, not the match.
        """
        path = self.path(sha)
        with contextlib.suppress(OSError):
            atomic_write(path, self.MAGIC + self._digest(path, artifact) + artifact)
            self.evict()

    def drop(self, sha: str) -> None:
        with contextlib.suppress(OSError):
            self.path(sha).unlink(missing_ok=True)

    @contextlib.contextmanager
    def lock(self, sha: str) -> Iterator[None]:
        """Hold the entry's lock: one process compiles it while the others wait (a lock
        that cannot be made is not waited for)."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            f = open(self.path(sha).with_suffix(".lock"), "a+b")  # noqa: SIM115
        except OSError:
            yield
            return
        with f:
            fcntl.flock(f, fcntl.LOCK_EX)
            yield

    def evict(self) -> None:
        """Delete least recently used entries until the total is within ``max_bytes``.

        Lock files go with their entries, or after an hour (no compile lasts
        longer) when their module never made an entry.
        """
        entries: list[tuple[float, int, Path]] = []
        now = time.time()
        with contextlib.suppress(FileNotFoundError), os.scandir(self.root) as it:
            for e in it:
                with contextlib.suppress(OSError):
                    st = e.stat(follow_symlinks=False)
                    path = Path(e.path)
                    if e.name.endswith(".cwasm"):
                        entries.append((st.st_mtime, st.st_size, path))
                    elif (
                        e.name.endswith(".lock")
                        and now - st.st_mtime > 3600
                        and not path.with_suffix(".cwasm").exists()
                    ):
                        path.unlink(missing_ok=True)
        total = sum(size for _, size, _ in entries)
        for _, size, path in sorted(entries):
            if total <= self.max_bytes:
                break
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)
                path.with_suffix(".lock").unlink(missing_ok=True)
            total -= size


def disk_cache() -> DiskCache | None:
    """The machine's disk cache: ``$FORAY_CACHE_DIR``, else ``cache/`` in the data directory;
    bounded by ``$FORAY_CACHE_BYTES`` (default ``DISK_CACHE_BYTES``; 0 turns it off).

    A ``FORAY_CACHE_BYTES`` that is not a whole number of bytes is the operator's
    error (``ArenaError``): guessing a bound would be worse than stopping.
    """
    bound = os.environ.get("FORAY_CACHE_BYTES")
    if not bound:  # unset or empty, as FORAY_CACHE_DIR
        max_bytes = DISK_CACHE_BYTES
    elif re.fullmatch(r"[0-9]{1,30}", bound):
        max_bytes = int(bound)
    else:
        shown = bound if len(bound) <= 40 else bound[:39] + "…"
        raise ArenaError(
            f"FORAY_CACHE_BYTES={shown!r}: must be a whole number of bytes, such as"
            f" {DISK_CACHE_BYTES} (0 turns the disk cache of compiled modules off)"
        )
    if max_bytes == 0:
        return None
    return DiskCache(cache_dir(), max_bytes)


class CompileTimeout(str):
    """A refusal that the wall clock decided: the compile backstop fired (rules §8.7).

    A ``str`` like every other refusal reason, so it passes through the caches
    unchanged; admission turns it into the forfeit kind ``timeout``, not ``init``.
    """


def _compile_out_of_process(blob: bytes, limits: Limits) -> bytes | str:
    """Return the serialized artifact, or the reason the module is refused."""
    import subprocess  # not at import: a module found in a cache needs no compile

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
        return engine_refusal(" ".join(text.split()))
    stderr = proc.stderr.decode("utf-8", "replace")
    if proc.returncode == EXIT_MEMORY or proc.returncode < 0 or "memory allocation" in stderr:
        # An allocation failure under RLIMIT_AS aborts the compiler (a signal).
        return f"compile exceeded memory bound ({limits.compile_memory_bytes} bytes)"
    if proc.returncode == 101:  # a Rust panic in the compiler: the module's doing
        return "compile failed: the compiler panicked"
    raise RuntimeError(f"compile worker failed (exit {proc.returncode}):\n{stderr.strip()}")


def load_module(blob: bytes, sha: str, limits: Limits) -> _ffi.Module | str:
    """Compile (or fetch from the caches) ``blob``; a str is the refusal reason."""
    reason = format_reason(blob)
    if reason is not None:
        return reason
    state = _engine_state()
    module = state.modules.get(sha)
    if module is not None:
        return module
    cache = disk_cache()
    if cache is None:
        compiled = _compile_out_of_process(blob, limits)
        if isinstance(compiled, str):
            return compiled
        return _deserialized(state, sha, compiled)
    artifact = cache.read(sha)
    if artifact is None:
        with cache.lock(sha):
            artifact = cache.read(sha)  # another process may have compiled it meanwhile
            if artifact is None:
                compiled = _compile_out_of_process(blob, limits)
                if isinstance(compiled, str):
                    return compiled
                cache.write(sha, compiled)
                return _deserialized(state, sha, compiled)
    try:
        return _deserialized(state, sha, artifact)
    except _ffi.WasmtimeError:
        # A valid entry wasmtime refuses (made by another build of it with the
        # same version string): drop it and compile afresh.
        cache.drop(sha)
        return load_module(blob, sha, limits)


def _deserialized(state: _EngineState, sha: str, artifact: bytes) -> _ffi.Module:
    module = _ffi.Module.deserialize(state.engine, artifact)
    state.modules.put(sha, module, len(artifact))
    return module


def forget_module(sha: str) -> None:
    """Drop a module from this process's cache (tests count compiles with it)."""
    _engine_state().modules.forget(sha)
