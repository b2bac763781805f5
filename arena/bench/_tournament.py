"""Tournament figures for ``arena bench tournament``: matches per second, scaling, overheads.

A round-robin of the four baselines under the default case (48 seeds, 576
matches: long enough that a worker's start is paid once, as in a real
tournament; what it costs is printed apart), played in one run: one match
after another in this process, then through the coordinator and the store on
1 and N local workers (N = the cores; ``LocalExecutor(n)``: n relays of two
worker processes taking turns), as ``arena tournament`` plays it (the
store opened and the field stored inside the timing), and on a local Ray of N
CPUs, and once more on one worker that times each match from inside
(where the rest of the time goes). This machine is shared and its cores do
not scale like cores, so the same run also measures its own scaling (a
pure-Python loop, and the same matches, in 1 and N independent processes) and
reports the tournament's speed-up as a share of it; only ratios measured in
one run mean anything here.
"""

from __future__ import annotations

import itertools
import json
import math
import multiprocessing
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from arena.baselines import BASELINES
from arena.cases import default_case
from arena.coordinator import (
    TournamentResult,
    add_contestant,
    create_tournament,
    run_tournament,
    run_tournament_sync,
)
from arena.executors import (
    Executor,
    LocalExecutor,
    MatchJob,
    Outcome,
    WorkerPool,
    default_jobs,
    open_worker_pool,
    play,
    play_batch_timed,
    start_worker_server,
    stop_worker_server,
)
from arena.match import MatchResult, load_contestant
from arena.store import Store, TournamentRecord

__all__ = [
    "JUDGED_SCALING",
    "TournamentFigures",
    "machine_scaling",
    "scaling_verdict",
    "tournament_figures",
]

_CACHE_ENV = "FORAY_CACHE_DIR"


def _spin(n: int) -> float:
    """A pure-Python CPU loop of ``n`` steps; returns its own wall time."""
    start = time.perf_counter()
    x = 0
    for i in range(n):
        x = (x + i * i) % 1_000_003
    return time.perf_counter() - start


def machine_scaling(processes: int, seconds: float = 1.0) -> float:
    """How many times the work of one process ``processes`` processes do in the same time.

    The same loop (about ``seconds`` long alone) in 1 process, then in each of
    ``processes`` at once: ``processes x t1 / tN``. Perfect cores give
    ``processes``.
    """
    n = max(1, int(2_000_000 * seconds / max(_spin(2_000_000), 1e-6)))
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=processes, mp_context=context) as pool:
        list(pool.map(_spin, [1000] * processes))  # the processes are up
        start = time.perf_counter()
        pool.submit(_spin, n).result()
        alone = time.perf_counter() - start
        start = time.perf_counter()
        list(pool.map(_spin, [n] * processes))
        together = time.perf_counter() - start
    return processes * alone / together


JUDGED_SCALING = 0.65
"""The share of perfect scaling (``processes``) the machine's own loop must reach for the
tournament's speed-up to be judged against it: 1.3x at 2 processes. Below it the cores were
busy with other work, and a ratio of two small speed-ups says nothing of the arena."""


def scaling_verdict(speedup: float, loop: float, work: float, processes: int) -> str:
    """The speed-up at ``processes`` workers, printed beside the machine's own scaling (its
    Python ``loop``, and the same matches' ``work`` in independent processes), as a share of
    the loop's only when the loop scaled to ``JUDGED_SCALING`` of ``processes`` or more."""
    floor = JUDGED_SCALING * processes
    head = (
        f"speed-up at {processes} workers: {speedup:.2f}x, beside the machine's own "
        f"{loop:.2f}x (a Python loop) and {work:.2f}x (the same matches)"
    )
    if processes < 2:
        return f"{head}: one worker, nothing to judge"
    if not loop >= floor:  # NaN too: not measured
        return (
            f"{head}: cannot be judged, the machine's own loop scaled under {floor:.2f}x "
            f"({JUDGED_SCALING:.0%} of {processes} processes; other work held its cores)"
        )
    return (
        f"{head}: {speedup / loop:.0%} of the loop's scaling (goal: >= 90%), "
        f"{speedup / work:.0%} of the matches' own"
    )


