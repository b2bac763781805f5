"""The runs table: a finished proof run, recorded whole with its matches, and immutable.

Proving a module again records a new run; ``find_run`` finds the latest.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Sequence
from typing import Final

from arena.store._blobs import check_sha256
from arena.store._controllers import insert_controller
from arena.store._errors import NotInStoreError
from arena.store._held import keep_module, release_held
from arena.store._match_rows import matches_of
from arena.store._matches import insert_match, store_replays
from arena.store._prune import keep_replay
from arena.store._records import MatchRecord, Origin, Role, RunMatch, RunOutcome, RunRecord
from arena.store._store import (
    MAX_BUILD_LOG_CHARS,
    Core,
    check_name,
    cut,
    page_bound,
    parse_stamp,
    utc_now,
)

__all__ = ["Runs"]

_RUNS: Final = """
    SELECT r.id, r.case_slug, r.case_version, r.manifest_sha256, r.controller,
           r.controller_sha256, r.outcome, r.reason, r.created_at,
           (SELECT count(*) FROM matches WHERE run_id = r.id) AS match_count,
           r.id IN (SELECT run_id FROM published_runs) AS published
    FROM runs AS r
"""


class Runs(Core):
    """``Store``'s proof runs: record one whole, find one, list them, read a build log."""

    def record_run(
        self,
        *,
        case_slug: str,
        case_version: int,
        manifest_sha256: str,
        controller: str,
        controller_sha256: str | None,
        outcome: RunOutcome,
        reason: str | None = None,
        build_log: str = "",
        matches: Sequence[RunMatch] = (),
        module: bytes | None = None,
        module_origin: Origin = Origin.UPLOAD,
        published: bool = False,
        raw_replays: bool = False,
    ) -> RunRecord:
        """Record a finished proof run with all its matches, at once: a run is never partial.

        Every replay file is written first, then the run and its matches in
        one transaction. A run that could not compete has no matches (and may
        have no module); one that competed has the controller on one side of
        each match. The build log keeps its last ``MAX_BUILD_LOG_CHARS``.
        Runs are immutable: proving again records a new run.

        ``module``, the controller's bytes, stores the controller (as
        ``add_controller`` with ``module_origin`` would) in the run's own
        transaction, its file first: a run pushed to a server and cut off
        leaves neither. Without it, the controller must be stored already.
        ``published``: the run is published in the same transaction (a push).
        ``raw_replays`` keeps the replays' files as their own bytes, not compressed
        (a local proof run, whose files the command line names: ``Blobs.put_all``).
        """
        check_name(controller, "controller name")
        check_name(case_slug, "case slug")
        check_sha256(manifest_sha256, "manifest")
        outcome = RunOutcome(outcome)
        if controller_sha256 is not None:
            check_sha256(controller_sha256, "controller")
        if outcome is RunOutcome.COULD_NOT_COMPETE:
            if matches:
                raise ValueError("a run that could not compete has no matches")
        elif controller_sha256 is None or not matches:
            raise ValueError("a run that competed has a module and its matches")
        for m in matches:
            if controller_sha256 not in [s.sha256 for s in m.result.sides]:
                raise ValueError(
                    f"the run's controller did not play its match against {m.opponent!r}"
                )
            check_name(m.opponent, "opponent name")
        if module is not None:
            if hashlib.sha256(module).hexdigest() != controller_sha256:
                raise ValueError("the module given is not the run's controller (another sha256)")
            self._modules.put(module)  # the file before the row that points at it
        played = store_replays(self._replays, [m.result for m in matches], raw=raw_replays)
        log = _cut_head(build_log, MAX_BUILD_LOG_CHARS)
        now = utc_now()

        def tx(conn: sqlite3.Connection) -> RunRecord:
            if module is not None:
                assert controller_sha256 is not None
                keep_module(self._modules, controller_sha256, module)
                insert_controller(
                    conn,
                    controller_sha256,
                    controller,
                    Origin(module_origin),
                    False,
                    len(module),
                    now,
                )
            if controller_sha256 is not None:
                release_held(conn, controller_sha256)  # a run's controller is the operator's
            cur = conn.execute(
                "INSERT INTO runs (case_slug, case_version, manifest_sha256, controller,"
                " controller_sha256, outcome, reason, build_log, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    case_slug,
                    int(case_version),
                    manifest_sha256,
                    controller,
                    controller_sha256,
                    str(outcome),
                    None if reason is None else cut(reason),
                    log,
                    now,
                ),
            )
            run_id = cur.lastrowid
            assert run_id is not None
            for m, p in zip(matches, played, strict=True):
                keep_replay(self._replays, p)
                insert_match(
                    conn,
                    self.path,
                    p.entrants,
                    m.result.seed,
                    played=p,
                    run=(run_id, m.opponent, Role(m.role)),
                )
            if published:
                conn.execute(
                    "INSERT INTO published_runs (run_id, published_at) VALUES (?, ?)",
                    (run_id, now),
                )
            record = _or_none(conn, run_id)
            assert record is not None, f"run {run_id} was just written"
            return record

        return self._db.write(tx, "recording a run")

    def find_run(
        self,
        case_slug: str,
        case_version: int,
        controller_sha256: str,
        manifest_sha256: str | None = None,
    ) -> RunRecord | None:
        """The latest run of this module on this case version (under this manifest, when
        ``manifest_sha256`` is given: a copy of the version edited is another case), if any."""
        where = "r.case_slug = ? AND r.case_version = ? AND r.controller_sha256 = ?"
        args: tuple[object, ...] = (case_slug, case_version, controller_sha256)
        if manifest_sha256 is not None:
            where += " AND r.manifest_sha256 = ?"
            args += (manifest_sha256,)
        row = self._db.read(
            lambda c: c.execute(
                f"{_RUNS} WHERE {where} ORDER BY r.id DESC LIMIT 1", args
            ).fetchone(),
            "looking up a run",
        )
        return None if row is None else _record(row)

    def run(self, run_id: int) -> RunRecord:
        """One run by id."""
        return self._by_id("run", run_id, _or_none)

    def runs(
        self,
        *,
        limit: int = 50,
        before: int | None = None,
        case_slug: str | None = None,
        controller: str | None = None,
        published_only: bool = False,
    ) -> list[RunRecord]:
        """The most recent runs first (paged like ``matches``), of one case if given, of one
        controller (its module's sha256) if given, only the published ones if asked for."""
        where = "r.id < ?"
        args: list[object] = [page_bound(limit, before)]
        if published_only:
            where += " AND r.id IN (SELECT run_id FROM published_runs)"
        if case_slug is not None:
            where += " AND r.case_slug = ?"
            args.append(case_slug)
        if controller is not None:
            where += " AND r.controller_sha256 = ?"
            args.append(controller)
        rows = self._db.read(
            lambda c: c.execute(
                f"{_RUNS} WHERE {where} ORDER BY r.id DESC LIMIT ?", (*args, limit)
            ).fetchall(),
            "listing runs",
        )
        return [_record(r) for r in rows]

    def run_matches(self, run_id: int) -> list[MatchRecord]:
        """A run's matches, in the order they were given to ``record_run``."""
        return matches_of(self._db, "run", run_id)

    def build_log(self, run_id: int) -> str:
        """A run's build log (its end, if it was longer than ``MAX_BUILD_LOG_CHARS``)."""
        row = self._db.read(
            lambda c: c.execute("SELECT build_log FROM runs WHERE id = ?", (run_id,)).fetchone(),
            "reading a build log",
        )
        if row is None:
            raise NotInStoreError(f"no run {run_id} in the store {self.path}")
        return str(row[0])


def _record(row: sqlite3.Row) -> RunRecord:
    return RunRecord(
        id=row["id"],
        case_slug=row["case_slug"],
        case_version=row["case_version"],
        manifest_sha256=row["manifest_sha256"],
        controller=row["controller"],
        controller_sha256=row["controller_sha256"],
        outcome=RunOutcome(row["outcome"]),
        reason=row["reason"],
        matches=row["match_count"],
        created_at=parse_stamp(row["created_at"]),
        published=bool(row["published"]),
    )


def _or_none(conn: sqlite3.Connection, run_id: int) -> RunRecord | None:
    row = conn.execute(f"{_RUNS} WHERE r.id = ?", (run_id,)).fetchone()
    return None if row is None else _record(row)


def _cut_head(text: str, limit: int) -> str:
    """``text``, or a note of how many characters were cut and its last ``limit``."""
    if len(text) <= limit:
        return text
    return f"[... {len(text) - limit:,} characters cut]\n{text[-limit:]}"
