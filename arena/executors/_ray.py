"""The Ray executor: the same match function as Ray tasks, on a Ray cluster.

Each distinct module goes into Ray's object store once per session (by sha256),
and every task carries only references to the two it plays, so a field of large
modules costs one upload per module, not one per match. ``RayExecutor.stats``
counts what went to the cluster (puts, tasks, the bytes each carried), which is
how the tests and ``arena bench scale`` show it (docs/scaling.md). A task whose
worker dies is retried by Ray; one that still fails is reported as ``JobFailed``.
An exception the match itself raised (``RayTaskError``) propagates, as it does
from a local worker.

A lost node is noticed by the session's watch, not by the tasks: when the
driver's raylet or the cluster's GCS dies, Ray's own driver waits a minute for
the GCS before it ends the process, and the tasks in flight never complete. So
each session checks the cluster every ``RayExecutor.check_every`` seconds (the
driver's raylet and the GCS still take connections, the GCS answers within
``check_timeout`` and still counts the driver's node and a node with CPUs
alive); the first check that fails makes every ``play`` in flight, and every
later one, raise ``RayNodeLostError`` with the reason.

Ray is an optional extra (``pip install -e ".[ray]"``); nothing imports it until
a ``RayExecutor`` runs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import pickle
import socket
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import msgspec
import trio

from arena._errors import ArenaError
from arena.executors._abc import Executor, ExecutorLostError, Session
from arena.executors._job import JobFailed, MatchJob, Outcome
from arena.executors._play import play
from arena.match import Contestant, MatchResult

__all__ = [
    "RAY_ADDRESS_ENV",
    "RayExecutor",
    "RayNodeLostError",
    "RayStats",
    "RayUnavailableError",
]

RAY_ADDRESS_ENV = "FORAY_RAY_ADDRESS"
"""Names the Ray cluster to run on (``ray://host:10001`` or ``host:6379``)."""


class RayUnavailableError(ArenaError):
    """The Ray executor was asked for, but Ray is not installed or the cluster is unreachable."""


class RayNodeLostError(ExecutorLostError):
    """The Ray cluster lost the driver's node, its GCS, or every node with CPUs, mid-session:
    the matches in flight will not come back (the cluster's failure, not the arena's)."""


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
        msgspec.structs.replace(
            job, a=Contestant(job.a.name, blob_a), b=Contestant(job.b.name, blob_b)
        )
    )


class RayExecutor(Executor):
    """Plays matches as Ray tasks on the cluster at ``address``.

    ``address`` defaults to ``$FORAY_RAY_ADDRESS``; with neither, a local Ray
    is started for this process (what the tests do). ``retries`` is Ray's
    ``max_retries`` for a task whose worker died. Every ``check_every`` seconds
    a session checks that the cluster is still there, and gives its GCS
    ``check_timeout`` seconds to answer (the module's docstring).
    """

    def __init__(
        self,
        address: str | None = None,
        *,
        retries: int = 1,
        num_cpus: int | None = None,
        check_every: float = 1.0,
        check_timeout: float = 10.0,
    ) -> None:
        self.address = address or os.environ.get(RAY_ADDRESS_ENV) or None
        self.retries = retries
        self.num_cpus = num_cpus
        self.check_every = check_every
        self.check_timeout = check_timeout
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
        finds its next task already queued. The cluster is watched while it is open.
        """
        ray = await trio.to_thread.run_sync(self._ray)

        def ask() -> tuple[float, _ClusterWatch]:
            return ray.cluster_resources().get("CPU", 1), _ClusterWatch.of(ray)

        try:
            with trio.fail_after(self.check_timeout):
                # Abandoned on timeout: a GCS that does not answer may hold the thread long.
                cpus, watch = await trio.to_thread.run_sync(ask, abandon_on_cancel=True)
        except trio.TooSlowError:
            raise RayUnavailableError(
                f"the cluster's GCS did not answer within {self.check_timeout:g} s"
            ) from None
        session = _RaySession(ray, self.retries, slots=2 * max(1, int(cpus)), stats=self.stats)
        # A task of its own, not a nursery's: what the session's user raises stays itself.
        scope = trio.CancelScope()

        async def watching() -> None:
            with scope:
                await session.watch(watch, self.check_every, self.check_timeout)

        trio.lowlevel.spawn_system_task(watching)
        try:
            yield session
        finally:
            scope.cancel()


def _refuses(host: str, port: int) -> bool:
    """Whether nothing listens at ``host:port`` any more (a refused connection: the process
    is gone). A slow answer is not a refusal: that is the GCS check's timeout."""
    try:
        with socket.create_connection((host, port), timeout=2.0):
            return False
    except ConnectionRefusedError:
        return True
    except OSError:
        return False


