"""Pruning: quick matches deleted past a date or a count, and the replay files no row uses.

Only a match that belongs to no tournament and no run (a quick match, from
``arena match`` or the site), is settled (finished or in error) and is not
published may go: a tournament's standings and a run's evidence are made of
theirs, and what is published stays.

A replay file is deleted only inside a write transaction that finds no row
pointing at it. A writer stores a replay file before the transaction that
points a row at it, so a prune may delete a file in between; the writer's
transaction finds it missing and writes it again, under the same lock
(``keep_replay``): a row never points at a missing file.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime
from functools import partial
from typing import Any, Final

import msgspec

from arena._errors import ArenaError
from arena.store._blobs import Blobs
from arena.store._held import DroppedModule, drop_unused_held, unused_held
from arena.store._match_rows import MATCHES, ResultRows, match_record
from arena.store._records import MatchRecord
from arena.store._store import MAX_PAGE, Core, stamp

__all__ = ["Pruned", "Pruning", "keep_replay"]

_QUICK: Final = (
    "m.tournament_id IS NULL AND m.run_id IS NULL AND m.status <> 'pending'"
    " AND m.id NOT IN (SELECT match_id FROM published_matches)"
)
"""A settled match of no tournament and no run, not published: what a prune may delete."""


class Pruned(msgspec.Struct, frozen=True):
    """What ``Store.prune_matches`` deleted, or would delete in a dry run."""

    matches: tuple[MatchRecord, ...]
    """The matches, oldest first."""
    replays: tuple[tuple[str, int], ...]
    """The replay files no row uses any more (those of the matches, and any other): each
    one's sha256 and size in bytes."""
    dry_run: bool
    held: tuple[DroppedModule, ...] = ()
    """The modules held from workers that no match, field or run uses any more, deleted with
    the matches (rows and files), by sha256."""

    @property
    def replay_bytes(self) -> int:
        """The bytes the replay files held (what deleting them frees on disk)."""
        return sum(size for _, size in self.replays)

    def to_json(self) -> dict[str, Any]:
        """{"dry_run", "matches": [{"id", "created_at", "seed", "sides", "status"}],
        "replays": [{"sha256", "bytes"}], "replay_bytes", "held": [{"sha256", "name",
        "worker"}]}."""
        return {
            "dry_run": self.dry_run,
            "matches": [
                {
                    "id": m.id,
                    "created_at": m.created_at.isoformat(),
                    "seed": m.seed,
                    "sides": [e.name for e in m.entrants],
                    "status": str(m.status),
                }
                for m in self.matches
            ],
            "replays": [{"sha256": sha, "bytes": size} for sha, size in self.replays],
            "replay_bytes": self.replay_bytes,
            "held": [m.to_json() for m in self.held],
        }


