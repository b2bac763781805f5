"""The SQLite file: connections, transactions that survive a busy lock, errors that name the file.

Several processes may write one store at once (two CLI processes and the
server): every write is one ``BEGIN IMMEDIATE`` transaction, which takes the
write lock up front (a deferred transaction that upgrades from read to write
can fail with SQLITE_BUSY without waiting). SQLite's own busy handler waits
for the lock; if SQLite still answers BUSY or LOCKED (it does in cases its
handler cannot wait out), the whole transaction is run again after a
randomised, doubling pause, until the busy timeout is spent. Then, and only
then, ``StoreBusyError``.
"""

from __future__ import annotations

import itertools
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from arena.store._errors import StoreBusyError, StoreError, StoreVersionError

if TYPE_CHECKING:
    import random

__all__ = ["MIN_SQLITE", "Database"]

T = TypeVar("T")

MIN_SQLITE = (3, 37, 0)
"""STRICT tables."""

# Primary result codes (https://sqlite.org/rescode.html).
_BUSY, _LOCKED = 5, 6
_ENVIRONMENT = {
    3: "permission denied",  # PERM
    8: "it is read-only",  # READONLY
    10: "a read or write failed (is the disk full or failing?)",  # IOERR
    11: "it is corrupt",  # CORRUPT
    13: "the disk is full",  # FULL
    14: "it cannot be opened",  # CANTOPEN
    22: "it is too large for this system",  # NOLFS
    26: "it is not a database",  # NOTADB
}
_FIRST_PAUSE = 0.002
_MAX_PAUSE = 0.25


