"""The OpenAPI 3.1 document of the site's JSON API, served at ``/openapi.json``.

Written by hand, from small helpers, rather than generated from docstrings: it
states every status each route can answer (schemathesis checks that), the
shape of every JSON answer, and which routes need the token. A test checks
that it names every route of the app and no other, and that it is valid.
"""

from __future__ import annotations

import functools
from typing import Any, Final

__all__ = ["openapi_document"]

MAX_ID: Final = 10**18 - 1

_JSON = "application/json"


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {_JSON: {"schema": schema}}}


_ERRORS: Final = {
    "400": "bad input: the message says what is wrong",
    "401": "a token is needed, or the one given is wrong",
    "404": "no such record (or a hidden one, without the token); a request naming a"
    " controller that is not stored",
    "408": "the body took too long to arrive",
    "409": "the name is another module's already (a name means one module): the message and"
    " `holder` give that module's sha256",
    "413": "the body is over the size limit",
    "429": "too much at once: try again after Retry-After seconds",
    "500": "a stored file is damaged (detected by its sha256)",
    "503": "the store is busy, full or read-only, or the server is stopping",
}


def _errors(*codes: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for code in codes:
        response = _json(_ref("Error"), _ERRORS[code])
        if code in ("429", "503"):
            response["headers"] = {
                "Retry-After": {"schema": {"type": "integer"}, "description": "seconds"}
            }
        out[code] = response
    return out


_ID: Final = {
    "name": "id",
    "in": "path",
    "required": True,
    "schema": {"type": "integer", "minimum": 0, "maximum": MAX_ID},
}
_SHA256: Final = {
    "name": "sha256",
    "in": "path",
    "required": True,
    "schema": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
}
_PAGE: Final = [
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
_TOKEN: Final[list[dict[str, list[str]]]] = [{"bearer": []}]
_TOKEN_OPTIONAL: Final[list[dict[str, list[str]]]] = [{}, {"bearer": []}]


def _op(summary: str, responses: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"summary": summary, "responses": responses, **more}


def _sse(description: str, event: str, schema: str) -> dict[str, Any]:
    """A server-sent event stream; in OpenAPI 3.1 the schema describes one event."""
    return {
        "description": description,
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
                            "contentSchema": _ref(schema),
                        },
                    },
                }
            }
        },
    }


_NULLABLE_STR: Final = {"type": ["string", "null"]}
_SIDE: Final = {
    "type": "object",
    "required": ["name", "sha256"],
    "properties": {
        "name": {"type": "string"},
        "sha256": {"type": "string"},
        "banked": {"type": "integer"},
        "fuel_total": {"type": "integer"},
        "fuel_peak": {"type": "integer"},
        "forfeit": {
            "oneOf": [
                {"type": "null"},
                {
                    "type": "object",
                    "required": ["tick", "kind", "detail"],
                    "properties": {
                        "tick": {"type": "integer"},
                        "kind": {"type": "string"},
                        "detail": {"type": "string"},
                    },
                },
            ]
        },
    },
}

_CASE: Final = {
    "type": "object",
    "required": ["slug", "version", "manifest_sha256"],
    "properties": {
        "slug": {"type": "string"},
        "version": {"type": "integer"},
        "manifest_sha256": {"type": "string"},
    },
}
_RUN_CONTROLLER: Final = {
    "type": "object",
    "required": ["name", "sha256"],
    "properties": {"name": {"type": "string"}, "sha256": _NULLABLE_STR},
}
_RUN_OUTCOME: Final = {"enum": ["win", "loss", "draw", "could-not-compete"]}
_NAME: Final = {
    "description": "a name or a sha256: 1 to 256 characters, no control characters",
    "type": "string",
    "minLength": 1,
    "maxLength": 256,
    "pattern": "^[^\\x00-\\x1f\\x7f-\\x9f]+$",
}
_BINARY: Final = {"type": "string", "format": "binary"}

