"""The re-simulation check: replay the recorded actions through ``sim`` and compare.

A replay is trusted only as far as it re-simulates: every applied frame's
checksum and drawn state must match the rules' own resolution of the recorded
actions, every forfeit must be one the contract would have called, every header
value must lie in its range, each side's fuel must add up (its init charge, the
fuel_total less its frames' fuel, within init_fuel, and all of it for a failed
init), and the result must be the outcome the rules give.

What this cannot prove, because the replay alone does not hold it: that the
controllers submitted these actions, faulted where the replay says, were
charged exactly this init fuel, or saw this seed and these vision radii. Only
playing the match again from the modules proves those (``arena replay verify
--modules``); docs/replays.md says exactly what each mode proves.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, fields
from typing import Any, BinaryIO, Final

import sim
from replays._errors import ReplayError
from replays._format import LIMIT_RANGES, ForfeitFrame, Header, Result, ResultSide
from replays._limits import DEFAULT_LIMITS, ReplayLimits
from replays._reader import iter_replay
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


class _Mismatch(Exception):
    def __init__(self, tick: int | None, detail: str) -> None:
        super().__init__(detail)
        self.tick = tick
        self.detail = detail


def verify_replay(source: BinaryIO | bytes, limits: ReplayLimits = DEFAULT_LIMITS) -> VerifyReport:
    """Re-simulate a replay from its header and recorded actions; never raises on bad input.

    A malformed file gives ``ok=False`` with the reader's message (it names the
    tick) as ``detail``.
    """
    check = _Check()
    try:
        check.run(source, limits)
    except ReplayError as exc:
        return VerifyReport(False, check.ticks, None, str(exc))
    except _Mismatch as exc:
        return VerifyReport(False, check.ticks, exc.tick, exc.detail)
    return VerifyReport(True, check.ticks, None, None)


class _Check:
    def __init__(self) -> None:
        self.ticks = 0  # ticks that agreed so far

    def run(self, source: BinaryIO | bytes, limits: ReplayLimits) -> None:
        objects = iter_replay(source, limits)
        header = next(objects)
        assert isinstance(header, Header)
        game = self._game(header)
        budget, init_budget = self._limits(header)
        # One encoder for the whole match: delta frames are relative to the frame before.
        encoder = FrameEncoder(game, header.version)
        max_units = game.config.max_units
        fuel_sum = [0, 0]
        fuel_peak = [0, 0]
        ended: sim.Outcome | None = None  # the match ended after the last applied frame
        forfeit_frame: _ForfeitTick | None = None
        frames = 0
        for frame in objects:
            if isinstance(frame, Result):
                self._result(frame, game, frames, ended, forfeit_frame, fuel_sum, fuel_peak)
                self._init_fuel(frame, frames, fuel_sum, init_budget)
                return
            assert not isinstance(frame, Header)
            t = frame.tick
            frames += 1
            if ended is not None:
                raise _Mismatch(
                    t, f"frame of tick {t}: the match ended after tick {t - 1} ({ended.reason})"
                )
            for s, fuel in enumerate(frame.fuel):
                if fuel > budget:
                    raise _Mismatch(
                        t,
                        f"frame of tick {t}: side {s}'s fuel {fuel} is over fuel_per_tick {budget}",
                    )
                fuel_sum[s] += fuel
                fuel_peak[s] = max(fuel_peak[s], fuel)
            records = frame.actions
            broken = [
                sim.validate_actions(len(records[s]), records[s], game.roster(s), max_units)
                for s in (0, 1)
            ]
            if isinstance(frame, ForfeitFrame):
                # Not applied: the checksum is the state the tick started from. The
                # reader guarantees the result comes next.
                self._checksum(t, frame.checksum, encoder, "of the unchanged state")
                self.ticks = t + 1
                forfeit_frame = _ForfeitTick(t, records, broken, list(frame.fuel), budget)
                continue
            for s in (0, 1):
                if broken[s] is not None:
                    raise _Mismatch(
                        t,
                        f"frame of tick {t}: side {s}'s actions are invalid ({broken[s]})"
                        " yet the tick was applied",
                    )
            events = game.step(records)
            checksum = self._checksum(t, frame.checksum, encoder, "after the step")
            # Notes change nothing in the game (rules §9.9): the reader has judged
            # their shape; only playing the modules again proves them.
            expected = encoder.applied(game, records, frame.fuel, events, checksum, frame.notes)
            if expected != frame:
                for f in fields(frame):
                    got, want = getattr(frame, f.name), getattr(expected, f.name)
                    if got != want:
                        raise _Mismatch(
                            t,
                            f"frame of tick {t}: field {_WIRE_KEY[f.name]!r} differs from the"
                            f" re-simulated state (recorded {got!r}, re-simulated {want!r})",
                        )
            self.ticks = t + 1
            # Whether play goes on does not depend on fuel; only who wins at the end does.
            ended = game.outcome((0, 0))
        raise AssertionError("unreachable: iter_replay ends with the result or raises")

    def _game(self, header: Header) -> sim.Game:
        for key, recorded, implemented in (
            ("rules_version", header.rules_version, sim.RULES_VERSION),
            ("generator_version", header.generator_version, sim.GENERATOR_VERSION),
        ):
            if recorded != implemented:
                raise _Mismatch(
                    None,
                    f"header: field {key!r}: {recorded} is not the version this code"
                    f" implements ({implemented}); verify with a matching arena release",
                )
        try:
            sim.check_map(header.game_map, where="header map")
        except sim.MapError as exc:
            raise _Mismatch(None, f"header: field 'map': {exc}") from None
        return sim.Game(header.game_map, header.config)

    def _limits(self, header: Header) -> tuple[int, int]:
        """Every sandbox limit recorded, each in its range; return fuel_per_tick and init_fuel."""
        recorded = dict(header.limits)
        missing = sorted(set(LIMIT_RANGES) - recorded.keys())
        unknown = sorted(recorded.keys() - set(LIMIT_RANGES))
        if missing or unknown:
            raise _Mismatch(
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
                raise _Mismatch(None, f"header: field 'limits.{name}': {value!r} is outside {span}")
        return int(recorded["fuel_per_tick"]), int(recorded["init_fuel"])

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
                raise _Mismatch(
                    None,
                    f"{path}: {side.fuel_total}, but a failed init is charged all of"
                    f" init_fuel {init_budget}",
                )
            if not 0 <= init <= init_budget:
                raise _Mismatch(
                    None,
                    f"{path}: {side.fuel_total} leaves an init charge of {init} over the"
                    f" frames' {fuel_sum[s]}, outside 0..init_fuel {init_budget}",
                )

    def _checksum(self, t: int, recorded: int, encoder: FrameEncoder, when: str) -> int:
        """The state's checksum (by the replay's format version), once it agrees with the file."""
        actual = encoder.checksum()
        if recorded != actual:
            raise _Mismatch(
                t,
                f"frame of tick {t}: checksum {recorded:#018x} differs from the re-simulated"
                f" {actual:#018x} {when}",
            )
        return actual

    def _result(
        self,
        result: Result,
        game: sim.Game,
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
                raise _Mismatch(None, "result: no tick was played, yet no side forfeited at init")
            for s, ff in enumerate(forfeits):
                if ff is not None and (ff.kind not in _INIT_KINDS or ff.tick != 0):
                    raise _Mismatch(
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
                raise _Mismatch(
                    None,
                    f"result: field 'sides[{s}].forfeit': a forfeit is recorded, but the last"
                    " frame was applied (a forfeit tick's frame carries only t, a, f, x)",
                )
            if ended is None:
                raise _Mismatch(
                    None,
                    f"result: the replay stops after tick {frames - 1}, but the match goes on",
                )
            final = game.outcome((sides[0].fuel_total, sides[1].fuel_total))
            assert final is not None  # ended is not None, and fuel does not change that
            expected = final
        if (result.winner, result.reason) != (expected.winner, expected.reason):
            raise _Mismatch(
                None,
                f"result: fields 'winner', 'reason': recorded {result.winner!r},"
                f" {str(result.reason)!r}; the rules give {expected.winner!r},"
                f" {str(expected.reason)!r}",
            )
        for s, side in enumerate(sides):
            path = f"result: field 'sides[{s}]"
            if side.banked != game.sides[s].banked:
                raise _Mismatch(
                    None,
                    f"{path}.banked': {side.banked} differs from the re-simulated"
                    f" {game.sides[s].banked}",
                )
            # fuel_peak is the largest single tick; fuel_total is checked by _init_fuel.
            if side.fuel_peak != fuel_peak[s]:
                raise _Mismatch(
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
            raise _Mismatch(
                t, f"frame of tick {t}: a forfeit tick's frame, but the result names no forfeit"
            )
        for s, ff in enumerate(forfeits):
            where = f"frame of tick {t}: side {s}"
            if ff is None:
                if broken[s] is not None:
                    raise _Mismatch(t, f"{where}: invalid actions ({broken[s]}) but no forfeit")
                continue
            if ff.tick != t or ff.kind == sim.ForfeitKind.INIT:
                raise _Mismatch(
                    None,
                    f"result: field 'sides[{s}].forfeit': kind {str(ff.kind)!r} at tick"
                    f" {ff.tick} does not match the forfeit frame of tick {t}",
                )
            if ff.kind == sim.ForfeitKind.INVALID_ACTION:
                self._invalid_action(forfeit_frame, s, ff)
                continue
            if records[s]:
                raise _Mismatch(
                    t, f"{where}: a {ff.kind} fault returns no actions, yet actions are recorded"
                )
            # Rules §8: a trapped call (out of fuel and the backstop included)
            # is charged its whole budget.
            budget = forfeit_frame.budget
            charged = forfeit_frame.fuel[s]
            charged_whole = (sim.ForfeitKind.FUEL, sim.ForfeitKind.TRAP, sim.ForfeitKind.TIMEOUT)
            if ff.kind in charged_whole and budget != charged:
                raise _Mismatch(
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
                raise _Mismatch(t, f"{where}: forfeit invalid_action, but its actions are valid")
            if ff.detail != broken:
                raise _Mismatch(
                    None,
                    f"result: field 'sides[{s}].forfeit.detail': {ff.detail!r} is not the rule"
                    f" the records break ({broken!r})",
                )
            return
        # No records: only an action count out of range is recorded so (rules §9.8).
        count = _COUNT_DETAIL.fullmatch(ff.detail)
        if count is None or 0 <= int(count[1]) <= int(count[2]):
            raise _Mismatch(
                None,
                f"result: field 'sides[{s}].forfeit.detail': an invalid_action with no records"
                f" is an action count out of range, got {ff.detail!r}",
            )
