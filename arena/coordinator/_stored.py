"""A tournament as the store keeps it: creating one, and reading back its plan, rules and results.

The store keeps a tournament's format, field, seeds and an ``options`` object
that it does not interpret; this module fixes what ``options`` holds, so that
a coordinator resuming a tournament (in another process, days later) plays
its missing matches under the very rules of the first ones:

``{"rounds": int|null, "shuffle": int|null, "case": {"slug", "version"},
"rules": {constant: value}}``, where ``rules`` holds only the constants that
differ from the case's (``arena match --max-ticks``, a test's short matches),
and ``"server": true`` for a tournament a server started (and plays on when it
starts again: ``started_by_server``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import sim
from arena.cases import Case, default_case, find_case
from arena.store import Entrant, MatchRecord, Store, TournamentRecord
from arena.tournament import (
    Format,
    GauntletLoss,
    Pairing,
    Played,
    ScheduleMismatchError,
    Scheduler,
    Standings,
    TournamentPlan,
    gauntlet_losses,
)

__all__ = [
    "create_tournament",
    "pairing_of",
    "played_of",
    "standings_json",
    "standings_of",
    "started_by_server",
    "tournament_json",
    "tournament_losses",
    "tournament_plan",
    "tournament_rules",
    "tournament_standings",
]


def create_tournament(
    store: Store,
    format: str,
    field: Sequence[Entrant],
    *,
    seeds: Sequence[int] = (0,),
    rounds: int | None = None,
    shuffle: int | None = None,
    case: Case | None = None,
    config: sim.Config | None = None,
    server: bool = False,
) -> TournamentRecord:
    """Record a new tournament (status running) over stored controllers; nothing is played yet.

    ``field`` is the entrants in seeded order (their controllers stored
    already, e.g. by ``add_contestant``); their names are the tournament's
    names. Matches are played under ``case`` (default: the Foray case) with
    ``config`` in place of its rules if given. ``server``: a server starts it,
    and plays it on if it stops before the end (``started_by_server``). A plan
    that cannot be held raises ``TournamentSetupError`` naming the value;
    nothing is stored then.
    """
    plan = TournamentPlan(
        format,  # type: ignore[arg-type]  # TournamentPlan checks and converts it
        tuple(e.name for e in field),
        tuple(seeds),
        rounds=rounds,
        shuffle=shuffle,
    )
    case = case or default_case()
    ref = case.ref  # a case outside the catalog has none: refused here, not on resume
    base = case.rules.to_dict()
    rules = {} if config is None else {k: v for k, v in config.to_dict().items() if base[k] != v}
    options: dict[str, Any] = {
        "rounds": plan.rounds,
        "shuffle": plan.shuffle,
        "case": {"slug": ref.slug, "version": ref.version},
        "rules": rules,
    }
    if server:
        options["server"] = True
    return store.create_tournament(str(plan.format), field, seeds=plan.seeds, options=options)


def started_by_server(record: TournamentRecord) -> bool:
    """Whether a server started the tournament (``create_tournament(server=True)``): the
    server plays it on when it starts again; one started from the command line is the
    command line's to resume (``arena tournament --resume``), never a server's."""
    return record.options.get("server") is True


def tournament_plan(record: TournamentRecord) -> TournamentPlan:
    """The plan of a stored tournament (``TournamentSetupError`` if the record cannot give one)."""
    return TournamentPlan(
        record.format,  # type: ignore[arg-type]  # checked and converted by the plan
        tuple(e.name for e in record.field),
        record.seeds,
        rounds=record.options.get("rounds"),
        shuffle=record.options.get("shuffle"),
    )


def tournament_rules(record: TournamentRecord) -> tuple[Case, sim.Config]:
    """The case a stored tournament is played under, and its rules (the case's, overridden)."""
    ref = record.options.get("case")
    case = default_case() if ref is None else find_case(ref["slug"], int(ref["version"]))
    return case, case.rules.replace(**record.options.get("rules", {}))


def pairing_of(match: MatchRecord) -> Pairing:
    """The pairing a stored tournament match was played for, from its key."""
    if match.pairing_key is None:
        raise ScheduleMismatchError(f"stored match {match.id} has no pairing key")
    try:
        return Pairing.from_key(match.pairing_key)
    except ScheduleMismatchError as exc:
        raise ScheduleMismatchError(f"stored match {match.id}: {exc}") from None


def played_of(match: MatchRecord) -> Played:
    """What the tournament counts of a stored match: its result, or the error it ended in."""
    pairing = pairing_of(match)
    if match.result is None:
        return Played.failed(pairing, match.error or f"match {match.id} was never played")
    return Played.from_result(pairing, match.result)


def tournament_standings(store: Store, tournament_id: int) -> tuple[TournamentRecord, Standings]:
    """A stored tournament and its standings from the matches recorded so far (live or final).

    The record is read first, then the matches page by page (one page held at
    a time): a tournament read finished has every match in the pages read
    after it; one read running may have more matches than its row counted.
    ``Store.tournament_with_matches`` and ``standings_of`` read both at one
    moment. Raises ``NotInStoreError`` for an unknown id,
    ``ScheduleMismatchError`` for stored results the plan does not hold.
    """
    record = store.tournament(tournament_id)
    return record, standings_of(record, store.iter_tournament_matches(tournament_id))


def standings_of(record: TournamentRecord, matches: Iterable[MatchRecord]) -> Standings:
    """A tournament's standings from its recorded ``matches`` (live or final).

    Raises ``ScheduleMismatchError`` for results the plan does not hold.
    """
    return Scheduler(tournament_plan(record), map(played_of, matches)).standings()


def tournament_losses(store: Store, record: TournamentRecord) -> list[GauntletLoss]:
    """A stored gauntlet's losses (``gauntlet_losses``), each with its match and replay file;
    none for any other format."""
    plan = tournament_plan(record)
    if plan.format is not Format.GAUNTLET:
        return []
    return gauntlet_losses(
        plan,
        (
            (
                played_of(m),
                m.id,
                None if m.result is None else str(store.replay_path(m.result.replay_sha256)),
            )
            for m in store.iter_tournament_matches(record.id)
        ),
    )


def standings_json(standings: Standings) -> dict[str, Any]:
    """What the store keeps as a finished tournament's standings: ``Standings.to_json()``
    and the per-pair win matrix (``"matrix"``)."""
    return {**standings.to_json(), "matrix": standings.matrix.to_json()}


def tournament_json(record: TournamentRecord, standings: Standings) -> dict[str, Any]:
    """The JSON of ``arena tournament`` and ``arena standings``.

    The design's keys ``{"id", "format", "matches", "standings": [rows]}``
    (each row with ``rank, name, wins, losses, draws, forfeits, fuel_total,
    rating``) and ``status``, ``seeds``, ``case``, ``total``, ``complete``,
    ``matrix`` (the per-pair win matrix) and, for a gauntlet, ``gauntlet``.
    """
    return {
        "id": record.id,
        **standings_json(standings),
        "status": str(record.status),
        "seeds": list(record.seeds),
        "case": record.options.get("case"),
    }
