"""Proving: the workflow of a submission to a case, from a new project to a recorded run.

``new_project`` lays out a controller project from a case's workspace;
``build_submission`` builds it under the case's time limit and gates its
module (a ``Build``: ok, failed or timed out, with the reason and the log);
``prove`` plays it in every match of a run of the case and records the run in
the store (a ``Proof``; ``run_report`` reads a stored run back). A run pushed
from another arena is checked against the same definition of a run
(``check_pushed_run``, ``recheck_match``) before it is recorded.

What a valid run is lives in one place: the matches it plays
(``planned_matches``) and how they decide its outcome (``run_outcome``). The
case format itself (manifests, the catalog) is ``arena.cases``, below this
package, the executors and the store.
"""

from arena._vocab import Role, RunOutcome
from arena.proving._build import (
    MAX_LOG_BYTES,
    Build,
    BuildStatus,
    build_submission,
    gate_module,
)
from arena.proving._project import Lang, Project, languages, new_project
from arena.proving._prove import Proof, RunNotPlayedError, prove
from arena.proving._pushed import (
    ClaimedMatch,
    ClaimedRun,
    PushCheck,
    Recheck,
    RunRefusedError,
    check_pushed_run,
    find_pushed_run,
    recheck_match,
    record_pushed_run,
)
from arena.proving._run import (
    RunMatchReport,
    RunReport,
    match_outcome,
    planned_matches,
    run_json,
    run_outcome,
    run_report,
    score_run,
)

__all__ = [
    "MAX_LOG_BYTES",
    "Build",
    "BuildStatus",
    "ClaimedMatch",
    "ClaimedRun",
    "Lang",
    "Project",
    "Proof",
    "PushCheck",
    "Recheck",
    "Role",
    "RunMatchReport",
    "RunNotPlayedError",
    "RunOutcome",
    "RunRefusedError",
    "RunReport",
    "build_submission",
    "check_pushed_run",
    "find_pushed_run",
    "gate_module",
    "languages",
    "match_outcome",
    "new_project",
    "planned_matches",
    "prove",
    "recheck_match",
    "record_pushed_run",
    "run_json",
    "run_outcome",
    "run_report",
    "score_run",
]
