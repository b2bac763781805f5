"""What a match is played between and what it gives: contestants and results.

Apart from the runner, so that reading or storing a result never loads the engine.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import sim
from arena.match._fuel import FuelStats

__all__ = ["Contestant", "MatchResult", "SideResult"]


@dataclass(frozen=True, slots=True)
class Contestant:
    """A controller entering a match: a display name and its module bytes."""

    name: str
    blob: bytes = field(repr=False)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.blob).hexdigest()


@dataclass(frozen=True, slots=True)
class SideResult:
    """One side's part of a result: who it was, what it banked and spent, how it forfeited."""

    name: str
    sha256: str
    banked: int
    fuel_total: int
    """Fuel of init and every tick (a fault is charged its whole budget)."""
    fuel_peak: int
    forfeit: sim.Forfeit | None
    tick_fuel: tuple[int, ...] = field(default=(), repr=False)
    """The fuel of each tick played, in order (init not included)."""

    @property
    def fuel_stats(self) -> FuelStats:
        """Mean, median, 90th percentile and peak of the fuel per tick."""
        return FuelStats.of(self.tick_fuel)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "sha256": self.sha256,
            "banked": self.banked,
            "fuel_total": self.fuel_total,
            "fuel_peak": self.fuel_peak,
            "forfeit": self.forfeit.to_dict() if self.forfeit else None,
            "fuel_per_tick": self.fuel_stats.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class MatchResult:
    """The outcome of a match, with the replay it was recorded in."""

    winner: int | None
    """The winning side's index (0 = A, 1 = B), or None for a draw."""
    reason: sim.Reason
    ticks: int
    seed: int
    sides: tuple[SideResult, SideResult]
    replay: bytes = field(repr=False)

    @property
    def replay_sha256(self) -> str:
        return hashlib.sha256(self.replay).hexdigest()

    def to_json(self, replay_path: str = "") -> dict[str, Any]:
        """The stable JSON of ``arena match --json`` (keys fixed by the design)."""
        return {
            "winner": self.winner,
            "reason": str(self.reason),
            "ticks": self.ticks,
            "seed": self.seed,
            "replay": replay_path,
            "replay_sha256": self.replay_sha256,
            "sides": [s.to_dict() for s in self.sides],
        }
