"""Cases: what is played, declared in ``test-case.toml`` (docs/cases.md).

A case is one versioned, immutable directory of the catalog
``cases/<type>/<difficulty>/<slug>/<version>/``. ``load_case`` validates a
manifest against every rule of the format and reports all the errors it finds
at once; the typed ``Case`` it returns holds the rules (``sim.Config``), the
sandbox limits (``arena.Limits``), the map, the seeds, the opponents and how a
submission is built. ``default_case`` is the Foray case: the rules and limits
``arena match`` plays under. A case builds the job of a match played under it
(``Case.match_job``), so the executors never know what a case is.

This is the case format alone; the workflow of a submission to a case (new
project, build, proof runs, checking a pushed run) is ``arena.proving``.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
