"""The controllers table: a stored module's row (its bytes are ``modules/<sha256>.wasm``).

A controller is its sha256: storing the same bytes again keeps the first name
and origin, and ``hidden`` is sticky.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path

from arena.store._errors import NotInStoreError
from arena.store._held import hold, keep_module, release_held
from arena.store._names import name_keys
from arena.store._records import ControllerRecord, Entrant, Origin
from arena.store._store import Core, check_name, parse_stamp, utc_now

__all__ = ["Controllers", "check_controllers", "insert_controller"]

# What the public side may know of a stored controller: an open committed opponent, or
# the controller of a published run. Its name there is a name a published record carries:
# a committed opponent's own, else its first published run's (the name it was first stored
# under may be an unpublished local run's).
_PUBLIC = (
    " hidden = 0 AND (origin = 'baseline' OR sha256 IN (SELECT controller_sha256"
    " FROM runs WHERE id IN (SELECT run_id FROM published_runs)))"
)
_PUBLIC_NAME = (
    "CASE WHEN origin = 'baseline' THEN name ELSE (SELECT r.controller FROM runs AS r"
    " JOIN published_runs AS p ON p.run_id = r.id WHERE r.controller_sha256 = controllers.sha256"
    " ORDER BY r.id LIMIT 1) END"
)


class Controllers(Core):
    """``Store``'s controllers: store one, find one, list them."""

    def add_controller(
        self,
        blob: bytes,
        *,
        name: str,
        origin: Origin,
        hidden: bool = False,
        held_by: str | None = None,
    ) -> ControllerRecord:
        """Store a controller's module (``modules/<sha256>.wasm``) and its row; idempotent.

        The store does not judge the module: admission is the caller's. A
        controller stored before keeps its first name and origin; ``hidden``
        is sticky (once hidden, always hidden), so uploading a hidden
        opponent's bytes never makes it public. Returns the stored record.

        ``held_by``: the module is the worker ``held_by``'s local run, fetched to
        be played: held for review only if it is new (``_held.py``), chosen again
        if it is held. Without it the module is stored on purpose: one that was
        held is released.
        """
        check_name(name, "controller name")
        origin = Origin(origin)
        sha256 = self._modules.put(blob)  # the file before the row that points at it
        now = utc_now()

        def tx(conn: sqlite3.Connection) -> ControllerRecord:
            keep_module(self._modules, sha256, blob)
            new = (
                conn.execute("SELECT 1 FROM controllers WHERE sha256 = ?", (sha256,)).fetchone()
                is None
            )
            insert_controller(conn, sha256, name, origin, hidden, len(blob), now)
            if held_by is None:
                release_held(conn, sha256)
            else:
                hold(conn, sha256, held_by, now, new=new)
            row = conn.execute("SELECT * FROM controllers WHERE sha256 = ?", (sha256,)).fetchone()
            return _record(row)

        return self._db.write(tx, f"storing controller {name!r}")

    def controller(self, ref: str) -> ControllerRecord:
        """A controller by sha256, or by name (the one stored last under it).

        Hidden controllers are found too: check ``hidden`` before showing one.
        """

        def tx(conn: sqlite3.Connection) -> sqlite3.Row | None:
            row: sqlite3.Row | None = conn.execute(
                "SELECT * FROM controllers WHERE sha256 = ?", (ref,)
            ).fetchone()
            if row is None:
                row = conn.execute(
                    "SELECT * FROM controllers WHERE name = ?"
                    " ORDER BY created_at DESC, rowid DESC LIMIT 1",
                    (ref,),
                ).fetchone()
            return row

        row = self._db.read(tx, "reading a controller")
        if row is None:
            raise NotInStoreError(f"no controller {ref!r} in the store {self.path}")
        return _record(row)

    def controller_like(self, name: str) -> ControllerRecord | None:
        """The stored controller whose name looks the same as ``name`` (``name_keys``: after
        normalization, case folding and Unicode's confusables), the newest; hidden ones too."""
        keys = name_keys(name)
        rows = self._db.read(
            lambda c: c.execute(
                "SELECT * FROM controllers ORDER BY created_at DESC, rowid DESC"
            ).fetchall(),
            "reading the controllers' names",
        )
        found = next((r for r in rows if keys & name_keys(r["name"])), None)
        return None if found is None else _record(found)

    def controllers(
        self, *, include_hidden: bool = False, published_only: bool = False
    ) -> list[ControllerRecord]:
        """Every stored controller, by name then age; hidden ones only if asked for.

        ``published_only``: only the committed opponents that are not hidden and the
        controllers of published runs (what the public site names), each by the name a
        published record carries (an opponent's own, else its first published run's)."""
        where = "" if include_hidden else " WHERE hidden = 0"
        columns = "*"
        if published_only:
            where = f" WHERE{_PUBLIC}"
            columns = f"sha256, {_PUBLIC_NAME} AS name, origin, hidden, size, created_at"
        rows = self._db.read(
            lambda c: c.execute(
                f"SELECT {columns} FROM controllers{where} ORDER BY name, created_at, rowid"
            ).fetchall(),
            "listing controllers",
        )
        return [_record(r) for r in rows]

    def stored_names(
        self, shas: Iterable[str], *, published_only: bool = False, wait: bool = True
    ) -> dict[str, str]:
        """By sha256, the name each of ``shas`` was first stored under (those stored).

        ``published_only``: only the controllers the public listing names, by the names it
        gives them (as ``controllers(published_only=True)``). ``wait`` as ``Database.read``
        takes it."""
        wanted = sorted(set(shas))
        if not wanted:
            return {}
        marks = ", ".join("?" * len(wanted))
        public = f" AND{_PUBLIC}" if published_only else ""
        name = _PUBLIC_NAME if published_only else "name"
        rows = self._db.read(
            lambda c: c.execute(
                f"SELECT sha256, {name} FROM controllers WHERE sha256 IN ({marks}){public}", wanted
            ).fetchall(),
            "reading the controllers' names",
            wait=wait,
        )
        return {sha: name for sha, name in rows}

    def other_names(self) -> dict[str, tuple[str, ...]]:
        """By sha256, the names a controller ran under that differ from the one it is
        stored under (its first): a pushed run's and a tournament entrant's, each once,
        sorted. Controllers known by one name only are left out."""

        def tx(conn: sqlite3.Connection) -> list[sqlite3.Row]:
            return conn.execute(
                "SELECT DISTINCT c.sha256, u.name FROM ("
                " SELECT controller_sha256 AS sha256, controller AS name FROM runs"
                " WHERE controller_sha256 IS NOT NULL"
                " UNION SELECT sha256, name FROM tournament_field"
                ") AS u JOIN controllers AS c ON c.sha256 = u.sha256 AND c.name <> u.name"
                " ORDER BY c.sha256, u.name"
            ).fetchall()

        names: dict[str, list[str]] = {}
        for row in self._db.read(tx, "listing the controllers' other names"):
            names.setdefault(row[0], []).append(row[1])
        return {sha: tuple(n) for sha, n in names.items()}