def _load_average() -> list[float]:
    """The 1, 5 and 15-minute load averages, rounded (empty where the system has none)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


@contextmanager
def _module_cache() -> Iterator[str]:
    """The on-disk cache of compiled modules the workers share (a temporary one if unset)."""
    if os.environ.get(_CACHE_ENV):
        yield os.environ[_CACHE_ENV]
        return
    with tempfile.TemporaryDirectory(prefix="arena-bench-cache-") as tmp:
        os.environ[_CACHE_ENV] = tmp
        try:
            yield tmp
        finally:
            del os.environ[_CACHE_ENV]


def _create(store: Store, seeds: int, max_ticks: int | None) -> TournamentRecord:
    """The benchmark's round-robin of the baselines, stored (nothing played yet)."""
    field = [add_contestant(store, name)[1] for name in BASELINES]
    rules = None if max_ticks is None else default_case().rules.replace(max_ticks=max_ticks)
    return create_tournament(store, "round-robin", field, seeds=range(seeds), config=rules)


def _cpu() -> float:
    """This process's CPU seconds so far, every thread's."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _tournament(
    executor: Executor, seeds: int, max_ticks: int | None = None, *, under: str | None = None
) -> tuple[float, float, TournamentResult]:
    """A round-robin of the baselines in a fresh store (a temporary directory, in ``under`` if
    given), as ``arena tournament`` plays it: its wall time from the store's opening to the
    standings stored, and the CPU time this process (the coordinator) spent."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-tournament-", dir=under) as tmp:
        start, cpu = time.perf_counter(), _cpu()
        with Store.open(Path(tmp)) as store:
            record = _create(store, seeds, max_ticks)
            run = run_tournament_sync(store, record.id, executor)
        return time.perf_counter() - start, _cpu() - cpu, run


def _jobs(seeds: int, max_ticks: int | None = None) -> tuple[list[MatchJob], list[MatchJob]]:
    """The round-robin's matches, and a one-tick match of each module (to compile it)."""
    case = default_case()
    field = [load_contestant(name) for name in BASELINES]
    warm = [case.match_job(c, c, config=case.rules.replace(max_ticks=1)) for c in field]
    rules = case.rules if max_ticks is None else case.rules.replace(max_ticks=max_ticks)
    jobs = [
        case.match_job(a, b, seed=seed, config=rules)
        for seed in range(seeds)
        for a in field
        for b in field
        if a is not b
    ]
    return jobs, warm


def _in_process(seeds: int, max_ticks: int | None = None) -> float:
    """The matches one after another in this process, modules compiled beforehand."""
    jobs, warm = _jobs(seeds, max_ticks)
    for job in warm:
        play(job)
    start = time.perf_counter()
    for job in jobs:
        play(job)
    return time.perf_counter() - start


def _match_scaling(processes: int, seeds: int, max_ticks: int | None = None) -> float:
    """The machine's scaling for this very work: the matches in 1, then ``processes``
    independent processes at once (no coordinator, no store)."""
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=processes, mp_context=context) as pool:
        list(pool.map(_in_process, [0] * processes))  # up, modules loaded
        alone = pool.submit(_in_process, seeds, max_ticks).result()
        together = max(pool.map(_in_process, [seeds] * processes, [max_ticks] * processes))
    return processes * alone / together


class _TimedWorker:
    """A ``BatchPlayer`` on one relay of local workers, as ``LocalExecutor(1)`` plays (its
    worker pool, two workers taking turns, ``slots`` calls at once, batches of up to
    ``LocalExecutor().batch``), that keeps when each match began and ended inside the
    worker."""

    def __init__(self, pool: WorkerPool) -> None:
        self._pool = pool
        self._turn = pool.turn(0)
        self.slots = 1 if self._turn is None else 2
        self.batch = LocalExecutor(1).batch
        self._calls: list[list[tuple[float, float]]] = []  # each call's spans

    @property
    def spans(self) -> list[tuple[float, float]]:
        """Each match's (began, ended) in the worker, in the order they played (two calls
        are under way at once: one may come back after the other's worker began)."""
        return [span for call in sorted(self._calls) for span in call]

    @property
    def firsts(self) -> list[int]:
        """The index in ``spans`` of each call's first match."""
        sizes = [len(call) for call in sorted(self._calls)]
        return [sum(sizes[:n]) for n in range(len(sizes))]

    async def play(self, job: MatchJob) -> Outcome:
        (outcome,) = await self.play_batch([job])
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    async def play_batch(self, jobs: Sequence[MatchJob]) -> list[Outcome | Exception]:
        timed: tuple[list[MatchResult | Exception], list[tuple[float, float]]]
        timed = await self._pool.call(
            play_batch_timed, jobs, self._pool.spool, self._turn, doing="playing a batch"
        )
        if timed[1]:
            self._calls.append(timed[1])
        return list(timed[0])


