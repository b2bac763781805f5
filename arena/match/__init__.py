"""Matches: the contract codec (rules §9), the match runner, and resolving contestants.

``run_match`` is the one place a match is played; executors call it, in this
process or in workers. It and the rematch that plays a replay again load on
first use, and with them the sandbox's engine: the codec, the records of a
match and ``load_map`` never load wasmtime.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
