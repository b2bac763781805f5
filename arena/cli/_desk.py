"""``arena tournament matches|verify|rerun|exclude|include ID``: the operator's desk over a
stored tournament.

``arena tournament`` itself plays a field given as its words, so these
commands get a parser of their own (``build_parser``), which ``arena.cli``
picks when the word after ``tournament`` is one of ``COMMANDS`` (a module file
of that name is given as ``./NAME``). Every import beyond argparse is made in
the command that needs it: ``arena match`` loads none of this.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Final

from arena.cli._common import emit_json, positive, shown, stdout_console

if TYPE_CHECKING:
    from rich.console import Console

    from arena.coordinator import MatchRow
    from arena.store import MatchRecord

__all__ = ["COMMANDS", "build_parser"]

COMMANDS: Final = ("matches", "verify", "rerun", "exclude", "include")
"""The words after ``arena tournament`` that name a desk command, not an entrant."""


def cmd_matches(args: argparse.Namespace) -> int:
    from arena.coordinator import match_rows, matches_csv
    from arena.store import Store

    with Store.open() as store:
        record = store.tournament(args.id)

        def path(m: MatchRecord) -> str:
            assert m.result is not None
            return str(store.replay_path(m.result.replay_sha256))

        rows = list(match_rows(store, record, path))
    if args.csv:
        sys.stdout.write(matches_csv(rows))
    elif args.json:
        emit_json({"tournament": record.id, "matches": [r.to_json() for r in rows]})
    else:
        _print_matches(record.id, rows)
    return 0


def _print_matches(tournament: int, rows: list[MatchRow]) -> None:
    from rich import box
    from rich.table import Table

    from arena.cli._standings import text_cell

    table = Table(
        title=f"tournament {tournament}: {len(rows)} matches recorded, in the order they were "
        "(--csv or --json: every column, the replay's path and sha256 included)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    for head in ("id", "round", "seed", "A", "B", "winner", "reason", "ticks", "banked"):
        right = head in ("id", "round", "seed", "ticks", "banked")
        table.add_column(head, justify="right" if right else "left")
    for r in rows:
        winner = r.winner or ("draw" if r.error is None else f"error: {r.error}")
        banked = "" if r.banked_a is None else f"{r.banked_a}-{r.banked_b}"
        cells = (r.id, r.round, r.seed, r.a, r.b, winner, r.reason or "", r.ticks or "", banked)
        table.add_row(*(text_cell("" if c is None else c) for c in cells))
    stdout_console().print(table)


def cmd_verify(args: argparse.Namespace) -> int:
    from arena.coordinator import pairing_of, verify_match
    from arena.store import Store

    console = stdout_console(stderr=True)
    failures: list[tuple[MatchRecord, str]] = []
    checked = 0
    with Store.open() as store:
        record = store.tournament(args.id)
        matches = [m for m in store.iter_tournament_matches(record.id) if m.result is not None]
        with _bar(console, len(matches), args.json) as advance:
            for m in matches:
                problem = verify_match(store, m, modules=args.modules)
                checked += 1
                if problem is not None:
                    failures.append((m, problem))
                advance(len(failures))
    how = "played again from the stored modules" if args.modules else "re-simulated"
    if args.json:
        emit_json(
            {
                "tournament": record.id,
                "checked": checked,
                "modules": args.modules,
                "ok": not failures,
                "failures": [
                    {
                        "match": m.id,
                        "seed": m.seed,
                        "sides": [e.name for e in m.entrants],
                        "detail": problem,
                    }
                    for m, problem in failures
                ],
            }
        )
        return 1 if failures else 0
    for m, problem in failures:
        a, b = m.entrants
        round_ = pairing_of(m).round
        print(
            f"match {m.id} (schedule round {round_}, seed {m.seed}, {shown(a.name)} vs "
            f"{shown(b.name)}): FAILED: {shown(problem)}",
            file=sys.stderr,
        )
    if failures:
        print(
            f"tournament {record.id}: {len(failures)} of {checked} replays FAILED ({how})",
            file=sys.stderr,
        )
        return 1
    print(f"tournament {record.id}: ok, {checked} replays {how}, byte for byte")
    return 0


@contextmanager
def _bar(console: Console, total: int, quiet: bool) -> Iterator[Callable[[int], None]]:
    """A progress bar over ``total`` replays on a terminal (nothing elsewhere, or with JSON):
    done of total, the time left and the failures so far; the callback takes the failures."""
    if quiet or not console.is_terminal:
        yield lambda failed: None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    columns = (
        TextColumn("verifying"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        TextColumn("{task.fields[failed]} failed", markup=False),
    )
    with Progress(*columns, console=console) as progress:
        task = progress.add_task("", total=total, failed=0)
        yield lambda failed: progress.update(task, advance=1, failed=failed)


def cmd_rerun(args: argparse.Namespace) -> int:
    from arena.cli._standings import print_standings, progress_bar
    from arena.coordinator import (
        make_executor,
        rerun_tournament,
        run_tournament_sync,
        tournament_json,
        tournament_losses,
    )
    from arena.store import Store

    executor = make_executor(args.executor, args.jobs)
    console = stdout_console()
    with Store.open() as store:
        first = store.tournament(args.id)
        record = rerun_tournament(store, first, args.exclude or ())
        try:
            with progress_bar(console, not args.json and console.is_terminal) as on_progress:
                run = run_tournament_sync(store, record.id, executor, on_progress=on_progress)
        except KeyboardInterrupt:
            print(
                f"interrupted: tournament {record.id} (the rerun of {first.id}) stays running "
                f"in the store; play what is missing with: arena tournament --resume {record.id}",
                file=sys.stderr,
            )
            return 130
        losses = tournament_losses(store, run.record)
    if args.json:
        data = tournament_json(run.record, run.standings)
        if losses:
            data["losses"] = [loss.to_json() for loss in losses]
        emit_json({**data, "rerun_of": first.id})
        return 0
    console.print(f"tournament {record.id}: a rerun of tournament {first.id}")
    print_standings(console, run.record, run.standings, losses)
    return 0


def cmd_exclude(args: argparse.Namespace) -> int:
    from arena.cli._standings import print_standings
    from arena.coordinator import exclude_entrant, tournament_standings
    from arena.store import Store

    with Store.open() as store:
        if args.undo:
            store.include_entrant(args.id, args.name)
        else:
            if args.reason is None:
                from arena._errors import ArenaError

                raise ArenaError("give the reason for the exclusion: --reason TEXT")
            exclude_entrant(store, args.id, args.name, args.reason)
        record, standings = tournament_standings(store, args.id)
    done = "counts again in" if args.undo else "is excluded from"
    print(f"{shown(args.name)} {done} tournament {record.id}; its standings, recomputed:")
    print_standings(stdout_console(), record, standings)
    return 0


def cmd_include(args: argparse.Namespace) -> int:
    args.undo = True
    return cmd_exclude(args)


def build_parser(parser_class: type[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """The parser of ``arena tournament matches|verify|rerun`` (``parser_class``: the command
    line's own, for its help's width)."""
    p = parser_class(
        prog="arena tournament",
        description="The operator's desk over a stored tournament (arena tournaments lists "
        "them); arena tournament --help plays one.",
    )
    sub = p.add_subparsers(dest="desk_command", required=True)
    m = sub.add_parser(
        "matches",
        help="every recorded match of a tournament: a table, or --csv / --json to export",
        description="Every recorded match: id, round, meeting, seed, sides, winner, reason, "
        "ticks, banked, fuel, forfeits, the replay's path and sha256, and each side's sha256.",
    )
    m.add_argument("id", type=positive)
    fmt = m.add_mutually_exclusive_group()
    fmt.add_argument("--csv", action="store_true", help="CSV on stdout, a header line first")
    fmt.add_argument("--json", action="store_true")
    m.set_defaults(func=cmd_matches)

    v = sub.add_parser(
        "verify",
        help="check every stored replay of a tournament again (exit 1 if any fails)",
        description="Re-simulate every stored replay of a tournament and check it against "
        "its sha256 and its recorded result; with --modules, play every match again from "
        "the stored modules and require the same bytes. Each failure is named by its match.",
    )
    v.add_argument("id", type=positive)
    v.add_argument(
        "--modules",
        action="store_true",
        help="also play each match again from the stored modules (slower: a match each)",
    )
    v.add_argument("--json", action="store_true")
    v.set_defaults(func=cmd_verify)

    r = sub.add_parser(
        "rerun",
        help="play a tournament again as a new one: same format, field, seeds, case and rules",
        description="Record and play a new tournament as tournament ID was created (its "
        "format, field in its order, seeds, rounds, shuffle, case and rules); with nothing "
        "changed its standings are the first's.",
    )
    r.add_argument("id", type=positive)
    r.add_argument(
        "--exclude",
        action="append",
        metavar="NAME",
        help="leave this entrant out of the new field (repeat for more)",
    )
    r.add_argument(
        "--jobs",
        type=positive,
        help="matches played at once (default: the cores), each on two workers taking turns",
    )
    r.add_argument(
        "--executor",
        choices=("local", "ray"),
        help="where matches run (default: ray if $FORAY_RAY_ADDRESS is set, else local)",
    )
    r.add_argument("--json", action="store_true")
    r.set_defaults(func=cmd_rerun)

    x = sub.add_parser(
        "exclude",
        help="leave an entrant out of a finished tournament's standings (recomputed, recorded)",
        description="Leave an entrant out of a finished round-robin's, swiss's or gauntlet's "
        "standings: they are recomputed from the stored matches without its own (nothing is "
        "played again); the exclusion and its reason are recorded and shown with the "
        "standings. --undo (or arena tournament include ID NAME) counts it again. A bracket "
        "cannot be recomputed: arena tournament rerun ID --exclude NAME plays it again.",
    )
    x.add_argument("id", type=positive)
    x.add_argument("name", help="the entrant's name in the tournament")
    x.add_argument("--reason", metavar="TEXT", help="why (required, recorded)")
    x.add_argument("--undo", action="store_true", help="count it again")
    x.set_defaults(func=cmd_exclude)
    inc = sub.add_parser(
        "include", help="count an excluded entrant again (arena tournament exclude --undo)"
    )
    inc.add_argument("id", type=positive)
    inc.add_argument("name")
    inc.set_defaults(func=cmd_include)
    return p
