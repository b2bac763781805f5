"""The site's Starlette app: the routes, each a short call into ``Site``, and the error mapping.

Handlers parse the request (path, query, token, a bounded body), call one
``Site`` method and answer with JSON; plain ``def`` handlers run in a thread
(they read the store). Every error an input can cause is a 4xx with a JSON
message; the only 5xx are the server's own troubles (a damaged file: 500; a
store busy, full or read-only, workers that keep dying, shutting down: 503).
Each handler carries its OpenAPI operation (``@operation``: what it answers,
with which statuses), which ``openapi_document`` gathers from the routes for
``/openapi.json`` (``web._openapi``).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable, Collection
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute

import arena
from web._bundle import MAX_BUNDLE_BYTES
from web._controller_routes import (
    controller_page,
    field_head_to_head,
    field_page,
    get_controller,
)
from web._controllers import check_name
from web._error_answers import EXCEPTION_HANDLERS
from web._errors import ApiError
from web._events import stream_events
from web._field_routes import field_events, field_withdrawal, get_field, list_fields
from web._guard import GuardedApp
from web._http import (
    is_api,
    json_body_response,
    json_response,
    page_args,
    read_body,
    read_json,
    require_side,
    sees_all,
    site_of,
    string_field,
    u32_field,
)
from web._matches import match_key
from web._openapi import (
    ID,
    JSON,
    KIND,
    PAGE,
    SHA256,
    binary_answer,
    body,
    combine,
    errors,
    event_stream,
    json_answer,
    listing,
    openapi_of,
    operation,
    operations_of,
    side_of,
)
from web._pages import missing_page, site_page_html
from web._replay_answer import needs_decoding, stored_replay_response
from web._schemas import NAME, ref
from web._site import Site
from web._token import Keyring, Side
from web._tournament_routes import (
    create_tournament,
    exclude_entrant,
    get_tournament,
    include_entrant,
    list_tournaments,
    publish_tournament,
    tournament_events,
    tournament_matches_csv,
    tournament_standings_csv,
)
from web._view import static_files
from web._worker_routes import (
    connect_worker,
    list_workers,
    worker_field,
    worker_runs,
    worker_socket,
    workers_of,
)
from web._workers import Workers

__all__ = ["openapi_document", "route_sides", "site_app"]

_log = logging.getLogger("web")

# ====================================================================== pages


def site_page(page: str, title: str, side: Side = Side.PUBLIC) -> Callable[[Request], Response]:
    """The endpoint of a page. A public page of a record that does not exist, or is not
    published, is a 404 page; a console page is its shell whatever the id (a browser's
    navigation carries no token: the page's script asks the API with the console's)."""

    def endpoint(request: Request) -> Response:
        ident: int | None = request.path_params.get("id")
        if (
            side is Side.PUBLIC
            and ident is not None
            and not site_of(request).exists(page, ident, everything=False)
        ):
            return missing_page(f"no {page} {ident}")
        return site_page_html(page, title, ident, side=str(side))

    return endpoint


# ====================================================================== controllers


@operation(
    "get",
    "the stored controllers: with a console token all (the hidden ones too); else the open"
    " committed opponents and the published runs' controllers",
    {"200": listing("Controller", "by name"), **errors("401", "503")},
    side=Side.PUBLIC,
)
def list_controllers(request: Request) -> Response:
    return json_response(site_of(request).controllers(everything=sees_all(request)))


@operation(
    "post",
    "upload a controller's module: checked for admissibility, stored by sha256",
    {
        "201": json_answer(
            ref("Controller"),
            "admitted and stored, or stored already (deduplicated by sha256): the"
            " record, with the name it was first stored under",
        ),
        **errors("400", "401", "408", "409", "413", "429", "503"),
    },
    parameters=[{"name": "name", "in": "query", "required": True, "schema": NAME}],
    requestBody=body("application/wasm", "application/octet-stream"),
    side=Side.CONSOLE,
)
async def upload_controller(request: Request) -> Response:
    name = check_name(request.query_params.get("name", ""), "query 'name'")
    site = site_of(request)
    with site.uploads.held(retry_after=5):  # before the body: what is held in memory is bounded
        blob = await read_body(request, arena.MAX_MODULE_BYTES)
        record, _created = await site.upload(name, blob)
    # 201 with the record, new or not: deduplicated by sha256, the same bytes again
    # answer the record stored first (its name).
    return json_response(record, 201)


@operation(
    "get",
    "a controller's module: with a console token any; else only an open committed"
    " opponent's (never a hidden one's, nor any other's)",
    {
        "200": binary_answer("application/wasm", "the module's bytes"),
        **errors("401", "404", "500", "503"),
    },
    parameters=[SHA256],
    side=Side.PUBLIC,
)
def controller_module(request: Request) -> Response:
    record, blob = site_of(request).module(
        request.path_params["sha256"], everything=sees_all(request)
    )
    return Response(
        blob,
        media_type="application/wasm",
        headers={
            "Content-Disposition": f'attachment; filename="{record.sha256}.wasm"',
            "X-Content-Type-Options": "nosniff",
        },
    )


# ====================================================================== matches


@operation(
    "get",
    "the most recent matches first: with a console token all; else the published ones;"
    " `kind=quick`: only quick matches",
    {"200": listing("Match", "a page"), **errors("400", "503")},
    parameters=[*PAGE, KIND],
    side=Side.PUBLIC,
)
def list_matches(request: Request) -> Response:
    limit, before = page_args(request)
    kind = request.query_params.get("kind")
    if kind not in (None, "quick"):
        raise ApiError(400, "query 'kind': only 'quick' (quick matches) is a kind")
    return json_response(
        site_of(request).matches_json(
            limit=limit, before=before, everything=sees_all(request), quick_only=kind == "quick"
        )
    )


@operation(
    "post",
    "queue a quick match of two controllers (names or sha256s) under the server's case",
    {
        "202": json_answer(ref("Match"), "queued: its id (follow /events or poll)"),
        **errors("400", "401", "404", "408", "413", "429", "500", "503"),
    },
    requestBody=body(JSON, schema=ref("MatchRequest")),
    side=Side.CONSOLE,
)
async def create_match(request: Request) -> Response:
    data = await read_json(request, {"a": True, "b": True, "seed": False, "worker": False})
    a, b, seed = string_field(data, "a"), string_field(data, "b"), u32_field(data, "seed")
    # A worker's local runs among them: fetched from it and admitted as uploads first.
    a, b = await workers_of(request).resolve(worker_field(data), [a, b], ["a", "b"])
    match = await asyncio.to_thread(site_of(request).queue_match, a, b, seed)
    return json_response(match, 202, {"Location": f"/api/matches/{match['id']}"})


@operation(
    "get",
    "a match: its status, then its result",
    {"200": json_answer(ref("Match"), "the match"), **errors("404", "503")},
    parameters=[ID],
    side=Side.PUBLIC,
)
async def get_match(request: Request) -> Response:
    # Read in the event loop: one row by id, and a read never waits in WAL mode
    # but for a rare lock, when it is read again in a thread, which may wait.
    # A thread for every request cost more than the read (docs/benchmarks.md).
    site, match_id, everything = site_of(request), request.path_params["id"], sees_all(request)
    try:
        body = site.match_body(match_id, everything=everything, wait=False)
    except arena.StoreBusyError:
        body = await run_in_threadpool(
            functools.partial(site.match_body, match_id, everything=everything)
        )
    return json_body_response(body)


@operation(
    "post",
    "publish a finished quick match: the public site shows it from then on (idempotent);"
    " 409 if it plays a worker's local run, held for review only",
    {
        "200": json_answer(ref("Match"), "published"),
        **errors("400", "404", "409", "503"),
    },
    parameters=[ID],
    side=Side.CONSOLE,
)
def publish_match(request: Request) -> Response:
    return json_response(site_of(request).publish_match(request.path_params["id"]))


@operation(
    "get",
    "a finished match's replay (checked by its sha256): zstd-coded (Content-Encoding: zstd)"
    " to a client whose Accept-Encoding takes zstd, else the msgpack bytes themselves",
    {
        "200": binary_answer("application/x-msgpack", "the msgpack replay"),
        "304": {"description": "not modified: If-None-Match holds the ETag that would be sent"},
        **errors("404", "500", "503"),
    },
    parameters=[ID],
    side=Side.PUBLIC,
)
async def match_replay(request: Request) -> Response:
    # A file verified before and of a typical size is read here, in the event
    # loop (a thread for every request cost more than the read); anything that
    # may take longer (hashing, a large file, decompressing) runs in a thread.
    site, match_id, everything = site_of(request), request.path_params["id"], sees_all(request)
    stored = site.verified_replay(match_id, everything=everything)
    if stored is None:
        stored = await run_in_threadpool(
            functools.partial(site.stored_replay, match_id, everything=everything)
        )
    decode = needs_decoding(request, stored)  # the Accept-Encoding header parsed once
    if stored.body is not None and not decode:
        return stored_replay_response(request, stored, decode=False)
    return await run_in_threadpool(
        functools.partial(stored_replay_response, request, stored, decode=decode)
    )


@operation(
    "get",
    "the match's progress as server-sent events (event `match`, data: the match JSON),"
    " until it is finished or in error",
    {"200": event_stream("match", "Match"), **errors("404", "429", "503")},
    parameters=[ID],
    side=Side.PUBLIC,
)
async def match_events(request: Request) -> Response:
    site = site_of(request)
    match_id: int = request.path_params["id"]
    everything = sees_all(request)
    # Before the stream: the public side learns nothing of a match not published (404).
    await asyncio.to_thread(site.match_json, match_id, everything=everything)

    def state() -> tuple[dict[str, Any], bool]:
        data = site.match_json(match_id, everything=everything)
        return data, data["status"] != "pending"

    return await stream_events(request, match_key(match_id), "match", state)


# ====================================================================== runs


@operation(
    "get",
    "the most recent proof runs first",
    {"200": listing("Run", "a page"), **errors("400", "503")},
    parameters=PAGE,
    side=Side.PUBLIC,
)
def list_runs(request: Request) -> Response:
    limit, before = page_args(request)
    return json_response(
        site_of(request).runs_json(limit=limit, before=before, everything=sees_all(request))
    )


@operation(
    "get",
    "a run with its matches and build log",
    {"200": json_answer(ref("RunDetail"), "the run"), **errors("404", "503")},
    parameters=[ID],
    side=Side.PUBLIC,
)
def get_run(request: Request) -> Response:
    return json_response(
        site_of(request).run_json(request.path_params["id"], everything=sees_all(request))
    )


@operation(
    "post",
    "push a proof run (a bundle, see docs/web.md): every match is played again and must"
    " give the same replay bytes",
    {
        "200": json_answer(ref("Run"), "this run is here already: nothing changed"),
        "201": json_answer(ref("Run"), "checked and recorded"),
        **errors("400", "401", "408", "409", "413", "429", "503"),
    },
    requestBody=body("application/x-msgpack", schema=ref("Bundle")),
    side=Side.PUSH,
)
async def push_run(request: Request) -> Response:
    site = site_of(request)
    with site.pushes.held(retry_after=10):  # before the bundle: at most two held in memory
        data = await read_body(request, MAX_BUNDLE_BYTES)
        run, created = await site.push(data)
    return json_response(run, 201 if created else 200, {"Location": f"/api/runs/{run['run']}"})


# ====================================================================== status, schema


@operation(
    "get",
    "the case; to the console, the match queue and the workers too",
    {"200": json_answer(ref("Status"), "now")},
    side=Side.PUBLIC,
)
def status(request: Request) -> Response:
    return json_response(site_of(request).status(everything=sees_all(request)))


@operation(
    "get",
    "this document",
    {"200": json_answer({"type": "object"}, "the OpenAPI document")},
    side=Side.PUBLIC,
)
def openapi(request: Request) -> Response:
    return JSONResponse(openapi_document())


# ====================================================================== the app


_PAGE_SIDE = "site_side"
"""The attribute of a page's endpoint that names its side (pages have no operation)."""


