"""The site's proof runs: listed, shown, and pushed.

A push's module is admitted as an upload is (``web._controllers``: a push is
an upload with its run, so this room is built on that one); then every match
of the run is played again in a worker of the match lane from it and the
server's own copy of the opponent, and must give the same replay bytes; then
the controller and the run are recorded. What makes a valid run is
``arena.check_pushed_run``'s; the site does the I/O around it.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import arena
from web._bundle import Bundle, decode_bundle
from web._controllers import Controllers
from web._errors import ApiError
from web._lanes import Lane, WorkerLanes
from web._limits import SiteLimits, Slots
from web._matches import match_record_json

__all__ = ["Runs"]


class Runs(Controllers):
    """The proof runs: listed, shown, and pushed (checked by playing again, then recorded)."""

    def __init__(
        self, store: arena.Store, case: arena.Case, limits: SiteLimits, lanes: WorkerLanes
    ) -> None:
        super().__init__(store, case, limits, lanes)
        self.pushes = Slots(limits.pushes, "too many pushes are being checked")
        """Pushes being received or checked: taken before a bundle is read (memory)."""
        self._push_lock = threading.Lock()

    def runs_json(
        self, *, limit: int, before: int | None, everything: bool
    ) -> list[dict[str, Any]]:
        """Runs as ``arena runs --json`` lists them (``matches`` is a count), with
        ``published``: all of them with ``everything`` (the console), else the published."""
        runs = self.store.runs(limit=limit, before=before, published_only=not everything)
        stored_as = arena.stored_as_of(self.store, runs, published_only=not everything)
        return [_run_row(r, stored_as.get(r.id)) for r in runs]

    def run_json(self, run_id: int, *, everything: bool = True) -> dict[str, Any]:
        """A run as ``arena runs show --json`` gives it, each match's result as the API's.

        Each match adds its ``id`` and the controller's ``side``; its ``result``
        is the match JSON of ``GET /api/matches/{id}`` (the replay's URL, not
        where the file is; a run's matches are recorded finished, never queued).
        """
        try:
            published = self.store.run(run_id).published
            report = arena.run_report(self.store, run_id)
        except arena.NotInStoreError:
            raise ApiError(404, f"no run {run_id}") from None
        if not everything and not published:
            raise ApiError(404, f"no run {run_id}")  # as if there were none
        data = report.to_json()
        data["published"] = published
        if not everything:
            # Publicly, only the name the public listing gives the module (none for a hidden
            # one; a published run's, never a local run's or an upload's first name).
            public = arena.stored_as_of(self.store, [report.run], published_only=True)
            data["controller"].pop("stored_as", None)
            if report.run.id in public:
                data["controller"]["stored_as"] = public[report.run.id]
        for row, m in zip(data["matches"], report.matches, strict=True):
            row.update(id=m.record.id, side=m.side, result=match_record_json(m.record))
        return data

    async def push(self, data: bytes) -> tuple[dict[str, Any], bool]:
        """Check a pushed run by playing its matches again, then record it; (its JSON, new?).

        400 with the reason for a bundle that is malformed, for another case or
        version than the server's copy, whose module is not admissible (checked
        as an upload is, before a match is played), or whose matches do not
        play again to the same bytes (``arena.check_pushed_run``); 409 for a new
        module under a name another module holds. The same run pushed again
        records nothing new.
        """
        # In a thread: the walk and the decoding take a moment for the largest bundles,
        # and the check reads the case's opponents from disk.
        bundle, check = await asyncio.to_thread(self._read_push, data)
        found = await asyncio.to_thread(self._same_run, bundle)
        if found is not None:
            return found, False
        sha256 = bundle.module_sha256
        await asyncio.to_thread(self._name_free, bundle.controller, sha256)
        # Even a module stored already: the store does not say it was admitted.
        await self._admit(
            bundle.module, sha256, "refused: the controller's module is not admissible"
        )
        rematches: list[arena.Rematch] = await asyncio.gather(
            *(
                asyncio.wrap_future(
                    self.lanes.submit(
                        Lane.MATCH,
                        arena.recheck_match,
                        recheck,
                        doing="playing a pushed match again",
                    )
                )
                for recheck in check.rechecks
            )
        )
        matches = check.results(rematches)
        return await asyncio.to_thread(self._record_push, bundle, matches)

    def _read_push(self, data: bytes) -> tuple[Bundle, arena.PushCheck]:
        """The bundle in ``data`` and its shape checked against the case (400 if not)."""
        bundle = decode_bundle(data)
        return bundle, arena.check_pushed_run(self.case, bundle)

    def _same_run(self, bundle: Bundle) -> dict[str, Any] | None:
        """The stored run this bundle is already, if any (pushing twice changes nothing but
        this: it is published, pushed as it is, if it was not yet)."""
        run = arena.find_pushed_run(self.store, bundle)
        if run is not None and not run.published:
            run = self.store.publish_run(run.id)
        return None if run is None else self._pushed_row(run)

    def _record_push(
        self, bundle: Bundle, matches: list[arena.RunMatch]
    ) -> tuple[dict[str, Any], bool]:
        # Two pushes of one run at once: the second finds the first. Then the names'
        # lock (only here are both taken, always in this order).
        with self._push_lock, self._names_lock:
            found = self._same_run(bundle)
            if found is not None:
                return found, False
            self._name_free(bundle.controller, bundle.module_sha256)
            run = arena.record_pushed_run(self.store, bundle, matches)
        return self._pushed_row(run), True

    def _pushed_row(self, run: arena.RunRecord) -> dict[str, Any]:
        """A pushed run as its answer gives it: its module's first name too, where the
        pusher named it otherwise (published, so its controller is listed publicly)."""
        stored_as = arena.stored_as_of(self.store, [run], published_only=True)
        return _run_row(run, stored_as.get(run.id))


def _run_row(run: arena.RunRecord, stored_as: str | None = None) -> dict[str, Any]:
    """A run as ``arena runs --json`` lists it (``stored_as``: its module's first name where
    it is not the run's), and whether it is published."""
    return {**arena.run_json(run, stored_as), "published": run.published}
