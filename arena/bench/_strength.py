"""Baseline strength: every entrant against every other, over seeds and both sides.

``arena baselines strength`` prints (or writes) the tables of docs/baselines.md:
win rates per pairing, and each controller's mean and peak fuel per tick.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

import replays
from arena._baselines import BASELINES, build_extra, load_baseline
from arena._match import Contestant, run_match

__all__ = ["ECONOMY", "Standing", "Tally", "entrants", "play_all", "render_markdown"]

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
class Standing:
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
    out: dict[str, bytes] = {}
    for name in names:
        out[name] = build_extra(name) if name == ECONOMY else load_baseline(name)
    return out


_Job = tuple[str, bytes, str, bytes, int]
_Outcome = tuple[str, str, int | None, list[tuple[int, int, int]], list[str]]


def _play(job: _Job) -> _Outcome:
    a, blob_a, b, blob_b, seed = job
    result = run_match(Contestant(a, blob_a), Contestant(b, blob_b), seed=seed)
    tick_fuel = [0, 0]
    ticks = 0
    for kind, obj in replays.iter_replay(result.replay):
        if kind == "frame":
            ticks += 1
            tick_fuel[0] += obj["f"][0]
            tick_fuel[1] += obj["f"][1]
    fuel = [(tick_fuel[s], ticks, result.sides[s].fuel_peak) for s in (0, 1)]
    forfeits = [
        f"{side.name} seed {seed}: {side.forfeit.kind} at tick {side.forfeit.tick}"
        for side in result.sides
        if side.forfeit
    ]
    return a, b, result.winner, fuel, forfeits


def play_all(
    names: Sequence[str], seeds: int, jobs: int = 2
) -> tuple[dict[tuple[str, str], Tally], dict[str, Standing]]:
    """Every ordered pair of distinct entrants on seeds 0..seeds-1 (so both sides each)."""
    blobs = entrants(names)
    work: list[_Job] = [
        (a, blobs[a], b, blobs[b], seed)
        for a, b in itertools.permutations(names, 2)
        for seed in range(seeds)
    ]
    tallies = {(a, b): Tally() for a, b in itertools.permutations(names, 2)}
    fuel = {name: Standing() for name in names}
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for a, b, winner, sides, forfeits in pool.map(_play, work, chunksize=4):
            for me, them, s in ((a, b, 0), (b, a, 1)):
                tally = tallies[(me, them)]
                if winner is None:
                    tally.draws += 1
                elif winner == s:
                    tally.wins += 1
                else:
                    tally.losses += 1
                spent, ticks, peak = sides[s]
                fuel[me].fuel_ticks += spent
                fuel[me].ticks += ticks
                fuel[me].peak = max(fuel[me].peak, peak)
            for f in forfeits:
                fuel[f.split(" ")[0]].forfeits.append(f)
    return tallies, fuel


def render_markdown(
    names: Sequence[str],
    tallies: dict[tuple[str, str], Tally],
    fuel: dict[str, Standing],
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