def _sided(endpoint: Callable[[Request], Any]) -> Callable[[Request], Awaitable[Response]]:
    """``endpoint``, letting in only the roles of each method's side (its operation's: 401
    without a token, 403 with a token of another role) before it runs."""
    is_async = asyncio.iscoroutinefunction(endpoint)
    methods = [*operations_of(endpoint), "head"]
    sides = {m.upper(): side for m in methods if (side := side_of(endpoint, m)) is not None}

    async def run(request: Request) -> Response:
        side = sides.get(request.method)
        assert side is not None, f"{request.url.path}: {request.method} has no side"
        require_side(request, side)
        if is_async:
            answer: Response = await endpoint(request)
            return answer
        return await run_in_threadpool(endpoint, request)

    return combine(run, endpoint)


def _read_write(
    path: str,
    read: Callable[[Request], Response],
    write: Callable[[Request], Awaitable[Response]],
) -> Route:
    """One route for a listing (GET) and its write (POST): a 405 then names both (Allow)."""

    async def endpoint(request: Request) -> Response:
        if request.method == "POST":
            return await write(request)
        return await run_in_threadpool(read, request)

    return Route(path, _sided(combine(endpoint, read, write)), methods=["GET", "POST"])


def _api(path: str, endpoint: Callable[[Request], Any], methods: list[str] | None = None) -> Route:
    return Route(path, _sided(endpoint), methods=methods)


