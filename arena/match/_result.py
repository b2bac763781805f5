"""What a match is played between and what it gives: contestants and results.

Apart from the runner, so that reading or storing a result never loads the engine.
"""

from __future__ import annotations

import hashlib
import threading
from typing import Any

import msgspec

import replays
import sim
from arena.match._fuel import FuelStats

__all__ = ["Contestant", "MatchResult", "SideResult"]


class Contestant(msgspec.Struct, frozen=True):
    """A controller entering a match: a display name and its module bytes."""

    name: str
    blob: bytes

    def __repr__(self) -> str:
        # The module's bytes stay out of the repr (and so out of tracebacks and logs).
        return f"Contestant(name={self.name!r})"

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.blob).hexdigest()


class SideResult(msgspec.Struct, frozen=True):
    """One side's part of a result: who it was, what it banked and spent, how it forfeited."""

    name: str
    sha256: str
    banked: int
    fuel_total: int
    """Fuel of init and every tick (a fault is charged its whole budget)."""
    fuel_peak: int
    forfeit: sim.Forfeit | None
    tick_fuel: tuple[int, ...] = ()
    """The fuel of each tick played, in order (init not included)."""

    def __repr__(self) -> str:
        # Every field but the fuel of each tick, which is as long as the match.
        shown = (f"{n}={getattr(self, n)!r}" for n in self.__struct_fields__[:-1])
        return f"SideResult({', '.join(shown)})"

    @property
    def fuel_stats(self) -> FuelStats:
        """Mean, median, 90th percentile and peak of the fuel per tick."""
        return FuelStats.of(self.tick_fuel)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "sha256": self.sha256,
            "banked": self.banked,
            "fuel_total": self.fuel_total,
            "fuel_peak": self.fuel_peak,
            "forfeit": self.forfeit.to_dict() if self.forfeit else None,
            "fuel_per_tick": self.fuel_stats.to_dict(),
        }


_SPOOL_LOCK = threading.Lock()


class MatchResult:
    """The outcome of a match, with the replay it was recorded in (immutable).

    A result made in a local worker may carry its replay packed
    (``replays.PackedReplay``: the zstd frame the store keeps, and its sha256),
    and then crosses to the coordinator as that alone; ``replay`` unpacks it on
    first use, and the store writes the frame as it is (docs/execution.md).
    One may also arrive with its frame left in a spool file
    (``replays.SpooledReplay``, ``from_spool``): ``packed_replay`` reads it on
    first use, and pickling the result reads it first, so a copy never shares
    the file. A plain class rather than a dataclass for those lazy fields.
    """

    __slots__ = (
        "__weakref__",
        "_packed",
        "_replay",
        "_spooled",
        "reason",
        "seed",
        "sides",
        "ticks",
        "winner",
    )

    winner: int | None
    """The winning side's index (0 = A, 1 = B), or None for a draw."""
    reason: sim.Reason
    ticks: int
    seed: int
    sides: tuple[SideResult, SideResult]
    _replay: bytes | None
    _packed: replays.PackedReplay | None
    _spooled: replays.SpooledReplay | None

    def __init__(
        self,
        winner: int | None,
        reason: sim.Reason,
        ticks: int,
        seed: int,
        sides: tuple[SideResult, SideResult],
        replay: bytes,
    ) -> None:
        _init(self, winner, reason, ticks, seed, sides, replay, None)

    @classmethod
    def from_spool(
        cls,
        winner: int | None,
        reason: sim.Reason,
        ticks: int,
        seed: int,
        sides: tuple[SideResult, SideResult],
        spooled: replays.SpooledReplay,
    ) -> MatchResult:
        """A result whose packed replay waits in ``spooled``'s file, read on first use (and
        the file deleted): how a local worker's result arrives."""
        result = object.__new__(cls)
        _init(result, winner, reason, ticks, seed, sides, None, None, spooled)
        return result

    @property
    def replay(self) -> bytes:
        """The replay's bytes (unpacked, and checked against its sha256, on first use)."""
        raw = self._replay
        if raw is None:
            packed = self.packed_replay
            assert packed is not None
            raw = packed.unpacked()
            object.__setattr__(self, "_replay", raw)
        return raw

    @property
    def packed_replay(self) -> replays.PackedReplay | None:
        """The replay packed as the store keeps it, if this result carries it so (one left in
        a spool file is read from it now, once)."""
        if self._spooled is not None:
            with _SPOOL_LOCK:  # two threads wanting it read the file once
                spooled = self._spooled
                if spooled is not None:
                    object.__setattr__(self, "_packed", spooled.load())
                    object.__setattr__(self, "_spooled", None)
        return self._packed

    def carrying(self, packed: replays.PackedReplay) -> MatchResult:
        """This result carrying its replay packed (``packed`` made from ``replay``): pickled,
        it holds the frame instead of the bytes."""
        same = object.__new__(MatchResult)
        fields = (self.winner, self.reason, self.ticks, self.seed, self.sides)
        _init(same, *fields, self._replay, packed)
        return same

    @property
    def replay_sha256(self) -> str:
        if self._packed is not None:
            return self._packed.sha256
        if self._spooled is not None:
            return self._spooled.sha256
        return hashlib.sha256(self.replay).hexdigest()

    def to_json(self, replay_path: str = "") -> dict[str, Any]:
        """The stable JSON of ``arena match --json`` (keys fixed by the design)."""
        return {
            "winner": self.winner,
            "reason": str(self.reason),
            "ticks": self.ticks,
            "seed": self.seed,
            "replay": replay_path,
            "replay_sha256": self.replay_sha256,
            "sides": [s.to_dict() for s in self.sides],
        }

    def _key(self) -> tuple[object, ...]:
        return (self.winner, self.reason, self.ticks, self.seed, self.sides, self.replay)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not MatchResult:
            return NotImplemented
        assert isinstance(other, MatchResult)
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"MatchResult(winner={self.winner!r}, reason={self.reason!r}, ticks={self.ticks!r},"
            f" seed={self.seed!r}, sides={self.sides!r})"
        )

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r} (a MatchResult is immutable)")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} (a MatchResult is immutable)")

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        fields = (self.winner, self.reason, self.ticks, self.seed, self.sides)
        if self._packed is not None or self._spooled is not None:
            return _with_packed, (*fields, self.packed_replay)
        return MatchResult, (*fields, self.replay)


def _init(
    result: MatchResult,
    winner: int | None,
    reason: sim.Reason,
    ticks: int,
    seed: int,
    sides: tuple[SideResult, SideResult],
    replay: bytes | None,
    packed: replays.PackedReplay | None,
    spooled: replays.SpooledReplay | None = None,
) -> None:
    put = object.__setattr__
    put(result, "winner", winner)
    put(result, "reason", reason)
    put(result, "ticks", ticks)
    put(result, "seed", seed)
    put(result, "sides", sides)
    put(result, "_replay", replay)
    put(result, "_packed", packed)
    put(result, "_spooled", spooled)


def _with_packed(
    winner: int | None,
    reason: sim.Reason,
    ticks: int,
    seed: int,
    sides: tuple[SideResult, SideResult],
    packed: replays.PackedReplay,
) -> MatchResult:
    """A result unpickled with its replay packed (``MatchResult.__reduce__``)."""
    result = object.__new__(MatchResult)
    _init(result, winner, reason, ticks, seed, sides, None, packed)
    return result
