"""One match as a pure function: (config, map or seed, two modules) -> (result, replay bytes).

Importing this module loads the sandbox's engine (wasmtime): it is where matches play.
"""

from __future__ import annotations

import io
import os
import warnings

import msgspec

import replays
import sim
from arena._errors import ArenaError
from arena.match._contract import decode_actions, encode_init, encode_obs_for
from arena.match._job import MatchJob
from arena.match._result import Contestant, MatchResult, SideResult
from arena.sandbox import WASMTIME_VERSION, Controller, Fault, Limits

__all__ = ["play", "run_match"]


def play(job: MatchJob) -> MatchResult:
    """Play one job in this process: ``run_match`` of what the job holds. This is the whole
    of what a worker does (``arena.executors``), and what ``arena match`` does."""
    return run_match(
        job.a,
        job.b,
        seed=job.seed,
        config=job.config,
        limits=job.limits,
        game_map=job.game_map,
        case=job.case,
        replay_version=job.replay_version,
    )


def run_match(
    a: Contestant,
    b: Contestant,
    *,
    seed: int = 0,
    config: sim.Config | None = None,
    limits: Limits | None = None,
    game_map: sim.GameMap | None = None,
    case: replays.CaseRef | None = None,
    replay_version: int = replays.VERSION,
    native: bool | None = None,
) -> MatchResult:
    """Play ``a`` (side 0) against ``b`` (side 1) and record the replay.

    ``replay_version`` is the replay format version written (any of
    ``replays.SUPPORTED_VERSIONS``): the one a case records in
    (``ReplaySpec.recorded_version``), or the recorded one when a match is
    played again to verify its replay. Version 3 records each side's memory
    size after every tick's calls (``Controller.last_memory``).
    Deterministic: the same arguments give the same result and replay bytes,
    unless the wall-clock backstop fires (forfeit kind ``timeout``).

    ``native`` picks the tick loop: the native core (True: an ``ArenaError`` without
    it), the pure rules (False), or the native core where it is there (None, saying
    once per process when it is not). Both give the same result and bytes.
    """
    if not 0 <= seed < 1 << 32:
        raise ArenaError(f"seed {seed} is not an unsigned 32-bit integer")
    if type(replay_version) is not int or replay_version not in replays.SUPPORTED_VERSIONS:
        supported = ", ".join(map(str, replays.SUPPORTED_VERSIONS))
        raise ArenaError(
            f"replay format version {replay_version!r} is not one this arena writes ({supported})"
        )
    config = config or sim.Config()
    limits = limits or Limits()
    if game_map is None:
        game_map = sim.generate_map(seed, config.width, config.height)
    elif (game_map.width, game_map.height) != (config.width, config.height):
        # The map file decides the size.
        config = config.replace(width=game_map.width, height=game_map.height)
    game = sim.Game(game_map, config)
    contestants = (a, b)
    # Names and details enter the replay bounded (and so does the result JSON).
    names = (
        replays.clip(a.name, replays.MAX_NAME_CHARS),
        replays.clip(b.name, replays.MAX_NAME_CHARS),
    )
    out = io.BytesIO()
    header = replays.Header.for_game(
        game,
        (replays.SideInfo(names[0], a.sha256), replays.SideInfo(names[1], b.sha256)),
        seed=seed,
        limits=limits.to_dict(),
        wasmtime=WASMTIME_VERSION,
        case=case,
    )
    if replay_version != header.version:
        header = msgspec.structs.replace(header, version=replay_version)
    # native=False keeps every part to the reference: the controllers' calls too.
    ctrls = (
        Controller(a.blob, limits, native=native is not False),
        Controller(b.blob, limits, native=native is not False),
    )
    forfeits: list[sim.Forfeit | None] = [None, None]
    for s, ctrl in enumerate(ctrls):
        message = encode_init(
            game,
            s,
            seed=seed,
            fuel_per_tick=limits.fuel_per_tick,
            max_memory_bytes=limits.max_memory_bytes,
        )
        fault = ctrl.init(message)
        if fault is not None:
            # init, or timeout when the wall-clock backstop fired during init.
            forfeits[s] = _forfeit(0, fault.kind, fault.detail)

    # The tick loop plays on the native core where it is there, else on the pure rules:
    # the same bytes either way (sim._native).
    core = sim.native_core(game) if native is not False else None
    core_recorder = None if core is None else replays.CoreRecorder.for_core(out, core, header)
    if native and core_recorder is None:
        raise ArenaError(f"the native core is not available: {_native_unavailable()}")
    if native is None and core_recorder is None:
        _say_once_pure()
    tick_fuel: tuple[list[int], list[int]] = ([], [])
    play = (
        _play_pure(game, replays.Recorder(out, game, header), ctrls, forfeits, tick_fuel)
        if core is None or core_recorder is None
        else _play_native(core, core_recorder, ctrls, forfeits, tick_fuel, config)
    )
    outcome, ticks, banked, recorder = play

    sides = tuple(
        SideResult(
            name=names[s],
            sha256=c.sha256,
            banked=banked[s],
            fuel_total=ctrls[s].fuel_total,
            fuel_peak=ctrls[s].fuel_peak,
            forfeit=forfeits[s],
            tick_fuel=tuple(tick_fuel[s]),
        )
        for s, c in enumerate(contestants)
    )
    recorder.result(
        replays.Result(
            winner=outcome.winner,
            reason=outcome.reason,
            ticks=ticks,
            sides=(_result_side(sides[0]), _result_side(sides[1])),
        )
    )
    return MatchResult(
        winner=outcome.winner,
        reason=outcome.reason,
        ticks=ticks,
        seed=seed,
        sides=(sides[0], sides[1]),
        replay=out.getvalue(),
    )


