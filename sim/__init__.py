"""Foray, the game: maps, rules and state. Pure: no I/O, no clock, no wasm.

Everything a match needs to be resolved deterministically lives here; the arena
drives it with the controllers' actions.
"""

from sim._actions import (
    ATTACK,
    DEPOSIT,
    EAST,
    HERE,
    MINE,
    MOVE,
    NOOP,
    NORTH,
    SOLDIER,
    SOUTH,
    SPAWN,
    WEST,
    WORKER,
    Record,
    validate_actions,
)
from sim._config import Config, ConfigError
from sim._maps import (
    GENERATOR_VERSION,
    GameMap,
    MapError,
    check_map,
    format_map,
    generate_map,
    parse_map,
)
from sim._state import (
    RULES_VERSION,
    Game,
    Observation,
    Outcome,
    SideState,
    TickEvents,
    Unit,
    forfeit_outcome,
)

__all__ = [
    "ATTACK",
    "DEPOSIT",
    "EAST",
    "GENERATOR_VERSION",
    "HERE",
    "MINE",
    "MOVE",
    "NOOP",
    "NORTH",
    "RULES_VERSION",
    "SOLDIER",
    "SOUTH",
    "SPAWN",
    "WEST",
    "WORKER",
    "Config",
    "ConfigError",
    "Game",
    "GameMap",
    "MapError",
    "Observation",
    "Outcome",
    "Record",
    "SideState",
    "TickEvents",
    "Unit",
    "check_map",
    "forfeit_outcome",
    "format_map",
    "generate_map",
    "parse_map",
    "validate_actions",
]
