"""Simulator figures: ticks per second of ``Game.step`` and the cost of an observation."""

from __future__ import annotations

import time
from collections.abc import Callable

import sim
from arena.bench._scenes import crowded_game, scripted_actions

__all__ = ["observe_us", "sim_figures", "sim_ticks_per_second"]


def sim_ticks_per_second(units_per_side: int, ticks: int = 400, native: bool = False) -> float:
    """Step a full match of scripted actions; time only the simulator's ``step`` (the pure
    ``Game.step``, or with ``native`` the native core's, its records taken and stepped)."""
    g = crowded_game(units_per_side)
    core = sim.native_core(g) if native else None
    spent = 0.0
    for _ in range(ticks):
        actions = [scripted_actions(g, 0), scripted_actions(g, 1)]
        t0 = time.perf_counter()
        g.step(actions)
        t1 = time.perf_counter()
        if core is not None:  # the script reads the pure game: both play the same ticks
            core.take_records(0, actions[0])
            core.take_records(1, actions[1])
            core.step()
            spent += time.perf_counter() - t1
        else:
            spent += t1 - t0
    return ticks / spent


def observe_us(native: bool = False) -> float:
    """Microseconds per ``Game.observe`` with 48 units a side (with ``native``: the native
    core's OBS message, which is the observation encoded)."""
    g = crowded_game(48)
    core = sim.native_core(g) if native else None
    observe: Callable[[int], object] = g.observe
    if core is not None:
        message = core.observe

        def observe(side: int) -> object:
            return message(side, 0)

    n = 2000
    t0 = time.perf_counter()
    for _ in range(n // 2):
        observe(0)
        observe(1)
    return (time.perf_counter() - t0) / n * 1e6


def sim_figures(repeat: int, ticks: int = 400) -> dict[int, float]:
    """Print the simulator's figures, best of ``repeat`` runs; return ticks/s by units per side
    of the pure rules (the reference; the native core's are printed beside them).

    ``ticks`` shortens the match (a test's run).
    """
    native = sim.native_unavailable() is None
    print(f"simulator alone ({ticks}-tick match, 32x32, scripted actions, best of runs):")
    rates = {}
    for n in (48, 24, 3):
        rates[n] = max(sim_ticks_per_second(n, ticks) for _ in range(repeat))
        line = f"  {n:>2} units per side: {rates[n]:>9,.0f} ticks/s"
        if native:
            fast = max(sim_ticks_per_second(n, ticks, native=True) for _ in range(repeat))
            line += f"  (native core: {fast:>10,.0f} ticks/s)"
        print(line)
    line = f"  observe() with 48 units per side: {observe_us():.1f} us per side"
    if native:
        line += f"  (native core, the OBS message: {observe_us(native=True):.2f} us)"
    print(line)
    return rates
