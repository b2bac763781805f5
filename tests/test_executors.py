"""The local executor: matches on worker processes, each recorded once, a dead worker survived."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import traceback
from pathlib import Path

import pytest
import trio

import arena
import sim
from arena.executors import (
    Executor,
    JobFailed,
    LocalExecutor,
    MatchJob,
    Outcome,
    RayExecutor,
    Session,
    play,
)
from tests._support import BOTS, Builder, InProcess, kill_workers_while, worker_pids

SHORT = sim.Config(max_ticks=20)
# Long enough that the killer (polling every 10 ms) finds the worker mid-match.
LONG = sim.Config(max_ticks=2000, start_energy=100_000)


def _jobs(idle: bytes, busy: bytes, n: int, config: sim.Config = SHORT) -> list[MatchJob]:
    a, b = arena.Contestant("busy", busy), arena.Contestant("idle", idle)
    return [MatchJob(a, b, seed=seed, config=config) for seed in range(n)]


def test_an_executor_is_an_interface(idle: bytes, busy: bytes) -> None:
    """``Executor`` and ``Session`` are abstract: an executor implements ``open_session`` and its
    session ``play``; ``run``, ``map`` and a session's ``play_batch`` come with the interface."""
    with pytest.raises(TypeError, match="open_session"):
        Executor()  # type: ignore[abstract]
    with pytest.raises(TypeError, match="play"):
        Session()  # type: ignore[abstract]
    assert issubclass(LocalExecutor, Executor) and issubclass(RayExecutor, Executor)

    jobs = _jobs(idle, busy, 2)
    outcomes = list(InProcess().map(jobs))  # an executor that implements open_session only
    assert [o.replay for o in outcomes] == [play(j).replay for j in jobs]  # type: ignore[union-attr]


@pytest.mark.processes
def test_workers_give_what_this_process_gives(idle: bytes, busy: bytes) -> None:
    jobs = _jobs(idle, busy, 5)
    outcomes = list(LocalExecutor(2).map(jobs))
    assert all(isinstance(o, arena.MatchResult) for o in outcomes)
    assert [o.replay for o in outcomes] == [play(j).replay for j in jobs]  # type: ignore[union-attr]


@pytest.mark.processes
def test_each_outcome_arrives_once_in_the_coordinator(idle: bytes, busy: bytes) -> None:
    jobs = _jobs(idle, busy, 6)
    seen: list[int] = []

    async def main() -> None:
        await LocalExecutor(2).run(jobs, lambda i, o: seen.append(i))

    trio.run(main)
    assert sorted(seen) == list(range(6))


@pytest.mark.processes
def test_a_worker_killed_mid_match_is_replaced_and_the_match_played_again(
    idle: bytes, busy: bytes
) -> None:
    jobs = _jobs(idle, busy, 1, LONG)
    kills: list[int] = []
    outcomes: list[Outcome] = []

    async def main() -> None:
        done = trio.Event()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(trio.to_thread.run_sync, kill_workers_while, done, kills, 1)
            await LocalExecutor(1).run(jobs, lambda i, o: outcomes.append(o))
            done.set()

    trio.run(main)
    assert len(kills) == 1
    (outcome,) = outcomes
    assert isinstance(outcome, arena.MatchResult)
    assert outcome.replay == play(jobs[0]).replay


@pytest.mark.processes
def test_a_match_whose_workers_keep_dying_fails_with_the_reason(idle: bytes, busy: bytes) -> None:
    jobs = _jobs(idle, busy, 1, LONG)
    kills: list[int] = []
    outcomes: list[Outcome] = []

    async def main() -> None:
        done = trio.Event()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(trio.to_thread.run_sync, kill_workers_while, done, kills, 2)
            await LocalExecutor(1, retries=1).run(jobs, lambda i, o: outcomes.append(o))
            done.set()

    trio.run(main)
    assert len(kills) == 2
    (outcome,) = outcomes
    assert isinstance(outcome, JobFailed) and outcome.job == jobs[0]
    assert "died 2 time(s)" in outcome.reason


