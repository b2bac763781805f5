"""Replays compressed with zstd: the round trip, and compressed bytes as hostile input.

The golden replays are compressed and read back through every reader (bytes, a
file, the re-simulation check); then frames a hostile uploader could write: a
zip bomb with and without its declared size, truncated frames, bytes after
the frame, a second frame, a window over the limit, garbage after the magic,
another compressor's file. Each is refused with a message naming the fault.
"""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import pytest
import zstandard
from hypothesis import given, settings, strategies as st

import replays
from replays import ReplayError, ReplayLimits
from tests._support import TESTS, examples

GOLDEN = sorted((TESTS / "golden").glob("*.replay"))
SMALL = ReplayLimits(max_bytes=1 << 20)


def zstd(data: bytes, **options: object) -> bytes:
    return zstandard.ZstdCompressor(**options).compress(data)  # type: ignore[arg-type]


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_every_golden_replay_reads_and_verifies_the_same_compressed(path: Path) -> None:
    raw = path.read_bytes()
    packed = replays.compress_replay(raw)
    assert packed.startswith(replays.ZSTD_MAGIC) and len(packed) < len(raw)
    assert replays.is_compressed(packed) and not replays.is_compressed(raw)
    assert replays.decompress_replay(packed) == raw
    assert replays.decompress_replay(raw) is raw  # a raw replay passes through untouched
    assert b"".join(replays.frame_chunks(packed)) == raw
    assert b"".join(replays.frame_chunks(io.BytesIO(packed))) == raw
    assert replays.verify_replay(io.BytesIO(packed)) == replays.verify_replay(raw)
    assert replays.read_replay(packed) == replays.read_replay(raw)
    # Identity is the sha256 of the replay's own bytes, whatever carries them.
    assert hashlib.sha256(replays.decompress_replay(packed)).digest() == (
        hashlib.sha256(raw).digest()
    )


@pytest.mark.parametrize(
    "options",
    [
        {"level": 19},
        {"level": 1, "write_content_size": False},  # what `zstd` writes from a pipe
        {"level": 5, "write_checksum": True},
    ],
    ids=["level-19", "no-size", "checksum"],
)
def test_a_zstd_frame_written_by_another_hand_reads(options: dict[str, object]) -> None:
    raw = GOLDEN[0].read_bytes()
    assert replays.decompress_replay(zstd(raw, **options)) == raw
    assert replays.verify_replay(zstd(raw, **options)).ok


def test_a_zip_bomb_that_declares_its_size_is_refused_before_decompressing() -> None:
    bomb = zstd(b"\x80" * (4 << 20), level=19)
    with pytest.raises(ReplayError, match="declares 4,194,304 bytes, over max_bytes"):
        replays.decompress_replay(bomb, SMALL)


def test_a_zip_bomb_that_hides_its_size_stops_at_the_limit() -> None:
    bomb = zstd(b"\x80" * (16 << 20), level=19, write_content_size=False)
    assert len(bomb) < 4096
    out = 0
    with pytest.raises(ReplayError, match=r"decompresses to over max_bytes \(1,048,576 bytes\)"):
        for piece in replays.iter_decompressed(bomb, SMALL, chunk=64 * 1024):
            out += len(piece)
    assert out <= SMALL.max_bytes
    report = replays.verify_replay(bomb, SMALL)
    assert not report.ok


@pytest.mark.parametrize("cut", [4, 6, 9, 100, -40, -1])
def test_a_truncated_frame_is_named(cut: int) -> None:
    packed = replays.compress_replay(GOLDEN[0].read_bytes())
    with pytest.raises(ReplayError, match="zstd frame") as err:
        replays.decompress_replay(packed[:cut])
    assert "truncated" in str(err.value) or "not a zstd frame" in str(err.value)
    assert not replays.verify_replay(io.BytesIO(packed[:cut])).ok


def test_bytes_after_the_frame_and_a_second_frame_are_refused() -> None:
    packed = replays.compress_replay(GOLDEN[0].read_bytes())
    with pytest.raises(ReplayError, match="3 bytes after the zstd frame"):
        replays.decompress_replay(packed + b"abc")
    with pytest.raises(
        ReplayError, match=r"3,943 bytes after the zstd frame, at byte 3,943: one frame is read"
    ):
        replays.decompress_replay(packed + packed)


def test_a_frame_that_needs_a_larger_window_is_refused() -> None:
    params = zstandard.ZstdCompressionParameters(
        window_log=27, enable_ldm=True, write_content_size=False
    )
    # Streamed, so the compressor cannot shrink the window to the input's size.
    stream = zstandard.ZstdCompressor(compression_params=params).compressobj()
    packed = stream.compress(GOLDEN[0].read_bytes()) + stream.flush()
    with pytest.raises(ReplayError, match="134,217,728-byte window, over the 8,388,608"):
        replays.decompress_replay(packed)


def test_garbage_after_the_magic_is_not_a_zstd_frame() -> None:
    with pytest.raises(ReplayError, match="not a zstd frame this reader takes"):
        replays.decompress_replay(replays.ZSTD_MAGIC + b"\xff" * 20)
    report = replays.verify_replay(replays.ZSTD_MAGIC + b"\xff" * 20)
    assert not report.ok and "not a zstd frame" in str(report.detail)


@pytest.mark.parametrize(
    ("head", "name"), [(b"\x1f\x8b\x08\x00", "gzip"), (b"\xfd7zXZ\x00", "xz"), (b"BZh9", "bzip2")]
)
def test_another_compressors_file_is_named(head: bytes, name: str) -> None:
    for source in (head + b"rest", io.BytesIO(head + b"rest")):
        with pytest.raises(ReplayError, match=f"the file is {name}-compressed"):
            replays.read_replay(source)


@settings(max_examples=examples(200), deadline=None)
@given(data=st.data())
def test_a_damaged_compressed_replay_is_refused_or_reads_as_a_replay(data: st.DataObject) -> None:
    """Any byte of the frame changed: an error naming the fault, never an escaping exception."""
    packed = bytearray(replays.compress_replay(GOLDEN[0].read_bytes()))
    at = data.draw(st.integers(4, len(packed) - 1))
    packed[at] ^= data.draw(st.integers(1, 255))
    report = replays.verify_replay(bytes(packed), SMALL)
    assert report.ok or report.detail
