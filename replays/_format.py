"""Replay format version 2: a msgpack stream of one header, one frame per tick, one result.

The objects are typed here (``Header``, ``KeyFrame``, ``DeltaFrame``,
``ForfeitFrame``, ``Result``); each one owns its wire shape (``to_wire``) and
is rebuilt from a validated wire object by ``from_wire``. On the wire every
object is a msgpack map with short string keys (frames are the bulk of a file,
so their keys are one letter). Coordinates and cells are absolute (side 0's
view; a cell is ``y * width + x``). Actions are recorded as submitted, in the
submitter's own view, because re-simulation must feed the rules what the
controllers said.

header  {"type": "header", "format": "foray-replay", "version": 2,
         "rules_version", "generator_version", "wasmtime", "case": {"slug", "version"} | None,
         "seed", "config": {constant: int}, "limits": {name: number},
         "map": {"width", "height", "rock": bin, "ore": [int], "colonies": [[x, y], [x, y]]},
         "sides": [{"name", "sha256"}, {"name", "sha256"}]}

frame   The state after tick "t" was resolved. Three shapes:

  keyframe (every tick t with t % KEYFRAME_INTERVAL == 0):
        {"t", "a", "f", "u", "g", "k", "b", "e", "o", "v", "x"}
  delta frame (every other applied tick):
        {"t", "a", "f", "m", "h", "k", "b", "e", "o", "v", "x"}
  forfeit frame (the tick in which a side forfeited; it was NOT applied, and
  it is the last frame):
        {"t", "a", "f", "x"}

  "a"  per side, the records as submitted, flat. In applied frames every record
       is valid, so it is packed as two ints: [id, op * 8 + arg, ...]. In a
       forfeit frame records may be anything, so they are raw triples
       [id, op, arg, ...] (an out-of-range count n is recorded as no records).
  "f"  [fuel A, fuel B] used this tick.
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
       forfeit frame): ``sim.Game.checksum`` (its docstring spells it out).

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
(``sim.Game.checksum``), so a tick's checksum no longer grows with the map. The
shapes are otherwise the same: readers accept both versions, and verification
checks each against its own checksum. Writers write version 2.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any, BinaryIO, Final, TypeAlias

import msgpack

import sim

__all__ = [
    "FORMAT",
    "KEYFRAME_INTERVAL",
    "LIMIT_RANGES",
    "MAX_DETAIL_CHARS",
    "MAX_NAME_CHARS",
    "MEDIA_TYPE",
    "SUPPORTED_VERSIONS",
    "VERSION",
    "CaseRef",
    "DeltaFrame",
    "Events",
    "ForfeitFrame",
    "Frame",
    "FrameEncoder",
    "Header",
    "KeyFrame",
    "Note",
    "Notes",
    "Recorder",
    "ReplayWriter",
    "Result",
    "ResultSide",
    "SideInfo",
    "Wire",
    "clip",
]

FORMAT = "foray-replay"
VERSION = 2
"""The version this code writes."""
SUPPORTED_VERSIONS: tuple[int, ...] = (1, 2)
"""The versions this code reads and verifies."""
MEDIA_TYPE = "application/x-msgpack"
KEYFRAME_INTERVAL = 20
"""Full unit lists every this many ticks bound how far a viewer replays deltas to seek."""

MAX_NAME_CHARS = 128
"""Characters of a side's name in a header (longer names are cut where they enter it)."""
MAX_DETAIL_CHARS = 512
"""Characters of a forfeit's detail in a result. Both bounds keep every string of an
honest replay far below the reader's ``max_str`` (4,096 bytes; a character is at most 4)."""

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
Actions: TypeAlias = tuple[tuple[sim.Record, ...], tuple[sim.Record, ...]]


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


# --------------------------------------------------------------------------- header


@dataclass(frozen=True, slots=True)
class CaseRef:
    """The case a match was played under: its slug and version."""

    slug: str
    version: int | str


@dataclass(frozen=True, slots=True)
class SideInfo:
    """Who played a side: a display name and the module's sha256."""

    name: str
    sha256: str


