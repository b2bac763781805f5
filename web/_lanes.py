"""The site's worker lanes: one thread running its own trio loop, which owns the worker processes.

The web server runs under asyncio (uvicorn); the arena's worker processes are
trio-parallel's, which need a trio loop. So a dedicated thread runs one, for
the life of the server, with one ``arena.WorkerPool`` whose workers stay up
between calls (they keep what they compiled). Any thread hands it work with
``submit``, which never blocks: the work is scheduled into the trio loop with
``TrioToken.run_sync_soon`` and the caller gets a ``concurrent.futures.Future``
(an asyncio handler awaits it with ``asyncio.wrap_future``).

Work goes in lanes, each with its own capacity limiter: quick matches (as many
at once as there are workers) wait behind each other, never in front of an
admission check. A lane's waiting list is the queue; bounding it is the
caller's (``web._matches`` answers 429 past its bound). Nothing here plays a
match or compiles a module: every call runs in a worker process.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import enum
import logging
import threading
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

import trio
import trio.testing

import arena

__all__ = ["Lane", "LanesClosed", "NotDone", "WorkerLanes"]

_log = logging.getLogger("web")

T = TypeVar("T")
R = TypeVar("R")


_QUIET_POLL = 0.01
"""Seconds between looks at whether any call still runs, while the lanes close."""

NotDone = arena.WorkerDied | arena.WorkersUnavailableError
"""Why a call gave no value: its workers kept dying, or no worker can start."""


class Lane(enum.Enum):
    """Kinds of work, each with its own limit of calls at once."""

    MATCH = "match"
    """Quick matches and a push's matches played again."""
    CHECK = "check"
    """Admission checks of uploaded modules."""


class LanesClosed(RuntimeError):
    """The lanes stopped (the server is shutting down) before the work was done."""


