"""How the site answers an error: each kind to its status and a JSON ``{"error": ...}``.

The arena's errors map to statuses (``EXCEPTION_HANDLERS``); a path that matches no route
says what was asked and what was wrong; no answer says where the store is on disk.
"""

from __future__ import annotations

import functools
import logging
import os
import re
from typing import Any, Final

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route, WebSocketRoute

import arena
from web._errors import ApiError
from web._http import echo, is_api, json_response, site_of
from web._lanes import LanesClosed

__all__ = ["EXCEPTION_HANDLERS"]

_log = logging.getLogger("web")


def _error(
    status: int, message: str, headers: dict[str, str] | None = None, **extra: Any
) -> Response:
    return json_response({"error": message, **extra}, status, headers)


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return _error(exc.status, exc.message, exc.headers, **exc.extra)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    detail = exc.detail
    if exc.status_code == 404 and "route" not in request.scope:  # the router's: no route
        detail = _no_route(request.method, request.url.path, request.app.routes)
    return _error(exc.status_code, detail, dict(exc.headers or {}))


def _no_route(method: str, path: str, app_routes: list[BaseRoute]) -> str:
    """The 404 of a path that matches no route: what was asked and, when the path has the
    shape of a route's with a parameter its convertor refuses, which and what it must be.
    It says nothing of the store: a well-formed id matches its route, whose answer is the
    same for a record missing and one not published."""
    asked = f"no route {method} {echo(path, 160)}"
    for route in app_routes:
        if not isinstance(route, Route | WebSocketRoute):
            continue
        values = _shape_of(route.path_format).fullmatch(path)
        if values is None:
            continue
        for name, value in values.groupdict().items():
            convertor = route.param_convertors[name]
            if not re.fullmatch(convertor.regex, value):
                meaning = getattr(convertor, "meaning", f"text matching {convertor.regex}")
                return (
                    f"{asked}: {{{name}}} in {route.path_format} is {meaning},"
                    f" not {echo(value, 80)!r}"
                )
    return f"{asked} (/openapi.json lists the API's routes)" if is_api(path) else asked


@functools.cache
def _shape_of(path_format: str) -> re.Pattern[str]:
    """A route's path with each parameter any one segment: the paths it would take if every
    parameter's convertor took any text."""
    parts = re.split(r"\{(\w+)\}", path_format)  # literal, name, literal, ..., literal
    pattern = "".join(
        re.escape(part) if i % 2 == 0 else f"(?P<{part}>[^/]+)" for i, part in enumerate(parts)
    )
    return re.compile(pattern)


def _mapped(status: int, headers: dict[str, str] | None = None) -> Any:
    async def handler(request: Request, exc: Exception) -> Response:
        if status >= 500:
            _log.error("%s %s: %s", request.method, request.url.path, exc)
        return _error(status, _without_place(str(exc), request), headers)

    return handler


def _without_place(message: str, request: Request) -> str:
    """An arena error's ``message`` without where the store is on disk: the store's errors
    name it for the operator (the command line's, the server's log), which a client of the
    site, the public's included, has no business learning. "no tournament 9 in the store
    /x/arena.sqlite3" is "no tournament 9"; a file is named from the data directory."""
    store = getattr(site_of(request), "store", None)
    if store is None:
        return message
    file, root = str(store.path), str(store.root)
    for place in (file, root):
        message = message.removesuffix(f" in the store {place}")
    message = message.replace(f" {file}", "").replace(f"{root}{os.sep}", "")
    return message.replace(root, "the data directory")


EXCEPTION_HANDLERS: Final[dict[Any, Any]] = {
    ApiError: _api_error,
    HTTPException: _http_error,
    arena.NotInStoreError: _mapped(404),
    # A worker's local run held for review: published by pushing it, not from here.
    arena.HeldModuleError: _mapped(409),
    arena.CorruptFileError: _mapped(500),
    arena.StoreBusyError: _mapped(503, {"Retry-After": "5"}),
    arena.StoreError: _mapped(503, {"Retry-After": "30"}),
    arena.WorkerDied: _mapped(503, {"Retry-After": "30"}),
    arena.WorkersUnavailableError: _mapped(503, {"Retry-After": "30"}),
    LanesClosed: _mapped(503, {"Retry-After": "30"}),
    # Whatever else the arena refuses is the input's fault: a name too long, a bad value.
    arena.ArenaError: _mapped(400),
}
