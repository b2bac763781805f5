"""Tournaments the server plays, over ``arena``'s pure tournament core and the store.

A stand-in with the names and shapes of the coordinator's functions
(``create_tournament``, ``run_tournament``, ``tournament_standings``,
``tournament_json``, ``tournament_plan``, ``played_of``): the coordinator
(``arena/coordinator/``) has not landed on main yet, and when it does the site
calls its functions instead and this module goes. What it stores is what the
coordinator stores (``options``: rounds, shuffle, the case and its rules), so
the coordinator's ``arena tournament --resume`` can resume a tournament the
server started.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import trio

import arena

__all__ = [
    "TournamentProgress",
    "create_tournament",
    "played_of",
    "run_tournament",
    "tournament_json",
    "tournament_plan",
    "tournament_standings",
]


class MatchPlayer(Protocol):
    async def play(self, job: arena.MatchJob) -> arena.MatchResult | arena.JobFailed: ...


@dataclass(frozen=True, slots=True)
class TournamentProgress:
    """Where a running tournament stands (after each record)."""

    tournament_id: int
    done: int
    total: int
    playing: int


def create_tournament(
    store: arena.Store,
    format: str,
    field: Sequence[arena.Entrant],
    *,
    seeds: Sequence[int],
    rounds: int | None,
    shuffle: int | None,
    case: arena.Case,
    config: Any,
) -> arena.TournamentRecord:
    """Record a tournament (running) over stored controllers; ``TournamentSetupError`` if the
    plan cannot be held (nothing is stored then)."""
    plan = arena.TournamentPlan(
        format,  # type: ignore[arg-type]  # the plan checks and converts it
        tuple(e.name for e in field),
        tuple(seeds),
        rounds=rounds,
        shuffle=shuffle,
    )
    base = case.rules.to_dict()
    options = {
        "rounds": plan.rounds,
        "shuffle": plan.shuffle,
        "case": {"slug": case.slug, "version": case.version},
        "rules": {k: v for k, v in config.to_dict().items() if base[k] != v},
    }
    return store.create_tournament(str(plan.format), field, seeds=plan.seeds, options=options)


def tournament_plan(record: arena.TournamentRecord) -> arena.TournamentPlan:
    return arena.TournamentPlan(
        record.format,  # type: ignore[arg-type]
        tuple(e.name for e in record.field),
        record.seeds,
        rounds=record.options.get("rounds"),
        shuffle=record.options.get("shuffle"),
    )


def played_of(match: arena.MatchRecord) -> arena.Played:
    """What the tournament counts of a stored match: its result, or its error."""
    try:
        round_, slot, seed, a, b = json.loads(match.pairing_key or "")
        pairing = arena.Pairing(int(round_), int(slot), str(a), str(b), int(seed))
    except (ValueError, TypeError):
        raise arena.ScheduleMismatchError(
            f"stored match {match.id}: {match.pairing_key!r} is not a pairing key"
        ) from None
    if match.result is None:
        return arena.Played.failed(pairing, match.error or f"match {match.id} was never played")
    return arena.Played.from_result(pairing, match.result)


def tournament_standings(
    store: arena.Store, tournament_id: int, matches: Iterable[arena.MatchRecord] | None = None
) -> tuple[arena.TournamentRecord, arena.Standings]:
    record = store.tournament(tournament_id)
    if matches is None:
        matches = store.tournament_matches(tournament_id)
    scheduler = arena.Scheduler(tournament_plan(record), map(played_of, matches))
    return record, scheduler.standings()


def tournament_json(record: arena.TournamentRecord, standings: arena.Standings) -> dict[str, Any]:
    """The keys of ``arena standings --json``: the standings, status, seeds, case."""
    return {
        "id": record.id,
        **standings.to_json(),
        "matrix": standings.matrix.to_json(),
        "status": str(record.status),
        "seeds": list(record.seeds),
        "case": record.options.get("case"),
    }


async def run_tournament(
    store: arena.Store,
    tournament_id: int,
    player: MatchPlayer,
    *,
    slots: int,
    on_progress: Callable[[TournamentProgress], None] | None = None,
    case: arena.Case,
) -> None:
    """Play a stored tournament's missing matches (``slots`` at once), record each as it
    completes, and finish it with its standings; an error marks it failed."""
    record, scheduler = await trio.to_thread.run_sync(_load, store, tournament_id)
    config = case.rules.replace(**record.options.get("rules", {}))
    blobs = {
        e.name: await trio.to_thread.run_sync(store.read_module_bytes, e.sha256)
        for e in record.field
    }
    try:
        await _play(store, record, scheduler, player, slots, on_progress, case, config, blobs)
        await trio.to_thread.run_sync(
            store.finish_tournament, tournament_id, _standings_json(scheduler.standings())
        )
    except Exception as exc:
        await trio.to_thread.run_sync(
            store.fail_tournament, tournament_id, f"{type(exc).__name__}: {exc}"
        )
        raise


def _standings_json(standings: arena.Standings) -> dict[str, Any]:
    return {**standings.to_json(), "matrix": standings.matrix.to_json()}


def _load(store: arena.Store, tournament_id: int) -> tuple[arena.TournamentRecord, arena.Scheduler]:
    record = store.tournament(tournament_id)
    played = map(played_of, store.tournament_matches(tournament_id))
    return record, arena.Scheduler(tournament_plan(record), played)


async def _play(
    store: arena.Store,
    record: arena.TournamentRecord,
    scheduler: arena.Scheduler,
    player: MatchPlayer,
    slots: int,
    on_progress: Callable[[TournamentProgress], None] | None,
    case: arena.Case,
    config: Any,
    blobs: dict[str, bytes],
) -> None:
    entrants = {e.name: e for e in record.field}
    handed: set[str] = set()
    send, receive = trio.open_memory_channel[tuple[arena.Pairing, Any]](math.inf)

    def job(p: arena.Pairing) -> arena.MatchJob:
        a, b = (arena.Contestant(n, blobs[n]) for n in (p.a, p.b))
        return arena.MatchJob.for_case(case, a, b, seed=p.seed, config=config)

    def record_one(p: arena.Pairing, outcome: Any) -> arena.MatchRecord:
        if isinstance(outcome, arena.JobFailed):
            return store.record_match_error(
                entrants[p.a],
                entrants[p.b],
                seed=p.seed,
                error=outcome.reason,
                tournament_id=record.id,
                pairing_key=p.key,
            )
        return store.record_match(outcome, tournament_id=record.id, pairing_key=p.key)

    def report() -> None:
        if on_progress is not None:
            on_progress(
                TournamentProgress(record.id, scheduler.recorded, scheduler.total, len(handed))
            )

    async with trio.open_nursery() as nursery:

        async def one(p: arena.Pairing) -> None:
            send.send_nowait((p, await player.play(job(p))))

        def fill() -> None:
            for p in scheduler.ready():
                if len(handed) >= slots:
                    return
                if p.key not in handed:
                    handed.add(p.key)
                    nursery.start_soon(one, p)

        fill()
        report()
        while handed:
            p, outcome = await receive.receive()
            match = await trio.to_thread.run_sync(record_one, p, outcome, abandon_on_cancel=False)
            scheduler.record(played_of(match))
            handed.discard(p.key)
            fill()
            report()
