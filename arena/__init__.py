"""The arena: hosts untrusted wasm controllers and plays Foray matches between them.

Public facade; the modules behind it are private. ``web`` and other callers use
only these names.
"""

from arena._contract import ABI_VERSION, BUFFER_SIZE, decode_actions, encode_init, encode_obs
from arena._errors import ArenaError, UnknownControllerError
from arena._files import atomic_write, data_dir
from arena._match import Contestant, Forfeit, MatchResult, SideResult, run_match
from arena._resolve import load_contestant
from arena._sandbox import WASMTIME_VERSION, Admission, Controller, Fault, Limits, check_module

__all__ = [
    "ABI_VERSION",
    "BUFFER_SIZE",
    "WASMTIME_VERSION",
    "Admission",
    "ArenaError",
    "Contestant",
    "Controller",
    "Fault",
    "Forfeit",
    "Limits",
    "MatchResult",
    "SideResult",
    "UnknownControllerError",
    "atomic_write",
    "check_module",
    "data_dir",
    "decode_actions",
    "encode_init",
    "encode_obs",
    "load_contestant",
    "run_match",
]