@dataclass(frozen=True, slots=True)
class Header:
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


@dataclass(frozen=True, slots=True)
class Events:
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


@dataclass(frozen=True, slots=True)
class ForfeitFrame:
    """The tick in which a side forfeited: recorded but not applied; always the last frame."""

    tick: int
    actions: Actions
    """Per side, the records as submitted (none for a side whose call faulted)."""
    fuel: Sides
    checksum: int
    """Of the unchanged state the tick started from."""
    notes: Notes | None = None

    def to_wire(self) -> Wire:
        obj: Wire = {
            "t": self.tick,
            "a": [[v for r in records for v in r] for records in self.actions],
            "f": list(self.fuel),
            "x": self.checksum,
        }
        if self.notes is not None:
            obj["n"] = list(self.notes)
        return obj

    @classmethod
    def from_wire(cls, obj: Wire) -> ForfeitFrame:
        a, b = obj["a"]
        fa, fb = obj["f"]
        actions = (_groups(a, 3), _groups(b, 3))
        return cls(obj["t"], actions, (fa, fb), obj["x"], _notes(obj))  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class KeyFrame:
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

    def to_wire(self) -> Wire:
        return {
            "t": self.tick,
            "a": _packed(self.actions),
            "f": list(self.fuel),
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


@dataclass(frozen=True, slots=True)
class DeltaFrame:
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

    def to_wire(self) -> Wire:
        return {
            "t": self.tick,
            "a": _packed(self.actions),
            "f": list(self.fuel),
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


@dataclass(frozen=True, slots=True)
class ResultSide:
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


@dataclass(frozen=True, slots=True)
class Result:
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


# --------------------------------------------------------------------------- writing


class FrameEncoder:
    """Builds the frames of one match in order; keeps the previous state for deltas.

    The recorder writes with it and the re-simulation check rebuilds with it, so
    what is written and what is checked cannot drift apart. ``wire`` builds a
    frame's wire object straight from the state (the recorder's path, every
    tick); the typed frame is ``Frame.from_wire`` of it.
    """

    def __init__(self, game: sim.Game, version: int = VERSION) -> None:
        if version not in SUPPORTED_VERSIONS:
            raise ValueError(f"replay format version {version} is not supported")
        # The checksum this version records, bound once: it is taken every tick.
        self._checksum = game.checksum_v1 if version == 1 else game.checksum
        # The previous frame's state as ``Game.unit_words`` gave it (lists the
        # game never changes afterwards): deltas are taken against it.
        self._prev = game.unit_words()
        # A step of one cell or none, in cell indices, to its "m" byte (the direction's number).
        w = game.width
        self._move_byte = {dx + dy * w: d for d, (dx, dy) in enumerate(sim.DIRECTION_DELTAS)}

    def checksum(self, units: sim.UnitWords | None = None) -> int:
        """The checksum of the game's current state, as this encoder's format version records
        it (version 1's hashes every cell's ore); ``units`` as for ``Game.checksum``."""
        return self._checksum(units)

    def wire(
        self,
        game: sim.Game,
        submitted: Sequence[Sequence[sim.Record]],
        fuel: Sequence[int],
        ev: sim.TickEvents,
        checksum: int | None = None,
        notes: Notes | None = None,
    ) -> Wire:
        """The wire object of the tick ``game`` has just stepped (``game`` is the state after it).

        ``checksum`` is the state's, when the caller has it already. ``notes`` are
        the sides' debug notes; the frame carries them (key "n") only when given.
        """
        tick = game.tick - 1
        s0, s1 = game.sides
        obj: Wire = {
            "t": tick,
            "a": [_packed_side(submitted[0]), _packed_side(submitted[1])],
            "f": [fuel[0], fuel[1]],
        }
        if tick % KEYFRAME_INTERVAL == 0:
            words = game.unit_words()  # for the next deltas and the checksum
            w = game.width
            units: list[list[int]] = []
            for side in game.sides:
                flat: list[int] = []
                for u in side.units.values():
                    flat += (u.id, u.kind, u.cell % w, u.cell // w, u.hp, u.carry)
                units.append(flat)
            obj["u"] = units
            obj["g"] = _cells_and_amounts(game.ore_cells(), game.ore)
        else:
            words, obj["m"], obj["h"] = self._deltas(game, ev)
        self._prev = words
        obj["k"] = [s0.colony_hp, s1.colony_hp]
        obj["b"] = [s0.banked, s1.banked]
        obj["e"] = [s0.energy, s1.energy]
        obj["o"] = _cells_and_amounts(sorted(ev.ore_changed), game.ore) if ev.ore_changed else []
        # Most ticks have no events at all: four empty lists without a look at each.
        attacks, deaths, spawns, deposits = ev.attacks, ev.deaths, ev.spawns, ev.deposits
        if attacks or deaths or spawns or deposits:
            obj["v"] = [
                list(chain.from_iterable(attacks)),
                list(chain.from_iterable(deaths)),
                list(chain.from_iterable(spawns)),
                list(chain.from_iterable(deposits)),
            ]
        else:
            obj["v"] = [[], [], [], []]
        obj["x"] = self._checksum(words) if checksum is None else checksum
        if notes is not None:
            obj["n"] = [notes[0], notes[1]]
        return obj

    def _deltas(
        self, game: sim.Game, ev: sim.TickEvents
    ) -> tuple[sim.UnitWords, list[bytes], list[list[int]]]:
        """The state's unit words, and per side "m" and "h" since the previous frame.

        One pass over the units makes all three (a pass for the words and another
        over them for the deltas took a tenth longer). The words are those of
        ``Game.unit_words`` (id, kind, cell, hp, carry per unit, by id): the
        checksum hashes them, and verification, which takes them from the game,
        would catch any difference. The survivors of the previous state come
        first, in the same order: units spawned this tick have higher ids and
        follow, in the words only.
        """
        words: list[list[int]] = []
        moves: list[bytes] = []
        changes: list[list[int]] = []
        move_byte = self._move_byte
        for s, state in enumerate(game.sides):
            then = self._prev[s]
            if ev.deaths:
                dead = {uid for side, uid in ev.deaths if side == s}
                if dead:
                    then = [
                        v
                        for i in range(0, len(then), 5)
                        if then[i] not in dead
                        for v in then[i : i + 5]
                    ]
            survivors = len(then)
            now: list[int] = []
            steps: list[int] = []
            changed: list[int] = []
            i = 0
            for u in state.units.values():
                cell, hp, carry = u.cell, u.hp, u.carry
                now += (u.id, u.kind, cell, hp, carry)
                if i < survivors:
                    steps.append(move_byte[cell - then[i + 2]])
                    if hp != then[i + 3] or carry != then[i + 4]:
                        changed += (u.id, hp, carry)
                    i += 5
            words.append(now)
            moves.append(bytes(steps))
            changes.append(changed)
        return (words[0], words[1]), moves, changes

    def applied(
        self,
        game: sim.Game,
        submitted: Sequence[Sequence[sim.Record]],
        fuel: Sequence[int],
        ev: sim.TickEvents,
        checksum: int | None = None,
        notes: Notes | None = None,
    ) -> KeyFrame | DeltaFrame:
        """The typed frame of the tick ``game`` has just stepped (see ``wire``)."""
        obj = self.wire(game, submitted, fuel, ev, checksum, notes)
        return KeyFrame.from_wire(obj) if "u" in obj else DeltaFrame.from_wire(obj)

    def forfeit(
        self,
        game: sim.Game,
        submitted: Sequence[Sequence[sim.Record]],
        fuel: Sequence[int],
        notes: Notes | None = None,
    ) -> ForfeitFrame:
        """The frame of the current tick, in which a side forfeited: not applied."""
        return ForfeitFrame(
            tick=game.tick,
            actions=(tuple(submitted[0]), tuple(submitted[1])),
            fuel=(fuel[0], fuel[1]),
            checksum=self.checksum(),
            notes=notes,
        )


def _packed_side(records: Sequence[sim.Record]) -> list[int]:
    """One side's valid records, flat and packed: [id, op * 8 + arg, ...]."""
    flat: list[int] = []
    for uid, op, arg in records:
        # Two appends, not += of a pair: the interpreter's fast path for a call
        # of list.append, and no tuple per record (twice as fast).
        flat.append(uid)
        flat.append(op * 8 + arg)
    return flat


def _cells_and_amounts(cells: list[int], ore: Sequence[int]) -> list[int]:
    """[cell, amount, ...] of ``cells``."""
    if len(cells) < 8:  # a tick's changed cells: a loop is quickest
        flat: list[int] = []
        for cell in cells:
            flat += (cell, ore[cell])
        return flat
    # A keyframe's every ore cell: two columns interleaved by slice assignment.
    flat = cells * 2
    flat[0::2] = cells
    flat[1::2] = [ore[c] for c in cells]
    return flat


class ReplayWriter:
    """Append header, frames and result to a binary stream, in that order."""

    def __init__(self, out: BinaryIO) -> None:
        self._out = out
        self._packer = msgpack.Packer(use_bin_type=True)
        self._state = "header"

    def header(self, header: Header) -> None:
        self._expect("header")
        self._write(header.to_wire())
        self._state = "frames"

    def frame(self, frame: Frame | Wire) -> None:
        """Append a frame, typed or as its wire object."""
        if self._state != "frames":  # _expect, inline: this runs every tick
            self._expect("frames")
        self._out.write(self._packer.pack(frame if isinstance(frame, dict) else frame.to_wire()))

    def result(self, result: Result) -> None:
        self._expect("frames")
        self._write(result.to_wire())
        self._state = "done"

    def _expect(self, state: str) -> None:
        if self._state != state:
            raise RuntimeError(f"replay writer: cannot write {state} in state {self._state}")

    def _write(self, obj: Wire) -> None:
        self._out.write(self._packer.pack(obj))


@dataclass(slots=True)
class Recorder:
    """Records one match as it is played: the header now, then each tick, then the result.

    The match runner drives it; so do tests that script a match without wasm, so
    both write exactly the same shapes.
    """

    out: BinaryIO
    game: sim.Game
    header: Header
    _writer: ReplayWriter = field(init=False)
    _encoder: FrameEncoder = field(init=False)

    def __post_init__(self) -> None:
        self._writer = ReplayWriter(self.out)
        self._writer.header(self.header)
        self._encoder = FrameEncoder(self.game, self.header.version)

    def applied(
        self,
        submitted: Sequence[Sequence[sim.Record]],
        fuel: Sequence[int],
        ev: sim.TickEvents,
        notes: Notes | None = None,
    ) -> None:
        """Record the tick the game has just stepped (with the sides' notes, if any)."""
        self._writer.frame(self._encoder.wire(self.game, submitted, fuel, ev, notes=notes))

    def forfeit(
        self,
        submitted: Sequence[Sequence[sim.Record]],
        fuel: Sequence[int],
        notes: Notes | None = None,
    ) -> Frame:
        """Record the current tick, in which a side forfeited, as not applied."""
        frame = self._encoder.forfeit(self.game, submitted, fuel, notes)
        self._writer.frame(frame)
        return frame

    def result(self, result: Result) -> None:
        """Record the result; forfeit details are clipped to ``MAX_DETAIL_CHARS``."""
        self._writer.result(
            Result(
                result.winner,
                result.reason,
                result.ticks,
                (_clipped(result.sides[0]), _clipped(result.sides[1])),
            )
        )


def _clipped(side: ResultSide) -> ResultSide:
    f = side.forfeit
    if f is None:
        return side
    forfeit = sim.Forfeit(f.tick, f.kind, clip(f.detail, MAX_DETAIL_CHARS))
    return ResultSide(side.banked, side.fuel_total, side.fuel_peak, forfeit)
