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

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
