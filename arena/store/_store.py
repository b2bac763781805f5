"""What the store's tables share: ``Core`` (the data directory: its database, its files), the
limits, the checks of what callers hand in, timestamps as stored; and ``migrate``.

``Store`` (``_facade.py``) is ``Core`` with one mixin a table (``_controllers.py``,
``_matches.py``, ``_tournaments.py``, ``_runs.py``), each owning its SQL and rows.

What is written in which order (docs/storage.md): a file (replay, module) is
written atomically and fsynced before the row that points at it, and every
record is one transaction, so a reader never finds a row without its file and
a process killed at any point leaves either the whole record or none of it
(at worst an unreferenced file, which the next identical write reuses).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Final, Self, TypeVar

import replays
from arena._errors import ArenaError
from arena._files import data_dir
from arena.store._blobs import Blobs, StoredReplay, check_sha256
from arena.store._db import Database
from arena.store._errors import CorruptFileError, NotInStoreError, StoreError
from arena.store._records import Entrant, ReplayStatus
from arena.store._schema import MIGRATIONS
from replays import MAX_NAME_CHARS

__all__ = [
    "MAX_BUILD_LOG_CHARS",
    "MAX_MODULE_FILE_BYTES",
    "MAX_NAME_CHARS",
    "MAX_PAGE",
    "MAX_TEXT_CHARS",
    "STALE_TEMPORARY_SECONDS",
    "STORE_FILE",
    "Core",
    "check_entrant",
    "check_limit",
    "check_name",
    "check_seed",
    "cut",
    "migrate",
    "page_bound",
    "parse_stamp",
    "stamp",
    "utc_now",
]

T = TypeVar("T")

STORE_FILE: Final = "arena.sqlite3"
"""The database's file name in the data directory."""
MAX_TEXT_CHARS: Final = 4096
"""Longest pairing key; longest error or reason kept (a longer one is cut, with a note)."""
MAX_BUILD_LOG_CHARS: Final = 64 * 1024
"""Longest build log kept: its end (where a build says what went wrong), with a note."""
MAX_PAGE: Final = 500
"""Most rows one listing returns."""
MAX_MODULE_FILE_BYTES: Final = 64 * 1024 * 1024
"""A bound for reading a module file back (admission allows far less)."""
STALE_TEMPORARY_SECONDS: Final = 3600.0
"""Age past which a temporary file is a write that never finished (``Store.sweep``)."""


def migrate(
    path: Path, steps: Sequence[Sequence[str]] = MIGRATIONS, *, busy_timeout: float = 30.0
) -> int:
    """Bring the database file ``path`` up to version ``len(steps)``; return that version.

    Step ``i`` takes version ``i`` to ``i + 1`` in one transaction (with the
    bump of ``PRAGMA user_version``), so a failed step leaves the version
    before it; processes migrating at once apply each step once. Raises
    ``StoreVersionError`` for a file newer than ``steps``. ``Store.open``
    does this with ``MIGRATIONS``.
    """
    db = Database(Path(path), busy_timeout=busy_timeout)
    try:
        return db.open(steps)
    finally:
        db.close()


