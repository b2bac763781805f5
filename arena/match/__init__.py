"""Matches: the contract codec (rules §9), the match runner, and resolving contestants.

``run_match`` is the one place a match is played; executors call it, in this
process or in workers. It and the rematch that plays a replay again load on
first use, and with them the sandbox's engine: the codec, the records of a
match and ``load_map`` never load wasmtime.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena._lazy import lazy_names
from arena.match._contract import (
    ABI_VERSION,
    ObservationError,
    decode_actions,
    decode_obs,
    encode_init,
    encode_obs,
    encode_obs_flat,
    encode_obs_for,
)
from arena.match._fuel import FuelStats
from arena.match._resolve import MAX_MAP_BYTES, load_contestant, load_map
from arena.match._result import Contestant, MatchResult, SideResult

if TYPE_CHECKING:
    from arena.match._rematch import Rematch, rematch, replay_matches
    from arena.match._runner import run_match

# What plays loads on first use (PEP 562): the runner imports the sandbox's engine.
_LAZY = {
    **dict.fromkeys(("Rematch", "rematch", "replay_matches"), "arena.match._rematch"),
    "run_match": "arena.match._runner",
}

__all__ = [
    "ABI_VERSION",
    "MAX_MAP_BYTES",
    "Contestant",
    "FuelStats",
    "MatchResult",
    "ObservationError",
    "Rematch",
    "SideResult",
    "decode_actions",
    "decode_obs",
    "encode_init",
    "encode_obs",
    "encode_obs_flat",
    "encode_obs_for",
    "load_contestant",
    "load_map",
    "rematch",
    "replay_matches",
    "run_match",
]

__getattr__, __dir__ = lazy_names(__name__, _LAZY, globals(), __all__)
