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
from typing import Final, Self

__all__ = ["EventStreams", "SlowClients", "loopback_source"]

_START: Final = b"GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "


def loopback_source(index: int) -> str:
    """The ``index``-th loopback address past 127.0.0.1 (127.0.0.2, 127.0.0.3, ...)."""
    index += 2
    return f"127.{index >> 16 & 255}.{index >> 8 & 255}.{index & 255}"


class _Held:
    """``count`` connections to 127.0.0.1:``port`` from ``sources`` loopback addresses in
    turn, watched by one thread of their own (``_watch``) until the block ends."""

    def __init__(self, port: int, count: int, sources: int, name: str) -> None:
        self.port = port
        self.count = count
        self.sources = sources
        self._selector = selectors.DefaultSelector()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name=name, daemon=True)

    @property
    def held(self) -> int:
        """Connections open now."""
        return len(self._selector.get_map())

    def _connect(self, i: int, request: bytes) -> socket.socket | None:
        """Connection ``i``, ``request`` sent on it (None if it could not be made)."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.bind((loopback_source(i % self.sources), 0))
            sock.settimeout(10)
            sock.connect(("127.0.0.1", self.port))
            sock.sendall(request)
        except OSError:
            sock.close()
            return None
        return sock

    def _hold(self, sock: socket.socket, i: int) -> None:
        sock.setblocking(False)
        self._selector.register(sock, selectors.EVENT_READ, i)

    def _drop(self, sock: socket.socket) -> None:
        self._selector.unregister(sock)
        sock.close()

    def _readable(self) -> list[tuple[socket.socket, bytes]]:
        """The connections with something to read, and what (empty: closed, now dropped)."""
        ready = []
        for key, _ in self._selector.select(timeout=0.05) if self.held else ():
            sock: socket.socket = key.fileobj  # type: ignore[assignment]
            try:
                data = sock.recv(1 << 20)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data:
                self._drop(sock)
            ready.append((sock, data))
        if not self.held:
            self._stop.wait(0.05)
        return ready

    def _open(self, i: int) -> bool:
        """Open connection ``i``; whether it is held."""
        raise NotImplementedError

    def _watch(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
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


class SlowClients(_Held):
    """``count`` connections to 127.0.0.1:``port`` whose request headers never end, from
    ``sources`` loopback addresses in turn, a byte every ``trickle`` seconds; those the
    server closes are opened again (``reopened`` counts them) until the block ends."""

    def __init__(self, port: int, count: int, *, sources: int = 1, trickle: float = 1.0) -> None:
        super().__init__(port, count, sources, "slow-clients")
        self.trickle = trickle
        self.reopened = 0
        """Connections the server closed, opened again."""

    def _open(self, i: int) -> bool:
        sock = self._connect(i, _START)
        if sock is not None:
            self._hold(sock, i)
        return sock is not None

    def _watch(self) -> None:
        """Every ``trickle`` seconds, a byte on each connection and those closed opened
        again; until stopped."""
        last = time.monotonic()
        while not self._stop.is_set():
            self._readable()
            if time.monotonic() - last < self.trickle:
                continue
            last = time.monotonic()
            open_now = {key.data: key.fileobj for key in self._selector.get_map().values()}
            for i in range(self.count):
                sock: socket.socket | None = open_now.get(i)  # type: ignore[assignment]
                if sock is None:
                    self.reopened += self._open(i)
                    continue
                try:
                    sock.send(b"x")
                except OSError:
                    self._drop(sock)


class EventStreams(_Held):
    """``count`` event streams of ``path`` on 127.0.0.1:``port``, from ``sources`` loopback
    addresses in turn, read (and dropped) by one thread as they come; ``events`` counts the
    events read, ``held`` the streams the server still sends, ``refused`` those it did not
    open (its answer was not a 200)."""

    def __init__(self, port: int, path: str, count: int, *, sources: int = 1) -> None:
        super().__init__(port, count, sources, "event-streams")
        self.path = path
        self.events = 0
        self.refused = 0

    def _open(self, i: int) -> bool:
        request = f"GET {self.path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
        sock = self._connect(i, request)
        head = b"" if sock is None else sock.recv(65536)
        if sock is None or not head.startswith(b"HTTP/1.1 200 "):
            self.refused += 1
            if sock is not None:
                sock.close()
            return False
        self.events += head.count(b"\nevent: ")
        self._hold(sock, i)
        return True

    def _watch(self) -> None:
        while not self._stop.is_set():
            for _, data in self._readable():
                self.events += data.count(b"\nevent: ") + data.startswith(b"event: ")
