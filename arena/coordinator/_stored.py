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

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sim
from arena._errors import ArenaError
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
    TournamentSetupError,
    gauntlet_losses,
    standings_without,
)

__all__ = [
    "Timing",
    "create_tournament",
    "exclude_entrant",
    "pairing_of",
    "playable_of",
    "played_of",
    "standings_json",
    "standings_of",
    "started_by_server",
    "tournament_json",
    "tournament_losses",
    "tournament_plan",
    "tournament_rules",
    "tournament_standings",
    "tournament_timing",
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
    if format == Format.FIELD:
        raise TournamentSetupError(
            "a field is not started by hand: there is one per case version, made and grown "
            'by the server as pushed runs arrive (docs/tournaments.md, "The field")'
        )
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


def playable_of(record: TournamentRecord) -> Callable[[Pairing], bool] | None:
    """A field's matches to play: those of no withdrawn entrant (None: every match, for
    the other formats, which finish)."""
    if record.format != str(Format.FIELD):
        return None
    out = {x.name for x in record.excluded}
    return lambda p: p.a not in out and p.b not in out


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
    """A tournament's standings from its recorded ``matches`` (live or final), without the
    entrants it excludes (recomputed from the same matches: ``standings_without``).

    Raises ``ScheduleMismatchError`` for results the plan does not hold.
    """
    plan = tournament_plan(record)
    if record.excluded:
        excluded = {x.name for x in record.excluded}
        return standings_without(plan, map(played_of, matches), excluded)
    return Scheduler(plan, map(played_of, matches)).standings()


def exclude_entrant(store: Store, tournament_id: int, name: str, reason: str) -> TournamentRecord:
    """Leave ``name`` out of a finished tournament's standings, for ``reason``: they are
    recomputed from its stored matches (``standings_without``), nothing is played again.

    A name not in its field, or excluded already, is refused as such first. A bracket
    cannot be recomputed (who went on depends on the entrant's matches), nor a gauntlet
    without its entrant, nor a tournament with fewer than two entrants left: refused, a
    bracket naming the rerun that can (``arena tournament rerun ID --exclude NAME``).
    Undone by ``store.include_entrant``.
    """
    record = store.tournament(tournament_id)
    # Who the name is before what excluding it would do: an unknown name is refused as one
    # (the store checks both again as it writes, as the tournament may change meanwhile).
    record.check_excludable(name)
    plan = tournament_plan(record)
    rerun = f"arena tournament rerun {record.id} --exclude {name}"
    if plan.format is Format.BRACKET:
        raise ArenaError(
            f"tournament {record.id} is a bracket, which cannot be recomputed without an "
            f"entrant (who went on to each round depends on its matches): {rerun} plays it "
            "again without"
        )
    if plan.format is Format.GAUNTLET and name == plan.order[0]:
        raise ArenaError(
            f"{name!r} is the entrant of gauntlet {record.id}: without it nothing is ranked"
        )
    if len(plan.field) - len(record.excluded) - 1 < 2:
        raise ArenaError(f"tournament {record.id} would have fewer than two entrants left in")
    return store.exclude_entrant(tournament_id, name, reason)


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


@dataclass(frozen=True, slots=True)
class Timing:
    """When a tournament started and finished, how long it took, and its matches a second."""

    started: datetime
    """When it was recorded (its first match is handed out at once)."""
    finished: datetime | None
    """When it finished or failed; None while it runs."""
    seconds: float
    """From start to finish, or to now while it runs (a resumed tournament's includes the
    time it stood stopped)."""
    rate: float | None
    """Matches recorded per second of ``seconds``; None before any time has passed."""

    def to_json(self) -> dict[str, Any]:
        return {"seconds": round(self.seconds, 3), "matches_per_second": self.rate}


def tournament_timing(record: TournamentRecord, now: datetime | None = None) -> Timing:
    """The timing of ``record``: to its finish, or to ``now`` (default: now) while it runs."""
    end = record.finished_at or now or datetime.now(UTC)
    seconds = max(0.0, (end - record.created_at).total_seconds())
    rate = round(record.matches / seconds, 2) if seconds > 0 else None
    return Timing(record.created_at, record.finished_at, seconds, rate)


def tournament_json(record: TournamentRecord, standings: Standings) -> dict[str, Any]:
    """The JSON of ``arena tournament`` and ``arena standings``.

    The design's keys ``{"id", "format", "matches", "standings": [rows]}``
    (each row with ``rank, name, wins, losses, draws, forfeits, fuel_total,
    rating``) and ``status``, ``seeds``, ``case``, ``total``, ``complete``,
    ``matrix`` (the per-pair win matrix), ``created_at``, ``finished_at``,
    ``seconds`` and ``matches_per_second`` (``Timing``) and, for a gauntlet, ``gauntlet``.
    """
    return {
        "id": record.id,
        **standings_json(standings),
        "status": str(record.status),
        "seeds": list(record.seeds),
        "case": record.options.get("case"),
        "created_at": record.created_at.isoformat(),
        "finished_at": None if record.finished_at is None else record.finished_at.isoformat(),
        **tournament_timing(record).to_json(),
        "excluded": [x.to_json() for x in record.excluded],
    }
