"""uvicorn on a socket bound first, so the address is known (and printed) before it serves.

``arena serve`` (``web._serve_site``) and ``arena view`` (``web._local``) bind
their socket here, then serve on it; ``BackgroundServer`` serves on one in a
thread, for tests and benchmarks.
"""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType
from typing import Final

import uvicorn
from starlette.types import ASGIApp

from arena import ArenaError

__all__ = ["LOOPBACK", "BackgroundServer", "bind", "quiet_server", "serve", "url_of"]

LOOPBACK: Final = "127.0.0.1"


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on (host, port); port 0 takes a free one. ArenaError if taken."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    except (OSError, UnicodeError) as exc:
        raise ArenaError(f"cannot listen on {host}:{port}: {exc}") from None
    # IPPROTO_TCP named explicitly: asyncio turns Nagle's algorithm off (TCP_NODELAY)
    # only on sockets that say so, and a response written in two parts (headers,
    # then body) would otherwise wait for the client's delayed ACK on every request
    # of a kept-alive connection (docs/benchmarks.md has what that cost).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise ArenaError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock


def url_of(sock: socket.socket) -> str:
    """The http:// address of a bound socket, with a trailing slash."""
    host, port = sock.getsockname()[:2]
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}/"


def quiet_server(app: ASGIApp) -> uvicorn.Server:
    """A uvicorn server of ``app`` that logs warnings only, with no lifespan events."""
    return uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))


def serve(app: ASGIApp, sock: socket.socket) -> None:
    """Serve ``app`` on ``sock`` in this thread until interrupted (Ctrl-C)."""
    quiet_server(app).run(sockets=[sock])


class BackgroundServer:
    """``app`` served by uvicorn on a free port of 127.0.0.1 in a thread, for tests and benchmarks.

    Use as a context manager; ``url`` is the address (with a trailing slash).
    """

    def __init__(self, app: ASGIApp) -> None:
        self._app = app
        self._sock = bind(LOOPBACK, 0)
        self.url = url_of(self._sock)
        self._server = quiet_server(app)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True
        )

    def __enter__(self) -> BackgroundServer:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the background web server did not start")
            time.sleep(0.01)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.should_exit = True
        # Browsers keep connections open: do not wait for them to go.
        self._server.force_exit = True
        self._thread.join(timeout=10)
        self._sock.close()
