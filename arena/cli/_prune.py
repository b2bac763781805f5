"""``arena prune``: delete quick matches past a date or a count, and the replay files no row uses.

A thin layer over ``Store.prune_matches``: the bounds parsed, the listing and
the bytes printed. Tournaments' and runs' matches are never deleted.
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from arena.cli._common import count, emit_json, shown, stdout_console

if TYPE_CHECKING:
    from arena.store import Pruned

__all__ = ["register"]


def moment(text: str) -> datetime:
    """An argparse type: an ISO 8601 date or date and time; one without a zone is UTC."""
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a date (2025-01-31, or 2025-01-31T12:00, or with +02:00)"
        ) from None
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def _megabytes(n: int) -> str:
    return f"{n / 1e6:,.1f} MB" if n >= 100_000 else f"{n:,} bytes"


def _print(pruned: Pruned, bounds: str) -> None:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    if pruned.dry_run and pruned.matches:
        table = Table(title="would delete", title_justify="left", box=box.SIMPLE_HEAD)
        for head in ("match", "created (UTC)", "seed", "A", "B", "status"):
            table.add_column(head, justify="right" if head in ("match", "seed") else "left")
        for m in pruned.matches:
            a, b = (e.name for e in m.entrants)
            when = m.created_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")
            row = (str(m.id), when, str(m.seed), a, b, str(m.status))
            table.add_row(*(Text(shown(cell)) for cell in row))
        stdout_console().print(table)
    verb = "would delete" if pruned.dry_run else "deleted"
    matches = _many(len(pruned.matches), "quick match", "quick matches")
    files = _many(len(pruned.replays), "replay file", "replay files")
    print(
        f"{verb} {matches} ({bounds}) and {files} no match uses: "
        f"{_megabytes(pruned.replay_bytes)}"
        + (" (a dry run: nothing was deleted)" if pruned.dry_run else " freed")
    )
    if pruned.held:
        modules = _many(len(pruned.held), "module", "modules")
        named = ", ".join(f"{shown(m.name)} from {shown(m.worker)}" for m in pruned.held)
        print(f"{verb} {modules} held from workers that nothing uses any more: {named}")


def _many(n: int, one: str, more: str) -> str:
    return f"{n:,} {one if n == 1 else more}"


def cmd_prune(args: argparse.Namespace) -> int:
    from arena._errors import ArenaError
    from arena.store import Store

    if args.before is None and args.keep is None:
        raise ArenaError(
            "give --before DATE, --keep N or both: a quick match goes when it is past "
            "every bound given (--dry-run lists what would go)"
        )
    bounds = []
    if args.before is not None:
        bounds.append(f"created before {args.before.isoformat()}")
    if args.keep is not None:
        bounds.append(f"beyond the newest {args.keep:,}")
    with Store.open() as store:
        pruned = store.prune_matches(before=args.before, keep=args.keep, dry_run=args.dry_run)
    if args.json:
        emit_json(pruned.to_json())
    else:
        _print(pruned, ", ".join(bounds))
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "prune",
        help="delete quick matches past a date or a count, and unused replay files",
        description=(
            "Delete the matches that belong to no tournament and no run (quick matches, "
            "settled), created before DATE and beyond the newest N (past every bound "
            "given), then every replay file no match uses any more."
        ),
    )
    p.add_argument(
        "--before", type=moment, metavar="DATE", help="created before (UTC unless a zone is given)"
    )
    p.add_argument("--keep", type=count, metavar="N", help="keep the newest N quick matches")
    p.add_argument("--dry-run", action="store_true", help="delete nothing: list what would go")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_prune)
