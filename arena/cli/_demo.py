"""``arena demo``: the embedded default job.

Plays the committed baselines against each other, writes each replay
atomically under the data directory and checks it by re-simulation.
"""

from __future__ import annotations

import argparse
import itertools

from arena.cli._common import shown, u32

__all__ = ["register", "run_demo"]


def run_demo(seed: int = 0) -> int:
    """Play every ordered pair of distinct baselines once; return a process exit code."""
    from rich.console import Console
    from rich.table import Table

    import replays
    from arena._files import check_directory, data_dir, write_output
    from arena.baselines import BASELINES, load_baseline
    from arena.cases import default_case
    from arena.executors import JobFailed, LocalExecutor, MatchJob
    from arena.match import Contestant

    case = default_case()
    field = [Contestant(name, load_baseline(name)) for name in BASELINES]
    out = data_dir() / "replays"
    check_directory(out, "replays")
    wins = {c.name: 0 for c in field}
    failures = 0
    jobs = [MatchJob.for_case(case, a, b, seed=seed) for a, b in itertools.permutations(field, 2)]
    table = Table(title=f"demo: {len(field)} baselines, every pairing both ways, seed {seed}")
    for column in ("A", "B", "outcome", "reason", "banked", "replay"):
        table.add_column(column)
    for job, result in zip(jobs, LocalExecutor().map(jobs), strict=True):
        if isinstance(result, JobFailed):
            failures += 1
            table.add_row(job.a.name, job.b.name, "not played", "", "", result.reason)
            continue
        write_output(out / f"{result.replay_sha256}.replay", result.replay, "replay")
        report = replays.verify_replay(result.replay)
        failures += not report.ok
        if result.winner is None:
            verdict = "draw"
        else:
            verdict = f"{result.sides[result.winner].name} wins"
            wins[result.sides[result.winner].name] += 1
        table.add_row(
            job.a.name,
            job.b.name,
            verdict,
            str(result.reason),
            "-".join(str(s.banked) for s in result.sides),
            "verified" if report.ok else "VERIFY FAILED",
        )
    console = Console()
    console.print(table)
    console.print(
        "wins: " + ", ".join(f"{n} {w}" for n, w in sorted(wins.items(), key=lambda kv: -kv[1]))
    )
    console.print(f"replays: {shown(out)}")
    return 1 if failures else 0


def cmd_demo(args: argparse.Namespace) -> int:
    return run_demo(args.seed)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    d = sub.add_parser("demo", help="the default job: the baselines play each other")
    d.add_argument("--seed", type=u32, default=0)
    d.set_defaults(func=cmd_demo)
