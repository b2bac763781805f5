"""``arena bench scale``: a 64-controller swiss on a local Ray, and what a bigger field would cost.

The field is the four baselines, each copied 16 times with a numbered custom
section appended (``numbered_module``): 64 distinct modules (64 sha256s, 64
compilations, 64 object-store puts) that play like their baseline, since a
custom section is never executed. The swiss is stored in a fresh store and
played by a Ray driver in a child process (no process may play wasm after
``ray.init``, and ``arena bench all`` plays wasm in this one): first one
1-tick match of each module against itself (Ray's workers start, every module
compiles into the shared disk cache), then the swiss, timed. Then the same
swiss once more as a user runs it, ``arena tournament --executor ray`` on the
64 modules as files, timed from the command's start to its end: Python's
start, Ray's, its workers' and the store's included (the compiled modules
are in the disk cache by then, as on any second run). The same child
reports the coordinator's memory and what the executor sent to Ray. Then,
in this process, the coordinator's own cost per match is measured on
results made up without playing (the scheduler's time and memory per match
recorded), the figures docs/scaling.md extrapolates from.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import sim
from arena.baselines import BASELINES, load_baseline, numbered_module
from arena.bench._tournament import _module_cache
from arena.coordinator import (
    create_tournament,
    run_tournament_sync,
    store_contestant,
    tournament_rules,
)
from arena.executors import RAY_ADDRESS_ENV, RayExecutor, RayStats, default_jobs
from arena.match import Contestant
from arena.store import STORE_FILE, Store
from arena.tournament import Format, Pairing, Played, Scheduler, TournamentPlan

__all__ = [
    "SCALE_ENTRANTS",
    "SCALE_ROUNDS",
    "drive_on_ray",
    "numbered_field",
    "scale_figures",
]

SCALE_ENTRANTS = 64
"""The field of ``arena bench scale``."""
SCALE_ROUNDS = 6
"""Its swiss rounds: log2(64), the project's default for 64 (``ceil(log2 n)``), as 10 is
for 1,000: enough rounds for one entrant to win every one."""

BIG_FIELD = 1_000
"""The field docs/scaling.md plans for; the coordinator's costs are measured at this size."""


def numbered_field(count: int, *, pad: int = 0) -> list[Contestant]:
    """``count`` distinct controllers: the four baselines in turn, each copy numbered
    (``random-00``, ``border-soldier-00``, ..., ``random-01``, ...). A numbered copy of the
    hidden baseline is not hidden: it is not that baseline's module."""
    names = list(BASELINES)
    blobs = {name: load_baseline(name) for name in names}
    field = []
    for i in range(count):
        name = names[i % len(names)]
        copy = i // len(names)
        field.append(Contestant(f"{name}-{copy:02d}", numbered_module(blobs[name], i, pad=pad)))
    return field


def _rss_bytes() -> int:
    """This process's resident memory now (Linux), else its peak so far."""
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return _peak_rss_bytes()


def _peak_rss_bytes() -> int:
    """This process's peak resident memory (Linux gives KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def drive_on_ray(root: Path, tournament_id: int, cpus: int) -> dict[str, Any]:
    """In the Ray driver's process: warm Ray up on the tournament's modules, then play the
    stored tournament on it; what it cost. Plays no wasm in this process."""
    executor = RayExecutor(num_cpus=cpus)
    rss_start = _rss_bytes()
    with Store.open(root) as store:
        record = store.tournament(tournament_id)
        case, _ = tournament_rules(record)
        one_tick = case.rules.replace(max_ticks=1)
        warm = []
        for e in record.field:
            c = Contestant(e.name, store.read_module_bytes(e.sha256))
            warm.append(case.match_job(c, c, config=one_tick))
        start = time.perf_counter()
        list(executor.map(warm))
        warm_wall = time.perf_counter() - start
        before = dataclasses.replace(executor.stats)
        rss_before = _rss_bytes()
        start, cpu = time.perf_counter(), time.process_time()
        run = run_tournament_sync(store, tournament_id, executor)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        after = executor.stats
    sent = RayStats(*(getattr(after, f) - getattr(before, f) for f in _STAT_FIELDS))
    return {
        "matches": run.stats.played,
        "errors": run.stats.errors,
        "wall": wall,
        "coordinator_wall": run.stats.wall,
        "coordinator_cpu": cpu,
        "store_wall": run.stats.store_wall,
        "store_cpu": run.stats.store_cpu,
        "warm_wall": warm_wall,
        "puts": sent.puts,
        "put_bytes": sent.put_bytes,
        "tasks": sent.tasks,
        "task_bytes": sent.task_bytes,
        "rss_start": rss_start,
        "rss_before": rss_before,
        "rss_peak": _peak_rss_bytes(),
        "winner": run.standings.rows[0].name if run.standings.rows else "",
    }


_STAT_FIELDS = [f.name for f in dataclasses.fields(RayStats)]

_CHILD = """
import json, sys
from pathlib import Path
from arena.bench import drive_on_ray
print(json.dumps(drive_on_ray(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))))
"""


def _from_the_command_line(seeds: int, cpus: int) -> tuple[float, int] | str:
    """The swiss as ``arena tournament --executor ray`` plays it from nothing but the module
    cache: the command's wall time and its matches, or why it failed."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-scale-cli-") as tmp:
        paths = []
        for c in numbered_field(SCALE_ENTRANTS):
            path = Path(tmp) / f"{c.name}.wasm"
            path.write_bytes(c.blob)
            paths.append(str(path))
        env = {**os.environ, "FORAY_DATA_DIR": str(Path(tmp) / "data")}
        env.pop(RAY_ADDRESS_ENV, None)
        args = ["--executor", "ray", "--jobs", str(cpus), "--format", "swiss"]
        args += ["--rounds", str(SCALE_ROUNDS), "--seeds", str(seeds), "--json", *paths]
        start = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "arena", "tournament", *args],
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=3600,
        )
        wall = time.perf_counter() - start
    if proc.returncode != 0:
        last = proc.stderr.strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
        return f"failed: {last[0][:200]}"
    return wall, int(json.loads(proc.stdout)["matches"])


