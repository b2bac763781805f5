"""Where a match's host time goes, part by part, and how far a tick is from its floor:
the figures ``arena bench parts`` compares.

This module also runs as a script against any checkout of the project (its own
tree, or an earlier commit first on ``sys.path``): it uses only public names
that every version has, and notices the newer ones. ``arena bench`` runs it in
child processes, taking turns between the trees, so before and after come
from the same run. The script prints one JSON document.

Every figure is CPU time of the measuring thread (``time.thread_time``), not
wall time: on a shared machine the wall clock also counts the time other
processes held the core. Per tick of a whole match (two sides, 32x32, seed 1,
400 ticks): the match is played with ``run_match`` and its replay read back;
the recorded actions then drive a fresh ``Game`` while each part is timed on
its own, once a tick as a match runs it: the observation
(``Game.observe_flat``, or ``Game.observe`` where it does not exist), the OBS
encoding, ``validate_actions``, ``Game.step``, the replay frame (the
recorder's ``applied`` less its checksum) and the checksum. Each tick keeps
its least time over the passes. A whole match's time per tick is read between
the ends of consecutive frames, each tick's least over the runs; its host time
is that less the controllers' own wasm: the time of their calls on the
recorded messages less the same calls to a module that does nothing.

A tree with the native core (``sim.native_core``) is measured twice: on the
pure rules (the reference, as every tree plays) and on the native core, part
by part as it runs them (its observation is the OBS message; the reply is
checked from its raw bytes; the frame is built in C). Beside them, the
floors: the tick's calls alone (``arena.sandbox.floor_calls``: set the fuel,
write the message, call, copy the records, read the fuel, through ctypes, on
the recorded messages), and, for the replay check, the re-simulation alone
(the recorded actions stepped and checksummed, nothing read or compared).
"""

from __future__ import annotations

import inspect
import io
import json
import struct
import sys
import time
from collections.abc import Callable
from itertools import pairwise
from typing import Any

import arena.match as match
import arena.sandbox as sandbox
import replays
import sim
from arena.match import Contestant, encode_init, encode_obs, run_match
from arena.sandbox import Controller, Fault, Limits

__all__ = ["PART_NAMES", "measure_parts", "started"]

PART_NAMES = ("observe", "encode_obs", "validate_actions", "step", "frame", "checksum")
"""The parts of a tick's host time, in the order a tick runs them."""

_clock = time.thread_time


def _clock_cost() -> float:
    """Seconds one reading of the clock adds to a timed span (the least of many)."""
    best = float("inf")
    for _ in range(2000):
        t0 = _clock()
        best = min(best, _clock() - t0)
    return best


def _flat_encoder() -> Callable[[Any, int], bytes] | None:
    """The encoder of flat observations, in trees that have it."""
    found: Callable[[Any, int], bytes] | None = getattr(match, "encode_obs_flat", None)
    return found


def _memory(replay: replays.Replay) -> Callable[[int], dict[str, Any]]:
    """The keywords that give the recorder tick t's memory sizes, in trees whose replays
    record them (``replays.memory_series``); none in the others."""
    series = getattr(replays, "memory_series", lambda replay: None)(replay)
    if series is None:
        return lambda t: {}
    return lambda t: {"memory": (series[0][t], series[1][t])}


def _checksum_version(version: int) -> int:
    """The native core's checksum of a replay format version (its own number before 3)."""
    found: Callable[[int], int] = getattr(replays, "checksum_version", lambda v: v)
    return found(version)


def _has_native() -> bool:
    """Whether this tree has the native core, and it is built here."""
    found = getattr(sim, "native_unavailable", None)
    return found is not None and found() is None


