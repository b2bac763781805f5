"""The local executor: matches on worker processes, each recorded once, a dead worker survived."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import struct
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

import msgspec
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
from arena.executors._forkserver import FORKSERVER
from arena.executors._play import open_spool, play_batch_timed, settle_spool
from tests._support import (
    BOTS,
    Builder,
    HookWorkers,
    InProcess,
    deaths_of,
    worker_hook,
    worker_pids,
)

SHORT = sim.Config(max_ticks=20)


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
    idle: bytes, busy: bytes, hooked_workers: HookWorkers
) -> None:
    hook = hooked_workers("die-given-a-match", deaths=1)
    jobs = _jobs(idle, busy, 1)
    outcomes: list[Outcome] = []

    async def main() -> None:
        await LocalExecutor(1).run(jobs, lambda i, o: outcomes.append(o))

    trio.run(main)
    assert deaths_of(hook) == 1
    (outcome,) = outcomes
    assert isinstance(outcome, arena.MatchResult)
    assert outcome.replay == play(jobs[0]).replay


@pytest.mark.processes
def test_a_match_whose_workers_keep_dying_fails_with_the_reason(
    idle: bytes, busy: bytes, hooked_workers: HookWorkers
) -> None:
    hook = hooked_workers("die-given-a-match", deaths=2)
    jobs = _jobs(idle, busy, 1)
    outcomes: list[Outcome] = []

    async def main() -> None:
        await LocalExecutor(1, retries=1).run(jobs, lambda i, o: outcomes.append(o))

    trio.run(main)
    assert deaths_of(hook) == 2
    (outcome,) = outcomes
    assert isinstance(outcome, JobFailed) and outcome.job == jobs[0]
    assert "died 2 time(s)" in outcome.reason


@pytest.mark.processes
def test_a_batch_plays_in_one_worker_call_each_match_as_alone(idle: bytes, busy: bytes) -> None:
    """``play_batch``: the outcomes in order, as each job alone gives them; what one job raises
    (seed -1, refused by the runner) comes back in its place, with the worker's traceback,
    and the jobs after it play on."""
    jobs = _jobs(idle, busy, 4)
    jobs[1] = msgspec.structs.replace(jobs[1], seed=-1)

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
            # Each result but the last crossed carrying its replay packed (the zstd frame
            # the store keeps); the last one's replay, with no match to pack it beside, as is.
            assert isinstance(outcome, arena.MatchResult) and outcome == play(job)
            packed = outcome.packed_replay
            if job is jobs[-1]:
                assert packed is None
            else:
                assert packed is not None and packed.unpacked() == outcome.replay


@pytest.mark.processes
def test_two_calls_of_one_relay_take_turns(idle: bytes, busy: bytes) -> None:
    """A relay's two workers never play at once: of two calls given together, one plays its
    whole batch, then the other (each worker's own monotonic clock is the system's)."""
    jobs = _jobs(idle, busy, 6, sim.Config())
    Timed = tuple[list[arena.MatchResult | Exception], list[tuple[float, float]]]

    async def main() -> list[Timed]:
        async with arena.open_worker_pool() as pool:
            turn = pool.turn(0)
            assert turn is not None
            async with trio.open_nursery() as nursery:  # both workers up and waiting
                nursery.start_soon(pool.call, os.getpid)
                nursery.start_soon(pool.call, os.getpid)
            timed: list[Timed] = []

            async def call(batch: list[MatchJob]) -> None:
                timed.append(await pool.call(play_batch_timed, batch, pool.spool, turn))

            async with trio.open_nursery() as nursery:
                nursery.start_soon(call, jobs[:3])
                nursery.start_soon(call, jobs[3:])
            return timed

    first, second = sorted(trio.run(main), key=lambda t: t[1][0])
    assert first[1][-1][1] <= second[1][0][0]  # the second began once the first had ended
    outcomes = [*first[0], *second[0]]
    assert sorted(o.seed for o in outcomes if isinstance(o, arena.MatchResult)) == list(range(6))


@pytest.mark.processes
def test_a_call_waits_for_its_relays_turn(idle: bytes, busy: bytes) -> None:
    """A call whose relay's turn is held (here by the test) plays only once it is let go, then
    plays as any other."""
    jobs = _jobs(idle, busy, 2)

    async def main() -> tuple[
        float, list[tuple[float, float]], list[arena.MatchResult | Exception]
    ]:
        async with arena.open_worker_pool() as pool:
            turn = pool.turn(0)
            assert turn is not None
            fd = os.open(turn, os.O_RDWR | os.O_CREAT)
            fcntl.flock(fd, fcntl.LOCK_EX)
            done = trio.Event()
            timed: list[tuple[list[arena.MatchResult | Exception], list[tuple[float, float]]]] = []

            async def call() -> None:
                timed.append(await pool.call(play_batch_timed, jobs, pool.spool, turn))
                done.set()

            async with trio.open_nursery() as nursery:
                nursery.start_soon(call)
                with trio.move_on_after(1.0):
                    await done.wait()
                assert not done.is_set()  # held: nothing played
                released = time.monotonic()
                os.close(fd)
            ((outcomes, spans),) = timed
            return released, spans, outcomes

    released, spans, outcomes = trio.run(main)
    assert spans[0][0] >= released
    assert outcomes == [play(job) for job in jobs]


@pytest.mark.processes
def test_a_batch_leaves_its_replays_in_the_pools_spool_until_each_is_read(
    idle: bytes, busy: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker writes each replay it packs to its pool's spool directory and the result
    crosses without it: the file is there until the result's replay is first wanted, then
    gone; when the session ends the spool goes, and a result not read by then reads its
    replay first (so it never loses it)."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    jobs = _jobs(idle, busy, 4)

    async def main() -> list[Outcome | Exception]:
        async with LocalExecutor(1).open_session() as session:
            outcomes = await session.play_batch(jobs)
            (spool,) = tmp_path.glob("arena-spool-*")
            assert len(list(spool.glob("*.zst"))) == 3  # the last replay crossed as it is
            first = outcomes[0]
            assert isinstance(first, arena.MatchResult) and first.packed_replay is not None
            assert len(list(spool.glob("*.zst"))) == 2
            return outcomes

    outcomes = trio.run(main)
    assert list(tmp_path.glob("arena-spool-*")) == []
    for job, outcome in zip(jobs, outcomes, strict=True):
        assert outcome == play(job)


def test_a_spool_left_by_a_process_that_is_gone_is_deleted_by_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A coordinator killed before it ended its spool leaves it behind; the next pool to open
    a spool on the machine deletes it (its process is gone), and no live process's."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    stale = tmp_path / f"arena-spool-{gone.stdout.strip()}-x1"
    live = tmp_path / f"arena-spool-{os.getppid()}-x2"
    for spool in (stale, live):
        spool.mkdir()
        (spool / "1-0.zst").write_bytes(b"frame")
    spool = Path(open_spool())
    assert spool.parent == tmp_path and spool.name.startswith(f"arena-spool-{os.getpid()}-")
    assert not stale.exists() and (live / "1-0.zst").exists()
    settle_spool(str(spool))
    assert not spool.exists()


def test_a_spool_that_cannot_be_written_sends_the_packed_replays_instead(
    idle: bytes, busy: bytes, tmp_path: Path
) -> None:
    """The spool gone (its pool closed, the disk full): each packed replay crosses itself."""
    jobs = _jobs(idle, busy, 3)
    outcomes, _ = play_batch_timed(jobs, str(tmp_path / "gone"))
    for outcome in outcomes[:-1]:
        assert isinstance(outcome, arena.MatchResult)
        packed = outcome.packed_replay
        assert packed is not None and packed.unpacked() == outcome.replay
    assert not (tmp_path / "gone").exists()


def _batch_while_killing(
    jobs: list[MatchJob], kills: int, hooked_workers: HookWorkers
) -> tuple[list[Outcome | Exception], int]:
    """One ``play_batch`` of ``jobs`` on one local worker, whose first ``kills`` calls that play
    matches kill it mid-match; the outcomes, and how many workers died."""
    hook = hooked_workers("die-given-a-match", deaths=kills)

    async def main() -> list[Outcome | Exception]:
        async with LocalExecutor(1).open_session() as session:
            return await session.play_batch(jobs)

    outcomes = trio.run(main)
    return outcomes, deaths_of(hook)


@pytest.mark.processes
def test_a_worker_killed_mid_batch_loses_no_match_and_plays_none_twice(
    idle: bytes, busy: bytes, hooked_workers: HookWorkers
) -> None:
    """Which match a batch's worker died in is unknown: each is played again alone, once."""
    jobs = _jobs(idle, busy, 3)
    outcomes, killed = _batch_while_killing(jobs, 1, hooked_workers)
    assert killed == 1
    assert [o.replay for o in outcomes] == [play(j).replay for j in jobs]  # type: ignore[union-attr]


