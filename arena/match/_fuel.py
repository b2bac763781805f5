"""Fuel you can read: the distribution of a side's fuel per tick."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import msgspec

__all__ = ["FuelStats"]


class FuelStats(msgspec.Struct, frozen=True):
    """A side's fuel per tick over the ticks it played (init not included).

    ``p90`` is the nearest-rank 90th percentile (the smallest value that at
    least 90% of the ticks do not exceed); ``peak_tick`` is the first tick that
    used ``peak``. With no tick played every figure is 0 and ``peak_tick`` None.
    """

    mean: float
    median: float
    p90: int
    peak: int
    peak_tick: int | None

    @classmethod
    def of(cls, tick_fuel: Sequence[int]) -> FuelStats:
        if not tick_fuel:
            return cls(0.0, 0.0, 0, 0, None)
        ordered = sorted(tick_fuel)
        rank = math.ceil(0.9 * len(ordered))
        peak = ordered[-1]
        # statistics.fmean and statistics.median, spelled out: importing statistics
        # (with fractions and decimal) would cost a one-off match more than the figures.
        n = len(ordered)
        middle = ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2
        return cls(
            mean=math.fsum(tick_fuel) / n,
            median=float(middle),
            p90=ordered[rank - 1],
            peak=peak,
            peak_tick=list(tick_fuel).index(peak),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "mean": round(self.mean, 1),
            "median": self.median,
            "p90": self.p90,
            "peak": self.peak,
            "peak_tick": self.peak_tick,
        }
