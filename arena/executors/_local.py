"""The local executor: matches in this process, or in a pool of worker processes."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import replays
import sim
from arena.match import Contestant, MatchResult, run_match
from arena.sandbox import Limits

__all__ = ["LocalExecutor", "MatchJob", "play"]


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


def play(job: MatchJob) -> MatchResult:
    """Play one job in this process."""
    return run_match(
        job.a,
        job.b,
        seed=job.seed,
        config=job.config,
        limits=job.limits,
        game_map=job.game_map,
        case=job.case,
    )


class LocalExecutor:
    """Runs jobs on ``jobs`` worker processes (default: the number of cores); 1 runs in process."""

    def __init__(self, jobs: int | None = None) -> None:
        self.jobs = jobs or os.cpu_count() or 1

    def map(self, jobs: Iterable[MatchJob]) -> Iterator[MatchResult]:
        """The results of ``jobs``, in their order."""
        if self.jobs == 1:
            yield from map(play, jobs)
            return
        # Imported here: a one-off match in this process need not load multiprocessing.
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=self.jobs) as pool:
            yield from pool.map(play, jobs, chunksize=4)
