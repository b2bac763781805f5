"""The re-simulation check: replay the recorded actions through ``sim`` and compare.

A replay is trusted only as far as it re-simulates: every applied frame's
checksum and drawn state must match the rules' own resolution of the recorded
actions, every forfeit must be one the contract would have called, every header
value must lie in its range, each side's fuel must add up (its init charge, the
fuel_total less its frames' fuel, within init_fuel, and all of it for a failed
init), each side's memory (version 3) must be sizes a match records
(``replays._memory``), and the result must be the outcome the rules give.

What this cannot prove, because the replay alone does not hold it: that the
controllers submitted these actions, faulted where the replay says, were
charged exactly this init fuel, reached these memory sizes when the replay
says, or saw this seed and these vision radii. Only
playing the match again from the modules proves those (``arena replay verify
--modules``); docs/replays.md says exactly what each mode proves.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO, Final

import msgpack

import sim
from replays._errors import Mismatch, ReplayError
from replays._format import (
    LIMIT_RANGES,
    MEMORY_VERSION,
    DeltaFrame,
    ForfeitFrame,
    Frame,
    Header,
    KeyFrame,
    Memory,
    Result,
    ResultSide,
    checksum_version,
)
from replays._limits import DEFAULT_LIMITS, ReplayLimits
from replays._memory import MemoryCheck, forfeit_memory, sizes_of
from replays._native import frames_of
from replays._reader import UncheckedFrame, iter_unchecked
from replays._recorder import FrameEncoder

__all__ = ["VerifyReport", "verify_replay"]

# A typed frame's field -> its key on the wire, which is what a mismatch names.
_WIRE_KEY = {
    "tick": "t",
    "actions": "a",
    "fuel": "f",
    "units": "u",
    "ore": "g",
    "moves": "m",
    "changes": "h",
    "colony_hp": "k",
    "banked": "b",
    "energy": "e",
    "ore_changed": "o",
    "events": "v",
    "checksum": "x",
    "notes": "n",
    "memory": "l",
}


# The detail of an out-of-range action count (sim.validate_actions), the one
# invalid_action whose records are not recorded.
_COUNT_DETAIL: Final = re.compile(
    r"action count n = (-?\d+) is outside 0\.\.(\d+) \(max_units \+ 1\)"
)
# Where an init forfeit may be recorded: at tick 0, before any frame.
_INIT_KINDS: Final = (sim.ForfeitKind.INIT, sim.ForfeitKind.TIMEOUT)


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """The verdict of ``verify_replay``.

    ``ticks`` is the match's ticks when ``ok``, else the ticks that re-simulated
    in agreement before the fault. ``mismatch_tick`` is the first tick whose
    record disagrees with the rules (None when the fault is in the header, the
    result or the bytes); ``detail`` says what disagreed or was malformed.
    """

    ok: bool
    ticks: int
    mismatch_tick: int | None
    detail: str | None

    def to_json(self) -> dict[str, Any]:
        """The stable JSON of ``arena replay verify --json`` (keys fixed by the design)."""
        return {"ok": self.ok, "ticks": self.ticks, "mismatch_tick": self.mismatch_tick}


@dataclass(frozen=True, slots=True)
class _ForfeitTick:
    """The unapplied frame of a forfeit tick, as judged against the tick's rosters."""

    tick: int
    records: tuple[tuple[sim.Record, ...], tuple[sim.Record, ...]]
    broken: list[str | None]  # what validate_actions said of each side's records
    fuel: list[int]
    budget: int  # the header's fuel_per_tick
    memory: Memory | None  # each side's memory where its calls ended (version 3)


