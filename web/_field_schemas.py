"""The shapes of the field's JSON records (issue 26), merged into ``web._schemas.SCHEMAS``:
what ``arena.field_json`` and ``Store.fields`` answer with (``GET /api/field...``)."""

from __future__ import annotations

from typing import Any, Final

__all__ = ["FIELD_SCHEMAS"]

_CASE: Final = {
    "type": "object",
    "required": ["slug", "version"],
    "properties": {"slug": {"type": "string"}, "version": {"type": "integer"}},
}
_COUNTS: Final = {
    "type": "object",
    "required": ["played", "pending", "total"],
    "properties": {
        "played": {"type": "integer", "description": "matches recorded between entrants ranked"},
        "pending": {"type": "integer", "description": "matches still to play among them"},
        "total": {"type": "integer"},
    },
}
_ROW: Final = {
    "type": "object",
    "required": [
        "rank", "name", "sha256", "wins", "losses", "draws", "played", "pending",
        "forfeits", "forfeit_kinds", "fuel_total", "rating", "baseline",
    ],
    "properties": {
        "rank": {"type": "integer", "minimum": 1},
        "name": {"type": "string"},
        "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
        "wins": {"type": "integer"},
        "losses": {"type": "integer"},
        "draws": {"type": "integer"},
        "errors": {"type": "integer", "description": "matches the arena could not play"},
        "played": {"type": "integer", "description": "its matches recorded (errors too)"},
        "pending": {"type": "integer", "description": "its matches still to play"},
        "forfeits": {"type": "integer"},
        "forfeit_kinds": {"type": "object", "additionalProperties": {"type": "integer"}},
        "fuel_total": {"type": "integer"},
        "rating": {
            "type": "object",
            "description": "openskill (Plackett-Luce): mu, sigma, and mu - 3 sigma",
            "required": ["mu", "sigma", "ordinal"],
            "properties": {
                "mu": {"type": "number"},
                "sigma": {"type": "number"},
                "ordinal": {"type": "number"},
            },
        },
        "baseline": {"type": "boolean", "description": "one of the case's opponents"},
    },
}  # fmt: skip

FIELD_SCHEMAS: Final[dict[str, Any]] = {
    "FieldList": {
        "type": "object",
        "required": ["fields"],
        "properties": {
            "fields": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["case", "entrants", "matches"],
                    "properties": {
                        "case": _CASE,
                        "tournament": {"type": "integer"},
                        "entrants": {"type": "integer"},
                        "matches": _COUNTS,
                    },
                },
            }
        },
    },
    "Field": {
        "type": "object",
        "required": ["case", "tournament", "entrants", "matches", "standings", "withdrawn"],
        "properties": {
            "case": _CASE,
            "tournament": {"type": "integer"},
            "entrants": {"type": "integer", "description": "entrants ranked (not withdrawn)"},
            "matches": _COUNTS,
            "standings": {"type": "array", "items": _ROW},
            "withdrawn": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["name", "sha256", "reason", "at"],
                    "properties": {
                        "name": {"type": "string"},
                        "sha256": {"type": "string"},
                        "reason": {"type": "string"},
                        "at": {"type": "string"},
                    },
                },
            },
        },
    },
}
