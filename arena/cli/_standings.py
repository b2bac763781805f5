"""The tables of ``arena tournament`` and ``arena standings``, and the progress bar.

A ranking and its per-pair win matrix for most formats; for a gauntlet, its
entrant's summary instead: its line, its record against each opponent (the
hardest first) on each side, and its losses, worst seeds first, each with the
command that shows it.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Final

from arena.cli._common import shown

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

    import sim
    from arena.coordinator import OnProgress
    from arena.store import TournamentRecord
    from arena.tournament import GauntletLoss, Standings

__all__ = [
    "LOSSES_SHOWN",
    "print_gauntlet",
    "print_ranking",
    "print_standings",
    "progress_bar",
    "standings_title",
    "text_cell",
]

LOSSES_SHOWN: Final = 12
"""A gauntlet's losses listed on the terminal, worst seeds first (``--json`` has them all)."""


def text_cell(value: object) -> Text:
    """A table cell from text that may come from a module author: never read as markup."""
    from rich.text import Text

    return Text(shown(value))


@contextmanager
def progress_bar(console: Console, enabled: bool = True) -> Iterator[OnProgress | None]:
    """A progress callback drawing a bar on ``console`` (none when not ``enabled``).

    Matches done of the total, the rate of this run, the time left and the leader.
    """
    if not enabled:
        yield None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TaskID,
        TextColumn,
        TimeRemainingColumn,
    )

    from arena.coordinator import TournamentProgress

    columns = (
        TextColumn("tournament {task.fields[id]}", markup=False),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}", markup=False),
        TimeRemainingColumn(),
        TextColumn("leader: {task.fields[leader]}", markup=False),
    )
    with Progress(*columns, console=console) as bar:
        task: TaskID | None = None

        def on_progress(p: TournamentProgress) -> None:
            nonlocal task
            fields: dict[str, Any] = {
                "id": p.tournament_id or "(not recorded)",
                "leader": shown(p.leader),
                "rate": f"{p.rate:.1f} matches/s" if p.played_now else "",
            }
            if task is None:
                task = bar.add_task("", total=p.total, completed=p.done, **fields)
            else:
                bar.update(task, total=p.total, completed=p.done, **fields)

        yield on_progress


def _fuel(fuel: int) -> str:
    """Fuel for a table cell, in millions past a million (the JSON has every unit)."""
    return f"{fuel / 1e6:,.1f}M" if fuel >= 1_000_000 else f"{fuel:,}"


def _forfeits(kinds: Mapping[sim.ForfeitKind, int]) -> str:
    """Forfeits by kind, those that happened: "fuel 2, trap 1" (empty if none)."""
    return ", ".join(f"{kind} {n}" for kind, n in kinds.items() if n)


def print_standings(
    console: Console,
    record: TournamentRecord,
    standings: Standings,
    losses: Sequence[GauntletLoss] = (),
) -> None:
    """The standings of a tournament as tables: the ranking and the win matrix; a gauntlet's
    summary instead for a gauntlet (with its ``losses``, each shown by its replay)."""
    title = standings_title(str(record.id), record.seeds, str(record.status), standings)
    if standings.gauntlet:
        print_gauntlet(console, title, standings, losses, lambda loss: _show(loss.replay))
    else:
        print_ranking(console, title, standings)


def standings_title(
    tournament: str, seeds: Sequence[int], status: str, standings: Standings
) -> str:
    return (
        f"tournament {tournament}: {standings.format}, {len(standings.rows)} entrants, "
        f"seeds {', '.join(map(str, seeds))}; {status}, "
        f"{standings.matches}/{standings.total} matches"
    )


def _show(replay: str | None) -> str:
    return "" if replay is None else f"arena replay show {shlex.quote(replay)}"


def print_ranking(console: Console, title: str, standings: Standings) -> None:
    from rich.table import Table

    from arena.tournament import Format

    table = Table(title=title, title_justify="left")
    bracket = standings.format is Format.BRACKET
    errors = any(r.errors for r in standings.rows)
    widest = max(len(shown(r.name)) for r in standings.rows)
    for column in ("#", "name", "wins", "losses", "draws", "forfeits", "fuel", "rating"):
        if column == "name":
            table.add_column(column, no_wrap=True, min_width=min(widest, 32))
        else:
            table.add_column(column, justify="right")
    if errors:
        table.add_column("errors", justify="right")
    if bracket:
        table.add_column("round reached", justify="right")
    for row in standings.rows:
        kinds = _forfeits(row.forfeit_kinds)
        cells: list[Text | str] = [
            str(row.rank),
            text_cell(row.name),
            str(row.wins),
            str(row.losses),
            str(row.draws),
            f"{row.forfeits} ({kinds})" if row.forfeits else "0",
            _fuel(row.fuel_total),
            f"{row.rating.mu:.1f} ± {row.rating.sigma:.1f}",
        ]
        if errors:
            cells.append(str(row.errors))
        if bracket:
            cells.append(str(row.reached))
        table.add_row(*cells)
    console.print(table)
    # The per-pair win matrix: row entrant's wins-losses(-draws) against the column's.
    matrix = standings.matrix
    grid = Table(title="row vs column: wins-losses(-draws)", title_justify="left")
    grid.add_column("", no_wrap=True)
    for i in range(len(matrix.names)):
        grid.add_column(str(i + 1), justify="center")
    for i, a in enumerate(matrix.names):
        cells = [text_cell(f"{i + 1} {a}")]
        for b in matrix.names:
            if a == b or not matrix.games(a, b):
                cells.append("·")
                continue
            won, lost, drawn = matrix.wins(a, b), matrix.wins(b, a), matrix.draws(a, b)
            cells.append(f"{won}-{lost}" + (f"-{drawn}" if drawn else ""))
        grid.add_row(*cells)
    console.print(grid)


