"""Replays compressed with zstd: how the store keeps them and the site sends them.

A replay's identity is the sha256 of its msgpack bytes; compression only
changes how they are kept and carried. A compressed replay is one zstd frame
(``ZSTD_MAGIC`` first; a msgpack replay starts with its header, a map, so the
two can never be confused), written with its content size and no checksum
(the sha256 of what it decompresses to is the check).

Compressed bytes are untrusted input like any replay: ``decompress_replay``
and ``iter_decompressed`` read exactly one zstd frame, walk its block headers
first (so a truncated frame, or bytes after it, is named as such), refuse a
frame that needs a window over ``MAX_WINDOW_BYTES`` (the decoder's memory), and
stop with ``ReplayError`` as soon as the output would pass the replay's size
limit (``ReplayLimits.max_bytes``): a small file that would decompress to
gigabytes is refused after at most that many bytes, one chunk at a time.

``zstandard`` is imported on first use: a process that never compresses or
decompresses a replay does not load it.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Iterator
from typing import Final, NamedTuple

from replays._errors import ReplayError
from replays._limits import DEFAULT_LIMITS, ReplayLimits

__all__ = [
    "MAX_WINDOW_BYTES",
    "STORED_LEVEL",
    "ZSTD_MAGIC",
    "PackedReplay",
    "SpooledReplay",
    "compress_replay",
    "decompress_replay",
    "is_compressed",
    "iter_decompressed",
    "other_compression",
]

ZSTD_MAGIC: Final = b"\x28\xb5\x2f\xfd"
"""The first four bytes of a zstd frame."""
STORED_LEVEL: Final = 3
"""The zstd level replays are stored at: zstd's default, a fraction of a millisecond for a
400-tick replay (docs/benchmarks.md has what the higher levels cost and save)."""
MAX_WINDOW_BYTES: Final = 1 << 23
"""The largest window a frame may ask the decoder to hold: what ``zstd -1`` to ``-19``
write. ``--ultra`` and ``--long`` frames need more and are refused."""
_OUT_CHUNK: Final = 1 << 20

# Other compressors' magic numbers, to name them in an error: none of them can
# start a msgpack replay (its first byte is a map's).
_OTHER_MAGIC: Final = (
    (b"\x1f\x8b", "gzip"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"BZh", "bzip2"),
    (b"PK\x03\x04", "zip"),
    (b"\x04\x22\x4d\x18", "lz4"),
)

_local = threading.local()


class PackedReplay(NamedTuple):
    """A replay as the store keeps it, made where it was played: one zstd frame of its bytes
    (``compress_replay``) and the sha256 of the bytes themselves (its identity).

    A local worker packs each replay beside the next match and sends this back
    instead of the bytes: a third to a half of them cross to the coordinator, whose
    store writes the frame as it is.
    """

    sha256: str
    frame: bytes

    @classmethod
    def of(cls, raw: bytes) -> PackedReplay:
        """``raw`` packed (both the hash and the compressor let other threads run meanwhile)."""
        return cls(hashlib.sha256(raw).hexdigest(), compress_replay(raw))

    def unpacked(self, limits: ReplayLimits = DEFAULT_LIMITS) -> bytes:
        """The replay's own bytes, checked against ``sha256`` (``ReplayError`` if they differ)."""
        raw = decompress_replay(self.frame, limits)
        if hashlib.sha256(raw).hexdigest() != self.sha256:
            raise ReplayError(
                f"a packed replay's {len(self.frame):,} bytes decompress to a replay whose"
                f" sha256 is not the one it carries ({self.sha256})"
            )
        return raw


class SpooledReplay(NamedTuple):
    """A packed replay left in a file for another process on this machine to take: its
    sha256, the file and the frame's length.

    A local worker writes each replay it packs to its pool's spool directory
    while the next match plays, and sends this instead of the frame: the bytes
    never cross the pipe, so the round trip between two calls carries only the
    results themselves (docs/execution.md). ``load`` takes the frame back once.
    """

    sha256: str
    path: str
    size: int

    @classmethod
    def write(cls, packed: PackedReplay, path: str) -> SpooledReplay:
        """``packed``'s frame written to a new file at ``path`` (``FileExistsError`` if one is
        there)."""
        with open(path, "xb") as file:
            file.write(packed.frame)
        return cls(packed.sha256, path, len(packed.frame))

    def load(self) -> PackedReplay:
        """The packed replay, read back from its file, which is then deleted (``ReplayError``
        if the file no longer holds the frame written: its length differs)."""
        with open(self.path, "rb") as file:
            frame = file.read(self.size + 1)
        if len(frame) != self.size:
            raise ReplayError(
                f"{self.path}: a spooled replay of {self.size:,} bytes holds {len(frame):,}"
            )
        os.unlink(self.path)
        return PackedReplay(self.sha256, frame)