def _code(exc: sqlite3.Error) -> int:
    return int(getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF


class Database:
    """One SQLite file, with a connection per thread (and per process, after a fork)."""

    def __init__(self, path: Path, *, busy_timeout: float) -> None:
        if sqlite3.sqlite_version_info < MIN_SQLITE:
            raise StoreError(
                f"the store needs SQLite {'.'.join(map(str, MIN_SQLITE))} or newer; "
                f"this Python has {sqlite3.sqlite_version}"
            )
        self.path = path
        self.busy_timeout = busy_timeout
        self._lock = threading.Lock()
        self._pid = os.getpid()
        self._local = threading.local()
        self._open: list[sqlite3.Connection] = []
        self._rng: random.Random | None = None  # made by the first wait on a busy lock
        self._closed = False
        self._serials = itertools.count(1)

    # ----------------------------------------------------------------- connections

    def _connection(self) -> sqlite3.Connection:
        if self._closed:
            raise StoreError(f"the store {self.path} is closed")
        if os.getpid() != self._pid:
            # A forked child must not use its parent's connections (SQLite's
            # rule): forget them, unclosed, and open its own.
            with self._lock:
                self._pid, self._open, self._local = os.getpid(), [], threading.local()
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._guard(self._connect)
            self._local.conn = conn
            with self._lock:
                self._open.append(conn)
        return conn

    def _nowait_connection(self) -> sqlite3.Connection:
        """This thread's connection that never waits on a lock (``read(wait=False)``)."""
        conn: sqlite3.Connection | None = getattr(self._local, "nowait", None)
        if conn is None or os.getpid() != self._pid:
            self._connection()  # the checks, and a fork's reset
            conn = self._guard(lambda: self._connect(timeout=0.0))
            self._local.nowait = conn
            self._local.nowait_serial = next(self._serials)
            with self._lock:
                self._open.append(conn)
        return conn

    def _connect(self, timeout: float | None = None) -> sqlite3.Connection:
        # isolation_level=None: no implicit transactions; this module opens
        # and ends every one itself. The timeout is SQLite's busy handler.
        conn = sqlite3.connect(
            self.path,
            timeout=self.busy_timeout if timeout is None else timeout,
            isolation_level=None,
            check_same_thread=False,
        )
        conn.row_factory = sqlite3.Row
        try:
            conn.execute("PRAGMA foreign_keys = ON")
            # In WAL mode NORMAL syncs at checkpoints, not at every commit: a
            # killed process loses nothing; a power cut may lose the last
            # commits, never consistency (and replay files are fsynced first).
            conn.execute("PRAGMA synchronous = NORMAL")
        except BaseException:
            conn.close()
            raise
        return conn

    def close(self) -> None:
        """Close every connection this process opened (from any thread)."""
        with self._lock:
            self._closed = True
            conns, self._open = self._open, []
            self._local = threading.local()
        if os.getpid() == self._pid:
            for conn in conns:
                conn.close()

    # ----------------------------------------------------------------- errors

    def _error(self, exc: sqlite3.Error, what: str) -> StoreError:
        code = _code(exc)
        name = getattr(exc, "sqlite_errorname", "") or type(exc).__name__
        if code in (_BUSY, _LOCKED):
            return StoreBusyError(
                f"the store {self.path} stayed locked by another process for "
                f"{self.busy_timeout:g} s while {what} ({name})"
            )
        because = _ENVIRONMENT.get(code, "SQLite failed")
        return StoreError(f"the store {self.path} failed while {what}: {because} ({name}: {exc})")

    def _guard(self, fn: Callable[[], T], what: str = "opening it") -> T:
        """Run ``fn``, retrying on a busy lock; environment failures become StoreError."""
        deadline = time.monotonic() + self.busy_timeout
        pause = _FIRST_PAUSE
        while True:
            try:
                return fn()
            except sqlite3.Error as exc:
                code = _code(exc)
                if code in (_BUSY, _LOCKED) and time.monotonic() < deadline:
                    left = deadline - time.monotonic()
                    if self._rng is None:
                        import random  # only a busy store waits: most commands never do

                        self._rng = random.Random()
                    time.sleep(max(0.0, min(pause * self._rng.uniform(0.5, 1.5), left)))
                    pause = min(pause * 2, _MAX_PAUSE)
                    continue
                if code in (_BUSY, _LOCKED) or code in _ENVIRONMENT:
                    raise self._error(exc, what) from exc
                raise  # anything else (a constraint, bad SQL) is a bug in the host

    # ----------------------------------------------------------------- transactions

    def _transaction(
        self, begin: str, body: Callable[[sqlite3.Connection], T], what: str, *, wait: bool = True
    ) -> T:
        def attempt() -> T:
            conn = self._connection() if wait else self._nowait_connection()
            conn.execute(begin)
            try:
                out = body(conn)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:  # SQLite may have rolled back already
                    conn.execute("ROLLBACK")
                raise
            return out

        if not wait:
            try:
                return attempt()
            except sqlite3.Error as exc:
                if _code(exc) in (_BUSY, _LOCKED) or _code(exc) in _ENVIRONMENT:
                    raise self._error(exc, what) from exc
                raise
        return self._guard(attempt, what)

    def write(self, body: Callable[[sqlite3.Connection], T], what: str) -> T:
        """Run ``body`` in one write transaction (``BEGIN IMMEDIATE``), retried while busy.

        ``body`` may run more than once, so it must only touch the database.
        """
        return self._transaction("BEGIN IMMEDIATE", body, what)

    def read(self, body: Callable[[sqlite3.Connection], T], what: str, *, wait: bool = True) -> T:
        """Run ``body`` in one read transaction: every query in it sees the same snapshot.

        ``wait=False``: on a connection without a busy handler, once, so a lock
        (rare for a read in WAL mode) raises ``StoreBusyError`` at once instead
        of waiting: for a caller that must not block (an event loop), which
        then reads again where it may wait.
        """
        return self._transaction("BEGIN", body, what, wait=wait)

    def version(self) -> tuple[int, int]:
        """A value that changes whenever a write is committed to the file, by any connection of
        this process or of another: equal values mean nothing was committed in between. It
        never waits on a lock (``StoreBusyError`` at once, as ``read(wait=False)``).

        SQLite's ``PRAGMA data_version`` counts the commits of every connection but its own,
        and is only comparable on one connection: it is read on this thread's connection that
        never writes (``read(wait=False)``'s), named by a serial of this ``Database``.
        """
        conn = self._nowait_connection()
        try:
            value = int(conn.execute("PRAGMA data_version").fetchone()[0])
        except sqlite3.Error as exc:
            if _code(exc) in (_BUSY, _LOCKED) or _code(exc) in _ENVIRONMENT:
                raise self._error(exc, "reading its version") from exc
            raise
        serial: int = self._local.nowait_serial
        return serial, value

    # ----------------------------------------------------------------- schema

    def open(self, migrations: Sequence[Sequence[str]]) -> int:
        """Switch to WAL and bring the schema up to ``len(migrations)``, one step per transaction.

        Returns the version. Raises StoreVersionError if the file is newer
        than ``migrations``.
        """
        conn = self._connection()
        mode = self._guard(lambda: conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])
        if str(mode).lower() != "wal":
            raise StoreError(f"the store {self.path} cannot use WAL mode (SQLite kept {mode!r})")
        target = len(migrations)

        def step(conn: sqlite3.Connection) -> bool:
            # Read under the write lock: another process may have migrated.
            version = _user_version(conn)
            self._refuse_newer(version, target)
            if version == target:
                return False
            for statement in migrations[version]:
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {version + 1}")
            return True

        version = self.read(_user_version, "opening it")
        self._refuse_newer(version, target)
        if version < target:
            while self.write(step, "migrating its schema"):
                pass
        return target

    def _refuse_newer(self, version: int, known: int) -> None:
        if version > known:
            raise StoreVersionError(
                f"the store {self.path} has schema version {version}, newer than this "
                f"arena's {known}: it was written by a newer arena; upgrade to read it"
            )


def _user_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])
