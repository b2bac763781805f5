"""The arena's storage: controllers, matches, tournaments and runs in SQLite; files by sha256.

One data directory (``arena.data_dir()``) holds the database ``arena.sqlite3``
(WAL mode, schema versioned by ``PRAGMA user_version`` with forward
migrations), the replays ``replays/<sha256>.replay`` and the modules
``modules/<sha256>.wasm``. A file is written atomically before the row that
points at it; every record is one transaction; several processes may write
at once. Every file read is checked against its sha256. See docs/storage.md.

The store plays no match and judges no module: callers hand it results
(``arena.match.MatchResult``) and modules they have admitted.
"""

from arena.store._blobs import ReplayStream
from arena.store._errors import (
    CorruptFileError,
    NotInStoreError,
    StoreBusyError,
    StoreError,
    StoreVersionError,
)
from arena.store._facade import Store
from arena.store._records import (
    SIDE_KEYS,
    ControllerRecord,
    Entrant,
    MatchRecord,
    MatchStatus,
    Origin,
    ResultRecord,
    Role,
    RunMatch,
    RunOutcome,
    RunRecord,
    SideRecord,
    TournamentRecord,
    TournamentStatus,
)
from arena.store._schema import MIGRATIONS, SCHEMA_VERSION
from arena.store._store import (
    MAX_BUILD_LOG_CHARS,
    MAX_NAME_CHARS,
    MAX_PAGE,
    MAX_TEXT_CHARS,
    STALE_TEMPORARY_SECONDS,
    STORE_FILE,
    migrate,
)

__all__ = [
    "MAX_BUILD_LOG_CHARS",
    "MAX_NAME_CHARS",
    "MAX_PAGE",
    "MAX_TEXT_CHARS",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "SIDE_KEYS",
    "STALE_TEMPORARY_SECONDS",
    "STORE_FILE",
    "ControllerRecord",
    "CorruptFileError",
    "Entrant",
    "MatchRecord",
    "MatchStatus",
    "NotInStoreError",
    "Origin",
    "ReplayStream",
    "ResultRecord",
    "Role",
    "RunMatch",
    "RunOutcome",
    "RunRecord",
    "SideRecord",
    "Store",
    "StoreBusyError",
    "StoreError",
    "StoreVersionError",
    "TournamentRecord",
    "TournamentStatus",
    "migrate",
]
