"""The site's matches: the quick-match queue, and every match as the API shows it.

Quick matches are accepted while fewer than ``SiteLimits.queue`` are waiting
or running, else ``ApiError`` 429 with a Retry-After. An accepted match is a
pending row first (its id), then runs in a worker of the match lane
(``arena.play``); its result (or why it could not be played) is recorded
exactly once (``Store.finish_match`` refuses a second). A server stopped with
matches pending plays them when it starts again (``_resume``).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import OrderedDict
from functools import partial
from typing import Any, Final

import arena
from web._controllers import named_controller
from web._core import SiteCore, json_bytes, when
from web._errors import ApiError
from web._lanes import Lane, WorkerLanes
from web._limits import SiteLimits, Slots

__all__ = ["INLINE_REPLAY_BYTES", "Matches", "match_key", "match_record_json", "replay_url"]

_log = logging.getLogger("web")


INLINE_REPLAY_BYTES: Final = 1024 * 1024
"""A replay file up to this size, once verified, is read in the event loop (no thread)."""
KEPT_BODIES: Final = 1024
"""Settled matches whose JSON is kept (``Matches.match_body``), at most; then it starts over."""


def match_key(match_id: int) -> tuple[str, int]:
    """The match's key in the site's ``Changes`` (its event stream waits on it)."""
    return ("match", match_id)


def replay_url(match_id: int) -> str:
    """Where the API serves a finished match's replay."""
    return f"/api/matches/{match_id}/replay"


def match_record_json(
    record: arena.MatchRecord, names: dict[str, str] | None = None
) -> dict[str, Any]:
    """A stored match: ``status``, then, once finished, the result with the design's keys;
    ``published``: whether the public site shows it. With ``names`` (by sha256, the names
    the modules were first stored under: ``Store.stored_names``), a side that played under
    another name than its module's first adds ``stored_as``, that first name (only then: a
    side is otherwise the match JSON's as ``arena match --json`` prints it)."""
    data = record.to_json(replay_url(record.id) if record.result is not None else "")
    if names is not None:
        for side in data["sides"]:
            stored = names.get(side["sha256"])
            if stored is not None and stored != side["name"]:
                side["stored_as"] = stored
    data["status"] = str(record.status)
    data["published"] = record.published
    data["created_at"] = when(record.created_at)
    data["finished_at"] = when(record.finished_at)
    data["tournament_id"] = record.tournament_id
    data["run_id"] = record.run_id
    return data


