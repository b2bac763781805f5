"""``arena demo``: the embedded default job.

Plays the committed baselines against each other, records each match in the
store (its replay written atomically under the data directory) and checks it
by re-simulation; proves the template controller against the Foray case, as
an author would (``arena new`` into ``<data>/demo-template``, built, played
against every opponent, recorded as a run); then serves the site over the
data directory until Ctrl-C (``arena serve``, web's, found through the
``foray_arena.site`` entry point). ``--no-serve`` stops after the matches.
"""

from __future__ import annotations

import argparse
import itertools
from typing import TYPE_CHECKING

from arena.cli._common import port, shown, u32

if TYPE_CHECKING:
    from arena.store import Store

__all__ = ["prove_template", "register", "run_demo", "serve_site"]


def run_demo(seed: int = 0, *, serve: tuple[str, int] | None = ("127.0.0.1", 8000)) -> int:
    """Play every ordered pair of distinct baselines once, prove the template, then serve the
    site on ``serve`` (host, port; None: not at all); return a process exit code."""
    from rich.console import Console
    from rich.table import Table

    import replays
    from arena._files import check_directory, data_dir, write_output
    from arena.baselines import BASELINES, load_baseline
    from arena.cases import default_case
    from arena.executors import JobFailed, LocalExecutor, MatchJob
    from arena.match import Contestant
    from arena.store import Origin, Store

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
    with Store.open() as store:
        for c in field:
            hidden = BASELINES[c.name].hidden
            store.add_controller(c.blob, name=c.name, origin=Origin.BASELINE, hidden=hidden)
        for job, result in zip(jobs, LocalExecutor().map(jobs), strict=True):
            if isinstance(result, JobFailed):
                failures += 1
                table.add_row(job.a.name, job.b.name, "not played", "", "", result.reason)
                continue
            write_output(out / f"{result.replay_sha256}.replay", result.replay, "replay")
            store.record_match(result)  # on the site from then on
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
        failures += not prove_template(store)
    code = 1 if failures else 0
    if serve is not None:
        code = max(code, serve_site(*serve))
    return code


def prove_template(store: Store) -> bool:
    """The template controller, laid out and built as an author would, proved on the Foray case."""
    from arena.cases import default_case, new_project, prove
    from arena.cli._prove import _print_report
    from arena.store import RunOutcome

    case = default_case()
    project = store.root / "demo-template"
    if not project.is_dir() or not any(project.iterdir()):
        new_project(project, case)
    proof = prove(project, case, store=store, name="template")
    if proof.found:
        print(f"the template was proved before: run {proof.run.id}")
    _print_report(proof.report)
    return proof.run.outcome is not RunOutcome.COULD_NOT_COMPETE


def serve_site(host: str, port: int) -> int:
    """The site over the data directory until Ctrl-C: web's ``serve_site``, by entry point."""
    from arena._extensions import SITE, extensions

    entry = extensions(SITE).get("web")
    if entry is None:
        print("the site is not installed here (the web package): not served")
        return 0
    print("the site: the matches, the template's run and every replay, in the browser")
    code: int = entry.load()(host, port)
    return code


def cmd_demo(args: argparse.Namespace) -> int:
    return run_demo(args.seed, serve=None if args.no_serve else (args.host, args.port))


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    d = sub.add_parser(
        "demo", help="the main job: the baselines play each other, the template is proved, the site"
    )
    d.add_argument("--seed", type=u32, default=0)
    d.add_argument(
        "--no-serve", action="store_true", help="stop after the matches (do not serve the site)"
    )
    d.add_argument("--host", default="127.0.0.1", help="where the site listens (127.0.0.1)")
    d.add_argument("--port", type=port, default=8000, help="the site's port (8000; 0: any free)")
    d.set_defaults(func=cmd_demo)
