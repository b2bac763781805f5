"""The re-simulation check: replay the recorded actions through ``sim`` and compare.

A replay is trusted only as far as it re-simulates: every applied frame's
checksum and drawn state must match the rules' own resolution of the recorded
actions, every forfeit must be one the contract would have called, and the
result must be the outcome the rules give.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, BinaryIO

import sim
from replays._format import ForfeitFrame, FrameEncoder, Header, Result, ResultSide
from replays._reader import DEFAULT_LIMITS, ReplayError, ReplayLimits, iter_replay

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
}


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
    budget: int | None  # the header's fuel_per_tick, when recorded


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
        # One encoder for the whole match: delta frames are relative to the frame before.
        encoder = FrameEncoder(game, header.version)
        max_units = game.config.max_units
        fuel_sum = [0, 0]
        fuel_peak = [0, 0]
        ended: sim.Outcome | None = None  # the match ended after the last applied frame
        forfeit_frame: _ForfeitTick | None = None
        budget = header.limits.get("fuel_per_tick")
        if type(budget) is not int:
            budget = None  # limits are metadata; without the budget, fuel goes unchecked
        frames = 0
        for frame in objects:
            if isinstance(frame, Result):
                self._result(frame, game, frames, ended, forfeit_frame, fuel_sum, fuel_peak)
                return
            assert not isinstance(frame, Header)
            t = frame.tick
            frames += 1
            if ended is not None:
                raise _Mismatch(
                    t, f"frame of tick {t}: the match ended after tick {t - 1} ({ended.reason})"
                )
            for s, fuel in enumerate(frame.fuel):
                if budget is not None and fuel > budget:
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
            expected = encoder.applied(game, records, frame.fuel, events, checksum)
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
                if ff is not None and (ff.kind, ff.tick) != (sim.ForfeitKind.INIT, 0):
                    raise _Mismatch(
                        None,
                        f"result: field 'sides[{s}].forfeit': with no frames it must be"
                        f" kind 'init' at tick 0, got {str(ff.kind)!r} at tick {ff.tick}",
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
            # fuel_peak is the largest single tick; fuel_total adds init to the ticks.
            if side.fuel_peak != fuel_peak[s]:
                raise _Mismatch(
                    None,
                    f"{path}.fuel_peak': {side.fuel_peak} is not the largest frame fuel"
                    f" {fuel_peak[s]}",
                )
            if side.fuel_total < fuel_sum[s]:
                raise _Mismatch(
                    None,
                    f"{path}.fuel_total': {side.fuel_total} is below the frames' sum {fuel_sum[s]}",
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
                # An out-of-range count n is recorded as no records at all.
                if broken[s] is None and records[s]:
                    raise _Mismatch(
                        t, f"{where}: forfeit invalid_action, but its actions are valid"
                    )
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
            if ff.kind in charged_whole and budget not in (None, charged):
                raise _Mismatch(
                    t,
                    f"{where}: a {ff.kind} fault is charged fuel_per_tick {budget},"
                    f" but the frame records {charged}",
                )
