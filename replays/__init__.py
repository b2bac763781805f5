"""Replays: the msgpack format, its typed records, a bounded reader, and a re-simulation check.

A match is recorded by a ``Recorder`` (header, one frame per tick, result).
Reading is for untrusted bytes: ``iter_replay``, ``read_replay`` and
``frame_chunks`` bound every length and validate every object against the
format (``replays._format``, checked by ``replays._schema``) before building
its typed record, raising ``ReplayError``; ``verify_replay`` re-simulates the
recorded actions with ``sim`` and reports the first mismatch. ``iter_states``
rebuilds the full drawn state of every applied tick from the keyframes and
delta frames, for viewers. The bounds (``replays._limits``) are defined once:
``MAX_NAME_CHARS`` is the arena's one limit on a name.

Names load on first use (PEP 562): a process that only writes replays (a
match) never loads the reader, the verifier or the drawn states.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from replays._errors import ReplayError
    from replays._format import (
        FORMAT,
        KEYFRAME_INTERVAL,
        LIMIT_RANGES,
        MEDIA_TYPE,
        SUPPORTED_VERSIONS,
        VERSION,
        CaseRef,
        DeltaFrame,
        Events,
        ForfeitFrame,
        Frame,
        Header,
        KeyFrame,
        Note,
        Notes,
        Result,
        ResultSide,
        SideInfo,
    )
    from replays._limits import (
        DEFAULT_LIMITS,
        MAX_DETAIL_CHARS,
        MAX_NAME_CHARS,
        ReplayLimits,
        clip,
    )
    from replays._reader import Replay, frame_chunks, iter_replay, read_replay
    from replays._recorder import FrameEncoder, Recorder, ReplayWriter
    from replays._states import FrameState, iter_games, iter_states
    from replays._verify import VerifyReport, verify_replay

__all__ = [
    "DEFAULT_LIMITS",
    "FORMAT",
    "KEYFRAME_INTERVAL",
    "LIMIT_RANGES",
    "MAX_DETAIL_CHARS",
    "MAX_NAME_CHARS",
    "MEDIA_TYPE",
    "SUPPORTED_VERSIONS",
    "VERSION",
    "CaseRef",
    "DeltaFrame",
    "Events",
    "ForfeitFrame",
    "Frame",
    "FrameEncoder",
    "FrameState",
    "Header",
    "KeyFrame",
    "Note",
    "Notes",
    "Recorder",
    "Replay",
    "ReplayError",
    "ReplayLimits",
    "ReplayWriter",
    "Result",
    "ResultSide",
    "SideInfo",
    "VerifyReport",
    "clip",
    "frame_chunks",
    "iter_games",
    "iter_replay",
    "iter_states",
    "read_replay",
    "verify_replay",
]

# Lazily loaded name -> the module that defines it.
_LAZY = {
    **dict.fromkeys(
        (
            "FORMAT",
            "KEYFRAME_INTERVAL",
            "LIMIT_RANGES",
            "MEDIA_TYPE",
            "SUPPORTED_VERSIONS",
            "VERSION",
            "CaseRef",
            "DeltaFrame",
            "Events",
            "ForfeitFrame",
            "Frame",
            "Header",
            "KeyFrame",
            "Note",
            "Notes",
            "Result",
            "ResultSide",
            "SideInfo",
        ),
        "replays._format",
    ),
    **dict.fromkeys(
        ("DEFAULT_LIMITS", "MAX_DETAIL_CHARS", "MAX_NAME_CHARS", "ReplayLimits", "clip"),
        "replays._limits",
    ),
    **dict.fromkeys(("Replay", "frame_chunks", "iter_replay", "read_replay"), "replays._reader"),
    **dict.fromkeys(("FrameEncoder", "Recorder", "ReplayWriter"), "replays._recorder"),
    "ReplayError": "replays._errors",
    **dict.fromkeys(("FrameState", "iter_games", "iter_states"), "replays._states"),
    **dict.fromkeys(("VerifyReport", "verify_replay"), "replays._verify"),
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'replays' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