class Matches(SiteCore):
    """The quick-match queue, and the matches: listed, shown with their place in the queue,
    their replays served."""

    def __init__(
        self, store: arena.Store, case: arena.Case, limits: SiteLimits, lanes: WorkerLanes
    ) -> None:
        super().__init__(store, case, limits, lanes)
        self._accepted = Slots(limits.queue, "the match queue is full")
        self._queue_lock = threading.Lock()
        self._queued: OrderedDict[int, None] = OrderedDict()
        self._running: set[int] = set()
        self._started_at: dict[int, float] = {}
        self._seconds_per_match = 2.0  # a running average, for Retry-After
        self._bodies_lock = threading.Lock()
        # The store's generation and the settled matches' bodies read in it, swapped as one.
        self._bodies: tuple[tuple[int, int] | None, dict[tuple[int, bool], bytes]] = (None, {})

    def _resume(self) -> None:
        """Queue again the quick matches a previous server left pending."""
        for record in self.store.pending_matches():
            if record.tournament_id is not None or record.run_id is not None:
                continue
            self._accepted.take(1, force=True)
            try:
                blobs = [self.store.read_module_bytes(e.sha256) for e in record.entrants]
            except arena.ArenaError as exc:
                self._record(record.id, exc)
                continue
            self._enqueue(record, blobs[0], blobs[1])
            _log.info("match %d was pending: queued again", record.id)

    def drop_old_quick_matches(self) -> None:
        """Keep ``SiteLimits.keep_quick`` quick matches for review; delete the older ones (and
        their replays no other row uses). A failure is logged: the next match tries again."""
        try:
            dropped = self.store.keep_quick_matches(self.limits.keep_quick)
        except arena.StoreError as exc:
            _log.error("old quick matches not deleted: %s", exc)
            return
        if dropped:
            _log.info(
                "deleted %d old quick match(es), %d..%d: past --keep-quick %d",
                len(dropped),
                dropped[0].id,
                dropped[-1].id,
                self.limits.keep_quick,
            )

    def retry_after(self) -> int:
        """Seconds until the queue has likely moved on by one (Retry-After)."""
        waiting = max(1, self._accepted.used)
        return max(1, math.ceil(self._seconds_per_match * waiting / self.limits.workers))

    def queue_match(self, a: str, b: str, seed: int) -> dict[str, Any]:
        """Accept a quick match of controllers ``a`` and ``b`` (names or sha256s); its JSON.

        Any controller may play, the hidden ones too (writes need the token).
        429 when the queue is full; nothing is recorded then.
        """
        sides = [named_controller(self.store, ref, which) for ref, which in ((a, "a"), (b, "b"))]
        blobs = [self.store.read_module_bytes(c.sha256) for c in sides]
        self._accepted.take(self.retry_after())
        try:
            record = self.store.queue_match(
                arena.Entrant(sides[0].name, sides[0].sha256),
                arena.Entrant(sides[1].name, sides[1].sha256),
                seed=seed,
            )
        except BaseException:
            self._accepted.give()
            raise
        self._enqueue(record, blobs[0], blobs[1])
        return self.match_json(record.id)

    def _enqueue(self, record: arena.MatchRecord, blob_a: bytes, blob_b: bytes) -> None:
        """Hand a pending match to the worker lanes (its queue slot is taken already)."""
        (ea, eb) = record.entrants
        job = self.case.match_job(
            arena.Contestant(ea.name, blob_a),
            arena.Contestant(eb.name, blob_b),
            seed=record.seed,
        )
        with self._queue_lock:
            self._queued[record.id] = None
        self.lanes.submit(
            Lane.MATCH,
            arena.play,
            job,
            doing="playing this match",
            started=partial(self._started, record.id),
            then=partial(self._record, record.id),
        )
        self.changes.bump(match_key(record.id))

    def _started(self, match_id: int) -> None:
        with self._queue_lock:
            self._queued.pop(match_id, None)
            self._running.add(match_id)
            self._started_at[match_id] = time.monotonic()
            moved = list(self._queued)
        self.changes.bump(match_key(match_id), *map(match_key, moved))

    def _record(self, match_id: int, outcome: Any) -> None:
        """Record a quick match's outcome, exactly once (in a thread of the worker lanes)."""
        try:
            if isinstance(outcome, arena.WorkersUnavailableError):
                # No worker can start: the match is not to blame. It stays pending and
                # is played when the server starts again (once workers can).
                _log.error("match %d: not played, it stays pending: %s", match_id, outcome)
            elif isinstance(outcome, Exception):
                self.store.fail_match(match_id, f"the arena could not play this match: {outcome}")
            else:
                self.store.finish_match(match_id, outcome)
        except arena.StoreError as exc:
            # A store full, read-only or busy: the row stays pending, and the
            # next start of the server plays it again. No traceback: not a bug.
            _log.error("match %d: not recorded, it stays pending: %s", match_id, exc)
        except Exception:
            _log.exception("match %d: its outcome could not be recorded", match_id)
        else:
            self.drop_old_quick_matches()
        finally:
            with self._queue_lock:
                self._queued.pop(match_id, None)
                self._running.discard(match_id)
                began = self._started_at.pop(match_id, None)
                if began is not None:
                    took = time.monotonic() - began
                    self._seconds_per_match = 0.8 * self._seconds_per_match + 0.2 * took
            self._accepted.give()
            self.changes.bump(match_key(match_id))

    def match_json(
        self, match_id: int, *, everything: bool = True, wait: bool = True
    ) -> dict[str, Any]:
        """A match: ``status``, then, once finished, the result with the design's keys.
        Without ``everything`` (the public side), 404 unless it is published. ``wait=False``:
        ``arena.StoreBusyError`` rather than wait on the store's lock."""
        record = self._match(match_id, everything=everything, wait=wait)
        return self._match_json(record, self._names([record], everything, wait))

    def match_body(self, match_id: int, *, everything: bool = True, wait: bool = True) -> bytes:
        """``match_json`` as the bytes of its answer. A settled match's (finished, or in error)
        is kept while the store's generation stays the same (``Store.generation``: nothing
        written since, by this process or another: no publish, no deletion, no name that
        changed), so asking again reads nothing; a pending one is read every time (its
        place in the queue changes without a write). ``wait`` as ``match_json`` takes it."""
        try:
            generation: tuple[int, int] | None = self.store.generation()
        except arena.StoreBusyError:
            if not wait:
                raise
            generation = None  # read it afresh, and keep nothing
        key = (match_id, everything)
        kept_in, kept = self._bodies
        if generation is not None and generation == kept_in:
            body = kept.get(key)
            if body is not None:
                return body
        record = self._match(match_id, everything=everything, wait=wait)
        body = json_bytes(self._match_json(record, self._names([record], everything, wait)))
        if generation is not None and record.status is not arena.MatchStatus.PENDING:
            # Read after the generation: a write in between makes the next ask read again.
            with self._bodies_lock:
                kept_in, kept = self._bodies
                if generation != kept_in or len(kept) >= KEPT_BODIES:
                    kept = {}
                    self._bodies = (generation, kept)
                kept[key] = body
        return body

    def _names(
        self, records: list[arena.MatchRecord], everything: bool, wait: bool = True
    ) -> dict[str, str]:
        """The first names of the modules ``records`` play (to the public side, only those
        the public listing of controllers names)."""
        return self.store.stored_names(
            (e.sha256 for r in records for e in r.entrants),
            published_only=not everything,
            wait=wait,
        )

    def _match(self, match_id: int, *, everything: bool, wait: bool = True) -> arena.MatchRecord:
        try:
            record = self.store.match(match_id, wait=wait)
        except arena.NotInStoreError:
            raise ApiError(404, f"no match {match_id}") from None
        if not everything and not record.published:
            # As if there were none: the public side does not learn what is not published.
            raise ApiError(404, f"no match {match_id}")
        return record

    def publish_match(self, match_id: int) -> dict[str, Any]:
        """Publish a finished quick match (the console's button); its JSON. 400 for a match
        of a run or a tournament (published with it: the message says how, when it is not)
        or one not finished; 404 for none."""
        record = self._match(match_id, everything=True)
        refused = _published_with(record)
        if refused is not None:
            raise ApiError(400, refused)
        self.store.publish_match(match_id)
        self.changes.bump(match_key(match_id))
        return self.match_json(match_id)

    def _match_json(self, record: arena.MatchRecord, names: dict[str, str]) -> dict[str, Any]:
        """The stored match (``names``: as ``match_record_json`` takes them), and a pending
        one's place: running, queued (its position), or neither (``None``: a tournament's,
        or not yet handed over)."""
        data = match_record_json(record, names)
        if record.status is arena.MatchStatus.PENDING:
            with self._queue_lock:
                if record.id in self._running:
                    data["stage"], data["position"] = "running", 0
                elif record.id in self._queued:
                    data["stage"] = "queued"
                    data["position"] = list(self._queued).index(record.id) + 1
                else:
                    data["stage"], data["position"] = None, None
        return data

    def matches_json(
        self, *, limit: int, before: int | None, everything: bool, quick_only: bool = False
    ) -> list[dict[str, Any]]:
        """The most recent matches first (a page), as ``match_json`` gives each: all of them
        with ``everything`` (the console), else only the published ones; ``quick_only``:
        only quick matches."""
        records = self.store.matches(
            limit=limit, before=before, published_only=not everything, quick_only=quick_only
        )
        names = self._names(records, everything)
        return [self._match_json(m, names) for m in records]

    def verified_replay(
        self, match_id: int, *, everything: bool = True
    ) -> arena.StoredReplay | None:
        """``stored_replay`` without waiting: None if the store is locked, the file not yet
        verified as it is now, or over ``INLINE_REPLAY_BYTES`` (ask ``stored_replay``)."""
        try:
            record = self._match(match_id, everything=everything, wait=False)
        except arena.StoreBusyError:
            return None
        if record.result is None:
            raise ApiError(404, f"match {match_id} has no replay: it is {record.status}")
        return self.store.verified_replay(record.result.replay_sha256, INLINE_REPLAY_BYTES)

    def stored_replay(self, match_id: int, *, everything: bool = True) -> arena.StoredReplay:
        """A finished match's replay file, its digest checked before a byte is sent; without
        ``everything``, only a published match's."""
        record = self._match(match_id, everything=everything)
        if record.result is None:
            raise ApiError(404, f"match {match_id} has no replay: it is {record.status}")
        return self.store.stored_replay(record.result.replay_sha256)


def _published_with(record: arena.MatchRecord) -> str | None:
    """Why a match of a run or a tournament is not published alone: with its owner, which
    is, or is published as the message says (the store refuses it too, in fewer words)."""
    if record.tournament_id is not None:
        owner = f"tournament {record.tournament_id}"
        how = (
            "its matches are published with it"
            f" (POST /api/tournaments/{record.tournament_id}/publish)"
        )
    elif record.run_id is not None:
        # No route publishes a run: a pushed one is published as it is recorded, and a run
        # stored unpublished (proved on this server's data directory) when pushed again.
        owner = f"run {record.run_id}"
        how = "a run is published by pushing it to this site (arena push), its matches with it"
    else:
        return None
    if record.published:
        return f"match {record.id} is a match of {owner}, published with it already"
    return f"match {record.id} is a match of {owner}, which is not published: {how}"
