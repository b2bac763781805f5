"""Replay format version 3: a msgpack stream of one header, one frame per tick, one result.

The objects are typed here (``Header``, ``KeyFrame``, ``DeltaFrame``,
``ForfeitFrame``, ``Result``); each one owns its wire shape (``to_wire``) and
is rebuilt from a validated wire object by ``from_wire``. On the wire every
object is a msgpack map with short string keys (frames are the bulk of a file,
so their keys are one letter). Coordinates and cells are absolute (side 0's
view; a cell is ``y * width + x``). Actions are recorded as submitted, in the
submitter's own view, because re-simulation must feed the rules what the
controllers said.

header  {"type": "header", "format": "foray-replay", "version": 3,
         "rules_version", "generator_version", "wasmtime", "case": {"slug", "version"} | None,
         "seed", "config": {constant: int}, "limits": {name: number},
         "map": {"width", "height", "rock": bin, "ore": [int], "colonies": [[x, y], [x, y]]},
         "sides": [{"name", "sha256"}, {"name", "sha256"}]}

frame   The state after tick "t" was resolved. Three shapes:

  keyframe (every tick t with t % KEYFRAME_INTERVAL == 0):
        {"t", "a", "f", "l", "u", "g", "k", "b", "e", "o", "v", "x"}
  delta frame (every other applied tick):
        {"t", "a", "f", ("l"), "m", "h", "k", "b", "e", "o", "v", "x"}
  forfeit frame (the tick in which a side forfeited; it was NOT applied, and
  it is the last frame):
        {"t", "a", "f", ("l"), "x"}
  Any frame may also carry "n" (last); "l" is version 3's (see Versions).

  "a"  per side, the records as submitted, flat. In applied frames every record
       is valid, so it is packed as two ints: [id, op * 8 + arg, ...]. In a
       forfeit frame records may be anything, so they are raw triples
       [id, op, arg, ...] (an out-of-range count n is recorded as no records).
  "f"  [fuel A, fuel B] used this tick.
  "l"  [memory A, memory B]: each side's linear memory size in bytes after the
       tick's calls (the reading the memory cap judges, rules §8.5; in a forfeit
       frame, where the faulting call ended). Carried by every frame whose tick
       is a multiple of KEYFRAME_INTERVAL (tick 0 included) and by every other
       frame in which either size differs from the frame before; a frame
       without it has the sizes of the frame before.
  "u"  per side, every living unit by id, flat: [id, kind, x, y, hp, carry, ...].
  "g"  [cell, amount, ...] for every cell holding ore, ascending (keyframes only).
  "m"  per side, a bin: one byte per unit of the previous frame's state that is
       still alive, in id order: the absolute direction it moved (0 stayed,
       1 N, 2 E, 3 S, 4 W).
  "h"  per side, flat [id, hp, carry, ...] for those surviving units whose hp or
       carry changed. Units spawned this tick are in "v" with their cell; they
       start with their kind's hp from the header's config and carry 0.
  "k", "b", "e"  [A, B] colony hp, banked, energy.
  "o"  [cell, amount, ...] for the cells whose ore changed, ascending.
  "v"  events: [attacks [side, id, cell, ...], deaths [side, id, ...],
       spawns [side, id, kind, cell, ...], deposits [side, id, amount, ...]].
  "x"  the u64 checksum of the resolved state (of the unchanged state, in a
       forfeit frame): ``sim.Game.checksum`` (sim/_checksum.py spells it out).
  "n"  per side, the tick's debug note (rules §9.9): its text, the length a
       dropped note was returned with, or nil; only when a side exports foray_note.

  A viewer draws tick t from the latest keyframe at or before t (its units
  "u" and its ore "g"), applying the delta frames after it in order: drop the
  dead, move the survivors by "m", apply "h", add the spawned, set the ore of
  "o". Units are listed in id order: the sim keeps each roster in id order.

result  {"type": "result", "winner": 0 | 1 | None, "reason", "ticks",
         "sides": [{"banked", "fuel_total", "fuel_peak",
                    "forfeit": None | {"tick", "kind", "detail"}}, x2]}

Versions. Version 2 changed only what "x" holds: version 1's checksum hashed
every cell's ore amount every tick (``sim.Game.checksum_v1``), version 2's
hashes a digest of the ore that the state keeps up to date cell by cell
(``sim.Game.checksum``), so a tick's checksum no longer grows with the map.
Version 3 is version 2 with "l", each side's memory over time; nothing else
differs, so a version-3 file less its "l" keys is version 2's. Readers accept
all three, and verification checks each against its own checksum and shapes.
Writers write version 3, and version 1 or 2 when asked (``extended_version``:
the version a case that names an older one records in).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, TypeAlias

import msgspec

import sim
from replays._limits import MAX_NAME_CHARS, clip

__all__ = [
    "FORMAT",
    "KEYFRAME_INTERVAL",
    "LIMIT_RANGES",
    "MEDIA_TYPE",
    "MEMORY_VERSION",
    "SUPPORTED_VERSIONS",
    "VERSION",
    "CaseRef",
    "DeltaFrame",
    "Events",
    "ForfeitFrame",
    "Frame",
    "Header",
    "KeyFrame",
    "Memory",
    "Note",
    "Notes",
    "Result",
    "ResultSide",
    "SideInfo",
    "Wire",
    "checksum_version",
    "extended_version",
    "memory_carried",
]

FORMAT = "foray-replay"
VERSION = 3
"""The version this code writes unless asked for an older one."""
SUPPORTED_VERSIONS: tuple[int, ...] = (1, 2, 3)
"""The versions this code reads, verifies and writes."""
MEMORY_VERSION: Final = 3
"""The first version whose frames record each side's memory (key "l")."""
_EXTENDED_BY: Final = {2: 3}
"""A version, and the newer one that is it plus more records: version 3 is 2 with "l"."""
MEDIA_TYPE = "application/x-msgpack"
KEYFRAME_INTERVAL = 20
"""Full unit lists every this many ticks bound how far a viewer replays deltas to seek."""

