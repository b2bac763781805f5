"""The bounded reader of format versions 1 to 3: untrusted bytes in, validated objects out.

An uploaded replay is hostile input. Every length is bounded twice: by msgpack's
own limits while decoding (no declared length is ever allocated,
``ReplayLimits.decoder_bounds``) and by the schema of ``replays._format`` after
it (``replays._schema``: exact keys, types, ranges, tick order). Only then is a
wire object turned into its typed record. Bytes are fed to the decoder in
chunks, so the reader holds at most one object's bytes beyond what it has
already yielded. A zstd-compressed source (``replays._compressed``) is read
the same way once decompressed: its compressed bytes are held whole (at most
``max_bytes``), what they decompress to is bounded by ``max_bytes`` too.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import BinaryIO, Final

import msgpack

import sim
from replays._compressed import is_compressed, iter_decompressed, other_compression
from replays._errors import ReplayError
from replays._format import DeltaFrame, ForfeitFrame, Frame, Header, KeyFrame, Result
from replays._limits import DEFAULT_LIMITS, ReplayLimits
from replays._schema import HeaderBounds, check_frame, check_header, check_result

__all__ = [
    "Replay",
    "UncheckedFrame",
    "frame_chunks",
    "iter_replay",
    "iter_unchecked",
    "read_replay",
]

_CHUNK: Final = 64 * 1024


@dataclass(frozen=True, slots=True)
class Replay:
    """A whole replay, validated and typed."""

    header: Header
    frames: list[Frame] = field(repr=False)
    result: Result

    @property
    def ticks(self) -> int:
        """The ticks decided (the result's ``ticks``, which equals the number of frames)."""
        return len(self.frames)

    @property
    def config(self) -> sim.Config:
        """The rules' constants the match was played with."""
        return self.header.config

    @property
    def game_map(self) -> sim.GameMap:
        """The map the match was played on (shape-checked; ``sim.check_map`` not run)."""
        return self.header.game_map


def iter_replay(
    source: BinaryIO | bytes, limits: ReplayLimits = DEFAULT_LIMITS
) -> Iterator[Header | Frame | Result]:
    """Yield the header, each frame, then the result, as they are read.

    Each object is validated before it is yielded; the first fault raises
    ReplayError (so a consumer may have seen valid objects before it). A file
    that ends early, lacks its result or carries bytes after it is an error.
    """
    for obj, _raw in _validated(source, limits):
        assert not isinstance(obj, UncheckedFrame)
        yield obj


def frame_chunks(
    source: BinaryIO | bytes, limits: ReplayLimits = DEFAULT_LIMITS
) -> Iterator[bytes]:
    """Yield the raw msgpack bytes of each object (header, frames, result) once validated.

    For streaming to browsers as ``application/x-msgpack``: the chunks join to
    the input. Raises ReplayError at the first bad object, after the good ones.
    """
    for _obj, raw in _validated(source, limits):
        yield raw


def read_replay(source: BinaryIO | bytes, limits: ReplayLimits = DEFAULT_LIMITS) -> Replay:
    """Read and validate a whole replay; raise ReplayError naming the first fault."""
    objects = iter_replay(source, limits)
    header = next(objects)
    assert isinstance(header, Header)
    frames: list[Frame] = []
    for obj in objects:
        if isinstance(obj, Result):
            return Replay(header, frames, obj)
        assert not isinstance(obj, Header)
        frames.append(obj)
    raise AssertionError("unreachable: iter_replay ends with the result or raises")


# --------------------------------------------------------------------------- decoding


def _chunks(source: BinaryIO | bytes, limits: ReplayLimits) -> Iterator[bytes]:
    """The replay's own bytes, a chunk at a time; a zstd-compressed source is decompressed
    (``replays._compressed``: read whole, then decompressed within ``max_bytes``)."""
    if isinstance(source, bytes | bytearray | memoryview):
        view = memoryview(source)
        if is_compressed(view):
            yield from iter_decompressed(bytes(view), limits, _CHUNK)
            return
        _refuse_other(bytes(view[:8]))
        if view.nbytes > limits.max_bytes:
            raise ReplayError(f"replay is {view.nbytes} bytes, over max_bytes {limits.max_bytes}")
        for i in range(0, view.nbytes, _CHUNK):
            yield bytes(view[i : i + _CHUNK])
        return
    total = 0
    first = True
    while True:
        # Never ask for more than one byte past the bound: enough to detect it.
        chunk = source.read(min(_CHUNK, limits.max_bytes + 1 - total))
        if not chunk:
            return
        if first:
            first = False
            if is_compressed(chunk):
                rest = source.read(limits.max_bytes + 1 - len(chunk))
                yield from iter_decompressed(chunk + rest, limits, _CHUNK)
                return
            _refuse_other(chunk[:8])
        total += len(chunk)
        if total > limits.max_bytes:
            raise ReplayError(f"replay is over max_bytes {limits.max_bytes}")
        yield bytes(chunk)


def _refuse_other(head: bytes) -> None:
    """A file another compressor wrote is named as such, not read as broken msgpack."""
    name = other_compression(head)
    if name is not None:
        raise ReplayError(
            f"the file is {name}-compressed: a replay is read as msgpack or zstd-compressed"
        )


# What msgpack raises on malformed input: limit overruns and bad map keys are
# ValueErrors, bad UTF-8 a UnicodeDecodeError (a ValueError), deep nesting a StackError.
_DECODE_ERRORS: Final = (msgpack.UnpackException, ValueError, TypeError, OverflowError)


def _objects(source: BinaryIO | bytes, limits: ReplayLimits) -> Iterator[tuple[int, object, bytes]]:
    """Yield (offset, object, raw bytes) per top-level msgpack object; raise _Decode* on faults."""
    unpacker = msgpack.Unpacker(
        None,
        max_buffer_size=limits.max_object_bytes,
        **limits.decoder_bounds(),
        raw=False,
        strict_map_key=True,
        use_list=True,
    )
    pending = bytearray()  # bytes fed but not yet returned as an object
    base = 0  # stream offset of pending[0]
    for chunk in _chunks(source, limits):
        try:
            unpacker.feed(chunk)
        except msgpack.BufferFull:
            bound = limits.max_object_bytes
            raise _DecodeFault(base, f"an object is over max_object_bytes {bound}") from None
        pending += chunk
        while True:
            try:
                obj = unpacker.unpack()
            except msgpack.OutOfData:
                break
            except RecursionError:
                raise _DecodeFault(base, "nesting is too deep") from None
            except _DECODE_ERRORS as exc:
                detail = str(exc) or type(exc).__name__  # FormatError has no message
                raise _DecodeFault(base, f"malformed msgpack ({detail})") from None
            end = unpacker.tell()
            raw = bytes(pending[: end - base])
            del pending[: end - base]
            yield base, obj, raw
            base = end
    if pending:
        raise _Truncated(base)


class _DecodeFault(Exception):
    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset = offset


class _Truncated(Exception):
    def __init__(self, offset: int) -> None:
        super().__init__("truncated")
        self.offset = offset


@dataclass(frozen=True, slots=True)
class UncheckedFrame:
    """A frame read in its place but not yet checked against the schema (``iter_unchecked``).

    ``checked`` checks it and gives its typed record, raising ``ReplayError`` as
    ``iter_replay`` does; until then ``wire`` is untrusted.
    """

    tick: int
    wire: object
    raw: bytes
    bounds: HeaderBounds
    limits: ReplayLimits

    def checked(self) -> Frame:
        shape = check_frame(self.wire, self.tick, self.bounds, self.limits)
        frame: Frame = shape.from_wire(self.wire)  # type: ignore[arg-type]
        return frame


def iter_unchecked(
    source: BinaryIO | bytes, limits: ReplayLimits = DEFAULT_LIMITS
) -> Iterator[Header | UncheckedFrame | Result]:
    """``iter_replay`` with each frame left for the consumer to check (``UncheckedFrame``).

    Everything else is checked as ``iter_replay`` checks it: the header, the
    result, the bounds, the order. A consumer that can tell a frame is right
    without the schema (the re-simulation check, when a frame's bytes are the
    ones it rebuilt) skips its check; it must call ``checked`` on every other
    frame before asking for the next.
    """
    for obj, _raw in _validated(source, limits, typed=False):
        assert not isinstance(obj, KeyFrame | DeltaFrame | ForfeitFrame)
        yield obj


def _validated(
    source: BinaryIO | bytes, limits: ReplayLimits, *, typed: bool = True
) -> Iterator[tuple[Header | Frame | UncheckedFrame | Result, bytes]]:
    objects = _objects(source, limits)
    header: HeaderBounds | None = None
    tick = 0  # the tick of the next frame
    ended = False  # a forfeit frame was read: the result must follow
    while True:
        if header is None:
            where, at_tick = "the header", None
        else:
            where, at_tick = f"the object after {_after(tick)}", tick
        try:
            item = next(objects, None)
        except _Truncated as exc:
            raise ReplayError(
                f"truncated: the file ends inside {where}, which starts at byte {exc.offset}",
                at_tick,
            ) from None
        except _DecodeFault as exc:
            raise ReplayError(f"{where}, at byte {exc.offset}: {exc}", at_tick) from None
        if item is None:
            if header is None:
                raise ReplayError("truncated: the file is empty (no header)")
            raise ReplayError(f"truncated: no result object after {_after(tick)}", tick)
        _offset, obj, raw = item
        if header is None:
            header = check_header(obj, limits)
            yield Header.from_wire(obj), raw  # type: ignore[arg-type]
            continue
        if isinstance(obj, dict) and "type" in obj:
            check_result(obj, tick)
            # Refuse trailing bytes before handing out the result: a stream
            # consumer must not take a file with a tail for a good one.
            try:
                extra = next(objects, None)
            except (_Truncated, _DecodeFault) as exc:
                extra = (exc.offset, None, b"")
            if extra is not None:
                raise ReplayError(f"trailing data after the result, at byte {extra[0]}")
            yield Result.from_wire(obj), raw
            return
        if ended:
            raise ReplayError(
                f"frame of tick {tick}: the frame of a forfeit tick must be the last one", tick
            )
        if tick >= header.max_frames:
            raise ReplayError(
                f"frame of tick {tick}: more frames than max_ticks ({header.max_ticks})"
                f" or max_frames ({limits.max_frames}) allow",
                tick,
            )
        if typed:
            shape = check_frame(obj, tick, header, limits)
            ended = shape is ForfeitFrame
            yield shape.from_wire(obj), raw  # type: ignore[arg-type]
        else:
            # A frame without "k" is a forfeit tick's (replays._schema): the consumer
            # checks it before it asks for more.
            ended = isinstance(obj, dict) and "k" not in obj
            yield UncheckedFrame(tick, obj, raw, header, limits), raw
        tick += 1


def _after(tick: int) -> str:
    return "the header" if tick == 0 else f"the frame of tick {tick - 1}"