def _played(
    blob: bytes, config: sim.Config, repeat: int, native: bool = False
) -> tuple[bytes, float]:
    """Play a match ``repeat`` times; return its replay and its time per tick.

    A tick's time runs from the end of one recorded frame to the end of the
    next (the recorder's ``applied`` is wrapped to read the clock): everything
    the loop does for a tick, controllers included. Each tick keeps its least
    time over the runs, as the parts do. ``native`` plays on the native core
    (a tree that has it), else on the pure rules.
    """
    a, b = Contestant("a", blob), Contestant("b", blob)
    # The tick loop asked for, where run_match lets one choose (the native core's trees).
    loop: dict[str, Any] = (
        {"native": native} if "native" in inspect.signature(run_match).parameters else {}
    )
    run_match(a, b, config=config.replace(max_ticks=1), seed=1, **loop)  # compiled beforehand
    recorder: Any = replays.CoreRecorder if native else replays.Recorder
    stamps: list[float] = []
    applied = recorder.applied

    def timed(self: Any, *args: Any) -> Any:
        out = applied(self, *args)
        stamps.append(_clock())
        return out

    runs: list[list[float]] = []
    data = b""
    setattr(recorder, "applied", timed)  # noqa: B010 (a method, for the timing only)
    try:
        for _ in range(repeat):
            stamps.clear()
            data = run_match(a, b, config=config, seed=1, **loop).replay
            runs.append([t1 - t0 for t0, t1 in pairwise(stamps)])
    finally:
        setattr(recorder, "applied", applied)  # noqa: B010
    per_tick = sum(map(min, zip(*runs, strict=True))) / max(1, len(runs[0]))
    return data, per_tick


def _parts(replay: replays.Replay, cost: float) -> tuple[dict[str, list[float]], list[list[bytes]]]:
    """Each part's microseconds in each tick of the match; and every tick's OBS messages."""
    header = replay.header
    game = sim.Game(header.game_map, header.config)
    recorder = replays.Recorder(io.BytesIO(), game, header)
    encode_flat = _flat_encoder()
    max_units = header.config.max_units
    clock = _clock
    spent: dict[str, list[float]] = {name: [] for name in PART_NAMES}
    messages: list[list[bytes]] = []
    memory = _memory(replay)
    for frame in replay.frames:
        if isinstance(frame, replays.ForfeitFrame):
            break
        tick = dict.fromkeys(PART_NAMES, 0.0)
        tick_messages = []
        for s in (0, 1):
            records, fuel = frame.actions[s], frame.fuel[s]
            t0 = clock()
            obs: Any = game.observe_flat(s) if encode_flat is not None else game.observe(s)
            t1 = clock()
            message = encode_flat(obs, fuel) if encode_flat is not None else encode_obs(obs, fuel)
            t2 = clock()
            sim.validate_actions(len(records), records, game.roster(s), max_units)
            t3 = clock()
            tick["observe"] += t1 - t0 - cost
            tick["encode_obs"] += t2 - t1 - cost
            tick["validate_actions"] += t3 - t2 - cost
            tick_messages.append(message)
        messages.append(tick_messages)
        t0 = clock()
        events = game.step(frame.actions)
        t1 = clock()
        recorder.applied(frame.actions, frame.fuel, events, **memory(frame.tick))
        t2 = clock()
        game.checksum()
        _keep(spent, tick, t0, t1, t2, clock(), cost)
    return spent, messages


def _keep(
    spent: dict[str, list[float]],
    tick: dict[str, float],
    t0: float,
    t1: float,
    t2: float,
    t3: float,
    cost: float,
) -> None:
    """Add a tick's parts to ``spent`` (microseconds): ``tick``'s, and from the clock's
    readings around the step (t0, t1), the recorder (t2) and a checksum alone (t3). The
    recorder takes the checksum once: the frame is the rest."""
    tick["step"] = t1 - t0 - cost
    tick["frame"] = (t2 - t1) - (t3 - t2)
    tick["checksum"] = t3 - t2 - cost
    for name, seconds in tick.items():
        spent[name].append(max(0.0, seconds) * 1e6)


def _native_parts(replay: replays.Replay, cost: float) -> dict[str, list[float]]:
    """``_parts`` on the native core, as its tick loop runs them: the observation (the OBS
    message, so no encoding of its own), the reply checked from its raw bytes, the step,
    the frame (the recorder's ``applied`` less its checksum) and the checksum."""
    header = replay.header
    game = sim.Game(header.game_map, header.config)
    core = sim.native_core(game)
    recorder = None if core is None else replays.CoreRecorder.for_core(io.BytesIO(), core, header)
    if core is None or recorder is None:
        raise RuntimeError(f"the native core is not available: {sim.native_unavailable()}")
    clock = _clock
    spent: dict[str, list[float]] = {name: [] for name in PART_NAMES}
    memory = _memory(replay)
    checksum_version = _checksum_version(header.version)
    for frame in replay.frames:
        if isinstance(frame, replays.ForfeitFrame):
            break
        tick = dict.fromkeys(PART_NAMES, 0.0)
        raws = [b"".join(struct.pack("<3i", *r) for r in frame.actions[s]) for s in (0, 1)]
        for s in (0, 1):
            t0 = clock()
            core.observe(s, frame.fuel[s])
            t1 = clock()
            core.take(s, len(frame.actions[s]), raws[s])
            t2 = clock()
            tick["observe"] += t1 - t0 - cost
            tick["validate_actions"] += t2 - t1 - cost
        t0 = clock()
        core.step()
        t1 = clock()
        recorder.applied(frame.fuel[0], frame.fuel[1], **memory(frame.tick))
        t2 = clock()
        core.checksum(checksum_version)
        _keep(spent, tick, t0, t1, t2, clock(), cost)
    return spent


