"""The names of ``sim``, each once; ``__init__.py`` loads them on first use."""

from ._actions import (
    ATTACK as ATTACK,
    DEPOSIT as DEPOSIT,
    DIRECTION_DELTAS as DIRECTION_DELTAS,
    EAST as EAST,
    MAX_NOTE_BYTES as MAX_NOTE_BYTES,
    MINE as MINE,
    MOVE as MOVE,
    NOOP as NOOP,
    NORTH as NORTH,
    SOLDIER as SOLDIER,
    SOUTH as SOUTH,
    SPAWN as SPAWN,
    WEST as WEST,
    WORKER as WORKER,
    Direction as Direction,
    ForfeitKind as ForfeitKind,
    Op as Op,
    OreRecord as OreRecord,
    Reason as Reason,
    Record as Record,
    UnitKind as UnitKind,
    UnitRecord as UnitRecord,
    validate_actions as validate_actions,
)
from ._checksum import UnitWords as UnitWords
from ._config import (
    Config as Config,
    ConfigError as ConfigError,
)
from ._explain import (
    ActionReport as ActionReport,
    Fate as Fate,
    explain_tick as explain_tick,
)
from ._game import Game as Game
from ._mapgen import (
    GENERATOR_VERSION as GENERATOR_VERSION,
    generate_map as generate_map,
)
from ._maps import (
    GameMap as GameMap,
    MapError as MapError,
    check_map as check_map,
    format_map as format_map,
    parse_map as parse_map,
)
from ._native import (
    NativeCore as NativeCore,
    NativeLoader as NativeLoader,
    native_core as native_core,
    native_unavailable as native_unavailable,
)
from ._observer import (
    FlatObservation as FlatObservation,
    Observation as Observation,
)
from ._rules import (
    RULES_VERSION as RULES_VERSION,
    Forfeit as Forfeit,
    Outcome as Outcome,
    TickEvents as TickEvents,
    forfeit_outcome as forfeit_outcome,
    judge as judge,
)
from ._units import (
    SideState as SideState,
    Unit as Unit,
)
