"""The local executor: matches on this machine's worker processes, through trio-parallel.

The coordinator is a trio task; each match runs in a worker process
(``trio_parallel``), which keeps the modules it compiled in memory and shares
the on-disk cache of compiled modules with the other workers. A worker that
dies mid-match (killed, out of memory), or while it sends its result back,
loses nothing: the match is played again on a fresh worker, and if that one
dies too the match is reported as failed with the reason. No other match is
affected, and none is reported twice. Workers that cannot start at all are
no match's death: after a worker exits by itself (no signal killed it), the
pool checks that a fresh worker starts and answers, and if none does (or if
starting a worker raises) it raises ``WorkersUnavailableError`` (the
executor's failure: nothing is reported for the match).

A coordinator with many matches to play hands a worker several at once
(``Session.play_batch``): trio-parallel gives a worker one call at a time, and
each call costs a round trip to the coordinator, small beside a match but paid
by every call, so a batch of ``LocalExecutor.batch`` pays it once for them all
(docs/benchmarks.md has the figures).
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar

import trio
import trio_parallel

from arena.executors._abc import Executor, Session, WorkersUnavailableError, _each
from arena.executors._forkserver import FORKSERVER, WorkerInit, start_worker_server
from arena.executors._job import JobFailed, MatchJob, Outcome, default_jobs
from arena.executors._play import (
    open_spool,
    play_batch,
    play_in_turn,
    settle_spool,
    worker_ready,
    worker_started,
)
from arena.match import MatchResult

__all__ = [
    "LocalExecutor",
    "WorkerDied",
    "WorkerPool",
    "open_worker_pool",
]

T = TypeVar("T")


BATCH = 32
"""The most matches a local worker is handed in one call (``LocalExecutor.batch``): enough
that the round trip between two calls is a small part of each match's cost, what is left
being each result's bytes through the pipe (docs/decisions.md, docs/benchmarks.md)."""


class _LocalSession(Session):
    """``LocalExecutor``'s session: ``workers`` relays, each one core's worth of play.

    With a spool for the turns' files, a relay has two workers that take turns
    (``_turn`` in the worker): one plays its batch while the other's results go
    back and its next batch comes out, so ``slots``, the calls to keep going,
    is twice the relays, while no more than ``workers`` matches play at once.
    """

    def __init__(self, workers: int, batch: int, pool: WorkerPool) -> None:
        per_relay = 2 if pool.spool is not None else 1
        self.slots = per_relay * workers
        self.batch = batch
        self._pool = pool
        self._limiter = trio.CapacityLimiter(self.slots)
        self._relays = [0] * workers  # the calls under way in each relay
        self._turns: list[str | None] = [pool.turn(relay) for relay in range(workers)]

    async def start_worker(self) -> None:
        """Start one worker ahead of the first match (it holds a slot until it is up, so no
        match starts a worker of its own meanwhile); one that fails to start is left to the
        first match's retries, and workers that cannot start at all to the first match too
        (it raises ``WorkersUnavailableError`` where the session's user sees it: this task
        is the system's, where an error would end the run)."""
        async with self._limiter:
            with contextlib.suppress(WorkerDied, WorkersUnavailableError):
                await self._pool.call(worker_ready, doing="starting")

    @contextlib.contextmanager
    def _relay(self) -> Iterator[str | None]:
        """The turn of the relay with the fewest calls under way, for one call (the limiter
        keeps every relay within its two)."""
        relay = self._relays.index(min(self._relays))
        self._relays[relay] += 1
        try:
            yield self._turns[relay]
        finally:
            self._relays[relay] -= 1

    async def play(self, job: MatchJob) -> Outcome:
        async with self._limiter:
            with self._relay() as turn:
                return await self._pool.play(job, turn)

    async def play_batch(self, jobs: Sequence[MatchJob]) -> list[Outcome | Exception]:
        async with self._limiter:
            with self._relay() as turn:
                return await self._pool.play_batch(jobs, turn)


class WorkerDied(Exception):
    """Work the arena could not do: its worker process died on every attempt (our failure)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


_CUT_OFF = "got end of file during message"
"""What trio-parallel raises (an ``OSError``) when a worker's result stops mid-message."""


def _cut_off(exc: OSError) -> bool:
    """Whether ``exc`` is trio-parallel reading a worker's message that ended half-way:
    the worker died while it sent its result back. An ``OSError`` that the work itself
    raised in the worker comes back as itself too, so the message alone is not enough:
    this one is raised in trio-parallel's own pipe code, in this process."""
    if exc.args != (_CUT_OFF,):
        return False
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and str(tb.tb_frame.f_globals.get("__name__", "")).startswith(
        "trio_parallel."
    )