class WorkerLanes:
    """A thread with a trio loop and a worker pool; ``submit`` work from any thread.

    ``lanes`` gives each lane's limit of calls at once. Use as a context
    manager, or ``start()`` then ``close()``.
    """

    def __init__(
        self, lanes: Mapping[Lane, int], *, retries: int = 1, idle_timeout: float = 600.0
    ) -> None:
        self._sizes = dict(lanes)
        self._retries = retries
        self._idle_timeout = idle_timeout
        self._thread = threading.Thread(target=self._main, name="worker-lanes", daemon=True)
        self._ready = threading.Event()
        self._token: trio.lowlevel.TrioToken | None = None
        self._stop: trio.Event | None = None
        self._nursery: trio.Nursery | None = None
        self._failure: BaseException | None = None
        self._closed = False

    # ------------------------------------------------------------------ life

    def start(self) -> None:
        """Start the thread; return once its trio loop takes work."""
        self._thread.start()
        self._ready.wait()
        if self._failure is not None:
            raise RuntimeError("the worker lanes could not start") from self._failure

    def close(self, grace: float = 5.0) -> None:
        """Stop: work still running after ``grace`` seconds is cancelled (its workers killed)."""
        if self._closed or self._token is None:
            self._closed = True
            return
        self._closed = True
        with contextlib.suppress(trio.RunFinishedError):
            self._token.run_sync_soon(self._begin_stop, grace)
        self._thread.join()

    @property
    def stopping(self) -> bool:
        """Whether the lanes are closing: nothing new starts in a worker."""
        return self._stop is not None and self._stop.is_set()

    def __enter__(self) -> WorkerLanes:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _main(self) -> None:
        try:
            trio.run(self._serve)
        except BaseException as exc:  # reported to start(), or logged
            self._failure = exc
            if self._ready.is_set():
                _log.exception("the worker lanes stopped on an error")
        finally:
            self._ready.set()

    async def _serve(self) -> None:
        self._limiters = {lane: _Limiter(n) for lane, n in self._sizes.items()}
        self._stop = trio.Event()
        async with (
            arena.open_worker_pool(
                retries=self._retries, idle_timeout=self._idle_timeout, grace_period=2.0
            ) as pool,
            trio.open_nursery() as nursery,
        ):
            self._pool = pool
            self._nursery = nursery
            self._token = trio.lowlevel.current_trio_token()
            self._ready.set()
            await self._stop.wait()
            # What runs in a worker may finish within the grace, and nothing new
            # starts; once nothing runs, the rest (tasks that wait for work, such
            # as a field's) is cancelled at once instead of at the grace's end.
            with trio.move_on_after(self._grace):
                await self._quiet()
            nursery.cancel_scope.cancel()

    async def _quiet(self) -> None:
        """Return once no call runs in a worker, and every task has reached its next wait
        (so a result in hand is being recorded: that is never abandoned)."""
        while any(limiter.running for limiter in self._limiters.values()):
            await trio.sleep(_QUIET_POLL)
        await trio.testing.wait_all_tasks_blocked()

    def _begin_stop(self, grace: float) -> None:
        self._grace = grace
        assert self._stop is not None
        self._stop.set()

    # ------------------------------------------------------------------ work

    def busy(self, lane: Lane) -> tuple[int, int]:
        """(calls running, calls waiting) in ``lane`` (a snapshot, from any thread)."""
        limiter = getattr(self, "_limiters", {}).get(lane)
        if limiter is None:
            return (0, 0)
        stats = limiter.statistics()
        return (stats.borrowed_tokens, stats.tasks_waiting)

    def submit(
        self,
        lane: Lane,
        fn: Callable[..., T],
        *args: Any,
        doing: str = "this work",
        started: Callable[[], None] | None = None,
        then: Callable[[T | NotDone], R] | None = None,
    ) -> concurrent.futures.Future[R]:
        """Call ``fn(*args)`` in a worker process, in ``lane``; never blocks.

        ``started()`` is called (in the lanes' thread: keep it short)
        when the call leaves the lane's queue. ``then(value)`` is called in a
        thread of its own with the value, or with ``arena.WorkerDied`` if the
        workers kept dying, or ``arena.WorkersUnavailableError`` if no worker can
        start (``NotDone``); the future resolves to what it returns (or raises).
        Without ``then``, the future resolves to the value (the ``NotDone`` is
        raised). A call still queued or running when the lanes close
        fails with ``LanesClosed``, and ``then`` is not called.
        """
        future: concurrent.futures.Future[R] = concurrent.futures.Future()
        token = self._token
        if self._closed or token is None:
            future.set_exception(LanesClosed("the server is shutting down"))
            return future

        def schedule() -> None:
            assert self._nursery is not None
            self._nursery.start_soon(self._call, lane, fn, args, doing, started, then, future)

        try:
            token.run_sync_soon(schedule)
        except trio.RunFinishedError:
            future.set_exception(LanesClosed("the server is shutting down"))
        return future

    def call_soon(self, fn: Callable[[], None]) -> None:
        """Call ``fn()`` in the lanes' trio loop (from any thread; never blocks): for what
        must run there, such as waking a task. Dropped once the lanes are closed."""
        token = self._token
        if self._closed or token is None:
            return
        with contextlib.suppress(trio.RunFinishedError):
            token.run_sync_soon(fn)

    def spawn(
        self, task: Callable[..., Awaitable[T]], *args: Any, behind: bool = False
    ) -> concurrent.futures.Future[T]:
        """Run ``await task(player, *args)`` in the lanes' trio loop; never blocks.

        ``player`` plays matches through the match lane (an ``arena.MatchPlayer``:
        a tournament's matches take their turns with quick matches). ``behind``:
        its matches go behind the lane's queue instead (a field's): one starts only
        when a worker is free and no other call waits for one. Closing the lanes
        cancels the task (the future fails with ``LanesClosed``).
        """
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        token = self._token
        if self._closed or token is None:
            future.set_exception(LanesClosed("the server is shutting down"))
            return future

        async def run() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                value = await task(_LanePlayer(self, behind=behind), *args)
            except trio.Cancelled:
                future.set_exception(LanesClosed("the server stopped before this was done"))
                raise
            except BaseException as exc:
                future.set_exception(exc)
                if not isinstance(exc, Exception):
                    raise
                return
            future.set_result(value)

        def schedule() -> None:
            assert self._nursery is not None
            self._nursery.start_soon(run)

        try:
            token.run_sync_soon(schedule)
        except trio.RunFinishedError:
            future.set_exception(LanesClosed("the server is shutting down"))
        return future

    async def _call(
        self,
        lane: Lane,
        fn: Callable[..., T],
        args: tuple[Any, ...],
        doing: str,
        started: Callable[[], None] | None,
        then: Callable[[T | NotDone], R] | None,
        future: concurrent.futures.Future[R],
    ) -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            async with self._limiters[lane]:
                if self.stopping:
                    # Stopping: what runs may finish within the grace; nothing new starts.
                    future.set_exception(LanesClosed("the server stopped before this began"))
                    return
                if started is not None:
                    started()
                try:
                    value: T | NotDone = await self._pool.call(fn, *args, doing=doing)
                except (arena.WorkerDied, arena.WorkersUnavailableError) as exc:
                    value = exc
            if then is None:
                if isinstance(value, arena.WorkerDied | arena.WorkersUnavailableError):
                    future.set_exception(value)
                else:
                    future.set_result(value)  # type: ignore[arg-type]
                return
            # Recording may wait on the disk: not in the trio loop's thread. Not
            # abandoned on cancel either: a result in hand is always recorded.
            done = await trio.to_thread.run_sync(_capture, then, value, abandon_on_cancel=False)
        except trio.Cancelled:
            future.set_exception(LanesClosed("the server stopped before this was done"))
            raise
        except BaseException as exc:
            future.set_exception(exc)
            if not isinstance(exc, Exception):
                raise
            return
        if isinstance(done, _Raised):
            future.set_exception(done.exc)
        else:
            future.set_result(done)