def _floor_us(
    blob: bytes, replay: replays.Replay, messages: list[list[bytes]], repeat: int
) -> float | None:
    """The tick's floor: both sides' calls alone (``arena.sandbox.floor_calls``) on the
    recorded messages, each call's least over ``repeat`` fresh controllers, per tick; None
    in a tree without ``floor_calls``."""
    floor_calls = getattr(sandbox, "floor_calls", None)
    if floor_calls is None:
        return None
    header = replay.header
    game = sim.Game(header.game_map, header.config)
    cost = _clock_cost()
    total = 0.0
    for s in (0, 1):
        side = [tick[s] for tick in messages]
        runs = [floor_calls(started(blob, game), side, _clock) for _ in range(repeat)]
        total += sum(max(0.0, least - cost) for least in map(min, zip(*runs, strict=True)))
    return total / max(1, len(messages)) * 1e6


def _verify_rates(data: bytes, repeat: int, native: bool) -> dict[str, float]:
    """Ticks per second of ``verify_replay`` (on the native core or the pure rules), and
    of its floor: the recorded actions stepped and checksummed alone, nothing read."""
    replay = replays.read_replay(data)
    ticks = max(1, len(replay.frames))
    takes = "native" in inspect.signature(replays.verify_replay).parameters
    loop: dict[str, Any] = {"native": native} if takes else {}
    verify = min(_timed(lambda: replays.verify_replay(data, **loop)) for _ in range(repeat))
    header = replay.header
    frames = [f for f in replay.frames if not isinstance(f, replays.ForfeitFrame)]

    def resimulate() -> None:
        game = sim.Game(header.game_map, header.config)
        if native:
            core = sim.native_core(game)
            assert core is not None
            checksum_version = _checksum_version(header.version)
            for frame in frames:
                core.take_records(0, frame.actions[0])
                core.take_records(1, frame.actions[1])
                core.step()
                core.checksum(checksum_version)
        else:
            for frame in frames:
                game.step(frame.actions)
                game.checksum()

    floor = min(_timed(resimulate) for _ in range(repeat))
    return {"verify": ticks / verify, "floor": len(frames) / floor}


def _timed(work: Callable[[], Any]) -> float:
    t0 = _clock()
    work()
    return _clock() - t0


def started(blob: bytes, game: sim.Game, native: bool = True) -> Controller:
    """A controller of ``blob`` after its init as side 0 of ``game`` (default limits);
    ``native`` as ``Controller`` takes it, where the tree has it."""
    limits = Limits()
    choose = "native" in inspect.signature(Controller).parameters
    ctrl = Controller(blob, limits, native=native) if choose else Controller(blob, limits)
    init = encode_init(
        game,
        0,
        seed=1,
        fuel_per_tick=limits.fuel_per_tick,
        max_memory_bytes=limits.max_memory_bytes,
    )
    if ctrl.init(init) is not None:
        raise RuntimeError("the benchmark module failed its init")
    return ctrl


def _call_us(blob: bytes, game: sim.Game, messages: list[bytes], max_records: int) -> list[float]:
    """Microseconds of each ``Controller.tick`` over ``messages`` (a fresh controller)."""
    ctrl = started(blob, game)
    spent = []
    for message in messages:
        t0 = _clock()
        reply = ctrl.tick(message, max_records)
        spent.append((_clock() - t0) * 1e6)
        if isinstance(reply, Fault):
            raise RuntimeError("the benchmark module faulted")
    return spent


