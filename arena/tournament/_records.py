"""The tournament's vocabulary: formats, the matches it schedules and the results it counts."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

import sim
from arena._errors import ArenaError

__all__ = [
    "Format",
    "Pairing",
    "Played",
    "ResultLike",
    "ScheduleMismatchError",
    "SideLike",
    "TournamentSetupError",
]


class TournamentSetupError(ArenaError):
    """The operator asked for a tournament that cannot be held (the message names the value)."""


class ScheduleMismatchError(ArenaError):
    """A result that the tournament's schedule does not hold, or one recorded twice.

    A store whose results no longer fit the plan it stored (edited by hand, or
    written by another version of the scheduler) raises this on resume.
    """


class Format(StrEnum):
    """How a field is paired (docs/tournaments.md)."""

    ROUND_ROBIN = "round-robin"
    BRACKET = "bracket"
    SWISS = "swiss"
    GAUNTLET = "gauntlet"
    FIELD = "field"
    """A round-robin that grows: each entrant, as it arrives, meets every one before it."""


@dataclass(frozen=True, slots=True)
class Pairing:
    """One match to play: who is side A (0) and side B (1), on which seed.

    ``round`` is the schedule round (no controller plays twice in a round, except in a
    field, whose round is one newcomer's meetings) and ``slot`` the meeting's place in
    it; (round, slot) is unique in a tournament and orders its matches ("the order they
    were scheduled").
    """

    round: int
    slot: int
    a: str
    b: str
    seed: int

    @property
    def key(self) -> str:
        """A stable string naming this match uniquely within its tournament.

        A JSON array ``[round, slot, seed, a, b]``: unambiguous whatever the
        names hold, so a store can keep each match once and a resumed
        tournament can tell what is missing.
        """
        return json.dumps([self.round, self.slot, self.seed, self.a, self.b], separators=(",", ":"))

    @classmethod
    def from_key(cls, key: str) -> Pairing:
        """The pairing ``key`` names (the inverse of ``Pairing.key``).

        ``ScheduleMismatchError`` naming the key if it is not one: a key read
        back from a store may have been written by hand or by another version.
        """
        try:
            fields = json.loads(key)
        except (ValueError, RecursionError):  # not JSON, or arrays nested past the stack
            fields = None
        if (
            isinstance(fields, list)
            and len(fields) == 5
            and all(_is_int(v) for v in fields[:3])
            and all(isinstance(v, str) for v in fields[3:])
        ):
            round_, slot, seed, a, b = fields
            return cls(round_, slot, a, b, seed)
        raise ScheduleMismatchError(
            f"{key!r} is not a pairing key (a JSON array [round, slot, seed, a, b])"
        )

    @property
    def names(self) -> tuple[str, str]:
        return (self.a, self.b)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class SideLike(Protocol):
    """What ``Played.from_result`` reads of one side of a match result."""

    @property
    def banked(self) -> int: ...
    @property
    def fuel_total(self) -> int: ...
    @property
    def forfeit(self) -> sim.Forfeit | None: ...


class ResultLike(Protocol):
    """What ``Played.from_result`` reads of a match result (``arena.MatchResult`` has it)."""

    @property
    def winner(self) -> int | None: ...
    @property
    def reason(self) -> sim.Reason: ...
    @property
    def ticks(self) -> int: ...
    @property
    def sides(self) -> Sequence[SideLike]: ...


@dataclass(frozen=True, slots=True)
class Played:
    """A scheduled match and what the tournament needs of its result.

    Per-side values are (side A, side B). A match that could not be played (the
    host failed twice, ``error`` says why) is still done: it is not played again,
    and it counts for nothing (no win, loss, draw, fuel or rating change).
    """

    pairing: Pairing
    winner: int | None
    """0 (side A), 1 (side B) or None (a draw, or an error)."""
    reason: sim.Reason | None
    """Why the match ended (rules §7); None only for an error."""
    banked: tuple[int, int] = (0, 0)
    fuel_total: tuple[int, int] = (0, 0)
    ticks: int = 0
    forfeits: tuple[sim.ForfeitKind | None, sim.ForfeitKind | None] = (None, None)
    error: str | None = None

    def __post_init__(self) -> None:
        if self.winner not in (0, 1, None):
            raise ValueError(f"winner must be 0, 1 or None, not {self.winner!r}")
        if (self.error is None) == (self.reason is None):
            raise ValueError("a result has a reason, or an error, not both")
        if self.error is not None and self.winner is not None:
            raise ValueError("a match that ended in an error has no winner")

    @property
    def key(self) -> str:
        return self.pairing.key

    @classmethod
    def from_result(cls, pairing: Pairing, result: ResultLike) -> Played:
        """What a tournament keeps of a played match (an ``arena.MatchResult``)."""
        a, b = result.sides
        return cls(
            pairing,
            winner=result.winner,
            reason=result.reason,
            banked=(a.banked, b.banked),
            fuel_total=(a.fuel_total, b.fuel_total),
            ticks=result.ticks,
            forfeits=(a.forfeit.kind if a.forfeit else None, b.forfeit.kind if b.forfeit else None),
        )

    @classmethod
    def failed(cls, pairing: Pairing, error: str) -> Played:
        """A match the host could not play (a worker died twice): recorded, counted as nothing."""
        return cls(pairing, winner=None, reason=None, error=error)

    def to_json(self) -> dict[str, Any]:
        """A plain-JSON shape, for a store that keeps results as documents."""
        p = self.pairing
        return {
            "round": p.round,
            "slot": p.slot,
            "a": p.a,
            "b": p.b,
            "seed": p.seed,
            "winner": self.winner,
            "reason": None if self.reason is None else str(self.reason),
            "banked": list(self.banked),
            "fuel_total": list(self.fuel_total),
            "ticks": self.ticks,
            "forfeits": [None if k is None else str(k) for k in self.forfeits],
            "error": self.error,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Played:
        """The inverse of ``to_json``."""
        fa, fb = data["forfeits"]
        ba, bb = data["banked"]
        ua, ub = data["fuel_total"]
        return cls(
            Pairing(data["round"], data["slot"], data["a"], data["b"], data["seed"]),
            winner=data["winner"],
            reason=None if data["reason"] is None else sim.Reason(data["reason"]),
            banked=(ba, bb),
            fuel_total=(ua, ub),
            ticks=data["ticks"],
            forfeits=(
                None if fa is None else sim.ForfeitKind(fa),
                None if fb is None else sim.ForfeitKind(fb),
            ),
            error=data["error"],
        )
