"""What a run of a case is, defined once: for a proof run played here and a run pushed from
elsewhere alike.

A run plays its controller against every opponent of the case, in the
manifest's order, on each canonical seed (``planned_matches``). Its canonical
matches, from the controller's side, decide its outcome (``run_outcome``):
more wins than losses wins, fewer loses, level is a draw. Evidence matches
are scored evidence; exhibitions are recorded, unscored. ``run_report`` reads
a stored run back with its matches.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.cases import Case, Opponent, Role, RunOutcome
from arena.store import MatchRecord, ReplayStatus, RunMatch, RunRecord, Store

__all__ = [
    "RunMatchReport",
    "RunReport",
    "controller_side",
    "match_outcome",
    "planned_matches",
    "run_json",
    "run_outcome",
    "run_report",
    "score_run",
]


def planned_matches(case: Case) -> list[tuple[Opponent, int]]:
    """The matches a run of ``case`` plays: (opponent, seed), every opponent in the manifest's
    order on each of the case's canonical seeds, each once."""
    return [(opponent, seed) for opponent in case.opponents for seed in case.match.seeds]


def controller_side(sides: Sequence[str], controller_sha256: str | None) -> int:
    """The controller's side in a match of its run (0 = A), from the sides' sha256s.

    A proof run plays it as A; a pushed run may have it on either side. A
    module playing itself is side A.
    """
    return next((i for i, sha256 in enumerate(sides) if sha256 == controller_sha256), 0)


def match_outcome(winner: int | None, side: int) -> RunOutcome:
    """One match's outcome from ``side``'s point of view (0 = A)."""
    if winner is None:
        return RunOutcome.DRAW
    return RunOutcome.WIN if winner == side else RunOutcome.LOSS


def score_run(outcomes: Iterable[RunOutcome]) -> RunOutcome:
    """A run's outcome from its canonical matches' outcomes: each win +1, loss -1, draw 0;
    above zero wins, below loses, level (no match at all too) is a draw."""
    score = 0
    for outcome in outcomes:
        if outcome is RunOutcome.COULD_NOT_COMPETE:
            raise ValueError("a match has no could-not-compete outcome")
        score += (outcome is RunOutcome.WIN) - (outcome is RunOutcome.LOSS)
    if score > 0:
        return RunOutcome.WIN
    return RunOutcome.LOSS if score < 0 else RunOutcome.DRAW


def run_outcome(controller_sha256: str, matches: Iterable[RunMatch]) -> RunOutcome:
    """The outcome of a run of the controller ``controller_sha256`` that played ``matches``:
    its canonical matches scored from its side (``score_run``)."""
    return score_run(
        match_outcome(
            m.result.winner,
            controller_side([s.sha256 for s in m.result.sides], controller_sha256),
        )
        for m in matches
        if m.role is Role.CANONICAL
    )


@dataclass(frozen=True, slots=True)
class RunMatchReport:
    """One match of a stored run, from the run's controller's side."""

    opponent: str
    role: Role
    side: int
    """The controller's side in the match (0 = A: proof runs play it as A)."""
    record: MatchRecord
    replay: Path | None
    """The stored replay's path (a hidden opponent's replay is shown too; its module never)."""
    replay_status: ReplayStatus | None = None
    """Whether that replay is there and whole now (None: the match has no replay)."""

    @property
    def outcome(self) -> RunOutcome | None:
        """Win, loss or draw for the controller; None for a match that has no result."""
        result = self.record.result
        return None if result is None else match_outcome(result.winner, self.side)

    def to_json(self) -> dict[str, Any]:
        """The design's ``{"opponent", "role", "result"}`` plus ``scored``, ``outcome`` and
        ``replay_status`` (``ok``, ``missing``, ``damaged``; null without a replay)."""
        outcome = self.outcome
        return {
            "opponent": self.opponent,
            "role": str(self.role),
            "scored": self.role.scored,
            "outcome": None if outcome is None else str(outcome),
            "result": self.record.to_json("" if self.replay is None else str(self.replay)),
            "replay_status": None if self.replay_status is None else str(self.replay_status),
        }


@dataclass(frozen=True, slots=True)
class RunReport:
    """A stored run with its matches and build log, as ``arena runs show`` prints it."""

    run: RunRecord
    matches: tuple[RunMatchReport, ...]
    build_log: str
    stored_as: str | None = None
    """The name the controller's module was first stored under, where it is not the run's
    (a module stored once keeps its first name: a run ``zigbot-proved`` of ``zigbot``)."""

    def to_json(self) -> dict[str, Any]:
        """The design's keys of ``arena prove --json`` (``run``, ``case``, ``controller``,
        ``outcome``, ``matches``) plus ``reason``, ``created_at`` and ``build_log``."""
        return {
            **run_json(self.run, self.stored_as),
            "matches": [m.to_json() for m in self.matches],
            "build_log": self.build_log,
        }


def run_json(run: RunRecord, stored_as: str | None = None) -> dict[str, Any]:
    """A run without its matches, as ``arena runs --json`` lists it (``matches`` is a count).
    The controller's ``stored_as``, only where ``stored_as`` is given and differs from the
    run's name: its module's first name (``stored_as_of``); else the design's two keys."""
    controller: dict[str, Any] = {"name": run.controller, "sha256": run.controller_sha256}
    if stored_as is not None and stored_as != run.controller:
        controller["stored_as"] = stored_as
    return {
        "run": run.id,
        "case": {
            "slug": run.case_slug,
            "version": run.case_version,
            "manifest_sha256": run.manifest_sha256,
        },
        "controller": controller,
        "outcome": str(run.outcome),
        "reason": run.reason,
        "matches": run.matches,
        "created_at": run.created_at.isoformat(),
    }


def stored_as_of(
    store: Store, runs: Iterable[RunRecord], *, published_only: bool = False
) -> dict[int, str]:
    """By run id, the name each run's module was first stored under, where it is not the
    run's controller's (one module, one stored name: ``Store.stored_names``, which takes
    ``published_only``)."""
    runs = list(runs)
    names = store.stored_names(
        (r.controller_sha256 for r in runs if r.controller_sha256), published_only=published_only
    )
    out = {}
    for r in runs:
        name = None if r.controller_sha256 is None else names.get(r.controller_sha256)
        if name is not None and name != r.controller:
            out[r.id] = name
    return out


def run_report(store: Store, run_id: int) -> RunReport:
    """The run ``run_id`` of ``store`` with its matches (``NotInStoreError`` if there is none),
    each replay checked on disk (``Store.replay_status``)."""
    run = store.run(run_id)
    reports = []
    for record in store.run_matches(run_id):
        assert record.opponent is not None and record.role is not None, "a run's match"
        side = controller_side([e.sha256 for e in record.entrants], run.controller_sha256)
        replay, status = None, None
        if record.result is not None:
            replay = store.replay_path(record.result.replay_sha256)
            status = store.replay_status(record.result.replay_sha256)
        reports.append(RunMatchReport(record.opponent, record.role, side, record, replay, status))
    stored_as = stored_as_of(store, [run]).get(run.id)
    return RunReport(run, tuple(reports), store.build_log(run_id), stored_as)
