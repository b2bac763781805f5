"""Matches: the contract codec (rules §9), the match runner, and resolving contestants.

``run_match`` is the one place a match is played; executors call it, in this
process or in workers.
"""

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
from arena.match._rematch import Rematch, rematch, replay_matches
from arena.match._resolve import MAX_MAP_BYTES, load_contestant, load_map
from arena.match._runner import Contestant, MatchResult, SideResult, run_match

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
