"""The Ray executor: the same match function as Ray tasks, on a Ray cluster.

Each distinct module goes into Ray's object store once (by sha256), and every
task carries only references to the two it plays, so a field of large modules
costs one upload per module, not one per match. A task whose worker dies is
retried by Ray; one that still fails is reported as ``JobFailed``.

Ray is an optional extra (``pip install -e ".[ray]"``); nothing imports it until
a ``RayExecutor`` runs.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from typing import Any

import trio

from arena._errors import ArenaError
from arena.executors._local import Executor, JobFailed, MatchJob, OnOutcome, Outcome, play
from arena.match import Contestant, MatchResult

__all__ = ["RAY_ADDRESS_ENV", "RayExecutor", "RayUnavailableError"]

RAY_ADDRESS_ENV = "FORAY_RAY_ADDRESS"
"""Names the Ray cluster to run on (``ray://host:10001`` or ``host:6379``)."""


class RayUnavailableError(ArenaError):
    """The Ray executor was asked for, but Ray is not installed or the cluster is unreachable."""


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

    async def run(self, jobs: Sequence[MatchJob], on_outcome: OnOutcome) -> None:
        """Play ``jobs`` as Ray tasks; call ``on_outcome(index, outcome)`` as each completes."""
        ray = await trio.to_thread.run_sync(self._ray)
        task = ray.remote(max_retries=self.retries)(_play_by_reference)
        modules: dict[str, Any] = {}

        def reference(contestant: Contestant) -> Any:
            sha = contestant.sha256
            if sha not in modules:
                modules[sha] = ray.put(contestant.blob)
            return modules[sha]

        def submit() -> dict[Any, int]:
            pending = {}
            for index, job in enumerate(jobs):
                bare = dataclasses.replace(
                    job, a=Contestant(job.a.name, b""), b=Contestant(job.b.name, b"")
                )
                ref = task.remote(bare, reference(job.a), reference(job.b))
                pending[ref] = index
            return pending

        pending = await trio.to_thread.run_sync(submit)

        def next_done() -> tuple[int, Outcome]:
            (ref,), _ = ray.wait(list(pending), num_returns=1)
            index = pending.pop(ref)
            try:
                return index, ray.get(ref)
            except ray.exceptions.RayError as exc:
                reason = f"the Ray task failed: {type(exc).__name__}: {str(exc)[:300]}"
                return index, JobFailed(jobs[index], reason)

        while pending:
            index, outcome = await trio.to_thread.run_sync(next_done)
            maybe = on_outcome(index, outcome)
            if maybe is not None:
                await maybe
