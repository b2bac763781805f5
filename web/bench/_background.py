"""An app served by uvicorn in a thread of this process, for the browser tests and the bench."""

from __future__ import annotations

import threading
import time
from types import TracebackType

from starlette.types import ASGIApp

from web._connections import ConnectionLimits
from web._uvicorn import LOOPBACK, bind, quiet_server, url_of

__all__ = ["BackgroundServer"]


class BackgroundServer:
    """``app`` served by uvicorn on a free port of 127.0.0.1 in a thread, for tests and benchmarks.

    Use as a context manager; ``url`` is the address (with a trailing slash). Its
    connections are bounded as ``arena serve``'s are, by ``limits`` (default: the same).
    """

    def __init__(self, app: ASGIApp, limits: ConnectionLimits | None = None) -> None:
        self._app = app
        self._sock = bind(LOOPBACK, 0)
        self.url = url_of(self._sock)
        self.port: int = self._sock.getsockname()[1]
        self._server = quiet_server(app, limits)
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