def _wasm_us(
    blob: bytes, idle: bytes, replay: replays.Replay, messages: list[list[bytes]], repeat: int
) -> float:
    """The controllers' own wasm time per tick, both sides.

    Each side's recorded OBS messages go to fresh controllers (the same
    messages, so the same guest work), ``repeat`` times; each call keeps its
    least time. Less the same for a module that does nothing, that is the
    guests' time. Maps are point-symmetric, so both sides' INIT messages are
    the same bytes.
    """
    header = replay.header
    game = sim.Game(header.game_map, header.config)
    max_records = header.config.max_units + 1
    total = 0.0
    for s in (0, 1):
        side = [tick[s] for tick in messages]
        for module, sign in ((blob, 1), (idle, -1)):
            runs = [_call_us(module, game, side, max_records) for _ in range(repeat)]
            total += sign * sum(map(min, zip(*runs, strict=True)))
    return max(0.0, total / max(1, len(messages)))


def _checksum_us(width: int, height: int, repeat: int, native: bool = False) -> float:
    """Microseconds per ``Game.checksum`` (or the native core's) on a generated map at tick 0
    (nothing changed)."""
    game = sim.Game(sim.generate_map(1, width, height), sim.Config(width=width, height=height))
    checksum: Callable[[], int] = game.checksum
    if native:
        core = sim.native_core(game)
        assert core is not None
        checksum = core.checksum
    checksum()
    calls = 500
    best = float("inf")
    for _ in range(repeat):
        t0 = _clock()
        for _ in range(calls):
            checksum()
        best = min(best, (_clock() - t0) / calls)
    return best * 1e6


def measure_parts(scenarios: dict[str, bytes], idle: bytes, repeat: int = 5) -> dict[str, Any]:
    """Every figure of this tree, as a JSON-ready mapping (microseconds; ticks per second
    for the replay check)."""
    config = sim.Config()
    cost = _clock_cost()
    native = _has_native()
    out: dict[str, Any] = {
        "one_pass_obs": _flat_encoder() is not None,
        "native": native,
        "scenarios": {},
    }
    for name, blob in scenarios.items():
        data, tick_s = _played(blob, config, repeat)
        replay = replays.read_replay(data)
        passes = [_parts(replay, cost) for _ in range(repeat)]
        messages = passes[0][1]
        ticks = max(1, len(messages))
        wasm = _wasm_us(blob, idle, replay, messages, repeat)
        figures: dict[str, Any] = {
            "parts": _least_mean([spent for spent, _ in passes], ticks),
            "tick_us": tick_s * 1e6,
            "wasm_us": wasm,
            "ticks": ticks,
            "floor_us": _floor_us(blob, replay, messages, repeat),
            "verify": {"pure": _verify_rates(data, repeat, native=False)},
        }
        if native:
            native_data, native_s = _played(blob, config, repeat, native=True)
            if native_data != data:
                raise RuntimeError(f"{name}: the native core recorded other bytes")
            figures["native"] = {
                "parts": _least_mean([_native_parts(replay, cost) for _ in range(repeat)], ticks),
                "tick_us": native_s * 1e6,
            }
            figures["verify"]["native"] = _verify_rates(data, repeat, native=True)
        out["scenarios"][name] = figures
    sizes = ((32, 32), (64, 64))
    out["checksum_us"] = {f"{w}x{h}": _checksum_us(w, h, repeat) for w, h in sizes}
    if native:
        out["native_checksum_us"] = {f"{w}x{h}": _checksum_us(w, h, repeat, True) for w, h in sizes}
    return out


def _least_mean(passes: list[dict[str, list[float]]], ticks: int) -> dict[str, float]:
    """Each part's least time of each tick over the passes, then the mean over the ticks."""
    return {
        part: sum(map(min, zip(*(spent[part] for spent in passes), strict=True))) / ticks
        for part in PART_NAMES
    }


def _main(argv: list[str]) -> int:
    """``_parts.py REPEAT IDLE_WASM NAME=WASM ...``: print this tree's figures as JSON."""
    repeat, idle_path, *pairs = argv
    with open(idle_path, "rb") as f:
        idle = f.read()
    scenarios: dict[str, bytes] = {}
    for pair in pairs:
        name, path = pair.split("=", 1)
        with open(path, "rb") as f:
            scenarios[name] = f.read()
    json.dump(measure_parts(scenarios, idle, int(repeat)), sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