@dataclass(frozen=True, slots=True)
class _Inside:
    """A 1-worker tournament timed from inside its worker, on the monotonic clock."""

    start: float
    """When the tournament began: the store opened, then the worker started."""
    setup: float
    """Seconds the store's opening and the field's storing took, before the worker started."""
    spans: list[tuple[float, float]]
    """Each match's (began, ended) in the worker."""
    firsts: list[int]
    """The index in ``spans`` of each worker call's first match (each batch's)."""
    finished: float
    """When the tournament was stored as finished and its worker had stopped."""


def _inside_a_worker(seeds: int, max_ticks: int | None = None, *, fresh: bool = False) -> _Inside:
    """A 1-worker tournament as ``arena tournament --jobs 1`` plays it (coordinator, store, a
    fresh worker), timed from inside the worker.

    The worker is forked from the worker server, up and ready beforehand as in
    ``arena tournament`` (which starts it before its own imports); ``fresh``: a
    server started as the tournament begins, with only the store's opening to
    overlap (a program that starts none ahead)."""

    async def main() -> _Inside:
        with tempfile.TemporaryDirectory(prefix="arena-bench-tournament-") as tmp:
            if fresh:
                stop_worker_server()
            else:
                await _worker_up()
            start = time.monotonic()
            if fresh:
                start_worker_server()
            with Store.open(Path(tmp)) as store:
                record = _create(store, seeds, max_ticks)
                setup = time.monotonic() - start
                async with open_worker_pool() as pool:
                    player = _TimedWorker(pool)
                    await run_tournament(store, record.id, player, slots=player.slots)
                return _Inside(start, setup, player.spans, player.firsts, time.monotonic())

    return trio.run(main)


async def _worker_up() -> float:
    """Seconds until a new local worker answers, as a pool starts one (forked from the worker
    server, which this starts if it is not up and waits for if it is still importing)."""
    start = time.monotonic()
    async with open_worker_pool(idle_timeout=0.0) as pool:
        await pool.call(os.getpid)
    return time.monotonic() - start


def _worker_starts(runs: int = 5) -> tuple[float, float, float]:
    """Medians of ``runs``: a worker server's start until its first worker answered, a
    worker forked from it once it is up, and a worker spawned as before (its own Python,
    importing the match code)."""
    fresh, forked, spawned = [], [], []

    async def spawn() -> float:
        start = time.monotonic()
        async with open_worker_pool(idle_timeout=0.0, spawn=True) as pool:
            await pool.call(os.getpid)
        return time.monotonic() - start

    for _ in range(runs):
        spawned.append(trio.run(spawn))
        stop_worker_server()
        fresh.append(trio.run(_worker_up))
        forked.append(trio.run(_worker_up))
    return statistics.median(fresh), statistics.median(forked), statistics.median(spawned)


_RAY_CHILD = """
import json, sys, time
from arena.bench._tournament import _tournament
from arena.executors import RayExecutor
seeds, cpus, under = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
executor = RayExecutor(num_cpus=cpus)
_tournament(executor, 1, under=under)  # Ray and its workers start, and compile, untimed
wall, _, run = _tournament(executor, seeds, under=under)
print(json.dumps({"wall": wall, "matches": run.stats.played}))
"""


