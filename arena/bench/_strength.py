"""Baseline strength: every entrant against every other, over seeds and both sides.

``arena baselines strength`` prints the tables of docs/baselines.md: win rates
per pairing, and each controller's mean and peak fuel per tick.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from arena.baselines import BASELINES, build_extra, load_baseline
from arena.executors import JobFailed, LocalExecutor, MatchJob
from arena.match import Contestant

__all__ = [
    "ECONOMY",
    "FuelTally",
    "Tally",
    "default_field",
    "entrants",
    "play_all",
    "render_markdown",
]

ECONOMY = "economy"
"""The plain economy sparring bot (workers only), built from baselines/extra/economy.c."""


@dataclass(slots=True)
class Tally:
    """One ordered pairing's record, from the first-named controller's side."""

    wins: int = 0
    losses: int = 0
    draws: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def rate(self) -> float:
        return self.wins / self.games if self.games else 0.0


@dataclass(slots=True)
class FuelTally:
    """A controller's fuel over all its matches: per-tick mean and the largest tick."""

    fuel_ticks: int = 0
    ticks: int = 0
    peak: int = 0
    forfeits: list[str] = field(default_factory=list)

    @property
    def mean(self) -> float:
        return self.fuel_ticks / self.ticks if self.ticks else 0.0


def entrants(names: Iterable[str]) -> dict[str, bytes]:
    """Module bytes by name: baseline names, or ``economy`` (built from source)."""
    return {name: build_extra(name) if name == ECONOMY else load_baseline(name) for name in names}


def play_all(
    names: Sequence[str], seeds: int, jobs: int = 2
) -> tuple[dict[tuple[str, str], Tally], dict[str, FuelTally]]:
    """Every ordered pair of distinct entrants on seeds 0..seeds-1 (so both sides each)."""
    blobs = entrants(names)
    pairs = list(itertools.permutations(names, 2))
    work = [
        MatchJob(Contestant(a, blobs[a]), Contestant(b, blobs[b]), seed=seed)
        for a, b in pairs
        for seed in range(seeds)
    ]
    tallies = {pair: Tally() for pair in pairs}
    fuel = {name: FuelTally() for name in names}
    for job, result in zip(work, LocalExecutor(jobs).map(work), strict=True):
        if isinstance(result, JobFailed):
            raise RuntimeError(f"{job.a.name} vs {job.b.name} seed {job.seed}: {result.reason}")
        for s, (me, them) in enumerate(((job.a.name, job.b.name), (job.b.name, job.a.name))):
            tally = tallies[(me, them)]
            if result.winner is None:
                tally.draws += 1
            elif result.winner == s:
                tally.wins += 1
            else:
                tally.losses += 1
            side = result.sides[s]
            fuel[me].fuel_ticks += sum(side.tick_fuel)
            fuel[me].ticks += len(side.tick_fuel)
            fuel[me].peak = max(fuel[me].peak, side.fuel_peak)
            if side.forfeit:
                f = side.forfeit
                fuel[me].forfeits.append(f"{me} seed {job.seed}: {f.kind} at tick {f.tick}")
    return tallies, fuel


def render_markdown(
    names: Sequence[str],
    tallies: dict[tuple[str, str], Tally],
    fuel: dict[str, FuelTally],
    seeds: int,
) -> str:
    """The win-rate and fuel tables, as Markdown."""
    lines = [
        f"Each cell: the row's wins against the column over {seeds} seeds x both sides"
        f" ({2 * seeds} matches), as a percentage and wins-losses-draws.",
        "",
        "| | " + " | ".join(names) + " |",
        "|---|" + "---|" * len(names),
    ]
    for me in names:
        cells = []
        for them in names:
            if me == them:
                cells.append("-")
            else:
                t = tallies[(me, them)]
                cells.append(f"{100 * t.rate:.0f}% ({t.wins}-{t.losses}-{t.draws})")
        lines.append(f"| **{me}** | " + " | ".join(cells) + " |")
    lines += [
        "",
        "| controller | mean fuel per tick | peak fuel in a tick | forfeits |",
        "|---|---:|---:|---:|",
    ]
    for name in names:
        st = fuel[name]
        lines.append(f"| {name} | {st.mean:,.0f} | {st.peak:,} | {len(st.forfeits)} |")
    return "\n".join(lines) + "\n"


def default_field() -> list[str]:
    """The four baselines and the economy sparring bot."""
    return [*BASELINES, ECONOMY]
