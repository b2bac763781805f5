"""The operator's desk over a stored tournament: its matches and standings as tables to export,
each stored replay checked again, and the same tournament played anew.

Everything here reads the store (and, for a rerun, records a new tournament);
nothing changes a tournament that is stored already.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import astuple, dataclass, fields
from typing import Any, Final

from arena._errors import ArenaError
from arena.coordinator._stored import (
    create_tournament,
    pairing_of,
    tournament_plan,
    tournament_rules,
)
from arena.store import MatchRecord, Store, TournamentRecord
from arena.tournament import Format, Standings, TournamentPlan

__all__ = [
    "STANDINGS_COLUMNS",
    "MatchRow",
    "match_rows",
    "matches_csv",
    "pending_matches",
    "rerun_tournament",
    "standings_csv",
    "verify_match",
]


@dataclass(frozen=True, slots=True)
class MatchRow:
    """One match of a tournament as an export has it: a flat row, a side's values as ``_a``
    and ``_b``. Values a match in error (or not played) lacks are None (empty in CSV)."""

    id: int
    round: int
    """The stage, counted from 1, as the tournament page labels it (round N, opponent N)."""
    meeting: int
    """The meeting's place in its round (0..), the same on both sides and every seed."""
    seed: int
    a: str
    b: str
    status: str
    winner: str | None
    """The winner's name; None for a draw, or a match in error."""
    reason: str | None
    ticks: int | None
    banked_a: int | None
    banked_b: int | None
    fuel_a: int | None
    fuel_b: int | None
    forfeit_a: str | None
    """The kind of side A's forfeit (rules §8), None if it did not forfeit."""
    forfeit_b: str | None
    replay: str | None
    """Where the replay is: its file in the store (CLI), or its URL (the site)."""
    replay_sha256: str | None
    error: str | None
    a_sha256: str
    b_sha256: str

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


MATCH_COLUMNS: Final = tuple(f.name for f in fields(MatchRow))


def match_rows(
    store: Store,
    record: TournamentRecord,
    replay: Callable[[MatchRecord], str],
    matches: Iterable[MatchRecord] | None = None,
) -> Iterator[MatchRow]:
    """Every recorded match of tournament ``record``, in the order they were recorded;
    ``replay(match)`` names a finished match's replay (a path, a URL)."""
    plan = tournament_plan(record)
    if matches is None:
        matches = store.iter_tournament_matches(record.id)
    for m in matches:
        pairing = pairing_of(m)
        a, b = m.entrants
        r = m.result
        if r is None:
            yield MatchRow(
                m.id, plan.stage_of(pairing) + 1, pairing.slot, m.seed, a.name, b.name,
                str(m.status), None, None, None, None, None, None, None, None, None,
                None, None, m.error, a.sha256, b.sha256,
            )  # fmt: skip
            continue
        sa, sb = r.sides
        yield MatchRow(
            id=m.id,
            round=plan.stage_of(pairing) + 1,
            meeting=pairing.slot,
            seed=m.seed,
            a=a.name,
            b=b.name,
            status=str(m.status),
            winner=None if r.winner is None else m.entrants[r.winner].name,
            reason=str(r.reason),
            ticks=r.ticks,
            banked_a=sa.banked,
            banked_b=sb.banked,
            fuel_a=sa.fuel_total,
            fuel_b=sb.fuel_total,
            forfeit_a=None if sa.forfeit is None else str(sa.forfeit.kind),
            forfeit_b=None if sb.forfeit is None else str(sb.forfeit.kind),
            replay=replay(m),
            replay_sha256=r.replay_sha256,
            error=None,
            a_sha256=a.sha256,
            b_sha256=b.sha256,
        )


