"""The server's connections under hostile clients: how many, how long a request's headers may take,
and how many one client may hold waiting; refusals logged a few lines at a time.

uvicorn gives a connection all the time it wants to send its headers and
takes as many connections as there are file descriptors: a client that opens
a few hundred and never finishes a request holds them all, and once the
process runs out of descriptors every ``accept()`` fails and asyncio logs a
traceback for each. Here, with uvicorn's own ``HttpToolsProtocol`` extended
(``guarded_protocol``, given to uvicorn's ``Config(http=...)``; httptools
parses in C, where h11 parses in Python, which cost more than the site's own
work on a small answer: docs/decisions.md):

- **A header deadline**: a request's headers must be whole within
  ``header_timeout`` seconds of the connection, or of the end of the previous
  response on a kept-alive connection; else the connection is closed. Bytes
  trickling in do not move the deadline (uvicorn's keep-alive timer restarts
  at every byte). A request being answered has no deadline here: its body has
  the site's own (408), its answer may stream for as long as it needs.
- **A bound on connections** (``max_connections``, below the process's file
  descriptors, whose soft limit is raised to the hard one at start:
  ``raise_open_files``, with room for what asyncio accepts at a time, the
  listen backlog: ``ConnectionLimits.within``): past it, the connection that has waited longest for
  its headers is closed to make room (an honest client sends its headers at
  once, so the ones waiting are the slow ones); if none waits, the new one is
  refused.
- **A bound on a request's headers** (``max_header_bytes``, h11's own 16 KiB),
  however the bytes arrive: while the headers are not whole, the bytes read
  since the request's first byte count against it (a read that ends one
  request's body and begins the next one's counts whole); once they are whole,
  if what was read could be past it, the request line and headers as parsed
  (written plainly: a colon and a space, CRLF). Past it the answer is 431 and
  the connection is closed; so too for a request pipelined behind an answer
  still being sent. httptools keeps every header it is given; h11 refused past
  the same size.
- **Per client** (by peer address): at most ``waiting_per_client``
  connections waiting for their headers; past it the oldest of them is closed.
  A client sending real requests is never held back by it, even one on the
  same address as a slow one. Behind a proxy every client has the proxy's
  address: the proxy then bounds its clients itself.
- **Refusals are logged a line at a time** (``Throttled``): at most one line
  per kind per ``LOG_EVERY`` seconds, counting the rest, and asyncio's
  ``accept()`` failures lose their traceback (``quiet_accept_errors``).

A connection upgraded to a WebSocket (a worker's) is its WebSocket protocol's
from then on: it leaves these bounds.

Two things here are for speed, not bounds: one timer per server keeps every
connection's header deadline (the earliest's), and an answer's head goes out
in one write with its body when the body's length is known and at most
``HELD_BODY_BYTES`` (uvicorn writes the two as they come: two system calls).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import resource
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import ClassVar, Final

import httptools
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle

__all__ = [
    "LOG_EVERY",
    "ConnectionLimits",
    "Throttled",
    "guarded_protocol",
    "quiet_accept_errors",
    "raise_open_files",
]

_log = logging.getLogger("web")

LOG_EVERY: Final = 10.0
"""Seconds between two log lines of one kind of refusal (the others are counted)."""

_RESERVED_FILES: Final = 128
"""File descriptors kept for what is not a connection: the store, replays being sent,
the worker processes' pipes, the compile cache."""


