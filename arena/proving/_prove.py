"""Proof runs: a submission against every opponent of a case, recorded whole in the store.

``prove`` builds a submission (a directory) or takes a module file as it is,
gates it, plays it as side A in every match of a run of the case
(``planned_matches``) through an executor, and records one run with all its
matches (``arena.store``), its outcome that of its canonical matches
(``run_outcome``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena._errors import ArenaError
from arena.cases import Case, RunOutcome, default_case
from arena.executors import JobFailed
from arena.match import Contestant, MatchResult
from arena.proving._build import Build, _limit, build_submission, gate_module
from arena.proving._run import RunReport, planned_matches, run_outcome, run_report
from arena.store import MAX_NAME_CHARS, Origin, RunMatch, RunRecord, Store

if TYPE_CHECKING:
    from arena.executors import Executor

__all__ = ["Proof", "RunNotPlayedError", "prove"]


class RunNotPlayedError(ArenaError):
    """The arena could not play a run's matches (a worker died twice, or the run did not
    finish within its time limit): nothing is recorded.

    Neither is an outcome of the submission (a dead worker is the arena's
    failure; how long a run takes depends on the machine as much as on the
    module, whose every tick is bounded already): the run can be proved again.
    """


@dataclass(frozen=True, slots=True)
class Proof:
    """What ``prove`` did: the run (recorded now, or found), and the submission's build."""

    report: RunReport
    found: bool
    """The module had been proved on this case version before: that run, nothing played."""
    build: Build

    @property
    def run(self) -> RunRecord:
        return self.report.run

    def to_json(self) -> dict[str, Any]:
        """``RunReport.to_json()`` plus ``found``."""
        return {**self.report.to_json(), "found": self.found}


def _name_of(source: Path) -> str:
    """A submission's default name: its directory's name, or its module file's stem."""
    path = source.resolve() if source.is_dir() else source
    name = path.name if source.is_dir() else path.stem
    return os.fsencode(name).decode("utf-8", "replace") or "controller"


def prove(
    source: Path,
    case: Case | None = None,
    *,
    store: Store,
    again: bool = False,
    jobs: int | None = None,
    executor: Executor | None = None,
    timeout: float | None = None,
    name: str | None = None,
) -> Proof:
    """Prove a submission on ``case`` (default: the Foray case) and record the run in ``store``.

    ``source`` is a submission directory (built with the case's ``[build]``)
    or a module file. The whole run, build and matches, has the case's
    ``max_runtime_hours`` (or ``timeout`` seconds, if sooner). A submission
    that does not build or is not admissible is recorded as a run that could
    not compete, with the reason and the build log. One that is admissible
    is stored (origin ``run`` for a directory, ``file`` for a module file)
    and played as side A against every opponent of the case on each of its
    seeds, on ``executor`` (default: a ``LocalExecutor`` of ``jobs``
    workers); the opponents are stored as they are (a hidden one stays
    hidden). Runs are immutable: a module already proved on this case
    version gives that run back (``found``), unless ``again``.

    ``ArenaError`` for what the operator must fix: a case outside the
    catalog (no version to record), a source that is not there, a name
    too long; ``RunNotPlayedError`` when the arena could not play a match,
    or not all of them within the run's time limit.
    """
    case = case or default_case()
    version = case.version
    if version is None:
        raise ArenaError(
            f"{case.directory}: a case outside the catalog layout has no version,"
            " and a run records its case's slug and version"
        )
    source = Path(source)
    if not os.path.lexists(source):
        raise ArenaError(f"{source}: no submission there (a directory or a module file)")
    name = _name_of(source) if name is None else name
    if not 1 <= len(name) <= MAX_NAME_CHARS:
        raise ArenaError(f"a controller's name must be 1..{MAX_NAME_CHARS} characters")
    limit = _limit(case, timeout)
    deadline = time.monotonic() + limit
    if source.is_dir():
        build, origin = build_submission(source, case, timeout=limit), Origin.RUN
    else:
        build, origin = gate_module(source, case), Origin.FILE

    if build.sha256 is not None and not again:
        found = store.find_run(case.slug, version, build.sha256, case.manifest_sha256)
        if found is not None:
            return Proof(run_report(store, found.id), True, build)

    def record(
        outcome: RunOutcome, reason: str | None = None, matches: Sequence[RunMatch] = ()
    ) -> Proof:
        run = store.record_run(
            case_slug=case.slug,
            case_version=version,
            manifest_sha256=case.manifest_sha256,
            controller=name,
            controller_sha256=build.sha256,
            outcome=outcome,
            reason=reason,
            build_log=build.log,
            matches=matches,
            # The report names each replay's file: the replay's own bytes (docs/storage.md).
            raw_replays=True,
        )
        return Proof(run_report(store, run.id), False, build)

    if not build.ok:
        # The module (if any) is not stored: only what can compete is.
        return record(RunOutcome.COULD_NOT_COMPETE, build.reason)

    assert build.blob is not None and build.sha256 is not None
    store.add_controller(build.blob, name=name, origin=origin)
    submission = Contestant(name, build.blob)
    opponents = {}
    for opponent in case.opponents:
        opponents[opponent.name] = contestant = opponent.contestant()
        store.add_controller(
            contestant.blob, name=opponent.name, origin=Origin.BASELINE, hidden=opponent.hidden
        )
    plan = [
        (opponent, case.match_job(submission, opponents[opponent.name], seed=seed))
        for opponent, seed in planned_matches(case)
    ]
    if executor is None:
        from arena.executors import LocalExecutor  # trio: loaded only to play

        executor = LocalExecutor(jobs)
    outcomes = executor.map_until([job for _, job in plan], deadline)
    missing = sum(out is None for out in outcomes)
    if missing:
        whose = (
            f"the case's max_runtime_hours = {case.max_runtime_hours:g}"
            if limit == case.max_runtime_seconds
            else "the timeout asked for"
        )
        raise RunNotPlayedError(
            f"the run did not finish within its limit of {limit:g} s ({whose}):"
            f" {len(plan) - missing} of {len(plan)} matches played, nothing is recorded"
        )
    failed = [
        (o, out) for (o, _), out in zip(plan, outcomes, strict=True) if isinstance(out, JobFailed)
    ]
    if failed:
        opponent, why = failed[0]
        raise RunNotPlayedError(
            f"{len(failed)} match(es) of the run could not be played, nothing is recorded;"
            f" against {opponent.name} on seed {why.job.seed}: {why.reason}"
        )
    results = [out for out in outcomes if isinstance(out, MatchResult)]
    matches = [
        RunMatch(opponent.name, opponent.role, result)
        for (opponent, _), result in zip(plan, results, strict=True)
    ]
    return record(run_outcome(build.sha256, matches), matches=matches)