def verify_replay(
    source: BinaryIO | bytes,
    limits: ReplayLimits = DEFAULT_LIMITS,
    *,
    native: bool | None = None,
) -> VerifyReport:
    """Re-simulate a replay from its header and recorded actions; never raises on bad input.

    A malformed file gives ``ok=False`` with the reader's message (it names the
    tick) as ``detail``. ``native`` picks the rules re-simulated on: the native
    core where it is there (None), the pure reference (False), or the native core
    (True: RuntimeError without it); the report is the same.
    """
    check = _Check()
    try:
        check.run(source, limits, native)
    except ReplayError as exc:
        return VerifyReport(False, check.ticks, None, str(exc))
    except Mismatch as exc:
        return VerifyReport(False, check.ticks, exc.tick, exc.detail)
    return VerifyReport(True, check.ticks, None, None)


class _Engine:
    """The rules a replay is re-simulated on: the pure reference (``sim.Game`` and the
    ``FrameEncoder``), or the native core (``_NativeEngine``). The check asks both the
    same questions, in the same order, and gets the same answers."""

    def __init__(self, game: sim.Game, version: int) -> None:
        self._game = game
        self._encoder = FrameEncoder(game, version)
        self._max_units = game.config.max_units
        self._events = sim.TickEvents()

    def broken(self, side: int, records: Sequence[sim.Record]) -> str | None:
        """The rule ``records`` break against the side's roster at the tick's start, or None."""
        roster = self._game.roster(side)
        return sim.validate_actions(len(records), records, roster, self._max_units)

    def step(self, frame: KeyFrame | DeltaFrame) -> None:
        """Resolve the tick from the frame's records (``broken`` passed both sides')."""
        self._events = self._game.step(frame.actions)

    def checksum(self) -> int:
        """The checksum of the state now, in the replay's format version."""
        return self._encoder.checksum()

    def expected(self, frame: KeyFrame | DeltaFrame, checksum: int, memory: Memory | None) -> Frame:
        """The frame the rules give for the tick just stepped, with the recorded fuel and
        notes, and ``memory``, the sizes the recorded frames leave after it."""
        return self._encoder.applied(
            self._game, frame.actions, frame.fuel, self._events, checksum, frame.notes, memory
        )

    def outcome(self, fuel_totals: tuple[int, int]) -> sim.Outcome | None:
        return self._game.outcome(fuel_totals)

    def banked(self, side: int) -> int:
        return self._game.sides[side].banked


# What _NativeEngine.fast says of a frame it did not take whole.
_NOT_TAKEN: Final = "not taken"  # the core is as it was
_STEPPED: Final = "stepped"  # the tick was stepped, and its bytes differ from the rules'