@dataclass(frozen=True, slots=True)
class ConnectionLimits:
    """How many connections the server holds and how long a request's headers may take
    (docs/web.md, "Connections")."""

    max_connections: int = 4096
    """Connections open at once (fewer if the process has too few file descriptors)."""
    waiting_per_client: int = 32
    """Connections of one peer address waiting for a request's headers at once."""
    header_timeout: float = 10.0
    """Seconds a request's headers may take, from the connection or the previous answer."""
    max_header_bytes: int = 16 * 1024
    """Bytes a request's line and headers may take (431 past it)."""

    def within(self, open_files: int) -> tuple[ConnectionLimits, int]:
        """These limits within ``open_files`` descriptors, and the listen backlog to use.

        asyncio accepts up to a backlog's worth of connections at a time, each a
        descriptor, before any is looked at, and one it closes frees its
        descriptor a turn of the loop later: so the connections held, two
        backlogs and a reserve must fit, or ``accept()`` fails.
        """
        backlog = min(2048, max(64, open_files // 8))
        most = max(32, open_files - _RESERVED_FILES - 2 * backlog)
        bounded = dataclasses.replace(self, max_connections=min(self.max_connections, most))
        return bounded, backlog


def raise_open_files() -> int:
    """Raise this process's soft limit on open files to its hard limit; the limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
    return soft


class Throttled:
    """One kind of log line, written at most once per ``every`` seconds; the rest are counted
    and told in the next line."""

    def __init__(self, logger: logging.Logger, what: str, every: float = LOG_EVERY) -> None:
        self.logger = logger
        self.what = what
        self.every = every
        self._last = -float("inf")
        self._since = 0

    def allow(self) -> int | None:
        """None if a line was written too recently (this one is counted); else how many were
        left out since the last line."""
        now = time.monotonic()
        if now - self._last < self.every:
            self._since += 1
            return None
        self._last, skipped, self._since = now, self._since, 0
        return skipped

    def note(self, detail: str = "") -> None:
        """Log ``what`` (and ``detail``), unless a line was written less than ``every`` ago."""
        skipped = self.allow()
        if skipped is None:
            return
        more = f" ({skipped} more since the last line)" if skipped else ""
        self.logger.warning("%s%s%s", self.what, f": {detail}" if detail else "", more)


class _AcceptErrors(logging.Filter):
    """asyncio's ``socket.accept() out of system resource``: one line, no traceback, at most
    once per ``LOG_EVERY`` seconds."""

    MESSAGE: ClassVar[str] = "socket.accept() out of system resource"

    def __init__(self) -> None:
        super().__init__()
        self.throttled = Throttled(logging.getLogger("asyncio"), self.MESSAGE)

    def filter(self, record: logging.LogRecord) -> bool:
        if not record.getMessage().startswith(self.MESSAGE):
            return True
        skipped = self.throttled.allow()
        if skipped is None:
            return False
        reason = record.exc_info[1] if record.exc_info else None
        record.msg = "%s (%s): connections wait in the backlog%s"
        record.args = (
            self.MESSAGE,
            reason,
            f" ({skipped} more since the last line)" if skipped else "",
        )
        record.exc_info = None
        record.exc_text = None
        return True


_ACCEPT_FILTER: Final = _AcceptErrors()


def quiet_accept_errors() -> None:
    """Make asyncio's failed ``accept()`` one line every ``LOG_EVERY`` seconds (idempotent)."""
    logger = logging.getLogger("asyncio")
    if _ACCEPT_FILTER not in logger.filters:
        logger.addFilter(_ACCEPT_FILTER)


class _Tally:
    """The connections of one server: open ones, and those waiting for a request's headers
    (oldest first, in all and by peer)."""

    def __init__(self, limits: ConnectionLimits) -> None:
        self.limits = limits
        self.open: set[_GuardedProtocol] = set()
        # Each waiting connection's header deadline, in the order they began to wait: all
        # wait as long, so the first is the next one due, and one timer for the server
        # (at the first's deadline) does what a timer made and cancelled for every request
        # did, without that work on every answer.
        self.waiting: OrderedDict[_GuardedProtocol, float] = OrderedDict()
        self.timer: asyncio.TimerHandle | None = None
        self.timer_loop: asyncio.AbstractEventLoop | None = None
        self.waiting_by_peer: dict[str, OrderedDict[_GuardedProtocol, None]] = {}
        self.refused = Throttled(_log, "connection refused: the server holds its most")
        self.evicted = Throttled(_log, "connection closed to make room: it sent no request")
        self.crowded = Throttled(
            _log, "connection closed: its client holds its most connections sending no request"
        )
        self.slow = Throttled(_log, "connection closed: its request's headers were too slow")
        self.large = Throttled(_log, "request refused (431): its headers were too large")

    def arm(self, loop: asyncio.AbstractEventLoop) -> None:
        """The timer at the first waiting connection's deadline, unless one is set on ``loop``
        already (one set on another loop, by a run of the server since ended, is forgotten)."""
        if self.timer is not None and self.timer_loop is not loop:
            self.timer = None
        if self.timer is None and self.waiting:
            self.timer_loop = loop
            deadline = next(iter(self.waiting.values()))
            self.timer = loop.call_at(deadline, self._sweep, loop)

    def _sweep(self, loop: asyncio.AbstractEventLoop) -> None:
        """Close the connections past their header deadline; the timer at the next one's."""
        self.timer = None
        now = loop.time()
        while self.waiting:
            protocol, deadline = next(iter(self.waiting.items()))
            if deadline > now:
                break
            protocol.too_slow()  # it leaves ``waiting``
        self.arm(loop)


_TOO_LARGE: Final = b"request header fields too large"
_ANSWER_431: Final = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
    b"content-type: text/plain; charset=utf-8\r\n"
    b"content-length: " + str(len(_TOO_LARGE)).encode() + b"\r\n"
    b"connection: close\r\n\r\n" + _TOO_LARGE
)


class _HeadersTooLarge(Exception):
    """Raised from the parser's ``on_headers_complete`` to stop it at a request whose headers,
    whole, are past the bound."""


class _GuardedProtocol(HttpToolsProtocol):
    """uvicorn's HTTP/1.1 protocol with a header deadline and bounds on connections and
    headers (see the module). One subclass per server (``guarded_protocol``) holds that
    server's tally."""

    tally: ClassVar[_Tally]

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._in_headers = False
        self._header_bytes = 0
        self._read_bytes = 0
        self._too_large = False
        self._peer = self.client[0] if self.client else ""
        tally = self.tally
        if len(tally.open) >= tally.limits.max_connections:
            oldest = next(iter(tally.waiting), None)
            if oldest is None:
                tally.refused.note(f"{tally.limits.max_connections} connections open")
                transport.close()
                return
            tally.evicted.note(f"{tally.limits.max_connections} connections open")
            oldest.close()
        tally.open.add(self)
        self._await_headers()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self._headers_came()
        self.tally.open.discard(self)

    def data_received(self, data: bytes) -> None:
        # uvicorn's own (``HttpToolsProtocol.data_received``) but for headers found too
        # large when whole: httptools makes the callback's exception a parser error, which
        # uvicorn would answer 400 (with a log line per request, not ``Throttled``).
        self._read_bytes = len(data)
        self._unset_keepalive_if_required()
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError:
            if self._too_large:
                self._refuse_too_large()
                return
            msg = "Invalid HTTP request received."
            self.logger.warning(msg)
            self.send_400_response(msg)
            return
        except httptools.HttpParserUpgrade:
            if self._should_upgrade():
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()
        if not self._in_headers:
            return  # no request begun, or its headers came whole in this data (measured then)
        # A request's line and headers have begun and are not whole: the first request's
        # or one pipelined behind an answer (the deadline covers only the first).
        self._header_bytes += len(data)
        if self._header_bytes > self.tally.limits.max_header_bytes:
            self._refuse_too_large()

    def _refuse_too_large(self) -> None:
        """Answer 431 and close: the request's headers are past the bound."""
        self.tally.large.note(f"over {self.tally.limits.max_header_bytes} bytes")
        self._in_headers = False
        self._headers_came()
        self.transport.write(_ANSWER_431)
        self.transport.close()

    def _parsed_header_bytes(self) -> int:
        """The request's line and headers as parsed, written plainly: a space between the
        line's parts, a colon and a space after a name, CRLF after each line and at the end."""
        line = len(self.parser.get_method()) + 1 + len(self.url) + len(b" HTTP/1.1\r\n")
        return line + sum(len(name) + len(value) + 4 for name, value in self.headers) + 2

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_headers = True
        self._header_bytes = 0

    def on_headers_complete(self) -> None:
        self._in_headers = False
        self._headers_came()  # a request is being answered (or upgraded)
        limit = self.tally.limits.max_header_bytes
        # Headers whole in the read that ended them were not counted as they came: measured
        # now, but only when the bytes read for them could be past the bound (a cheap test
        # for every request, the sum for few).
        if self._header_bytes + self._read_bytes > limit and self._parsed_header_bytes() > limit:
            self._too_large = True
            raise _HeadersTooLarge  # stops the parser: data_received answers 431
        cycle = self.cycle
        super().on_headers_complete()
        if self.cycle is not cycle:  # a new answer (an upgrade makes none)
            self.cycle.transport = _HeadWithBody(self.transport, self.cycle)  # type: ignore[assignment]

    def handle_websocket_upgrade(self) -> None:
        self.tally.open.discard(self)  # the WebSocket protocol takes the connection
        super().handle_websocket_upgrade()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        idle = self.cycle is None or self.cycle.response_complete
        if idle and not self.transport.is_closing():
            self._await_headers()  # the next request's headers: from now on

    def close(self) -> None:
        """Close the connection, which waits for a request (nothing of an answer is lost)."""
        self._headers_came()
        self.transport.close()

    def _await_headers(self) -> None:
        tally = self.tally
        self._headers_came()
        tally.waiting[self] = self.loop.time() + tally.limits.header_timeout
        tally.arm(self.loop)
        mine = tally.waiting_by_peer.setdefault(self._peer, OrderedDict())
        mine[self] = None
        if len(mine) > tally.limits.waiting_per_client:
            tally.crowded.note(f"{self._peer} has {len(mine)} waiting")
            next(iter(mine)).close()

    def _headers_came(self) -> None:
        tally = self.tally
        tally.waiting.pop(self, None)
        mine = tally.waiting_by_peer.get(self._peer)
        if mine is not None:
            mine.pop(self, None)
            if not mine:
                del tally.waiting_by_peer[self._peer]

    def too_slow(self) -> None:
        """Close the connection: its request's headers are past their deadline."""
        self.tally.slow.note(f"{self.tally.limits.header_timeout:g} s")
        self.close()


HELD_BODY_BYTES: Final = 64 * 1024
"""The longest body whose head is held to go in one write with it (longer: copied for nothing)."""


class _HeadWithBody:
    """One answer's transport: its head, when a body of known length follows, sent in one
    write with the body (one system call and one TCP segment where there were two; a send
    does the kernel's TCP work too: docs/benchmarks.md has what it saves)."""

    __slots__ = ("_cycle", "_head", "_started", "_transport")

    def __init__(self, transport: asyncio.Transport, cycle: RequestResponseCycle) -> None:
        self._transport = transport
        self._cycle = cycle
        self._head: bytes | None = None
        self._started = False

    def write(self, data: bytes) -> None:
        cycle = self._cycle
        if not self._started and cycle.response_started:
            self._started = True  # ``data`` is the head (a 100 Continue comes before it)
            if (
                cycle.chunked_encoding is False
                and 0 < cycle.expected_content_length <= HELD_BODY_BYTES
                and cycle.scope["method"] != "HEAD"
            ):
                self._head = data
                return
        if self._head is not None:
            data, self._head = self._head + data, None
        self._transport.write(data)

    def close(self) -> None:
        if self._head is not None:  # the app failed after its head: sent as it was before
            self._transport.write(self._head)
            self._head = None
        self._transport.close()

    def is_closing(self) -> bool:
        return self._transport.is_closing()


def guarded_protocol(limits: ConnectionLimits) -> type[HttpToolsProtocol]:
    """uvicorn's HttpToolsProtocol bounded by ``limits``, for one server: ``Config(http=...)``."""
    return type("GuardedHttpToolsProtocol", (_GuardedProtocol,), {"tally": _Tally(limits)})
