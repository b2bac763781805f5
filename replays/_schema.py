"""The schema of the replay format: a decoded wire object judged before it is typed.

Every object must have exactly the keys of its shape, each value of its type
and in its range, frames in tick order and within the header's map and
rules. A fault raises ``ReplayError`` naming the object (header, frame of tick
N, result), the field and what was wrong. The reader (``replays._reader``)
runs these checks on each object as it is decoded.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Final

import sim
from replays._errors import ReplayError
from replays._format import (
    FORMAT,
    KEYFRAME_INTERVAL,
    MEMORY_VERSION,
    SUPPORTED_VERSIONS,
    DeltaFrame,
    ForfeitFrame,
    KeyFrame,
)
from replays._limits import ReplayLimits

__all__ = ["HeaderBounds", "check_frame", "check_header", "check_result"]

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
_MEMORY_FRAME_KEYS: Final = _OPTIONAL_FRAME_KEYS | {"l"}
"""The optional keys of a version-3 frame: "l" too, each side's memory (required at
keyframe ticks)."""
_MEMORY_MAX: Final = 1 << 32  # a 32-bit memory's most bytes: 65,536 pages of 64 KiB
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
class HeaderBounds:
    """What frames are checked against."""

    width: int
    height: int
    max_ticks: int
    max_units: int
    max_frames: int
    version: int


def check_header(obj: object, limits: ReplayLimits) -> HeaderBounds:
    """Validate the header; return what its frames are checked against."""
    if not isinstance(obj, dict):  # the file's first object: not a replay at all
        raise ReplayError(
            f"not a Foray replay: its first object is {_kind(obj)}, not the header (a map)"
        )
    try:
        return _header_fields(obj, limits)
    except _Fault as exc:
        raise ReplayError(f"header: {exc}") from None


def _header_fields(obj: object, limits: ReplayLimits) -> HeaderBounds:
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
    return HeaderBounds(
        width=w,
        height=hh,
        max_ticks=cfg.max_ticks,
        max_units=min(cfg.max_units, limits.max_units_per_side),
        max_frames=min(cfg.max_ticks, limits.max_frames),
        version=h["version"],
    )


def check_frame(
    obj: object, tick: int, header: HeaderBounds, limits: ReplayLimits
) -> type[KeyFrame] | type[DeltaFrame] | type[ForfeitFrame]:
    """Validate one frame; return its shape."""
    try:
        return _frame_fields(obj, tick, header, limits)
    except _Fault as exc:
        raise ReplayError(f"frame of tick {tick}: {exc}", tick) from None


def _frame_fields(
    obj: object, tick: int, hd: HeaderBounds, limits: ReplayLimits
) -> type[KeyFrame] | type[DeltaFrame] | type[ForfeitFrame]:
    if not isinstance(obj, dict):
        raise _Fault("", f"expected a map, got {_kind(obj)}")
    # The tick decides the shape, so judge it first.
    if "t" in obj:
        t = _int(obj["t"], "t", 0, _I64_MAX)
        if t != tick:
            raise _Fault("t", f"expected tick {tick} (ticks count 0, 1, 2, ...), got {t}")
    optional = _MEMORY_FRAME_KEYS if hd.version >= MEMORY_VERSION else _OPTIONAL_FRAME_KEYS
    forfeit = "k" not in obj
    if forfeit:
        extra = sorted(str(k) for k in obj.keys() - _FORFEIT_FRAME_KEYS - optional)
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
    f = _map(obj, "", keys, optional)  # "t" is present, so judged above
    if "n" in f:
        _notes(f["n"])
    if "l" in f:
        _ints(f["l"], "l", 1, 2, 0, _MEMORY_MAX)
        _list(f["l"], "l", length=2)
    elif optional is _MEMORY_FRAME_KEYS and tick % KEYFRAME_INTERVAL == 0:
        raise _Fault(
            "l",
            f"missing: tick {tick} is a multiple of {KEYFRAME_INTERVAL}, whose frame records"
            " both sides' memory",
        )
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


def check_result(obj: dict[Any, Any], ticks: int) -> None:
    """Validate the result of a replay of ``ticks`` frames."""
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