class _NativeEngine(_Engine):
    """``_Engine`` on the native core, with ``fast``: a whole tick checked by its bytes."""

    def __init__(
        self, game: sim.Game, version: int, core: sim.NativeCore, frames: Any, fast: bool
    ) -> None:
        super().__init__(game, version)
        self._core = core
        self._version = version
        self._applied = frames.applied
        self._max_ticks = game.config.max_ticks
        self._built = b""  # the frame fast built for a tick it stepped, for expected
        self.fast_allowed = fast

    def broken(self, side: int, records: Sequence[sim.Record]) -> str | None:
        if self._core.take_records(side, records):  # kept for the step
            return None
        roster = self._core.roster(side)
        return sim.validate_actions(len(records), records, roster, self._max_units)

    def step(self, frame: KeyFrame | DeltaFrame) -> None:
        self._core.step()

    def checksum(self) -> int:
        return self._core.checksum(checksum_version(self._version))

    def expected(self, frame: KeyFrame | DeltaFrame, checksum: int, memory: Memory | None) -> Frame:
        # A frame is built once a tick (it is the base of the next one's deltas): the one
        # ``fast`` built, when it stepped this tick.
        data, self._built = self._built, b""
        if not data:
            data = self._applied(frame.fuel[0], frame.fuel[1], frame.notes, memory)
        wire = msgpack.unpackb(data)
        return KeyFrame.from_wire(wire) if "u" in wire else DeltaFrame.from_wire(wire)

    def fast(
        self, wire: object, raw: bytes, budget: int, memory: Memory | None
    ) -> tuple[int, int, Memory | None] | str:
        """Play a tick from its unchecked wire object and check it by its bytes alone.

        Only a plain applied frame is taken: two valid sides of records, fuel in
        0..``budget``, no notes, and in version 3 sizes ("l", or ``memory``, the ones the
        frames before leave); anything else is ``_NOT_TAKEN``, the core as it was. A
        taken tick is stepped: its fuel and sizes when the frame's bytes are the ones this
        code writes for it (so it cannot be malformed either: the schema has nothing to
        add), else ``_STEPPED``, for the checked way to say what differs.
        """
        if type(wire) is not dict or "k" not in wire or "n" in wire:
            return _NOT_TAKEN
        actions, fuel = wire.get("a"), wire.get("f")
        if type(actions) is not list or type(fuel) is not list:
            return _NOT_TAKEN
        if len(actions) != 2 or len(fuel) != 2:
            return _NOT_TAKEN
        if type(actions[0]) is not list or type(actions[1]) is not list:
            return _NOT_TAKEN  # the core takes a list only; the checked way says what it is
        fa, fb = fuel
        if (
            type(fa) is not int
            or type(fb) is not int
            or not (0 <= fa <= budget and 0 <= fb <= budget)
        ):
            return _NOT_TAKEN
        if self._version >= MEMORY_VERSION:
            memory = sizes_of(wire.get("l", memory))
            if memory is None:
                return _NOT_TAKEN
        core = self._core
        if not (core.take_packed(0, actions[0]) and core.take_packed(1, actions[1])):
            return _NOT_TAKEN
        core.step()
        data = self._applied(fa, fb, None, memory)
        if data == raw:
            return fa, fb, memory
        self._built = data
        return _STEPPED

    def outcome(self, fuel_totals: tuple[int, int]) -> sim.Outcome | None:
        core = self._core
        if not core.ended:
            return None
        (hp_a, banked_a), (hp_b, banked_b) = core.totals(0), core.totals(1)
        return sim.judge(
            (hp_a, hp_b), (banked_a, banked_b), core.tick, self._max_ticks, fuel_totals
        )

    def banked(self, side: int) -> int:
        return self._core.totals(side)[1]


def _engine(game: sim.Game, header: Header, limits: ReplayLimits, native: bool | None) -> _Engine:
    """The native engine where it is there (and ``native`` is not False), else the pure one."""
    if native is not False:
        core = sim.native_core(game)
        frames = None if core is None else frames_of(core, header.version)
        if core is not None and frames is not None:
            # Bytes equal to this code's frame pass the schema, unless the reader's bounds
            # are tighter than the match's own: then every frame is checked.
            max_units = game.config.max_units
            fast = (
                limits.max_units_per_side >= max_units
                and limits.max_records_per_side >= max_units + 1
            )
            return _NativeEngine(game, header.version, core, frames, fast)
        if native:
            raise RuntimeError(f"the native core is not available: {sim.native_unavailable()}")
    return _Engine(game, header.version)