class Pruning(Core):
    """``Store``'s pruning: quick matches deleted on request, and their replay files."""

    def prune_matches(
        self,
        *,
        before: datetime | None = None,
        keep: int | None = None,
        dry_run: bool = False,
    ) -> Pruned:
        """Delete the quick matches (of no tournament and no run, settled) created before
        ``before`` and beyond the newest ``keep``: past every bound given. Then delete
        every replay file that no row points at any more. ``dry_run``: delete nothing,
        say what would go.

        Each match is deleted in a transaction of its own; the replay files in
        transactions that find no row using them. ``before`` must be aware (a
        time zone); at least one bound is required (``ArenaError`` naming both).
        """
        if before is None and keep is None:
            raise ArenaError("a prune needs a bound: a date (before) or a count (keep), or both")
        if keep is not None and (isinstance(keep, bool) or not isinstance(keep, int) or keep < 0):
            raise ArenaError(f"keep {keep!r} is not a count of matches (0 or more)")
        if before is not None and before.tzinfo is None:
            raise ArenaError(f"before {before.isoformat()} has no time zone (give UTC's, +00:00)")
        doomed = self._db.read(lambda c: _doomed(c, before, keep), "listing matches to prune")
        if dry_run:
            gone = {m.id for m in doomed}
            used = self._db.read(lambda c: _used_replays(c, gone), "listing replays in use")
            files = tuple(
                (sha, size)
                for sha in self._replays.stored()
                if sha not in used and (size := self._replays.size(sha)) is not None
            )
            held: list[DroppedModule] = []
            if doomed:
                cutoff = stamp(doomed[-1].created_at.astimezone(UTC))
                held = self._db.read(
                    lambda c: unused_held(c, cutoff, gone), "listing held modules to prune"
                )
            return Pruned(tuple(doomed), files, dry_run=True, held=tuple(held))
        for m in doomed:
            self._db.write(partial(_delete, match_id=m.id), f"pruning match {m.id}")
        dropped = self._drop_unused_held(doomed[-1].created_at) if doomed else []
        return Pruned(tuple(doomed), self._prune_replays(), dry_run=False, held=tuple(dropped))

    def keep_quick_matches(self, keep: int) -> list[MatchRecord]:
        """Keep the newest ``keep`` quick matches (settled, not published: those a prune may
        delete) and delete the older ones, oldest first, each in a transaction of its own
        with its replay file, if no other row points at that file (a run's, a tournament's
        or another match's replay stays). The deleted matches, oldest first.

        What ``arena serve --keep-quick`` does after each quick match it records: unlike
        ``prune_matches`` it looks at no other replay file, so it costs little each time.
        Then (as ``prune_matches`` does too) the modules held from workers that nothing uses
        any more are deleted, rows and files (``_held.py``).
        """
        if isinstance(keep, bool) or not isinstance(keep, int) or keep < 1:
            raise ArenaError(f"keep {keep!r} is not a count of quick matches (1 or more)")
        doomed = self._db.read(lambda c: _doomed(c, None, keep), "listing quick matches to drop")
        for m in doomed:

            def tx(conn: sqlite3.Connection, m: MatchRecord = m) -> None:
                _delete(conn, m.id)
                if m.result is None:
                    return
                sha = m.result.replay_sha256
                used = conn.execute(
                    "SELECT 1 FROM matches WHERE replay_sha256 = ? LIMIT 1", (sha,)
                ).fetchone()
                if used is None:
                    self._replays.delete(sha)

            self._db.write(tx, f"dropping quick match {m.id}")
        if doomed:
            self._drop_unused_held(doomed[-1].created_at)
        return doomed

    def _drop_unused_held(self, before: datetime) -> list[DroppedModule]:
        """Delete the held modules nothing uses any more, last chosen before ``before`` (the
        newest dropped match's creation: what was chosen since may be about to be played)."""
        cutoff = stamp(before.astimezone(UTC))
        return self._db.write(
            lambda c: drop_unused_held(c, self._modules, cutoff),
            "deleting the held modules no match uses",
        )

    def _prune_replays(self) -> tuple[tuple[str, int], ...]:
        """Delete the replay files no row points at, a page at a time, each page in a
        write transaction (a writer's row and this check never interleave)."""
        freed: dict[str, int] = {}  # kept across a transaction run again
        stored = self._replays.stored()
        for start in range(0, len(stored), MAX_PAGE):
            page = stored[start : start + MAX_PAGE]

            def tx(conn: sqlite3.Connection, page: Sequence[str] = page) -> None:
                used = _used_replays(conn, set())
                for sha in page:
                    if sha in used or sha in freed:
                        continue
                    size = self._replays.size(sha)
                    if size is not None:
                        freed[sha] = size
                        self._replays.delete(sha)

            self._db.write(tx, "deleting the replay files no match uses")
        return tuple(freed.items())


def _doomed(
    conn: sqlite3.Connection, before: datetime | None, keep: int | None
) -> list[MatchRecord]:
    """The quick matches past every bound, oldest first."""
    where: list[str] = [_QUICK]
    args: list[object] = []
    if keep:
        # The newest ``keep`` quick matches stay: those from the keep-th newest's id up.
        row = conn.execute(
            f"SELECT m.id FROM matches AS m WHERE {_QUICK} ORDER BY m.id DESC LIMIT 1 OFFSET ?",
            (keep - 1,),
        ).fetchone()
        if row is None:  # no more than ``keep`` of them
            return []
        where.append("m.id < ?")
        args.append(row[0])
    if before is not None:
        where.append("m.created_at < ?")  # stamps are UTC in one format: text order is time
        args.append(stamp(before.astimezone(UTC)))
    rows = conn.execute(f"{MATCHES} WHERE {' AND '.join(where)} ORDER BY m.id", args)
    return [match_record(r) for r in rows]


def _used_replays(conn: sqlite3.Connection, leaving: set[int]) -> set[str]:
    """The replays rows point at, besides those of the matches ``leaving``."""
    rows = conn.execute("SELECT id, replay_sha256 FROM matches WHERE replay_sha256 IS NOT NULL")
    return {sha for match_id, sha in rows if match_id not in leaving}


def _delete(conn: sqlite3.Connection, match_id: int) -> None:
    """Delete one quick match and its sides (nothing if it is gone, or not a quick match)."""
    quick = f"SELECT m.id FROM matches AS m WHERE m.id = ? AND {_QUICK}"
    conn.execute(f"DELETE FROM match_sides WHERE match_id IN ({quick})", (match_id,))
    conn.execute(f"DELETE FROM matches WHERE id IN ({quick})", (match_id,))


def keep_replay(replays: Blobs, played: ResultRows) -> None:
    """In the transaction that points a row at ``played``'s replay file: make sure the file
    is there (a prune since it was stored may have deleted it: it is written again). Run
    again with its transaction, it finds the file there."""
    if replays.size(played.replay_sha256) is None:
        replays.put(played.result.packed_replay or played.result.replay)
