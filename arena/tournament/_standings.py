"""Standings: the counts, the tie-breaks, the per-pair win matrix and the ratings.

``Tally`` is fed each counted result once, in any order (sums do not care),
and the ratings in schedule order (the scheduler holds results back until
every earlier match is in), so a resumed tournament ends with the very same
standings as an uninterrupted one.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from openskill.models import PlackettLuce, PlackettLuceRating

import sim
from arena.tournament._records import Format, Played

__all__ = [
    "GauntletRow",
    "GauntletSide",
    "Rating",
    "StandingRow",
    "Standings",
    "Tally",
    "WinMatrix",
]

KINDS = tuple(sim.ForfeitKind)


def _kinds_json(counts: Mapping[sim.ForfeitKind, int]) -> dict[str, int]:
    return {str(kind): counts.get(kind, 0) for kind in KINDS}


@dataclass(frozen=True, slots=True)
class Rating:
    """An openskill (Plackett-Luce) rating: the skill estimate ``mu`` and its uncertainty."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """mu - 3 sigma: a skill the entrant very probably has (openskill's ``ordinal()``)."""
        return self.mu - 3 * self.sigma

    def to_json(self) -> dict[str, float]:
        return {"mu": self.mu, "sigma": self.sigma, "ordinal": self.ordinal}


@dataclass(frozen=True, slots=True)
class StandingRow:
    """One entrant's line of the standings. Counts are matches; errors count as none."""

    rank: int
    """1..n, never shared, in every format (a gauntlet's too: by wins, like any)."""
    name: str
    wins: int
    losses: int
    draws: int
    forfeits: int
    forfeit_kinds: Mapping[sim.ForfeitKind, int] = field(hash=False)
    """Forfeits per kind (every kind present, zero or not)."""
    fuel_total: int
    banked: int
    ticks: int
    errors: int
    rating: Rating
    reached: int | None = None
    """Bracket only: the bracket round reached (the champion's is the number of rounds)."""

    @property
    def matches(self) -> int:
        return self.wins + self.losses + self.draws

    def to_json(self) -> dict[str, Any]:
        """The design's row ({"rank", "name", "wins", "losses", "draws", "forfeits",
        "fuel_total", "rating"}) and a few more keys."""
        return {
            "rank": self.rank,
            "name": self.name,
            "wins": self.wins,
            "losses": self.losses,
            "draws": self.draws,
            "forfeits": self.forfeits,
            "fuel_total": self.fuel_total,
            "rating": self.rating.to_json(),
            "forfeit_kinds": _kinds_json(self.forfeit_kinds),
            "matches": self.matches,
            "errors": self.errors,
            "banked": self.banked,
            "ticks": self.ticks,
            "reached": self.reached,
        }


@dataclass(frozen=True, slots=True)
class GauntletSide:
    """The gauntlet's entrant against one opponent on one side (A or B): its counts."""

    wins: int
    losses: int
    draws: int
    errors: int
    forfeit_kinds: Mapping[sim.ForfeitKind, int] = field(hash=False)
    """The entrant's forfeits on this side, per kind (every kind present)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "wins": self.wins,
            "losses": self.losses,
            "draws": self.draws,
            "errors": self.errors,
            "forfeit_kinds": _kinds_json(self.forfeit_kinds),
        }


@dataclass(frozen=True, slots=True)
class GauntletRow:
    """A gauntlet's line per opponent: every count from the first controller's side.

    Per-side values are (first controller, opponent); ``as_a`` and ``as_b``
    are the first controller's counts when it was side A, and side B.
    """

    opponent: str
    wins: int
    losses: int
    draws: int
    errors: int
    banked: tuple[int, int]
    """Banked in total over the matches against this opponent."""
    fuel_total: tuple[int, int]
    ticks: int
    forfeits: tuple[int, int]
    forfeit_kinds: tuple[Mapping[sim.ForfeitKind, int], Mapping[sim.ForfeitKind, int]] = field(
        hash=False
    )
    as_a: GauntletSide
    as_b: GauntletSide

    @property
    def matches(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def banked_per_match(self) -> tuple[float, float]:
        m = self.matches or 1
        return (self.banked[0] / m, self.banked[1] / m)

    @property
    def fuel_per_tick(self) -> tuple[float, float]:
        """Fuel (init included) over the ticks played."""
        t = self.ticks or 1
        return (self.fuel_total[0] / t, self.fuel_total[1] / t)

    def to_json(self) -> dict[str, Any]:
        return {
            "opponent": self.opponent,
            "matches": self.matches,
            "wins": self.wins,
            "losses": self.losses,
            "draws": self.draws,
            "errors": self.errors,
            "banked": list(self.banked_per_match),
            "fuel_per_tick": list(self.fuel_per_tick),
            "forfeits": list(self.forfeits),
            "forfeit_kinds": [_kinds_json(k) for k in self.forfeit_kinds],
            "as_a": self.as_a.to_json(),
            "as_b": self.as_b.to_json(),
        }


@dataclass(frozen=True)
class WinMatrix:
    """Per ordered pair: how often the row entrant beat the column one, and how often they met.

    Entrants in seeded order. Two flat arrays of n x n counters (4 bytes each).
    """

    names: tuple[str, ...]
    won: array[int] = field(repr=False)
    met: array[int] = field(repr=False)

    def _at(self, a: str, b: str) -> int:
        return self.names.index(a) * len(self.names) + self.names.index(b)

    def wins(self, a: str, b: str) -> int:
        """Matches ``a`` won against ``b``."""
        return self.won[self._at(a, b)]

    def games(self, a: str, b: str) -> int:
        """Matches between ``a`` and ``b`` that counted (errors do not)."""
        return self.met[self._at(a, b)]

    def draws(self, a: str, b: str) -> int:
        return self.games(a, b) - self.wins(a, b) - self.wins(b, a)

    def to_json(self) -> dict[str, Any]:
        """{"names": [...], "wins": [[row beat column]], "games": [[met]]}."""
        n = len(self.names)
        rows = range(0, n * n, n)
        return {
            "names": list(self.names),
            "wins": [list(self.won[i : i + n]) for i in rows],
            "games": [list(self.met[i : i + n]) for i in rows],
        }


@dataclass(frozen=True)
class Standings:
    """The table of a tournament so far (or at its end)."""

    format: Format
    rows: tuple[StandingRow, ...]
    matrix: WinMatrix
    gauntlet: tuple[GauntletRow, ...]
    """Gauntlet only: one row per opponent, the hardest first (``Tally.opponents``)."""
    matches: int
    """Matches recorded (errors included)."""
    total: int
    """Matches the tournament plays in all."""
    complete: bool

    @property
    def leader(self) -> str:
        return self.rows[0].name

    @property
    def entrant(self) -> str | None:
        """A gauntlet's entrant (the first of its field, seeded order); None otherwise."""
        return self.matrix.names[0] if self.format is Format.GAUNTLET else None

    def row(self, name: str) -> StandingRow:
        return next(r for r in self.rows if r.name == name)

    def to_json(self) -> dict[str, Any]:
        """{"format", "matches", "standings": [rows]}, with "total" and "complete";
        a gauntlet adds "entrant" (its name) and "gauntlet": [rows per opponent]. The
        caller adds "id"."""
        out: dict[str, Any] = {
            "format": str(self.format),
            "matches": self.matches,
            "total": self.total,
            "complete": self.complete,
            "standings": [r.to_json() for r in self.rows],
        }
        if self.format is Format.GAUNTLET:
            out["entrant"] = self.entrant
            out["gauntlet"] = [g.to_json() for g in self.gauntlet]
        return out


class _Line:
    """One entrant's running counts (also used per gauntlet opponent, per side)."""

    __slots__ = ("banked", "draws", "errors", "fuel_total", "kinds", "losses", "ticks", "wins")

    def __init__(self) -> None:
        self.wins = self.losses = self.draws = self.errors = 0
        self.fuel_total = self.banked = self.ticks = 0
        self.kinds: dict[sim.ForfeitKind, int] = {}

    def add(self, played: Played, side: int) -> None:
        if played.error is not None:
            self.errors += 1
            return
        if played.winner is None:
            self.draws += 1
        elif played.winner == side:
            self.wins += 1
        else:
            self.losses += 1
        self.fuel_total += played.fuel_total[side]
        self.banked += played.banked[side]
        self.ticks += played.ticks
        kind = played.forfeits[side]
        if kind is not None:
            self.kinds[kind] = self.kinds.get(kind, 0) + 1

    @property
    def forfeits(self) -> int:
        return sum(self.kinds.values())


class Tally:
    """The running counts of a tournament over a field given in seeded order."""

    def __init__(self, names: Sequence[str], gauntlet: bool = False) -> None:
        self.names = tuple(names)
        n = len(self.names)
        self.lines = [_Line() for _ in range(n)]
        self.won = array("I", bytes(4 * n * n))
        self.met = array("I", bytes(4 * n * n))
        self.gauntlet = gauntlet
        # gauntlet: per opponent, the first controller's line, the opponent's, and the
        # first controller's line as side A and as side B
        self.versus = [(_Line(), _Line(), _Line(), _Line()) for _ in range(n)] if gauntlet else []
        self.model = PlackettLuce()
        self.ratings: list[PlackettLuceRating] = [self.model.rating() for _ in range(n)]

    def grow(self, name: str) -> None:
        """One more entrant, last (a field's newcomer), with nothing counted yet."""
        n = len(self.names)
        won, met = array("I", bytes(4 * (n + 1) ** 2)), array("I", bytes(4 * (n + 1) ** 2))
        for i in range(n):
            won[i * (n + 1) : i * (n + 1) + n] = self.won[i * n : i * n + n]
            met[i * (n + 1) : i * (n + 1) + n] = self.met[i * n : i * n + n]
        self.won, self.met = won, met
        self.names = (*self.names, name)
        self.lines.append(_Line())
        self.ratings.append(self.model.rating())

    def add(self, a: int, b: int, played: Played) -> None:
        """Count one result (side A is entrant ``a``): order does not matter."""
        self.lines[a].add(played, 0)
        self.lines[b].add(played, 1)
        if self.versus:
            opponent, side = (b, 0) if a == 0 else (a, 1)
            first, other, *by_side = self.versus[opponent]
            first.add(played, side)
            other.add(played, 1 - side)
            by_side[side].add(played, side)
        if played.error is not None:
            return
        n = len(self.names)
        self.met[a * n + b] += 1
        self.met[b * n + a] += 1
        if played.winner is not None:
            winner, loser = (a, b) if played.winner == 0 else (b, a)
            self.won[winner * n + loser] += 1

    def rate(self, a: int, b: int, winner: int | None) -> None:
        """Update both ratings with one match; call in schedule order."""
        ranks = [0.0, 0.0] if winner is None else [float(winner), float(1 - winner)]
        [[ra], [rb]] = self.model.rate([[self.ratings[a]], [self.ratings[b]]], ranks=ranks)
        self.ratings[a], self.ratings[b] = ra, rb

    def wins(self) -> list[int]:
        return [line.wins for line in self.lines]

    def order(self, then: Sequence[int] | None = None) -> list[int]:
        """Entrants best first: by wins, then by ``then`` (higher first; a bracket's round
        reached) when given, head-to-head wins within the group tied so far, less total
        fuel, and name (a gauntlet's too; how its opponents fared against its entrant is
        ``opponents``)."""
        n = len(self.names)
        second = then if then is not None else [0] * n
        groups: dict[tuple[int, int], list[int]] = {}
        for i, line in enumerate(self.lines):
            groups.setdefault((line.wins, second[i]), []).append(i)
        h2h = [0] * n
        for members in groups.values():
            for i in members:
                h2h[i] = sum(self.won[i * n + j] for j in members)
        return sorted(
            range(n),
            key=lambda i: (
                -self.lines[i].wins,
                -second[i],
                -h2h[i],
                self.lines[i].fuel_total,
                self.names[i],
            ),
        )

    def opponents(self) -> list[int]:
        """A gauntlet's opponents, the hardest first: more wins against the entrant, then
        fewer losses to it, then seeded order."""
        return sorted(
            range(1, len(self.names)),
            key=lambda j: (-self.versus[j][0].losses, self.versus[j][0].wins, j),
        )

    def standings(
        self,
        fmt: Format,
        matches: int,
        total: int,
        complete: bool,
        reached: Sequence[int] | None = None,
    ) -> Standings:
        rows = []
        for rank, i in enumerate(self.order(reached), start=1):
            line = self.lines[i]
            rows.append(
                StandingRow(
                    rank=rank,
                    name=self.names[i],
                    wins=line.wins,
                    losses=line.losses,
                    draws=line.draws,
                    forfeits=line.forfeits,
                    forfeit_kinds=_kinds_of(line),
                    fuel_total=line.fuel_total,
                    banked=line.banked,
                    ticks=line.ticks,
                    errors=line.errors,
                    rating=Rating(self.ratings[i].mu, self.ratings[i].sigma),
                    reached=None if reached is None else reached[i],
                )
            )
        gauntlet = tuple(self._gauntlet_row(j) for j in self.opponents()) if self.gauntlet else ()
        matrix = WinMatrix(self.names, array("I", self.won), array("I", self.met))
        return Standings(fmt, tuple(rows), matrix, gauntlet, matches, total, complete)

    def _gauntlet_row(self, j: int) -> GauntletRow:
        first, other, as_a, as_b = self.versus[j]
        a, b = (
            GauntletSide(line.wins, line.losses, line.draws, line.errors, _kinds_of(line))
            for line in (as_a, as_b)
        )
        return GauntletRow(
            opponent=self.names[j],
            wins=first.wins,
            losses=first.losses,
            draws=first.draws,
            errors=first.errors,
            banked=(first.banked, other.banked),
            fuel_total=(first.fuel_total, other.fuel_total),
            ticks=first.ticks,
            forfeits=(first.forfeits, other.forfeits),
            forfeit_kinds=(_kinds_of(first), _kinds_of(other)),
            as_a=a,
            as_b=b,
        )


def _kinds_of(line: _Line) -> dict[sim.ForfeitKind, int]:
    return {k: line.kinds.get(k, 0) for k in KINDS}
