"""Standings without some entrants, recomputed from the results recorded (nothing replayed)."""

from __future__ import annotations

from collections.abc import Collection, Iterable

from arena.tournament._records import Format, Played, TournamentSetupError
from arena.tournament._schedule import Scheduler, TournamentPlan
from arena.tournament._standings import Standings, Tally

__all__ = ["standings_without"]


def standings_without(
    plan: TournamentPlan, played: Iterable[Played], excluded: Collection[str]
) -> Standings:
    """The standings of ``plan`` from ``played`` as if the ``excluded`` entrants had not
    been in the field: their matches count for no one, the others' as they were (ratings
    in schedule order, the tie-breaks over the smaller field). The results are checked
    against the plan first (``ScheduleMismatchError``).

    A field's ratings take every counted match in schedule order, gaps and all (its
    withdrawn entrants' meetings may never be played), excluded entrants or none.

    A bracket cannot be recomputed (who went on depends on the excluded entrant's
    matches), nor a gauntlet without its entrant: ``TournamentSetupError`` says so.
    """
    results = list(played)
    scheduler = Scheduler(plan, results)  # checks every result against the plan
    if not excluded and plan.format is not Format.FIELD:
        return scheduler.standings()
    unknown = sorted(set(excluded) - set(plan.field))
    if unknown:
        raise TournamentSetupError(f"{unknown[0]!r} is not in the field")
    if plan.format is Format.BRACKET:
        raise TournamentSetupError(
            "a bracket cannot be recomputed without an entrant: who went on to each round "
            "depends on its matches; rerun it without the entrant instead"
        )
    if plan.format is Format.GAUNTLET and plan.order[0] in excluded:
        raise TournamentSetupError(
            f"{plan.order[0]!r} is the gauntlet's entrant: without it there is nothing to rank"
        )
    names = [n for n in plan.order if n not in excluded]
    if len(names) < (1 if plan.format is Format.FIELD else 2):
        raise TournamentSetupError("the standings need two entrants or more left in")
    index = {name: i for i, name in enumerate(names)}
    tally = Tally(names, gauntlet=plan.format is Format.GAUNTLET)
    kept = sorted(
        (p for p in results if p.pairing.a in index and p.pairing.b in index),
        key=lambda p: (p.pairing.round, p.pairing.slot),
    )
    for p in kept:
        a, b = index[p.pairing.a], index[p.pairing.b]
        tally.add(a, b, p)
        if p.error is None:
            tally.rate(a, b, p.winner)
    n, per = len(names), plan.rounds_per_stage
    match plan.format:
        case Format.ROUND_ROBIN | Format.FIELD:
            total = n * (n - 1) // 2 * per
        case Format.GAUNTLET:
            total = (n - 1) * per
        case _:  # swiss: what was kept, and what the plan has still to pair
            total = len(kept) + scheduler.total - scheduler.recorded
    # A field's withdrawn entrants' meetings are never played: it is complete once the
    # others' are all in.
    complete = len(kept) == total if plan.format is Format.FIELD else scheduler.finished
    return tally.standings(plan.format, len(kept), total, complete)
