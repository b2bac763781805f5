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

from __future__ import annotations

from typing import TYPE_CHECKING

from arena._lazy import lazy_names
from arena.executors._job import JobFailed, MatchJob, Outcome, default_jobs

if TYPE_CHECKING:
    from arena.executors._abc import Executor, OnOutcome, Session
    from arena.executors._local import LocalExecutor, WorkerDied, WorkerPool, open_worker_pool
    from arena.executors._play import play, play_batch, play_batch_timed
    from arena.executors._ray import RAY_ADDRESS_ENV, RayExecutor, RayStats, RayUnavailableError

# The executors load on first use (PEP 562): they import trio and trio-parallel,
# which a one-off match played in this process needs neither of, and playing
# imports the sandbox's engine, which a job built or stored does not need.
_LAZY = {
    **dict.fromkeys(("Executor", "OnOutcome", "Session"), "arena.executors._abc"),
    **dict.fromkeys(
        ("LocalExecutor", "WorkerDied", "WorkerPool", "open_worker_pool"),
        "arena.executors._local",
    ),
    **dict.fromkeys(("play", "play_batch", "play_batch_timed"), "arena.executors._play"),
    **dict.fromkeys(
        ("RAY_ADDRESS_ENV", "RayExecutor", "RayStats", "RayUnavailableError"),
        "arena.executors._ray",
    ),
}

__all__ = [
    "RAY_ADDRESS_ENV",
    "Executor",
    "JobFailed",
    "LocalExecutor",
    "MatchJob",
    "OnOutcome",
    "Outcome",
    "RayExecutor",
    "RayStats",
    "RayUnavailableError",
    "Session",
    "WorkerDied",
    "WorkerPool",
    "default_jobs",
    "open_worker_pool",
    "play",
    "play_batch",
    "play_batch_timed",
]


__getattr__, __dir__ = lazy_names(__name__, _LAZY, globals(), __all__)
