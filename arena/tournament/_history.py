"""The ratings after each match: an entrant's openskill rating as the standings saw it grow."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from arena.tournament._records import Played
from arena.tournament._standings import Rating, Tally

__all__ = ["RatedMatch", "rating_history"]


@dataclass(frozen=True, slots=True)
class RatedMatch:
    """One recorded match and both sides' ratings once it was taken into account."""

    played: Played
    ratings: tuple[Rating, Rating]
    """Side A's and side B's rating after this match (before it, for one that did not count)."""
    counted: bool
    """False for a match that changed no rating: it ended in an error, or an entrant of it
    is excluded from the standings."""


def rating_history(played: Iterable[Played], excluded: Collection[str] = ()) -> list[RatedMatch]:
    """Every result of ``played``, in schedule order (round, slot), with both sides' ratings
    after it, updated one match at a time exactly as the standings are (``Tally.rate``:
    openskill's Plackett-Luce, a draw ranks both level; errors and the matches of the
    ``excluded`` entrants change nothing).

    Each entrant's last rating is its rating in the standings of the same results once
    every match before the last is recorded (mid-tournament, the standings stop at the
    first match not yet recorded; this takes each recorded match in its place).
    """
    results = sorted(played, key=lambda p: (p.pairing.round, p.pairing.slot))
    names: dict[str, int] = {}
    for p in results:
        for name in p.pairing.names:
            names.setdefault(name, len(names))
    tally = Tally(list(names))
    history = []
    for p in results:
        a, b = names[p.pairing.a], names[p.pairing.b]
        counted = p.error is None and p.pairing.a not in excluded and p.pairing.b not in excluded
        if counted:
            tally.rate(a, b, p.winner)
        ra, rb = tally.ratings[a], tally.ratings[b]
        history.append(RatedMatch(p, (Rating(ra.mu, ra.sigma), Rating(rb.mu, rb.sigma)), counted))
    return history