# What a tick loop gives back: the outcome, the ticks decided, each side's banked
# score, and the recorder, which writes the result.
_Played = tuple[sim.Outcome, int, tuple[int, int], "replays.Recorder | replays.CoreRecorder"]


def _play_pure(
    game: sim.Game,
    recorder: replays.Recorder,
    ctrls: tuple[Controller, Controller],
    forfeits: list[sim.Forfeit | None],
    tick_fuel: tuple[list[int], list[int]],
) -> _Played:
    """The tick loop on the pure rules (``sim.Game``): the reference."""
    config = game.config
    outcome: sim.Outcome | None = None
    ticks = 0
    if any(forfeits):
        outcome = _forfeit_outcome(forfeits)
    max_records = config.max_units + 1
    max_units = config.max_units
    validate = sim.validate_actions
    sides_ctrls = tuple(enumerate(ctrls))
    noting = ctrls[0].has_note or ctrls[1].has_note
    while outcome is None:
        tick = game.tick
        submitted: list[list[sim.Record]] = [[], []]
        for s, ctrl in sides_ctrls:
            reply = ctrl.tick(encode_obs_for(game, s, ctrl.last_fuel), max_records)
            if isinstance(reply, Fault):
                forfeits[s] = _forfeit(tick, reply.kind, reply.detail)
                continue
            n, raw = reply
            records = decode_actions(raw)
            submitted[s] = records
            broken = validate(n, records, game.roster(s), max_units)
            if broken is not None:
                forfeits[s] = _forfeit(tick, sim.ForfeitKind.INVALID_ACTION, broken)
        fuel = [ctrls[0].last_fuel, ctrls[1].last_fuel]
        notes = _notes(ctrls, forfeits) if noting else None
        memory = (ctrls[0].last_memory, ctrls[1].last_memory)
        tick_fuel[0].append(fuel[0])
        tick_fuel[1].append(fuel[1])
        ticks = tick + 1
        if forfeits[0] or forfeits[1]:
            recorder.forfeit(submitted, fuel, notes, memory)
            outcome = _forfeit_outcome(forfeits)
            break
        events = game.step(submitted)
        recorder.applied(submitted, fuel, events, notes, memory)
        outcome = game.outcome((ctrls[0].fuel_total, ctrls[1].fuel_total))
    return outcome, ticks, (game.sides[0].banked, game.sides[1].banked), recorder


