"""Replays: the msgpack format (writer), a bounded reader, a stream, and a re-simulation check.

Reading is for untrusted bytes: ``iter_replay``, ``read_replay`` and
``frame_chunks`` bound every length and validate every object against format
version 1 (see ``replays._format``), raising ``ReplayError``; ``verify_replay``
re-simulates the recorded actions with ``sim`` and reports the first mismatch.
"""

from replays._format import FORMAT, MEDIA_TYPE, VERSION, ReplayWriter
from replays._reader import (
    DEFAULT_LIMITS,
    ObjectKind,
    Replay,
    ReplayError,
    ReplayLimits,
    frame_chunks,
    is_forfeit_frame,
    iter_replay,
    read_replay,
)
from replays._verify import VerifyReport, verify_replay

__all__ = [
    "DEFAULT_LIMITS",
    "FORMAT",
    "MEDIA_TYPE",
    "VERSION",
    "ObjectKind",
    "Replay",
    "ReplayError",
    "ReplayLimits",
    "ReplayWriter",
    "VerifyReport",
    "frame_chunks",
    "is_forfeit_frame",
    "iter_replay",
    "read_replay",
    "verify_replay",
]
