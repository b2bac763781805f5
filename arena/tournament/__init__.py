"""Tournaments over a field: the pairings of each format and the standings. Pure.

No wasm, no I/O, no clock: a ``TournamentPlan`` (format, field in seeded
order, seeds, options) and the results recorded so far decide everything. A
``Scheduler`` tells a coordinator what to play next and takes the results back
in any order; after a crash, a new one built from the stored results plays on
to the same standings. Entrants are names; the coordinator maps them to
modules. The formats, tie-breaks and ratings are docs/tournaments.md.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
