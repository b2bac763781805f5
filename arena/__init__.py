"""The arena: hosts untrusted wasm controllers and plays Foray matches between them.

The public facade over the sub-packages (sandbox, match, executors, baselines,
bench, cli); ``web`` and other callers use only these names. Names load on
first use (PEP 562), so a command that never plays a match never imports
wasmtime.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from arena._errors import ArenaError, UnknownControllerError
from arena._files import atomic_write, data_dir

if TYPE_CHECKING:
    from arena.baselines import BASELINES, Baseline, load_baseline
    from arena.executors import LocalExecutor, MatchJob, play
    from arena.match import (
        ABI_VERSION,
        Contestant,
        MatchResult,
        SideResult,
        decode_actions,
        encode_init,
        encode_obs,
        encode_obs_flat,
        encode_obs_for,
        load_contestant,
        load_map,
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
    "Fault",
    "Limits",
    "LocalExecutor",
    "MatchJob",
    "MatchResult",
    "SideResult",
    "UnknownControllerError",
    "atomic_write",
    "check_module",
    "data_dir",
    "decode_actions",
    "encode_init",
    "encode_obs",
    "encode_obs_flat",
    "encode_obs_for",
    "load_baseline",
    "load_contestant",
    "load_map",
    "play",
    "run_match",
]

# Lazily loaded name -> the sub-package that defines it.
_LAZY = {
    **dict.fromkeys(("BASELINES", "Baseline", "load_baseline"), "arena.baselines"),
    **dict.fromkeys(("LocalExecutor", "MatchJob", "play"), "arena.executors"),
    **dict.fromkeys(
        (
            "ABI_VERSION",
            "Contestant",
            "MatchResult",
            "SideResult",
            "decode_actions",
            "encode_init",
            "encode_obs",
            "encode_obs_flat",
            "encode_obs_for",
            "load_contestant",
            "load_map",
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
