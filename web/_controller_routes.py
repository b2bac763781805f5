"""A controller's page and its JSON (its runs, its record against each opponent, its ratings
after each match), public for a published controller (``web._profiles``)."""

from __future__ import annotations

from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import Response

from web._http import json_response, sees_all, site_of
from web._openapi import SHA256, errors, json_answer, operation
from web._pages import missing_page, site_page_html
from web._schemas import ref
from web._token import Side

__all__ = ["controller_page", "get_controller"]


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
