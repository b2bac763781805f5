"""Cases: what is played, declared in ``test-case.toml`` (docs/cases.md).

A case is one versioned, immutable directory of the catalog
``cases/<type>/<difficulty>/<slug>/<version>/``. ``load_case`` validates a
manifest against every rule of the format and reports all the errors it finds
at once; the typed ``Case`` it returns holds the rules (``sim.Config``), the
sandbox limits (``arena.Limits``), the map, the seeds, the opponents and how a
submission is built. ``default_case`` is the Foray case: the rules and limits
``arena match`` plays under. A case builds the job of a match played under it
(``Case.match_job``), so the executors never know what a case is.

This is the case format alone; the workflow of a submission to a case (new
project, build, proof runs, checking a pushed run) is ``arena.proving``.
"""

from arena._vocab import Role
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
    FORBIDDEN_TABLES,
    MANIFEST,
    MAX_MANIFEST_BYTES,
    MAX_RUNTIME_HOURS,
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
from arena.cases._tables import (
    ENTRY,
    MAX_SEEDS,
    OPTIONAL_EXPORTS,
    REPLAY_VERSIONS,
    REQUIRED_EXPORTS,
)

__all__ = [
    "CATALOG_DIR",
    "DEFAULT_SLUG",
    "ENTRY",
    "FORBIDDEN_TABLES",
    "MANIFEST",
    "MAX_MANIFEST_BYTES",
    "MAX_RUNTIME_HOURS",
    "MAX_SEEDS",
    "OPTIONAL_EXPORTS",
    "REPLAY_VERSIONS",
    "REQUIRED_EXPORTS",
    "BuildSpec",
    "Case",
    "CaseError",
    "CaseInvalidError",
    "CaseNotFoundError",
    "CasePaths",
    "CaseType",
    "Catalog",
    "ContractSpec",
    "Difficulty",
    "MatchSpec",
    "Opponent",
    "ReplaySpec",
    "Role",
    "Structure",
    "UnsupportedCaseTypeError",
    "default_case",
    "find_case",
    "load_case",
    "scan_catalog",
    "version_of",
]
