"""A stored tournament's ratings after each of its matches (a controller's page draws them)."""

from __future__ import annotations

from collections.abc import Iterable

from arena.coordinator._stored import played_of
from arena.store import MatchRecord, TournamentRecord
from arena.tournament import Rating, rating_history

__all__ = ["match_ratings"]


def match_ratings(
    record: TournamentRecord, matches: Iterable[MatchRecord]
) -> dict[int, tuple[Rating, Rating] | None]:
    """Each recorded match's id -> side A's and side B's openskill rating after it, in the
    tournament's schedule order, as its standings rate (``arena.tournament.rating_history``):
    None for a match that changed no rating (an error, an entrant the standings exclude).

    ``matches`` are the tournament's, read with its record
    (``Store.tournament_with_matches``); a match of another tournament is refused
    (``ScheduleMismatchError`` from its pairing, as ``standings_of`` would).
    """
    by_key: dict[str, int] = {}
    played = []
    for m in matches:
        p = played_of(m)
        by_key[p.key] = m.id
        played.append(p)
    excluded = {x.name for x in record.excluded}
    return {
        by_key[rated.played.key]: rated.ratings if rated.counted else None
        for rated in rating_history(played, excluded)
    }
