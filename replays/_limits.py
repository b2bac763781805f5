"""The bounds of replays: on the strings a replay holds, and on what a reader accepts.

Each is defined once, here. ``MAX_NAME_CHARS`` bounds every name of the arena
(the store, the site and a push use it too), so a name reads the same in the
store and in its replays. The viewer's JavaScript (``web/static/replay.js``)
copies the reader's decoder bounds; a browser test compares its copy with
``ReplayLimits.decoder_bounds``. This module imports nothing of the format, so
a process that only needs a bound reads it without loading the replay format
or msgpack.
"""

from __future__ import annotations

from typing import Final

import msgspec

__all__ = [
    "DEFAULT_LIMITS",
    "MAX_DETAIL_CHARS",
    "MAX_NAME_CHARS",
    "ReplayLimits",
    "clip",
]

MAX_NAME_CHARS: Final = 256
"""The arena's one limit on a name, in characters: of a controller, an entrant, an opponent or
a case in the store, the site and a push, and of a side in a replay header. So a name the
store keeps enters its replays whole; a name from elsewhere (a file's stem) is cut to it
where it enters a replay."""
MAX_DETAIL_CHARS: Final = 512
"""Characters of a forfeit's detail in a result. Both bounds keep every string of an
honest replay far below the reader's ``max_str`` (a character is at most 4 bytes)."""


def clip(text: str, most: int) -> str:
    """``text`` as a replay may hold it: at most ``most`` characters, every one encodable.

    A cut is marked with an ellipsis; a lone surrogate (a file name that was not
    UTF-8) becomes U+FFFD.
    """
    if len(text) > most:
        text = text[: most - 1] + "…"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in text)
    return text


class ReplayLimits(msgspec.Struct, frozen=True):
    """Bounds on everything a reader will accept; the defaults fit every legal match."""

    max_bytes: int = 64 * 1024 * 1024
    """Size of the whole file."""
    max_object_bytes: int = 1024 * 1024
    """Bytes the decoder may buffer for one object (far more than a legal one needs)."""
    max_frames: int = 100_000
    max_records_per_side: int = 65
    max_units_per_side: int = 64
    max_str: int = 4096
    """Characters of any string and bytes of any binary."""
    max_map_cells: int = 64 * 64
    max_map_keys: int = 32
    """Keys of any msgpack map (the config has 15 constants)."""
    max_limits: int = 16
    """Entries of the header's "limits"."""

    def __post_init__(self) -> None:
        for name in self.__struct_fields__:
            value = getattr(self, name)
            if type(value) is not int or value < 1:
                raise ValueError(f"ReplayLimits.{name} must be a positive int, got {value!r}")

    def decoder_bounds(self) -> dict[str, int]:
        """msgpack's own bounds while decoding, as ``msgpack.Unpacker`` takes them: no
        declared length over them is ever allocated."""
        return {
            "max_bin_len": max(self.max_str, self.max_map_cells),
            "max_str_len": self.max_str,
            # The longest legal array is a frame's "o": two values per map cell.
            "max_array_len": 2 * self.max_map_cells,
            "max_map_len": self.max_map_keys,
            "max_ext_len": 0,
        }


DEFAULT_LIMITS: Final = ReplayLimits()
