"""The bounded reader of format versions 1 and 2: untrusted bytes in, validated objects out.

An uploaded replay is hostile input. Every length is bounded twice: by msgpack's
own limits while decoding (no declared length is ever allocated) and by the
schema of ``replays._format`` after it (exact keys, types, ranges, tick order).
Only then is a wire object turned into its typed record. Bytes are fed to the
decoder in chunks, so the reader holds at most one object's bytes beyond what
it has already yielded.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Final

import msgpack

import sim
from replays._errors import ReplayError
from replays._format import (
    FORMAT,
    KEYFRAME_INTERVAL,
    SUPPORTED_VERSIONS,
    DeltaFrame,
    ForfeitFrame,
    Frame,
    Header,
    KeyFrame,
    Result,
)

__all__ = [
    "DEFAULT_LIMITS",
    "Replay",
    "ReplayError",
    "ReplayLimits",
    "frame_chunks",
    "iter_replay",
    "read_replay",
]

_REASONS: Final = frozenset(sim.Reason)
_FORFEIT_KINDS: Final = frozenset(sim.ForfeitKind)

_HEADER_KEYS: Final = frozenset(
    {
        "type",
        "format",
        "version",
        "rules_version",
        "generator_version",
        "wasmtime",
        "case",
        "seed",
        "config",
        "limits",
        "map",
        "sides",
    }
)
_KEYFRAME_KEYS: Final = frozenset({"t", "a", "f", "u", "g", "k", "b", "e", "o", "v", "x"})
_DELTA_FRAME_KEYS: Final = frozenset({"t", "a", "f", "m", "h", "k", "b", "e", "o", "v", "x"})
_FORFEIT_FRAME_KEYS: Final = frozenset({"t", "a", "f", "x"})
_OPTIONAL_FRAME_KEYS: Final = frozenset({"n"})
"""Keys a frame of any shape may carry: "n", the sides' debug notes (rules §9.9)."""
_MAX_NOTE_CHARS: Final = sim.MAX_NOTE_BYTES  # a note's bytes decode to at most as many chars
_RESULT_KEYS: Final = frozenset({"type", "winner", "reason", "ticks", "sides"})
_RESULT_SIDE_KEYS: Final = frozenset({"banked", "fuel_total", "fuel_peak", "forfeit"})
_SHA256: Final = re.compile(r"[0-9a-f]{64}")
_CONFIG_FIELDS: Final = frozenset(sim.Config().to_dict())

_I32: Final = (-(1 << 31), (1 << 31) - 1)
_I64_MAX: Final = (1 << 63) - 1
_U64_MAX: Final = (1 << 64) - 1
# Event groups of "v", in order: (name, values per event).
_EVENTS: Final = (("attacks", 3), ("deaths", 2), ("spawns", 4), ("deposits", 3))
# An applied frame's packed action value, op * 8 + arg: op 0..5 and arg 0..7.
_PACKED_MAX: Final = sim.SPAWN * 8 + 7
# The bytes of a "m" bin: absolute directions 0 (stayed), 1 N, 2 E, 3 S, 4 W.
_DIRECTIONS: Final = bytes(range(5))
_CHUNK: Final = 64 * 1024


@dataclass(frozen=True, slots=True)
class ReplayLimits:
    """Bounds on everything a reader will accept; the defaults fit every legal match."""

    max_bytes: int = 64 * 1024 * 1024
    """Size of the whole file."""
    max_object_bytes: int = 1024 * 1024
    """Bytes the decoder may buffer for one object (a legal one is a few tens of KiB)."""
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
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if type(value) is not int or value < 1:
                raise ValueError(f"ReplayLimits.{name} must be a positive int, got {value!r}")


