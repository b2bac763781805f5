"""The arena: hosts untrusted wasm controllers and plays Foray matches between them.

The public facade over the sub-packages (sandbox, match, executors, tournament,
store, baselines, bench, cli); ``web`` and other callers use only these names.
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
    from arena.cases import Case, default_case, find_case
    from arena.cli import shown
    from arena.executors import (
        JobFailed,
        LocalExecutor,
        MatchJob,
        WorkerDied,
        WorkerPool,
        default_jobs,
        open_worker_pool,
        play,
    )
    from arena.match import (
        ABI_VERSION,
        Contestant,
        FuelStats,
        MatchResult,
        Rematch,
        SideResult,
        decode_actions,
        decode_obs,
        encode_init,
        encode_obs,
        load_contestant,
        load_map,
        rematch,
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
    "Case",
    "Contestant",
    "Controller",
    "ControllerRecord",
    "CorruptFileError",
    "Entrant",
    "Fault",
    "Format",
    "FuelStats",
    "JobFailed",
    "Limits",
    "LocalExecutor",
    "MatchJob",
    "MatchRecord",
    "MatchResult",
    "MatchStatus",
    "NotInStoreError",
    "Origin",
    "Pairing",
    "Played",
    "Rematch",
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
    "TournamentRecord",
    "TournamentSetupError",
    "TournamentStatus",
    "UnknownControllerError",
    "WorkerDied",
    "WorkerPool",
    "atomic_write",
    "check_module",
    "data_dir",
    "decode_actions",
    "decode_obs",
    "default_case",
    "default_jobs",
    "encode_init",
    "encode_obs",
    "find_case",
    "load_baseline",
    "load_contestant",
    "load_map",
    "open_worker_pool",
    "play",
    "rematch",
    "replay_matches",
    "run_match",
    "shown",
]

# Lazily loaded name -> the sub-package that defines it.
_LAZY = {
    **dict.fromkeys(("BASELINES", "Baseline", "load_baseline"), "arena.baselines"),
    **dict.fromkeys(("Case", "default_case", "find_case"), "arena.cases"),
    "shown": "arena.cli",
    **dict.fromkeys(
        (
            "JobFailed",
            "LocalExecutor",
            "MatchJob",
            "WorkerDied",
            "WorkerPool",
            "default_jobs",
            "open_worker_pool",
            "play",
        ),
        "arena.executors",
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
            "rematch",
            "Rematch",
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