class Core:
    """One data directory (``arena.sqlite3``, ``replays/``, ``modules/``): the base of ``Store``.

    It opens and closes the store and reads its files back; the tables read
    and write rows through ``_db`` (one transaction a call) and files through
    ``_replays`` and ``_modules`` (by sha256, each written before its row).
    """

    def __init__(self, root: Path, db: Database) -> None:
        """Use ``Store.open``."""
        self.root = root
        """The data directory."""
        self._db = db
        self._replays = Blobs(
            root / "replays",
            ".replay",
            "replay",
            replays.DEFAULT_LIMITS.max_bytes,
            compressed=True,
        )
        self._modules = Blobs(root / "modules", ".wasm", "module", MAX_MODULE_FILE_BYTES)
        self.swept: list[Path] = []
        """The temporary files of killed writes that opening the store deleted."""

    @classmethod
    def open(cls, root: Path | None = None, *, busy_timeout: float = 30.0) -> Self:
        """Open (creating it if need be) the store in ``root`` (default: ``arena.data_dir()``).

        Brings the schema up to date; raises ``StoreVersionError`` for a
        database written by a newer arena, ``StoreError`` for a directory or
        file that cannot be used. Deletes the temporary files of writes that
        were killed (``sweep``; never one a live write holds), listed in ``swept``.
        """
        if busy_timeout <= 0:
            raise ValueError(f"busy_timeout must be positive, got {busy_timeout}")
        root = data_dir() if root is None else Path(root)
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot use the data directory {root}: {exc.strerror or exc}"
            ) from exc
        db = Database(root / STORE_FILE, busy_timeout=busy_timeout)
        try:
            db.open(MIGRATIONS)
        except BaseException:
            db.close()
            raise
        store = cls(root, db)
        # Housekeeping only: what cannot be swept now is never read anyway.
        with contextlib.suppress(StoreError):
            store.swept = store.sweep(None)
        return store

    @property
    def path(self) -> Path:
        """The database file."""
        return self._db.path

    def generation(self) -> tuple[int, int]:
        """A value that changes whenever anything is written to the store's database, by this
        process or another (a publish, a match recorded, an exclusion, a deletion): equal
        values mean nothing was written in between, so what was read from the store then
        is still what it holds. For a cache of what is read; never waits on a lock
        (``StoreBusyError`` at once). Compare values from one thread only: each thread
        reads its own connection's (a value of another thread is never equal)."""
        return self._db.version()

    def close(self) -> None:
        """Close the store's connections; the store cannot be used after."""
        self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def sweep(self, older_than: float | None = STALE_TEMPORARY_SECONDS) -> list[Path]:
        """Delete temporary files that writes killed mid-way left in ``replays/`` and ``modules/``.

        Every one in their ``.tmp/`` that no process holds locked (a write in
        flight holds its own: it is never deleted), whatever its age; ``Store.open``
        does this much. With ``older_than`` (seconds; ``arena serve`` does it when
        it starts), also those older than that beside the files, where writes
        put them before ``.tmp/`` (nothing tells a live one there but its age).
        They are never read, so this only frees room. Returns the files deleted.
        """
        return self._replays.sweep(older_than) + self._modules.sweep(older_than)

    def _by_id(
        self,
        what: str,
        record_id: int,
        read: Callable[[sqlite3.Connection, int], T | None],
        *,
        wait: bool = True,
    ) -> T:
        """The ``what`` (a match, a tournament, a run) that ``read`` finds by id, or
        ``NotInStoreError``; ``wait`` as ``Database.read`` takes it."""
        record = self._db.read(lambda c: read(c, record_id), f"reading a {what}", wait=wait)
        if record is None:
            raise NotInStoreError(f"no {what} {record_id} in the store {self.path}")
        return record

    # ================================================================= files

    def module_path(self, sha256: str) -> Path:
        """Where the module of ``sha256`` is stored (it is not read or checked)."""
        return self._modules.path(sha256)

    def read_module_bytes(self, sha256: str) -> bytes:
        """A stored module's bytes, checked against its sha256 (``CorruptFileError`` if not)."""
        try:
            return self._modules.read(sha256)
        except FileNotFoundError:
            raise self._missing(self._modules, sha256) from None

    def replay_path(self, sha256: str) -> Path:
        """Where the replay of ``sha256`` is stored (it is not read or checked). The file holds
        the replay zstd-compressed, or raw if it was stored before replays were compressed:
        ``arena replay`` reads either."""
        return self._replays.path(sha256)

    def read_replay_bytes(self, sha256: str) -> bytes:
        """A stored replay's own bytes (decompressed), checked against its sha256
        (``CorruptFileError`` if not)."""
        try:
            return self._replays.read(sha256)
        except FileNotFoundError:
            raise self._missing(self._replays, sha256) from None

    def replay_status(self, sha256: str) -> ReplayStatus:
        """Whether the replay of ``sha256`` is there and whole: its file read, decompressed
        and hashed against its name. ``StoreError`` if it cannot be read at all."""
        try:
            self._replays.read(sha256)
        except FileNotFoundError:
            return ReplayStatus.MISSING
        except CorruptFileError:
            return ReplayStatus.DAMAGED
        return ReplayStatus.OK

    def stored_replay(self, sha256: str) -> StoredReplay:
        """A stored replay's file as it is kept (compressed, or raw if older), to send.

        Its digest is checked the first time this process hands it out and
        then only when the file changes (``Blobs.stored_replay``): a damaged
        file raises ``CorruptFileError`` before a byte is handed out.
        """
        try:
            return self._replays.stored_replay(sha256)
        except FileNotFoundError:
            raise self._missing(self._replays, sha256) from None

    def verified_replay(self, sha256: str, most: int) -> StoredReplay | None:
        """``stored_replay``, only if that needs no hashing (the file was verified as it is
        now) and the file is at most ``most`` bytes; else None."""
        return self._replays.verified_replay(sha256, most)

    def _missing(self, blobs: Blobs, sha256: str) -> ArenaError:
        """A file that is not there: lost, if a row points at it; else never stored."""
        # Rare, so no index serves the replays' query: it scans the matches.
        query = (
            "SELECT 1 FROM matches WHERE replay_sha256 = ?"
            if blobs is self._replays
            else "SELECT 1 FROM controllers WHERE sha256 = ?"
        )
        referenced = self._db.read(
            lambda c: c.execute(query, (sha256,)).fetchone(), f"looking up a {blobs.what}"
        )
        if referenced:
            return CorruptFileError(
                f"the {blobs.what} file {blobs.path(sha256)} is missing, though the store uses it"
            )
        return NotInStoreError(f"no {blobs.what} {sha256} in the store {self.root}")


