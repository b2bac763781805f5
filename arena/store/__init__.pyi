"""The names of ``arena.store``, each once; ``__init__.py`` loads them on first use."""

from ._blobs import (
    FileCoding as FileCoding,
    StoredReplay as StoredReplay,
)
from ._contestants import store_contestant as store_contestant
from ._errors import (
    CorruptFileError as CorruptFileError,
    HeldModuleError as HeldModuleError,
    NotInStoreError as NotInStoreError,
    StoreBusyError as StoreBusyError,
    StoreError as StoreError,
    StoreVersionError as StoreVersionError,
)
from ._facade import Store as Store
from ._fields import (
    FIELD_FORMAT as FIELD_FORMAT,
    FieldEntry as FieldEntry,
    FieldSummary as FieldSummary,
)
from ._held import DroppedModule as DroppedModule
from ._names import (
    name_keys as name_keys,
    name_problem as name_problem,
)
from ._prune import Pruned as Pruned
from ._records import (
    SIDE_KEYS as SIDE_KEYS,
    ControllerRecord as ControllerRecord,
    Entrant as Entrant,
    Exclusion as Exclusion,
    MatchRecord as MatchRecord,
    MatchStatus as MatchStatus,
    Origin as Origin,
    ReplayStatus as ReplayStatus,
    ResultRecord as ResultRecord,
    Role as Role,
    RunMatch as RunMatch,
    RunOutcome as RunOutcome,
    RunRecord as RunRecord,
    SideRecord as SideRecord,
    TokenRecord as TokenRecord,
    TokenRole as TokenRole,
    TournamentRecord as TournamentRecord,
    TournamentStatus as TournamentStatus,
)
from ._schema import (
    MIGRATIONS as MIGRATIONS,
    SCHEMA_VERSION as SCHEMA_VERSION,
)
from ._store import (
    MAX_BUILD_LOG_CHARS as MAX_BUILD_LOG_CHARS,
    MAX_NAME_CHARS as MAX_NAME_CHARS,
    STALE_TEMPORARY_SECONDS as STALE_TEMPORARY_SECONDS,
    STORE_FILE as STORE_FILE,
    migrate as migrate,
)
