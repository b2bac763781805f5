"""The OpenAPI 3.1 document of the site's JSON API, gathered from its routes.

Each handler in ``web._api`` carries its operation (``operation``: a summary,
every status it can answer, its parameters, its body, whether it needs the
token), written beside it from the small pieces here; the records' shapes are
``web._schemas``. ``openapi_of`` walks the app's routes with Starlette's
``BaseSchemaGenerator`` (which reads Mounts and drops the path converters)
and puts each route's operations in the document, so a route is described
where it is defined. A test checks that the document names every route of
the app and no other, and that it is valid; schemathesis checks the answers.

Starlette's own ``SchemaGenerator`` reads YAML from docstrings: written here
as Python instead, the pieces every operation shares (the errors, the id and
page parameters, the token) are named once and type-checked, and serving the
document needs no YAML parser.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeVar

from starlette.routing import BaseRoute
from starlette.schemas import BaseSchemaGenerator

from web._schemas import BINARY, SCHEMAS, ref
from web._token import Side

__all__ = [
    "ID",
    "JSON",
    "KIND",
    "PAGE",
    "SHA256",
    "TOKEN",
    "TOKEN_OPTIONAL",
    "binary_answer",
    "body",
    "combine",
    "errors",
    "event_stream",
    "json_answer",
    "listing",
    "openapi_of",
    "operation",
    "operations_of",
    "side_of",
]

MAX_ID: Final = 10**18 - 1

JSON: Final = "application/json"


def json_answer(schema: dict[str, Any], description: str) -> dict[str, Any]:
    """A JSON answer of ``schema``."""
    return {"description": description, "content": {JSON: {"schema": schema}}}


def listing(name: str, description: str) -> dict[str, Any]:
    """A JSON answer that is a list of the records ``name``."""
    return json_answer({"type": "array", "items": ref(name)}, description)


def binary_answer(media_type: str, description: str) -> dict[str, Any]:
    """An answer of bytes of ``media_type``."""
    return {"description": description, "content": {media_type: {"schema": BINARY}}}


def body(*media_types: str, schema: dict[str, Any] = BINARY) -> dict[str, Any]:
    """A required request body of ``schema`` in each of ``media_types``."""
    return {"required": True, "content": {t: {"schema": schema} for t in media_types}}


_ERRORS: Final = {
    "400": "bad input: the message says what is wrong (a Host name the server does not"
    " answer to, too)",
    "401": "a token is needed, or the one given is wrong (refused on every route)",
    "403": "the token's role cannot call this route (a push or worker token on the console's, ...)",
    "404": "no such record (or a hidden one, without the token); a request naming a"
    " controller that is not stored",
    "408": "the body took too long to arrive",
    "409": "a conflict the message names: the name is another module's already (a name means"
    " one module: `holder` gives that module's sha256), a worker gone, or a worker's local"
    " run held for review (never published)",
    "413": "the body is over the size limit",
    "429": "too much at once: try again after Retry-After seconds",
    "500": "a stored file is damaged (detected by its sha256)",
    "503": "the store is busy, full or read-only, or the server is stopping",
}


def errors(*codes: str) -> dict[str, Any]:
    """The error answers ``codes`` (each a JSON ``Error``; 429 and 503 with Retry-After)."""
    out: dict[str, Any] = {}
    for code in codes:
        response = json_answer(ref("Error"), _ERRORS[code])
        if code in ("429", "503"):
            response["headers"] = {
                "Retry-After": {"schema": {"type": "integer"}, "description": "seconds"}
            }
        out[code] = response
    return out


def event_stream(event: str, schema: str) -> dict[str, Any]:
    """A server-sent event stream of ``event``s, the data of each a ``schema``; in OpenAPI 3.1
    the schema describes one event."""
    return {
        "description": "the event stream",
        "content": {
            "text/event-stream": {
                "schema": {
                    "type": "object",
                    "required": ["event", "data"],
                    "properties": {
                        "event": {"const": event},
                        "id": {"type": "string"},
                        "data": {
                            "type": "string",
                            "contentMediaType": "application/json",
                            "contentSchema": ref(schema),
                        },
                    },
                }
            }
        },
    }


ID: Final = {
    "name": "id",
    "in": "path",
    "required": True,
    "schema": {"type": "integer", "minimum": 0, "maximum": MAX_ID},
}
SHA256: Final = {
    "name": "sha256",
    "in": "path",
    "required": True,
    "schema": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
}
PAGE: Final = [
    {
        "name": "limit",
        "in": "query",
        "required": False,
        "schema": {"type": "integer", "minimum": 1, "maximum": 500, "default": 50},
    },
    {
        "name": "before",
        "in": "query",
        "required": False,
        "description": "only records with a smaller id (the last id of the previous page)",
        "schema": {"type": "integer", "minimum": 1, "maximum": MAX_ID},
    },
]
KIND: Final = {
    "name": "kind",
    "in": "query",
    "required": False,
    "description": "`quick`: only quick matches (of no tournament and no run)",
    "schema": {"enum": ["quick"]},
}
TOKEN: Final[list[dict[str, list[str]]]] = [{"bearer": []}]
TOKEN_OPTIONAL: Final[list[dict[str, list[str]]]] = [{}, {"bearer": []}]

E = TypeVar("E", bound=Callable[..., Any])

_OPERATIONS: Final = "openapi_operations"
"""The attribute of an endpoint that holds its operations, by lower-case method."""
SIDE: Final = "x-side"
"""The key of an operation that names its side: public, console, worker or push."""


def operation(
    method: str, summary: str, responses: dict[str, Any], *, side: Side, **more: Any
) -> Callable[[E], E]:
    """Describe what the decorated endpoint answers to ``method`` and on which ``side`` of
    the site it is (``more``: parameters, requestBody).

    Every route can answer 400 (a Host the server does not answer to) and 401 (a
    wrong token, on a read too): both are added to ``responses``; a route of
    any side but the public one needs a token (``security``) and can answer 403
    (a token of another role). The side is enforced from here (``web._api``).
    """

    def describe(endpoint: E) -> E:
        public = side is Side.PUBLIC
        every = {**errors("400", "401", *(() if public else ("403",))), **responses}
        described = {
            "summary": summary,
            "responses": {code: every[code] for code in sorted(every)},
            "security": TOKEN_OPTIONAL if public else TOKEN,
            SIDE: str(side),
            **more,
        }
        setattr(endpoint, _OPERATIONS, {**operations_of(endpoint), method: described})
        return endpoint

    return describe


def operations_of(endpoint: Callable[..., Any]) -> dict[str, dict[str, Any]]:
    """The operations described on ``endpoint``, by method (none for a page or a mount)."""
    operations: dict[str, dict[str, Any]] = getattr(endpoint, _OPERATIONS, {})
    return operations


def side_of(endpoint: Callable[..., Any], method: str) -> Side | None:
    """The side ``operation`` gave ``endpoint``'s ``method`` (HEAD: GET's), if it described it."""
    described = operations_of(endpoint).get("get" if method.lower() == "head" else method.lower())
    return None if described is None else Side(described[SIDE])


def combine(endpoint: E, *described: Callable[..., Any]) -> E:
    """Give ``endpoint`` (one for several methods) the operations of the ``described``."""
    operations: dict[str, dict[str, Any]] = {}
    for part in described:
        operations.update(operations_of(part))
    setattr(endpoint, _OPERATIONS, operations)
    return endpoint


_METHODS: Final = ("get", "post", "put", "patch", "delete", "options")
"""The order of a path's operations in the document: a route's methods are a set, whose order
changes with the interpreter's hash seed, and the same routes give the same bytes."""


