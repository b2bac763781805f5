"""Live updates: which records changed, told to the asyncio tasks that stream them (SSE).

The worker lanes' thread (and the request threads) change matches and
tournaments; the server-sent-event streams run as asyncio tasks of whatever
loop serves them (uvicorn's, or a test client's). ``Changes`` keeps a version
number per key and wakes the tasks waiting on a key with
``loop.call_soon_threadsafe``, so a writer never blocks on a reader. A stream
reads the record's whole state after each wake-up: a late or slow reader
never misses the end, it only skips steps in between.

``Snapshots`` builds that state once per change and shares it among the
streams of a record (its event, encoded once), in threads of its own: a
tournament's JSON reads every match it has, and two hundred streams each
building it after every match recorded filled the threads the write
handlers wait on. At most one build of a record runs at a time; a stream
that finds one under way waits for it; and a record that takes long to
build is built less often (``Snapshots.SPACING``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Final

__all__ = ["KEEPALIVE", "Changes", "Snapshot", "Snapshots", "sse"]

KEEPALIVE: Final = b": keep-alive\n\n"
"""An SSE comment: keeps proxies and browsers from closing an idle stream."""


def sse(event: str, data: Any, ident: int | None = None) -> bytes:
    """One server-sent event: ``event`` and ``data`` as one line of JSON."""
    text = json.dumps(data, separators=(",", ":"), allow_nan=False)
    head = f"id: {ident}\n" if ident is not None else ""
    return f"{head}event: {event}\ndata: {text}\n\n".encode()


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A record's state at one version, as one event: built once, sent by every stream."""

    version: int
    """The record's version when the build started: it shows that version or a later one."""
    event: bytes
    """The event, without an ``id`` line: each stream numbers its own."""
    final: bool
    """The record will not change again: its streams end after this."""
    ended: float = 0.0
    """When the build ended (``time.monotonic``)."""
    took: float = 0.0
    """Seconds the build took."""


_Build = Callable[[], tuple[Any, bool]]
"""Reads a record's state now: (its JSON, whether it is final)."""


class Snapshots:
    """Each record's latest ``Snapshot``, built in ``workers`` threads of its own, one build of a
    record at a time, shared by all its streams (see the module's doc)."""

    KEPT: Final = 64
    """Records whose latest snapshot is kept (the most recently built)."""
    SPACING: Final = 4.0
    """A record's next build starts no sooner than this many times its last build's length
    after it: a large tournament, which takes long to read, is read less often, so its
    builds take at most a fifth of a thread, however many matches it has."""

    def __init__(self, changes: Changes, workers: int = 2) -> None:
        self._changes = changes
        # Its idle threads end with it (the executor's own weak reference), so the site
        # that holds it needs no step to stop them.
        self._pool = concurrent.futures.ThreadPoolExecutor(workers, "event-streams")
        self._lock = threading.Lock()
        self._latest: OrderedDict[Hashable, tuple[int, concurrent.futures.Future[Snapshot]]]
        self._latest = OrderedDict()
        self.builds = 0
        """Builds started (for tests and statistics)."""

    async def latest(self, key: Hashable, event: str, build: _Build) -> Snapshot:
        """The state of ``key`` as of now or later: the snapshot built (or being built) since
        its last change, else a new build. An error of the build (a 404) is raised."""
        wanted = self._changes.version(key)
        while True:
            with self._lock:
                found = self._latest.get(key)
                stale = found is None or (found[0] < wanted and found[1].done())
                wait = 0.0 if found is None or not stale else self._rest(found[1])
                if stale and wait <= 0:
                    version = self._changes.version(key)
                    future = self._pool.submit(self._build, version, event, build)
                    self.builds += 1
                    found = self._latest[key] = (version, future)
                    self._latest.move_to_end(key)
                    while len(self._latest) > self.KEPT:
                        self._latest.popitem(last=False)
            if wait > 0:
                await asyncio.sleep(wait)  # the build before was long: let it rest first
                continue
            assert found is not None
            try:
                snapshot = await asyncio.wrap_future(found[1])
            except BaseException:
                with self._lock:  # a failure is not kept: the record may exist by the next call
                    if self._latest.get(key) is found:
                        del self._latest[key]
                raise
            if snapshot.version >= wanted:
                return snapshot
            # An older build was under way: it is done now, so the next one starts.

    def _rest(self, done: concurrent.futures.Future[Snapshot]) -> float:
        """Seconds until the record of the finished build ``done`` may be built again."""
        if done.cancelled() or done.exception() is not None:
            return 0.0
        last = done.result()
        return last.ended + self.SPACING * last.took - time.monotonic()

    @staticmethod
    def _build(version: int, event: str, build: _Build) -> Snapshot:
        began = time.monotonic()
        data, final = build()
        ended = time.monotonic()
        return Snapshot(version, sse(event, data), final, ended, ended - began)


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
