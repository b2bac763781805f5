"""Foray, the game: maps, rules and state. Pure: no I/O, no clock, no wasm.

Everything a match needs to be resolved deterministically lives here; the arena
drives it with the controllers' actions. The rules are docs/rules.md; code
comments cite its sections as "rules §N".
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
