"""The arena: hosts untrusted wasm controllers and plays Foray matches between them.

The public facade over the sub-packages (sandbox, match, executors, tournament,
store, coordinator, cases, proving, baselines, bench, cli); ``web`` and other callers use
only these names. Names load on first use (PEP 562), so a command that never
plays a match never imports wasmtime.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
