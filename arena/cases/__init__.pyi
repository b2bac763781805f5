"""The names of ``arena.cases``, each once; ``__init__.py`` loads them on first use."""

from ._catalog import (
    CATALOG_DIR as CATALOG_DIR,
    DEFAULT_SLUG as DEFAULT_SLUG,
    Catalog as Catalog,
    default_case as default_case,
    find_case as find_case,
    scan_catalog as scan_catalog,
)
from ._errors import (
    CaseError as CaseError,
    CaseInvalidError as CaseInvalidError,
    CaseNotFoundError as CaseNotFoundError,
    UnsupportedCaseTypeError as UnsupportedCaseTypeError,
)
from ._layout import (
    MANIFEST as MANIFEST,
    version_of as version_of,
)
from ._manifest import (
    MAX_MANIFEST_BYTES as MAX_MANIFEST_BYTES,
    load_case as load_case,
)
from ._model import (
    BuildSpec as BuildSpec,
    Case as Case,
    CasePaths as CasePaths,
    CaseType as CaseType,
    ContractSpec as ContractSpec,
    Difficulty as Difficulty,
    MatchSpec as MatchSpec,
    Opponent as Opponent,
    ReplaySpec as ReplaySpec,
    Structure as Structure,
)
from ._roles import (
    Role as Role,
    RunOutcome as RunOutcome,
)
from ._tables import (
    REPLAY_VERSIONS as REPLAY_VERSIONS,
    REQUIRED_EXPORTS as REQUIRED_EXPORTS,
)
