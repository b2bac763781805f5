"""The site's work, behind the routes: the store, the match queue, admission, push, live state.

``Site`` is what the handlers call (``web._api`` holds no business logic). It
owns the store (the data directory the CLI uses), the case matches are played
under, and a ``Coordinator`` (a thread with a trio loop and worker processes):

- **Quick matches** are accepted while fewer than ``queue`` are waiting or
  running, else ``ApiError`` 429 with a Retry-After. An accepted match is a
  pending row first (its id), then runs in a worker; its result (or why it
  could not be played) is recorded exactly once (``Store.finish_match``
  refuses a second). A server stopped with matches pending plays them when it
  starts again.
- **Admission** of an uploaded module runs whole in a worker process
  (``arena.check_module`` compiles out of process already, and instantiates
  with zero fuel where it is called: never here).
- **Names**: a name means one module. An upload or a push whose name another
  module holds already (a baseline's included) is refused with 409, so that a
  quick match of ``"random"`` always plays the baseline.
- **Push**: the pushed module is admitted as an upload is; then every match of
  the run is played again in a worker from it and the server's own copy of the
  opponent, and must give the same replay bytes; then the controller and the
  run are recorded. What makes a valid run is ``arena.check_pushed_run``'s;
  the site does the I/O around it.

Every method that touches the disk is synchronous (handlers run them in a
thread); the ones that wait for a worker are coroutines.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import logging
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Final, TypeVar

import arena
from replays import MAX_NAME_CHARS
from web._bundle import Bundle, decode_bundle
from web._coordinator import Coordinator, Lane
from web._live import Changes

__all__ = ["ApiError", "Site", "SiteLimits"]

_log = logging.getLogger("web")

T = TypeVar("T")


class ApiError(Exception):
    """An answer other than success, with its status and message (JSON ``{"error": ...}``)."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        headers: dict[str, str] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}
        self.extra = extra or {}


@dataclass(frozen=True, slots=True)
class SiteLimits:
    """How much the server takes on at once (docs/web.md, "The queue")."""

    workers: int = field(default_factory=lambda: min(arena.default_jobs(), 4))
    """Worker processes playing matches at once."""
    queue: int = 32
    """Quick matches accepted and not yet finished (waiting or running); past it, 429."""
    checks: int = 8
    """Admission checks waiting or running; past it, 429."""
    check_workers: int = 1
    """Admission checks running at once."""
    pushes: int = 2
    """Pushes being checked at once; past it, 429."""
    tournaments: int = 2
    """Tournaments the server plays at once (their matches share the workers); past it, 429."""
    max_field: int = 64
    """Most entrants in a tournament started from the server."""
    streams: int = 256
    """Server-sent event streams open at once; past it, 429."""
    body_timeout: float = 30.0
    """Seconds a request may take to send its body (a slow body gets 408)."""
    keepalive: float = 15.0
    """Seconds between keep-alive comments on an idle event stream."""


class _Slots:
    """A counter with a ceiling: ``take`` or ``ApiError`` 429."""

    def __init__(self, limit: int, what: str) -> None:
        self.limit = limit
        self.what = what
        self.used = 0
        self._lock = threading.Lock()

    def take(self, retry_after: int, *, force: bool = False) -> None:
        with self._lock:
            if self.used >= self.limit and not force:
                raise ApiError(
                    429,
                    f"{self.what}: {self.used} of {self.limit} already; try again later",
                    headers={"Retry-After": str(retry_after)},
                )
            self.used += 1

    def give(self) -> None:
        with self._lock:
            self.used = max(0, self.used - 1)

    @contextmanager
    def held(self, retry_after: int) -> Iterator[None]:
        self.take(retry_after)
        try:
            yield
        finally:
            self.give()


def match_key(match_id: int) -> tuple[str, int]:
    return ("match", match_id)


def tournament_key(tournament_id: int) -> tuple[str, int]:
    return ("tournament", tournament_id)


def replay_url(match_id: int) -> str:
    return f"/api/matches/{match_id}/replay"


def _controller_json(c: arena.ControllerRecord) -> dict[str, Any]:
    return {
        "name": c.name,
        "sha256": c.sha256,
        "origin": str(c.origin),
        "hidden": c.hidden,
        "size": c.size,
        "created_at": c.created_at.isoformat(),
    }