# ===================================================================== checks


def check_name(name: str, what: str) -> str:
    """``name`` if it has 1..``MAX_NAME_CHARS`` characters, else an error naming ``what``."""
    if not isinstance(name, str) or not 1 <= len(name) <= MAX_NAME_CHARS:
        raise ArenaError(f"{what} {name!r} must be 1..{MAX_NAME_CHARS} characters")
    return name


def check_entrant(e: Entrant) -> Entrant:
    """``e`` if its name and sha256 are well formed (whether it is stored is the table's check)."""
    check_name(e.name, "controller name")
    check_sha256(e.sha256, "controller")
    return e


def check_seed(seed: int) -> int:
    """``seed`` if it is an unsigned 32-bit integer."""
    if not isinstance(seed, int) or not 0 <= seed < 1 << 32:
        raise ValueError(f"seed {seed!r} is not an unsigned 32-bit integer")
    return seed


def check_limit(limit: int) -> None:
    """Refuse a page size outside 1..``MAX_PAGE``."""
    if not 1 <= limit <= MAX_PAGE:
        raise ArenaError(f"a page holds 1..{MAX_PAGE} rows, not {limit}")


def page_bound(limit: int, before: int | None) -> int:
    """Check a page of ``limit`` rows; the id its rows are below (``before``, else above all)."""
    check_limit(limit)
    return (1 << 63) - 1 if before is None else before


def cut(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    """``text``, or its first ``limit`` characters and a note of how many more there were."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]} [... {len(text) - limit:,} more characters]"


# ===================================================================== timestamps


def stamp(when: datetime) -> str:
    """A timestamp as stored: ISO 8601 with microseconds and the UTC offset."""
    return when.isoformat(timespec="microseconds")


def utc_now() -> str:
    """Now, as stored (timestamps are metadata: no deterministic output holds one)."""
    return stamp(datetime.now(UTC))


def parse_stamp(text: str) -> datetime:
    """A stored timestamp read back."""
    return datetime.fromisoformat(text)
