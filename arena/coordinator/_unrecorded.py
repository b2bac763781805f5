"""A tournament played and not recorded (``arena tournament --no-record``): nothing is stored.

The scheduler alone holds the results, so an interrupted one cannot be resumed.
Each wave of ``Scheduler.ready()`` is played on one executor session (a
round-robin or a gauntlet is one wave; a bracket or swiss round needs the one
before), and each result is cut down to what the tournament counts as it
arrives: a replay is never kept.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Sequence
from dataclasses import dataclass

import trio

import sim
from arena.cases import Case, default_case
from arena.coordinator._run import OnProgress, TournamentProgress
from arena.executors import Executor, JobFailed, Outcome
from arena.match import Contestant
from arena.tournament import Pairing, Played, Standings, TournamentPlan

__all__ = ["UnrecordedTournament", "play_unrecorded"]


@dataclass(frozen=True, slots=True)
class UnrecordedTournament:
    """A tournament played without the store: its plan, standings and every result."""

    plan: TournamentPlan
    standings: Standings
    played: tuple[Played, ...]
    """Every result, in the order they came in."""
    case: Case
    config: sim.Config


def play_unrecorded(
    plan: TournamentPlan,
    contestants: Sequence[Contestant],
    executor: Executor,
    *,
    case: Case | None = None,
    config: sim.Config | None = None,
    on_progress: OnProgress | None = None,
) -> UnrecordedTournament:
    """Play every match of ``plan`` on ``executor`` and store nothing, in a trio loop of its
    own (Ctrl-C raises ``KeyboardInterrupt``; there is nothing to resume).

    ``contestants`` are the field's modules, by the plan's names. Matches play
    under ``case`` (default: the Foray case) with ``config`` in place of its
    rules if given. A match the arena could not play counts as an error, as
    in a stored tournament. ``on_progress`` is called as ``run_tournament``
    calls it, with tournament id 0 (there is no id).
    """
    case = case or default_case()
    config = config or case.rules
    modules = {c.name: c for c in contestants}
    missing = [name for name in plan.field if name not in modules]
    if missing:
        raise ValueError(f"no module for {', '.join(missing)}")
    sched = plan.scheduler()
    played: list[Played] = []
    playing = 0  # the wave's matches not in yet
    start = time.perf_counter()

    def report(last: Played | None) -> None:
        if on_progress is not None:
            on_progress(
                TournamentProgress(
                    0,
                    done=sched.recorded,
                    total=sched.total,
                    playing=playing,
                    played_now=sched.recorded,
                    elapsed=time.perf_counter() - start,
                    leader=sched.leader,
                    last=last,
                )
            )

    def counted(wave: list[Pairing], index: int, outcome: Outcome) -> None:
        nonlocal playing
        p = wave[index]
        result = (
            Played.failed(p, outcome.reason)
            if isinstance(outcome, JobFailed)
            else Played.from_result(p, outcome)
        )
        sched.record(result)
        played.append(result)
        playing -= 1
        report(result)

    async def play_all() -> None:
        nonlocal playing
        report(None)
        while wave := list(sched.ready()):
            playing = len(wave)
            jobs = [
                case.match_job(modules[p.a], modules[p.b], seed=p.seed, config=config) for p in wave
            ]
            await executor.run(jobs, functools.partial(counted, wave))

    trio.run(play_all)
    return UnrecordedTournament(plan, sched.standings(), tuple(played), case, config)
