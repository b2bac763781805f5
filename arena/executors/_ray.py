"""The Ray executor: the same match function as Ray tasks, on a Ray cluster.

Each distinct module goes into Ray's object store once per session (by sha256),
and every task carries only references to the two it plays, so a field of large
modules costs one upload per module, not one per match. ``RayExecutor.stats``
counts what went to the cluster (puts, tasks, the bytes each carried), which is
how the tests and ``arena bench scale`` show it (docs/scaling.md). A task whose
worker dies is retried by Ray; one that still fails is reported as ``JobFailed``.
An exception the match itself raised (``RayTaskError``) propagates, as it does
from a local worker.

Ray is an optional extra (``pip install -e ".[ray]"``); nothing imports it until
a ``RayExecutor`` runs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import pickle
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import trio

from arena._errors import ArenaError
from arena.executors._abc import Executor, Session
from arena.executors._job import JobFailed, MatchJob, Outcome
from arena.executors._play import play
from arena.match import Contestant, MatchResult

__all__ = ["RAY_ADDRESS_ENV", "RayExecutor", "RayStats", "RayUnavailableError"]

RAY_ADDRESS_ENV = "FORAY_RAY_ADDRESS"
"""Names the Ray cluster to run on (``ray://host:10001`` or ``host:6379``)."""


class RayUnavailableError(ArenaError):
    """The Ray executor was asked for, but Ray is not installed or the cluster is unreachable."""


@dataclasses.dataclass(slots=True)
class RayStats:
    """What a ``RayExecutor`` sent to its cluster, over all its sessions so far."""

    puts: int = 0
    """Objects put in Ray's object store: one per distinct module (sha256) per session."""
    put_bytes: int = 0
    """Module bytes those puts carried."""
    tasks: int = 0
    """Match tasks submitted."""
    task_bytes: int = 0
    """Bytes the tasks carried by value: their arguments other than object references, as
    pickled (the job without module bytes; a few hundred bytes a task)."""


def _play_by_reference(job: MatchJob, blob_a: bytes, blob_b: bytes) -> MatchResult:
    """The task: the job arrives without module bytes; Ray resolves the references."""
    return play(
        dataclasses.replace(job, a=Contestant(job.a.name, blob_a), b=Contestant(job.b.name, blob_b))
    )


class RayExecutor(Executor):
    """Plays matches as Ray tasks on the cluster at ``address``.

    ``address`` defaults to ``$FORAY_RAY_ADDRESS``; with neither, a local Ray
    is started for this process (what the tests do). ``retries`` is Ray's
    ``max_retries`` for a task whose worker died.
    """

    def __init__(
        self, address: str | None = None, *, retries: int = 1, num_cpus: int | None = None
    ) -> None:
        self.address = address or os.environ.get(RAY_ADDRESS_ENV) or None
        self.retries = retries
        self.num_cpus = num_cpus
        self.stats = RayStats()
        """Counts of what went to the cluster (updated as the sessions submit)."""

    def _ray(self) -> Any:
        try:
            import ray
        except ImportError:
            raise RayUnavailableError(
                'the Ray executor needs Ray: pip install -e ".[ray]"'
            ) from None
        if not ray.is_initialized():
            try:
                ray.init(
                    address=self.address,
                    num_cpus=None if self.address else self.num_cpus,
                    include_dashboard=False,
                    log_to_driver=False,
                    configure_logging=False,
                )
            except (ConnectionError, RuntimeError, ValueError) as exc:
                where = self.address or "a local Ray"
                raise RayUnavailableError(f"cannot start or reach {where}: {exc}") from None
        return ray

    @asynccontextmanager
    async def open_session(self) -> AsyncIterator[Session]:
        """A session on the cluster (Ray is started or reached first, in a thread).

        Its ``slots`` is twice the cluster's CPUs, so a worker that finishes
        finds its next task already queued.
        """
        ray = await trio.to_thread.run_sync(self._ray)
        cpus = await trio.to_thread.run_sync(lambda: ray.cluster_resources().get("CPU", 1))
        yield _RaySession(ray, self.retries, slots=2 * max(1, int(cpus)), stats=self.stats)


class _RaySession(Session):
    """Each job a Ray task; each distinct module put in the object store once (by sha256)."""

    def __init__(self, ray: Any, retries: int, slots: int, stats: RayStats) -> None:
        self.slots = slots
        self._ray = ray
        self._stats = stats
        self._task = ray.remote(max_retries=retries)(_play_by_reference)
        self._modules: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._limiter = trio.CapacityLimiter(slots)

    def _reference(self, contestant: Contestant) -> Any:
        with self._lock:
            sha = contestant.sha256
            if sha not in self._modules:
                self._modules[sha] = self._ray.put(contestant.blob)
                self._stats.puts += 1
                self._stats.put_bytes += len(contestant.blob)
            return self._modules[sha]

    def _submit(self, job: MatchJob) -> Any:
        bare = dataclasses.replace(
            job, a=Contestant(job.a.name, b""), b=Contestant(job.b.name, b"")
        )
        args = (bare, self._reference(job.a), self._reference(job.b))
        # What the task carries by value, counted from the very arguments it is given.
        inline = sum(
            len(pickle.dumps(arg)) for arg in args if not isinstance(arg, self._ray.ObjectRef)
        )
        with self._lock:
            self._stats.tasks += 1
            self._stats.task_bytes += inline
        return self._task.remote(*args)

    async def play(self, job: MatchJob) -> Outcome:
        async with self._limiter:
            ref = await trio.to_thread.run_sync(self._submit, job)
            # Ray completes a concurrent.futures.Future; its callback wakes this task.
            future = ref.future()
            done = trio.Event()
            token = trio.lowlevel.current_trio_token()

            def wake(_: object) -> None:
                with contextlib.suppress(trio.RunFinishedError):
                    token.run_sync_soon(done.set)

            future.add_done_callback(wake)
            try:
                await done.wait()
            except BaseException:  # cancelled: the task is not wanted any more
                self._ray.cancel(ref, force=True)
                raise
            try:
                result: MatchResult = future.result()
                return result
            except self._ray.exceptions.RayTaskError:
                raise  # the match itself raised (a host bug): as on a local worker, not a failure
            except self._ray.exceptions.RayError as exc:
                reason = f"the Ray task failed: {type(exc).__name__}: {str(exc)[:300]}"
                return JobFailed(job, reason)
