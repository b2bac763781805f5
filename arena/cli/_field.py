"""``arena field``: the standings of the field of a case version (issue 26), from the local data
directory; ``arena field withdraw NAME --reason TEXT`` (``--undo``) withdraws an entrant.

The field is a server's: ``arena serve`` makes it and plays it as pushed runs arrive
(docs/tournaments.md, "The field"); this command reads and withdraws over the same store.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from arena._errors import ArenaError
from arena.cli._common import emit_json, shown, stdout_console

if TYPE_CHECKING:
    from rich.console import Console

    from arena.store import Store

__all__ = ["cmd_field", "print_field", "register"]


def _case_of(store: Store, text: str | None) -> tuple[str, int]:
    """``--case slug/version``; without it, the only field of the store, else the default
    case's."""
    if text is not None:
        slug, _, version = text.partition("/")
        if not slug or not version.isdigit():
            raise ArenaError(f"--case {shown(text)!r}: give slug/version, such as foray/1")
        return slug, int(version)
    fields = store.fields()
    if len(fields) == 1:
        return fields[0].case_slug, fields[0].case_version
    from arena.cases import default_case

    ref = default_case().ref
    return ref.slug, int(ref.version)


def cmd_field(args: argparse.Namespace) -> int:
    from arena.coordinator import field_json, find_field
    from arena.store import Store

    words: list[str] = args.words
    if words and (words[0] != "withdraw" or len(words) != 2):
        raise ArenaError(
            "arena field takes no word but withdraw NAME (arena field withdraw NAME "
            "--reason TEXT, or --undo)"
        )
    with Store.open() as store:
        slug, version = _case_of(store, args.case)
        tid = find_field(store, slug, version).id
        if words:
            name = words[1]
            if args.undo:
                store.reinstate_entrant(tid, name)
                done = f"{shown(name)} is back in the field of {slug}/{version}"
            else:
                if args.reason is None:
                    raise ArenaError("give the reason for the withdrawal (--reason TEXT)")
                store.withdraw_entrant(tid, name, args.reason)
                done = f"{shown(name)} is withdrawn from the field of {slug}/{version}"
        elif args.undo or args.reason is not None:
            raise ArenaError("--reason and --undo go with arena field withdraw NAME")
        data = field_json(store, tid)
    if args.json:
        emit_json(data)
        return 0
    console = stdout_console()
    if words:
        console.print(done, markup=False, highlight=False)
    print_field(console, data)
    return 0


def _fuel(fuel: int) -> str:
    return f"{fuel / 1e6:,.1f}M" if fuel >= 1_000_000 else f"{fuel:,}"


def print_field(console: Console, data: dict[str, Any]) -> None:
    """The field's standings as a table that fits 80 columns: rank, name, played, pending,
    wins, losses, draws, forfeits, fuel, and the rating as mu and sigma."""
    from rich.table import Table
    from rich.text import Text

    case, counts = data["case"], data["matches"]
    console.print(
        Text(
            f"the field of {shown(case['slug'])} v{case['version']} (tournament "
            f"{data['tournament']}): {data['entrants']} entrants"
        )
    )
    console.print(
        f"matches: {counts['played']} of {counts['total']} played, {counts['pending']} pending",
        highlight=False,
    )
    heads = ("#", "name", "played", "pending", "W", "L", "D", "forfeits", "fuel", "mu", "sigma")
    rows: list[list[str]] = []
    for row in data["standings"]:
        kinds = ", ".join(f"{k} {n}" for k, n in row["forfeit_kinds"].items() if n)
        rows.append(
            [
                str(row["rank"]),
                ("* " if row["baseline"] else "") + shown(row["name"]),
                str(row["played"]),
                str(row["pending"]),
                str(row["wins"]),
                str(row["losses"]),
                str(row["draws"]),
                f"{row['forfeits']} ({kinds})" if row["forfeits"] else "0",
                _fuel(row["fuel_total"]),
                f"{row['rating']['mu']:.1f}",
                f"{row['rating']['sigma']:.2f}",
            ]
        )
    # Every number keeps its width; the name takes what is left, cut short (…) if need be.
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(heads)]
    name_width = max(8, console.width - sum(widths) + widths[1] - 2 * len(heads))
    table = Table(box=None, pad_edge=False, padding=(0, 1))
    for head in heads:
        if head == "name":
            table.add_column(head, overflow="ellipsis", no_wrap=True, max_width=name_width)
        else:
            table.add_column(head, justify="right", no_wrap=True)
    for cells in rows:
        table.add_row(*(Text(c) for c in cells))
    console.print(table)
    console.print(
        "*: a baseline; W L D: wins, losses, draws; mu and sigma: the openskill rating",
        style="dim",
        highlight=False,
    )
    for w in data["withdrawn"]:
        console.print(Text(f"withdrawn: {shown(w['name'])} ({w['at'][:19]}): {shown(w['reason'])}"))


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    f = sub.add_parser(
        "field",
        help="the standings of a case version's field (every pushed controller ranked)",
        description="The field of a case version: every controller whose pushed run could "
        "compete, with the case's opponents, ranked by wins (then the tie-breaks) with "
        "matches played and pending, forfeits, fuel and the openskill rating as mu and "
        "sigma. arena serve makes it and plays it; arena field withdraw NAME --reason TEXT "
        "withdraws an entrant (its matches stay, it leaves the standings, its meetings not "
        "played are not played), --undo puts it back.",
    )
    f.add_argument("words", nargs="*", metavar="withdraw NAME", help="withdraw an entrant")
    f.add_argument("--case", metavar="SLUG/VERSION", help="the case version (default: the "
                   "only field, else the default case's)")  # fmt: skip
    f.add_argument("--reason", help="why the entrant is withdrawn")
    f.add_argument("--undo", action="store_true", help="put a withdrawn entrant back")
    f.add_argument("--json", action="store_true", help="the standings as the API gives them")
    f.set_defaults(func=cmd_field)
