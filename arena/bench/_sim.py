"""Simulator figures: ticks per second of ``Game.step`` and the cost of an observation."""

from __future__ import annotations

import time

from arena.bench._scenes import crowded_game, scripted_actions

__all__ = ["observe_us", "sim_figures", "sim_ticks_per_second"]


def sim_ticks_per_second(units_per_side: int, ticks: int = 400) -> float:
    """Step a full match of scripted actions; time only the simulator's ``step``."""
    g = crowded_game(units_per_side)
    spent = 0.0
    for _ in range(ticks):
        actions = [scripted_actions(g, 0), scripted_actions(g, 1)]
        t0 = time.perf_counter()
        g.step(actions)
        spent += time.perf_counter() - t0
    return ticks / spent


def observe_us() -> float:
    """Microseconds per ``Game.observe`` with 48 units a side."""
    g = crowded_game(48)
    n = 2000
    t0 = time.perf_counter()
    for _ in range(n // 2):
        g.observe(0)
        g.observe(1)
    return (time.perf_counter() - t0) / n * 1e6


def sim_figures(repeat: int, ticks: int = 400) -> dict[int, float]:
    """Print the simulator's figures, best of ``repeat`` runs; return ticks/s by units per side.

    ``ticks`` shortens the match (a test's run).
    """
    print(f"simulator alone ({ticks}-tick match, 32x32, scripted actions, best of runs):")
    rates = {}
    for n in (48, 24, 3):
        rates[n] = max(sim_ticks_per_second(n, ticks) for _ in range(repeat))
        print(f"  {n:>2} units per side: {rates[n]:>9,.0f} ticks/s")
    print(f"  observe() with 48 units per side: {observe_us():.1f} us per side")
    return rates