_SCHEMAS: Final[dict[str, Any]] = {
    "Error": {
        "type": "object",
        "required": ["error"],
        "properties": {
            "error": {"type": "string"},
            "sha256": {"description": "a module refused: its sha256", "type": "string"},
            "reason": {"description": "why it is not admissible", "type": ["string", "null"]},
            "holder": {"description": "409: the module the name is taken by", "type": "string"},
        },
    },
    "Controller": {
        "type": "object",
        "required": ["name", "sha256", "origin", "hidden", "size", "created_at"],
        "properties": {
            "name": {"type": "string"},
            "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
            "origin": {"enum": ["baseline", "file", "upload", "run"]},
            "hidden": {"type": "boolean"},
            "size": {"type": "integer"},
            "created_at": {"type": "string"},
        },
    },
    "Match": {
        "description": (
            "A match. Pending: id, status, seed, sides (name, sha256), stage (queued or "
            "running) and position in the queue. Finished: the result with the keys of "
            "`arena match --json` (winner, reason, ticks, seed, replay (its URL), "
            "replay_sha256, sides). Error: the reason in `error`."
        ),
        "type": "object",
        "required": ["id", "status", "seed", "sides"],
        "properties": {
            "id": {"type": "integer"},
            "status": {"enum": ["pending", "finished", "error"]},
            "seed": {"type": "integer"},
            "winner": {"type": ["integer", "null"]},
            "reason": {"type": "string"},
            "ticks": {"type": "integer"},
            "replay": {"type": "string"},
            "replay_sha256": {"type": "string"},
            "sides": {"type": "array", "items": _SIDE, "minItems": 2, "maxItems": 2},
            "error": _NULLABLE_STR,
            "stage": {"enum": ["queued", "running", None]},
            "position": {"type": ["integer", "null"]},
            "created_at": {"type": "string"},
            "finished_at": _NULLABLE_STR,
            "tournament_id": {"type": ["integer", "null"]},
            "run_id": {"type": ["integer", "null"]},
        },
    },
    "MatchRequest": {
        "type": "object",
        "required": ["a", "b"],
        "additionalProperties": False,
        "properties": {
            "a": _NAME,
            "b": _NAME,
            "seed": {"type": "integer", "minimum": 0, "maximum": 4294967295},
        },
    },
    "Run": {
        "description": "A proof run as `arena runs --json` lists it (`matches`: how many).",
        "type": "object",
        "required": ["run", "case", "controller", "outcome", "reason", "matches", "created_at"],
        "properties": {
            "run": {"type": "integer"},
            "case": _CASE,
            "controller": _RUN_CONTROLLER,
            "outcome": _RUN_OUTCOME,
            "reason": _NULLABLE_STR,
            "matches": {"type": "integer"},
            "created_at": {"type": "string"},
        },
    },
    "RunDetail": {
        "description": (
            "A proof run as `arena runs show --json` gives it; each match adds its `id` and"
            " the controller's `side`, and its `result` is the match JSON of this API."
        ),
        "type": "object",
        "required": [
            "run",
            "case",
            "controller",
            "outcome",
            "reason",
            "matches",
            "created_at",
            "build_log",
        ],
        "properties": {
            "run": {"type": "integer"},
            "case": _CASE,
            "controller": _RUN_CONTROLLER,
            "outcome": _RUN_OUTCOME,
            "reason": _NULLABLE_STR,
            "created_at": {"type": "string"},
            "matches": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["id", "opponent", "role", "scored", "side", "outcome", "result"],
                    "properties": {
                        "id": {"type": "integer"},
                        "opponent": {"type": "string"},
                        "role": {"enum": ["canonical", "evidence", "exhibition"]},
                        "scored": {"type": "boolean"},
                        "side": {"enum": [0, 1]},
                        "outcome": {"enum": ["win", "loss", "draw", None]},
                        "result": _ref("Match"),
                    },
                },
            },
            "build_log": {"type": "string"},
        },
    },
    "Tournament": {
        "type": "object",
        "required": ["id", "format", "status", "field", "seeds", "matches", "created_at"],
        "properties": {
            "id": {"type": "integer"},
            "format": {"type": "string"},
            "status": {"enum": ["running", "finished", "failed"]},
            "field": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["name", "sha256"],
                    "properties": {"name": {"type": "string"}, "sha256": {"type": "string"}},
                },
            },
            "seeds": {"type": "array", "items": {"type": "integer"}},
            "matches": {"type": "integer"},
            "planned": {"type": ["integer", "null"]},
            "error": _NULLABLE_STR,
            "created_at": {"type": "string"},
            "finished_at": _NULLABLE_STR,
        },
    },
    "TournamentDetail": {
        "allOf": [
            _ref("Tournament"),
            {
                "type": "object",
                "required": ["standings", "stages"],
                "properties": {
                    "standings": {
                        "description": "the standings rows, best first (live while it runs)",
                        "type": "array",
                        "items": {"type": "object"},
                    },
                    "stages": {
                        "description": "the pairings: per stage, its meetings and their matches",
                        "type": "array",
                        "items": {"type": "object"},
                    },
                },
            },
        ]
    },
    "TournamentRequest": {
        "type": "object",
        "required": ["format", "field"],
        "additionalProperties": False,
        "properties": {
            "format": {"enum": ["round-robin", "bracket", "swiss", "gauntlet"]},
            "field": {
                "type": "array",
                "minItems": 2,
                "maxItems": 64,
                "uniqueItems": True,
                "items": _NAME,
            },
            "seeds": {
                "type": "array",
                "minItems": 1,
                "maxItems": 16,
                "items": {"type": "integer", "minimum": 0, "maximum": 4294967295},
            },
            "rounds": {"type": "integer", "minimum": 1, "maximum": 64},
            "shuffle": {"type": "integer", "minimum": 0, "maximum": 4294967295},
        },
    },
    "Bundle": {
        "description": (
            "A proof run as `arena push` sends it (docs/web.md, Push): one msgpack map;"
            " `controller.module` and each match's `replay` are msgpack bin. A bundle of the"
            " right shape is still refused (400) unless its case is the server's and every"
            " match, played again, gives the very same replay bytes."
        ),
        "type": "object",
        "required": [
            "format",
            "version",
            "case",
            "controller",
            "outcome",
            "reason",
            "build_log",
            "matches",
        ],
        "additionalProperties": False,
        "properties": {
            "format": {"const": "foray-run-bundle"},
            "version": {"const": 1},
            "case": {
                "type": "object",
                "required": ["slug", "version", "manifest_sha256"],
                "additionalProperties": False,
                "properties": {
                    "slug": {"type": "string", "minLength": 1, "maxLength": 256},
                    "version": {"type": "integer", "minimum": 1, "maximum": 2**31 - 1},
                    "manifest_sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
                },
            },
            "controller": {
                "type": "object",
                "required": ["name", "module"],
                "additionalProperties": False,
                "properties": {
                    "name": {"type": "string", "minLength": 1, "maxLength": 256},
                    "module": _BINARY,
                },
            },
            "outcome": {"enum": ["win", "loss", "draw"]},
            "reason": _NULLABLE_STR,
            "build_log": {"type": "string", "maxLength": 65536},
            "matches": {
                "type": "array",
                "maxItems": 1024,
                "items": {
                    "type": "object",
                    "required": ["opponent", "role", "result", "replay"],
                    "additionalProperties": False,
                    "properties": {
                        "opponent": {"type": "string", "minLength": 1, "maxLength": 256},
                        "role": {"type": "string", "minLength": 1, "maxLength": 256},
                        "result": {"type": "object", "maxProperties": 64},
                        "replay": _BINARY,
                    },
                },
            },
        },
    },
    "Status": {
        "type": "object",
        "required": ["case", "workers", "queue", "running", "waiting"],
        "properties": {
            "case": {"type": "object"},
            "workers": {"type": "integer"},
            "queue": {
                "type": "object",
                "required": ["capacity", "accepted"],
                "properties": {
                    "capacity": {"type": "integer"},
                    "accepted": {"type": "integer"},
                },
            },
            "running": {"type": "integer"},
            "waiting": {"type": "integer"},
        },
    },
}