def _page(path: str, side: Side, endpoint: Callable[[Request], Response]) -> Route:
    setattr(endpoint, _PAGE_SIDE, side)
    return Route(path, endpoint)


def routes() -> list[BaseRoute]:
    """Every route of the site (the OpenAPI document describes those under /api), each on
    its side (``route_sides``)."""
    return [
        _page("/", Side.PUBLIC, site_page("index", "Foray Arena")),
        _page("/runs/{id:rowid}", Side.PUBLIC, site_page("run", "run")),
        _page("/matches/{id:rowid}", Side.PUBLIC, site_page("match", "match")),
        _page("/tournaments/{id:rowid}", Side.PUBLIC, site_page("tournament", "tournament")),
        _page("/controllers/{sha256:sha256}", Side.PUBLIC, controller_page(Side.PUBLIC)),
        _page("/field/{slug}/{version:rowid}", Side.PUBLIC, field_page(Side.PUBLIC)),
        _page("/console", Side.CONSOLE, site_page("console", "console", Side.CONSOLE)),
        _page("/console/runs/{id:rowid}", Side.CONSOLE, site_page("run", "run", Side.CONSOLE)),
        _page(
            "/console/matches/{id:rowid}", Side.CONSOLE, site_page("match", "match", Side.CONSOLE)
        ),
        _page(
            "/console/tournaments/{id:rowid}",
            Side.CONSOLE,
            site_page("tournament", "tournament", Side.CONSOLE),
        ),
        _page("/console/controllers/{sha256:sha256}", Side.CONSOLE, controller_page(Side.CONSOLE)),
        _page("/console/field/{slug}/{version:rowid}", Side.CONSOLE, field_page(Side.CONSOLE)),
        _api("/openapi.json", openapi),
        _api("/api/status", status),
        _read_write("/api/controllers", list_controllers, upload_controller),
        _api("/api/controllers/{sha256:sha256}", get_controller),
        _api("/api/controllers/{sha256:sha256}/module", controller_module),
        _read_write("/api/matches", list_matches, create_match),
        _api("/api/matches/{id:rowid}", get_match),
        _api("/api/matches/{id:rowid}/publish", publish_match, ["POST"]),
        _api("/api/matches/{id:rowid}/replay", match_replay),
        _api("/api/matches/{id:rowid}/events", match_events),
        _read_write("/api/runs", list_runs, push_run),
        _api("/api/runs/{id:rowid}", get_run),
        _read_write("/api/tournaments", list_tournaments, create_tournament),
        _api("/api/tournaments/{id:rowid}", get_tournament),
        _api("/api/tournaments/{id:rowid}/publish", publish_tournament, ["POST"]),
        _api("/api/tournaments/{id:rowid}/events", tournament_events),
        _api("/api/tournaments/{id:rowid}/standings.csv", tournament_standings_csv),
        _api("/api/tournaments/{id:rowid}/matches.csv", tournament_matches_csv),
        _api("/api/tournaments/{id:rowid}/exclusions", exclude_entrant, ["POST"]),
        _api("/api/tournaments/{id:rowid}/inclusions", include_entrant, ["POST"]),
        _api("/api/field", list_fields),
        _api("/api/field/{slug}/{version:rowid}", get_field),
        _api("/api/field/{slug}/{version:rowid}/events", field_events),
        _api("/api/field/{slug}/{version:rowid}/head-to-head", field_head_to_head),
        _api("/api/field/{slug}/{version:rowid}/withdraw", field_withdrawal, ["POST", "DELETE"]),
        _api("/api/workers", list_workers),
        _api("/api/workers/connect", connect_worker),
        WebSocketRoute("/api/workers/connect", worker_socket),
        _api("/api/workers/{name:path}/runs", worker_runs),
        Mount("/static", static_files(), name="static"),
    ]


