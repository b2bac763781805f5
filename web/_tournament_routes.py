"""The tournaments' routes: listed, started, read, published, an entrant left out or counted
again, the standings and matches as CSV downloads, and the live standings as events."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

import arena
from web._errors import ApiError
from web._events import stream_events
from web._http import (
    json_response,
    page_args,
    read_json,
    sees_all,
    site_of,
    string_field,
    u32,
)
from web._openapi import (
    ID,
    JSON,
    PAGE,
    binary_answer,
    body,
    errors,
    event_stream,
    json_answer,
    listing,
    operation,
)
from web._schemas import MAX_SEEDS_TEXT, ref
from web._token import Side
from web._tournaments import tournament_key
from web._worker_routes import worker_field, workers_of

__all__ = [
    "create_tournament",
    "exclude_entrant",
    "get_tournament",
    "include_entrant",
    "list_tournaments",
    "publish_tournament",
    "tournament_events",
    "tournament_matches_csv",
    "tournament_standings_csv",
]


@operation(
    "get",
    "the most recent tournaments first",
    {"200": listing("Tournament", "a page"), **errors("400", "503")},
    parameters=PAGE,
    side=Side.PUBLIC,
)
def list_tournaments(request: Request) -> Response:
    limit, before = page_args(request)
    return json_response(
        site_of(request).tournaments_json(limit=limit, before=before, everything=sees_all(request))
    )


@operation(
    "post",
    "start a tournament over stored controllers (names or sha256s)",
    {
        "202": json_answer(ref("Tournament"), "started: follow /events"),
        **errors("400", "401", "404", "408", "413", "429", "500", "503"),
    },
    requestBody=body(JSON, schema=ref("TournamentRequest")),
    side=Side.CONSOLE,
)
async def create_tournament(request: Request) -> Response:
    data = await read_json(
        request,
        {
            "format": True,
            "field": True,
            "seeds": False,
            "rounds": False,
            "shuffle": False,
            "worker": False,
        },
    )
    field = data["field"]
    if not isinstance(field, list) or not all(isinstance(x, str) for x in field):
        raise ApiError(400, "field 'field': a list of controller names or sha256s")
    site = site_of(request)
    if len(field) > site.limits.max_field:
        raise ApiError(400, f"field 'field': 2..{site.limits.max_field} controllers")
    where = [f"field[{i}]" for i in range(len(field))]
    field = await workers_of(request).resolve(worker_field(data), field, where)
    tournament = await asyncio.to_thread(
        site.start_tournament,
        string_field(data, "format", most=32),
        field,
        seeds=_seeds(data.get("seeds", [0]), site.limits.max_seeds),
        rounds=None if data.get("rounds") is None else u32(data["rounds"], "field 'rounds'"),
        shuffle=None if data.get("shuffle") is None else u32(data["shuffle"], "field 'shuffle'"),
    )
    return json_response(tournament, 202, {"Location": f"/api/tournaments/{tournament['id']}"})


def _seeds(seeds: object, most: int) -> list[int] | str:
    """A request's seeds: a list of integers, or text as a person types them ("0 1 2",
    "0,1,2", "0-15"), which ``start_tournament`` reads once the field is found."""
    if isinstance(seeds, str):
        if len(seeds) > MAX_SEEDS_TEXT:
            raise ApiError(400, f"field 'seeds': text of at most {MAX_SEEDS_TEXT} characters")
        return seeds
    if not isinstance(seeds, list) or not 1 <= len(seeds) <= most:
        raise ApiError(
            400,
            f"field 'seeds': a list of 1..{most} unsigned 32-bit integers, or text: "
            f"{arena.SEEDS_FORM}",
        )
    return [u32(s, "field 'seeds'") for s in seeds]


@operation(
    "get",
    "a tournament: standings (live while it runs) and pairings",
    {"200": json_answer(ref("TournamentDetail"), "the tournament"), **errors("404", "503")},
    parameters=[ID],
    side=Side.PUBLIC,
)
def get_tournament(request: Request) -> Response:
    return json_response(
        site_of(request).tournament_json(request.path_params["id"], everything=sees_all(request))
    )


@operation(
    "post",
    "publish a tournament: it and its matches (those to come too) are on the public site"
    " from then on (idempotent)",
    {
        "200": json_answer(ref("TournamentDetail"), "published"),
        **errors("404", "503"),
    },
    parameters=[ID],
    side=Side.CONSOLE,
)
def publish_tournament(request: Request) -> Response:
    return json_response(site_of(request).publish_tournament(request.path_params["id"]))


@operation(
    "post",
    "leave an entrant out of a finished tournament's standings, with the reason"
    " (recomputed from its matches, recorded; a bracket cannot be)",
    {
        "200": json_answer(ref("TournamentDetail"), "the tournament, its standings recomputed"),
        **errors("400", "401", "404", "408", "413", "503"),
    },
    parameters=[ID],
    requestBody=body(JSON, schema=ref("Exclusion")),
    side=Side.CONSOLE,
)
async def exclude_entrant(request: Request) -> Response:
    data = await read_json(request, {"name": True, "reason": True})
    name, reason = string_field(data, "name"), string_field(data, "reason", most=1000)
    site = site_of(request)
    tournament = await asyncio.to_thread(site.exclude, request.path_params["id"], name, reason)
    return json_response(tournament)


@operation(
    "post",
    "count an excluded entrant of a tournament again",
    {
        "200": json_answer(ref("TournamentDetail"), "the tournament, its standings recomputed"),
        **errors("400", "401", "404", "408", "413", "503"),
    },
    parameters=[ID],
    requestBody=body(JSON, schema=ref("Inclusion")),
    side=Side.CONSOLE,
)
async def include_entrant(request: Request) -> Response:
    data = await read_json(request, {"name": True})
    name = string_field(data, "name")
    site = site_of(request)
    tournament = await asyncio.to_thread(site.include, request.path_params["id"], name)
    return json_response(tournament)


def _csv_download(what: str) -> Callable[[Request], Response]:
    @operation(
        "get",
        f"a tournament's {what} as CSV (live while it runs): a header line, then a row per"
        + (" entrant, in rank order" if what == "standings" else " recorded match"),
        {"200": binary_answer("text/csv", f"the {what}, RFC 4180"), **errors("404", "503")},
        parameters=[ID],
        side=Side.PUBLIC,
    )
    def download(request: Request) -> Response:
        tournament_id: int = request.path_params["id"]
        text = site_of(request).tournament_csv(tournament_id, what, everything=sees_all(request))
        name = f"tournament-{tournament_id}-{what}.csv"
        return Response(
            text,
            media_type="text/csv; charset=utf-8",
            headers={
                "Content-Disposition": f'attachment; filename="{name}"',
                "X-Content-Type-Options": "nosniff",
            },
        )

    return download


tournament_standings_csv = _csv_download("standings")
tournament_matches_csv = _csv_download("matches")


@operation(
    "get",
    "live standings as server-sent events (event `tournament`, data: the tournament"
    " JSON), until it is finished or failed (a field's: one event, its own stream is"
    " /api/field/{slug}/{version}/events)",
    {"200": event_stream("tournament", "TournamentDetail"), **errors("404", "429", "503")},
    parameters=[ID],
    side=Side.PUBLIC,
)
async def tournament_events(request: Request) -> Response:
    site = site_of(request)
    tournament_id: int = request.path_params["id"]
    # Before the stream: the public side learns nothing of a tournament not published (404).
    await asyncio.to_thread(site.tournament_json, tournament_id, everything=sees_all(request))

    def state() -> tuple[dict[str, Any], bool]:
        data = site.tournament_json(tournament_id)
        # A field never finishes: its live standings are /api/field/{slug}/{version}/events.
        return data, data["status"] != "running" or data["format"] == "field"

    key = tournament_key(tournament_id)
    return await stream_events(request, key, "tournament", state, every=site.limits.live_every)
