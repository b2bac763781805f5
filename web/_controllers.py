"""The site's controllers: listing and serving them, uploads, admission and names.

- **Admission** of a module runs whole in a worker process of the check lane
  (``arena.check_module`` compiles out of process already, and instantiates
  with zero fuel where it is called: never here). Every module is admitted
  before it is stored, uploaded or pushed.
- **Names**: a name means one module. An upload or a push whose name another
  module holds already (a baseline's included) is refused with 409, so that a
  quick match of ``"random"`` always plays the baseline.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import threading
from functools import partial
from typing import Any

import arena
from web._core import SiteCore
from web._errors import ApiError
from web._lanes import Lane, WorkerLanes
from web._limits import SiteLimits, Slots

__all__ = ["Controllers", "check_name", "controller_json", "named_controller"]


def check_name(name: str, what: str) -> str:
    """A name the store takes (``arena.name_problem``: 1..MAX_NAME_CHARS characters, each
    one a character that shows, no control character), else 400 naming ``what``."""
    problem = arena.name_problem(name)
    if problem is not None:
        raise ApiError(400, f"{what}: {problem}")
    return name


def controller_json(
    c: arena.ControllerRecord, others: tuple[str, ...] = (), held_by: str | None = None
) -> dict[str, Any]:
    """A controller's record as the API answers it; ``others``: the names it also ran under
    (``Store.other_names``), which the listing gives as ``also``; ``held_by``: the worker
    whose local run it is, held for review only (``Store.held_modules``)."""
    return {
        "name": c.name,
        "also": list(others),
        "held_by": held_by,
        "sha256": c.sha256,
        "origin": str(c.origin),
        "hidden": c.hidden,
        "size": c.size,
        "created_at": c.created_at.isoformat(),
    }


def named_controller(store: arena.Store, ref: str, which: str) -> arena.ControllerRecord:
    """The stored controller a match or a tournament names (a name or a sha256), any one,
    the hidden ones too (writes need the token); 404 naming the field ``which``."""
    try:
        return store.controller(ref)
    except arena.NotInStoreError:
        raise ApiError(404, f"field {which!r}: no controller {ref!r}") from None


class Controllers(SiteCore):
    """The site's controllers: listed, served, uploaded; admission and names."""

    def __init__(
        self, store: arena.Store, case: arena.Case, limits: SiteLimits, lanes: WorkerLanes
    ) -> None:
        super().__init__(store, case, limits, lanes)
        self._checks = Slots(limits.checks, "too many modules are being checked")
        self.uploads = Slots(limits.checks, "too many uploads at once")
        """Uploads being received or checked: taken before a body is read (memory)."""
        self._names_lock = threading.Lock()
        """Held from the check that a name is free to the write that takes it."""
        self._admitted: set[str] = set()
        """The sha256s of the modules this server admitted (under its case's limits)."""

    def controllers(self, *, everything: bool) -> list[dict[str, Any]]:
        """The stored controllers, by name: ``everything`` (the console), the hidden ones
        too, each with the other names its module ran under; else only the open committed
        opponents and the published runs' controllers, by their stored names alone (another
        name may be an unpublished run's). A module held from a worker names it (the
        console's alone: the public listing has none)."""
        others = self.store.other_names() if everything else {}
        held = self.store.held_modules() if everything else {}
        return [
            controller_json(c, others.get(c.sha256, ()), held.get(c.sha256))
            for c in self.store.controllers(
                include_hidden=everything, published_only=not everything
            )
        ]

    def controller(self, ref: str, *, include_hidden: bool) -> arena.ControllerRecord:
        """A controller by sha256 or name; a hidden one only with ``include_hidden`` (else 404)."""
        try:
            record = self.store.controller(ref)
        except arena.NotInStoreError:
            raise ApiError(404, f"no controller {ref!r}") from None
        if record.hidden and not include_hidden:
            raise ApiError(404, f"no controller {ref!r}")
        return record

    def module(self, sha256: str, *, everything: bool) -> tuple[arena.ControllerRecord, bytes]:
        """A controller's module bytes (checked by sha256): to the console any; publicly only
        an open committed opponent's (never a hidden one's, nor any other's), else 404."""
        record = self.controller(sha256, include_hidden=everything)
        if record.sha256 != sha256:
            raise ApiError(404, f"no controller {sha256!r}")
        if not everything and record.origin is not arena.Origin.BASELINE:
            raise ApiError(404, f"no controller {sha256!r}")
        return record, self.store.read_module_bytes(sha256)

    async def upload(
        self, name: str, blob: bytes, *, held_by: str | None = None
    ) -> tuple[dict[str, Any], bool]:
        """Admit and store a module; (its record, whether it is new).

        Bytes stored already answer their record as it is (its first name
        stays). 409 if ``name`` is another module's; 400 if not admissible.
        ``held_by``: a worker's local run fetched to be played, held for review
        only (``Store.add_controller``); without it, a module that was held is
        stored on purpose from now on.
        """
        check_name(name, "name")
        sha256 = hashlib.sha256(blob).hexdigest()
        existing = await asyncio.to_thread(self._stored, sha256)
        if existing is None:
            await asyncio.to_thread(self._name_free, name, sha256)
        # Bytes stored already too: the command line stores what it plays unadmitted.
        await self._admit(blob, sha256, "the module is not admissible")
        if existing is not None:
            # Held or released as this upload says; its file written again if it went.
            await asyncio.to_thread(
                partial(
                    self.store.add_controller,
                    blob,
                    name=existing.name,
                    origin=existing.origin,
                    held_by=held_by,
                )
            )
            return controller_json(existing), False
        record = await asyncio.to_thread(self._add_upload, blob, name, sha256, held_by)
        return controller_json(record), True

    async def _admit(self, blob: bytes, sha256: str, refusal: str) -> None:
        """Check ``blob`` in a worker of the check lane; 400 (``refusal``: the reason) if not
        admissible. Every module is, each time it is uploaded or pushed (the store does not
        say whether a module was admitted), unless this server admitted it already."""
        if sha256 in self._admitted:
            return
        self._checks.take(retry_after=5)
        future: concurrent.futures.Future[arena.Admission] = self.lanes.submit(
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
        self._admitted.add(sha256)

    def _name_free(self, name: str, sha256: str) -> None:
        """409 if storing module ``sha256`` under ``name`` would take the name from another
        module (``Store.controller`` takes a sha256 or a name): a second module under a
        name would shadow the first; nor may it look the same as another module's name
        (``Store.controller_like``: after normalization, case folding and Unicode's
        confusables), which a reader would take for it. A module stored already keeps its
        record, so it names nothing anew."""
        if self._stored(sha256) is not None:
            return
        like = ""
        try:
            holder: arena.ControllerRecord | None = self.store.controller(name)
        except arena.NotInStoreError:
            holder = self.store.controller_like(name)
            like = "" if holder is None else f", which looks the same as {holder.name!r}"
        if holder is not None and holder.sha256 != sha256:
            raise ApiError(
                409,
                f"the name {name!r} is taken{like}: controller {holder.sha256}"
                f" ({holder.origin}) holds it; choose another name",
                extra={"holder": holder.sha256},
            )

    def _add_upload(
        self, blob: bytes, name: str, sha256: str, held_by: str | None
    ) -> arena.ControllerRecord:
        with self._names_lock:  # two uploads under one name at once: the second gets 409
            self._name_free(name, sha256)
            return self.store.add_controller(
                blob, name=name, origin=arena.Origin.UPLOAD, held_by=held_by
            )

    def _stored(self, sha256: str) -> arena.ControllerRecord | None:
        try:
            record = self.store.controller(sha256)
        except arena.NotInStoreError:
            return None
        return record if record.sha256 == sha256 else None