def _on_ray(seeds: int, cpus: int) -> dict[str, Any] | str:
    """The tournament on a local Ray of ``cpus`` CPUs, driven from a process of its own.

    No process plays wasm after ``ray.init`` (Ray's crash handlers would take
    wasmtime's), and this one has: the driver is a child.
    """
    try:
        import ray  # noqa: F401
    except ImportError:
        return 'not installed (pip install -e ".[ray]")'
    # The child's stores go in a directory of this process's: a Ray that fails ends its
    # driver without Python's cleanup, which left them behind in the system's temp dir.
    with tempfile.TemporaryDirectory(prefix="arena-bench-ray-") as under:
        proc = subprocess.run(
            [sys.executable, "-c", _RAY_CHILD, str(seeds), str(cpus), under],
            capture_output=True,
            text=True,
            check=False,
        )
    if proc.returncode != 0:
        last = proc.stderr.strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
        return f"failed: {last[0][:200]}"
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


@dataclass(frozen=True, slots=True)
class TournamentFigures:
    """The tournament's speed through the coordinator and the store, 1 and N local workers."""

    matches: int
    """Matches in the round-robin."""
    workers: int
    """N: the local workers of the second figure (the cores)."""
    one_per_s: float
    """Matches per second on 1 worker (best of the passes)."""
    many_per_s: float
    """Matches per second on ``workers`` workers."""


def _row(label: str, wall: float, matches: int, note: str = "") -> None:
    print(f"  {label:<44} {wall:>6.1f} s  {matches / wall:>6.1f} matches/s  {note}".rstrip())