LIMIT_RANGES: Final[dict[str, tuple[type, int | float, int | float]]] = {
    "fuel_per_tick": (int, 1, 10**13),
    "init_fuel": (int, 1, 10**14),
    "max_memory_bytes": (int, 65_536, 2**31),
    "tick_timeout": (float, 0.0, 3600.0),
    "init_timeout": (float, 0.0, 3600.0),
    "compile_timeout": (float, 0.0, 3600.0),
    "compile_memory_bytes": (int, 2**28, 2**40),
}
"""The sandbox limits a header records (rules §8.1), by name: (kind, low, high). An int
lies in low..high; a float (seconds; an int is accepted) in (low, high]."""

Wire: TypeAlias = dict[str, Any]
"""One object as msgpack carries it: a map with string keys."""

Sides: TypeAlias = tuple[int, int]
Note: TypeAlias = str | int | None
"""One side's debug note of a tick (rules §9.9): its text; the length its ``foray_note``
returned when that was out of 0..256 (the note was dropped); or None (no note)."""
Notes: TypeAlias = tuple[Note, Note]
Memory: TypeAlias = tuple[int, int]
"""Each side's linear memory size in bytes after a tick's calls (A, B)."""
Actions: TypeAlias = tuple[tuple[sim.Record, ...], tuple[sim.Record, ...]]


def checksum_version(version: int) -> int:
    """The checksum a format version records in "x": version 1's, or version 2's (also
    version 3's). ``sim.Game.checksum_v1`` computes the first, ``sim.Game.checksum`` the
    second; the native core's ``checksum`` takes this number."""
    return 1 if version == 1 else 2


def extended_version(version: int) -> int:
    """The newest version that is ``version`` plus more records (``version`` itself when
    none is): 3 for 2, 1 for 1. A case that names ``version`` records in this one: its
    replays hold the same game with the same checksums, and each side's memory."""
    while version in _EXTENDED_BY:
        version = _EXTENDED_BY[version]
    return version


def memory_carried(tick: int, memory: Sequence[int], previous: Sequence[int] | None) -> bool:
    """Whether the frame of ``tick`` carries "l": at every keyframe tick, and when a size
    differs from the frame before (``previous``; None before the first frame)."""
    return (
        tick % KEYFRAME_INTERVAL == 0
        or previous is None
        or memory[0] != previous[0]
        or memory[1] != previous[1]
    )


# --------------------------------------------------------------------------- header


class CaseRef(msgspec.Struct, frozen=True):
    """The case a match was played under: its slug and version."""

    slug: str
    version: int | str


class SideInfo(msgspec.Struct, frozen=True):
    """Who played a side: a display name and the module's sha256."""

    name: str
    sha256: str


