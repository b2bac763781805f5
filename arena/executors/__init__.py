"""Executors: where matches run. A match is a pure function of a ``MatchJob``.

``play`` runs one job in this process; ``LocalExecutor`` runs many on this
machine's worker processes (trio-parallel), ``RayExecutor`` as tasks on a Ray
cluster: each implements ``Executor`` and its ``Session`` (abstract base
classes). Only what a ``MatchJob`` and a ``MatchResult`` carry crosses a process
boundary. A job the arena could not play (its worker died, and died again on
the retry) comes back as ``JobFailed``, never as a result. ``open_session``
plays jobs as they come, for a coordinator that decides what to play next
from what has been played, one a call or several (``Session.play_batch``:
one round trip to a local worker for all of them; docs/execution.md);
``open_worker_pool`` keeps workers up for any call (the web server's
matches, admission checks and push re-plays).
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
