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
    from rich.table import Table
    from rich.text import Text

    import sim
    from arena.coordinator import OnProgress
    from arena.store import TournamentRecord
    from arena.tournament import GauntletLoss, Standings

__all__ = [
    "LOSSES_SHOWN",
    "duration",
    "print_gauntlet",
    "print_ranking",
    "print_standings",
    "progress_bar",
    "standings_title",
    "text_cell",
    "timing_line",
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


def duration(seconds: float) -> str:
    """A duration as a person reads it: 0.4s, 12.3s, 1m08s, 2h05m."""
    if seconds < 60:
        return f"{seconds:.1f}s"
    whole = int(seconds)
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole // 3600}h{whole % 3600 // 60:02d}m"


def timing_line(record: TournamentRecord) -> str:
    """When a stored tournament started and finished, how long it took, its matches a second."""
    from arena.coordinator import tournament_timing

    t = tournament_timing(record)
    started = t.started.strftime("%Y-%m-%d %H:%M:%S UTC")
    rate = "" if t.rate is None else f", {t.rate:,.1f} matches/s"
    if t.finished is None:
        return f"started {started}, running for {duration(t.seconds)}{rate} so far"
    same_day = t.finished.date() == t.started.date()
    finished = t.finished.strftime("%H:%M:%S" if same_day else "%Y-%m-%d %H:%M:%S UTC")
    return f"started {started}, {record.status} {finished}: took {duration(t.seconds)}{rate}"


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
    *,
    matrix: bool | None = None,
) -> None:
    """The standings of a tournament as tables: the ranking and the win matrix (``matrix``:
    as ``print_ranking`` takes it); a gauntlet's summary instead for a gauntlet (with its
    ``losses``, each shown by its replay)."""
    from arena.coordinator import pending_matches, tournament_plan

    title = standings_title(str(record.id), record.seeds, str(record.status), standings)
    title = f"{title}\n{timing_line(record)}"
    for x in record.excluded:
        title += (
            f"\nexcluded: {x.name} ({x.reason}; {x.created_at:%Y-%m-%d %H:%M} UTC), the "
            f"standings recomputed without its matches; undo: arena tournament include "
            f"{record.id} {shlex.quote(x.name)}"
        )
    if standings.gauntlet:
        print_gauntlet(console, title, standings, losses, lambda loss: _show(loss.replay))
    else:
        pending = pending_matches(tournament_plan(record), standings)
        wide = f"arena standings {record.id} --matrix"
        print_ranking(console, title, standings, pending=pending, matrix=matrix, wide=wide)


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


_NAME_AT_LEAST: Final = 24
"""The name's columns below which the ranking's heads are abbreviated."""
_SHORT: Final = {
    "played": "pl",
    "pending": "pend",
    "wins": "W",
    "losses": "L",
    "draws": "D",
    "forfeits": "ff",
    "errors": "err",
    "round reached": "reached",
}
"""The ranking's heads on a narrow terminal."""


