"""The field's routes (issue 26): the fields listed, one field's standings (live as events),
and an entrant withdrawn or reinstated (console)."""

from __future__ import annotations

import asyncio
from typing import Any, Final

from starlette.requests import Request
from starlette.responses import Response

from web._events import stream_events
from web._field import field_key
from web._http import json_response, read_json, site_of, string_field
from web._openapi import (
    JSON,
    MAX_ID,
    body,
    combine,
    errors,
    event_stream,
    json_answer,
    operation,
)
from web._schemas import ref
from web._token import Side

__all__ = ["field_events", "field_withdrawal", "get_field", "list_fields"]

CASE: Final = [
    {
        "name": "slug",
        "in": "path",
        "required": True,
        "schema": {"type": "string", "minLength": 1, "maxLength": 256},
    },
    {
        "name": "version",
        "in": "path",
        "required": True,
        "schema": {"type": "integer", "minimum": 0, "maximum": MAX_ID},
    },
]
"""A field's case version in its path: ``/api/field/{slug}/{version}``."""


def _case(request: Request) -> tuple[str, int]:
    return request.path_params["slug"], request.path_params["version"]


@operation(
    "get",
    "the fields (one per case version) with their counts",
    {"200": json_answer(ref("FieldList"), "the fields"), **errors("503")},
    side=Side.PUBLIC,
)
def list_fields(request: Request) -> Response:
    return json_response(site_of(request).fields_json())


@operation(
    "get",
    "a field's standings now: every entrant ranked by wins, its matches played and pending,"
    " forfeits by kind, fuel, rating (mu and sigma)",
    {"200": json_answer(ref("Field"), "the field"), **errors("404", "503")},
    parameters=CASE,
    side=Side.PUBLIC,
)
def get_field(request: Request) -> Response:
    return json_response(site_of(request).field_json(*_case(request)))


@operation(
    "get",
    "a field's standings as server-sent events (event `field`, data: the field JSON), one"
    " now and one after the matches recorded or a withdrawal",
    {"200": event_stream("field", "Field"), **errors("404", "429", "503")},
    parameters=CASE,
    side=Side.PUBLIC,
)
async def field_events(request: Request) -> Response:
    site = site_of(request)
    slug, version = _case(request)
    tid = await asyncio.to_thread(site.field_id_of, slug, version)  # 404 before the stream

    def state() -> tuple[dict[str, Any], bool]:
        return site.field_json(slug, version), False  # a field never ends

    key = field_key(tid)
    return await stream_events(request, key, "field", state, every=site.limits.live_every)


@operation(
    "post",
    "withdraw an entrant from a field, with the reason: it leaves the standings, its matches"
    " stay recorded, its meetings not played yet are not played",
    {
        "200": json_answer(ref("Field"), "the field, without it"),
        **errors("400", "401", "404", "408", "413", "503"),
    },
    parameters=CASE,
    requestBody=body(JSON, schema=ref("Exclusion")),
    side=Side.CONSOLE,
)
async def withdraw_entrant(request: Request) -> Response:
    data = await read_json(request, {"name": True, "reason": True})
    name, reason = string_field(data, "name"), string_field(data, "reason", most=1000)
    site = site_of(request)
    field = await asyncio.to_thread(site.withdraw, *_case(request), name, reason)
    return json_response(field)


@operation(
    "delete",
    "undo a withdrawal: the entrant is ranked again and its missing meetings are played",
    {
        "200": json_answer(ref("Field"), "the field, with it again"),
        **errors("400", "401", "404", "408", "413", "503"),
    },
    parameters=CASE,
    requestBody=body(JSON, schema=ref("Inclusion")),
    side=Side.CONSOLE,
)
async def reinstate_entrant(request: Request) -> Response:
    data = await read_json(request, {"name": True})
    name = string_field(data, "name")
    site = site_of(request)
    field = await asyncio.to_thread(site.reinstate, *_case(request), name)
    return json_response(field)


async def _withdrawal(request: Request) -> Response:
    if request.method == "DELETE":
        return await reinstate_entrant(request)
    return await withdraw_entrant(request)


field_withdrawal = combine(_withdrawal, withdraw_entrant, reinstate_entrant)
"""``POST`` withdraws, ``DELETE`` undoes it: one route, two operations."""
