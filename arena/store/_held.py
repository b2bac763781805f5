"""Modules held for review: a worker's local run's module that the site fetched to play it.

The site stores such a module as an upload (a match's row names a stored
controller) and marks it in ``held_modules`` with the worker it came from and
when it was last chosen (docs/web.md, "Workers"). A held module is never
published: a quick match or a tournament that plays one cannot be published
(``HeldModuleError``), and no module's bytes but an open baseline's are served
publicly anyway. Storing the same bytes on purpose (an upload, a file played
from the command line, a run that built it: a push) releases it: it is the
operator's from then on.

The quick-match retention deletes a held module, its row and its file, once
nothing uses it: no match (pending, kept or published), no tournament's field,
no run, and it was last chosen before the newest quick match the retention
drops was created (so a module chosen for a match being queued now, whose row
is not written yet, stays).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Iterable

import msgspec

from arena.store._blobs import Blobs
from arena.store._errors import HeldModuleError
from arena.store._store import Core, utc_now

__all__ = [
    "DroppedModule",
    "Held",
    "drop_unused_held",
    "hold",
    "keep_module",
    "refuse_held",
    "release_held",
    "unused_held",
]


class Held(Core):
    """``Store``'s modules held for review (see the module)."""

    def held_modules(self) -> dict[str, str]:
        """The held modules: by sha256, the worker each came from."""
        rows = self._db.read(
            lambda c: c.execute("SELECT sha256, worker FROM held_modules").fetchall(),
            "listing the held modules",
        )
        return {sha: worker for sha, worker in rows}

    def touch_held(self, sha256: str) -> bool:
        """Whether ``sha256`` is a held module; if so it is chosen again now, so the
        retention keeps it for the match or tournament about to be recorded."""
        now = utc_now()
        return self._db.write(
            lambda c: (
                c.execute(
                    "UPDATE held_modules SET held_at = ? WHERE sha256 = ?", (now, sha256)
                ).rowcount
                > 0
            ),
            "choosing a held module",
        )

    def release_held(self, sha256: str) -> bool:
        """Whether ``sha256`` was held: stored on purpose now, it stays and may be published."""
        return self._db.write(lambda c: release_held(c, sha256), "releasing a held module")


def hold(conn: sqlite3.Connection, sha256: str, worker: str, now: str, *, new: bool) -> None:
    """Mark a module the site fetched from ``worker``: held if it was ``new`` (stored just
    now), else chosen again if it is held (a module stored on purpose stays so)."""
    if new:
        conn.execute(
            "INSERT INTO held_modules (sha256, worker, held_at) VALUES (?, ?, ?)"
            " ON CONFLICT (sha256) DO UPDATE SET held_at = excluded.held_at",
            (sha256, worker, now),
        )
    else:
        conn.execute("UPDATE held_modules SET held_at = ? WHERE sha256 = ?", (now, sha256))


def release_held(conn: sqlite3.Connection, sha256: str) -> bool:
    """Unmark ``sha256`` (stored on purpose); whether it was held."""
    return conn.execute("DELETE FROM held_modules WHERE sha256 = ?", (sha256,)).rowcount > 0


def refuse_held(conn: sqlite3.Connection, shas: Iterable[str], what: str) -> None:
    """``HeldModuleError`` if one of ``shas`` is held, naming it and its worker."""
    for sha in dict.fromkeys(shas):
        row = conn.execute(
            "SELECT c.name, h.worker FROM held_modules AS h JOIN controllers AS c USING (sha256)"
            " WHERE h.sha256 = ?",
            (sha,),
        ).fetchone()
        if row is not None:
            raise HeldModuleError(
                f"{what} plays {row[0]!r}, a local run of the worker {row[1]!r} held for review"
                " only: it cannot be published (push that run, then publish)"
            )


def keep_module(modules: Blobs, sha256: str, blob: bytes) -> None:
    """In the transaction that writes a controller's row: make sure its file is there (the
    retention may have deleted a held module's since it was stored; it is written again)."""
    if modules.size(sha256) is None:
        modules.put(blob)


class DroppedModule(msgspec.Struct, frozen=True):
    """A held module the quick-match retention deleted (or, in a dry run, would delete)."""

    sha256: str
    name: str
    """The name it was stored under."""
    worker: str
    """The worker whose local run it came from."""

    def to_json(self) -> dict[str, str]:
        """{"sha256", "name", "worker"}."""
        return {"sha256": self.sha256, "name": self.name, "worker": self.worker}


def unused_held(
    conn: sqlite3.Connection, before: str, gone: Collection[int] = ()
) -> list[DroppedModule]:
    """The held modules nothing uses but the matches ``gone`` (ids about to be deleted), last
    chosen before ``before`` (a stamp): no other match's side, no tournament's field, no
    run. By sha256."""
    candidates = conn.execute(
        "SELECT h.sha256, c.name, h.worker FROM held_modules AS h"
        " JOIN controllers AS c USING (sha256) WHERE h.held_at < ?"
        " AND NOT EXISTS (SELECT 1 FROM tournament_field AS f WHERE f.sha256 = h.sha256)"
        " AND NOT EXISTS (SELECT 1 FROM runs AS r WHERE r.controller_sha256 = h.sha256)"
        " ORDER BY h.sha256",
        (before,),
    ).fetchall()
    gone = set(gone)
    return [
        DroppedModule(sha, name, worker)
        for sha, name, worker in candidates
        if all(
            row[0] in gone
            for row in conn.execute("SELECT match_id FROM match_sides WHERE sha256 = ?", (sha,))
        )
    ]


def drop_unused_held(conn: sqlite3.Connection, modules: Blobs, before: str) -> list[DroppedModule]:
    """Delete the held modules nothing uses that were last chosen before ``before`` (a
    stamp): their rows, then their files. What was deleted."""
    doomed = unused_held(conn, before)
    for module in doomed:
        conn.execute("DELETE FROM held_modules WHERE sha256 = ?", (module.sha256,))
        conn.execute("DELETE FROM controllers WHERE sha256 = ?", (module.sha256,))
        modules.delete(module.sha256)
    return doomed