def print_ranking(
    console: Console,
    title: str,
    standings: Standings,
    *,
    pending: Sequence[int | None] | None = None,
    matrix: bool | None = None,
    wide: str = "",
) -> None:
    """The ranking and, below it, the per-pair win matrix.

    ``pending`` (each row's matches still to come) adds a column while some are;
    the matrix is drawn when it fits the console, or always with ``matrix`` (at the
    width it needs), never with ``matrix=False``; when it does not fit, a line says
    how to get it, with ``wide``: the command that shows it.
    """
    from rich.table import Table

    from arena.tournament import Format

    bracket = standings.format is Format.BRACKET
    errors = any(r.errors for r in standings.rows)
    live = pending is not None and any(p != 0 for p in pending)
    heads = ["#", "name", "played", *["pending"] * live, "wins", "losses", "draws", "forfeits"]
    # openskill's mu and sigma, labelled as everywhere else (the field's, the site's).
    heads += ["fuel", "mu", "sigma", *["errors"] * errors, *["round reached"] * bracket]
    rows: list[list[Text | str]] = []
    for i, row in enumerate(standings.rows):
        kinds = _forfeits(row.forfeit_kinds)
        cells: list[Text | str] = [str(row.rank), text_cell(row.name), str(row.matches)]
        if live:
            assert pending is not None
            cells.append("?" if pending[i] is None else str(pending[i]))
        cells += [
            str(row.wins),
            str(row.losses),
            str(row.draws),
            f"{row.forfeits} ({kinds})" if row.forfeits else "0",
            _fuel(row.fuel_total),
            f"{row.rating.mu:.1f}",
            f"{row.rating.sigma:.1f}",
        ]
        if errors:
            cells.append(str(row.errors))
        if bracket:
            cells.append(str(row.reached))
        rows.append(cells)
    # Every number keeps its width; the name takes what is left, cut short (…) if need be.
    # Where that leaves a name too little, the heads are abbreviated (a legend says how)
    # and the rules between the columns go.
    widths = [max(len(h), *(len(str(r[i])) for r in rows)) for i, h in enumerate(heads)]
    others = sum(w for i, w in enumerate(widths) if i != 1) + 3 * len(heads) + 1
    name_width = min(widths[1], console.width - others)
    compact = name_width < min(widths[1], _NAME_AT_LEAST)
    if compact:
        heads = [_SHORT.get(h, h) for h in heads]
        widths = [max(len(h), *(len(str(r[i])) for r in rows)) for i, h in enumerate(heads)]
        others = sum(w for i, w in enumerate(widths) if i != 1) + 2 * len(heads)
        name_width = min(widths[1], console.width - others)
    name_width = max(name_width, 8)
    # The title above the table, not in it: as wide as the terminal, not the table.
    for line in title.splitlines():
        console.print(text_cell(line))
    if compact:
        from rich import box

        table = Table(box=box.SIMPLE_HEAD, collapse_padding=True)
    else:
        table = Table()
    for head, width in zip(heads, widths, strict=True):
        if head == "name":
            table.add_column(head, no_wrap=True, overflow="ellipsis", width=name_width)
        else:
            table.add_column(head, justify="right", no_wrap=True, min_width=width)
    for cells in rows:
        table.add_row(*cells)
    console.print(table)
    if compact:
        legend = ", ".join(f"{short}: {head}" for head, short in _SHORT.items() if short in heads)
        console.print(text_cell(f"({legend})"))
    if live:
        console.print(
            text_cell("played: matches recorded; pending: still to come (? : not known yet)")
        )
    if matrix is False:
        return
    # The per-pair win matrix: row entrant's wins-losses(-draws) against the column's,
    # the entrants numbered (the rows are the legend).
    grid, needed = _matrix(standings)
    if matrix or needed <= console.width:
        if needed > console.width:
            from rich.console import Console as Wide

            Wide(file=console.file, width=needed, no_color=console.no_color).print(grid)
        else:
            console.print(grid)
        return
    n = len(standings.matrix.names)
    console.print(
        text_cell(f"the win matrix ({n} x {n}) is {needed} columns wide: {wide or '--matrix'}"),
        soft_wrap=True,
    )


def _matrix(standings: Standings) -> tuple[Table, int]:
    """The win matrix as a table, and the columns it needs."""
    from rich.table import Table

    matrix = standings.matrix
    title = "row vs column: wins-losses(-draws)"
    # At least as wide as its title, which would wrap above a narrower grid.
    grid = Table(title=title, title_justify="left", min_width=len(title))
    grid.add_column("", no_wrap=True)
    cells_by_row = []
    for i, a in enumerate(matrix.names):
        cells: list[Text | str] = [text_cell(f"{i + 1} {a}")]
        for b in matrix.names:
            if a == b or not matrix.games(a, b):
                cells.append("·")
                continue
            won, lost, drawn = matrix.wins(a, b), matrix.wins(b, a), matrix.draws(a, b)
            cells.append(f"{won}-{lost}" + (f"-{drawn}" if drawn else ""))
        cells_by_row.append(cells)
    widths = [
        max(len(str(i + 1)), *(len(str(r[i + 1])) for r in cells_by_row))
        for i in range(len(matrix.names))
    ]
    for i, width in enumerate(widths):
        grid.add_column(str(i + 1), justify="center", no_wrap=True, min_width=width)
    for cells in cells_by_row:
        grid.add_row(*cells)
    label = max(len(str(r[0])) for r in cells_by_row)
    # Each column: its cells, a space of padding each side and a rule; the rules at the ends.
    return grid, max(len(title), label + sum(widths) + 3 * (len(widths) + 1) + 1)


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
    the command that shows it. (The standings' table ranks every entrant by wins.)"""
    from rich.table import Table

    me = standings.row(standings.entrant or standings.leader)
    name = shown(me.name)
    for line in title.splitlines():
        console.print(text_cell(line))
    line = f"{name}: {me.wins} wins, {me.losses} losses, {me.draws} draws; forfeits: "
    kinds = _forfeits(me.forfeit_kinds)
    line += f"{me.forfeits} ({kinds})" if me.forfeits else "none"
    if me.errors:
        line += f"; {me.errors} not played (errors)"
    console.print(text_cell(f"{line}; mu {me.rating.mu:.1f}, sigma {me.rating.sigma:.1f}"))
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