class Header(msgspec.Struct, frozen=True):
    """Everything needed to play the match again, and to draw it."""

    rules_version: int
    generator_version: int
    wasmtime: str
    case: CaseRef | None
    seed: int
    config: sim.Config
    limits: Mapping[str, int | float]
    """The sandbox limits, by name: metadata for readers (verification reads fuel_per_tick)."""
    game_map: sim.GameMap
    sides: tuple[SideInfo, SideInfo]
    version: int = VERSION

    @classmethod
    def for_game(
        cls,
        game: sim.Game,
        sides: tuple[SideInfo, SideInfo],
        *,
        seed: int,
        limits: Mapping[str, int | float],
        wasmtime: str,
        case: CaseRef | None = None,
    ) -> Header:
        """The header of a match about to be played on ``game`` (before its first tick).

        Side names are clipped to ``MAX_NAME_CHARS`` here, where they enter a replay.
        """
        sides = (
            SideInfo(clip(sides[0].name, MAX_NAME_CHARS), sides[0].sha256),
            SideInfo(clip(sides[1].name, MAX_NAME_CHARS), sides[1].sha256),
        )
        return cls(
            rules_version=sim.RULES_VERSION,
            generator_version=sim.GENERATOR_VERSION,
            wasmtime=wasmtime,
            case=case,
            seed=seed,
            config=game.config,
            limits=dict(limits),
            game_map=game.map,
            sides=sides,
        )

    def to_wire(self) -> Wire:
        m = self.game_map
        return {
            "type": "header",
            "format": FORMAT,
            "version": self.version,
            "rules_version": self.rules_version,
            "generator_version": self.generator_version,
            "wasmtime": self.wasmtime,
            "case": None
            if self.case is None
            else {"slug": self.case.slug, "version": self.case.version},
            "seed": self.seed,
            "config": self.config.to_dict(),
            "limits": dict(self.limits),
            "map": {
                "width": m.width,
                "height": m.height,
                "rock": bytes(m.rock),
                "ore": list(m.ore),
                "colonies": [list(c) for c in m.colonies],
            },
            "sides": [{"name": s.name, "sha256": s.sha256} for s in self.sides],
        }

    @classmethod
    def from_wire(cls, obj: Wire) -> Header:
        """Build from a header the reader has validated."""
        m = obj["map"]
        (ax, ay), (bx, by) = m["colonies"]
        case = obj["case"]
        a, b = obj["sides"]
        return cls(
            rules_version=obj["rules_version"],
            generator_version=obj["generator_version"],
            wasmtime=obj["wasmtime"],
            case=None if case is None else CaseRef(case["slug"], case["version"]),
            seed=obj["seed"],
            config=sim.Config.from_mapping(obj["config"], where="header config"),
            limits=obj["limits"],
            game_map=sim.GameMap(
                m["width"], m["height"], m["rock"], tuple(m["ore"]), ((ax, ay), (bx, by))
            ),
            sides=(SideInfo(a["name"], a["sha256"]), SideInfo(b["name"], b["sha256"])),
            version=obj["version"],
        )


# --------------------------------------------------------------------------- frames


class Events(msgspec.Struct, frozen=True):
    """What happened in an applied tick, in absolute cells."""

    attacks: tuple[tuple[int, int, int], ...] = ()
    """(side, unit id, target cell)."""
    deaths: tuple[tuple[int, int], ...] = ()
    """(side, unit id)."""
    spawns: tuple[tuple[int, int, int, int], ...] = ()
    """(side, unit id, kind, cell)."""
    deposits: tuple[tuple[int, int, int], ...] = ()
    """(side, unit id, amount)."""

    def to_wire(self) -> list[list[int]]:
        return [
            [v for e in self.attacks for v in e],
            [v for e in self.deaths for v in e],
            [v for e in self.spawns for v in e],
            [v for e in self.deposits for v in e],
        ]

    @classmethod
    def from_wire(cls, v: list[list[int]]) -> Events:
        attacks, deaths, spawns, deposits = v
        return cls(
            tuple(_groups(attacks, 3)),  # type: ignore[arg-type]
            tuple(_groups(deaths, 2)),  # type: ignore[arg-type]
            tuple(_groups(spawns, 4)),  # type: ignore[arg-type]
            tuple(_groups(deposits, 3)),  # type: ignore[arg-type]
        )


