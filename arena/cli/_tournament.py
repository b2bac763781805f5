"""``arena tournament``, ``arena tournaments`` and ``arena standings``.

A tournament is stored before its first match and recorded match by match
(arena/coordinator), so Ctrl-C or a kill leaves it ``running`` in the store
and ``arena tournament --resume ID`` plays only what is missing; with
``--no-record`` nothing is stored (and nothing can be resumed). A gauntlet's
summary is its entrant's: its record against each opponent on each side, and
its losses, worst seeds first, each with the command that shows it.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from arena.cli._common import emit_json, positive, shown, stdout_console, u32
from arena.cli._standings import (
    duration,
    print_gauntlet,
    print_ranking,
    print_standings,
    progress_bar,
    standings_title,
    text_cell,
)

if TYPE_CHECKING:
    from rich.console import Console

    from arena.coordinator import UnrecordedTournament
    from arena.executors import Executor
    from arena.store import TournamentRecord
    from arena.tournament import GauntletLoss

__all__ = ["register"]

_RAY_ADDRESS = "FORAY_RAY_ADDRESS"
"""``arena.executors.RAY_ADDRESS_ENV``, named here so that reading it imports nothing."""


def _seeds(seeds: tuple[int, ...]) -> str:
    if seeds == tuple(range(len(seeds))):
        return f"--seeds {len(seeds)}"
    return f"seeds {', '.join(map(str, seeds))}"  # created through the API


def _resume_mismatches(args: argparse.Namespace, record: TournamentRecord) -> list[str]:
    """What ``args`` gives that tournament ``record`` was not created with (empty: it may go on).

    A user may repeat the command that created it; only a value that differs is refused.
    """
    from arena.coordinator import tournament_rules
    from arena.match import load_contestant

    differ = []
    if args.format is not None and args.format != record.format:  # stored as typed
        differ.append(f"--format {shown(args.format)} (created as {record.format})")
    if args.seeds is not None and tuple(range(args.seeds)) != record.seeds:
        differ.append(f"--seeds {args.seeds} (created with {_seeds(record.seeds)})")
    for flag, value, key in (
        ("--rounds", args.rounds, "rounds"),
        ("--shuffle", args.shuffle, "shuffle"),
    ):
        stored = record.options.get(key)
        if value is not None and value != stored:
            was = "none" if stored is None else str(stored)
            differ.append(f"{flag} {value} (created with {was})")
    if args.max_ticks is not None:
        stored_ticks = tournament_rules(record)[1].max_ticks
        if args.max_ticks != stored_ticks:
            differ.append(f"--max-ticks {args.max_ticks} (created with {stored_ticks})")
    if args.entrants:
        field = [(e.name, e.sha256) for e in record.field]
        given_field = [(c.name, c.sha256) for c in map(load_contestant, args.entrants)]
        names = [name for name, _ in given_field]
        stored_names = [e.name for e in record.field]
        if names != stored_names:
            differ.append(
                f"the entrants {shown(', '.join(names))} "
                f"(created with {shown(', '.join(stored_names))}, in that order)"
            )
        elif given_field != field:
            other = [
                name for (name, sha), (_, was) in zip(given_field, field, strict=True) if sha != was
            ]
            differ.append(
                f"the module of {shown(', '.join(other))} (not the one the tournament holds "
                "under that name)"
            )
    return differ


def cmd_tournament(args: argparse.Namespace) -> int:
    if args.executor == "local" or (args.executor is None and not os.environ.get(_RAY_ADDRESS)):
        # Local workers are forked from a server that imports the match code: started
        # first, it does that while this command imports the rest and opens its store.
        # Each worker runs the ``arena`` script again, which imports the command line.
        from arena.executors import start_worker_server

        start_worker_server("arena.cli._main")
    from arena._errors import ArenaError
    from arena.cases import default_case
    from arena.coordinator import (
        add_contestant,
        create_tournament,
        make_executor,
        run_tournament_sync,
        tournament_losses,
    )
    from arena.executors import WorkersUnavailableError
    from arena.store import Store

    executor = make_executor(args.executor, args.jobs)
    if args.resume is None and args.format is None:
        # The case's [match] structure: how it runs a field of submissions.
        args.format = str(default_case().match.structure)
    console = stdout_console()
    if args.no_record:
        if args.publish:
            raise ArenaError(
                "--no-record stores nothing, so there is nothing to publish: leave out one"
            )
        if args.resume is not None:
            raise ArenaError(
                "--no-record stores nothing, so a tournament played with it cannot be resumed; "
                "--resume plays a stored one: leave out --no-record"
            )
        return _unrecorded(args, executor, console)
    with Store.open() as store:
        if args.resume is not None:
            record = store.tournament(args.resume)
            differ = _resume_mismatches(args, record)
            if differ:
                raise ArenaError(
                    f"--resume plays tournament {record.id} as it was created, and these "
                    f"differ: {'; '.join(differ)}; give them as they were, or leave them out"
                )
            tournament_id = record.id
        else:
            config = None
            if args.max_ticks is not None:
                config = default_case().rules.replace(max_ticks=args.max_ticks)
            field = [add_contestant(store, spec)[1] for spec in args.entrants]
            record = create_tournament(
                store,
                args.format,
                field,
                seeds=range(args.seeds or 1),
                rounds=args.rounds,
                shuffle=args.shuffle,
                config=config,
            )
            tournament_id = record.id
        if args.publish:
            # Before it plays: a site over this store shows it live.
            store.publish_tournament(tournament_id)
        try:
            with progress_bar(console, not args.json and console.is_terminal) as on_progress:
                run = run_tournament_sync(store, tournament_id, executor, on_progress=on_progress)
        except WorkersUnavailableError as exc:
            raise ArenaError(
                f"{exc}; tournament {tournament_id} stays running in the store "
                f"({store.root}), nothing recorded for the matches in flight: once workers "
                f"can start, play what is missing with: arena tournament --resume {tournament_id}"
            ) from exc
        except KeyboardInterrupt:
            print(
                f"interrupted: tournament {tournament_id} stays running in the store "
                f"({shown(store.root)}); play what is missing with: "
                f"arena tournament --resume {tournament_id}",
                file=sys.stderr,
            )
            return 130
        losses = tournament_losses(store, run.record)
    if args.json:
        emit_json(_with_losses(run.to_json(), losses))
    else:
        print_standings(console, run.record, run.standings, losses)
    return 0


def _with_losses(data: dict[str, Any], losses: Sequence[GauntletLoss]) -> dict[str, Any]:
    """A gauntlet's JSON gains ``"losses"``: its entrant's, worst seeds first."""
    if data["format"] == "gauntlet":
        data["losses"] = [loss.to_json() for loss in losses]
    return data


def _unrecorded(args: argparse.Namespace, executor: Executor, console: Console) -> int:
    """``arena tournament --no-record``: played on the executor, printed, and stored nowhere."""
    from arena.cases import default_case
    from arena.coordinator import play_unrecorded
    from arena.match import load_contestant
    from arena.tournament import Format, TournamentPlan, gauntlet_losses

    case = default_case()
    config = case.rules
    if args.max_ticks is not None:
        config = config.replace(max_ticks=args.max_ticks)
    contestants = [load_contestant(spec) for spec in args.entrants]
    plan = TournamentPlan(
        args.format,
        tuple(c.name for c in contestants),
        tuple(range(args.seeds or 1)),
        rounds=args.rounds,
        shuffle=args.shuffle,
    )
    try:
        with progress_bar(console, not args.json and console.is_terminal) as on_progress:
            done = play_unrecorded(
                plan, contestants, executor, case=case, config=config, on_progress=on_progress
            )
    except KeyboardInterrupt:
        print(
            "interrupted: nothing was stored (--no-record), so nothing can be resumed",
            file=sys.stderr,
        )
        return 130
    losses: list[GauntletLoss] = []
    if plan.format is Format.GAUNTLET:
        losses = gauntlet_losses(plan, ((p, None, None) for p in done.played))
    if args.json:
        emit_json(_with_losses(_unrecorded_json(done), losses))
        return 0
    standings = done.standings
    title = standings_title("(not recorded)", plan.seeds, "finished", standings)
    if not standings.gauntlet:
        print_ranking(console, title, standings)
        return 0
    specs = {c.name: spec for c, spec in zip(contestants, args.entrants, strict=True)}
    ticks = [] if args.max_ticks is None else ["--max-ticks", str(args.max_ticks)]

    def again(loss: GauntletLoss) -> str:
        sides = [plan.order[0], loss.opponent]
        a, b = sides if loss.side == 0 else sides[::-1]
        words = [specs[a], specs[b], "--seed", str(loss.seed), *ticks, "--no-record"]
        replay = f"seed{loss.seed}-{'AB'[loss.side]}.replay"
        return shlex.join(["arena", "match", *words, "--replay", replay])

    print_gauntlet(console, title, standings, losses, again)
    return 0


def _unrecorded_json(done: UnrecordedTournament) -> dict[str, Any]:
    """The JSON of ``arena tournament --json`` for a tournament stored nowhere: ``"id"`` null."""
    from arena.coordinator import standings_json

    ref = done.case.ref
    return {
        "id": None,
        **standings_json(done.standings),
        "status": "finished",
        "seeds": list(done.plan.seeds),
        "case": {"slug": ref.slug, "version": ref.version},
    }


def _when(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def _listing(record: TournamentRecord) -> dict[str, Any]:
    from arena._errors import ArenaError
    from arena.coordinator import tournament_plan, tournament_timing

    try:
        planned: int | None = tournament_plan(record).matches
    except ArenaError:  # a record another arena wrote
        planned = None
    stored = record.standings
    rows = stored.get("standings") if isinstance(stored, dict) else None
    excluded = {x.name for x in record.excluded}  # the stored rows are the whole field's
    return {
        "id": record.id,
        "format": record.format,
        "status": str(record.status),
        "field": [e.name for e in record.field],
        "seeds": list(record.seeds),
        "matches": record.matches,
        "planned": planned,
        "leader": next((r["name"] for r in rows or () if r["name"] not in excluded), None),
        "error": record.error,
        "created_at": _when(record.created_at),
        "finished_at": _when(record.finished_at),
        **tournament_timing(record).to_json(),
    }


def cmd_tournaments(args: argparse.Namespace) -> int:
    from rich.table import Table

    from arena.store import Store

    with Store.open() as store:
        listing = [_listing(t) for t in store.tournaments(limit=args.limit)]
    if args.json:
        emit_json({"tournaments": listing})
        return 0
    if not listing:
        print("no tournaments stored (arena tournament --format ... A B C plays one)")
        return 0
    from rich import box

    # A case version's field (the site's) never finishes: it is open to the next entrant,
    # its rate means nothing between arrivals, and its standings are arena field's.
    field = {t["id"] for t in listing if t["format"] == "field" and t["status"] == "running"}
    rows = [
        (
            str(t["id"]),
            shown(t["format"]),
            "open" if t["id"] in field else t["status"],
            f"{t['matches']}/{'?' if t['planned'] is None else t['planned']}",
            t["created_at"][5:16].replace("T", " "),
            duration(t["seconds"]),
            ""
            if t["matches_per_second"] is None or t["id"] in field
            else f"{t['matches_per_second']:,.1f}/s",
            "(arena field)" if t["id"] in field else shown(t["leader"] or ""),
            shown(f"{len(t['field'])}: {', '.join(t['field'])}"),
        )
        for t in listing
    ]
    console = stdout_console()
    heads = ("id", "format", "status", "matches", "started", "took", "rate", "leader")
    widths = [max(len(head), *(len(r[i]) for r in rows)) for i, head in enumerate(heads)]
    # Two columns of padding each; the field's names take what is left, and go below a
    # narrow terminal's table rather than be cut to nothing.
    left = console.width - sum(widths) - 2 * (len(heads) + 1)
    with_field = left >= 24
    table = Table(
        title="tournaments, newest first: started (UTC), took (to its finish, or so far), "
        "matches a second",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        padding=(0, 1),
        collapse_padding=True,
    )
    for head, width in zip(heads, widths, strict=True):
        if head == "leader":
            table.add_column(head, no_wrap=True, overflow="ellipsis", min_width=len(head))
        else:
            right = head in ("id", "matches", "took", "rate")
            table.add_column(head, justify="right" if right else "left", min_width=width)
    if with_field:
        table.add_column("entrants", no_wrap=True, overflow="ellipsis", min_width=len("entrants"))
    for r in rows:
        table.add_row(*map(text_cell, r if with_field else r[:-1]))
    console.print(table)
    if not with_field:
        console.print(
            text_cell("the entrants: arena standings ID, or a wider terminal (COLUMNS=120)")
        )
    return 0


def cmd_standings(args: argparse.Namespace) -> int:
    from arena.coordinator import tournament_json, tournament_losses, tournament_standings
    from arena.store import Store

    with Store.open() as store:
        record, standings = tournament_standings(store, args.id)
        losses = tournament_losses(store, record)
    if args.csv:
        from arena.coordinator import pending_matches, standings_csv, tournament_plan

        pending = pending_matches(tournament_plan(record), standings)
        sys.stdout.write(standings_csv(standings, pending))
        return 0
    if args.json:
        emit_json(_with_losses(tournament_json(record, standings), losses))
    else:
        print_standings(stdout_console(), record, standings, losses, matrix=args.matrix)
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    t = sub.add_parser(
        "tournament",
        help="play a tournament over a field, recorded in the store",
        description="Play a tournament; every match is recorded in the store as it completes. "
        "A stored tournament's desk: arena tournament matches ID (--csv, --json: every match), "
        "arena tournament verify ID (--modules: every replay checked again), arena tournament "
        "rerun ID (--exclude NAME: played again as a new tournament); a module file named like "
        "one of these words is given as ./NAME.",
    )
    t.add_argument("entrants", nargs="*", metavar="A", help=".wasm paths or baseline names")
    t.add_argument(
        "--format",
        help="round-robin, bracket, swiss or gauntlet (default: the case's [match] structure)",
    )
    t.add_argument("--seeds", type=positive, help="seeds per meeting: 0..N-1 (default 1)")
    t.add_argument("--rounds", type=positive, help="swiss rounds (default ceil(log2 field))")
    t.add_argument("--shuffle", type=u32, metavar="SEED", help="bracket: draw the seeding")
    t.add_argument("--max-ticks", type=positive, help="shorter matches than the case's")
    t.add_argument(
        "--jobs",
        type=positive,
        help="matches played at once (default: the cores), each on two workers taking turns",
    )
    t.add_argument(
        "--executor",
        choices=("local", "ray"),
        help="where matches run (default: ray if $FORAY_RAY_ADDRESS is set, else local)",
    )
    t.add_argument("--resume", type=positive, metavar="ID", help="play what ID is missing")
    t.add_argument(
        "--no-record",
        action="store_true",
        help="play and print, store nothing (no matches, no replays; cannot be resumed)",
    )
    t.add_argument(
        "--publish",
        action="store_true",
        help="publish it: a site over this data directory shows it without a token",
    )
    t.add_argument("--json", action="store_true")
    t.set_defaults(func=cmd_tournament)

    ls = sub.add_parser("tournaments", help="list the stored tournaments")
    ls.add_argument("--limit", type=positive, default=50, help="at most this many (newest first)")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(func=cmd_tournaments)

    st = sub.add_parser(
        "standings",
        help="the standings of a stored tournament",
        description="The ranking (played, and pending while it runs, beside the wins) and "
        "the per-pair win matrix, its entrants numbered as the rows list them. On a terminal "
        "too narrow for the matrix a line says so: --matrix draws it at its full width.",
    )
    st.add_argument("id", type=positive)
    st.add_argument(
        "--matrix",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="the per-pair win matrix: drawn below the ranking when it fits the terminal; "
        "--matrix draws it at the width it needs (for a pager: arena standings ID --matrix "
        "| less -S, or COLUMNS=200), --no-matrix leaves it out",
    )
    out = st.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true")
    out.add_argument(
        "--csv",
        action="store_true",
        help="the ranking as CSV (a row per entrant: played, pending, wins, ..., rating)",
    )
    st.set_defaults(func=cmd_standings)
