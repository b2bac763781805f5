"""What every handler of the site shares: the token, bounded bodies, query values, JSON answers.

- **The caller**: who the request's token says it is (``web._token.Caller``,
  found by ``web._guard``, which refuses a wrong token everywhere with 401);
  ``require_side`` lets in the roles of a route's side (401 without a token,
  403 with one of another role); ``sees_all`` is whether it sees what is not
  published (a console token).
- **Bodies** are read incrementally up to a limit (413 past it, or at once for
  a Content-Length over it) and within a time limit (408 for a slow body).
- **Errors** are JSON objects ``{"error": "<message>"}`` (``ApiError``).
"""

from __future__ import annotations

import json
import math
from typing import Any, ClassVar, Final

import anyio
from starlette.convertors import Convertor, register_url_convertor
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response

from replays import MAX_NAME_CHARS
from web._errors import ApiError
from web._guard import caller_in
from web._site import Site
from web._token import SIDE_ROLES, Caller, Side

__all__ = [
    "caller_of",
    "echo",
    "is_api",
    "json_body_response",
    "json_response",
    "page_args",
    "read_body",
    "read_json",
    "require_side",
    "require_worker",
    "sees_all",
    "site_of",
]

MAX_JSON_BYTES: Final = 64 * 1024
"""The largest JSON body any route takes."""
MAX_PAGE: Final = 500


class RowId(Convertor[int]):
    """A record id in a path: 1 to 18 digits (so it fits SQLite's integers); else no route (404)."""

    regex = "[0-9]{1,18}"
    meaning: ClassVar[str] = "a record id (a whole number, 1 to 18 digits)"
    """What a path parameter of this kind is, for the 404 of a path that has none."""

    def convert(self, value: str) -> int:
        return int(value)

    def to_string(self, value: int) -> str:
        return str(value)


class Sha256(Convertor[str]):
    """A sha256 in a path: 64 lowercase hex digits, nothing else can name a file (no traversal)."""

    regex = "[0-9a-f]{64}"
    meaning: ClassVar[str] = "a sha256 (64 lowercase hex digits)"
    """What a path parameter of this kind is, for the 404 of a path that has none."""

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("rowid", RowId())
register_url_convertor("sha256", Sha256())


def site_of(request: Request) -> Site:
    site: Site = request.app.state.site
    return site


_JSON_HEADERS: Final = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}


def json_response(
    data: Any, status: int = 200, headers: dict[str, str] | None = None
) -> JSONResponse:
    """A JSON answer, never cached, never sniffed as anything else."""
    return JSONResponse(data, status_code=status, headers={**_JSON_HEADERS, **(headers or {})})


def json_body_response(body: bytes) -> Response:
    """``json_response`` of JSON already encoded (``web._core.json_bytes``): the same answer."""
    return Response(body, media_type="application/json", headers=_JSON_HEADERS)


def caller_of(request: Request) -> Caller | None:
    """Who the request's token says it is (None: no token; a wrong one was refused already)."""
    return caller_in(request.scope)


def sees_all(request: Request) -> bool:
    """Whether the request sees what is not published: it carries a console token."""
    caller = caller_of(request)
    return caller is not None and caller.console


def require_side(request: Request, side: Side) -> Caller | None:
    """The caller, if its role may call a route of ``side``: else 401 without a token, 403
    with a token of another role."""
    caller = caller_of(request)
    if side is Side.PUBLIC:
        return caller
    if caller is None:
        raise ApiError(
            401,
            f"this needs a {side} token: Authorization: Bearer <token>",
            headers={"WWW-Authenticate": "Bearer"},
        )
    if caller.role not in SIDE_ROLES[side]:
        raise ApiError(403, f"a {caller.role} token cannot do this: it needs a {side} token")
    return caller


def require_worker(request: Request, name: str) -> Caller:
    """The caller, if it is the worker token of the worker ``name`` (a worker route's check,
    after its side's): else 401 without a token, 403 with another role's or another
    worker's."""
    caller = require_side(request, Side.WORKER)
    assert caller is not None
    if caller.name != name:
        raise ApiError(
            403, f"this worker token answers for the worker {caller.name!r}, not {name!r}"
        )
    return caller


