"""The app of ``arena view``: the viewer of one replay file, with no store and no token."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route

from web._guard import GuardedApp
from web._pages import STATIC_DIR, viewer_page
from web._static import MemoryStaticFiles
from web._stream import replay_response

__all__ = ["static_files", "view_app"]


def static_files() -> MemoryStaticFiles:
    """The static files, to mount at ``/static`` (the pages link them there), from memory."""
    return MemoryStaticFiles(STATIC_DIR)


async def _page(request: Request) -> Response:
    return viewer_page("/replay", request.app.state.replay.name)


def _replay(request: Request) -> Response:
    # Plain def: Starlette runs it in a thread, so opening and checking the file
    # (the header and the first frame) does not hold up the event loop.
    return replay_response(request.app.state.replay)


def view_app(replay: Path, *, allowed_hosts: Collection[str] | None = None) -> Starlette:
    """The viewer of the replay file ``replay``: ``/`` (``?tick=N``), ``/replay``, ``/static``;
    answering to the Host names ``allowed_hosts`` (None: any), with the site's headers."""
    app = GuardedApp(
        keyring=None,
        allowed_hosts=allowed_hosts,
        routes=[
            Route("/", _page),
            Route("/replay", _replay),
            Mount("/static", static_files(), name="static"),
        ],
    )
    app.state.replay = replay
    return app