def _when(moment: Any) -> str | None:
    return None if moment is None else str(moment.isoformat())


class Site:
    """The arena behind the web: one store, one case, one coordinator. See the module's doc."""

    def __init__(
        self, store: arena.Store, case: arena.Case, limits: SiteLimits, coordinator: Coordinator
    ) -> None:
        """Use ``Site.open``."""
        self.store = store
        self.case = case
        self.limits = limits
        self.coordinator = coordinator
        self.changes = Changes()
        self._matches = _Slots(limits.queue, "the match queue is full")
        self._checks = _Slots(limits.checks, "too many modules are being checked")
        self.uploads = _Slots(limits.checks, "too many uploads at once")
        """Uploads being received or checked: taken before a body is read (memory)."""
        self.pushes = _Slots(limits.pushes, "too many pushes are being checked")
        """Pushes being received or checked: taken before a bundle is read (memory)."""
        self.streams = _Slots(limits.streams, "too many event streams are open")
        self._tournaments = _Slots(limits.tournaments, "the server plays enough tournaments now")
        self._progress: dict[int, arena.TournamentProgress] = {}
        self._lock = threading.Lock()
        self._queued: OrderedDict[int, None] = OrderedDict()
        self._running: set[int] = set()
        self._started_at: dict[int, float] = {}
        self._push_lock = threading.Lock()
        self._names_lock = threading.Lock()
        """Held from the check that a name is free to the write that takes it."""
        self._seconds_per_match = 2.0  # a running average, for Retry-After

    # ------------------------------------------------------------------ life

    @classmethod
    @contextmanager
    def open(
        cls,
        root: Path | None = None,
        *,
        limits: SiteLimits | None = None,
        case: arena.Case | None = None,
    ) -> Iterator[Site]:
        """The site over the data directory ``root`` (default: ``arena.data_dir()``), running.

        Deletes the temporary files killed writes left (``Store.sweep``),
        stores the case's committed opponents (hidden ones hidden), starts the
        coordinator and its workers, and queues again the matches a previous
        server left pending. Leaving the block stops the workers; matches not
        finished by then stay pending, to be played at the next start.
        """
        limits = limits or SiteLimits()
        case = case or arena.default_case()
        store = arena.Store.open(root)
        try:
            for path in store.sweep():
                _log.info("deleted %s: a temporary file of a write that never finished", path)
            for opponent in case.opponents:
                store.add_controller(
                    opponent.read_module(),
                    name=opponent.name,
                    origin=arena.Origin.BASELINE,
                    hidden=opponent.hidden,
                )
            coordinator = Coordinator(
                {Lane.MATCH: limits.workers, Lane.CHECK: limits.check_workers}
            )
            with coordinator:
                site = cls(store, case, limits, coordinator)
                site._resume()
                yield site
        finally:
            store.close()

    def _resume(self) -> None:
        for record in self.store.pending_matches():
            if record.tournament_id is not None or record.run_id is not None:
                continue
            self._matches.take(1, force=True)
            try:
                blobs = [self.store.read_module_bytes(e.sha256) for e in record.entrants]
            except arena.ArenaError as exc:
                self._record(record.id, exc)
                continue
            self._enqueue(record, blobs[0], blobs[1])
            _log.info("match %d was pending: queued again", record.id)

    # ------------------------------------------------------------------ status

    def status(self) -> dict[str, Any]:
        """The queue and the workers, now."""
        running, waiting = self.coordinator.busy(Lane.MATCH)
        return {
            "case": {"slug": self.case.slug, "version": self.case.version},
            "workers": self.limits.workers,
            "queue": {"capacity": self.limits.queue, "accepted": self._matches.used},
            "running": running,
            "waiting": waiting,
        }

    def retry_after(self) -> int:
        """Seconds until the queue has likely moved on by one (Retry-After)."""
        waiting = max(1, self._matches.used)
        return max(1, math.ceil(self._seconds_per_match * waiting / self.limits.workers))

    def exists(self, kind: str, ident: int) -> bool:
        """Whether the run, match or tournament ``ident`` is stored."""
        read = {
            "run": self.store.run,
            "match": self.store.match,
            "tournament": self.store.tournament,
        }
        try:
            read[kind](ident)
        except arena.NotInStoreError:
            return False
        return True

    # ------------------------------------------------------------------ controllers

    def controllers(self, *, include_hidden: bool) -> list[dict[str, Any]]:
        return [_controller_json(c) for c in self.store.controllers(include_hidden=include_hidden)]

    def controller(self, ref: str, *, include_hidden: bool) -> arena.ControllerRecord:
        """A controller by sha256 or name; a hidden one only with ``include_hidden`` (else 404)."""
        try:
            record = self.store.controller(ref)
        except arena.NotInStoreError:
            raise ApiError(404, f"no controller {ref!r}") from None
        if record.hidden and not include_hidden:
            raise ApiError(404, f"no controller {ref!r}")
        return record

    def module(self, sha256: str, *, include_hidden: bool) -> tuple[arena.ControllerRecord, bytes]:
        """A controller's module bytes (checked by sha256); never a hidden one publicly."""
        record = self.controller(sha256, include_hidden=include_hidden)
        if record.sha256 != sha256:
            raise ApiError(404, f"no controller {sha256!r}")
        return record, self.store.read_module_bytes(sha256)

    async def upload(self, name: str, blob: bytes) -> tuple[dict[str, Any], bool]:
        """Admit and store a module; (its record, whether it is new).

        Bytes stored already answer their record as it is (its first name
        stays). 409 if ``name`` is another module's; 400 if not admissible.
        """
        check_name(name, "name")
        sha256 = hashlib.sha256(blob).hexdigest()
        existing = await asyncio.to_thread(self._stored, sha256)
        if existing is not None:
            return _controller_json(existing), False
        await asyncio.to_thread(self._name_free, name, sha256)
        await self._admit(blob, sha256, "the module is not admissible")
        record = await asyncio.to_thread(self._add_upload, blob, name, sha256)
        return _controller_json(record), True

    async def _admit(self, blob: bytes, sha256: str, refusal: str) -> None:
        """Check ``blob`` in a worker of the check lane; 400 (``refusal``: the reason) if not
        admissible. Every module is, before it is stored: uploaded or pushed."""
        self._checks.take(retry_after=5)
        future: concurrent.futures.Future[arena.Admission] = self.coordinator.submit(
            Lane.CHECK, arena.check_module, blob, self.case.limits, doing="checking this module"
        )
        future.add_done_callback(lambda _f: self._checks.give())
        admission: arena.Admission = await asyncio.wrap_future(future)
        if not admission.admissible:
            raise ApiError(
                400,
                f"{refusal}: {admission.reason}",
                extra={"sha256": sha256, "reason": admission.reason},
            )

    def _name_free(self, name: str, sha256: str) -> None:
        """409 if storing module ``sha256`` under ``name`` would take the name from another
        module (``Store.controller`` takes a sha256 or a name): a second module under a
        name would shadow the first. A module stored already keeps its record, so it
        names nothing anew."""
        if self._stored(sha256) is not None:
            return
        try:
            holder = self.store.controller(name)
        except arena.NotInStoreError:
            return
        if holder.sha256 != sha256:
            raise ApiError(
                409,
                f"the name {name!r} is taken: controller {holder.sha256} ({holder.origin})"
                " holds it; choose another name",
                extra={"holder": holder.sha256},
            )

    def _add_upload(self, blob: bytes, name: str, sha256: str) -> arena.ControllerRecord:
        with self._names_lock:  # two uploads under one name at once: the second gets 409
            self._name_free(name, sha256)
            return self.store.add_controller(blob, name=name, origin=arena.Origin.UPLOAD)

    def _stored(self, sha256: str) -> arena.ControllerRecord | None:
        try:
            record = self.store.controller(sha256)
        except arena.NotInStoreError:
            return None
        return record if record.sha256 == sha256 else None

    # ------------------------------------------------------------------ matches

    def queue_match(self, a: str, b: str, seed: int) -> dict[str, Any]:
        """Accept a quick match of controllers ``a`` and ``b`` (names or sha256s); its JSON.

        Any controller may play, the hidden ones too (writes need the token).
        429 when the queue is full; nothing is recorded then.
        """
        sides = [self._side(ref, which) for ref, which in ((a, "a"), (b, "b"))]
        blobs = [self.store.read_module_bytes(c.sha256) for c in sides]
        self._matches.take(self.retry_after())
        try:
            record = self.store.queue_match(
                arena.Entrant(sides[0].name, sides[0].sha256),
                arena.Entrant(sides[1].name, sides[1].sha256),
                seed=seed,
            )
        except BaseException:
            self._matches.give()
            raise
        self._enqueue(record, blobs[0], blobs[1])
        return self.match_json(record.id)

    def _side(self, ref: str, which: str) -> arena.ControllerRecord:
        try:
            return self.store.controller(ref)
        except arena.NotInStoreError:
            raise ApiError(404, f"field {which!r}: no controller {ref!r}") from None

    def _enqueue(self, record: arena.MatchRecord, blob_a: bytes, blob_b: bytes) -> None:
        """Hand a pending match to the coordinator (its queue slot is taken already)."""
        (ea, eb) = record.entrants
        job = self.case.match_job(
            arena.Contestant(ea.name, blob_a),
            arena.Contestant(eb.name, blob_b),
            seed=record.seed,
        )
        with self._lock:
            self._queued[record.id] = None
        self.coordinator.submit(
            Lane.MATCH,
            arena.play,
            job,
            doing="playing this match",
            started=partial(self._started, record.id),
            then=partial(self._record, record.id),
        )
        self.changes.bump(match_key(record.id))

    def _started(self, match_id: int) -> None:
        with self._lock:
            self._queued.pop(match_id, None)
            self._running.add(match_id)
            self._started_at[match_id] = time.monotonic()
            moved = list(self._queued)
        self.changes.bump(match_key(match_id), *map(match_key, moved))

    def _record(self, match_id: int, outcome: Any) -> None:
        """Record a quick match's outcome, exactly once (in a thread of the coordinator)."""
        try:
            if isinstance(outcome, Exception):
                self.store.fail_match(match_id, f"the arena could not play this match: {outcome}")
            else:
                self.store.finish_match(match_id, outcome)
        except arena.StoreError as exc:
            # A store full, read-only or busy: the row stays pending, and the
            # next start of the server plays it again. No traceback: not a bug.
            _log.error("match %d: not recorded, it stays pending: %s", match_id, exc)
        except Exception:
            _log.exception("match %d: its outcome could not be recorded", match_id)
        finally:
            with self._lock:
                self._queued.pop(match_id, None)
                self._running.discard(match_id)
                began = self._started_at.pop(match_id, None)
                if began is not None:
                    took = time.monotonic() - began
                    self._seconds_per_match = 0.8 * self._seconds_per_match + 0.2 * took
            self._matches.give()
            self.changes.bump(match_key(match_id))

    def match_json(self, match_id: int) -> dict[str, Any]:
        """A match: ``status``, then, once finished, the result with the design's keys."""
        return self._match_json(self._match(match_id))

    def _match(self, match_id: int) -> arena.MatchRecord:
        try:
            return self.store.match(match_id)
        except arena.NotInStoreError:
            raise ApiError(404, f"no match {match_id}") from None

    def _match_json(self, record: arena.MatchRecord) -> dict[str, Any]:
        data = record.to_json(replay_url(record.id) if record.result is not None else "")
        data["status"] = str(record.status)
        data["created_at"] = _when(record.created_at)
        data["finished_at"] = _when(record.finished_at)
        data["tournament_id"] = record.tournament_id
        data["run_id"] = record.run_id
        if record.status is arena.MatchStatus.PENDING:
            with self._lock:
                if record.id in self._running:
                    data["stage"], data["position"] = "running", 0
                elif record.id in self._queued:
                    data["stage"] = "queued"
                    data["position"] = list(self._queued).index(record.id) + 1
                else:
                    data["stage"], data["position"] = None, None
        return data

    def matches_json(self, *, limit: int, before: int | None) -> list[dict[str, Any]]:
        return [self._match_json(m) for m in self.store.matches(limit=limit, before=before)]

    def open_replay(self, match_id: int) -> arena.ReplayStream:
        """A finished match's replay, verified by sha256 before a byte is sent."""
        record = self._match(match_id)
        if record.result is None:
            raise ApiError(404, f"match {match_id} has no replay: it is {record.status}")
        # Chunks of 256 KiB: a typical replay (about 70 KB) goes out in one.
        return self.store.open_replay(record.result.replay_sha256, chunk_size=256 * 1024)

    # ------------------------------------------------------------------ runs

    def runs_json(self, *, limit: int, before: int | None) -> list[dict[str, Any]]:
        """Runs as ``arena runs --json`` lists them (``matches`` is a count)."""
        return [arena.run_json(r) for r in self.store.runs(limit=limit, before=before)]

    def run_json(self, run_id: int) -> dict[str, Any]:
        """A run as ``arena runs show --json`` gives it, each match's result as the API's.

        Each match adds its ``id`` and the controller's ``side``; its ``result``
        is the match JSON of ``GET /api/matches/{id}`` (the replay's URL, not
        where the file is).
        """
        try:
            report = arena.run_report(self.store, run_id)
        except arena.NotInStoreError:
            raise ApiError(404, f"no run {run_id}") from None
        data = report.to_json()
        for row, m in zip(data["matches"], report.matches, strict=True):
            row.update(id=m.record.id, side=m.side, result=self._match_json(m.record))
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
        bundle = decode_bundle(data)
        check = arena.check_pushed_run(self.case, bundle)
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
                    self.coordinator.submit(
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

    def _same_run(self, bundle: Bundle) -> dict[str, Any] | None:
        """The stored run this bundle is already, if any (pushing twice changes nothing)."""
        run = arena.find_pushed_run(self.store, bundle)
        return None if run is None else arena.run_json(run)

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
        return arena.run_json(run), True

    # ------------------------------------------------------------------ tournaments

    def start_tournament(
        self,
        format: str,
        field: list[str],
        *,
        seeds: list[int],
        rounds: int | None = None,
        shuffle: int | None = None,
    ) -> dict[str, Any]:
        """Start a tournament over stored controllers (names or sha256s); its JSON.

        It is recorded (status running) before this returns, then played in the
        coordinator's loop by ``arena.run_tournament``, its matches taking their
        turns with quick matches on the workers. 429 when the server plays
        ``tournaments`` already; 400 for a plan that cannot be held.
        """
        if not 2 <= len(field) <= self.limits.max_field:
            raise ApiError(400, f"field 'field': 2..{self.limits.max_field} controllers")
        records = [self._side(ref, f"field[{i}]") for i, ref in enumerate(field)]
        entrants = [arena.Entrant(r.name, r.sha256) for r in records]
        self._tournaments.take(retry_after=60)
        try:
            record = arena.create_tournament(
                self.store,
                format,
                entrants,
                seeds=seeds,
                rounds=rounds,
                shuffle=shuffle,
                case=self.case,
                config=self.case.rules,
            )
        except BaseException:
            self._tournaments.give()
            raise
        future = self.coordinator.spawn(self._play_tournament, record.id)
        future.add_done_callback(partial(self._tournament_over, record.id))
        return self.tournament_json(record.id)

    async def _play_tournament(self, player: Any, tournament_id: int) -> None:
        """In the coordinator's loop: play the tournament, recording as it goes."""
        await arena.run_tournament(
            self.store,
            tournament_id,
            player,
            slots=self.limits.workers,
            on_progress=self._tournament_progress,
        )

    def _tournament_progress(self, progress: arena.TournamentProgress) -> None:
        self._progress[progress.tournament_id] = progress
        self.changes.bump(tournament_key(progress.tournament_id))

    def _tournament_over(self, tournament_id: int, future: concurrent.futures.Future[None]) -> None:
        self._tournaments.give()
        self._progress.pop(tournament_id, None)
        if not future.cancelled() and future.exception() is not None:
            _log.error("tournament %d stopped: %s", tournament_id, future.exception())
        self.changes.bump(tournament_key(tournament_id))

    def tournaments_json(self, *, limit: int, before: int | None) -> list[dict[str, Any]]:
        """The most recent tournaments, without their standings."""
        return [_tournament_json(t) for t in self.store.tournaments(limit=limit, before=before)]

    def tournament_json(self, tournament_id: int) -> dict[str, Any]:
        """A tournament as ``arena standings --json`` gives it (live while it runs), with its
        field, its pairings by stage (``stages``) and what is playing now."""
        try:
            matches = self.store.tournament_matches(tournament_id)
            record, standings = arena.tournament_standings(self.store, tournament_id, matches)
        except arena.NotInStoreError:
            raise ApiError(404, f"no tournament {tournament_id}") from None
        data = arena.tournament_json(record, standings)
        progress = self._progress.get(tournament_id)
        data.update(_tournament_json(record))
        data["matches"] = standings.matches
        data["planned"] = standings.total
        data["playing"] = 0 if progress is None else progress.playing
        data["stages"] = _stages(record, matches, arena.tournament_plan(record))
        return data


def _tournament_json(t: arena.TournamentRecord) -> dict[str, Any]:
    """A tournament's record without its standings (a listing's row)."""
    try:
        planned: int | None = arena.tournament_plan(t).matches
    except arena.ArenaError:
        planned = None
    return {
        "id": t.id,
        "format": t.format,
        "status": str(t.status),
        "field": [{"name": e.name, "sha256": e.sha256} for e in t.field],
        "seeds": list(t.seeds),
        "matches": t.matches,
        "planned": planned,
        "error": t.error,
        "created_at": _when(t.created_at),
        "finished_at": _when(t.finished_at),
    }


_BRACKET_NAMES: Final = ("final", "semi-finals", "quarter-finals")


def _stage_label(t: arena.TournamentRecord, stage: int, stages: int) -> str:
    if t.format == "bracket" and stages - 1 - stage < len(_BRACKET_NAMES):
        return _BRACKET_NAMES[stages - 1 - stage]
    if t.format == "gauntlet":
        return f"opponent {stage + 1}"
    return f"round {stage + 1}"


def _stages(
    t: arena.TournamentRecord, matches: list[arena.MatchRecord], plan: arena.TournamentPlan
) -> list[dict[str, Any]]:
    """The recorded matches by stage and meeting: [{"stage", "label", "meetings": [...]}].

    A meeting is a stage's slot, its first entrant side A on the first assignment.
    """
    meetings: dict[tuple[int, int], dict[str, Any]] = {}
    for m in matches:
        pairing = arena.played_of(m).pairing
        stage, side = plan.stage_of(pairing), plan.side_of(pairing)
        a, b = (pairing.a, pairing.b) if side == 0 else (pairing.b, pairing.a)
        meeting = meetings.setdefault(
            (stage, pairing.slot),
            {"slot": pairing.slot, "a": a, "b": b, "matches": [], "wins": {a: 0, b: 0}},
        )
        winner = None
        if m.result is not None and m.result.winner is not None:
            winner = m.result.sides[m.result.winner].name
            if winner in meeting["wins"]:
                meeting["wins"][winner] += 1
        meeting["matches"].append(
            {
                "id": m.id,
                "seed": pairing.seed,
                "side": side,
                "status": str(m.status),
                "winner": winner,
            }
        )
    out: dict[int, dict[str, Any]] = {}
    for (stage, _slot), meeting in sorted(meetings.items()):
        wins = meeting.pop("wins")
        a, b = meeting["a"], meeting["b"]
        meeting["winner"] = a if wins[a] > wins[b] else b if wins[b] > wins[a] else None
        entry = out.setdefault(
            stage, {"stage": stage, "label": _stage_label(t, stage, plan.stages), "meetings": []}
        )
        meeting["matches"].sort(key=lambda x: (x["seed"], x["side"]))
        entry["meetings"].append(meeting)
    return list(out.values())


def check_name(name: str, what: str) -> str:
    """A name as the store keeps it: 1..MAX_NAME_CHARS characters, no control characters
    (else 400)."""
    if not 1 <= len(name) <= MAX_NAME_CHARS:
        raise ApiError(400, f"{what}: 1..{MAX_NAME_CHARS} characters, not {len(name)}")
    if any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in name):
        raise ApiError(400, f"{what}: no control characters")
    return name