def _made_up(pairing: Pairing) -> Played:
    """A result for ``pairing`` without playing it (side A wins on even slots)."""
    winner = (pairing.round + pairing.slot) % 2
    return Played(pairing, winner, sim.Reason.SCORE, (10, 5), (90_000, 80_000), 400)


def _scheduler_costs(entrants: int, sample: int) -> dict[str, float]:
    """The coordinator's bookkeeping for a round-robin of ``entrants``, without playing:
    ``sample`` made-up results recorded. CPU per result (untraced), then memory (traced):
    the scheduler of the whole field, and what each result recorded adds."""
    names = tuple(f"c{i:04d}" for i in range(entrants))
    plan = TournamentPlan(Format.ROUND_ROBIN, names, seeds=(0,))
    sched = Scheduler(plan)
    todo = list(itertools.islice(sched.ready(), sample))
    start = time.process_time()
    for p in todo:
        sched.record(_made_up(p))
    cpu = (time.process_time() - start) / len(todo)
    del sched
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        sched = Scheduler(plan)
        empty = tracemalloc.get_traced_memory()[0]
        for p in todo:
            sched.record(_made_up(p))
        full = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return {
        "scheduler_us_per_match": cpu * 1e6,
        "scheduler_bytes_per_entrant": (empty - base) / entrants,
        "scheduler_bytes_per_match": (full - empty) / len(todo),
    }


def _swiss_pairing_seconds(entrants: int, rounds: int) -> tuple[float, float]:
    """A swiss of ``entrants``: seconds to pair its first round, and its second (from made-up
    results of the first: a blossom matching over every pair not yet met)."""
    names = tuple(f"c{i:04d}" for i in range(entrants))
    plan = TournamentPlan(Format.SWISS, names, seeds=(0,), rounds=rounds)
    start = time.process_time()
    sched = Scheduler(plan)
    first = time.process_time() - start
    *most, last = list(sched.ready())
    for p in most:
        sched.record(_made_up(p))
    start = time.process_time()
    sched.record(_made_up(last))
    return first, time.process_time() - start


def _mib(n: float) -> str:
    return f"{n / 2**20:.1f} MiB"


