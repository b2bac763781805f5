"""The local executor: matches on this machine's worker processes, through trio-parallel.

The coordinator is a trio task; each match runs in a worker process
(``trio_parallel``), which keeps the modules it compiled in memory and shares
the on-disk cache of compiled modules with the other workers. A worker that
dies mid-match (killed, out of memory) loses nothing: the match is played again
on a fresh worker, and if that one dies too the match is reported as failed
with the reason. No other match is affected, and none is reported twice.

A coordinator with many matches to play hands a worker several at once
(``Session.play_batch``): trio-parallel gives a worker one call at a time, and
each call costs a round trip to the coordinator (about 0.85 ms here, against a
24 ms match), so a batch of ``LocalExecutor.batch`` pays it once for them all.
"""

from __future__ import annotations

import math
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, TypeVar

import trio
import trio_parallel

from arena.executors._job import (
    JobFailed,
    MatchJob,
    Outcome,
    default_jobs,
    play,
    play_batch,
    worker_started,
)
from arena.match import MatchResult

__all__ = [
    "Executor",
    "LocalExecutor",
    "Session",
    "WorkerDied",
    "WorkerPool",
    "open_worker_pool",
]

T = TypeVar("T")


OnOutcome = Callable[[int, "Outcome"], Awaitable[None] | None]

BATCH = 32
"""The most matches a local worker is handed in one call (``LocalExecutor.batch``): the
round trip between two calls, about 0.85 ms here, is then under 0.05 ms a match (what is
left is each result's bytes through the pipe; docs/decisions.md)."""


class Session:
    """Matches played as they come (``Executor.open_session``): ``await session.play(job)``.

    For a coordinator that decides what to play next from what has been
    played: at most ``slots`` jobs play at once (more calls wait their turn),
    and the workers stay up between calls. Cancelling a call stops its match.
    """

    slots: int
    """How many calls play at once: keep this many going to keep every worker busy."""

    batch: int = 1
    """The most jobs worth giving one ``play_batch`` call (1: batches gain nothing here)."""

    async def play(self, job: MatchJob) -> Outcome:
        """Play ``job``: its result, or ``JobFailed`` if the arena could not play it."""
        raise NotImplementedError

    async def play_batch(self, jobs: Sequence[MatchJob]) -> list[Outcome | Exception]:
        """Play ``jobs`` in one call, as ``play`` each: their outcomes, in order, with what a
        job's play raised (a bug of the host) in its place. Here: one after another."""
        return await _each(self.play, jobs)


async def _each(
    play_one: Callable[[MatchJob], Awaitable[Outcome]], jobs: Sequence[MatchJob]
) -> list[Outcome | Exception]:
    """``play_one`` of each job in turn: the outcomes, what a play raised in its place."""
    outcomes: list[Outcome | Exception] = []
    for job in jobs:
        try:
            outcomes.append(await play_one(job))
        except Exception as exc:  # a host bug in this match: the others play on
            outcomes.append(exc)
    return outcomes


class _LocalSession(Session):
    def __init__(self, slots: int, batch: int, pool: WorkerPool) -> None:
        self.slots = slots
        self.batch = batch
        self._pool = pool
        self._limiter = trio.CapacityLimiter(slots)

    async def play(self, job: MatchJob) -> Outcome:
        async with self._limiter:
            return await self._pool.play(job)

    async def play_batch(self, jobs: Sequence[MatchJob]) -> list[Outcome | Exception]:
        async with self._limiter:
            return await self._pool.play_batch(jobs)


class Executor:
    """Where matches run: ``run`` plays jobs and reports each outcome once, as it completes."""

    def open_session(self) -> AbstractAsyncContextManager[Session]:
        """A ``Session`` for the life of an ``async with`` block (in a trio task)."""
        raise NotImplementedError

    async def run(self, jobs: Sequence[MatchJob], on_outcome: OnOutcome) -> None:
        """Play ``jobs``; call ``on_outcome(index, outcome)`` as each completes.

        Outcomes arrive in completion order, each exactly once, in the calling
        task (so a coordinator may write them to its store without locks).
        """
        done_send, done_recv = trio.open_memory_channel[tuple[int, Outcome]](math.inf)
        async with self.open_session() as session, trio.open_nursery() as nursery:

            async def one(index: int, job: MatchJob) -> None:
                await done_send.send((index, await session.play(job)))

            for index, job in enumerate(jobs):
                nursery.start_soon(one, index, job)
            for _ in range(len(jobs)):
                index, outcome = await done_recv.receive()
                maybe = on_outcome(index, outcome)
                if maybe is not None:
                    await maybe

    def map(self, jobs: Iterable[MatchJob]) -> Iterator[Outcome]:
        """The outcomes of ``jobs``, in their order (runs its own trio loop)."""
        for outcome in self.map_until(list(jobs), math.inf):
            assert outcome is not None
            yield outcome

    def map_until(self, jobs: Sequence[MatchJob], deadline: float) -> list[Outcome | None]:
        """The outcomes of ``jobs``, in their order, as ``map``; None for each one not played
        by ``deadline`` (``time.monotonic()``), when the rest are cancelled (their workers
        killed). Runs its own trio loop."""
        outcomes: list[Outcome | None] = [None] * len(jobs)

        async def keep(index: int, outcome: Outcome) -> None:
            outcomes[index] = outcome
            # A checkpoint: an executor that plays in this thread stops between matches.
            await trio.lowlevel.checkpoint()

        async def play_all() -> None:
            with trio.move_on_after(max(0.0, deadline - time.monotonic())):
                await self.run(jobs, keep)

        trio.run(play_all)
        return outcomes


