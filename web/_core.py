"""What every room of the site shares: ``SiteCore`` (the store, the case, the limits, the worker
lanes, the live changes), and the one way a moment is written in JSON.

``Site`` (``web._site``) is ``SiteCore`` with one mixin a room: the controllers
(uploads, admission, names: ``web._controllers``), the matches (the quick-match
queue: ``web._matches``), the runs (push: ``web._runs``) and the tournaments
(``web._tournaments``). Each room keeps its own state, set up in its
``__init__`` after ``super().__init__``; what one room needs of another is a
function, or (a push being an upload with its run) the other room as a base.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Final

import arena
from web._lanes import WorkerLanes
from web._limits import ClientSlots, SiteLimits
from web._live import Changes, Snapshots

__all__ = ["SiteCore", "json_bytes", "when"]


class SiteCore:
    """The store, the case matches are played under, the limits, the worker lanes, the changes."""

    def __init__(
        self, store: arena.Store, case: arena.Case, limits: SiteLimits, lanes: WorkerLanes
    ) -> None:
        self.store = store
        self.case = case
        self.limits = limits
        self.lanes = lanes
        """The worker processes, in lanes: nothing is played or compiled in the server."""
        self.changes = Changes()
        """Which matches and tournaments changed, for their event streams."""
        self.snapshots = Snapshots(self.changes)
        """Each record's state for its event streams, built once per change, in threads of its
        own (never those of the write handlers)."""
        self.client_streams = ClientSlots(
            limits.streams_per_client, "too many event streams are open"
        )
        """Event streams by client: one client cannot hold every stream."""


_JSON: Final = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def json_bytes(data: Any) -> bytes:
    """``data`` as the site's JSON answers carry it: the bytes Starlette's ``JSONResponse``
    renders (compact, UTF-8, no NaN), for an answer kept as bytes."""
    return _JSON.encode(data).encode()


def when(moment: datetime | None) -> str | None:
    """A stored moment in JSON: ISO 8601, or null (not yet)."""
    return None if moment is None else moment.isoformat()