def _wld(wins: int, losses: int, draws: int) -> str:
    return f"{wins}-{losses}-{draws}"


def print_gauntlet(
    console: Console,
    title: str,
    standings: Standings,
    losses: Sequence[GauntletLoss],
    see: Callable[[GauntletLoss], str],
) -> None:
    """A gauntlet's summary: its entrant's line, its record against each opponent (the
    hardest first) on each side, and its losses, worst seeds first, each with ``see(loss)``:
    the command that shows it. Opponents are not ranked against each other."""
    from rich.table import Table

    me = standings.rows[0]
    name = shown(me.name)
    console.print(text_cell(title))
    line = f"{name}: {me.wins} wins, {me.losses} losses, {me.draws} draws; forfeits: "
    kinds = _forfeits(me.forfeit_kinds)
    line += f"{me.forfeits} ({kinds})" if me.forfeits else "none"
    if me.errors:
        line += f"; {me.errors} not played (errors)"
    console.print(text_cell(f"{line}; rating {me.rating.mu:.1f} ± {me.rating.sigma:.1f}"))
    errors = any(g.errors for g in standings.gauntlet)
    table = Table(
        title=f"{name}, the entrant, against each opponent, the hardest first: "
        "wins-losses-draws as side A, as side B, in all",
        title_justify="left",
    )
    heads = ["opponent", "as A", "as B", "in all", *["errors"] * errors]
    heads += [
        "forfeits (entrant)",
        "forfeits (opponent)",
        "banked a match (entrant / opponent)",
        "fuel a tick (entrant / opponent)",
    ]
    for head in heads:
        table.add_column(head, justify="left" if head == "opponent" else "right")
    for g in standings.gauntlet:
        banked, fuel = g.banked_per_match, g.fuel_per_tick
        mine, theirs = map(_forfeits, g.forfeit_kinds)
        cells: list[Text | str] = [
            text_cell(g.opponent),
            _wld(g.as_a.wins, g.as_a.losses, g.as_a.draws),
            _wld(g.as_b.wins, g.as_b.losses, g.as_b.draws),
            _wld(g.wins, g.losses, g.draws),
        ]
        cells += [str(g.errors)] * errors
        cells += [
            mine or "0",
            theirs or "0",
            f"{banked[0]:.1f} / {banked[1]:.1f}",
            f"{fuel[0]:,.0f} / {fuel[1]:,.0f}",
        ]
        table.add_row(*cells)
    console.print(table)
    if not losses:
        console.print(text_cell(f"{name} lost no match."))
        return
    worst = Table(
        title=f"{name}'s losses, the worst seeds first ({len(losses)} in all; side and "
        "banked are the entrant's, then the opponent's)",
        title_justify="left",
    )
    for head in ("#", "seed", "losses on it", "opponent", "side", "reason", "forfeit", "banked"):
        left = head in ("opponent", "side", "reason", "forfeit")
        worst.add_column(head, justify="left" if left else "right")
    shown_losses = losses[:LOSSES_SHOWN]
    for i, loss in enumerate(shown_losses, start=1):
        worst.add_row(
            str(i),
            str(loss.seed),
            str(loss.seed_losses),
            text_cell(loss.opponent),
            "AB"[loss.side],
            str(loss.reason),
            "-" if loss.forfeit is None else str(loss.forfeit),
            f"{loss.banked[0]} - {loss.banked[1]}",
        )
    console.print(worst)
    # The commands as plain lines, never wrapped nor cut by the table: to be copied.
    console.print("see each:")
    for i, loss in enumerate(shown_losses, start=1):
        console.print(text_cell(f"{i:>4}  {see(loss)}"), soft_wrap=True)
    if len(losses) > LOSSES_SHOWN:
        console.print(f"... and {len(losses) - LOSSES_SHOWN} more losses (--json lists them all)")
