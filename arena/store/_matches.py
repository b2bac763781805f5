"""The matches table and its sides: record played, failed and queued matches; read them.

A match stands alone (a quick match) or belongs to one tournament (under its
pairing's key, recorded once) or one run (``_runs.py`` records those).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from arena._errors import ArenaError
from arena.store._blobs import Blobs
from arena.store._controllers import check_controllers
from arena.store._errors import NotInStoreError
from arena.store._match_rows import (
    MATCHES,
    PUBLISHED_MATCH,
    ResultRows,
    insert_match_rows,
    match_or_none,
    match_record,
    one_match,
    result_columns,
    result_record,
    side_columns,
)
from arena.store._prune import keep_replay
from arena.store._records import Entrant, MatchRecord, MatchStatus, Role
from arena.store._store import (
    MAX_PAGE,
    MAX_TEXT_CHARS,
    Core,
    check_entrant,
    check_limit,
    check_seed,
    cut,
    page_bound,
    stamp,
    utc_now,
)
from arena.store._tournaments import check_takes_match

if TYPE_CHECKING:
    from arena.match import MatchResult

__all__ = ["Matches", "insert_match", "store_replays"]


class Matches(Core):
    """``Store``'s matches: record them (played, failed, queued, then finished), read them."""

    def record_match(
        self,
        result: MatchResult,
        *,
        tournament_id: int | None = None,
        pairing_key: str | None = None,
        raw_replay: bool = False,
    ) -> MatchRecord:
        """Record a played match: its replay file first, then its row (one transaction).

        A tournament's match carries the pairing's key, unique in the
        tournament: recording the same key again changes nothing and returns
        the match recorded first (so a resumed coordinator cannot count a
        match twice). Both sides' controllers must be stored already.
        ``raw_replay`` keeps the replay's file as the replay's own bytes, not
        compressed: a file the command line names by its path (``Blobs.put_all``).
        """
        return self.record_matches(
            [result],
            tournament_id=tournament_id,
            pairing_keys=[pairing_key],
            raw_replays=raw_replay,
        )[0]

    def record_matches(
        self,
        results: Sequence[MatchResult],
        *,
        tournament_id: int | None = None,
        pairing_keys: Sequence[str | None] | None = None,
        raw_replays: bool = False,
    ) -> list[MatchRecord]:
        """``record_match`` for several results (a worker's batch), in order: every replay file
        first, written together (all fsynced before any row points at one, for one journal
        commit rather than one each), then each row in a transaction of its own.

        ``pairing_keys`` gives each result's key in the tournament. A failure
        leaves the rows recorded before it, and replay files no row points at
        (a later record of the same replay finds its file there).
        """
        keys = [None] * len(results) if pairing_keys is None else list(pairing_keys)
        if len(keys) != len(results):
            raise ValueError(f"{len(results)} results but {len(keys)} pairing keys")
        for key in keys:
            _check_pairing(tournament_id, key)

        def record(played: ResultRows, key: str | None) -> MatchRecord:
            def tx(conn: sqlite3.Connection) -> MatchRecord:
                keep_replay(self._replays, played)
                return insert_match(
                    conn,
                    self.path,
                    played.entrants,
                    played.result.seed,
                    played=played,
                    tournament_id=tournament_id,
                    pairing_key=key,
                )

            return self._db.write(tx, "recording a match")

        played_all = store_replays(self._replays, results, raw=raw_replays)
        return [record(played, key) for played, key in zip(played_all, keys, strict=True)]

    def record_match_error(
        self,
        a: Entrant,
        b: Entrant,
        *,
        seed: int,
        error: str,
        tournament_id: int | None = None,
        pairing_key: str | None = None,
    ) -> MatchRecord:
        """Record a match that could not be played (e.g. its worker died twice), with why.

        Same rules as ``record_match`` (a tournament's pairing key is recorded once).
        """
        _check_pairing(tournament_id, pairing_key)
        entrants = (check_entrant(a), check_entrant(b))
        return self._db.write(
            lambda conn: insert_match(
                conn,
                self.path,
                entrants,
                seed,
                error=cut(error),
                tournament_id=tournament_id,
                pairing_key=pairing_key,
            ),
            "recording a match",
        )

    def queue_match(self, a: Entrant, b: Entrant, *, seed: int) -> MatchRecord:
        """Record a match to be played (status pending): its id exists before its result."""
        entrants = (check_entrant(a), check_entrant(b))
        return self._db.write(
            lambda conn: insert_match(conn, self.path, entrants, seed), "queueing a match"
        )

    def finish_match(self, match_id: int, result: MatchResult) -> MatchRecord:
        """Give a pending match its result (replay file first, then the row)."""
        (played,) = store_replays(self._replays, [result])

        def tx(conn: sqlite3.Connection) -> MatchRecord:
            pending = self._pending(conn, match_id)
            if [e.sha256 for e in pending.entrants] != [e.sha256 for e in played.entrants]:
                raise ValueError(f"match {match_id}: the result's sides are not the queued ones")
            if pending.seed != result.seed:
                raise ValueError(f"match {match_id}: the result's seed is not the queued one")
            keep_replay(self._replays, played)
            # The sides first: once the match is finished, a trigger freezes them.
            conn.executemany(
                "UPDATE match_sides SET name = ?, sha256 = ?, banked = ?, fuel_total = ?,"
                " fuel_peak = ?, forfeit_tick = ?, forfeit_kind = ?, forfeit_detail = ?,"
                " extra = ? WHERE match_id = ? AND side = ?",
                [
                    (*cols, match_id, side)
                    for side, cols in enumerate(side_columns(played, played.entrants))
                ],
            )
            conn.execute(
                "UPDATE matches SET status = 'finished', winner = ?, reason = ?, ticks = ?,"
                " replay_sha256 = ?, finished_at = ? WHERE id = ?",
                (*result_columns(played), utc_now(), match_id),
            )
            return one_match(conn, match_id)

        return self._db.write(tx, f"recording match {match_id}")

    def fail_match(self, match_id: int, error: str) -> MatchRecord:
        """A pending match that could not be played: status error, with why."""

        def tx(conn: sqlite3.Connection) -> MatchRecord:
            self._pending(conn, match_id)
            conn.execute(
                "UPDATE matches SET status = 'error', error = ?, finished_at = ? WHERE id = ?",
                (cut(error), utc_now(), match_id),
            )
            return one_match(conn, match_id)

        return self._db.write(tx, f"recording match {match_id}")

    def match(self, match_id: int, *, wait: bool = True) -> MatchRecord:
        """One match by id. ``wait=False``: ``StoreBusyError`` at once rather than wait on a
        lock (for an event loop, which then asks again from a thread)."""
        return self._by_id("match", match_id, match_or_none, wait=wait)

    def matches(
        self,
        *,
        limit: int = 50,
        before: int | None = None,
        controller: str | None = None,
        published_only: bool = False,
        quick_only: bool = False,
    ) -> list[MatchRecord]:
        """The most recent matches first, ``limit`` at most, with ids below ``before``.

        Page on with ``before=`` the last id of the previous page. With
        ``controller`` (a sha256), only the matches it played on either side;
        ``published_only``, only those published (``MatchRecord.published``);
        ``quick_only``, only quick matches (of no tournament and no run).
        """
        below = page_bound(limit, before)
        where = ["m.id < ?"]
        args: list[object] = [below]
        if published_only:
            where.append(PUBLISHED_MATCH)
        if quick_only:
            where.append("m.tournament_id IS NULL AND m.run_id IS NULL")
        if controller is not None:
            where.append(
                "m.id IN (SELECT match_id FROM match_sides WHERE sha256 = ? AND match_id < ?)"
            )
            args += [controller, below]
        sql = f"{MATCHES} WHERE {' AND '.join(where)} ORDER BY m.id DESC LIMIT ?"
        rows = self._db.read(lambda c: c.execute(sql, (*args, limit)).fetchall(), "listing matches")
        return [match_record(r) for r in rows]

    def pending_matches(self, *, limit: int = MAX_PAGE) -> list[MatchRecord]:
        """Queued matches still without a result (status pending), oldest first.

        A server that stopped (or was killed) with matches queued finds them
        here when it starts again, and plays them.
        """
        check_limit(limit)
        rows = self._db.read(
            lambda c: c.execute(
                f"{MATCHES} WHERE m.status = 'pending' ORDER BY m.id LIMIT ?", (limit,)
            ).fetchall(),
            "listing pending matches",
        )
        return [match_record(r) for r in rows]

    def _pending(self, conn: sqlite3.Connection, match_id: int) -> MatchRecord:
        record = match_or_none(conn, match_id)
        if record is None:
            raise NotInStoreError(f"no match {match_id} in the store {self.path}")
        if record.status is not MatchStatus.PENDING:
            raise ArenaError(f"match {match_id} is {record.status} already; it cannot change")
        return record