def insert_controller(
    conn: sqlite3.Connection,
    sha256: str,
    name: str,
    origin: Origin,
    hidden: bool,
    size: int,
    now: str,
) -> None:
    """A controller's row; one stored already keeps its name and origin (hidden is sticky)."""
    conn.execute(
        "INSERT INTO controllers (sha256, name, origin, hidden, size, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (sha256) DO UPDATE SET hidden = max(hidden, excluded.hidden)",
        (sha256, name, str(origin), int(hidden), size, now),
    )


def check_controllers(conn: sqlite3.Connection, entrants: Sequence[Entrant], store: Path) -> None:
    """Refuse entrants whose controller is not stored, naming the first (a match's or a field's)."""
    shas = sorted({e.sha256 for e in entrants})
    marks = ", ".join("?" * len(shas))
    known = {
        r[0]
        for r in conn.execute(f"SELECT sha256 FROM controllers WHERE sha256 IN ({marks})", shas)
    }
    for e in entrants:
        if e.sha256 not in known:
            raise NotInStoreError(
                f"controller {e.name!r} ({e.sha256}) is not in the store {store}: "
                "store it (add_controller) before its matches"
            )


def _record(row: sqlite3.Row) -> ControllerRecord:
    return ControllerRecord(
        sha256=row["sha256"],
        name=row["name"],
        origin=Origin(row["origin"]),
        hidden=bool(row["hidden"]),
        size=row["size"],
        created_at=parse_stamp(row["created_at"]),
    )
