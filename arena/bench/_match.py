"""Match-level figures for ``arena bench match``: end-to-end speed, host overhead, replay size."""

from __future__ import annotations

import time

import sim
from arena.baselines import build_extra
from arena.bench._parts import started
from arena.bench._scenes import crowded_game
from arena.match import Contestant, encode_obs, run_match
from arena.sandbox import Fault

__all__ = ["host_overhead_us", "match_figures"]


def _match(a: bytes, b: bytes, config: sim.Config, repeat: int) -> tuple[float, float]:
    """Best ticks/s over ``repeat`` runs (compiling excluded), and replay bytes per tick."""
    run_match(Contestant("a", a), Contestant("b", b), config=config.replace(max_ticks=1))
    best, size = 0.0, 0.0
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = run_match(Contestant("a", a), Contestant("b", b), config=config, seed=1)
        best = max(best, r.ticks / (time.perf_counter() - t0))
        size = len(r.replay) / r.ticks
    return best, size


def host_overhead_us(blob: bytes, game: sim.Game, calls: int = 20_000) -> tuple[float, int, int]:
    """Mean wall time of one ``Controller.tick`` on a module that does no work.

    The modules used here run a handful of fuel units per call, so this is the
    host's own cost: fuel and deadline setup, writing the OBS message, the call,
    reading the fuel, checking memory and copying the reply's records out.
    Returns (microseconds, message bytes, reply records).
    """
    ctrl = started(blob, game)
    message = encode_obs(game.observe(0), 0)
    max_records = game.config.max_units + 1
    reply = ctrl.tick(message, max_records)
    if isinstance(reply, Fault):
        raise RuntimeError(f"the benchmark module faulted: {reply}")
    for _ in range(1000):  # warm up
        ctrl.tick(message, max_records)
    t0 = time.perf_counter()
    for _ in range(calls):
        ctrl.tick(message, max_records)
    return (time.perf_counter() - t0) / calls * 1e6, len(message), reply[0]


def match_figures(repeat: int) -> None:
    """Print end-to-end figures for idle and busy matches, and the host overhead."""
    idle, busy, echo = build_extra("idle"), build_extra("busy"), build_extra("echo")
    print("whole matches (400 ticks, 32x32, replay included, best of runs):")
    cases = [
        ("idle vs idle", idle, idle, sim.Config()),
        ("busy vs busy (default rules)", busy, busy, sim.Config()),
        ("busy vs busy (48 units a side)", busy, busy, sim.Config(start_energy=100_000)),
    ]
    for label, a, b, cfg in cases:
        tps, size = _match(a, b, cfg, repeat)
        print(f"  {label:<32} {tps:>7,.0f} ticks/s  {size:>6,.0f} replay bytes/tick")
    print("host overhead per controller call (time outside wasm; the modules do no work):")
    for label, blob, game in (
        (
            "idle: tick-0 message, no records back",
            idle,
            sim.Game(sim.generate_map(1), sim.Config()),
        ),
        ("busy: 48 units a side, 49 records back", echo, crowded_game(48)),
    ):
        us, size, records = host_overhead_us(blob, game)
        print(f"  {label:<40} {us:>5.1f} us  ({size:,}-byte message, {records} records)")
