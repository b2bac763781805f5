"""The names of ``arena.proving``, each once; ``__init__.py`` loads them on first use."""

from ._build import (
    MAX_LOG_BYTES as MAX_LOG_BYTES,
    Build as Build,
    BuildStatus as BuildStatus,
    build_submission as build_submission,
)
from ._project import (
    Lang as Lang,
    Project as Project,
    languages as languages,
    new_project as new_project,
)
from ._prove import (
    Proof as Proof,
    RunNotPlayedError as RunNotPlayedError,
    prove as prove,
)
from ._pushed import (
    ClaimedMatch as ClaimedMatch,
    ClaimedRun as ClaimedRun,
    PushCheck as PushCheck,
    Recheck as Recheck,
    RunRefusedError as RunRefusedError,
    check_pushed_run as check_pushed_run,
    find_pushed_run as find_pushed_run,
    recheck_match as recheck_match,
    record_pushed_run as record_pushed_run,
)
from ._run import (
    RunMatchReport as RunMatchReport,
    RunReport as RunReport,
    match_outcome as match_outcome,
    planned_matches as planned_matches,
    run_json as run_json,
    run_outcome as run_outcome,
    run_report as run_report,
    score_run as score_run,
    stored_as_of as stored_as_of,
)
