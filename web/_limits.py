"""How much the site takes on at once (``SiteLimits``), and the counter that holds each bound.

Every bound is counted before the work it bounds starts (a body read, a row
written, a worker call), so a request refused with 429 leaves nothing behind.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import arena
from web._errors import ApiError
from web._schemas import MAX_FIELD

__all__ = ["ClientSlots", "SiteLimits", "Slots"]


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
    max_field: int = MAX_FIELD
    """Most entrants in a tournament started from the server (a round-robin of 256 on one
    seed is 65,280 matches: docs/tournaments.md has what a field that size costs)."""
    max_seeds: int = 16
    """Most seeds in a tournament started from the server (each meeting plays each twice)."""
    streams: int = 256
    """Server-sent event streams open at once; past it, 429."""
    streams_per_client: int = 16
    """Server-sent event streams one client (a peer address) keeps open at once; past it, 429."""
    live_every: float = 0.5
    """Seconds a tournament's event streams wait after a change before its state is read
    again, so that the matches recorded meanwhile make one build, not one each."""
    body_timeout: float = 30.0
    """Seconds a request may take to send its body (a slow body gets 408)."""
    keepalive: float = 15.0
    """Seconds between keep-alive comments on an idle event stream."""
    keep_quick: int = 1_000
    """Quick matches kept for review (settled, not published); past it, the oldest are
    deleted with their replay files (``Store.keep_quick_matches``)."""


class Slots:
    """A counter with a ceiling: ``take`` or ``ApiError`` 429 naming ``what`` is full."""

    def __init__(self, limit: int, what: str) -> None:
        self.limit = limit
        self.what = what
        self.used = 0
        self._lock = threading.Lock()

    def take(self, retry_after: int, *, force: bool = False) -> None:
        """Take a slot, or 429 with a Retry-After of ``retry_after`` seconds; ``force`` takes
        one past the ceiling (work accepted already, such as a match queued again)."""
        with self._lock:
            if self.used >= self.limit and not force:
                raise ApiError(
                    429,
                    f"{self.what}: {self.used} of {self.limit} already; try again later",
                    headers={"Retry-After": str(retry_after)},
                )
            self.used += 1

    def give(self) -> None:
        """Give a slot back."""
        with self._lock:
            self.used = max(0, self.used - 1)

    @contextmanager
    def held(self, retry_after: int) -> Iterator[None]:
        """A slot for the block (``take``, then ``give`` however the block ends)."""
        self.take(retry_after)
        try:
            yield
        finally:
            self.give()


class ClientSlots:
    """``Slots`` counted per client (a peer address): ``take`` or ``ApiError`` 429."""

    def __init__(self, limit: int, what: str) -> None:
        self.limit = limit
        self.what = what
        self._used: dict[str, int] = {}
        self._lock = threading.Lock()

    def take(self, client: str, retry_after: int) -> None:
        """Take one of ``client``'s slots, or 429 with a Retry-After of ``retry_after`` s."""
        with self._lock:
            used = self._used.get(client, 0)
            if used >= self.limit:
                raise ApiError(
                    429,
                    f"{self.what}: {used} of {self.limit} from this address already;"
                    " try again later",
                    headers={"Retry-After": str(retry_after)},
                )
            self._used[client] = used + 1

    def give(self, client: str) -> None:
        """Give one of ``client``'s slots back."""
        with self._lock:
            used = self._used.pop(client, 0) - 1
            if used > 0:
                self._used[client] = used