@dataclass(frozen=True, slots=True)
class _Death:
    """A call's worker gone: why, and whether that proves nothing about workers starting."""

    reason: str
    outside: bool
    """Killed by a signal (SIGKILL, the OOM killer, a crash), or cut off while it sent a
    result: a worker that did start. One that exited by itself may never have started."""


def _death(exc: BaseException) -> _Death | None:
    """How the worker of a call is gone, if ``exc`` says it died; None for anything else."""
    if isinstance(exc, trio_parallel.BrokenWorkerError):
        codes = [p.exitcode for p in exc.args if isinstance(p, BaseProcess)]
        signalled = bool(codes) and all(c is not None and c < 0 for c in codes)
        return _Death(str(exc) or "the worker process died", signalled)
    if isinstance(exc, OSError) and _cut_off(exc):
        why = "the worker process died while it sent its result back (the message was cut off)"
        return _Death(why, True)
    return None


def _no_start(exc: BaseException) -> str:
    """Why starting a worker raised ``exc`` (``_start_failed``), in words."""
    if isinstance(exc, EOFError | ConnectionError):
        # The worker server's answer never came: it is gone (exited as it started, killed).
        return f"the worker server ended without forking one ({type(exc).__name__}: {exc})"
    return f"{type(exc).__name__}: {exc}"


def _start_failed(exc: BaseException) -> bool:
    """Whether ``exc`` was raised starting a worker process (trio-parallel's ``start``: no
    process or memory for one), not by the work: the traceback passes there."""
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        module = str(tb.tb_frame.f_globals.get("__name__", ""))
        if module == "trio_parallel._proc" and code.co_name == "start":
            return True
        tb = tb.tb_next
    return False


class WorkerPool:
    """Worker processes that outlive any one call (``open_worker_pool``).

    What a local session plays on, and what the web server's coordinator holds
    for its life: workers stay up between calls (they keep the modules they
    compiled), and a call whose worker dies is made again on a fresh one,
    ``retries`` times. Callers bound how many calls run at once (their own
    ``trio.CapacityLimiter``): the pool starts a worker for every call it is given.
    """

    def __init__(
        self,
        ctx: trio_parallel.WorkerContext,
        retries: int,
        *,
        grace_period: float = 5.0,
        spawn: bool = False,
        spool: str | None = None,
    ) -> None:
        self._ctx = ctx
        self._spawn = spawn
        self.spool = spool
        """The directory where workers leave the replays of a batch's results
        (``play_batch``); None: they cross the pipe."""
        self.retries = retries
        self._grace_period = grace_period
        # The pool itself never waits (trio-parallel's default limiter is the core count).
        self._unbounded = trio.CapacityLimiter(math.inf)

    async def call(self, fn: Callable[..., T], *args: Any, doing: str = "this work") -> T:
        """``fn(*args)`` in a worker process (both must pickle); ``WorkerDied`` if it keeps dying,
        ``WorkersUnavailableError`` if no worker can start.

        Cancelling the calling task kills the worker (the work is not finished).
        """
        return await self._attempts(1 + self.retries, [], doing, fn, *args)

    async def _attempts(
        self, attempts: int, deaths: list[str], doing: str, fn: Callable[..., T], *args: Any
    ) -> T:
        """``call`` with ``attempts`` tries, after the ``deaths`` seen already.

        After a death that does not show the worker had started (it exited by
        itself: no signal killed it, no result was under way), before the work is
        tried again or given up, a fresh worker must start and answer
        (``_check_workers_start``): a worker that never started is not the work's
        death. One whose start itself fails (trio-parallel's ``start`` raises) is
        ``WorkersUnavailableError`` at once.
        """
        for _attempt in range(attempts):
            try:
                result: T = await self._ctx.run_sync(
                    fn, *args, kill_on_cancel=True, limiter=self._unbounded
                )
                return result
            except (trio_parallel.BrokenWorkerError, OSError, EOFError) as exc:
                if _start_failed(exc):
                    raise WorkersUnavailableError(
                        f"worker processes cannot start: {_no_start(exc)}"
                    ) from exc
                death = _death(exc)
                if death is None:
                    raise  # an OSError the work raised: the caller's to judge
                deaths.append(death.reason)
            if not death.outside:
                await self._check_workers_start(death.reason)
        raise WorkerDied(f"the worker died {len(deaths)} time(s) {doing}: {deaths[-1]}")

    async def _check_workers_start(self, death: str) -> None:
        """Raise ``WorkersUnavailableError`` unless a fresh worker starts (as the pool's do)
        and answers a call that does nothing.

        A context of its own, so the worker is new (the pool's could hand back a live
        one): only a death pays for it, never a call that went well.
        """
        try:
            async with _worker_context(0.0, self._grace_period, spawn=self._spawn) as ctx:
                await ctx.run_sync(worker_ready, kill_on_cancel=True, limiter=self._unbounded)
        except (trio_parallel.BrokenWorkerError, OSError, EOFError) as exc:
            gone = _death(exc)
            why = f"{type(exc).__name__}: {exc}" if gone is None else gone.reason
            if _start_failed(exc):
                why = _no_start(exc)
            raise WorkersUnavailableError(
                f"worker processes cannot start: a fresh worker died before it answered "
                f"({why}), after a worker died with: {death}"
            ) from exc

    def turn(self, relay: int) -> str | None:
        """The file of relay ``relay``'s turn (``_turn`` in the worker) in the spool; None
        without a spool (calls then play at once, as many as they are)."""
        return None if self.spool is None else os.path.join(self.spool, f"turn-{relay}")

    async def play(self, job: MatchJob, turn: str | None = None) -> Outcome:
        """Play ``job`` in a worker (in its relay's ``turn``, if given): its result, or
        ``JobFailed`` if its workers kept dying.

        An exception the match raised in the worker (a bug, not a death) is raised here.
        """
        return await self._play_alone(job, 1 + self.retries, [], turn)

    async def _play_alone(
        self, job: MatchJob, attempts: int, deaths: list[str], turn: str | None
    ) -> Outcome:
        try:
            return await self._attempts(
                attempts, deaths, "playing this match", play_in_turn, job, turn
            )
        except WorkerDied as exc:
            return JobFailed(job, exc.reason)

    async def play_batch(
        self, jobs: Sequence[MatchJob], turn: str | None = None
    ) -> list[Outcome | Exception]:
        """Play ``jobs`` one after another in one worker (in its relay's ``turn``, if given),
        for one round trip: their outcomes in order, what a job's play raised (a bug of the
        host) in its place.

        If the worker dies, which match it died in is unknown and none of the batch
        came back: each is played again alone on a fresh worker, with the retries a
        match has left, so the match that kills its worker fails as it would alone
        and every other one is played, and reported, once.
        """
        if len(jobs) == 1:
            return await _each(lambda job: self.play(job, turn), jobs)
        deaths: list[str] = []
        try:
            played: list[MatchResult | Exception] = await self._attempts(
                1, deaths, "playing a batch", play_batch, jobs, self.spool, turn
            )
            return list(played)
        except WorkerDied:
            pass
        return await _each(
            lambda job: self._play_alone(job, self.retries, list(deaths), turn), jobs
        )