def scale_figures(
    repeat: int, *, seeds: int | None = None, cpus: int | None = None
) -> dict[str, float]:
    """Print and return the figures. ``repeat`` 1 (``--quick``): one seed; else two (each
    meeting of the swiss is played on every seed with both sides). ``cpus``: the local
    Ray's CPUs (default: the cores)."""
    n_seeds = seeds if seeds is not None else (1 if repeat == 1 else 2)
    cpus = cpus or default_jobs()
    figures: dict[str, float] = {"entrants": SCALE_ENTRANTS, "rounds": SCALE_ROUNDS}
    print(
        f"scale: a swiss of {SCALE_ENTRANTS} distinct controllers (the 4 baselines x 16, "
        f"numbered), {SCALE_ROUNDS} rounds, {n_seeds} seed(s), both sides, full matches under "
        f"the default case, on a local Ray of {cpus} CPUs driven from a child process:"
    )
    try:
        import ray  # noqa: F401
    except ImportError:
        print('  Ray: not installed (pip install -e ".[ray]"); the swiss is left out')
        ray_ok = False
    else:
        ray_ok = True
    if ray_ok:
        with _module_cache(), tempfile.TemporaryDirectory(prefix="arena-bench-scale-") as tmp:
            root = Path(tmp)
            with Store.open(root) as store:
                entrants = [store_contestant(store, c) for c in numbered_field(SCALE_ENTRANTS)]
                record = create_tournament(
                    store, "swiss", entrants, seeds=range(n_seeds), rounds=SCALE_ROUNDS
                )
                module_bytes = sum(len(store.read_module_bytes(e.sha256)) for e in entrants)
            proc = subprocess.run(
                [sys.executable, "-c", _CHILD, str(root), str(record.id), str(cpus)],
                capture_output=True,
                text=True,
                check=False,
                timeout=3600,
            )
            if proc.returncode != 0:
                last = proc.stderr.strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
                print(f"  Ray: failed: {last[0][:200]}")
                ray_ok = False
            else:
                cli = _from_the_command_line(n_seeds, cpus)
                got: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
                with Store.open(root) as store:
                    # A resumed coordinator reads every stored match of the tournament.
                    tracemalloc.start()
                    played = store.tournament_matches(record.id)
                    record_bytes = tracemalloc.get_traced_memory()[0] / max(1, len(played))
                    tracemalloc.stop()
                    replay_bytes = sum(
                        store.replay_path(m.result.replay_sha256).stat().st_size
                        for m in played
                        if m.result is not None
                    )
                    db_bytes = sum(
                        p.stat().st_size for p in root.iterdir() if p.name.startswith(STORE_FILE)
                    )
        if ray_ok:
            matches = got["matches"]
            rate = matches / got["wall"]
            figures |= {
                "matches": matches,
                "errors": got["errors"],
                "wall_s": got["wall"],
                "matches_per_s": rate,
                "matches_per_s_per_core": rate / cpus,
                "warmup_s": got["warm_wall"],
                "object_store_puts": got["puts"],
                "object_store_put_bytes": got["put_bytes"],
                "tasks": got["tasks"],
                "task_bytes_per_task": got["task_bytes"] / max(1, got["tasks"]),
                "module_bytes_mean": module_bytes / SCALE_ENTRANTS,
                "coordinator_rss_start_bytes": got["rss_start"],
                "coordinator_rss_before_bytes": got["rss_before"],
                "coordinator_rss_peak_bytes": got["rss_peak"],
                "coordinator_cpu_ms_per_match": got["coordinator_cpu"] / max(1, matches) * 1e3,
                "store_cpu_ms_per_match": got["store_cpu"] / max(1, matches) * 1e3,
                "store_wall_ms_per_match": got["store_wall"] / max(1, matches) * 1e3,
                "replay_bytes_per_match": replay_bytes / max(1, matches),
                "db_bytes": db_bytes,
                "resume_bytes_per_match": record_bytes,
            }
            print(
                f"  Ray up and every module compiled (64 one-tick matches, untimed): "
                f"{got['warm_wall']:.1f} s"
            )
            print(
                f"  {matches} matches ({got['errors']} errors) in {got['wall']:.1f} s: "
                f"{rate:.1f} matches/s, {rate / cpus:.1f} matches/s per core, Ray and its "
                f"workers up beforehand; winner {got['winner']}"
            )
            if isinstance(cli, str):
                print(f"  the same from the command line: {cli}")
            else:
                cli_rate = cli[1] / cli[0]
                figures |= {"cli_wall_s": cli[0], "cli_matches_per_s_per_core": cli_rate / cpus}
                print(
                    f"  the same from the command line (arena tournament --executor ray, "
                    f"Python's, Ray's and its workers' start included, modules cached): "
                    f"{cli[1]} matches in {cli[0]:.1f} s, {cli_rate:.1f} matches/s, "
                    f"{cli_rate / cpus:.1f} matches/s per core"
                )
            print(
                f"  Ray object store: {got['puts']} puts ({_mib(got['put_bytes'])}, one per "
                f"module, mean module {module_bytes / SCALE_ENTRANTS:,.0f} bytes) for "
                f"{got['tasks']} tasks, each carrying "
                f"{got['task_bytes'] / max(1, got['tasks']):,.0f} bytes by value and 2 references"
            )
            print(
                f"  coordinator (the Ray driver) resident memory: {_mib(got['rss_start'])} "
                f"at start, {_mib(got['rss_before'])} with Ray up, peak "
                f"{_mib(got['rss_peak'])}; its CPU (the driver's threads, the store's "
                f"included) {figures['coordinator_cpu_ms_per_match']:.2f} ms per match"
            )
            print(
                f"  store: {figures['store_cpu_ms_per_match']:.2f} ms CPU, "
                f"{figures['store_wall_ms_per_match']:.2f} ms wall per match in the recording "
                f"thread; {replay_bytes / max(1, matches):,.0f} replay bytes per match, "
                f"database {_mib(db_bytes)}; a resume reads every stored match: "
                f"{record_bytes:,.0f} bytes of memory per match"
            )
    costs = _scheduler_costs(BIG_FIELD, 20_000 if repeat == 1 else 100_000)
    figures |= costs
    print(
        f"  the coordinator's scheduler for a round-robin of {BIG_FIELD:,} (made-up results, "
        f"nothing played): {costs['scheduler_us_per_match']:.0f} us of CPU per result "
        f"recorded; {costs['scheduler_bytes_per_entrant']:,.0f} bytes per entrant (the win "
        f"matrix among them), {costs['scheduler_bytes_per_match']:.1f} bytes per result"
    )
    if repeat > 1:
        first, second = _swiss_pairing_seconds(BIG_FIELD, 10)
        figures |= {"swiss_1000_pair_first_s": first, "swiss_1000_pair_second_s": second}
        print(
            f"  pairing a swiss of {BIG_FIELD:,}: the first round {first:.2f} s of CPU, the "
            f"second (from the first's results) {second:.2f} s, with no match in flight"
        )
    return figures