@pytest.mark.processes
def test_the_match_a_batch_dies_in_fails_when_it_dies_again_alone(
    idle: bytes, busy: bytes, hooked_workers: HookWorkers
) -> None:
    """The first death is the batch's; played again alone, the first match's worker dies
    too: that match fails with both deaths counted, the other one is played."""
    jobs = _jobs(idle, busy, 2)
    (first, second), killed = _batch_while_killing(jobs, 2, hooked_workers)
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
    bad = msgspec.structs.replace(good, seed=-1)

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


def _die_mid_send(markers: str, deaths: int, value: int) -> int:
    """In a worker: while fewer than ``deaths`` markers are in ``markers`` (a directory), make
    one, write the start of a result's message (its length, a part of its bytes) on the
    worker's pipe back and kill this worker (SIGKILL); then answer ``value``."""
    for n in range(deaths):
        try:
            os.close(os.open(os.path.join(markers, str(n)), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            continue
        frame = sys._getframe()
        while "send_pipe" not in frame.f_locals:  # trio-parallel's worker loop holds the pipe
            assert frame.f_back is not None
            frame = frame.f_back
        pipe = frame.f_locals["send_pipe"]
        os.write(pipe.fileno(), struct.pack("!i", 1 << 20) + bytes(4096))
        os.kill(os.getpid(), signal.SIGKILL)
    return value


def _raise_os_error() -> None:
    raise OSError("got end of file during message")


@pytest.mark.processes
def test_a_worker_killed_while_it_sends_its_result_back_is_a_dead_worker(tmp_path: Path) -> None:
    """trio-parallel raises ``OSError`` for a message cut off by its worker's death: that is a
    death like any other (the call made again on a fresh worker, ``WorkerDied`` once it keeps
    dying), never an error escaping to the caller. An ``OSError`` the work itself raises,
    even with those words, is the work's and is raised as it was."""
    once, twice = tmp_path / "once", tmp_path / "twice"
    once.mkdir()
    twice.mkdir()

    async def main() -> tuple[int, str]:
        async with arena.open_worker_pool(retries=1) as pool:
            value = await pool.call(_die_mid_send, str(once), 1, 7)
            with pytest.raises(OSError, match="got end of file during message"):
                await pool.call(_raise_os_error)
            with pytest.raises(arena.WorkerDied) as died:
                await pool.call(_die_mid_send, str(twice), 2, 8, doing="sending")
            return value, died.value.reason

    value, reason = trio.run(main)
    assert value == 7 and len(list(once.iterdir())) == 1
    assert reason.startswith("the worker died 2 time(s) sending: the worker process died while")
    assert "cut off" in reason


@pytest.mark.processes
def test_a_tournament_whose_worker_dies_mid_send_plays_that_match_again(tmp_path: Path) -> None:
    """``arena tournament`` with a real worker killed half-way through sending a match's result
    back: the match is played again, the tournament finishes, every match recorded once."""
    env = {**os.environ, "FORAY_DATA_DIR": str(tmp_path / "data")}
    env.update(worker_hook(tmp_path / "hook", "die-mid-send"))
    args = ["tournament", "--format", "round-robin", "--jobs", "1", "--max-ticks", "60", "--json"]
    run = subprocess.run(
        [sys.executable, "-m", "arena", *args, "random", "border-soldier", "greedy-raider"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert (tmp_path / "hook" / "died").exists()  # a worker did die mid-send
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    out = json.loads(run.stdout)
    assert out["status"] == "finished" and out["matches"] == out["total"] == 6
    assert all(row["errors"] == 0 for row in out["standings"])


@pytest.mark.processes
def test_workers_that_cannot_start_are_the_executors_failure_not_a_matchs(
    idle: bytes, busy: bytes, hooked_workers: HookWorkers
) -> None:
    """Every worker process exits as it starts (its interpreter broken by a ``sitecustomize``):
    no match is failed for it. ``WorkersUnavailableError`` (an operator's error: exit 2),
    from a pool's call and play and from an executor's session, a batch's too."""
    hooked_workers("cannot-start")
    jobs = _jobs(idle, busy, 3)

    async def main() -> list[str]:
        reasons = []
        async with arena.open_worker_pool(retries=1) as pool:
            for attempt in (pool.call(_pid), pool.play(jobs[0])):
                with pytest.raises(arena.WorkersUnavailableError) as raised:
                    await attempt
                reasons.append(str(raised.value))
        async with LocalExecutor(1).open_session() as session:
            with pytest.raises(arena.WorkersUnavailableError) as raised:
                await session.play_batch(jobs)
            reasons.append(str(raised.value))
        return reasons

    reasons = trio.run(main)
    assert all(r.startswith("worker processes cannot start: ") for r in reasons), reasons
    # Forked or spawned, each worker exits by itself (no signal): seen as a fresh worker that
    # died before it answered or, when the machine is slow, while trio-parallel started it.
    for r in reasons:
        assert (
            "a fresh worker died before it answered" in r
            or "Worker died" in r
            or ("ended without forking one" in r)
        ), r
        assert "exitcode=1" in r or "ended without forking one" in r, r
    assert issubclass(arena.WorkersUnavailableError, arena.ArenaError)


@pytest.mark.processes
@pytest.mark.skipif(not FORKSERVER, reason="workers are spawned here: there is no worker server")
def test_a_worker_server_that_ends_as_it_starts_is_the_executors_failure(
    hooked_workers: HookWorkers,
) -> None:
    """The worker server exits before it forks any worker: ``WorkersUnavailableError`` that
    says so, no match's death."""
    hooked_workers("no-worker-server")

    async def main() -> str:
        async with arena.open_worker_pool(retries=1) as pool:
            with pytest.raises(arena.WorkersUnavailableError) as raised:
                await pool.call(_pid)
        return str(raised.value)

    reason = trio.run(main)
    assert reason.startswith("worker processes cannot start: "), reason
    assert "the worker server ended without forking one" in reason


@pytest.mark.processes
def test_a_tournament_whose_workers_cannot_start_records_nothing_and_exits_2(
    tmp_path: Path,
) -> None:
    """``arena tournament`` when no worker process can start: exit 2 with the reason, no
    match recorded (none an error that a resume would never play again), the tournament
    left running; once workers start, ``--resume`` plays it whole. With ``--no-record``,
    exit 2 as well (not a traceback of the executor's task group)."""
    env = {**os.environ, "FORAY_DATA_DIR": str(tmp_path / "data")}
    broken = {**env, **worker_hook(tmp_path / "hook", "cannot-start")}
    args = ["--format", "round-robin", "--jobs", "2", "--max-ticks", "40", "--json"]
    field = ["random", "border-soldier", "greedy-raider"]

    def arena_cli(*words: str, environ: dict[str, str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "arena", *words],
            capture_output=True,
            text=True,
            env=environ,
            check=False,
        )

    run = arena_cli("tournament", *args, *field, environ=broken)
    assert run.returncode == 2, run.stderr
    assert run.stdout == "" and "Traceback" not in run.stderr
    (line,) = run.stderr.strip().splitlines()
    assert line.startswith("error: worker processes cannot start: ")
    assert "tournament 1 stays running" in line and "arena tournament --resume 1" in line
    unrecorded = arena_cli("tournament", *args, "--no-record", *field, environ=broken)
    assert unrecorded.returncode == 2, unrecorded.stderr
    (line,) = unrecorded.stderr.strip().splitlines()
    assert line.startswith("error: worker processes cannot start: ")
    stored = json.loads(arena_cli("standings", "1", "--json", environ=env).stdout)
    assert (stored["status"], stored["matches"]) == ("running", 0)

    resumed = arena_cli("tournament", "--resume", "1", "--json", environ=env)
    assert resumed.returncode == 0, resumed.stderr
    out = json.loads(resumed.stdout)
    assert (out["status"], out["matches"]) == ("finished", 6)
    assert all(row["errors"] == 0 for row in out["standings"])


@pytest.mark.processes
def test_a_local_session_starts_its_workers_as_it_opens(idle: bytes, busy: bytes) -> None:
    """The workers start while a coordinator reads its plan, not at the first match (two for
    each of the two relays); the matches then play on those very workers (none of them starts
    one of its own)."""
    jobs = _jobs(idle, busy, 4)

    async def main() -> tuple[int, list[int], list[int], list[Outcome | Exception]]:
        async with LocalExecutor(2).open_session() as session:
            with trio.fail_after(60):
                while len(worker_pids()) < session.slots:
                    await trio.sleep(0.01)
            up = sorted(worker_pids())
            outcomes = [*await session.play_batch(jobs[:2]), *await session.play_batch(jobs[2:])]
            return session.slots, up, sorted(worker_pids()), outcomes

    slots, up, after, outcomes = trio.run(main)
    assert slots == 4 and len(up) == 4 and after == up
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


def _environment_value(name: str) -> str | None:
    return os.environ.get(name)


@pytest.mark.processes
def test_a_forked_worker_sees_the_coordinators_environment_of_its_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Workers are forked from a server started earlier; each still gets the environment the
    coordinator has as the worker starts (as a spawned worker did), not the server's."""
    arena.executors.start_worker_server()
    monkeypatch.setenv("FORAY_TEST_LATE", "set after the server started")

    async def main() -> str | None:
        async with arena.open_worker_pool() as pool:
            return await pool.call(_environment_value, "FORAY_TEST_LATE")

    assert trio.run(main) == "set after the server started"


def test_the_command_line_names_the_ray_address_as_the_executors_do() -> None:
    from arena.cli._tournament import _RAY_ADDRESS

    assert _RAY_ADDRESS == arena.executors.RAY_ADDRESS_ENV