def _list(name: str, description: str) -> dict[str, Any]:
    return _json({"type": "array", "items": _ref(name)}, description)


_PATHS: Final[dict[str, Any]] = {
    "/openapi.json": {
        "get": _op(
            "this document",
            {"200": _json({"type": "object"}, "the OpenAPI document")},
            security=[{}],
        )
    },
    "/api/status": {
        "get": _op("the match queue and the workers", {"200": _json(_ref("Status"), "now")})
    },
    "/api/controllers": {
        "get": _op(
            "the stored controllers (the hidden ones only with the token)",
            {"200": _list("Controller", "by name"), **_errors("401", "503")},
            security=_TOKEN_OPTIONAL,
        ),
        "post": _op(
            "upload a controller's module: checked for admissibility, stored by sha256",
            {
                "201": _json(
                    _ref("Controller"),
                    "admitted and stored, or stored already (deduplicated by sha256): the"
                    " record, with the name it was first stored under",
                ),
                **_errors("400", "401", "408", "409", "413", "429", "503"),
            },
            parameters=[
                {
                    "name": "name",
                    "in": "query",
                    "required": True,
                    "schema": _NAME,
                }
            ],
            requestBody={
                "required": True,
                "content": {
                    "application/wasm": {"schema": _BINARY},
                    "application/octet-stream": {"schema": _BINARY},
                },
            },
            security=_TOKEN,
        ),
    },
    "/api/controllers/{sha256}/module": {
        "get": _op(
            "a controller's module (never a hidden one without the token)",
            {
                "200": {
                    "description": "the module's bytes",
                    "content": {
                        "application/wasm": {"schema": {"type": "string", "format": "binary"}}
                    },
                },
                **_errors("401", "404", "500", "503"),
            },
            parameters=[_SHA256],
            security=_TOKEN_OPTIONAL,
        )
    },
    "/api/matches": {
        "get": _op(
            "the most recent matches first",
            {"200": _list("Match", "a page"), **_errors("400", "503")},
            parameters=_PAGE,
        ),
        "post": _op(
            "queue a quick match of two controllers (names or sha256s) under the server's case",
            {
                "202": _json(_ref("Match"), "queued: its id (follow /events or poll)"),
                **_errors("400", "401", "404", "408", "413", "429", "500", "503"),
            },
            requestBody={"required": True, "content": {_JSON: {"schema": _ref("MatchRequest")}}},
            security=_TOKEN,
        ),
    },
    "/api/matches/{id}": {
        "get": _op(
            "a match: its status, then its result",
            {"200": _json(_ref("Match"), "the match"), **_errors("404", "503")},
            parameters=[_ID],
        )
    },
    "/api/matches/{id}/replay": {
        "get": _op(
            "a finished match's replay, streamed as it is read (checked by its sha256)",
            {
                "200": {
                    "description": "the msgpack replay",
                    "content": {
                        "application/x-msgpack": {"schema": {"type": "string", "format": "binary"}}
                    },
                },
                **_errors("404", "500", "503"),
            },
            parameters=[_ID],
        )
    },
    "/api/matches/{id}/events": {
        "get": _op(
            "the match's progress as server-sent events (event `match`, data: the match JSON),"
            " until it is finished or in error",
            {"200": _sse("the event stream", "match", "Match"), **_errors("404", "429", "503")},
            parameters=[_ID],
        )
    },
    "/api/runs": {
        "get": _op(
            "the most recent proof runs first",
            {"200": _list("Run", "a page"), **_errors("400", "503")},
            parameters=_PAGE,
        ),
        "post": _op(
            "push a proof run (a bundle, see docs/web.md): every match is played again and must"
            " give the same replay bytes",
            {
                "200": _json(_ref("Run"), "this run is here already: nothing changed"),
                "201": _json(_ref("Run"), "checked and recorded"),
                **_errors("400", "401", "408", "409", "413", "429", "503"),
            },
            requestBody={
                "required": True,
                "content": {"application/x-msgpack": {"schema": _ref("Bundle")}},
            },
            security=_TOKEN,
        ),
    },
    "/api/runs/{id}": {
        "get": _op(
            "a run with its matches and build log",
            {"200": _json(_ref("RunDetail"), "the run"), **_errors("404", "503")},
            parameters=[_ID],
        )
    },
    "/api/tournaments": {
        "get": _op(
            "the most recent tournaments first",
            {"200": _list("Tournament", "a page"), **_errors("400", "503")},
            parameters=_PAGE,
        ),
        "post": _op(
            "start a tournament over stored controllers (names or sha256s)",
            {
                "202": _json(_ref("Tournament"), "started: follow /events"),
                **_errors("400", "401", "404", "408", "413", "429", "500", "503"),
            },
            requestBody={
                "required": True,
                "content": {_JSON: {"schema": _ref("TournamentRequest")}},
            },
            security=_TOKEN,
        ),
    },
    "/api/tournaments/{id}": {
        "get": _op(
            "a tournament: standings (live while it runs) and pairings",
            {"200": _json(_ref("TournamentDetail"), "the tournament"), **_errors("404", "503")},
            parameters=[_ID],
        )
    },
    "/api/tournaments/{id}/events": {
        "get": _op(
            "live standings as server-sent events (event `tournament`, data: the tournament"
            " JSON), until it is finished or failed",
            {
                "200": _sse("the event stream", "tournament", "TournamentDetail"),
                **_errors("404", "429", "503"),
            },
            parameters=[_ID],
        )
    },
}


@functools.cache
def openapi_document() -> dict[str, Any]:
    """The document (built once)."""
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Foray Arena",
            "version": "1",
            "description": (
                "Controllers, quick matches, proof runs and tournaments of the arena. Reads are"
                " public; writes need `Authorization: Bearer <token>`. Errors are JSON objects"
                " with a message in `error`."
            ),
        },
        "paths": _PATHS,
        "components": {
            "schemas": _SCHEMAS,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }
