"""Replays: the msgpack format (writer), a bounded reader, a stream, and a re-simulation check.

Reading is for untrusted bytes: ``iter_replay``, ``read_replay`` and
``frame_chunks`` bound every length and validate every object against format
version 1 (see ``replays._format``), raising ``ReplayError``; ``verify_replay``
re-simulates the recorded actions with ``sim`` and reports the first mismatch.
``iter_states`` rebuilds the full drawn state of every applied tick from the
keyframes and delta frames, for viewers.
"""

from replays._format import (
    FORMAT,
    KEYFRAME_INTERVAL,
    MEDIA_TYPE,
    VERSION,
    FrameEncoder,
    ReplayWriter,
    unpack_actions,
)
from replays._reader import (
    DEFAULT_LIMITS,
    ObjectKind,
    Replay,
    ReplayError,
    ReplayLimits,
    frame_chunks,
    is_forfeit_frame,
    is_keyframe,
    iter_replay,
    read_replay,
)
from replays._states import FrameState, UnitState, iter_states
from replays._verify import VerifyReport, verify_replay

__all__ = [
    "DEFAULT_LIMITS",
    "FORMAT",
    "KEYFRAME_INTERVAL",
    "MEDIA_TYPE",
    "VERSION",
    "FrameEncoder",
    "FrameState",
    "ObjectKind",
    "Replay",
    "ReplayError",
    "ReplayLimits",
    "ReplayWriter",
    "UnitState",
    "VerifyReport",
    "frame_chunks",
    "is_forfeit_frame",
    "is_keyframe",
    "iter_replay",
    "iter_states",
    "read_replay",
    "unpack_actions",
    "verify_replay",
]