def _csv(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")  # RFC 4180, as spreadsheets expect
    writer.writerow(header)
    writer.writerows(["" if v is None else v for v in row] for row in rows)
    return out.getvalue()


def matches_csv(rows: Iterable[MatchRow]) -> str:
    """The matches as CSV: a header of ``MatchRow``'s fields, a line per match."""
    return _csv(MATCH_COLUMNS, map(astuple, rows))


STANDINGS_COLUMNS: Final = (
    "rank", "name", "played", "pending", "wins", "losses", "draws", "errors", "forfeits",
    "fuel_total", "banked", "ticks", "rating_mu", "rating_sigma", "rating_ordinal", "reached",
)  # fmt: skip
"""The columns of ``standings_csv``: a row's counts, its rating's three numbers, the bracket
round reached (empty for other formats); ``pending`` is the entrant's matches not recorded yet."""


def standings_csv(standings: Standings, pending: Sequence[int | None]) -> str:
    """The standings as CSV (``STANDINGS_COLUMNS``), in rank order; ``pending[i]`` is row i's
    matches still to come (``pending_matches``; empty where it cannot be known yet)."""
    rows = []
    for i, r in enumerate(standings.rows):
        counts = (r.matches, pending[i], r.wins, r.losses, r.draws, r.errors, r.forfeits)
        rating = (r.rating.mu, r.rating.sigma, r.rating.ordinal)
        rows.append((r.rank, r.name, *counts, r.fuel_total, r.banked, r.ticks, *rating, r.reached))
    return _csv(STANDINGS_COLUMNS, rows)


def pending_matches(plan: TournamentPlan, standings: Standings) -> list[int | None]:
    """Each standings row's matches still to come, in the rows' order: exact for a round-robin
    and a gauntlet (whose schedules are fixed); None for a live swiss or bracket (who plays
    on depends on the results), 0 for every format once all its matches are in."""
    if standings.complete:
        return [0] * len(standings.rows)
    per_meeting = plan.rounds_per_stage
    n = len(plan.field)
    first = plan.order[0]
    out: list[int | None] = []
    for row in standings.rows:
        match plan.format:
            case Format.ROUND_ROBIN:
                planned: int | None = (n - 1) * per_meeting
            case Format.GAUNTLET:
                planned = (n - 1 if row.name == first else 1) * per_meeting
            case _:
                planned = None
        out.append(None if planned is None else planned - row.matches - row.errors)
    return out


def verify_match(store: Store, match: MatchRecord, *, modules: bool = False) -> str | None:
    """Check a finished match's stored replay again; what is wrong with it, or None if nothing.

    The replay must be the file its sha256 names and re-simulate to its own
    result; with ``modules``, the match is also played again from the stored
    modules of both sides and must give the very same bytes. A match without
    a result has nothing to check (None).
    """
    import replays

    if match.result is None:
        return None
    try:
        data = store.read_replay_bytes(match.result.replay_sha256)
    except ArenaError as exc:  # missing, or not the bytes its name says
        return str(exc)
    if not modules:
        report = replays.verify_replay(data)
    else:
        from arena.match import replay_matches

        try:
            a, b = (store.read_module_bytes(e.sha256) for e in match.entrants)
        except ArenaError as exc:
            return str(exc)
        report = replay_matches(data, a, b)
    return None if report.ok else report.detail


def rerun_tournament(
    store: Store, record: TournamentRecord, exclude: Sequence[str] = ()
) -> TournamentRecord:
    """Record a new tournament as ``record`` was created (format, field in its order, seeds,
    rounds, shuffle, case and rules), without the entrants named in ``exclude``; nothing is
    played yet (``run_tournament`` plays it)."""
    names = [e.name for e in record.field]
    unknown = [n for n in exclude if n not in names]
    if unknown:
        raise ArenaError(
            f"tournament {record.id} has no entrant {unknown[0]!r} to exclude "
            f"(its field: {', '.join(names)})"
        )
    field = [e for e in record.field if e.name not in exclude]
    case, config = tournament_rules(record)
    rounds = record.options.get("rounds")
    n = len(field)
    if rounds is not None:
        # A smaller field may hold fewer swiss rounds without a rematch: as many as it holds.
        rounds = min(rounds, n - 1 if n % 2 == 0 else n)
    return create_tournament(
        store,
        record.format,
        field,
        seeds=record.seeds,
        rounds=rounds,
        shuffle=record.options.get("shuffle"),
        case=case,
        config=config,
    )
