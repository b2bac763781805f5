"""Match-level figures for ``arena bench match``: end-to-end speed, host overhead, replay size."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import sim
from arena._build import compile_c
from arena._contract import encode_init, encode_obs
from arena._match import Contestant, run_match
from arena._sandbox import Controller, Limits

__all__ = ["match_figures"]

_EXTRA = Path(__file__).resolve().parent.parent / "baselines" / "extra"


def _bot(name: str) -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        return compile_c([_EXTRA / f"{name}.c"], Path(tmp) / f"{name}.wasm")


def _match(a: bytes, b: bytes, config: sim.Config, repeat: int) -> tuple[float, float]:
    """Best ticks/s over ``repeat`` runs, and replay bytes per tick."""
    best, size = 0.0, 0.0
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = run_match(Contestant("a", a), Contestant("b", b), config=config, seed=1)
        best = max(best, r.ticks / (time.perf_counter() - t0))
        size = len(r.replay) / r.ticks
    return best, size


def host_overhead_us(blob: bytes, calls: int = 20_000) -> float:
    """Mean wall time of one ``Controller.tick`` on a module that does (almost) nothing.

    The idle module runs about ten fuel units of wasm per call, so this is the
    host's own cost: fuel setup, writing the message, the call, reading the reply.
    """
    game = sim.Game(sim.generate_map(1), sim.Config())
    limits = Limits()
    ctrl = Controller(blob, limits)
    init = encode_init(
        game,
        0,
        seed=1,
        fuel_per_tick=limits.fuel_per_tick,
        max_memory_bytes=limits.max_memory_bytes,
    )
    if ctrl.init(init) is not None:
        raise RuntimeError("the idle module failed its init")
    message = encode_obs(game.observe(0), 0)
    for _ in range(1000):  # warm up
        ctrl.tick(message, 49)
    t0 = time.perf_counter()
    for _ in range(calls):
        ctrl.tick(message, 49)
    return (time.perf_counter() - t0) / calls * 1e6


def match_figures(repeat: int) -> None:
    """Print end-to-end figures for idle and busy matches."""
    idle, busy = _bot("idle"), _bot("busy")
    print("whole matches (400 ticks, 32x32, replay included, best of runs):")
    cases = [
        ("idle vs idle", idle, idle, sim.Config()),
        ("busy vs busy (default rules)", busy, busy, sim.Config()),
        ("busy vs busy (48 units a side)", busy, busy, sim.Config(start_energy=100_000)),
    ]
    for label, a, b, cfg in cases:
        tps, size = _match(a, b, cfg, repeat)
        print(f"  {label:<32} {tps:>7,.0f} ticks/s  {size:>6,.0f} replay bytes/tick")
    print(f"host overhead per controller call: {host_overhead_us(idle):.1f} us")
