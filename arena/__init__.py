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
    from arena.cases import (
        Build,
        BuildStatus,
        Lang,
        Project,
        Proof,
        RunMatchReport,
        RunNotPlayedError,
        RunReport,
        build_submission,
        new_project,
        prove,
        run_json,
        run_report,
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
        encode_obs_flat,
        encode_obs_for,
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
    "Build",
    "BuildStatus",
    "Contestant",
    "Controller",
    "ControllerRecord",
    "CorruptFileError",
    "Entrant",
    "Fault",
    "Format",
    "FuelStats",
    "Lang",
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
    "Project",
    "Proof",
    "ReplayStream",
    "ResultRecord",
    "Role",
    "RunMatch",
    "RunMatchReport",
    "RunNotPlayedError",
    "RunOutcome",
    "RunRecord",
    "RunReport",
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
    "atomic_write",
    "build_submission",
    "check_module",
    "data_dir",
    "decode_actions",
    "decode_obs",
    "encode_init",
    "encode_obs",
    "encode_obs_flat",
    "encode_obs_for",
    "load_baseline",
    "load_contestant",
    "load_map",
    "new_project",
    "play",
    "prove",
    "replay_matches",
    "run_json",
    "run_match",
    "run_report",
]

# Lazily loaded name -> the sub-package that defines it.
_LAZY = {
    **dict.fromkeys(("BASELINES", "Baseline", "load_baseline"), "arena.baselines"),
    **dict.fromkeys(
        (
            "Build",
            "BuildStatus",
            "Lang",
            "Project",
            "Proof",
            "RunMatchReport",
            "RunNotPlayedError",
            "RunReport",
            "build_submission",
            "new_project",
            "prove",
            "run_json",
            "run_report",
        ),
        "arena.cases",
    ),
    **dict.fromkeys(("LocalExecutor", "MatchJob", "play"), "arena.executors"),
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
            "encode_obs_flat",
            "encode_obs_for",
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
