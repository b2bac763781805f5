"""Live updates: which records changed, told to the asyncio tasks that stream them (SSE).

The worker lanes' thread (and the request threads) change matches and
tournaments; the server-sent-event streams run as asyncio tasks of whatever
loop serves them (uvicorn's, or a test client's). ``Changes`` keeps a version
number per key and wakes the tasks waiting on a key with
``loop.call_soon_threadsafe``, so a writer never blocks on a reader. A stream
reads the record's whole state after each wake-up: a late or slow reader
never misses the end, it only skips steps in between.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Hashable
from typing import Any, Final

__all__ = ["KEEPALIVE", "Changes", "sse"]

KEEPALIVE: Final = b": keep-alive\n\n"
"""An SSE comment: keeps proxies and browsers from closing an idle stream."""


def sse(event: str, data: Any, ident: int | None = None) -> bytes:
    """One server-sent event: ``event`` and ``data`` as one line of JSON."""
    text = json.dumps(data, separators=(",", ":"), allow_nan=False)
    head = f"id: {ident}\n" if ident is not None else ""
    return f"{head}event: {event}\ndata: {text}\n\n".encode()


class Changes:
    """Version numbers per key; ``wait`` (asyncio) until a key moves past a version seen."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._versions: dict[Hashable, int] = {}
        self._waiters: dict[Hashable, list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]]]
        self._waiters = {}

    def version(self, key: Hashable) -> int:
        """The key's version now (0 if it never changed)."""
        with self._lock:
            return self._versions.get(key, 0)

    def bump(self, *keys: Hashable) -> None:
        """``keys`` changed: wake everyone waiting on them (callable from any thread)."""
        woken = []
        with self._lock:
            for key in keys:
                self._versions[key] = self._versions.get(key, 0) + 1
                woken += self._waiters.pop(key, [])
        for loop, future in woken:
            # A loop that has closed has nobody waiting any more.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(_wake, future)

    async def wait(self, key: Hashable, seen: int, timeout: float) -> bool:
        """Wait until ``key`` is past version ``seen``; False if ``timeout`` seconds pass first."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        entry = (loop, future)
        with self._lock:
            if self._versions.get(key, 0) != seen:
                return True
            self._waiters.setdefault(key, []).append(entry)
        try:
            await asyncio.wait_for(future, timeout)
            return True
        except TimeoutError:
            return False
        finally:
            with self._lock:
                waiting = self._waiters.get(key)
                if waiting is not None and entry in waiting:
                    waiting.remove(entry)
                    if not waiting:
                        del self._waiters[key]

    def waiting(self) -> int:
        """How many waits are pending (for tests and statistics)."""
        with self._lock:
            return sum(len(w) for w in self._waiters.values())


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
