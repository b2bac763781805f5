"""Match-level figures for ``arena bench match``: end-to-end speed, host overhead, replay size."""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import replays
import sim
from arena.baselines import build_extra
from arena.bench._parts import started
from arena.bench._scenes import crowded_game
from arena.match import Contestant, encode_obs, run_match
from arena.sandbox import Fault

__all__ = ["MatchFigures", "host_overhead_us", "match_figures", "replay_size_figures"]


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


def _least_ms(call: Callable[[], object], repeat: int) -> float:
    """The least time of ``call()`` over ``repeat`` runs of at least 0.2 s, in ms (CPU time)."""
    best = float("inf")
    for _ in range(repeat):
        n, t0 = 0, time.process_time()
        while (elapsed := time.process_time() - t0) < 0.2 or n == 0:
            call()
            n += 1
        best = min(best, elapsed / n * 1e3)
    return best


def _verified(data: bytes) -> None:
    if not replays.verify_replay(io.BytesIO(data)).ok:
        raise RuntimeError("the benchmark's replay does not verify")


def replay_size_figures(repeat: int, ticks: int = 2000) -> dict[str, float]:
    """Print the replay's size as stored (zstd at ``replays.STORED_LEVEL``) on the 64x64 case
    beside its raw size and zstd -19 of it, what compressing costs, and the check's speed on
    the stored bytes; return the figures by name.

    The case: border-soldier against itself, 64x64, ``ticks`` ticks, seed 1 (its sizes:
    docs/benchmarks.md).
    """
    import zstandard

    from arena.baselines import load_baseline

    blob = load_baseline("border-soldier")
    config = sim.Config(width=64, height=64, max_ticks=ticks)
    result = run_match(Contestant("a", blob), Contestant("b", blob), config=config, seed=1)
    raw, n = result.replay, result.ticks
    stored = replays.compress_replay(raw)
    best = zstandard.ZstdCompressor(level=19).compress(raw)
    figures = {
        "raw_bytes_per_tick": len(raw) / n,
        "stored_bytes_per_tick": len(stored) / n,
        "zstd19_bytes_per_tick": len(best) / n,
        "compress_ms": _least_ms(lambda: replays.compress_replay(raw), repeat),
        "compress19_ms": _least_ms(lambda: zstandard.ZstdCompressor(level=19).compress(raw), 1),
        "decompress_ms": _least_ms(lambda: replays.decompress_replay(stored), repeat),
    }
    verify: dict[str, float] = {}
    for label, data in (("stored", stored), ("raw", raw)):
        least = _least_ms(partial(_verified, data), repeat)
        verify[label] = n / least * 1e3
    figures["verify_stored_ticks_per_s"] = verify["stored"]
    figures["verify_raw_ticks_per_s"] = verify["raw"]
    print(f"replay size, border-soldier x2, 64x64, {n:,} ticks, seed 1 ({len(raw):,} bytes raw):")
    print(f"  raw msgpack                       {figures['raw_bytes_per_tick']:7.1f} bytes/tick")
    print(
        f"  stored (zstd level {replays.STORED_LEVEL})            "
        f"{figures['stored_bytes_per_tick']:7.1f} bytes/tick  ({len(stored):,} bytes;"
        f" compressing {figures['compress_ms']:.2f} ms, decompressing"
        f" {figures['decompress_ms']:.2f} ms)"
    )
    print(
        f"  floor: zstd -19 of the raw file   {figures['zstd19_bytes_per_tick']:7.1f} bytes/tick"
        f"  ({len(best):,} bytes; compressing {figures['compress19_ms']:.0f} ms)"
        f"  stored / floor {len(stored) / len(best):.2f}x"
    )
    print(
        f"  verify_replay of the stored bytes {verify['stored']:9,.0f} ticks/s"
        f"  (of the raw bytes {verify['raw']:,.0f}; native core"
        f" {'on' if sim.native_unavailable() is None else 'off'})"
    )
    return figures
