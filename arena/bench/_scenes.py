"""Scripted scenes the benchmarks time: crowded boards and busy scripted actions."""

from __future__ import annotations

import sim
from sim import ATTACK, MINE, MOVE, SOLDIER, SPAWN, WORKER

__all__ = ["crowded_game", "scripted_actions"]


def crowded_game(units_per_side: int, seed: int = 7) -> sim.Game:
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


def scripted_actions(g: sim.Game, side: int) -> list[sim.Record]:
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