async def read_body(request: Request, limit: int) -> bytes:
    """The body, at most ``limit`` bytes (else 413), sent within the site's body timeout (408)."""
    length = request.headers.get("content-length")
    if length is not None:
        if not (length.isascii() and length.isdigit()):  # llhttp refuses most first, too
            raise ApiError(400, "Content-Length is not a number")
        if int(length) > limit:
            raise ApiError(413, f"the body is {int(length):,} bytes, over the {limit:,}-byte limit")
    chunks: list[bytes] = []
    size = 0
    try:
        with anyio.fail_after(site_of(request).limits.body_timeout):
            async for chunk in request.stream():
                size += len(chunk)
                if size > limit:
                    raise ApiError(413, f"the body is over the {limit:,}-byte limit")
                chunks.append(chunk)
    except TimeoutError:
        raise ApiError(408, "the body took too long to arrive") from None
    except ClientDisconnect:
        raise ApiError(400, "the client went away before the body arrived") from None
    return b"".join(chunks)


async def read_json(request: Request, keys: dict[str, bool]) -> dict[str, Any]:
    """A JSON object body with only ``keys`` (name -> required); 400 naming what is wrong."""
    body = await read_body(request, MAX_JSON_BYTES)
    try:
        data = json.loads(body)
    except RecursionError:
        raise ApiError(400, "the body is not JSON this server reads: nested too deeply") from None
    except ValueError as exc:  # not JSON, not UTF-8, an integer of thousands of digits
        raise ApiError(400, f"the body is not JSON: {exc}") from None
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        # "\ud800" is JSON, but no character: no name, format or value may hold one.
        raise ApiError(400, "the body holds a lone surrogate (\\ud800-\\udfff)") from None
    if not isinstance(data, dict):
        raise ApiError(400, "the body must be a JSON object")
    unknown = sorted(k for k in data if k not in keys)
    if unknown:
        raise ApiError(400, f"unknown field {unknown[0]!r}")
    missing = [k for k, required in keys.items() if required and k not in data]
    if missing:
        raise ApiError(400, f"missing field {missing[0]!r}")
    return data


def string_field(data: dict[str, Any], key: str, *, most: int = MAX_NAME_CHARS) -> str:
    value = data[key]
    if not isinstance(value, str) or not 1 <= len(value) <= most:
        raise ApiError(400, f"field {key!r}: a string of 1..{most} characters")
    return value


def whole(value: object) -> int | None:
    """A JSON integer as JSON Schema reads one (``7`` or ``7.0``), else None (booleans too)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def u32(value: object, what: str) -> int:
    number = whole(value)
    if number is None or not 0 <= number < 1 << 32:
        raise ApiError(400, f"{what}: an unsigned 32-bit integer")
    return number


def u32_field(data: dict[str, Any], key: str, default: int = 0) -> int:
    return u32(data.get(key, default), f"field {key!r}")


def is_api(path: str) -> bool:
    """Whether ``path`` is the API's (its routes or its OpenAPI document), not a page's."""
    return path.startswith("/api/") or path == "/openapi.json"


def echo(text: str, most: int) -> str:
    """The client's ``text`` repeated in an answer: cut to ``most`` characters (then "…")."""
    return text if len(text) <= most else text[:most] + "…"


def int_query(
    request: Request, name: str, default: int | None, low: int, high: float
) -> int | None:
    """The query value ``name`` as a whole number from ``low`` to ``high`` (``math.inf``: no
    bound above; at most 18 digits, to fit SQLite's integers); ``default`` if it is not
    given; else 400 saying what it must be and what it was."""
    text = request.query_params.get(name)
    if text is None:
        return default
    if not (text.isascii() and text.isdigit()) or len(text) > 18 or not low <= int(text) <= high:
        bound = f"of at least {low}" if math.isinf(high) else f"from {low} to {int(high)}"
        raise ApiError(
            400, f"query {name!r} must be a whole number {bound}, got {echo(text, 40)!r}"
        )
    return int(text)


def page_args(request: Request) -> tuple[int, int | None]:
    """``?limit=`` (1..500, default 50) and ``?before=`` (an id): a page of a listing."""
    limit = int_query(request, "limit", 50, 1, MAX_PAGE)
    assert limit is not None
    return limit, int_query(request, "before", None, 1, math.inf)
