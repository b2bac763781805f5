"""``arena new``, ``arena build``, ``arena prove`` and ``arena runs``: a submission's workflow.

A thin layer over ``arena.proving`` (``new_project``, ``build_submission``,
``prove``, ``run_report``) and the store; the texts and tables are made here.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from arena.cli._common import emit_json, positive, shown, stdout_console

if TYPE_CHECKING:
    from arena.cases import Case
    from arena.proving import Build, RunReport

__all__ = ["register"]

LOG_TAIL = 30
"""Lines of a failed build's log shown on the terminal (``--json`` has all of it)."""
REPORT_COLUMNS = (
    "opponent",
    "role",
    "side",
    "seed",
    "outcome",
    "banked (yours)",
    "banked (opponent)",
    "fuel (yours)",
    "fuel (opponent)",
    "forfeit",
    "replay",
)
"""A run's results table: the run's controller's side is "yours", as on the site's run page;
"replay" says whether the match's replay file is there and whole (ok, missing, damaged)."""


def seconds(text: str) -> float:
    """An argparse type: a positive, finite number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"{text} is not a positive number of seconds")
    return value


def _case(args: argparse.Namespace) -> Case:
    """The case ``--case SLUG[/VERSION]`` names (default: the Foray case), in ``--catalog``."""
    from arena._errors import ArenaError
    from arena.cases import find_case

    slug, _, version = args.case.partition("/")
    if version and not (version.isascii() and version.isdigit()):
        raise ArenaError(f"--case {args.case!r}: give SLUG or SLUG/VERSION (foray, foray/1)")
    catalog = Path(args.catalog) if args.catalog else None
    return find_case(slug, int(version) if version else None, catalog=catalog)


def _tail(log: str, lines: int = LOG_TAIL) -> str:
    kept = log.rstrip("\n").splitlines()
    if len(kept) <= lines:
        return "\n".join(kept)
    return "\n".join([f"[... {len(kept) - lines} earlier lines]", *kept[-lines:]])


def _print_log(log: str) -> None:
    if log.strip():
        print("build log (end):", file=sys.stderr)
        for line in _tail(log).splitlines():
            print(f"  {shown(line)}", file=sys.stderr)


# --------------------------------------------------------------------------- new


def cmd_new(args: argparse.Namespace) -> int:
    from arena.proving import Lang, new_project

    case = _case(args)
    directory = Path(args.dir)
    project = new_project(directory, case, lang=Lang(args.lang))
    label = project.lang.label
    article = "an" if label[0] in "AEIOU" else "a"
    print(
        f"{shown(directory)}: {article} {label} controller project for case {project.case}: "
        + ", ".join(shown(f) for f in project.files)
    )
    print(f"next: arena build {shown(directory)}  (then: arena prove {shown(directory)})")
    return 0


# --------------------------------------------------------------------------- build


def _build_line(build: Build) -> str:
    where = shown(build.directory if build.directory is not None else build.module)
    if build.ok:
        return (
            f"{where}: built {shown(build.module.name)} in {build.seconds:.1f} s: admissible"
            f" (sha256 {build.sha256})"
        )
    return f"{where}: build {build.status}: {shown(build.reason)}"


def cmd_build(args: argparse.Namespace) -> int:
    from arena.proving import build_submission

    build = build_submission(Path(args.dir), _case(args), timeout=args.timeout)
    if args.json:
        emit_json(build.to_json())
    else:
        if not build.ok:
            _print_log(build.log)
        print(_build_line(build))
    return 0 if build.ok else 1


# --------------------------------------------------------------------------- prove and runs


def _print_report(report: RunReport) -> None:
    """A run for people: its outcome, a table of its matches, and where their replays are."""
    from rich.table import Table
    from rich.text import Text

    from arena.store import ReplayStatus

    run = report.run
    sha = f" (sha256 {run.controller_sha256})" if run.controller_sha256 else ""
    # One module, one stored name: where the run named it otherwise, both are shown.
    also = f" (stored as {shown(report.stored_as)})" if report.stored_as else ""
    print(
        f"run {run.id}: {shown(run.case_slug)} v{run.case_version}, "
        f"controller {shown(run.controller)}{also}{sha}: {run.outcome}"
    )
    if run.reason:
        print(f"  reason: {shown(run.reason)}")
    if not report.matches:
        _print_log(report.build_log)
        return
    # Both sides' banked and fuel, each labelled: the run's controller's ("yours"), then
    # the opponent's, whatever side each played.
    table = Table(box=None, pad_edge=False)
    for column in REPORT_COLUMNS:
        left = column in ("opponent", "role", "side", "outcome", "forfeit", "replay")
        table.add_column(column, justify="left" if left else "right")
    for m in report.matches:
        result = m.record.result
        if result is None:
            row = [m.opponent, str(m.role), "AB"[m.side], str(m.record.seed), "not played"]
            row += [""] * (len(REPORT_COLUMNS) - len(row))
        else:
            mine, theirs = result.sides[m.side], result.sides[1 - m.side]
            forfeits = [
                f"{who}: {s.forfeit.kind} at tick {s.forfeit.tick}"
                for who, s in (("yours", mine), ("opponent", theirs))
                if s.forfeit is not None
            ]
            row = [
                m.opponent,
                str(m.role) + ("" if m.role.scored else " (unscored)"),
                "AB"[m.side],
                str(m.record.seed),
                str(m.outcome),
                f"{mine.banked}",
                f"{theirs.banked}",
                f"{mine.fuel_total:,}",
                f"{theirs.fuel_total:,}",
                ", ".join(forfeits) or "-",
                str(m.replay_status or "-"),
            ]
        table.add_row(*(Text(shown(cell)) for cell in row))
    stdout_console().print(table)
    print("replays:")
    for m in report.matches:
        if m.replay is not None:
            status = "" if m.replay_status is ReplayStatus.OK else f" ({m.replay_status})"
            print(f"  {shown(m.opponent)} (seed {m.record.seed}): {shown(m.replay)}{status}")


def cmd_prove(args: argparse.Namespace) -> int:
    from arena.proving import prove
    from arena.store import RunOutcome, Store

    case = _case(args)
    with Store.open() as store:
        proof = prove(
            Path(args.source),
            case,
            store=store,
            again=args.again,
            jobs=args.jobs,
            timeout=args.timeout,
            name=args.name,
        )
    if args.json:
        emit_json(proof.to_json())
    else:
        if proof.found:
            print(
                f"found run {proof.run.id}: this module was proved on {case.label} before"
                " (--again plays it again)"
            )
        _print_report(proof.report)
    return 1 if proof.run.outcome is RunOutcome.COULD_NOT_COMPETE else 0


def cmd_runs(args: argparse.Namespace) -> int:
    from rich.table import Table
    from rich.text import Text

    from arena.proving import run_json, stored_as_of
    from arena.store import Store

    with Store.open() as store:
        runs = store.runs(limit=args.limit, case_slug=args.case)
        stored_as = stored_as_of(store, runs)
    if args.json:
        emit_json({"runs": [run_json(r, stored_as.get(r.id)) for r in runs]})
        return 0
    if not runs:
        print("no runs yet: arena prove DIR records one")
        return 0
    table = Table(box=None, pad_edge=False)
    for column in ("run", "case", "controller", "outcome", "matches", "created (UTC)"):
        table.add_column(column, justify="right" if column in ("run", "matches") else "left")
    for r in runs:
        row = [
            str(r.id),
            f"{r.case_slug} v{r.case_version}",
            r.controller + (f" (stored as {stored_as[r.id]})" if r.id in stored_as else ""),
            str(r.outcome),
            str(r.matches),
            r.created_at.strftime("%Y-%m-%d %H:%M"),
        ]
        table.add_row(*(Text(shown(cell)) for cell in row))
    stdout_console().print(table)
    return 0


def cmd_runs_show(args: argparse.Namespace) -> int:
    from arena.proving import run_report
    from arena.store import Store

    with Store.open() as store:
        report = run_report(store, args.id)
    if args.json:
        emit_json(report.to_json())
    else:
        _print_report(report)
    return 0


# --------------------------------------------------------------------------- the parsers


def _case_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--case", default="foray", help="SLUG or SLUG/VERSION (default: foray, newest published)"
    )
    p.add_argument("--catalog", help="a catalog directory (default: the repository's cases/)")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    n = sub.add_parser("new", help="lay out a controller project from a case's workspace")
    n.add_argument("dir", help="a new or empty directory")
    n.add_argument(
        "--lang",
        choices=("c", "zig", "assemblyscript"),
        default="c",
        help="the language (default: c)",
    )
    _case_options(n)
    n.set_defaults(func=cmd_new)

    b = sub.add_parser("build", help="build a submission as a proof run does, and gate it")
    b.add_argument("dir", help="the submission's directory")
    b.add_argument("--timeout", type=seconds, help="seconds (at most the case's limit)")
    b.add_argument("--json", action="store_true")
    _case_options(b)
    b.set_defaults(func=cmd_build)

    p = sub.add_parser("prove", help="play a submission against every opponent of a case")
    p.add_argument("source", help="a submission directory (built first) or a .wasm module")
    p.add_argument("--again", action="store_true", help="play it again even if proved before")
    p.add_argument(
        "--jobs",
        type=positive,
        help="matches played at once (default: the cores), each on two workers taking turns",
    )
    p.add_argument(
        "--timeout",
        type=seconds,
        help="seconds for the whole run, build and matches (at most the case's limit)",
    )
    p.add_argument("--name", help="the controller's name (default: the directory or file's)")
    p.add_argument("--json", action="store_true")
    _case_options(p)
    p.set_defaults(func=cmd_prove)

    r = sub.add_parser("runs", help="list proof runs (runs show ID: one run)")
    r.add_argument("--case", help="only the runs of this case slug")
    r.add_argument("--limit", type=positive, default=50, help="most recent first (max 500)")
    r.add_argument("--json", action="store_true")
    r.set_defaults(func=cmd_runs)
    shows = r.add_subparsers(dest="runs_command")
    s = shows.add_parser("show", help="one run: outcome, results, replays")
    s.add_argument("id", type=positive, help="the run's id (arena runs lists them)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_runs_show)