class _Limiter:
    """A lane's limit of calls at once (a ``trio.CapacityLimiter``: first come, first served),
    with a way in behind everyone: ``acquire_behind`` takes a token only when one is free and
    no call waits for one, so work that may wait (a field's matches) never goes before a
    quick match that arrives while it waits."""

    def __init__(self, size: int) -> None:
        self._limiter = trio.CapacityLimiter(size)
        self._freed = trio.Event()

    async def __aenter__(self) -> None:
        await self.acquire()

    async def acquire(self) -> None:
        await self._limiter.acquire()

    async def __aexit__(self, *exc: object) -> None:
        self.release()

    def release(self) -> None:
        self._limiter.release()
        self._freed.set()  # those behind look again

    def statistics(self) -> Any:
        return self._limiter.statistics()

    @property
    def running(self) -> int:
        """Calls holding a token: running in a worker."""
        return int(self._limiter.borrowed_tokens)

    async def acquire_behind(self) -> None:
        while True:
            stats = self._limiter.statistics()
            if stats.borrowed_tokens < stats.total_tokens and not stats.tasks_waiting:
                self._limiter.acquire_nowait()
                return
            self._freed = trio.Event() if self._freed.is_set() else self._freed
            await self._freed.wait()


class _LanePlayer:
    """Plays matches through the match lane of the lanes' pool (an ``arena.MatchPlayer``);
    ``behind``: behind every call waiting in the lane (``_Limiter.acquire_behind``)."""

    def __init__(self, lanes: WorkerLanes, *, behind: bool = False) -> None:
        self._lanes = lanes
        self._behind = behind

    async def play(self, job: arena.MatchJob) -> arena.JobFailed | arena.MatchResult:
        limiter = self._lanes._limiters[Lane.MATCH]
        if self._behind:
            await limiter.acquire_behind()
        else:
            await limiter.acquire()
        if self._lanes.stopping:
            # Nothing new starts: the task waits to be cancelled, its match left
            # to the next start (a tournament stays running).
            limiter.release()
            await trio.sleep_forever()
        try:
            return await self._lanes._pool.play(job)
        finally:
            limiter.release()


class _Raised:
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


def _capture(fn: Callable[[Any], R], value: Any) -> R | _Raised:
    try:
        return fn(value)
    except Exception as exc:  # handed to the future's owner
        return _Raised(exc)
