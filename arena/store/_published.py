"""What is published: the public site shows a run, a tournament or a quick match once it is.

A run is published as it is pushed (``record_run(published=True)``) or by its
operator (``publish_run``: ``arena demo`` publishes its own); a tournament and
a quick match when an operator publishes them. A match of a published run or
tournament is published with it. Publishing is for good (nothing unpublishes:
a reader may have linked it) and idempotent. A quick match or a tournament that
plays a worker's local run held for review (``_held.py``) is not published.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from arena._errors import ArenaError
from arena.store._errors import NotInStoreError
from arena.store._held import refuse_held
from arena.store._match_rows import match_or_none
from arena.store._records import MatchRecord, MatchStatus, RunRecord, TournamentRecord
from arena.store._runs import Runs
from arena.store._store import utc_now
from arena.store._tournaments import Tournaments

__all__ = ["Publishing"]


class Publishing(Runs, Tournaments):
    """``Store``'s publishing: a run, a tournament, a quick match made public."""

    def publish_run(self, run_id: int) -> RunRecord:
        """Publish a run (and so its matches); its record. ``NotInStoreError`` if none."""
        self._publish("run", "published_runs", "run_id", "runs", run_id)
        return self.run(run_id)

    def publish_tournament(self, tournament_id: int) -> TournamentRecord:
        """Publish a tournament (and so its matches, those to come too); its record.

        ``HeldModuleError`` if an entrant is a worker's local run held for review."""

        def entrants(conn: sqlite3.Connection) -> None:
            shas = conn.execute(
                "SELECT sha256 FROM tournament_field WHERE tournament_id = ? ORDER BY position",
                (tournament_id,),
            )
            refuse_held(conn, (row[0] for row in shas), f"tournament {tournament_id}")

        self._publish(
            "tournament",
            "published_tournaments",
            "tournament_id",
            "tournaments",
            tournament_id,
            entrants,
        )
        return self.tournament(tournament_id)

    def publish_match(self, match_id: int) -> MatchRecord:
        """Publish a quick match that is finished; its record.

        ``ArenaError`` for a match of a run or a tournament (published with
        it) or one not finished (nothing to watch yet); ``HeldModuleError`` for
        one that plays a worker's local run held for review; ``NotInStoreError``
        if there is no such match.
        """

        def tx(conn: sqlite3.Connection) -> MatchRecord:
            record = match_or_none(conn, match_id)
            if record is None:
                raise NotInStoreError(f"no match {match_id} in the store {self.path}")
            owner = (
                f"tournament {record.tournament_id}"
                if record.tournament_id is not None
                else f"run {record.run_id}"
                if record.run_id is not None
                else None
            )
            if owner is not None:
                raise ArenaError(f"match {match_id} is a match of {owner}: it is published with it")
            if record.status is not MatchStatus.FINISHED:
                raise ArenaError(
                    f"match {match_id} is {record.status}: only a finished match is published"
                )
            refuse_held(conn, (e.sha256 for e in record.entrants), f"match {match_id}")
            conn.execute(
                "INSERT INTO published_matches (match_id, published_at) VALUES (?, ?)"
                " ON CONFLICT DO NOTHING",
                (match_id, utc_now()),
            )
            found = match_or_none(conn, match_id)
            assert found is not None
            return found

        return self._db.write(tx, f"publishing match {match_id}")

    def _publish(
        self,
        what: str,
        table: str,
        column: str,
        records: str,
        ident: int,
        check: Callable[[sqlite3.Connection], None] | None = None,
    ) -> None:
        def tx(conn: sqlite3.Connection) -> None:
            if conn.execute(f"SELECT 1 FROM {records} WHERE id = ?", (ident,)).fetchone() is None:
                raise NotInStoreError(f"no {what} {ident} in the store {self.path}")
            if check is not None:
                check(conn)
            conn.execute(
                f"INSERT INTO {table} ({column}, published_at) VALUES (?, ?)"
                " ON CONFLICT DO NOTHING",
                (ident, utc_now()),
            )

        self._db.write(tx, f"publishing {what} {ident}")
