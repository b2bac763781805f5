"""What a match depends on (``MatchJob``) and what running one gives (``Outcome``).

Kept apart from the executors and from playing (``_play.py``): a job is built,
stored and sent without trio, trio-parallel or the sandbox's engine.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

import replays
import sim
from arena.match import Contestant, MatchResult
from arena.sandbox import Limits

if TYPE_CHECKING:
    from arena.cases import Case

__all__ = ["JobFailed", "MatchJob", "Outcome", "default_jobs"]


@dataclass(frozen=True, slots=True)
class MatchJob:
    """Everything one match depends on; the same job always gives the same replay bytes."""

    a: Contestant
    b: Contestant
    seed: int = 0
    config: sim.Config | None = None
    limits: Limits | None = None
    game_map: sim.GameMap | None = None
    case: replays.CaseRef | None = None
    replay_version: int = replays.VERSION
    """The replay format version written (a case's ``[replay] version``)."""

    @classmethod
    def for_case(
        cls,
        case: Case,
        a: Contestant,
        b: Contestant,
        *,
        seed: int = 0,
        config: sim.Config | None = None,
        game_map: sim.GameMap | None = None,
    ) -> MatchJob:
        """A match under ``case``'s rules, limits and map, recorded with the case's identity.

        The replay is written in the format version the case's ``[replay]`` declares.
        ``config`` and ``game_map`` replace the case's (``arena match --max-ticks``,
        ``--map``); the replay header records the constants actually played.
        """
        return cls(
            a,
            b,
            seed=seed,
            config=case.rules if config is None else config,
            limits=case.limits,
            game_map=case.game_map if game_map is None else game_map,
            case=case.ref,
            replay_version=case.replay.version,
        )


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
