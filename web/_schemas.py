"""The shapes of the site's JSON records: the ``components`` of its OpenAPI document.

Each route's operation, beside its handler in ``web._api``, names these by
``ref``; the answers the tests check (tests/test_site.py) are validated
against them. A record's shape is the one ``Site``'s rooms answer with
(``web._controllers``, ``web._matches``, ``web._runs``, ``web._tournaments``),
so a key added there is added here.
"""

from __future__ import annotations

from typing import Any, Final

from web._field_schemas import FIELD_SCHEMAS

__all__ = ["BINARY", "MAX_FIELD", "MAX_SEEDS_TEXT", "NAME", "SCHEMAS", "SEEDS_TEXT", "ref"]


def ref(name: str) -> dict[str, str]:
    """A reference to the schema ``name`` of ``SCHEMAS``."""
    return {"$ref": f"#/components/schemas/{name}"}


_NULLABLE_STR: Final = {"type": ["string", "null"]}
_SIDE: Final = {
    "type": "object",
    "required": ["name", "sha256"],
    "properties": {
        "name": {"type": "string"},
        "sha256": {"type": "string"},
        "stored_as": {
            "description": (
                "the name the side's module was first stored under, where it played under"
                " another (only then; to the public side, only a name the public listing of"
                " controllers gives)"
            ),
            "type": "string",
        },
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
    "properties": {
        "name": {"type": "string"},
        "sha256": _NULLABLE_STR,
        "stored_as": {
            "description": (
                "the name the module was first stored under, where the run named it otherwise"
                " (only then)"
            ),
            "type": "string",
        },
    },
}
_RUN_OUTCOME: Final = {"enum": ["win", "loss", "draw", "could-not-compete"]}
MAX_FIELD: Final = 256
"""The most entrants a tournament started from the server takes (``SiteLimits.max_field``)."""
MAX_SEEDS_TEXT: Final = 1000
"""The longest seeds text a tournament request may give."""
SEEDS_TEXT: Final = (
    r"^[\s,]*[0-9]{1,10}(\s*-\s*[0-9]{1,10})?([\s,]+[0-9]{1,10}(\s*-\s*[0-9]{1,10})?)*[\s,]*$"
)
"""The seeds text's form (``arena.parse_seeds`` reads it: numbers and ranges)."""

NAME: Final = {
    "description": "a name or a sha256: 1 to 256 characters, none a control character (nor"
    " another that does not show as itself)",
    "type": "string",
    "minLength": 1,
    "maxLength": 256,
    "pattern": "^[^\\x00-\\x1f\\x7f-\\x9f]+$",
}
BINARY: Final = {"type": "string", "format": "binary"}

_WORKER: Final = {
    **NAME,
    "description": "the worker whose local runs the names or sha256s may be (docs/web.md,"
    " Workers): each is fetched from it and admitted as an upload first",
}

SCHEMAS: Final[dict[str, Any]] = {
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
            "name": {"type": "string", "description": "the name it was first stored under"},
            "also": {
                "description": (
                    "the other names it ran under (a pushed run's, a tournament entrant's);"
                    " filled in by the listing"
                ),
                "type": "array",
                "items": {"type": "string"},
            },
            "held_by": {
                "description": (
                    "a worker's local run fetched to be played: the worker (held for review"
                    " only, never published, deleted with its last quick match); else null"
                ),
                "type": ["string", "null"],
            },
            "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
            "origin": {"enum": ["baseline", "file", "upload", "run"]},
            "hidden": {"type": "boolean"},
            "size": {"type": "integer"},
            "created_at": {"type": "string"},
        },
    },
    "ControllerPage": {
        "description": (
            "A controller's page: its names, runs, tournaments (its standings row in each),"
            " its record against each opponent (each match from its side) and its openskill"
            " rating after each rated match, a series per tournament in schedule order."
            " Publicly, only what is published of it"
        ),
        "type": "object",
        "required": ["sha256", "name", "names", "runs", "tournaments", "fields", "record"],
        "properties": {
            "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
            "name": {"type": "string"},
            "names": {"type": "array", "items": {"type": "string"}},
            "origin": {"enum": ["baseline", "file", "upload", "run"]},
            "hidden": {"type": "boolean"},
            "module": {"type": "boolean", "description": "whether its module is served here"},
            "runs": {"type": "array", "items": {"type": "object"}},
            "tournaments": {"type": "array", "items": {"type": "object"}},
            "fields": {
                "description": "the fields it is an entrant of: the case and its standings row",
                "type": "array",
                "items": {"type": "object"},
            },
            "record": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["opponent", "wins", "losses", "draws", "matches"],
                    "properties": {
                        "opponent": {
                            "type": "object",
                            "required": ["name", "sha256"],
                            "properties": {
                                "name": {"type": "string"},
                                "sha256": {"type": "string"},
                            },
                        },
                        "wins": {"type": "integer"},
                        "losses": {"type": "integer"},
                        "draws": {"type": "integer"},
                        "matches": {"type": "array", "items": ref("MatchRow")},
                    },
                },
            },
            "ratings": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["tournament", "points"],
                    "properties": {
                        "tournament": {"type": "integer"},
                        "format": {"type": "string"},
                        "points": {"type": "array", "items": {"type": "object"}},
                    },
                },
            },
        },
    },
    "MatchRow": {
        "description": (
            "A settled match seen from one side (`side`: 0 is A): who won (a name, null for a"
            " draw or an error), that side's outcome, forfeit (its tick) and fuel, and its"
            " rating after it (null when the match is rated by nothing)"
        ),
        "type": "object",
        "required": [
            "id",
            "seed",
            "side",
            "winner",
            "outcome",
            "reason",
            "ticks",
            "forfeit",
            "fuel_total",
            "replay_sha256",
            "rating_after",
        ],
        "properties": {
            "id": {"type": "integer"},
            "seed": {"type": "integer"},
            "side": {"enum": [0, 1]},
            "a": {"type": "object"},
            "b": {"type": "object"},
            "winner": _NULLABLE_STR,
            "outcome": {"enum": ["win", "loss", "draw", "error"]},
            "reason": _NULLABLE_STR,
            "ticks": {"type": ["integer", "null"]},
            "forfeit": {"type": ["object", "null"]},
            "opponent_forfeit": {"type": ["object", "null"]},
            "fuel_total": {"type": ["integer", "null"]},
            "replay_sha256": _NULLABLE_STR,
            "replay": _NULLABLE_STR,
            "rating_after": {
                "oneOf": [
                    {"type": "null"},
                    {
                        "type": "object",
                        "required": ["mu", "sigma"],
                        "properties": {"mu": {"type": "number"}, "sigma": {"type": "number"}},
                    },
                ]
            },
            "tournament_id": {"type": ["integer", "null"]},
            "run_id": {"type": ["integer", "null"]},
        },
    },
    "HeadToHead": {
        "description": "every match between two entrants, from the first one's side",
        "type": "object",
        "required": ["a", "b", "wins_a", "wins_b", "draws", "matches"],
        "properties": {
            "a": {"type": "object"},
            "b": {"type": "object"},
            "wins_a": {"type": "integer"},
            "wins_b": {"type": "integer"},
            "draws": {"type": "integer"},
            "matches": {"type": "array", "items": ref("MatchRow")},
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
            "published": {"type": "boolean", "description": "whether the public site shows it"},
        },
    },
    "MatchRequest": {
        "type": "object",
        "required": ["a", "b"],
        "additionalProperties": False,
        "properties": {
            "a": NAME,
            "b": NAME,
            "seed": {"type": "integer", "minimum": 0, "maximum": 4294967295},
            "worker": _WORKER,
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
            "published": {"type": "boolean", "description": "whether the public site shows it"},
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
                    "required": [
                        "id",
                        "opponent",
                        "role",
                        "scored",
                        "side",
                        "outcome",
                        "result",
                        "replay_status",
                    ],
                    "properties": {
                        "id": {"type": "integer"},
                        "opponent": {"type": "string"},
                        "role": {"enum": ["canonical", "evidence", "exhibition"]},
                        "scored": {"type": "boolean"},
                        "side": {"enum": [0, 1]},
                        "outcome": {"enum": ["win", "loss", "draw", None]},
                        "result": ref("Match"),
                        "replay_status": {"enum": ["ok", "missing", "damaged", None]},
                    },
                },
            },
            "build_log": {"type": "string"},
            "published": {"type": "boolean", "description": "whether the public site shows it"},
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
            "published": {"type": "boolean", "description": "whether the public site shows it"},
            "seconds": {
                "description": "from its start to its finish, or to now while it runs",
                "type": "number",
            },
            "matches_per_second": {
                "description": "matches recorded per second of `seconds` (null before any)",
                "type": ["number", "null"],
            },
        },
    },
    "TournamentDetail": {
        "allOf": [
            ref("Tournament"),
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
    "Exclusion": {
        "type": "object",
        "required": ["name", "reason"],
        "additionalProperties": False,
        "properties": {
            "name": NAME,
            "reason": {"type": "string", "minLength": 1, "maxLength": 1000},
        },
    },
    "Inclusion": {
        "type": "object",
        "required": ["name"],
        "additionalProperties": False,
        "properties": {"name": NAME},
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
                "maxItems": MAX_FIELD,
                "uniqueItems": True,
                "items": NAME,
            },
            "seeds": {
                "description": (
                    "a list of unsigned 32-bit integers, or text as a person types them:"
                    " '0 1 2', '0,1,2', '0-15' (at most 16 seeds either way)"
                ),
                "oneOf": [
                    {
                        "type": "array",
                        "minItems": 1,
                        "maxItems": 16,
                        "items": {"type": "integer", "minimum": 0, "maximum": 4294967295},
                    },
                    {"type": "string", "maxLength": MAX_SEEDS_TEXT, "pattern": SEEDS_TEXT},
                ],
            },
            "rounds": {"type": "integer", "minimum": 1, "maximum": 64},
            "shuffle": {"type": "integer", "minimum": 0, "maximum": 4294967295},
            "worker": _WORKER,
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
                    "module": BINARY,
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
                        "replay": BINARY,
                    },
                },
            },
        },
    },
    "Status": {
        "type": "object",
        "description": "the case; the rest to a console token only",
        "required": ["case"],
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
    **FIELD_SCHEMAS,
}
