"""The site's field (issue 26): every pushed controller that could compete, ranked against every
other, played as they arrive.

A push recorded anew whose run could compete enters its controller in the
field of the site's case version (made on first need with the case's
opponents: ``arena.enter_field``), and wakes the field's player: one task in
the worker lanes' trio loop for the life of the server (``arena.play_field``),
whose matches go behind quick matches in the match lane (``WorkerLanes.spawn(...,
behind=True)``: a quick match waiting starts first). With ``$FORAY_RAY_ADDRESS``
set they go to that Ray cluster instead, as an ``arena tournament`` does, and the
lanes' workers keep the quick matches and the pushes.

Started again, the site enters what a stopped server had not entered yet (a run
recorded, the server killed before its controller entered: ``arena.enter_waiting_runs``)
and plays every meeting missing; each match is recorded once (the store's
unique pairing key).
"""

from __future__ import annotations

import concurrent.futures
import logging
import os
import threading
from functools import partial
from typing import Any

import arena
from web._bundle import Bundle
from web._errors import ApiError
from web._lanes import LanesClosed
from web._runs import Runs

__all__ = ["Fields", "field_key"]

_log = logging.getLogger("web")

RAY_ADDRESS_ENV = "FORAY_RAY_ADDRESS"
"""Where a field's matches go when set: that Ray cluster (``arena.make_executor("ray")``)."""


def field_key(tournament_id: int) -> tuple[str, int]:
    """The field's key in the site's ``Changes`` (its event stream waits on it)."""
    return ("field", tournament_id)


class Fields(Runs):
    """The field of the site's case: entered by pushes, played in the lanes, shown, withdrawn
    from. A push is an entry's cause, so this room is built on the runs'."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._field_signal: arena.FieldSignal | None = None
        self._field_future: concurrent.futures.Future[None] | None = None
        self._field_lock = threading.Lock()  # two pushes at once start one player

    # ------------------------------------------------------------------ entering

    def _record_push(
        self, bundle: Bundle, matches: list[arena.RunMatch]
    ) -> tuple[dict[str, Any], bool]:
        answer, created = super()._record_push(bundle, matches)
        if created and answer.get("outcome") != str(arena.RunOutcome.COULD_NOT_COMPETE):
            try:
                entry = arena.enter_field(
                    self.store, self.case, bundle.controller, bundle.module_sha256
                )
            except Exception as exc:  # the run is recorded: its answer stands
                _log.error("the pushed %r did not enter the field: %s (the next start "
                           "enters it)", bundle.controller, exc)  # fmt: skip
                return answer, created
            if entry.new:
                _log.info("%s entered the field", entry.entrant.name)
            self._wake_field()
        return answer, created

    def _resume_field(self) -> None:
        """At start: enter the pushed runs not entered yet, and play the field if there is
        one (what is missing first)."""
        for entry in arena.enter_waiting_runs(self.store, self.case):
            _log.info("%s entered the field (its run was not entered yet)", entry.entrant.name)
        if self._field_id() is not None:
            self._wake_field()

    def open_field(self) -> None:
        """Make the case's field now if it has none (its committed opponents entered, as the
        design has them form it before any push), and play it: ``arena serve`` does this
        as it starts, so a server nobody has pushed to shows the baselines' field. A store
        that cannot take it now (full, busy) is said, not fatal: the first push makes it."""
        try:
            arena.open_field(self.store, self.case)
        except arena.StoreError as exc:
            _log.error("the field could not be made now: %s (the first push makes it)", exc)
            return
        self._wake_field()

    def _field_id(self) -> int | None:
        ref = self.case.ref
        return self.store.field_id(ref.slug, int(ref.version))

    def _wake_field(self) -> None:
        """Start the field's player if it is not running, else tell it to look again."""
        tid = self._field_id()
        if tid is None:
            return
        self.changes.bump(field_key(tid))
        with self._field_lock:
            if self._field_future is None or self._field_future.done():
                # A player that starts reads the newcomers first: no poke needed.
                self._field_signal = None
                self._field_future = self.lanes.spawn(self._play_field, tid, behind=True)
                self._field_future.add_done_callback(partial(self._field_over, tid))
                return
            signal = self._field_signal
        if signal is not None:
            self.lanes.call_soon(signal.poke)

    async def _play_field(self, player: Any, tournament_id: int) -> None:
        """In the lanes' loop, for the life of the server: the field's missing meetings, then
        each newcomer's as it enters."""
        signal = arena.FieldSignal()
        self._field_signal = signal
        slots = self.limits.workers
        if os.environ.get(RAY_ADDRESS_ENV):
            executor = arena.make_executor("ray")
            async with executor.open_session() as session:
                await self._field_loop(session, session.slots, tournament_id, signal)
        else:
            await self._field_loop(player, slots, tournament_id, signal)

    async def _field_loop(
        self, player: Any, slots: int, tournament_id: int, signal: arena.FieldSignal
    ) -> None:
        def progress(_: arena.TournamentProgress) -> None:
            self.changes.bump(field_key(tournament_id))

        await arena.play_field(
            self.store,
            tournament_id,
            player,
            slots=slots,
            signal=signal,
            on_progress=progress,
        )

    def _field_over(self, tournament_id: int, future: concurrent.futures.Future[None]) -> None:
        if future.cancelled():
            return
        exc = future.exception()
        if exc is not None and not isinstance(exc, LanesClosed):
            _log.error("the field stopped: %s (a restart plays on)", exc)

    # ------------------------------------------------------------------ reading

    def fields_json(self) -> dict[str, Any]:
        """Every field of the store, with its counts (``GET /api/field``)."""
        return {"fields": [f.to_json() for f in self.store.fields()]}

    def field_id_of(self, slug: str, version: int) -> int:
        """The field of case ``slug`` version ``version``: 404 if the site has none."""
        tid = self.store.field_id(slug, version)
        if tid is None:
            raise ApiError(404, f"no field of {slug}/{version}")
        return tid

    def field_json(self, slug: str, version: int) -> dict[str, Any]:
        """The field's standings now (``GET /api/field/{slug}/{version}``), recounted from its
        stored matches; 404 for a case version the site has no field of."""
        data: dict[str, Any] = arena.field_json(self.store, self.field_id_of(slug, version))
        return data

    # ------------------------------------------------------------------ withdrawing

    def withdraw(self, slug: str, version: int, name: str, reason: str) -> dict[str, Any]:
        """Withdraw ``name`` from the field (console): it leaves the standings, its matches
        stay recorded, its meetings not played are not played. The field's JSON."""
        tid = self.field_id_of(slug, version)
        self.store.withdraw_entrant(tid, name, reason)
        self.changes.bump(field_key(tid))
        return self.field_json(slug, version)

    def reinstate(self, slug: str, version: int, name: str) -> dict[str, Any]:
        """Undo ``withdraw``: ``name`` is ranked again, and its missing meetings are played."""
        tid = self.field_id_of(slug, version)
        self.store.reinstate_entrant(tid, name)
        self._wake_field()
        return self.field_json(slug, version)