@asynccontextmanager
async def open_worker_pool(
    *,
    retries: int = 1,
    idle_timeout: float = 60.0,
    grace_period: float = 5.0,
    spawn: bool = False,
) -> AsyncIterator[WorkerPool]:
    """A ``WorkerPool`` for the life of the ``async with`` block (in a trio task).

    Each worker is forked from the worker server, which has loaded the match code
    (``start_worker_server``; spawned where there is none, loading it as it starts),
    and exits without the interpreter's last garbage collections (``worker_started``). Workers idle
    for ``idle_timeout`` seconds retire; on leaving the block, workers still
    busy get ``grace_period`` seconds before they are killed. ``spawn`` True spawns
    each worker even where there is a worker server (to compare the two).

    The pool's spool directory (``WorkerPool.spool``) holds the replays of
    batches' results until the results are recorded; when the block ends,
    results still alive read theirs and the directory goes (``settle_spool``).
    """
    spool = open_spool()
    try:
        async with _worker_context(idle_timeout, grace_period, spawn=spawn) as ctx:
            yield WorkerPool(ctx, retries, grace_period=grace_period, spawn=spawn, spool=spool)
    finally:
        settle_spool(spool)  # after the workers are gone: none writes there any more


def _worker_context(
    idle_timeout: float, grace_period: float, *, spawn: bool = False
) -> contextlib.AbstractAsyncContextManager[trio_parallel.WorkerContext]:
    """Trio-parallel's workers as the arena starts them: forked from the worker server
    (``start_worker_server``, started here if it is not up) where there is one, else
    spawned; each sets the coordinator's environment, then ``worker_started``."""
    forked = FORKSERVER and not spawn and start_worker_server()
    kind = trio_parallel.WorkerType.FORKSERVER if forked else trio_parallel.WorkerType.SPAWN
    context: contextlib.AbstractAsyncContextManager[trio_parallel.WorkerContext]
    context = trio_parallel.open_worker_context(
        idle_timeout=idle_timeout,
        init=WorkerInit(worker_started),
        grace_period=grace_period,
        worker_type=kind,
    )
    return context


class LocalExecutor(Executor):
    """Plays up to ``jobs`` matches at once (default: the number of cores), each relay of
    play on two worker processes that take turns (``open_session``).

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
        """``jobs`` relays of worker processes for the life of the block (two workers a relay,
        taking turns: at most ``jobs`` matches play at once); workers idle 60 s retire.

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
                            for _ in range(session.slots):  # both workers of each relay
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