def route_sides(app_routes: list[BaseRoute] | None = None) -> list[tuple[str, str, Side]]:
    """(method, path, side) of every route and method of the site, in the order of the
    routes (the table in docs/web.md; HEAD goes with GET). Static files are public."""
    table: list[tuple[str, str, Side]] = []
    for route in routes() if app_routes is None else app_routes:
        if isinstance(route, Mount):
            table.append(("GET", f"{route.path}/{{path}}", Side.PUBLIC))
            continue
        if isinstance(route, WebSocketRoute):
            continue  # its handshake is the GET of the route of the same path
        assert isinstance(route, Route)
        for method in sorted(route.methods or (), key=lambda m: (m != "GET", m)):
            if method == "HEAD":
                continue
            side = getattr(route.endpoint, _PAGE_SIDE, None) or side_of(route.endpoint, method)
            assert side is not None, f"{method} {route.path} has no side"
            table.append((method, route.path, side))
    return table


def _api_first(app_routes: list[BaseRoute]) -> list[BaseRoute]:
    """``app_routes`` in the order the app tries them: the API's before the pages' (a page is
    asked once a visit, the API many times a page, and the router tries each route's pattern
    in turn), each part in its own order. No path matches two routes (a test checks), so
    the order changes no answer."""
    api = [r for r in app_routes if isinstance(r, Route | WebSocketRoute) and is_api(r.path)]
    return api + [r for r in app_routes if r not in api]


@functools.cache
def openapi_document() -> dict[str, Any]:
    """The OpenAPI document of the site's routes (``/openapi.json``; built once)."""
    return openapi_of(routes())


def site_app(site: Site, token: str, *, allowed_hosts: Collection[str] | None = None) -> Starlette:
    """The site over ``site``; ``token`` is the quick-start console token, besides the tokens
    the store holds (``arena token``). Serve it with uvicorn (``arena serve``).

    ``allowed_hosts``: the Host names it answers to (``arena serve`` always gives
    them); None answers any, for an app only a test reaches.
    """
    # A Site made without opening (a test of the routes alone) has no store: no tokens there.
    keyring = Keyring(getattr(site, "store", None), token)
    app = GuardedApp(
        keyring=keyring,
        allowed_hosts=allowed_hosts,
        routes=_api_first(routes()),
        exception_handlers=EXCEPTION_HANDLERS,
    )
    app.state.site = site
    app.state.keyring = keyring
    app.state.workers = Workers(site, keyring=keyring)
    return app
