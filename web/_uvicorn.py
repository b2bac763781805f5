"""uvicorn on a socket bound first, so the address is known (and printed) before it serves.

``arena serve`` (``web._serve_site``) and ``arena view`` (``web._local``) bind
their socket here, then serve on it; the bench's ``BackgroundServer`` serves
on one in a thread. Every server's connections are bounded
(``web._connections``: a header deadline, a bound on connections and on those
one client keeps waiting).
"""

from __future__ import annotations

import signal
import socket
import threading
from types import FrameType
from typing import Any, Final

import uvicorn
from starlette.types import ASGIApp

from arena import ArenaError
from web._connections import (
    ConnectionLimits,
    guarded_protocol,
    quiet_accept_errors,
    raise_open_files,
)

__all__ = [
    "LOOPBACK",
    "bind",
    "quiet_server",
    "run_until_stopped",
    "serve",
    "server_config",
    "url_of",
]

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


def server_config(
    app: ASGIApp, limits: ConnectionLimits | None = None, **options: Any
) -> uvicorn.Config:
    """uvicorn's configuration of ``app`` (``options``: uvicorn's), its connections bounded by
    ``limits`` within this process's file descriptors (raised to their hard limit first)."""
    bounded, backlog = (limits or ConnectionLimits()).within(raise_open_files())
    quiet_accept_errors()
    # proxy_headers off: the client is the address that connected (the per-address bounds
    # see a proxy in front as one client, docs/web.md), never what a header claims.
    return uvicorn.Config(
        app,
        http=guarded_protocol(bounded),
        lifespan="off",
        backlog=backlog,
        proxy_headers=False,
        **options,
    )


def quiet_server(app: ASGIApp, limits: ConnectionLimits | None = None) -> uvicorn.Server:
    """A uvicorn server of ``app`` that logs warnings only, with no lifespan events."""
    return uvicorn.Server(server_config(app, limits, log_level="warning"))


def serve(app: ASGIApp, sock: socket.socket) -> None:
    """Serve ``app`` on ``sock`` in this thread until interrupted (Ctrl-C)."""
    run_until_stopped(quiet_server(app), sock)


def run_until_stopped(server: uvicorn.Server, sock: socket.socket) -> None:
    """Run ``server`` on ``sock`` until it stops: Ctrl-C stops it cleanly at any moment, its
    start included.

    uvicorn takes the signals over only once its loop runs. Before that, Python's own
    handler raises KeyboardInterrupt wherever the start is, and inside asyncio's making of
    its loop that left half a loop behind, whose ``__del__`` printed a traceback at exit.
    Here a Ctrl-C before uvicorn's handlers asks the server to stop, as theirs do (uvicorn
    then starts, sees it, and stops), and the one uvicorn raises again once it has stopped
    lands here too, not as a KeyboardInterrupt.
    """
    if threading.current_thread() is not threading.main_thread():
        server.run(sockets=[sock])  # signals are the main thread's
        return

    def stop(signum: int, frame: FrameType | None) -> None:
        server.should_exit = True

    previous = signal.signal(signal.SIGINT, stop)
    try:
        server.run(sockets=[sock])
    finally:
        signal.signal(signal.SIGINT, previous)