DEFAULT_LIMITS: Final = ReplayLimits()


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
    if isinstance(source, bytes | bytearray | memoryview):
        view = memoryview(source)
        if view.nbytes > limits.max_bytes:
            raise ReplayError(f"replay is {view.nbytes} bytes, over max_bytes {limits.max_bytes}")
        for i in range(0, view.nbytes, _CHUNK):
            yield bytes(view[i : i + _CHUNK])
        return
    total = 0
    while True:
        # Never ask for more than one byte past the bound: enough to detect it.
        chunk = source.read(min(_CHUNK, limits.max_bytes + 1 - total))
        if not chunk:
            return
        total += len(chunk)
        if total > limits.max_bytes:
            raise ReplayError(f"replay is over max_bytes {limits.max_bytes}")
        yield bytes(chunk)


# What msgpack raises on malformed input: limit overruns and bad map keys are
# ValueErrors, bad UTF-8 a UnicodeDecodeError (a ValueError), deep nesting a StackError.
_DECODE_ERRORS: Final = (msgpack.UnpackException, ValueError, TypeError, OverflowError)


def _objects(source: BinaryIO | bytes, limits: ReplayLimits) -> Iterator[tuple[int, object, bytes]]:
    """Yield (offset, object, raw bytes) per top-level msgpack object; raise _Decode* on faults."""
    unpacker = msgpack.Unpacker(
        None,
        max_buffer_size=limits.max_object_bytes,
        max_bin_len=max(limits.max_str, limits.max_map_cells),
        max_str_len=limits.max_str,
        # The longest legal array is a frame's "o": two values per map cell.
        max_array_len=2 * limits.max_map_cells,
        max_map_len=limits.max_map_keys,
        max_ext_len=0,
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


def _validated(
    source: BinaryIO | bytes, limits: ReplayLimits
) -> Iterator[tuple[Header | Frame | Result, bytes]]:
    objects = _objects(source, limits)
    header: _Header | None = None
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
            header = _check_header(obj, limits)
            yield Header.from_wire(obj), raw  # type: ignore[arg-type]
            continue
        if isinstance(obj, dict) and "type" in obj:
            _check_result(obj, tick)
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
        shape = _check_frame(obj, tick, header, limits)
        ended = shape is ForfeitFrame
        yield shape.from_wire(obj), raw  # type: ignore[arg-type]
        tick += 1


def _after(tick: int) -> str:
    return "the header" if tick == 0 else f"the frame of tick {tick - 1}"


# --------------------------------------------------------------------------- schema


class _Fault(Exception):
    """A schema fault at ``path``; the caller adds the object's name."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"field {path!r}: {message}")


def _kind(value: object) -> str:
    return "nil" if value is None else type(value).__name__


def _map(
    value: object, path: str, keys: frozenset[str], optional: frozenset[str] = frozenset()
) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _Fault(path, f"expected a map, got {_kind(value)}")
    missing = sorted(keys - value.keys())
    if missing:
        raise _Fault(path, f"missing key(s) {', '.join(missing)}")
    unknown = sorted(str(k) for k in value.keys() - keys - optional)
    if unknown:
        raise _Fault(path, f"unknown key(s) {', '.join(unknown)}")
    return value


def _notes(value: object) -> None:
    """Per side: a note's text (at most 256 characters), the length of a dropped one, or nil."""
    for s, note in enumerate(_list(value, "n", length=2)):
        path = f"n[{s}]"
        if note is None:
            continue
        if type(note) is str:
            if len(note) > _MAX_NOTE_CHARS:
                raise _Fault(path, f"a note of {len(note)} characters, over {_MAX_NOTE_CHARS}")
        elif type(note) is int:
            _int(note, path, _I32[0], _I32[1])
            if 0 <= note <= _MAX_NOTE_CHARS:
                raise _Fault(path, f"a dropped note's length {note} lies in 0..256: not dropped")
        else:
            raise _Fault(path, f"expected a string, an integer or nil, got {_kind(note)}")


def _int(value: object, path: str, low: int, high: int) -> int:
    # bool is an int subclass: refuse it explicitly.
    if type(value) is not int:
        raise _Fault(path, f"expected an integer, got {_kind(value)}")
    if not low <= value <= high:
        raise _Fault(path, f"{value} is outside {low}..{high}")
    return value


def _str(value: object, path: str) -> str:
    if type(value) is not str:
        raise _Fault(path, f"expected a string, got {_kind(value)}")
    return value


def _list(value: object, path: str, length: int | None = None, most: int = 0) -> list[Any]:
    if type(value) is not list:
        raise _Fault(path, f"expected an array, got {_kind(value)}")
    if length is not None and len(value) != length:
        raise _Fault(path, f"expected {length} elements, got {len(value)}")
    if length is None and len(value) > most:
        raise _Fault(path, f"{len(value)} elements, over the bound {most}")
    return value


def _ints(
    value: object, path: str, group: int, most: int, low: int = _I32[0], high: int = _I64_MAX
) -> list[int]:
    """A flat array of ``group``-sized records, at most ``most`` of them; each value in range."""
    items = _list(value, path, most=group * most)
    if len(items) % group:
        raise _Fault(path, f"{len(items)} values is not a whole number of {group}-value records")
    for i, v in enumerate(items):
        if type(v) is not int:
            raise _Fault(f"{path}[{i}]", f"expected an integer, got {_kind(v)}")
        if not low <= v <= high:
            raise _Fault(f"{path}[{i}]", f"{v} is outside {low}..{high}")
    return items


@dataclass(frozen=True, slots=True)
class _Header:
    """What frames are checked against."""

    width: int
    height: int
    max_ticks: int
    max_units: int
    max_frames: int


def _check_header(obj: object, limits: ReplayLimits) -> _Header:
    try:
        return _header_fields(obj, limits)
    except _Fault as exc:
        raise ReplayError(f"header: {exc}") from None


def _header_fields(obj: object, limits: ReplayLimits) -> _Header:
    if not isinstance(obj, dict):
        raise _Fault("", f"expected a map, got {_kind(obj)}")
    # Identify the format before judging the rest: a future version may differ.
    if obj.get("type") != "header":
        raise _Fault("type", f"expected 'header', got {obj.get('type')!r}")
    if obj.get("format") != FORMAT:
        raise _Fault("format", f"expected {FORMAT!r}, got {obj.get('format')!r}")
    if obj.get("version") not in SUPPORTED_VERSIONS or type(obj.get("version")) is not int:
        supported = ", ".join(map(str, SUPPORTED_VERSIONS))
        raise _Fault(
            "version", f"format version {obj.get('version')!r} is not supported (only {supported})"
        )
    h = _map(obj, "", _HEADER_KEYS)
    _int(h["rules_version"], "rules_version", 0, _U64_MAX)
    _int(h["generator_version"], "generator_version", 0, _U64_MAX)
    _str(h["wasmtime"], "wasmtime")
    if h["case"] is not None:
        case = _map(h["case"], "case", frozenset({"slug", "version"}))
        _str(case["slug"], "case.slug")
        if type(case["version"]) is not int:
            _str(case["version"], "case.version")
    _int(h["seed"], "seed", 0, (1 << 32) - 1)

    config = _map(h["config"], "config", _CONFIG_FIELDS)
    try:
        cfg = sim.Config.from_mapping(config, where="config")
    except sim.ConfigError as exc:
        raise _Fault("config", str(exc).removeprefix("config: ")) from None

    lims = h["limits"]
    if not isinstance(lims, dict):
        raise _Fault("limits", f"expected a map, got {_kind(lims)}")
    if len(lims) > limits.max_limits:
        raise _Fault("limits", f"{len(lims)} entries, over the bound {limits.max_limits}")
    for name, value in lims.items():
        if type(name) is not str:
            raise _Fault("limits", f"key {name!r} is not a string")
        if type(value) not in (int, float) or not math.isfinite(value) or value < 0:
            raise _Fault(f"limits.{name}", f"expected a number >= 0, got {value!r}")

    m = _map(h["map"], "map", frozenset({"width", "height", "rock", "ore", "colonies"}))
    w = _int(m["width"], "map.width", 1, limits.max_map_cells)
    hh = _int(m["height"], "map.height", 1, limits.max_map_cells)
    cells = w * hh
    if cells > limits.max_map_cells:
        raise _Fault("map", f"{w}x{hh} is over max_map_cells {limits.max_map_cells}")
    if (w, hh) != (cfg.width, cfg.height):
        raise _Fault("map", f"size {w}x{hh} differs from the config's {cfg.width}x{cfg.height}")
    rock = m["rock"]
    if type(rock) is not bytes:
        raise _Fault("map.rock", f"expected binary, got {_kind(rock)}")
    if len(rock) != cells:
        raise _Fault("map.rock", f"expected {cells} bytes, got {len(rock)}")
    if rock.translate(None, b"\x00\x01"):
        raise _Fault("map.rock", "bytes must be 0 (open) or 1 (rock)")
    _list(m["ore"], "map.ore", length=cells)
    _ints(m["ore"], "map.ore", 1, cells, 0, _I32[1])
    colonies = _list(m["colonies"], "map.colonies", length=2)
    for s, cell in enumerate(colonies):
        _ints(cell, f"map.colonies[{s}]", 2, 1)
        _list(cell, f"map.colonies[{s}]", length=2)
        if not (0 <= cell[0] < w and 0 <= cell[1] < hh):
            raise _Fault(f"map.colonies[{s}]", f"{cell} is not a cell of the map")

    try:
        # The checks above are sim.GameMap's; building one keeps them in step.
        (ax, ay), (bx, by) = colonies
        sim.GameMap(w, hh, rock, tuple(m["ore"]), ((ax, ay), (bx, by)))
    except sim.MapError as exc:
        raise _Fault("map", str(exc)) from None

    sides = _list(h["sides"], "sides", length=2)
    for s, side in enumerate(sides):
        d = _map(side, f"sides[{s}]", frozenset({"name", "sha256"}))
        _str(d["name"], f"sides[{s}].name")
        if not _SHA256.fullmatch(_str(d["sha256"], f"sides[{s}].sha256")):
            raise _Fault(f"sides[{s}].sha256", "expected 64 lowercase hex digits")
    return _Header(
        width=w,
        height=hh,
        max_ticks=cfg.max_ticks,
        max_units=min(cfg.max_units, limits.max_units_per_side),
        max_frames=min(cfg.max_ticks, limits.max_frames),
    )


def _check_frame(
    obj: object, tick: int, header: _Header, limits: ReplayLimits
) -> type[KeyFrame] | type[DeltaFrame] | type[ForfeitFrame]:
    """Validate one frame; return its shape."""
    try:
        return _frame_fields(obj, tick, header, limits)
    except _Fault as exc:
        raise ReplayError(f"frame of tick {tick}: {exc}", tick) from None


def _frame_fields(
    obj: object, tick: int, hd: _Header, limits: ReplayLimits
) -> type[KeyFrame] | type[DeltaFrame] | type[ForfeitFrame]:
    if not isinstance(obj, dict):
        raise _Fault("", f"expected a map, got {_kind(obj)}")
    # The tick decides the shape, so judge it first.
    if "t" in obj:
        t = _int(obj["t"], "t", 0, _I64_MAX)
        if t != tick:
            raise _Fault("t", f"expected tick {tick} (ticks count 0, 1, 2, ...), got {t}")
    forfeit = "k" not in obj
    if forfeit:
        extra = sorted(str(k) for k in obj.keys() - _FORFEIT_FRAME_KEYS - _OPTIONAL_FRAME_KEYS)
        if extra:
            raise _Fault(
                "",
                f"no key k, so the frame of a forfeit tick (t, a, f, x only), yet it has"
                f" unknown key(s) {', '.join(extra)}",
            )
        keys = _FORFEIT_FRAME_KEYS
    elif tick % KEYFRAME_INTERVAL == 0:
        for key in ("m", "h"):
            if key in obj:
                raise _Fault(
                    key,
                    f"tick {tick} is a keyframe tick (a multiple of {KEYFRAME_INTERVAL}):"
                    " its units are whole in 'u', not deltas in 'm' and 'h'",
                )
        keys = _KEYFRAME_KEYS
    else:
        if "u" in obj:
            raise _Fault(
                "u",
                f"tick {tick} is a delta tick (not a multiple of {KEYFRAME_INTERVAL}):"
                " its units are deltas in 'm' and 'h', not whole in 'u'",
            )
        keys = _DELTA_FRAME_KEYS
    f = _map(obj, "", keys, _OPTIONAL_FRAME_KEYS)  # "t" is present, so judged above
    if "n" in f:
        _notes(f["n"])
    records = min(limits.max_records_per_side, hd.max_units + 1)
    for s, actions in enumerate(_list(f["a"], "a", length=2)):
        path = f"a[{s}]"
        if forfeit:
            # Records as submitted, which may be anything: raw triples.
            _ints(actions, path, 3, records, _I32[0], _I32[1])
            continue
        _ints(actions, path, 2, records, _I32[0], _I32[1])
        for i in range(1, len(actions), 2):
            if not 0 <= actions[i] <= _PACKED_MAX:
                raise _Fault(
                    f"{path}[{i}]",
                    f"packed action {actions[i]} is not op * 8 + arg with op 0..{sim.SPAWN}"
                    " and arg 0..7",
                )
    _ints(f["f"], "f", 1, 2, 0, _I64_MAX)
    _list(f["f"], "f", length=2)
    _int(f["x"], "x", 0, _U64_MAX)
    if forfeit:
        return ForfeitFrame

    cells = hd.width * hd.height
    if "u" in f:
        for s, units in enumerate(_list(f["u"], "u", length=2)):
            path = f"u[{s}]"
            _ints(units, path, 6, hd.max_units)
            last = 0
            for i in range(0, len(units), 6):
                uid, kind, x, y, hp, carry = units[i : i + 6]
                unit = f"{path}[{i}:{i + 6}]"
                if uid <= last:
                    raise _Fault(
                        unit, f"unit id {uid} is not above the previous {last} (ids ascend)"
                    )
                last = uid
                if kind not in (sim.WORKER, sim.SOLDIER):
                    raise _Fault(unit, f"kind {kind} is neither {sim.WORKER} nor {sim.SOLDIER}")
                if not (0 <= x < hd.width and 0 <= y < hd.height):
                    raise _Fault(unit, f"({x}, {y}) is not a cell of the map")
                if hp < 1 or carry < 0:
                    raise _Fault(
                        unit, f"a living unit has hp >= 1 and carry >= 0, got {hp}, {carry}"
                    )
    else:
        for s, moves in enumerate(_list(f["m"], "m", length=2)):
            path = f"m[{s}]"
            if type(moves) is not bytes:
                raise _Fault(path, f"expected binary, got {_kind(moves)}")
            if len(moves) > hd.max_units:
                raise _Fault(path, f"{len(moves)} bytes, over the bound {hd.max_units}")
            if moves.translate(None, _DIRECTIONS):
                i = next(i for i, d in enumerate(moves) if d > 4)
                raise _Fault(
                    f"{path}[{i}]",
                    f"direction {moves[i]} is outside 0..4 (0 stayed, 1 N, 2 E, 3 S, 4 W)",
                )
        for s, changes in enumerate(_list(f["h"], "h", length=2)):
            path = f"h[{s}]"
            _ints(changes, path, 3, hd.max_units)
            last = 0
            for i in range(0, len(changes), 3):
                uid, hp, carry = changes[i : i + 3]
                unit = f"{path}[{i}:{i + 3}]"
                if uid <= last:
                    raise _Fault(
                        unit, f"unit id {uid} is not above the previous {last} (ids ascend)"
                    )
                last = uid
                if hp < 1 or carry < 0:
                    raise _Fault(
                        unit, f"a surviving unit has hp >= 1 and carry >= 0, got {hp}, {carry}"
                    )
    _ints(f["k"], "k", 1, 2, -_I64_MAX, _I64_MAX)
    for key in ("k", "b", "e"):
        _list(f[key], key, length=2)
    _ints(f["b"], "b", 1, 2, 0, _I64_MAX)
    _ints(f["e"], "e", 1, 2, 0, _I64_MAX)
    for key in ("o", "g") if "g" in f else ("o",):
        ore = _ints(f[key], key, 2, cells, 0, _I64_MAX)
        for i in range(0, len(ore), 2):
            if ore[i] >= cells or (i and ore[i] <= ore[i - 2]):
                raise _Fault(
                    f"{key}[{i}]", f"cell {ore[i]} is off the map or out of ascending order"
                )
    events = _list(f["v"], "v", length=len(_EVENTS))
    for (name, group), items in zip(_EVENTS, events, strict=True):
        path = f"v.{name}"
        _ints(items, path, group, 2 * hd.max_units, 0, _I64_MAX)
        for i in range(0, len(items), group):
            if items[i] > 1:
                raise _Fault(f"{path}[{i}]", f"side {items[i]} is neither 0 nor 1")
        if name == "attacks":
            for i in range(2, len(items), 3):
                if items[i] >= cells:
                    raise _Fault(f"{path}[{i}]", f"cell {items[i]} is off the map")
        elif name == "spawns":
            for i in range(0, len(items), 4):
                kind, cell = items[i + 2], items[i + 3]
                if kind not in (sim.WORKER, sim.SOLDIER):
                    raise _Fault(
                        f"{path}[{i + 2}]", f"kind {kind} is neither {sim.WORKER} nor {sim.SOLDIER}"
                    )
                if cell >= cells:
                    raise _Fault(f"{path}[{i + 3}]", f"cell {cell} is off the map")
    return KeyFrame if "u" in f else DeltaFrame


def _check_result(obj: dict[Any, Any], ticks: int) -> None:
    try:
        _result_fields(obj, ticks)
    except _Fault as exc:
        raise ReplayError(f"result: {exc}") from None


def _result_fields(obj: dict[Any, Any], ticks: int) -> None:
    if obj.get("type") != "result":
        raise _Fault("type", f"expected 'result' (or a frame without a type), got {obj['type']!r}")
    r = _map(obj, "", _RESULT_KEYS)
    if r["winner"] is not None:
        _int(r["winner"], "winner", 0, 1)
    if _str(r["reason"], "reason") not in _REASONS:
        raise _Fault("reason", f"{r['reason']!r} is not one of {', '.join(sorted(_REASONS))}")
    if _int(r["ticks"], "ticks", 0, _I64_MAX) != ticks:
        raise _Fault("ticks", f"{r['ticks']} differs from the {ticks} frame(s) read")
    for s, side in enumerate(_list(r["sides"], "sides", length=2)):
        path = f"sides[{s}]"
        d = _map(side, path, _RESULT_SIDE_KEYS)
        for key in ("banked", "fuel_total", "fuel_peak"):
            _int(d[key], f"{path}.{key}", 0, _I64_MAX)
        if d["forfeit"] is not None:
            fp = f"{path}.forfeit"
            ff = _map(d["forfeit"], fp, frozenset({"tick", "kind", "detail"}))
            _int(ff["tick"], f"{fp}.tick", 0, _I64_MAX)
            if _str(ff["kind"], f"{fp}.kind") not in _FORFEIT_KINDS:
                raise _Fault(f"{fp}.kind", f"{ff['kind']!r} is not a forfeit kind")
            _str(ff["detail"], f"{fp}.detail")
