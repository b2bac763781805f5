"""The wasm sandbox that hosts untrusted controllers (rules §8 and §9).

The only code that loads wasmtime: its C library, through the binding of
``_ffi`` (wasmtime-py's Python only in the compile worker's process, which
compiles through its public API). One engine per process, with fuel
metering and epoch interruption; modules compiled out of process under time
and memory bounds and cached by sha256; one store and instance per
``Controller``. Guest faults never raise: they come back as ``Fault``.

The limits and the structural limits load with the package; what compiles or
runs a module (``check_module``, ``Controller``, ``WASMTIME_VERSION``,
``WASMTIME_LIBRARY``) loads wasmtime on first use, so a command that only
reads limits never starts the engine.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
