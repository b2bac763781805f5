"""Measurements: the speed figures of ``arena bench`` and the strength tables of the baselines.

Figures are printed, never asserted in tests; docs/benchmarks.md and
docs/baselines.md keep them with the machine they came from.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
