"""What running a job gives (``Outcome``), and ``MatchJob`` as the executors take it.

``MatchJob`` is ``arena.match``'s (a match is played without the executors);
this module is kept apart from the executors and from playing (``_play.py``):
a job is built, stored and sent without trio, trio-parallel or the sandbox's
engine.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from arena.match import MatchJob, MatchResult

__all__ = ["JobFailed", "MatchJob", "Outcome", "default_jobs"]


@dataclass(frozen=True, slots=True)
class JobFailed:
    """A match the arena could not play (our failure, not a controller's): it has no result."""

    job: MatchJob
    reason: str


Outcome = MatchResult | JobFailed
"""What running a job gives: its result, or why there is none."""


def default_jobs() -> int:
    """Workers by default: the cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1
