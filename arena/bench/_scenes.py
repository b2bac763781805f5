"""``arena bench``: speed figures, printed (never asserted in tests).

Figures go into docs/benchmarks.md with the machine they came from.
"""

from __future__ import annotations

import platform
import time

import sim
from arena._sandbox import WASMTIME_VERSION
from sim import ATTACK, MINE, MOVE, SOLDIER, SPAWN, WORKER

__all__ = ["run_benchmarks", "sim_ticks_per_second"]


def _crowded_game(units_per_side: int, seed: int = 7) -> sim.Game:
    """A 32x32 generated map with ``units_per_side`` units per side, half soldiers."""
    # max_units keeps each side at the size asked for: the script spawns every tick.
    cfg = sim.Config(start_workers=0, max_ticks=400, start_energy=10**6, max_units=units_per_side)
    g = sim.Game(sim.generate_map(seed), cfg)
    w = g.width
    for s in (0, 1):
        colony = g.sides[s].colony
        cx, cy = colony % w, colony // w
        # Fill the free cells nearest the colony, ring by ring.
        free = sorted(
            (abs(c % w - cx) + abs(c // w - cy), c)
            for c in range(g.cells)
            if not g.blocked[c] and g.occ[c] is None
        )
        for i, (_, c) in enumerate(free[:units_per_side]):
            g.add_unit(s, SOLDIER if i % 2 else WORKER, c % w, c // w)
    return g


def _scripted(g: sim.Game, side: int) -> list[sim.Record]:
    """Every unit acts every tick: moves mostly, with mining, attacks and a spawn."""
    t = g.tick
    out: list[sim.Record] = [(0, SPAWN, 1 + t % 2)]
    for uid, u in g.roster(side).items():
        h = (uid * 7 + t) % 8
        if h < 5:
            out.append((uid, MOVE, 1 + (uid + t // 4) % 4))
        elif u.kind == WORKER:
            out.append((uid, MINE, h % 5))
        else:
            out.append((uid, ATTACK, 1 + h % 4))
    return out


def sim_ticks_per_second(units_per_side: int, ticks: int = 400) -> float:
    """Step a full match of scripted actions; time only the simulator's ``step``."""
    g = _crowded_game(units_per_side)
    spent = 0.0
    for _ in range(ticks):
        actions = [_scripted(g, 0), _scripted(g, 1)]
        t0 = time.perf_counter()
        g.step(actions)
        spent += time.perf_counter() - t0
    return ticks / spent


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown cpu"


def _machine() -> str:
    import os

    return (
        f"{_cpu_model()}, {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, wasmtime {WASMTIME_VERSION}"
    )


def run_benchmarks(which: str = "all", *, quick: bool = False) -> None:
    """Print the figures for ``which`` (all, sim or match)."""
    repeat = 1 if quick else 3
    print(f"machine: {_machine()}")
    if which in ("all", "sim"):
        print("simulator alone (400-tick match, 32x32, scripted actions, best of runs):")
        for n in (48, 24, 3):
            tps = max(sim_ticks_per_second(n) for _ in range(repeat))
            print(f"  {n:>2} units per side: {tps:>9,.0f} ticks/s")
        obs_us = _observe_us()
        print(f"  observe() with 48 units per side: {obs_us:.1f} us per side")
    if which in ("all", "match"):
        from arena._bench_match import match_figures

        match_figures(repeat)


def _observe_us() -> float:
    g = _crowded_game(48)
    n = 2000
    t0 = time.perf_counter()
    for _ in range(n // 2):
        g.observe(0)
        g.observe(1)
    return (time.perf_counter() - t0) / n * 1e6
