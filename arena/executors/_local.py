"""The local executor: matches on this machine's worker processes, through trio-parallel.

The coordinator is a trio task; each match runs in a worker process
(``trio_parallel``), which keeps the modules it compiled in memory and shares
the on-disk cache of compiled modules with the other workers. A worker that
dies mid-match (killed, out of memory) loses nothing: the match is played again
on a fresh worker, and if that one dies too the match is reported as failed
with the reason. No other match is affected, and none is reported twice.

A coordinator with many matches to play hands a worker several at once
(``Session.play_batch``): trio-parallel gives a worker one call at a time, and
each call costs a round trip to the coordinator, small beside a match but paid
by every call, so a batch of ``LocalExecutor.batch`` pays it once for them all
(docs/benchmarks.md has the figures).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import trio
import trio_parallel

from arena.executors._abc import Executor, Session, _each
from arena.executors._job import JobFailed, MatchJob, Outcome, default_jobs
from arena.executors._play import play, play_batch, ready, worker_started
from arena.match import MatchResult

__all__ = ["LocalExecutor", "WorkerDied", "WorkerPool", "open_worker_pool"]

T = TypeVar("T")


BATCH = 32
"""The most matches a local worker is handed in one call (``LocalExecutor.batch``): enough
that the round trip between two calls is a small part of each match's cost, what is left
being each result's bytes through the pipe (docs/decisions.md, docs/benchmarks.md)."""


class _LocalSession(Session):
    def __init__(self, slots: int, batch: int, pool: WorkerPool) -> None:
        self.slots = slots
        self.batch = batch
        self._pool = pool
        self._limiter = trio.CapacityLimiter(slots)

    async def start_worker(self) -> None:
        """Start one worker ahead of the first match (it holds a slot until it is up, so no
        match starts a worker of its own meanwhile); one that fails to start is left to the
        first match's retries."""
        async with self._limiter:
            with contextlib.suppress(WorkerDied):
                await self._pool.call(ready, doing="starting")

    async def play(self, job: MatchJob) -> Outcome:
        async with self._limiter:
            return await self._pool.play(job)

    async def play_batch(self, jobs: Sequence[MatchJob]) -> list[Outcome | Exception]:
        async with self._limiter:
            return await self._pool.play_batch(jobs)


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
        """Up to ``jobs`` worker processes for the life of the block; workers idle 60 s retire.

        The workers start as the session opens, not at the first match: a coordinator
        reads and builds its plan meanwhile.
        """
        async with open_worker_pool(retries=self.retries) as pool:
            session = _LocalSession(self.jobs, self.batch, pool)
            # A task of its own, not a nursery's: what the session's user raises stays itself.
            scope, started = trio.CancelScope(), trio.Event()

            async def start_workers() -> None:
                try:
                    with scope:
                        async with trio.open_nursery() as nursery:
                            for _ in range(self.jobs):
                                nursery.start_soon(session.start_worker)
                finally:
                    started.set()

            trio.lowlevel.spawn_system_task(start_workers)
            try:
                yield session
            finally:
                scope.cancel()
                with trio.CancelScope(shield=True):
                    await started.wait()  # before the pool closes
