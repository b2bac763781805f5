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
from web._stream import ReplayFile

__all__ = ["static_files", "view_app"]


def static_files() -> MemoryStaticFiles:
    """The static files, to mount at ``/static`` (the pages link them there), from memory."""
    return MemoryStaticFiles(STATIC_DIR)


async def _page(request: Request) -> Response:
    replay: ReplayFile = request.app.state.replay
    return viewer_page("/replay", replay.name)


def _replay(request: Request) -> Response:
    # Plain def: Starlette runs it in a thread, so opening and checking the file
    # (the header and the first frame, or the whole file's stamp) does not hold up the loop.
    replay: ReplayFile = request.app.state.replay
    return replay.response()


def view_app(
    replay: Path | ReplayFile, *, allowed_hosts: Collection[str] | None = None
) -> Starlette:
    """The viewer of the replay file ``replay``: ``/`` (``?tick=N``), ``/replay``, ``/static``;
    answering to the Host names ``allowed_hosts`` (None: any), with the site's headers.

    A path is read through the bounded reader until a stream has gone through the whole
    file; a ``ReplayFile`` that ``check_replay`` returned is sent as it is from the first.
    """
    app = GuardedApp(
        keyring=None,
        allowed_hosts=allowed_hosts,
        routes=[
            Route("/", _page),
            Route("/replay", _replay),
            Mount("/static", static_files(), name="static"),
        ],
    )
    app.state.replay = replay if isinstance(replay, ReplayFile) else ReplayFile(replay)
    return app