@pytest.mark.processes
def test_a_batch_plays_in_one_worker_call_each_match_as_alone(idle: bytes, busy: bytes) -> None:
    """``play_batch``: the outcomes in order, as each job alone gives them; what one job raises
    (seed -1, refused by the runner) comes back in its place, with the worker's traceback,
    and the jobs after it play on."""
    jobs = _jobs(idle, busy, 4)
    jobs[1] = dataclasses.replace(jobs[1], seed=-1)

    async def main() -> list[Outcome | Exception]:
        async with LocalExecutor(1).open_session() as session:
            return await session.play_batch(jobs)

    outcomes = trio.run(main)
    assert len(outcomes) == 4
    for job, outcome in zip(jobs, outcomes, strict=True):
        if job.seed == -1:
            assert isinstance(outcome, arena.ArenaError)
            assert "seed -1 is not an unsigned" in str(outcome)
            assert "run_match" in "\n".join(getattr(outcome, "__notes__", []))
        else:
            assert isinstance(outcome, arena.MatchResult) and outcome.replay == play(job).replay


def _batch_while_killing(jobs: list[MatchJob], kills: int) -> tuple[list[Outcome | Exception], int]:
    """One ``play_batch`` of ``jobs`` on one local worker, workers killed mid-match ``kills``
    times meanwhile; the outcomes, and how many were killed."""
    killed: list[int] = []

    async def main() -> list[Outcome | Exception]:
        done = trio.Event()
        async with trio.open_nursery() as nursery, LocalExecutor(1).open_session() as session:
            nursery.start_soon(trio.to_thread.run_sync, kill_workers_while, done, killed, kills)
            outcomes = await session.play_batch(jobs)
            done.set()
        return outcomes

    outcomes = trio.run(main)
    return outcomes, len(killed)


@pytest.mark.processes
def test_a_worker_killed_mid_batch_loses_no_match_and_plays_none_twice(
    idle: bytes, busy: bytes
) -> None:
    """Which match a batch's worker died in is unknown: each is played again alone, once."""
    jobs = _jobs(idle, busy, 3, LONG)
    outcomes, killed = _batch_while_killing(jobs, 1)
    assert killed == 1
    assert [o.replay for o in outcomes] == [play(j).replay for j in jobs]  # type: ignore[union-attr]


@pytest.mark.processes
def test_the_match_a_batch_dies_in_fails_when_it_dies_again_alone(idle: bytes, busy: bytes) -> None:
    """The first death is the batch's; played again alone, the first match's worker dies
    too: that match fails with both deaths counted, the other one is played."""
    jobs = _jobs(idle, busy, 2, LONG)
    (first, second), killed = _batch_while_killing(jobs, 2)
    assert killed == 2
    assert isinstance(first, JobFailed) and first.job == jobs[0]
    assert "the worker died 2 time(s) playing this match" in first.reason
    assert isinstance(second, arena.MatchResult) and second.replay == play(jobs[1]).replay


def test_a_local_executor_needs_a_batch_of_at_least_one() -> None:
    with pytest.raises(ValueError, match="batch must be at least 1, got 0"):
        LocalExecutor(1, batch=0)


@pytest.mark.processes
def test_an_exception_the_match_raises_in_a_worker_is_raised_not_a_failed_match(
    idle: bytes, busy: bytes
) -> None:
    """A worker that dies is the arena's failure (``JobFailed``); an exception the match raised
    in a live worker (here the runner refusing seed -1) is a bug, raised to the caller with
    the worker's traceback, and the worker plays on."""
    good = _jobs(idle, busy, 1)[0]
    bad = dataclasses.replace(good, seed=-1)

    async def main() -> Outcome:
        async with LocalExecutor(1).open_session() as session:
            with pytest.raises(arena.ArenaError, match="seed -1 is not an unsigned") as raised:
                await session.play(bad)
            assert "run_match" in "".join(traceback.format_exception(raised.value))
            return await session.play(good)

    outcome = trio.run(main)
    assert isinstance(outcome, arena.MatchResult) and outcome.replay == play(good).replay


_RAY_SCRIPT = """
import hashlib, json, sys
import trio
import sim
from arena import ArenaError
from arena.executors import MatchJob, RayExecutor
from arena.match import Contestant

blobs = [open(path, "rb").read() for path in sys.argv[1:4]]
busy, idle, trap = (Contestant(n, b) for n, b in zip(("busy", "idle", "trap"), blobs))
config = sim.Config(max_ticks=20)
jobs = [MatchJob(busy, idle, seed=s, config=config) for s in range(3)]
jobs.append(MatchJob(trap, busy, seed=1, config=config))
executor = RayExecutor(num_cpus=2)
outcomes = list(executor.map(jobs))
bad = MatchJob(busy, idle, seed=-1, config=config)  # the runner refuses it in the task


async def raised():
    async with executor.open_session() as session:
        try:
            await session.play(bad)
        except Exception as exc:
            return [type(exc).__name__, isinstance(exc, ArenaError), "seed -1 is not" in str(exc)]


print(json.dumps([hashlib.sha256(o.replay).hexdigest() for o in outcomes]))
print(json.dumps(trio.run(raised)))
"""