def store_replays(
    replays: Blobs, results: Sequence[MatchResult], *, raw: bool = False
) -> list[ResultRows]:
    """Write the results' replay files, together (before any row points at one); ``raw``:
    as the replays' own bytes, not compressed (``Blobs.put_all``)."""
    entrants = [
        (check_entrant(Entrant(a.name, a.sha256)), check_entrant(Entrant(b.name, b.sha256)))
        for a, b in (result.sides for result in results)
    ]
    # Hashed once, here: MatchResult.replay_sha256 hashes on every access. A replay packed
    # in its worker is written as it came (checked first), not compressed again.
    shas = replays.put_all([result.packed_replay or result.replay for result in results], raw=raw)
    return [
        ResultRows.of(result, sha, pair)
        for result, sha, pair in zip(results, shas, entrants, strict=True)
    ]


def insert_match(
    conn: sqlite3.Connection,
    store: Path,
    entrants: tuple[Entrant, Entrant],
    seed: int,
    *,
    played: ResultRows | None = None,
    error: str | None = None,
    tournament_id: int | None = None,
    pairing_key: str | None = None,
    run: tuple[int, str, Role] | None = None,
) -> MatchRecord:
    """A match's rows: finished with ``played``, in error with ``error``, else pending.

    A tournament's pairing key already recorded returns the match recorded
    first, unchanged. ``store`` (the database file) names the store in errors.
    """
    if tournament_id is not None:
        existing = conn.execute(
            "SELECT id FROM matches WHERE tournament_id = ? AND pairing_key = ?",
            (tournament_id, pairing_key),
        ).fetchone()
        if existing is not None:
            return one_match(conn, existing[0])
        check_takes_match(conn, tournament_id, entrants, store)
    status = (
        MatchStatus.FINISHED
        if played is not None
        else MatchStatus.ERROR
        if error is not None
        else MatchStatus.PENDING
    )
    now = datetime.now(UTC)
    finished_at = None if status is MatchStatus.PENDING else now
    run_id, opponent, role = run if run is not None else (None, None, None)
    try:
        match_id = insert_match_rows(
            conn,
            (
                str(status),
                check_seed(seed),
                *result_columns(played),
                error,
                tournament_id,
                pairing_key,
                run_id,
                opponent,
                None if role is None else str(role),
                stamp(now),
                None if finished_at is None else stamp(finished_at),
            ),
            side_columns(played, entrants),
        )
    except sqlite3.IntegrityError:
        # The foreign keys on controllers: say which one is missing.
        check_controllers(conn, entrants, store)
        raise
    published = tournament_id is not None and bool(
        conn.execute(
            "SELECT 1 FROM published_tournaments WHERE tournament_id = ?", (tournament_id,)
        ).fetchone()
    )
    # The record from what was written (reading it back would cost a query).
    return MatchRecord(
        id=match_id,
        status=status,
        seed=seed,
        entrants=entrants,
        result=None if played is None else result_record(played, entrants),
        error=error,
        created_at=now,
        finished_at=finished_at,
        tournament_id=tournament_id,
        pairing_key=pairing_key,
        run_id=run_id,
        opponent=opponent,
        role=role,
        published=published,
    )


def _check_pairing(tournament_id: int | None, pairing_key: str | None) -> None:
    if (tournament_id is None) != (pairing_key is None):
        raise ValueError("a tournament's match needs both tournament_id and pairing_key")
    if pairing_key is not None and not (
        isinstance(pairing_key, str) and 1 <= len(pairing_key) <= MAX_TEXT_CHARS
    ):
        raise ArenaError(f"a pairing key must be 1..{MAX_TEXT_CHARS} characters")