def _play_native(
    core: sim.NativeCore,
    recorder: replays.CoreRecorder,
    ctrls: tuple[Controller, Controller],
    forfeits: list[sim.Forfeit | None],
    tick_fuel: tuple[list[int], list[int]],
    config: sim.Config,
) -> _Played:
    """``_play_pure`` on a native core: the core observes, checks the replies, steps and
    frames the tick; a refused reply's message, and a forfeit tick, come from the
    reference."""
    outcome: sim.Outcome | None = _forfeit_outcome(forfeits) if any(forfeits) else None
    ticks = 0
    max_records = config.max_units + 1
    observe, take, step, applied = core.observe, core.take, core.step, recorder.applied
    ctrl_a, ctrl_b = ctrls
    fuel_a, fuel_b = tick_fuel
    noting = ctrl_a.has_note or ctrl_b.has_note
    raws = [b"", b""]
    while outcome is None:
        tick = core.tick
        for s, ctrl in enumerate(ctrls):
            reply = ctrl.tick(observe(s, ctrl.last_fuel), max_records)
            if isinstance(reply, Fault):
                raws[s] = b""
                forfeits[s] = _forfeit(tick, reply.kind, reply.detail)
                continue
            n, raw = reply
            raws[s] = raw
            if not take(s, n, raw):
                broken = sim.validate_actions(
                    n, decode_actions(raw), core.roster(s), config.max_units
                )
                if broken is None:  # a host bug: the two implementations disagree
                    raise RuntimeError(f"the native core refused a valid reply at tick {tick}")
                forfeits[s] = _forfeit(tick, sim.ForfeitKind.INVALID_ACTION, broken)
        notes = _notes(ctrls, forfeits) if noting else None
        fuel_a.append(ctrl_a.last_fuel)
        fuel_b.append(ctrl_b.last_fuel)
        ticks = tick + 1
        memory = (ctrl_a.last_memory, ctrl_b.last_memory)
        if forfeits[0] or forfeits[1]:
            submitted = [decode_actions(raws[0]), decode_actions(raws[1])]
            recorder.forfeit(submitted, [ctrl_a.last_fuel, ctrl_b.last_fuel], notes, memory)
            outcome = _forfeit_outcome(forfeits)
            break
        step()
        applied(ctrl_a.last_fuel, ctrl_b.last_fuel, notes, memory)
        if core.ended:
            (hp_a, banked_a), (hp_b, banked_b) = core.totals(0), core.totals(1)
            outcome = sim.judge(
                (hp_a, hp_b),
                (banked_a, banked_b),
                core.tick,
                config.max_ticks,
                (ctrl_a.fuel_total, ctrl_b.fuel_total),
            )
    return outcome, ticks, (core.totals(0)[1], core.totals(1)[1]), recorder


def _notes(
    ctrls: tuple[Controller, Controller], forfeits: list[sim.Forfeit | None]
) -> replays.Notes:
    """The tick's debug notes (rules §9.9), only from sides whose calls did not fault; a
    match without the export records none (the loops ask only when one has it)."""
    return (
        None if forfeits[0] else ctrls[0].last_note,
        None if forfeits[1] else ctrls[1].last_note,
    )


def _native_unavailable() -> str:
    return sim.native_unavailable() or "its frame encoder is not built"


_said: list[bool] = []


def _say_once_pure() -> None:
    """Say once per process that matches play on the pure rules, and why; not when
    FORAY_NATIVE=0 asked for them."""
    if not _said and os.environ.get("FORAY_NATIVE") != "0":
        _said.append(True)
        warnings.warn(
            f"the native core is not available ({_native_unavailable()}): matches play on"
            " the pure Python rules, which give the same bytes",
            RuntimeWarning,
            stacklevel=3,
        )


def _result_side(side: SideResult) -> replays.ResultSide:
    return replays.ResultSide(side.banked, side.fuel_total, side.fuel_peak, side.forfeit)


def _forfeit(tick: int, kind: sim.ForfeitKind, detail: str) -> sim.Forfeit:
    return sim.Forfeit(tick, kind, replays.clip(detail, replays.MAX_DETAIL_CHARS))


def _forfeit_outcome(forfeits: list[sim.Forfeit | None]) -> sim.Outcome:
    return sim.forfeit_outcome((forfeits[0] is not None, forfeits[1] is not None))