def _method_order(method: str) -> tuple[int, str]:
    return (_METHODS.index(method) if method in _METHODS else len(_METHODS), method)


class _Generator(BaseSchemaGenerator):
    """Starlette's walk of the routes, each endpoint's operations read from what ``operation``
    put on it (Starlette's ``SchemaGenerator`` parses YAML in the docstring instead)."""

    def get_schema(self, routes: list[BaseRoute]) -> dict[str, Any]:
        paths: dict[str, dict[str, Any]] = {}
        for endpoint in self.get_endpoints(routes):
            described = operations_of(endpoint.func).get(endpoint.http_method)
            if described is not None:
                paths.setdefault(endpoint.path, {})[endpoint.http_method] = described
        return {
            "openapi": "3.1.0",
            "info": {
                "title": "Foray Arena",
                "version": "1",
                "description": (
                    "Controllers, quick matches, proof runs and tournaments of the arena. Each"
                    " operation is on one side (`x-side`): public (anyone; without a console"
                    " token only what is published), console, worker or push, the last three"
                    " with `Authorization: Bearer <token>` of that role (a console token may"
                    " push too). Errors are JSON objects with a message in `error`."
                ),
            },
            "paths": {
                path: {m: ops[m] for m in sorted(ops, key=_method_order)}
                for path, ops in paths.items()
            },
            "components": {
                "schemas": SCHEMAS,
                "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            },
        }


def openapi_of(routes: list[BaseRoute]) -> dict[str, Any]:
    """The document of the operations described on ``routes``' endpoints."""
    return _Generator().get_schema(routes)
