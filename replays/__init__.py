"""Replays: the msgpack format, its typed records, a bounded reader, and a re-simulation check.

A match is recorded by a ``Recorder`` (header, one frame per tick, result).
Reading is for untrusted bytes: ``iter_replay``, ``read_replay`` and
``frame_chunks`` bound every length and validate every object against the
format (see ``replays._format``) before building its typed record, raising
``ReplayError``; ``verify_replay`` re-simulates the recorded actions with
``sim`` and reports the first mismatch. ``iter_states`` rebuilds the full drawn
state of every applied tick from the keyframes and delta frames, for viewers.
"""

from replays._format import (
    FORMAT,
    KEYFRAME_INTERVAL,
    LIMIT_RANGES,
    MAX_DETAIL_CHARS,
    MAX_NAME_CHARS,
    MEDIA_TYPE,
    VERSION,
    CaseRef,
    DeltaFrame,
    Events,
    ForfeitFrame,
    Frame,
    FrameEncoder,
    Header,
    KeyFrame,
    Recorder,
    ReplayWriter,
    Result,
    ResultSide,
    SideInfo,
    clip,
)
from replays._reader import (
    DEFAULT_LIMITS,
    Replay,
    ReplayError,
    ReplayLimits,
    frame_chunks,
    iter_replay,
    read_replay,
)
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
