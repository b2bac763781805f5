"""Match-level figures for ``arena bench match``: end-to-end speed, host overhead, replay size."""

from __future__ import annotations

import time
from dataclasses import dataclass

import sim
from arena.baselines import build_extra
from arena.bench._parts import started
from arena.bench._scenes import crowded_game
from arena.match import Contestant, encode_obs, run_match
from arena.sandbox import Fault

__all__ = ["MatchFigures", "host_overhead_us", "match_figures"]


@dataclass(frozen=True, slots=True)
class MatchFigures:
    """What ``match_figures`` measured, by the labels it prints."""

    ticks_per_s: dict[str, float]
    """Whole matches: ticks per second, by match (``idle``, ``busy``, ``busy-48``)."""
    replay_bytes_per_tick: dict[str, float]
    """The same matches' replay bytes per tick."""
    host_overhead_us: dict[str, float]
    """Host time per controller call, by call (``idle``, ``busy``)."""


def _match(
    a: bytes, b: bytes, config: sim.Config, repeat: int, native: bool | None = None
) -> tuple[float, float]:
    """Best ticks/s over ``repeat`` runs (compiling excluded), and replay bytes per tick;
    ``native`` as ``run_match`` takes it."""
    ca, cb = Contestant("a", a), Contestant("b", b)
    run_match(ca, cb, config=config.replace(max_ticks=1), native=native)
    best, size = 0.0, 0.0
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = run_match(ca, cb, config=config, seed=1, native=native)
        best = max(best, r.ticks / (time.perf_counter() - t0))
        size = len(r.replay) / r.ticks
    return best, size


def host_overhead_us(
    blob: bytes, game: sim.Game, calls: int = 20_000, native: bool = True
) -> tuple[float, int, int]:
    """Mean wall time of one ``Controller.tick`` on a module that does no work.

    The modules used here run a handful of fuel units per call, so this is the
    host's own cost: fuel and deadline setup, writing the OBS message, the call,
    reading the fuel, checking memory and copying the reply's records out
    (from C where the controller can, else through ctypes: ``native`` False).
    Returns (microseconds, message bytes, reply records).
    """
    ctrl = started(blob, game, native=native)
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


def match_figures(repeat: int, ticks: int = 400, calls: int = 20_000) -> MatchFigures:
    """Print end-to-end figures for idle and busy matches, and the host overhead; return them.

    ``ticks`` shortens the matches and ``calls`` the host's timing (a test's run).
    """
    idle, busy, echo = build_extra("idle"), build_extra("busy"), build_extra("echo")
    print(f"whole matches ({ticks} ticks, 32x32, replay included, best of runs):")
    cases = [
        ("idle", "idle vs idle", idle, idle, sim.Config(max_ticks=ticks)),
        ("busy", "busy vs busy (default rules)", busy, busy, sim.Config(max_ticks=ticks)),
        (
            "busy-48",
            "busy vs busy (48 units a side)",
            busy,
            busy,
            sim.Config(start_energy=100_000, max_ticks=ticks),
        ),
    ]
    figures = MatchFigures({}, {}, {})
    native = sim.native_unavailable() is None
    for key, label, a, b, cfg in cases:
        tps, size = _match(a, b, cfg, repeat)
        figures.ticks_per_s[key], figures.replay_bytes_per_tick[key] = tps, size
        line = f"  {label:<32} {tps:>7,.0f} ticks/s  {size:>6,.0f} replay bytes/tick"
        if native:  # the figure above is the native core's: the pure rules beside it
            line += f"  (pure rules: {_match(a, b, cfg, repeat, native=False)[0]:,.0f} ticks/s)"
        print(line)
    print("host overhead per controller call (time outside wasm; the modules do no work):")
    for key, label, blob, game in (
        (
            "idle",
            "idle: tick-0 message, no records back",
            idle,
            sim.Game(sim.generate_map(1), sim.Config()),
        ),
        ("busy", "busy: 48 units a side, 49 records back", echo, crowded_game(48)),
    ):
        us, size, records = host_overhead_us(blob, game, calls)
        figures.host_overhead_us[key] = us
        ctypes_us = host_overhead_us(blob, game, calls, native=False)[0]
        print(
            f"  {label:<40} {us:>5.1f} us  ({size:,}-byte message, {records} records;"
            f" through ctypes {ctypes_us:.1f} us)"
        )
    return figures