@dataclasses.dataclass(frozen=True, slots=True)
class _ClusterWatch:
    """What a session checks: the driver's raylet and the GCS by their ports (when known:
    not through Ray Client), and the GCS's view of the nodes."""

    node_id: str
    raylet: tuple[str, int] | None
    gcs: tuple[str, int] | None
    had_cpus: bool
    """Whether a node with CPUs was alive as the session opened (an autoscaling cluster may
    have none yet: that is no loss)."""

    @classmethod
    def of(cls, ray: Any) -> _ClusterWatch:
        context = ray.get_runtime_context()
        node_id = str(context.get_node_id() or "")
        raylet = gcs = None
        nodes = ray.nodes()
        for node in nodes:
            if node.get("NodeID") == node_id and node.get("NodeManagerPort"):
                raylet = (str(node["NodeManagerAddress"]), int(node["NodeManagerPort"]))
        address = getattr(context, "gcs_address", None) or ""
        host, _, port = address.rpartition(":")
        if host and port.isdigit():
            gcs = (host, int(port))
        return cls(node_id, raylet, gcs, _with_cpus(nodes))

    def lost(self, ray: Any) -> str | None:
        """Why the cluster can play no more, or None while it can (blocks: run in a thread)."""
        try:
            return self._lost(ray)
        except Exception as exc:  # what Ray raises is not all Ray's errors
            return f"checking the cluster failed: {type(exc).__name__}: {exc}"

    def _lost(self, ray: Any) -> str | None:
        if self.raylet is not None and _refuses(*self.raylet):
            return f"the driver's raylet at {self.raylet[0]}:{self.raylet[1]} is gone"
        if self.gcs is not None and _refuses(*self.gcs):
            return f"the cluster's GCS at {self.gcs[0]}:{self.gcs[1]} is gone"
        try:
            nodes = ray.nodes()
        except Exception as exc:  # Ray's own errors: the GCS is what failed
            return f"asking the GCS for the nodes failed: {type(exc).__name__}: {exc}"
        alive = [n for n in nodes if n.get("Alive")]
        known = {n.get("NodeID") for n in nodes}
        if self.node_id in known and self.node_id not in {n.get("NodeID") for n in alive}:
            return f"the GCS marked the driver's node {self.node_id[:12]} dead"
        if self.had_cpus and not _with_cpus(alive):
            return "no node with CPUs is alive in the cluster"
        return None


def _with_cpus(nodes: list[dict[str, Any]]) -> bool:
    """Whether any of ``nodes`` (``ray.nodes()``) is alive with CPUs."""
    return any(n.get("Alive") and n.get("Resources", {}).get("CPU", 0) > 0 for n in nodes)


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
        self._lost: RayNodeLostError | None = None
        self._waiting: set[trio.Event] = set()  # each play's, set when the cluster is lost

    async def watch(self, watch: _ClusterWatch, every: float, timeout: float) -> None:
        """Check the cluster every ``every`` seconds until it is lost, then wake every play."""
        while self._lost is None:
            await trio.sleep(every)
            reason: str | None = None
            with trio.move_on_after(timeout) as scope:
                # Abandoned on timeout: a GCS that does not answer may hold the thread long.
                reason = await trio.to_thread.run_sync(
                    watch.lost, self._ray, abandon_on_cancel=True
                )
            if scope.cancelled_caught:
                reason = f"the cluster's GCS did not answer within {timeout:g} s"
            if reason is not None:
                self._lost = RayNodeLostError(f"the Ray cluster was lost: {reason}")
                for event in self._waiting:
                    event.set()

    def _check(self) -> None:
        if self._lost is not None:
            raise RayNodeLostError(self._lost.reason)

    def _reference(self, contestant: Contestant) -> Any:
        with self._lock:
            sha = contestant.sha256
            if sha not in self._modules:
                self._modules[sha] = self._ray.put(contestant.blob)
                self._stats.puts += 1
                self._stats.put_bytes += len(contestant.blob)
            return self._modules[sha]

    def _submit(self, job: MatchJob) -> Any:
        bare = msgspec.structs.replace(
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
            self._check()
            # Abandoned if cancelled: a submission to a cluster being lost may block.
            ref = await trio.to_thread.run_sync(self._submit, job, abandon_on_cancel=True)
            self._check()
            # Ray completes a concurrent.futures.Future; its callback wakes this task.
            future = ref.future()
            done = trio.Event()
            token = trio.lowlevel.current_trio_token()

            def wake(_: object) -> None:
                with contextlib.suppress(trio.RunFinishedError):
                    token.run_sync_soon(done.set)

            future.add_done_callback(wake)
            self._waiting.add(done)
            try:
                await done.wait()
            except BaseException:  # cancelled: the task is not wanted any more
                if self._lost is None:  # (a lost cluster cannot be asked anything)
                    self._ray.cancel(ref, force=True)
                raise
            finally:
                self._waiting.discard(done)
            if not future.done():
                self._check()  # woken by the watch: the cluster is lost
            try:
                result: MatchResult = future.result()
                return result
            except self._ray.exceptions.RayTaskError:
                raise  # the match itself raised (a host bug): as on a local worker, not a failure
            except self._ray.exceptions.RayError as exc:
                reason = f"the Ray task failed: {type(exc).__name__}: {str(exc)[:300]}"
                return JobFailed(job, reason)
