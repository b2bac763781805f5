"""Foray, the game: maps, rules and state. Pure: no I/O, no clock, no wasm.

Everything a match needs to be resolved deterministically lives here; the arena
drives it with the controllers' actions. The rules are docs/rules.md; code
comments cite its sections as "rules §N".
"""

from sim._actions import (
    ARG_RANGE,
    ATTACK,
    DEPOSIT,
    DIRECTION_DELTAS,
    EAST,
    HERE,
    MAX_NOTE_BYTES,
    MINE,
    MOVE,
    NOOP,
    NORTH,
    SOLDIER,
    SOUTH,
    SPAWN,
    WEST,
    WORKER,
    Direction,
    ForfeitKind,
    Op,
    OreRecord,
    Reason,
    Record,
    UnitKind,
    UnitRecord,
    validate_actions,
)
from sim._checksum import UnitWords
from sim._config import Config, ConfigError
from sim._explain import ActionReport, Fate, explain_tick
from sim._game import Game
from sim._maps import (
    GENERATOR_VERSION,
    GameMap,
    MapError,
    check_map,
    format_map,
    generate_map,
    parse_map,
)
from sim._observer import FlatObservation, Observation
from sim._rules import RULES_VERSION, Forfeit, Outcome, TickEvents, forfeit_outcome
from sim._units import SideState, Unit

__all__ = [
    "ARG_RANGE",
    "ATTACK",
    "DEPOSIT",
    "DIRECTION_DELTAS",
    "EAST",
    "GENERATOR_VERSION",
    "HERE",
    "MAX_NOTE_BYTES",
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
    "ActionReport",
    "Config",
    "ConfigError",
    "Direction",
    "Fate",
    "FlatObservation",
    "Forfeit",
    "ForfeitKind",
    "Game",
    "GameMap",
    "MapError",
    "Observation",
    "Op",
    "OreRecord",
    "Outcome",
    "Reason",
    "Record",
    "SideState",
    "TickEvents",
    "Unit",
    "UnitKind",
    "UnitRecord",
    "UnitWords",
    "check_map",
    "explain_tick",
    "forfeit_outcome",
    "format_map",
    "generate_map",
    "parse_map",
    "validate_actions",
]