class ForfeitFrame(msgspec.Struct, frozen=True):
    """The tick in which a side forfeited: recorded but not applied; always the last frame."""

    tick: int
    actions: Actions
    """Per side, the records as submitted (none for a side whose call faulted)."""
    fuel: Sides
    checksum: int
    """Of the unchanged state the tick started from."""
    notes: Notes | None = None
    memory: Memory | None = None
    """Each side's memory size where its calls of the tick ended, when the frame carries
    it (version 3: see ``memory_carried``); None: as in the frame before."""

    def to_wire(self) -> Wire:
        obj: Wire = {
            "t": self.tick,
            "a": [[v for r in records for v in r] for records in self.actions],
            "f": list(self.fuel),
        }
        if self.memory is not None:
            obj["l"] = list(self.memory)
        obj["x"] = self.checksum
        if self.notes is not None:
            obj["n"] = list(self.notes)
        return obj

    @classmethod
    def from_wire(cls, obj: Wire) -> ForfeitFrame:
        a, b = obj["a"]
        fa, fb = obj["f"]
        actions = (_groups(a, 3), _groups(b, 3))
        return cls(
            obj["t"],
            actions,  # type: ignore[arg-type]
            (fa, fb),
            obj["x"],
            _notes(obj),
            _memory(obj),
        )


class KeyFrame(msgspec.Struct, frozen=True):
    """An applied tick with every living unit and every ore cell: a viewer can seek here."""

    tick: int
    actions: Actions
    fuel: Sides
    units: tuple[tuple[sim.UnitRecord, ...], tuple[sim.UnitRecord, ...]]
    """Per side, every living unit by id, in absolute coordinates."""
    ore: tuple[tuple[int, int], ...]
    """(cell, amount) of every cell holding ore, ascending."""
    colony_hp: Sides
    banked: Sides
    energy: Sides
    ore_changed: tuple[tuple[int, int], ...]
    """(cell, amount) of the cells whose ore changed this tick, ascending."""
    events: Events
    checksum: int
    notes: Notes | None = None
    memory: Memory | None = None
    """Each side's memory size after the tick's calls (version 3: always at a keyframe)."""

    def to_wire(self) -> Wire:
        return {
            **_applied_head(self),
            "u": [[v for u in units for v in u] for units in self.units],
            "g": [v for pair in self.ore for v in pair],
            **_applied_tail(self),
        }

    @classmethod
    def from_wire(cls, obj: Wire) -> KeyFrame:
        u0, u1 = obj["u"]
        return cls(
            units=(
                tuple(sim.UnitRecord(*u) for u in _groups(u0, 6)),
                tuple(sim.UnitRecord(*u) for u in _groups(u1, 6)),
            ),
            ore=_groups(obj["g"], 2),  # type: ignore[arg-type]
            **_applied_fields(obj),
        )


class DeltaFrame(msgspec.Struct, frozen=True):
    """An applied tick recorded as what changed since the frame before it."""

    tick: int
    actions: Actions
    fuel: Sides
    moves: tuple[bytes, bytes]
    """Per side, one byte per unit of the previous state still alive, in id order: the
    absolute direction it moved (0 stayed)."""
    changes: tuple[tuple[tuple[int, int, int], ...], tuple[tuple[int, int, int], ...]]
    """Per side, (id, hp, carry) of the survivors whose hp or carry changed."""
    colony_hp: Sides
    banked: Sides
    energy: Sides
    ore_changed: tuple[tuple[int, int], ...]
    events: Events
    checksum: int
    notes: Notes | None = None
    memory: Memory | None = None
    """Each side's memory size after the tick's calls, when either changed (version 3);
    None: as in the frame before."""

    def to_wire(self) -> Wire:
        return {
            **_applied_head(self),
            "m": list(self.moves),
            "h": [[v for c in changes for v in c] for changes in self.changes],
            **_applied_tail(self),
        }

    @classmethod
    def from_wire(cls, obj: Wire) -> DeltaFrame:
        m0, m1 = obj["m"]
        h0, h1 = obj["h"]
        return cls(
            moves=(m0, m1),
            changes=(_groups(h0, 3), _groups(h1, 3)),  # type: ignore[arg-type]
            **_applied_fields(obj),
        )


Frame: TypeAlias = KeyFrame | DeltaFrame | ForfeitFrame
"""One tick's record."""