def is_compressed(data: bytes | bytearray | memoryview) -> bool:
    """Whether ``data`` starts as a zstd frame does (else it is read as a raw replay)."""
    return bytes(data[:4]) == ZSTD_MAGIC


def other_compression(head: bytes) -> str | None:
    """The name of another compressor whose output starts with ``head``, if any."""
    for magic, name in _OTHER_MAGIC:
        if head.startswith(magic):
            return name
    return None


def compress_replay(raw: bytes, level: int = STORED_LEVEL) -> bytes:
    """``raw`` as one zstd frame (content size written, no checksum), at ``level``."""
    import zstandard

    compressors: dict[int, zstandard.ZstdCompressor] | None = getattr(_local, "compressors", None)
    if compressors is None:
        compressors = _local.compressors = {}
    compressor = compressors.get(level)
    if compressor is None:
        # One a thread and level: making one allocates its tables (a context is not thread-safe).
        compressor = compressors[level] = zstandard.ZstdCompressor(
            level=level, write_content_size=True, write_checksum=False
        )
    data: bytes = compressor.compress(raw)
    return data


def decompress_replay(data: bytes, limits: ReplayLimits = DEFAULT_LIMITS) -> bytes:
    """The replay's own bytes: ``data`` itself if it is not compressed, else what its zstd
    frame decompresses to (bounded as the module says; ``ReplayError`` naming the fault)."""
    if not is_compressed(data):
        return data
    return b"".join(iter_decompressed(data, limits))


def iter_decompressed(
    data: bytes, limits: ReplayLimits = DEFAULT_LIMITS, chunk: int = _OUT_CHUNK
) -> Iterator[bytes]:
    """The bytes ``data``'s one zstd frame decompresses to, ``chunk`` bytes at a time.

    Raises ``ReplayError`` before the first chunk for a frame that is not one,
    is truncated, is followed by other bytes, needs too large a window or
    declares a size over ``limits.max_bytes``; and as soon as the output passes
    ``limits.max_bytes`` for one that does not declare its size.
    """
    if len(data) > limits.max_bytes:
        raise ReplayError(f"the compressed replay is {len(data):,} bytes, over max_bytes")
    import zstandard as zstd

    declared = _check_frame(data, limits)
    reader = zstd.ZstdDecompressor(max_window_size=MAX_WINDOW_BYTES).stream_reader(data)
    total = 0
    try:
        while piece := reader.read(chunk):
            total += len(piece)
            if total > limits.max_bytes:
                raise ReplayError(
                    f"the zstd frame decompresses to over max_bytes ({limits.max_bytes:,} bytes)"
                )
            yield piece
    except zstd.ZstdError as exc:
        raise ReplayError(f"the zstd frame is damaged: {exc}") from None
    if declared is not None and total != declared:
        raise ReplayError(
            f"the zstd frame is damaged: it declares {declared:,} bytes and gave {total:,}"
        )


def _check_frame(data: bytes, limits: ReplayLimits) -> int | None:
    """Check ``data`` is exactly one whole zstd frame; its declared content size, if any."""
    import zstandard as zstd

    try:
        params = zstd.get_frame_parameters(data)
        at = zstd.frame_header_size(data)
    except zstd.ZstdError as exc:
        raise ReplayError(f"not a zstd frame this reader takes: {exc}") from None
    if params.dict_id:
        raise ReplayError(f"the zstd frame needs dictionary {params.dict_id}: none is used")
    if params.window_size > MAX_WINDOW_BYTES:
        raise ReplayError(
            f"the zstd frame needs a {params.window_size:,}-byte window, over the"
            f" {MAX_WINDOW_BYTES:,} this reader allows (compress at level 19 or lower,"
            " without --long)"
        )
    declared: int | None = params.content_size
    if declared == zstd.CONTENTSIZE_UNKNOWN:
        declared = None
    elif declared is not None and declared > limits.max_bytes:
        raise ReplayError(
            f"the zstd frame declares {declared:,} bytes, over max_bytes ({limits.max_bytes:,})"
        )
    # The blocks' headers (3 bytes each: last-block flag, type, size) up to the last block.
    while True:
        if at + 3 > len(data):
            raise ReplayError(f"the zstd frame is truncated: it ends at byte {len(data):,}")
        header = int.from_bytes(data[at : at + 3], "little")
        kind, size = (header >> 1) & 3, header >> 3
        if kind == 3:
            raise ReplayError(f"the zstd frame is damaged: a block of reserved type at byte {at:,}")
        at += 3 + (1 if kind == 1 else size)
        if header & 1:
            break
    at += 4 if params.has_checksum else 0
    if at > len(data):
        raise ReplayError(f"the zstd frame is truncated: it ends at byte {len(data):,}")
    if at < len(data):
        raise ReplayError(
            f"{len(data) - at:,} bytes after the zstd frame, at byte {at:,}: one frame is read"
        )
    return declared
