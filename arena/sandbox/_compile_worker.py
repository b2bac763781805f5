"""Out-of-process compiler for untrusted wasm modules.

Compiling is done apart from the host process because a small module can take
minutes and gigabytes to compile (rules §8). The host runs this file as a
script (``python -I path/to/_compile_worker.py MEMORY_BYTES``), so the child
imports only the standard library and wasmtime, never the ``arena`` package.

Protocol: the module's bytes arrive on stdin. Exit status:
``0``: stdout holds ``Module.serialize()`` of the compiled module;
``3``: the module is invalid, stdout holds the innermost cause of the compiler's
error, where the defect is named (UTF-8, at most ``MAX_REASON_BYTES`` bytes: the
validator may quote the module);
``4``: compiling ran out of the address-space bound (a Python ``MemoryError``).
A compiler abort on allocation failure shows up as a signal; the host decides.

The engine configuration lives here so the host and the child build their
engines from the same settings (``engine_settings``): ``Module.deserialize``
requires it. The child sets them on wasmtime-py's ``Config``, the host through
the C API's setters of the same names (``_ffi.Engine``); the host imports this
module for them without loading wasmtime-py.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import wasmtime

__all__ = [
    "CONFIG_DESCRIPTION",
    "CONFIG_HASH",
    "EXIT_INVALID",
    "EXIT_MEMORY",
    "MAX_REASON_BYTES",
    "engine_settings",
    "innermost_cause",
    "make_config",
]

EXIT_INVALID = 3
EXIT_MEMORY = 4
MAX_REASON_BYTES = 300

# Everything that shapes the generated code; hashed into the disk-cache key.
CONFIG_DESCRIPTION: dict[str, bool | int] = {
    "consume_fuel": True,
    "epoch_interruption": True,
    "cranelift_nan_canonicalization": True,
    "wasm_threads": False,
    "shared_memory": False,
    "wasm_memory64": False,
    "wasm_multi_memory": False,
    "wasm_relaxed_simd": False,
    "wasm_component_model": False,
    "wasm_gc": False,
    "wasm_function_references": False,
    "wasm_exceptions": False,
    "wasm_stack_switching": False,
    "wasm_custom_page_sizes": False,
    "wasm_wide_arithmetic": False,
    "gc_support": False,
    "max_wasm_stack": 512 * 1024,
    # Nothing the host reads: no DWARF for the module, no native unwind tables
    # (wasmtime walks wasm frames itself). Trap texts are built from the trap
    # code, never from wasmtime's formatted backtrace (rules §8.8).
    "debug_info": False,
    "native_unwind_info": False,
    # A 32-bit memory never moves (the default 4 GiB reservation covers it), so
    # the host may cache the memory's base address across calls.
    "memory_may_move": False,
}
# The sorted items' repr (names, bools, ints) is the same text everywhere, and needs no json.
_CONFIG_TEXT = repr(sorted(CONFIG_DESCRIPTION.items()))
CONFIG_HASH: str = hashlib.sha256(_CONFIG_TEXT.encode()).hexdigest()[:16]


def engine_settings(*, parallel_compilation: bool = True) -> dict[str, bool | int]:
    """The engine's settings: ``CONFIG_DESCRIPTION`` and ``parallel_compilation``, each a
    wasmtime-py ``Config`` attribute whose setter is the C API's ``wasmtime_config_{name}_set``.

    Call it before the engine is made: it also turns wasmtime's backtrace details off.
    """
    # wasmtime reads this variable when a Config is made: with it set, a trap's
    # backtrace would parse the module's debug sections. Never, whatever the
    # operator's environment, in the host and the compiler alike.
    os.environ["WASMTIME_BACKTRACE_DETAILS"] = "0"
    # parallel_compilation is not part of the artifact's compatibility check; off
    # in the child so the memory bound covers one compiling thread.
    return {**CONFIG_DESCRIPTION, "parallel_compilation": parallel_compilation}


def make_config(*, parallel_compilation: bool = True) -> wasmtime.Config:
    """A fresh wasmtime-py ``Config`` with ``engine_settings``, for the compiler."""
    import wasmtime

    config = wasmtime.Config()
    for name, value in engine_settings(parallel_compilation=parallel_compilation).items():
        setattr(config, name, value)
    return config


def innermost_cause(text: str) -> str:
    """The last cause of wasmtime's error chain ("head / Caused by: / 0: ... / 1: ...").

    The chain's head may quote the module at length (a function's name from its
    name section), so the cause is taken before the text is cut.
    """
    _, caused, causes = text.rpartition("\nCaused by:\n")
    if not caused:
        return text.strip()
    return re.split(r"\n\s*\d+: ", "\n" + causes)[-1].strip()


def _main(argv: list[str]) -> int:
    import resource

    import wasmtime

    memory_bytes = int(argv[1])
    blob = sys.stdin.buffer.read()
    engine = wasmtime.Engine(make_config(parallel_compilation=False))
    # Bound the address space only now: the interpreter and wasmtime are loaded.
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    if not blob.startswith(b"\0asm"):
        # Module() would parse text; the host refuses it before getting here.
        sys.stdout.write("not a binary wasm module")
        return EXIT_INVALID
    try:
        module = wasmtime.Module(engine, blob)
        artifact = module.serialize()
    except MemoryError:
        return EXIT_MEMORY
    except wasmtime.WasmtimeError as exc:
        # A validation error has no wasm backtrace, so formatting it is cheap.
        cause = innermost_cause(str(exc))
        sys.stdout.buffer.write(cause.encode("utf-8", "replace")[:MAX_REASON_BYTES])
        return EXIT_INVALID
    sys.stdout.buffer.write(bytes(artifact))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv))
