"""What a match depends on (``MatchJob``) and what running one gives (``Outcome``).

Kept apart from the executors and from playing (``_play.py``): a job is built,
stored and sent without trio, trio-parallel or the sandbox's engine.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import replays
import sim
from arena.match import Contestant, MatchResult
from arena.sandbox import Limits

__all__ = ["JobFailed", "MatchJob", "Outcome", "default_jobs"]


@dataclass(frozen=True, slots=True)
class MatchJob:
    """Everything one match depends on; the same job always gives the same replay bytes.

    A case builds the job of a match played under it (``Case.match_job``): its
    rules, limits, map, identity and replay version.
    """

    a: Contestant
    b: Contestant
    seed: int = 0
    config: sim.Config | None = None
    limits: Limits | None = None
    game_map: sim.GameMap | None = None
    case: replays.CaseRef | None = None
    replay_version: int = replays.VERSION
    """The replay format version written (the one a case records in)."""


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
