"""Standings without some entrants, recomputed from the results recorded (nothing replayed)."""

from __future__ import annotations

from collections.abc import Collection, Iterable

from arena.tournament._plan import TournamentPlan
from arena.tournament._records import Format, Played, TournamentSetupError
from arena.tournament._schedule import Scheduler
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
    excluded = set(excluded)
    field = plan.format is Format.FIELD
    if not excluded and not field:
        return Scheduler(plan, played).standings()
    unknown = sorted(excluded - set(plan.field))
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
    if len(names) < (1 if field else 2):
        raise TournamentSetupError("the standings need two entrants or more left in")
    index = {name: i for i, name in enumerate(names)}
    tally = Tally(names, gauntlet=plan.format is Format.GAUNTLET)
    # One pass, the results held by no one: the scheduler checks each against the plan and
    # hands the ratings over in schedule order as soon as the results before are in (a
    # field's withdrawn entrants' meetings passed over), holding back only those past the
    # first meeting not recorded yet; they are rated at the end, in schedule order.
    kept_of = [index.get(name) for name in plan.order]

    def rate(a: int, b: int, winner: int | None) -> None:
        ka, kb = kept_of[a], kept_of[b]
        if ka is not None and kb is not None:
            tally.rate(ka, kb, winner)

    scheduler = Scheduler(plan, withdrawn=excluded if field else ())
    scheduler._rater = rate
    kept = 0
    for p in played:
        scheduler.record(p)  # checks the result against the plan
        a, b = index.get(p.pairing.a), index.get(p.pairing.b)
        if a is not None and b is not None:
            tally.add(a, b, p)
            kept += 1
    for item in scheduler.held_ratings():  # the gaps' (a field's unplayed meetings)
        rate(*item)
    n, per = len(names), plan.rounds_per_stage
    match plan.format:
        case Format.ROUND_ROBIN | Format.FIELD:
            total = n * (n - 1) // 2 * per
        case Format.GAUNTLET:
            total = (n - 1) * per
        case _:  # swiss: what was kept, and what the plan has still to pair
            total = kept + scheduler.total - scheduler.recorded
    # A field's withdrawn entrants' meetings are never played: it is complete once the
    # others' are all in.
    complete = kept == total if field else scheduler.finished
    return tally.standings(plan.format, kept, total, complete)
