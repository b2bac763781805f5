"""The workers' routes: the list of workers and their local runs (the console's), and the
workers' own connection (a WebSocket; ``web._workers`` keeps them, docs/web.md "Workers")."""

from __future__ import annotations

from typing import Any, Final

from starlette.requests import Request
from starlette.responses import Response
from starlette.websockets import WebSocket

from web._errors import ApiError
from web._http import json_response
from web._openapi import json_answer, operation
from web._schemas import NAME, ref
from web._token import Side
from web._workers import Workers

__all__ = ["connect_worker", "list_workers", "worker_runs", "worker_socket", "workers_of"]

_NULLABLE_STR: Final = {"type": ["string", "null"]}

WORKER: Final = {
    "type": "object",
    "required": ["name", "own", "connected", "runs", "since", "reason"],
    "properties": {
        "name": {"type": "string"},
        "own": {"type": "boolean", "description": "the server's own data directory"},
        "connected": {"type": "boolean"},
        "runs": {"type": "integer", "description": "how many local runs it offers"},
        "since": {**_NULLABLE_STR, "description": "connected, or gone, since (null: own)"},
        "reason": {**_NULLABLE_STR, "description": "why it is gone (null: connected)"},
    },
}
LOCAL_RUN: Final = {
    "type": "object",
    "required": [
        "run",
        "controller",
        "sha256",
        "outcome",
        "case",
        "version",
        "created_at",
        "selectable",
    ],
    "properties": {
        "run": {"type": "integer", "description": "the run's id in the worker's own store"},
        "controller": {"type": "string"},
        "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
        "outcome": {"type": "string"},
        "case": {"type": "string"},
        "version": {"type": "integer"},
        "created_at": {"type": "string"},
        "selectable": {"type": "boolean"},
    },
}
WORKER_RUNS: Final = {
    "type": "object",
    "required": ["worker", "connected", "reason", "runs"],
    "properties": {
        "worker": {"type": "string"},
        "connected": {"type": "boolean"},
        "reason": _NULLABLE_STR,
        "runs": {"type": "array", "items": LOCAL_RUN},
    },
}


def workers_of(request: Request | WebSocket) -> Workers:
    workers: Workers = request.app.state.workers
    return workers


@operation(
    "get",
    "the workers: the server's own data directory (named after its host), the connected"
    " ones, and the ones gone (with why)",
    {"200": json_answer({"type": "array", "items": WORKER}, "own first, then by name")},
    side=Side.CONSOLE,
)
async def list_workers(request: Request) -> Response:
    return json_response(await workers_of(request).listing())


@operation(
    "get",
    "a worker's local runs, each selectable or not (a worker gone: with the reason)",
    {
        "200": json_answer(WORKER_RUNS, "newest first"),
        "404": json_answer(ref("Error"), "no such worker"),
    },
    parameters=[{"name": "name", "in": "path", "required": True, "schema": NAME}],
    side=Side.CONSOLE,
)
async def worker_runs(request: Request) -> Response:
    return json_response(await workers_of(request).runs_of(request.path_params["name"]))


@operation(
    "get",
    "a worker's connection: a WebSocket (`?name=` the worker's, a worker token of that name);"
    " a plain GET answers 426",
    {
        "101": {"description": "the WebSocket is open (docs/web.md, Workers)"},
        "409": json_answer(ref("Error"), "a worker of that name is connected already"),
        "426": json_answer(ref("Error"), "not a WebSocket handshake"),
    },
    parameters=[{"name": "name", "in": "query", "required": True, "schema": NAME}],
    side=Side.WORKER,
)
async def connect_worker(request: Request) -> Response:
    raise ApiError(
        426, "open a WebSocket here (arena worker does)", headers={"Upgrade": "websocket"}
    )


async def worker_socket(websocket: WebSocket) -> None:
    await workers_of(websocket).serve(websocket)


def worker_field(data: dict[str, Any]) -> str | None:
    """A request's optional ``worker``: whose local runs its names may be."""
    value = data.get("worker")
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise ApiError(400, "field 'worker': a worker's name (GET /api/workers)")
    return value
