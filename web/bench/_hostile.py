"""Hostile clients of a real server on 127.0.0.1, for the connection tests and
``arena bench web-hostile``.

``SlowClients`` holds connections that never finish a request's headers (a
"slowloris"): each sends the start of a request and then one byte of a header
at a time, opened from several loopback addresses (``127.0.0.2`` up: all of
``127.0.0.0/8`` is this machine) so that a per-address bound does not close
them all; a connection the server closes is opened again, so the server is
kept as full as it lets itself be. ``EventStreams`` holds event streams open
and reads them, from several addresses too (``loopback_source``).
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading
import time
from types import TracebackType
from typing import Final

__all__ = ["EventStreams", "SlowClients", "loopback_source"]

_START: Final = b"GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "


def loopback_source(index: int) -> str:
    """The ``index``-th loopback address past 127.0.0.1 (127.0.0.2, 127.0.0.3, ...)."""
    index += 2
    return f"127.{index >> 16 & 255}.{index >> 8 & 255}.{index & 255}"


class SlowClients:
    """``count`` connections to 127.0.0.1:``port`` whose request headers never end, from
    ``sources`` loopback addresses in turn, a byte every ``trickle`` seconds; those the
    server closes are opened again (``reopened`` counts them) until the block ends."""

    def __init__(self, port: int, count: int, *, sources: int = 1, trickle: float = 1.0) -> None:
        self.port = port
        self.count = count
        self.sources = sources
        self.trickle = trickle
        self.reopened = 0
        """Connections the server closed, opened again."""
        self._socks: list[socket.socket | None] = [None] * count
        self._selector = selectors.DefaultSelector()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._keep, name="slow-clients", daemon=True)

    @property
    def held(self) -> int:
        """Connections open now."""
        return sum(s is not None for s in self._socks)

    def _open(self, i: int) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.bind((loopback_source(i % self.sources), 0))
            sock.settimeout(5)
            sock.connect(("127.0.0.1", self.port))
            sock.sendall(_START)
            sock.setblocking(False)
        except OSError:
            sock.close()
            return
        self._socks[i] = sock
        self._selector.register(sock, selectors.EVENT_READ, i)

    def _drop(self, i: int) -> None:
        sock = self._socks[i]
        if sock is not None:
            self._selector.unregister(sock)
            sock.close()
            self._socks[i] = None

    def _keep(self) -> None:
        """Notice the connections closed; every ``trickle`` seconds, a byte on each and those
        closed opened again; until stopped."""
        last = time.monotonic()
        while not self._stop.is_set():
            for key, _ in self._selector.select(timeout=0.05) if self.held else ():
                i: int = key.data
                ready: socket.socket = key.fileobj  # type: ignore[assignment]
                try:
                    closed = not ready.recv(4096)
                except BlockingIOError:
                    continue
                except OSError:
                    closed = True
                if closed:
                    self._drop(i)
            if not self.held:
                self._stop.wait(0.05)
            if time.monotonic() - last < self.trickle:
                continue
            last = time.monotonic()
            for i, held in enumerate(self._socks):
                if held is None:
                    self._open(i)
                    self.reopened += self._socks[i] is not None
                    continue
                try:
                    held.send(b"x")
                except OSError:
                    self._drop(i)

    def __enter__(self) -> SlowClients:
        for i in range(self.count):
            self._open(i)
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        for i in range(self.count):
            with contextlib.suppress(OSError, KeyError):
                self._drop(i)
        self._selector.close()


class EventStreams:
    """``count`` event streams of ``path`` on 127.0.0.1:``port``, from ``sources`` loopback
    addresses in turn, read (and dropped) by one thread as they come; ``events`` counts the
    events read, ``open`` the streams the server still sends."""

    def __init__(self, port: int, path: str, count: int, *, sources: int = 1) -> None:
        self.port = port
        self.path = path
        self.count = count
        self.sources = sources
        self.events = 0
        self.refused = 0
        """Streams the server did not open (its answer was not a 200)."""
        self._selector = selectors.DefaultSelector()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, name="event-streams", daemon=True)

    @property
    def open(self) -> int:
        """Streams open now."""
        return len(self._selector.get_map())

    def _open(self, i: int) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind((loopback_source(i % self.sources), 0))
        sock.settimeout(10)
        sock.connect(("127.0.0.1", self.port))
        sock.sendall(f"GET {self.path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        head = sock.recv(65536)
        if not head.startswith(b"HTTP/1.1 200 "):
            self.refused += 1
            sock.close()
            return
        self.events += head.count(b"\nevent: ")
        sock.setblocking(False)
        self._selector.register(sock, selectors.EVENT_READ)

    def _read(self) -> None:
        while not self._stop.is_set():
            for key, _ in self._selector.select(timeout=0.1) if self.open else ():
                sock: socket.socket = key.fileobj  # type: ignore[assignment]
                try:
                    data = sock.recv(1 << 20)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if not data:
                    self._selector.unregister(sock)
                    sock.close()
                self.events += data.count(b"\nevent: ") + data.startswith(b"event: ")
            if not self.open:
                self._stop.wait(0.1)

    def __enter__(self) -> EventStreams:
        for i in range(self.count):
            self._open(i)
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        for key in list(self._selector.get_map().values()):
            with contextlib.suppress(OSError):
                key.fileobj.close()  # type: ignore[union-attr]
        self._selector.close()
