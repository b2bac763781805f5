"""The event streams' answer: a record's snapshots as server-sent events, within the site's bounds.

``stream_events`` takes the stream's slots (``SiteLimits.streams`` in all,
``streams_per_client`` of one address: else 429), reads the record's first
snapshot (a 404 before the stream starts), then sends each new one
(``web._live.Snapshots``: built once per change for all the record's streams,
in threads of their own), a keep-alive comment while nothing changes, until
the record is final; its slots are given back however it ends.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from web._http import site_of
from web._live import KEEPALIVE

__all__ = ["stream_events"]


async def stream_events(
    request: Request,
    key: tuple[str, int],
    event: str,
    state: Callable[[], tuple[dict[str, Any], bool]],
    *,
    every: float = 0.0,
) -> Response:
    """Server-sent events: the record's state now, then after each change (``every`` seconds
    after it), until it is final. The state is the record's shared snapshot (``Snapshots``:
    built once per change for all its streams, in threads of its own); at most
    ``SiteLimits.streams`` streams are open, ``streams_per_client`` of one address."""
    site = site_of(request)
    client = request.client.host if request.client else ""
    site.streams.take(retry_after=5)
    try:
        site.client_streams.take(client, retry_after=5)
    except BaseException:
        site.streams.give()
        raise

    def give() -> None:
        site.client_streams.give(client)
        site.streams.give()

    try:
        first = await site.snapshots.latest(key, event, state)  # a 404 before the stream starts
    except BaseException:
        give()
        raise

    async def events() -> AsyncIterator[bytes]:
        snapshot, sent, number = first, b"", 0
        while True:
            if snapshot.event != sent:
                number += 1
                yield b"id: %d\n" % number + snapshot.event
                sent = snapshot.event
            if snapshot.final:
                return
            while not await site.changes.wait(key, snapshot.version, site.limits.keepalive):
                yield KEEPALIVE
            if every:
                await asyncio.sleep(every)  # the changes of that time: one build
            snapshot = await site.snapshots.latest(key, event, state)

    return _Stream(events(), give)


class _Stream(StreamingResponse):
    """An event stream that gives its slots back however it ends: its last event sent, the
    client gone, or the connection lost before its first byte (when the events' generator
    never started, its own ``finally`` would never run)."""

    def __init__(self, events: AsyncIterator[bytes], ended: Callable[[], None]) -> None:
        super().__init__(
            events,
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )
        self.ended = ended

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.ended()
