"""A controller's page and its JSON (its runs, its record against each opponent, its ratings
after each match), public for a published controller (``web._profiles``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from starlette.requests import Request
from starlette.responses import Response

from web._errors import ApiError
from web._field_routes import CASE
from web._http import json_response, sees_all, site_of
from web._openapi import SHA256, errors, json_answer, operation
from web._pages import missing_page, site_page_html
from web._schemas import ref
from web._token import Side

__all__ = ["controller_page", "field_head_to_head", "field_page", "get_controller"]

_MOST: Final = 256
_ENTRANT: Final = {
    "description": "an entrant's name, as the field's standings give it",
    "type": "string",
    "minLength": 1,
    "maxLength": _MOST,
}


@operation(
    "get",
    "a controller's page: its names, runs, tournaments, its record against each opponent"
    " (every match from its side, with its forfeits' ticks, fuel and rating after it) and"
    " its ratings after each match; public for a published controller (an open committed"
    " opponent, a published run's, a side of a published match), showing what is published",
    {"200": json_answer(ref("ControllerPage"), "the controller"), **errors("404", "503")},
    parameters=[SHA256],
    side=Side.PUBLIC,
)
def get_controller(request: Request) -> Response:
    return json_response(
        site_of(request).controller_page_json(
            request.path_params["sha256"], everything=sees_all(request)
        )
    )


def controller_page(side: Side) -> Callable[[Request], Response]:
    """The endpoint of a controller's page on ``side``: public, a 404 page unless the
    controller is published; the console's, its shell whatever the sha256."""

    def endpoint(request: Request) -> Response:
        sha256: str = request.path_params["sha256"]
        if side is Side.PUBLIC and not site_of(request).published_controller(sha256):
            return missing_page(f"no controller {sha256}")
        return site_page_html("controller", "controller", sha256[:12], side=str(side))

    return endpoint


@operation(
    "get",
    "head to head in a field: every match between the entrants `a` and `b` (names), each"
    " from `a`'s side, who won it, and the count of each one's wins and the draws",
    {"200": json_answer(ref("HeadToHead"), "their matches"), **errors("400", "404", "503")},
    parameters=[
        *CASE,
        {"name": "a", "in": "query", "required": True, "schema": _ENTRANT},
        {"name": "b", "in": "query", "required": True, "schema": _ENTRANT},
    ],
    side=Side.PUBLIC,
)
def field_head_to_head(request: Request) -> Response:
    a, b = (request.query_params.get(key, "") for key in "ab")
    for key, name in (("a", a), ("b", b)):
        if not 1 <= len(name) <= _MOST:  # any other text is looked up: 404 if no entrant's
            raise ApiError(400, f"query {key!r}: an entrant's name, 1 to {_MOST} characters")
    slug, version = request.path_params["slug"], request.path_params["version"]
    return json_response(site_of(request).field_head_to_head_json(slug, version, a, b))


def field_page(side: Side) -> Callable[[Request], Response]:
    """The endpoint of a field's page on ``side``: public, a 404 page for a case version
    without a field; the console's (its form withdraws an entrant), its shell whatever."""

    def endpoint(request: Request) -> Response:
        slug, version = request.path_params["slug"], request.path_params["version"]
        if side is Side.PUBLIC:
            try:
                site_of(request).field_id_of(slug, version)
            except ApiError as exc:
                return missing_page(exc.message)
        return site_page_html("field", "field", f"{slug}/{version}", side=str(side))

    return endpoint