def tournament_figures(
    repeat: int,
    seeds: Sequence[int] | None = None,
    *,
    ray: bool = True,
    loop_seconds: float = 1.0,
    max_ticks: int | None = None,
    detail: bool = True,
) -> TournamentFigures:
    """Print the figures and return the matches/s. ``repeat`` 1 (``--quick``): ``seeds[0]``
    seeds, one pass; else ``seeds[1]`` seeds, the best of two passes (each pass plays the
    matches in this process, then on 1 and N workers, so slow spells of a shared machine hit
    all three alike). ``seeds`` defaults to (3, 48), 576 matches (a tournament long enough
    that a worker's start is paid once, as in a real one; its cost is printed apart), and to
    (3, 12) for the summary (``detail`` False).

    ``detail`` False measures only the coordinator on 1 and N workers (the
    one-run summary's figure): not the matches in this process, the machine's
    own scaling, Ray nor the time inside a worker. ``ray`` False leaves Ray out,
    ``loop_seconds`` is the length of the CPU loop that measures the machine and
    ``max_ticks`` shortens the matches: for a smoke test.
    """
    if seeds is None:
        seeds = (3, 48) if detail else (3, 12)
    n_seeds = seeds[0] if repeat == 1 else seeds[1]
    passes = 1 if repeat == 1 else 2
    workers = default_jobs()
    matches = len(_jobs(n_seeds, max_ticks)[0])
    load_start = _load_average()
    with _module_cache() as cache:
        before = machine_scaling(workers, loop_seconds) if detail else math.nan
        inside = one = many = math.inf
        for _ in range(passes):
            if detail:
                inside = min(inside, _in_process(n_seeds, max_ticks))
            wall, cpu_one, run_one = _tournament(LocalExecutor(1), n_seeds, max_ticks)
            one = min(one, wall)
            wall, cpu_many, run_many = _tournament(LocalExecutor(workers), n_seeds, max_ticks)
            many = min(many, wall)
        figures = TournamentFigures(matches, workers, matches / one, matches / many)
        if not detail:
            print(
                f"tournament: a round-robin of the {len(BASELINES)} baselines on {n_seeds} "
                f"seeds, {matches} matches, through the coordinator and a fresh store; best "
                f"of {passes} pass(es):"
            )
            _row("1 local worker", one, matches)
            _row(f"{workers} local workers", many, matches)
            return figures
        load_timed = _load_average()
        timed = _inside_a_worker(n_seeds, max_ticks)
        cold = _inside_a_worker(n_seeds, max_ticks, fresh=True)
        starts = _worker_starts()
        work = _match_scaling(workers, max(1, n_seeds // 2), max_ticks)
        on_ray = _on_ray(n_seeds, workers) if ray else "left out"
        after = machine_scaling(workers, loop_seconds)
    loop = (before + after) / 2
    speedup = one / many
    print(
        f"tournament: a round-robin of the {len(BASELINES)} baselines on {n_seeds} seeds, both "
        f"sides, {matches} matches, under the default case (compiled modules cached in "
        f"{cache}); best of {passes} pass(es):"
    )
    _row("one after another in this process", inside, matches, "(the time inside matches)")
    _row("coordinator and store, 1 local worker", one, matches)
    _row(f"coordinator and store, {workers} local workers", many, matches)
    if isinstance(on_ray, str):
        print(f"  {'coordinator and store, Ray':<44} {on_ray}")
    else:
        label = f"coordinator and store, local Ray of {workers} CPUs"
        _row(label, on_ray["wall"], on_ray["matches"], "(Ray started beforehand)")
    print(
        f"  this machine, {workers} processes against 1: a Python loop {loop:.2f}x "
        f"({before:.2f}x before the tournaments, {after:.2f}x after); the same matches in "
        f"independent processes {work:.2f}x"
    )
    print(f"  {scaling_verdict(speedup, loop, work, workers)}")
    print(
        f"  load average (1, 5, 15 minutes): {load_start} at the start, {load_timed} as the "
        f"timed worker's tournament began, {_load_average()} at the end, on {os.cpu_count()} "
        f"cores (the bench's own processes count up to about {workers + 1}; more is other "
        "work, which slows every figure and makes the time outside matches larger)"
    )
    played, start = timed.spans, timed.start
    total = timed.finished - start
    inside_worker = sum(ended - began for began, ended in played)
    gaps = [b[0] - a[1] for a, b in itertools.pairwise(played)]
    first, last = played[0][0] - start, timed.finished - played[-1][1]
    print(
        "  time not spent inside matches, 1 worker, timed inside it: "
        f"{1 - inside_worker / total:.2%} of the total {total:.2f} s (goal: < 2%; load "
        f"average {load_timed[:1] or '?'} as it began):"
    )
    print(
        f"    once: the first match began {first:.3f} s after the start ({first / total:.1%}: "
        f"the store opened and the field stored, {timed.setup:.3f} s, then the worker's "
        "start, forked from the worker server that `arena tournament` starts before its "
        f"imports, and its first batch); after the last match {last:.3f} s "
        f"({last / total:.1%}: the standings stored, the worker stopped)"
    )
    between_calls = [played[i][0] - played[i - 1][1] for i in timed.firsts[1:]] or [0.0]
    print(
        f"    per match: between matches {sum(gaps) / len(gaps) * 1e3:.2f} ms on average "
        f"({sum(gaps) / total:.1%}); the {len(played)} matches went out in "
        f"{len(timed.firsts)} calls (batches of up to {LocalExecutor(1).batch}), between two calls "
        f"{statistics.mean(between_calls) * 1e3:.2f} ms on average, median "
        f"{statistics.median(between_calls) * 1e3:.2f} ms (the turn handed from one of the "
        "relay's two workers to the other: each one's results go back and its next batch "
        "comes out while the other plays)"
    )
    cold_total = cold.finished - cold.start
    cold_inside = sum(ended - began for began, ended in cold.spans)
    print(
        "    the same with the worker server started as the tournament began (nothing to "
        f"overlap but the store's opening): {1 - cold_inside / cold_total:.2%} of "
        f"{cold_total:.2f} s, the first match began {cold.spans[0][0] - cold.start:.3f} s "
        "after the start"
    )
    fresh, forked, spawned = starts
    print(
        "  a worker's start, until it answers (median of 5): forked from the worker server "
        f"{forked * 1e3:.1f} ms; the worker server's own start until its first worker "
        f"answered {fresh * 1e3:.1f} ms (once a process, overlapping `arena tournament`'s "
        f"imports); a worker spawned as before {spawned * 1e3:.1f} ms"
    )
    for label, run, cpu in (
        ("1 worker", run_one, cpu_one),
        (f"{workers} workers", run_many, cpu_many),
    ):
        s = run.stats
        print(
            f"  store per match ({label}): {s.store_cpu / s.played * 1e3:.2f} ms of CPU, "
            f"{s.store_wall / s.played * 1e3:.2f} ms of wall time in the recording thread "
            "while matches play (goal: < 1 ms added); the coordinator's process in all, "
            f"store included, {cpu / s.played * 1e3:.2f} ms of CPU per match"
        )
    return figures
