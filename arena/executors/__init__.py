"""Executors: where matches run. A match is a pure function of a ``MatchJob``.

``play`` runs one job in this process; ``LocalExecutor`` runs many on this
machine's worker processes (trio-parallel), ``RayExecutor`` as tasks on a Ray
cluster. Only what a ``MatchJob`` and a ``MatchResult`` carry crosses a process
boundary. A job the arena could not play (its worker died, and died again on
the retry) comes back as ``JobFailed``, never as a result. ``open_worker_pool``
keeps workers up between calls, for a coordinator that takes work as it comes
(the web server).
"""

from arena.executors._local import (
    Executor,
    JobFailed,
    LocalExecutor,
    MatchJob,
    OnOutcome,
    Outcome,
    WorkerDied,
    WorkerPool,
    default_jobs,
    open_worker_pool,
    play,
)
from arena.executors._ray import RAY_ADDRESS_ENV, RayExecutor, RayUnavailableError

__all__ = [
    "RAY_ADDRESS_ENV",
    "Executor",
    "JobFailed",
    "LocalExecutor",
    "MatchJob",
    "OnOutcome",
    "Outcome",
    "RayExecutor",
    "RayUnavailableError",
    "WorkerDied",
    "WorkerPool",
    "default_jobs",
    "open_worker_pool",
    "play",
]
