"""The arena: hosts untrusted wasm controllers and plays Foray matches between them.

The public facade over the sub-packages (sandbox, match, executors, tournament,
store, coordinator, baselines, bench, cli); ``web`` and other callers use only these names.
Names load on first use (PEP 562), so a command that never plays a match never
imports wasmtime.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from arena._errors import ArenaError, UnknownControllerError
from arena._files import atomic_write, data_dir

if TYPE_CHECKING:
    from arena.baselines import BASELINES, Baseline, load_baseline
    from arena.coordinator import (
        CoordinatorStats,
        MatchPlayer,
        TournamentProgress,
        TournamentResult,
        create_tournament,
        make_executor,
        played_of,
        run_tournament,
        run_tournament_sync,
        store_contestant,
        tournament_json,
        tournament_plan,
        tournament_standings,
    )
    from arena.executors import LocalExecutor, MatchJob, play
    from arena.match import (
        ABI_VERSION,
        Contestant,
        FuelStats,
        MatchResult,
        SideResult,
        decode_actions,
        decode_obs,
        encode_init,
        encode_obs,
        load_contestant,
        load_map,
        replay_matches,
        run_match,
    )
    from arena.sandbox import (
        BUFFER_BYTES,
        MAX_MODULE_BYTES,
        WASMTIME_VERSION,
        Admission,
        Controller,
        Fault,
        Limits,
        check_module,
    )
    from arena.store import (
        ControllerRecord,
        CorruptFileError,
        Entrant,
        MatchRecord,
        MatchStatus,
        NotInStoreError,
        Origin,
        ReplayStream,
        ResultRecord,
        Role,
        RunMatch,
        RunOutcome,
        RunRecord,
        SideRecord,
        Store,
        StoreBusyError,
        StoreError,
        StoreVersionError,
        TournamentRecord,
        TournamentStatus,
    )
    from arena.tournament import (
        Format,
        Pairing,
        Played,
        ScheduleMismatchError,
        Scheduler,
        Standings,
        TournamentPlan,
        TournamentSetupError,
    )

__all__ = [
    "ABI_VERSION",
    "BASELINES",
    "BUFFER_BYTES",
    "MAX_MODULE_BYTES",
    "WASMTIME_VERSION",
    "Admission",
    "ArenaError",
    "Baseline",
    "Contestant",
    "Controller",
    "ControllerRecord",
    "CoordinatorStats",
    "CorruptFileError",
    "Entrant",
    "Fault",
    "Format",
    "FuelStats",
    "Limits",
    "LocalExecutor",
    "MatchJob",
    "MatchPlayer",
    "MatchRecord",
    "MatchResult",
    "MatchStatus",
    "NotInStoreError",
    "Origin",
    "Pairing",
    "Played",
    "ReplayStream",
    "ResultRecord",
    "Role",
    "RunMatch",
    "RunOutcome",
    "RunRecord",
    "ScheduleMismatchError",
    "Scheduler",
    "SideRecord",
    "SideResult",
    "Standings",
    "Store",
    "StoreBusyError",
    "StoreError",
    "StoreVersionError",
    "TournamentPlan",
    "TournamentProgress",
    "TournamentRecord",
    "TournamentResult",
    "TournamentSetupError",
    "TournamentStatus",
    "UnknownControllerError",
    "atomic_write",
    "check_module",
    "create_tournament",
    "data_dir",
    "decode_actions",
    "decode_obs",
    "encode_init",
    "encode_obs",
    "load_baseline",
    "load_contestant",
    "load_map",
    "make_executor",
    "play",
    "played_of",
    "replay_matches",
    "run_match",
    "run_tournament",
    "run_tournament_sync",
    "store_contestant",
    "tournament_json",
    "tournament_plan",
    "tournament_standings",
]

# Lazily loaded name -> the sub-package that defines it.
_LAZY = {
    **dict.fromkeys(("BASELINES", "Baseline", "load_baseline"), "arena.baselines"),
    **dict.fromkeys(("LocalExecutor", "MatchJob", "play"), "arena.executors"),
    **dict.fromkeys(
        (
            "CoordinatorStats",
            "MatchPlayer",
            "TournamentProgress",
            "TournamentResult",
            "create_tournament",
            "make_executor",
            "played_of",
            "run_tournament",
            "run_tournament_sync",
            "store_contestant",
            "tournament_json",
            "tournament_plan",
            "tournament_standings",
        ),
        "arena.coordinator",
    ),
    **dict.fromkeys(
        (
            "ABI_VERSION",
            "Contestant",
            "FuelStats",
            "MatchResult",
            "SideResult",
            "decode_actions",
            "decode_obs",
            "encode_init",
            "encode_obs",
            "load_contestant",
            "load_map",
            "replay_matches",
            "run_match",
        ),
        "arena.match",
    ),
    **dict.fromkeys(
        (
            "BUFFER_BYTES",
            "MAX_MODULE_BYTES",
            "WASMTIME_VERSION",
            "Admission",
            "Controller",
            "Fault",
            "Limits",
            "check_module",
        ),
        "arena.sandbox",
    ),
    **dict.fromkeys(
        (
            "Format",
            "Pairing",
            "Played",
            "ScheduleMismatchError",
            "Scheduler",
            "Standings",
            "TournamentPlan",
            "TournamentSetupError",
        ),
        "arena.tournament",
    ),
    **dict.fromkeys(
        (
            "ControllerRecord",
            "CorruptFileError",
            "Entrant",
            "MatchRecord",
            "MatchStatus",
            "NotInStoreError",
            "Origin",
            "ReplayStream",
            "ResultRecord",
            "Role",
            "RunMatch",
            "RunOutcome",
            "RunRecord",
            "SideRecord",
            "Store",
            "StoreBusyError",
            "StoreError",
            "StoreVersionError",
            "TournamentRecord",
            "TournamentStatus",
        ),
        "arena.store",
    ),
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'arena' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
