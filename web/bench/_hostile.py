"""Hostile clients of a real server on 127.0.0.1, for the connection tests and ``arena bench web``.

``SlowClients`` holds connections that never finish a request's headers (a
"slowloris"): each sends the start of a request and then one byte of a header
at a time, opened from several loopback addresses (``127.0.0.2`` up: all of
``127.0.0.0/8`` is this machine) so that a per-address bound does not close
them all; a connection the server closes is opened again, so the server is
kept as full as it lets itself be. ``loopback_source`` names those addresses
for other clients too (the event streams of the bench).
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading
import time
from types import TracebackType
from typing import Final

__all__ = ["SlowClients", "loopback_source"]

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