class _Check:
    def __init__(self) -> None:
        self.ticks = 0  # ticks that agreed so far

    def run(self, source: BinaryIO | bytes, limits: ReplayLimits, native: bool | None) -> None:
        objects = iter_unchecked(source, limits)
        header = next(objects)
        assert isinstance(header, Header)
        game = self._game(header)
        budget, init_budget, memory_cap = self._limits(header)
        sizes = MemoryCheck(header.version, memory_cap)
        engine = _engine(game, header, limits, native)
        fast = engine.fast if isinstance(engine, _NativeEngine) and engine.fast_allowed else None
        fuel_sum = [0, 0]
        fuel_peak = [0, 0]
        ended: sim.Outcome | None = None  # the match ended after the last applied frame
        forfeit_frame: _ForfeitTick | None = None
        frames = 0
        for item in objects:
            if isinstance(item, Result):
                self._result(item, engine, frames, ended, forfeit_frame, fuel_sum, fuel_peak)
                if forfeit_frame is not None and forfeit_frame.memory is not None:
                    forfeit_memory(forfeit_frame.tick, forfeit_frame.memory, item, memory_cap)
                self._init_fuel(item, frames, fuel_sum, init_budget)
                return
            assert isinstance(item, UncheckedFrame)
            t = item.tick
            frames += 1
            stepped = False
            if fast is not None and ended is None:
                played = fast(item.wire, item.raw, budget, sizes.now)
                if isinstance(played, tuple):  # the tick agrees, byte for byte
                    *fuel_ab, now = played
                    for s in (0, 1):
                        fuel_sum[s] += fuel_ab[s]
                        fuel_peak[s] = max(fuel_peak[s], fuel_ab[s])
                    if now is not None:  # bytes this code writes: "l" where it belongs
                        sizes.advance(t, now, True)
                    self.ticks = t + 1
                    ended = engine.outcome((0, 0))
                    continue
                stepped = played == _STEPPED
            frame = item.checked()
            if ended is not None:
                raise Mismatch(
                    t, f"frame of tick {t}: the match ended after tick {t - 1} ({ended.reason})"
                )
            for s, fuel in enumerate(frame.fuel):
                if fuel > budget:
                    raise Mismatch(
                        t,
                        f"frame of tick {t}: side {s}'s fuel {fuel} is over fuel_per_tick {budget}",
                    )
                fuel_sum[s] += fuel
                fuel_peak[s] = max(fuel_peak[s], fuel)
            memory = sizes.take(t, frame.memory, not isinstance(frame, ForfeitFrame))
            if not stepped:  # (a stepped tick's records were valid at its start)
                records = frame.actions
                broken = [engine.broken(s, records[s]) for s in (0, 1)]
                if isinstance(frame, ForfeitFrame):
                    # Not applied: the checksum is the state the tick started from. The
                    # reader guarantees the result comes next.
                    self._checksum(t, frame.checksum, engine, "of the unchanged state")
                    self.ticks = t + 1
                    forfeit_frame = _ForfeitTick(
                        t, records, broken, list(frame.fuel), budget, memory
                    )
                    continue
                for s in (0, 1):
                    if broken[s] is not None:
                        raise Mismatch(
                            t,
                            f"frame of tick {t}: side {s}'s actions are invalid ({broken[s]})"
                            " yet the tick was applied",
                        )
                engine.step(frame)
            assert not isinstance(frame, ForfeitFrame)
            checksum = self._checksum(t, frame.checksum, engine, "after the step")
            # Notes change nothing in the game (rules §9.9): the reader has judged
            # their shape; only playing the modules again proves them.
            expected = engine.expected(frame, checksum, memory)
            if expected != frame:
                for name in frame.__struct_fields__:
                    got, want = getattr(frame, name), getattr(expected, name)
                    if got != want:
                        raise Mismatch(
                            t,
                            f"frame of tick {t}: field {_WIRE_KEY[name]!r} differs from the"
                            f" re-simulated state (recorded {got!r}, re-simulated {want!r})",
                        )
            self.ticks = t + 1
            # Whether play goes on does not depend on fuel; only who wins at the end does.
            ended = engine.outcome((0, 0))
        raise AssertionError("unreachable: iter_unchecked ends with the result or raises")

    def _game(self, header: Header) -> sim.Game:
        for key, recorded, implemented in (
            ("rules_version", header.rules_version, sim.RULES_VERSION),
            ("generator_version", header.generator_version, sim.GENERATOR_VERSION),
        ):
            if recorded != implemented:
                raise Mismatch(
                    None,
                    f"header: field {key!r}: {recorded} is not the version this code"
                    f" implements ({implemented}); verify with a matching arena release",
                )
        try:
            sim.check_map(header.game_map, where="header map")
        except sim.MapError as exc:
            raise Mismatch(None, f"header: field 'map': {exc}") from None
        return sim.Game(header.game_map, header.config)

    def _limits(self, header: Header) -> tuple[int, int, int]:
        """Every sandbox limit recorded, each in its range; return fuel_per_tick, init_fuel
        and max_memory_bytes."""
        recorded = dict(header.limits)
        missing = sorted(set(LIMIT_RANGES) - recorded.keys())
        unknown = sorted(recorded.keys() - set(LIMIT_RANGES))
        if missing or unknown:
            raise Mismatch(
                None,
                f"header: field 'limits': missing {', '.join(missing) or 'nothing'},"
                f" unknown {', '.join(unknown) or 'nothing'}",
            )
        for name, (kind, low, high) in LIMIT_RANGES.items():
            value = recorded[name]
            if kind is int:
                ok = type(value) is int and low <= value <= high
            else:
                ok = type(value) in (int, float) and math.isfinite(value) and low < value <= high
            if not ok:
                span = f"{low}..{high}" if kind is int else f"({low}, {high}] s"
                raise Mismatch(None, f"header: field 'limits.{name}': {value!r} is outside {span}")
        return (
            int(recorded["fuel_per_tick"]),
            int(recorded["init_fuel"]),
            int(recorded["max_memory_bytes"]),
        )

    def _init_fuel(
        self, result: Result, frames: int, fuel_sum: list[int], init_budget: int
    ) -> None:
        """fuel_total is the init charge plus the frames' fuel (rules §8.6).

        The replay records no init charge of its own: it is what fuel_total
        leaves over the frames, and must lie in 0..init_fuel; a failed init is
        charged all of init_fuel.
        """
        for s, side in enumerate(result.sides):
            init = side.fuel_total - fuel_sum[s]
            path = f"result: field 'sides[{s}].fuel_total'"
            failed = frames == 0 and side.forfeit is not None
            if failed and init != init_budget:
                raise Mismatch(
                    None,
                    f"{path}: {side.fuel_total}, but a failed init is charged all of"
                    f" init_fuel {init_budget}",
                )
            if not 0 <= init <= init_budget:
                raise Mismatch(
                    None,
                    f"{path}: {side.fuel_total} leaves an init charge of {init} over the"
                    f" frames' {fuel_sum[s]}, outside 0..init_fuel {init_budget}",
                )

    def _checksum(self, t: int, recorded: int, engine: _Engine, when: str) -> int:
        """The state's checksum (by the replay's format version), once it agrees with the file."""
        actual = engine.checksum()
        if recorded != actual:
            raise Mismatch(
                t,
                f"frame of tick {t}: checksum {recorded:#018x} differs from the re-simulated"
                f" {actual:#018x} {when}",
            )
        return actual

    def _result(
        self,
        result: Result,
        engine: _Engine,
        frames: int,
        ended: sim.Outcome | None,
        forfeit_frame: _ForfeitTick | None,
        fuel_sum: list[int],
        fuel_peak: list[int],
    ) -> None:
        sides: tuple[ResultSide, ResultSide] = result.sides
        forfeits = [side.forfeit for side in sides]
        forfeited = (forfeits[0] is not None, forfeits[1] is not None)
        if frames == 0:
            # Only a forfeit at init ends a match before its first tick.
            if not any(forfeited):
                raise Mismatch(None, "result: no tick was played, yet no side forfeited at init")
            for s, ff in enumerate(forfeits):
                if ff is not None and (ff.kind not in _INIT_KINDS or ff.tick != 0):
                    raise Mismatch(
                        None,
                        f"result: field 'sides[{s}].forfeit': with no frames it must be"
                        f" kind 'init' or 'timeout' at tick 0, got {str(ff.kind)!r} at"
                        f" tick {ff.tick}",
                    )
            expected = sim.forfeit_outcome(forfeited)
        elif forfeit_frame is not None:
            self._forfeits(forfeit_frame, forfeits)
            expected = sim.forfeit_outcome(forfeited)
        else:
            if any(forfeited):
                s = 0 if forfeited[0] else 1
                raise Mismatch(
                    None,
                    f"result: field 'sides[{s}].forfeit': a forfeit is recorded, but the last"
                    " frame was applied (a forfeit tick's frame carries only t, a, f, x)",
                )
            if ended is None:
                raise Mismatch(
                    None,
                    f"result: the replay stops after tick {frames - 1}, but the match goes on",
                )
            final = engine.outcome((sides[0].fuel_total, sides[1].fuel_total))
            assert final is not None  # ended is not None, and fuel does not change that
            expected = final
        if (result.winner, result.reason) != (expected.winner, expected.reason):
            raise Mismatch(
                None,
                f"result: fields 'winner', 'reason': recorded {result.winner!r},"
                f" {str(result.reason)!r}; the rules give {expected.winner!r},"
                f" {str(expected.reason)!r}",
            )
        for s, side in enumerate(sides):
            path = f"result: field 'sides[{s}]"
            banked = engine.banked(s)
            if side.banked != banked:
                raise Mismatch(
                    None,
                    f"{path}.banked': {side.banked} differs from the re-simulated {banked}",
                )
            # fuel_peak is the largest single tick; fuel_total is checked by _init_fuel.
            if side.fuel_peak != fuel_peak[s]:
                raise Mismatch(
                    None,
                    f"{path}.fuel_peak': {side.fuel_peak} is not the largest frame fuel"
                    f" {fuel_peak[s]}",
                )

    def _forfeits(
        self,
        forfeit_frame: _ForfeitTick,
        forfeits: list[sim.Forfeit | None],
    ) -> None:
        """A forfeit tick: the recorded forfeits must be exactly the ones the contract calls."""
        t, records, broken = forfeit_frame.tick, forfeit_frame.records, forfeit_frame.broken
        if forfeits == [None, None]:
            raise Mismatch(
                t, f"frame of tick {t}: a forfeit tick's frame, but the result names no forfeit"
            )
        for s, ff in enumerate(forfeits):
            where = f"frame of tick {t}: side {s}"
            if ff is None:
                if broken[s] is not None:
                    raise Mismatch(t, f"{where}: invalid actions ({broken[s]}) but no forfeit")
                continue
            if ff.tick != t or ff.kind == sim.ForfeitKind.INIT:
                raise Mismatch(
                    None,
                    f"result: field 'sides[{s}].forfeit': kind {str(ff.kind)!r} at tick"
                    f" {ff.tick} does not match the forfeit frame of tick {t}",
                )
            if ff.kind == sim.ForfeitKind.INVALID_ACTION:
                self._invalid_action(forfeit_frame, s, ff)
                continue
            if records[s]:
                raise Mismatch(
                    t, f"{where}: a {ff.kind} fault returns no actions, yet actions are recorded"
                )
            # Rules §8: a trapped call (out of fuel and the backstop included)
            # is charged its whole budget.
            budget = forfeit_frame.budget
            charged = forfeit_frame.fuel[s]
            charged_whole = (sim.ForfeitKind.FUEL, sim.ForfeitKind.TRAP, sim.ForfeitKind.TIMEOUT)
            if ff.kind in charged_whole and budget != charged:
                raise Mismatch(
                    t,
                    f"{where}: a {ff.kind} fault is charged fuel_per_tick {budget},"
                    f" but the frame records {charged}",
                )

    def _invalid_action(self, forfeit_frame: _ForfeitTick, s: int, ff: sim.Forfeit) -> None:
        """An invalid_action forfeit names exactly the rule the recorded records break."""
        t = forfeit_frame.tick
        where = f"frame of tick {t}: side {s}"
        broken = forfeit_frame.broken[s]
        if forfeit_frame.records[s]:
            if broken is None:
                raise Mismatch(t, f"{where}: forfeit invalid_action, but its actions are valid")
            if ff.detail != broken:
                raise Mismatch(
                    None,
                    f"result: field 'sides[{s}].forfeit.detail': {ff.detail!r} is not the rule"
                    f" the records break ({broken!r})",
                )
            return
        # No records: only an action count out of range is recorded so (rules §9.8).
        count = _COUNT_DETAIL.fullmatch(ff.detail)
        if count is None or 0 <= int(count[1]) <= int(count[2]):
            raise Mismatch(
                None,
                f"result: field 'sides[{s}].forfeit.detail': an invalid_action with no records"
                f" is an action count out of range, got {ff.detail!r}",
            )
