"""Cases: what is played, declared in ``test-case.toml`` (docs/cases.md).

A case is one versioned, immutable directory of the catalog
``cases/<type>/<difficulty>/<slug>/<version>/``. ``load_case`` validates a
manifest against every rule of the format and reports all the errors it finds
at once; the typed ``Case`` it returns holds the rules (``sim.Config``), the
sandbox limits (``arena.Limits``), the map, the seeds, the opponents and how a
submission is built. ``default_case`` is the Foray case: the rules and limits
``arena match`` plays under.

The workflow around a submission: ``new_project`` lays out a controller
project from a case's workspace, ``build_submission`` builds it under the
case's time limit and gates its module (a ``Build``: ok, failed or timed out,
with the reason and the log), and ``prove`` plays it against every opponent
of the case and records the run in the store (a ``Proof``; ``run_report``
reads a stored run back).
"""

from arena._vocab import Role, RunOutcome
from arena.cases._build import MAX_LOG_BYTES, Build, BuildStatus, build_submission, gate_module
from arena.cases._catalog import (
    CATALOG_DIR,
    DEFAULT_SLUG,
    Catalog,
    default_case,
    find_case,
    scan_catalog,
)
from arena.cases._errors import (
    CaseError,
    CaseInvalidError,
    CaseNotFoundError,
    UnsupportedCaseTypeError,
)
from arena.cases._manifest import (
    ENTRY,
    FORBIDDEN_TABLES,
    MANIFEST,
    MAX_MANIFEST_BYTES,
    MAX_RUNTIME_HOURS,
    MAX_SEEDS,
    OPTIONAL_EXPORTS,
    REPLAY_VERSIONS,
    REQUIRED_EXPORTS,
    load_case,
    version_of,
)
from arena.cases._model import (
    BuildSpec,
    Case,
    CasePaths,
    CaseType,
    ContractSpec,
    Difficulty,
    MatchSpec,
    Opponent,
    ReplaySpec,
    Structure,
)
from arena.cases._project import Lang, Project, languages, new_project
from arena.cases._prove import (
    Proof,
    RunMatchReport,
    RunNotPlayedError,
    RunReport,
    judge,
    match_outcome,
    prove,
    run_json,
    run_report,
)

__all__ = [
    "CATALOG_DIR",
    "DEFAULT_SLUG",
    "ENTRY",
    "FORBIDDEN_TABLES",
    "MANIFEST",
    "MAX_LOG_BYTES",
    "MAX_MANIFEST_BYTES",
    "MAX_RUNTIME_HOURS",
    "MAX_SEEDS",
    "OPTIONAL_EXPORTS",
    "REPLAY_VERSIONS",
    "REQUIRED_EXPORTS",
    "Build",
    "BuildSpec",
    "BuildStatus",
    "Case",
    "CaseError",
    "CaseInvalidError",
    "CaseNotFoundError",
    "CasePaths",
    "CaseType",
    "Catalog",
    "ContractSpec",
    "Difficulty",
    "Lang",
    "MatchSpec",
    "Opponent",
    "Project",
    "Proof",
    "ReplaySpec",
    "Role",
    "RunMatchReport",
    "RunNotPlayedError",
    "RunOutcome",
    "RunReport",
    "Structure",
    "UnsupportedCaseTypeError",
    "build_submission",
    "default_case",
    "find_case",
    "gate_module",
    "judge",
    "languages",
    "load_case",
    "match_outcome",
    "new_project",
    "prove",
    "run_json",
    "run_report",
    "scan_catalog",
    "version_of",
]
