"""What an executor is: the interfaces every executor implements (``Executor``, ``Session``).

An executor opens sessions; a session plays jobs as they come. ``run``, ``map``
and ``map_until`` are built on a session here, once for every executor, so an
executor implements ``open_session`` and its session ``play`` (and
``play_batch`` where a batch costs less than its jobs one by one).
"""

from __future__ import annotations

import math
import time
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from contextlib import AbstractAsyncContextManager, contextmanager

import trio

from arena._errors import ArenaError, error_leaves
from arena.executors._job import MatchJob, Outcome

__all__ = ["Executor", "ExecutorLostError", "OnOutcome", "Session", "WorkersUnavailableError"]


class ExecutorLostError(ArenaError):
    """Where the matches run is gone (a Ray cluster's node or GCS lost): no match can be
    played there any more, whoever's fault that was, the arena's and the controllers' aside.

    A session's ``play`` raises it for every match in flight and every later one; the
    coordinator records what came back before it and stops (``TournamentStoppedError``).
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


OnOutcome = Callable[[int, Outcome], Awaitable[None] | None]
"""Called with a job's index and its outcome as it completes (``Executor.run``)."""


class WorkersUnavailableError(ArenaError):
    """Worker processes cannot start (or cannot answer a call that does nothing): the
    executor's failure, not the work's. Nothing is recorded for the work in hand; a command
    exits 2 with the reason (the environment, not a match, needs fixing)."""


class Session(ABC):
    """Matches played as they come (``Executor.open_session``): ``await session.play(job)``.

    For a coordinator that decides what to play next from what has been
    played: at most ``slots`` jobs play at once (more calls wait their turn),
    and the workers stay up between calls. Cancelling a call stops its match.
    """

    slots: int
    """How many calls play at once: keep this many going to keep every worker busy."""

    batch: int = 1
    """The most jobs worth giving one ``play_batch`` call (1: batches gain nothing here)."""

    @abstractmethod
    async def play(self, job: MatchJob) -> Outcome:
        """Play ``job``: its result, or ``JobFailed`` if the arena could not play it.

        ``WorkersUnavailableError`` if the executor cannot start its workers at all
        (nothing is played, and the job has no outcome)."""

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
        except WorkersUnavailableError:
            raise  # no worker can play any of them: the executor's failure, not this match's
        except Exception as exc:  # a host bug in this match: the others play on
            outcomes.append(exc)
    return outcomes


@contextmanager
def _unavailable_as_itself() -> Iterator[None]:
    """The executor's own failure raised as one error, so that callers catch it by type (a
    command exits 2 on it): a lost executor (``ExecutorLostError``), whatever number of
    plays it stopped and whatever else they raised meanwhile; or a nursery's group made only
    of ``WorkersUnavailableError`` (each call that met it), as the first of them."""
    try:
        yield
    except BaseExceptionGroup as group:
        leaves = list(error_leaves(group))
        lost = [e for e in leaves if isinstance(e, ExecutorLostError)]
        if lost:
            raise lost[0] from None
        if all(isinstance(e, WorkersUnavailableError) for e in leaves):
            raise leaves[0] from None
        raise


class Executor(ABC):
    """Where matches run: ``run`` plays jobs and reports each outcome once, as it completes."""

    @abstractmethod
    def open_session(self) -> AbstractAsyncContextManager[Session]:
        """A ``Session`` for the life of an ``async with`` block (in a trio task)."""

    async def run(self, jobs: Sequence[MatchJob], on_outcome: OnOutcome) -> None:
        """Play ``jobs``; call ``on_outcome(index, outcome)`` as each completes.

        Outcomes arrive in completion order, each exactly once, in the calling
        task (so a coordinator may write them to its store without locks).
        ``WorkersUnavailableError`` (raised as itself, however many calls met it)
        if the executor's workers cannot start; ``ExecutorLostError`` if where they run
        is gone.
        """
        done_send, done_recv = trio.open_memory_channel[tuple[int, Outcome]](math.inf)
        with _unavailable_as_itself():
            await self._run(jobs, on_outcome, done_send, done_recv)

    async def _run(
        self,
        jobs: Sequence[MatchJob],
        on_outcome: OnOutcome,
        done_send: trio.MemorySendChannel[tuple[int, Outcome]],
        done_recv: trio.MemoryReceiveChannel[tuple[int, Outcome]],
    ) -> None:
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