def _applied_head(frame: KeyFrame | DeltaFrame) -> Wire:
    head: Wire = {"t": frame.tick, "a": _packed(frame.actions), "f": list(frame.fuel)}
    if frame.memory is not None:
        head["l"] = list(frame.memory)
    return head


def _applied_tail(frame: KeyFrame | DeltaFrame) -> Wire:
    tail: Wire = {
        "k": list(frame.colony_hp),
        "b": list(frame.banked),
        "e": list(frame.energy),
        "o": [v for pair in frame.ore_changed for v in pair],
        "v": frame.events.to_wire(),
        "x": frame.checksum,
    }
    if frame.notes is not None:
        tail["n"] = list(frame.notes)
    return tail


def _notes(obj: Wire) -> Notes | None:
    notes = obj.get("n")
    return None if notes is None else (notes[0], notes[1])


def _memory(obj: Wire) -> Memory | None:
    memory = obj.get("l")
    return None if memory is None else (memory[0], memory[1])


def _applied_fields(obj: Wire) -> dict[str, Any]:
    """The fields every applied frame has, from its wire object."""
    return {
        "tick": obj["t"],
        "actions": _unpacked(obj["a"]),
        "fuel": _pair(obj["f"]),
        "colony_hp": _pair(obj["k"]),
        "banked": _pair(obj["b"]),
        "energy": _pair(obj["e"]),
        "ore_changed": _groups(obj["o"], 2),
        "events": Events.from_wire(obj["v"]),
        "checksum": obj["x"],
        "notes": _notes(obj),
        "memory": _memory(obj),
    }


def _pair(values: Sequence[int]) -> Sides:
    return (values[0], values[1])


def _groups(flat: Sequence[int], size: int) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(flat[i : i + size]) for i in range(0, len(flat), size))


def _packed(actions: Actions) -> list[list[int]]:
    """Valid records, flat and packed: [id, op * 8 + arg, ...]."""
    return [_packed_side(records) for records in actions]


def _unpacked(flat_sides: list[list[int]]) -> Actions:
    a, b = (
        tuple((flat[i], flat[i + 1] >> 3, flat[i + 1] & 7) for i in range(0, len(flat), 2))
        for flat in flat_sides
    )
    return (a, b)


# --------------------------------------------------------------------------- result


class ResultSide(msgspec.Struct, frozen=True):
    """One side's totals at the end of a match."""

    banked: int
    fuel_total: int
    fuel_peak: int
    forfeit: sim.Forfeit | None

    def to_wire(self) -> Wire:
        return {
            "banked": self.banked,
            "fuel_total": self.fuel_total,
            "fuel_peak": self.fuel_peak,
            "forfeit": None if self.forfeit is None else self.forfeit.to_dict(),
        }

    @classmethod
    def from_wire(cls, obj: Wire) -> ResultSide:
        f = obj["forfeit"]
        forfeit = (
            None if f is None else sim.Forfeit(f["tick"], sim.ForfeitKind(f["kind"]), f["detail"])
        )
        return cls(obj["banked"], obj["fuel_total"], obj["fuel_peak"], forfeit)


class Result(msgspec.Struct, frozen=True):
    """How the match ended: ``winner`` is the side index (0 = A, 1 = B) or None for a draw."""

    winner: int | None
    reason: sim.Reason
    ticks: int
    sides: tuple[ResultSide, ResultSide]

    def to_wire(self) -> Wire:
        return {
            "type": "result",
            "winner": self.winner,
            "reason": str(self.reason),
            "ticks": self.ticks,
            "sides": [s.to_wire() for s in self.sides],
        }

    @classmethod
    def from_wire(cls, obj: Wire) -> Result:
        a, b = obj["sides"]
        return cls(
            obj["winner"],
            sim.Reason(obj["reason"]),
            obj["ticks"],
            (ResultSide.from_wire(a), ResultSide.from_wire(b)),
        )


def _packed_side(records: Sequence[sim.Record]) -> list[int]:
    """One side's valid records, flat and packed: [id, op * 8 + arg, ...]."""
    flat: list[int] = []
    for uid, op, arg in records:
        # Two appends, not += of a pair: a call of list.append takes the
        # interpreter's fast path, and no tuple is made per record.
        flat.append(uid)
        flat.append(op * 8 + arg)
    return flat