class WorkerDied(Exception):
    """Work the arena could not do: its worker process died on every attempt (our failure)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class WorkerPool:
    """Worker processes that outlive any one call (``open_worker_pool``).

    What a local session plays on, and what the web server's coordinator holds
    for its life: workers stay up between calls (they keep the modules they
    compiled), and a call whose worker dies is made again on a fresh one,
    ``retries`` times. Callers bound how many calls run at once (their own
    ``trio.CapacityLimiter``): the pool starts a worker for every call it is given.
    """

    def __init__(self, ctx: trio_parallel.WorkerContext, retries: int) -> None:
        self._ctx = ctx
        self.retries = retries
        # The pool itself never waits (trio-parallel's default limiter is the core count).
        self._unbounded = trio.CapacityLimiter(math.inf)

    async def call(self, fn: Callable[..., T], *args: Any, doing: str = "this work") -> T:
        """``fn(*args)`` in a worker process (both must pickle); ``WorkerDied`` if it keeps dying.

        Cancelling the calling task kills the worker (the work is not finished).
        """
        return await self._attempts(1 + self.retries, [], doing, fn, *args)

    async def _attempts(
        self, attempts: int, deaths: list[str], doing: str, fn: Callable[..., T], *args: Any
    ) -> T:
        """``call`` with ``attempts`` tries, after the ``deaths`` seen already."""
        for _attempt in range(attempts):
            try:
                result: T = await self._ctx.run_sync(
                    fn, *args, kill_on_cancel=True, limiter=self._unbounded
                )
                return result
            except trio_parallel.BrokenWorkerError as exc:
                deaths.append(str(exc) or "the worker process died")
        raise WorkerDied(f"the worker died {len(deaths)} time(s) {doing}: {deaths[-1]}")

    async def play(self, job: MatchJob) -> Outcome:
        """Play ``job`` in a worker: its result, or ``JobFailed`` if its workers kept dying.

        An exception the match raised in the worker (a bug, not a death) is raised here.
        """
        return await self._play_alone(job, 1 + self.retries, [])

    async def _play_alone(self, job: MatchJob, attempts: int, deaths: list[str]) -> Outcome:
        try:
            return await self._attempts(attempts, deaths, "playing this match", play, job)
        except WorkerDied as exc:
            return JobFailed(job, exc.reason)

    async def play_batch(self, jobs: Sequence[MatchJob]) -> list[Outcome | Exception]:
        """Play ``jobs`` one after another in one worker, for one round trip: their outcomes
        in order, what a job's play raised (a bug of the host) in its place.

        If the worker dies, which match it died in is unknown and none of the batch
        came back: each is played again alone on a fresh worker, with the retries a
        match has left, so the match that kills its worker fails as it would alone
        and every other one is played, and reported, once.
        """
        if len(jobs) == 1:
            return await _each(self.play, jobs)
        deaths: list[str] = []
        try:
            played: list[MatchResult | Exception] = await self._attempts(
                1, deaths, "playing a batch", play_batch, jobs
            )
            return list(played)
        except WorkerDied:
            pass
        return await _each(lambda job: self._play_alone(job, self.retries, list(deaths)), jobs)


@asynccontextmanager
async def open_worker_pool(
    *, retries: int = 1, idle_timeout: float = 60.0, grace_period: float = 5.0
) -> AsyncIterator[WorkerPool]:
    """A ``WorkerPool`` for the life of the ``async with`` block (in a trio task).

    Each worker loads the match code as it starts and exits without the
    interpreter's last garbage collections (``worker_started``). Workers idle
    for ``idle_timeout`` seconds retire; on leaving the block, workers still
    busy get ``grace_period`` seconds before they are killed.
    """
    async with trio_parallel.open_worker_context(
        idle_timeout=idle_timeout, init=worker_started, grace_period=grace_period
    ) as ctx:
        yield WorkerPool(ctx, retries)


class LocalExecutor(Executor):
    """Plays matches on up to ``jobs`` worker processes (default: the number of cores).

    ``retries`` is how many times a match whose worker died is played again on a
    fresh worker before it is reported as ``JobFailed``; ``batch`` is the most
    matches a worker is handed in one call (``Session.play_batch``).
    """

    def __init__(self, jobs: int | None = None, *, retries: int = 1, batch: int = BATCH) -> None:
        if jobs is not None and jobs < 1:
            raise ValueError(f"jobs must be at least 1, got {jobs}")
        if batch < 1:
            raise ValueError(f"batch must be at least 1, got {batch}")
        self.jobs = jobs or default_jobs()
        self.retries = retries
        self.batch = batch

    @asynccontextmanager
    async def open_session(self) -> AsyncIterator[Session]:
        """Up to ``jobs`` worker processes for the life of the block; workers idle 60 s retire."""
        async with open_worker_pool(retries=self.retries) as pool:
            yield _LocalSession(self.jobs, self.batch, pool)