@pytest.mark.ray
def test_ray_gives_what_the_local_executor_gives(
    idle: bytes, busy: bytes, build_c: Builder, tmp_path: Path
) -> None:
    """A real local Ray, started here: the same match function, the same replay bytes, and
    an exception in a task raised as it is (not a failed match).

    The Ray driver runs in its own process: Ray's core installs crash handlers
    for SIGILL and SIGSEGV that would replace the ones wasmtime traps with, so
    no process plays wasm after ``ray.init`` (docs/decisions.md). A trapping
    module in a Ray worker shows the workers keep wasmtime's handlers.
    """
    trap = build_c(BOTS / "faulty.c", "FAULT=1", "FAULT_TICK=3")
    paths = []
    for name, blob in (("busy", busy), ("idle", idle), ("trap", trap)):
        paths.append(tmp_path / f"{name}.wasm")
        paths[-1].write_bytes(blob)
    proc = subprocess.run(
        [sys.executable, "-c", _RAY_SCRIPT, *map(str, paths)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    *_, shas, raised = proc.stdout.strip().splitlines()
    got = json.loads(shas)
    # A match that raises in its task is raised to the caller, as from a local worker.
    assert json.loads(raised) == ["RayTaskError(ArenaError)", True, True]
    config = sim.Config(max_ticks=20)
    a, b, t = (arena.Contestant(n, x) for n, x in (("busy", busy), ("idle", idle), ("trap", trap)))
    jobs = [MatchJob(a, b, seed=s, config=config) for s in range(3)]
    jobs.append(MatchJob(t, a, seed=1, config=config))
    expected = [play(job) for job in jobs]
    assert expected[-1].sides[0].forfeit is not None  # the trap really trapped
    assert got == [r.replay_sha256 for r in expected]


def _pid() -> int:
    return os.getpid()


def _die() -> None:
    os._exit(3)


@pytest.mark.processes
def test_a_worker_pool_outlives_its_calls_and_reports_workers_that_keep_dying(
    idle: bytes, busy: bytes
) -> None:
    """One pool for work that comes as it comes: the same worker serves call after call."""
    job = _jobs(idle, busy, 1)[0]

    async def main() -> tuple[list[int], Outcome, str]:
        async with arena.open_worker_pool(retries=1) as pool:
            pids = [await pool.call(_pid) for _ in range(3)]
            outcome = await pool.play(job)
            try:
                await pool.call(_die, doing="dying on purpose")
            except arena.WorkerDied as exc:
                return pids, outcome, exc.reason
        raise AssertionError("the call that kills its worker did not fail")

    pids, outcome, reason = trio.run(main)
    assert len(set(pids)) == 1 and pids[0] != os.getpid()
    assert isinstance(outcome, arena.MatchResult) and outcome.replay == play(job).replay
    assert reason.startswith("the worker died 2 time(s) dying on purpose: ")


@pytest.mark.processes
def test_a_local_session_starts_its_workers_as_it_opens(idle: bytes, busy: bytes) -> None:
    """The workers start while a coordinator reads its plan, not at the first match; the
    matches then play on those very workers (none of them starts one of its own)."""
    jobs = _jobs(idle, busy, 4)

    async def main() -> tuple[list[int], list[int], list[Outcome | Exception]]:
        async with LocalExecutor(2).open_session() as session:
            with trio.fail_after(60):
                while len(worker_pids()) < 2:
                    await trio.sleep(0.01)
            up = sorted(worker_pids())
            outcomes = [*await session.play_batch(jobs[:2]), *await session.play_batch(jobs[2:])]
            return up, sorted(worker_pids()), outcomes

    up, after, outcomes = trio.run(main)
    assert len(up) == 2 and after == up
    assert [o.replay for o in outcomes if isinstance(o, arena.MatchResult)] == [
        play(job).replay for job in jobs
    ]


def test_a_worker_ends_without_the_last_garbage_collections() -> None:
    """``worker_started`` (how each local worker starts) has the worker's exit take its objects
    out of the final collections' reach: seen at the very end of a process that ran it, by an
    exit hook registered before it (exit hooks run last first). The exit code stays its own."""
    code = (
        "import atexit, gc, sys\n"
        "atexit.register(lambda: print('frozen' if gc.get_freeze_count() else 'not frozen'))\n"
        "from arena.executors._play import worker_started\n"
        "worker_started()\n"
        "sys.exit(5)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert (run.returncode, run.stdout.strip()) == (5, "frozen"), run.stderr
