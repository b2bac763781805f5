"""Writing a replay: the frame encoder, the writer of the stream, and the recorder of a match.

The frame encoder builds each tick's frame from the game's state; the recorder
and the re-simulation check both use it, so what is written and what is
checked cannot drift apart. The shapes are ``replays._format``'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from typing import Any, BinaryIO

import msgpack

import sim
from replays._format import (
    KEYFRAME_INTERVAL,
    MEMORY_VERSION,
    SUPPORTED_VERSIONS,
    VERSION,
    DeltaFrame,
    ForfeitFrame,
    Frame,
    Header,
    KeyFrame,
    Memory,
    Notes,
    Result,
    ResultSide,
    Wire,
    _packed_side,
    checksum_version,
    memory_carried,
)
from replays._limits import MAX_DETAIL_CHARS, clip
from replays._native import frames_of

__all__ = ["CoreRecorder", "FrameEncoder", "Recorder", "ReplayWriter"]


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
        self._version = version
        # The checksum this version records, bound once: it is taken every tick.
        self._checksum = game.checksum_v1 if checksum_version(version) == 1 else game.checksum
        self._memory: Memory | None = None  # the sizes the frames so far leave (version 3)
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
        memory: Memory | None = None,
    ) -> Wire:
        """The wire object of the tick ``game`` has just stepped (``game`` is the state after it).

        ``checksum`` is the state's, when the caller has it already. ``notes`` are
        the sides' debug notes; the frame carries them (key "n") only when given.
        ``memory`` is each side's memory size after the tick's calls: version 3
        needs it, and records it where ``memory_carried`` says; older versions
        record none.
        """
        tick = game.tick - 1
        s0, s1 = game.sides
        obj: Wire = {
            "t": tick,
            "a": [_packed_side(submitted[0]), _packed_side(submitted[1])],
            "f": [fuel[0], fuel[1]],
        }
        carried = self._carried(tick, memory)
        if carried is not None:
            obj["l"] = [carried[0], carried[1]]
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

    def _carried(self, tick: int, memory: Memory | None) -> Memory | None:
        """The sizes the frame of ``tick`` records (None: none), remembered for the next."""
        carried = _carried_memory(self._version, tick, memory, self._memory)
        self._memory = memory
        return carried

    def _deltas(
        self, game: sim.Game, ev: sim.TickEvents
    ) -> tuple[sim.UnitWords, list[bytes], list[list[int]]]:
        """The state's unit words, and per side "m" and "h" since the previous frame.

        One pass over the units makes all three, rather than a pass for the words
        and another over them for the deltas. The words are those of
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
        memory: Memory | None = None,
    ) -> KeyFrame | DeltaFrame:
        """The typed frame of the tick ``game`` has just stepped (see ``wire``)."""
        obj = self.wire(game, submitted, fuel, ev, checksum, notes, memory)
        return KeyFrame.from_wire(obj) if "u" in obj else DeltaFrame.from_wire(obj)

    def forfeit(
        self,
        game: sim.Game,
        submitted: Sequence[Sequence[sim.Record]],
        fuel: Sequence[int],
        notes: Notes | None = None,
        memory: Memory | None = None,
    ) -> ForfeitFrame:
        """The frame of the current tick, in which a side forfeited: not applied. ``memory``
        is each side's size where its calls of the tick ended (as for ``wire``)."""
        tick = game.tick
        carried = self._carried(tick, memory)
        return _forfeit_frame(tick, submitted, fuel, self.checksum(), notes, carried)


def _carried_memory(
    version: int, tick: int, memory: Memory | None, previous: Memory | None
) -> Memory | None:
    """The sizes the frame of ``tick`` records: none in a version before 3, nor where
    ``memory_carried`` says they are the frame before's (``previous``)."""
    if version < MEMORY_VERSION:
        return None
    if memory is None:
        raise ValueError(
            f"a frame of replay format version {version} records each side's memory:"
            f" none was given for tick {tick}"
        )
    return memory if memory_carried(tick, memory, previous) else None


def _forfeit_frame(
    tick: int,
    submitted: Sequence[Sequence[sim.Record]],
    fuel: Sequence[int],
    checksum: int,
    notes: Notes | None,
    memory: Memory | None,
) -> ForfeitFrame:
    """The frame of tick ``tick``, in which a side forfeited; ``checksum`` is the state's as
    the tick began (the tick is not applied); ``memory`` as the frame carries it."""
    return ForfeitFrame(
        tick=tick,
        actions=(tuple(submitted[0]), tuple(submitted[1])),
        fuel=(fuel[0], fuel[1]),
        checksum=checksum,
        notes=notes,
        memory=memory,
    )


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


class Recorder:
    """Records one match as it is played: the header now, then each tick, then the result.

    The match runner drives it; so do tests that script a match without wasm, so
    both write exactly the same shapes.
    """

    __slots__ = ("_encoder", "_writer", "game", "header", "out")

    def __init__(self, out: BinaryIO, game: sim.Game, header: Header) -> None:
        self.out = out
        self.game = game
        self.header = header
        self._writer = ReplayWriter(out)
        self._writer.header(header)
        self._encoder = FrameEncoder(game, header.version)

    def applied(
        self,
        submitted: Sequence[Sequence[sim.Record]],
        fuel: Sequence[int],
        ev: sim.TickEvents,
        notes: Notes | None = None,
        memory: Memory | None = None,
    ) -> None:
        """Record the tick the game has just stepped (with the sides' notes, if any, and
        their memory sizes: version 3 needs them)."""
        wire = self._encoder.wire(self.game, submitted, fuel, ev, notes=notes, memory=memory)
        self._writer.frame(wire)

    def forfeit(
        self,
        submitted: Sequence[Sequence[sim.Record]],
        fuel: Sequence[int],
        notes: Notes | None = None,
        memory: Memory | None = None,
    ) -> Frame:
        """Record the current tick, in which a side forfeited, as not applied."""
        frame = self._encoder.forfeit(self.game, submitted, fuel, notes, memory)
        self._writer.frame(frame)
        return frame

    def result(self, result: Result) -> None:
        """Record the result; forfeit details are clipped to ``MAX_DETAIL_CHARS``."""
        _write_result(self._writer, result)


class CoreRecorder:
    """Records a match played on a native core (``sim.native_core``): the same bytes as a
    ``Recorder`` of the same match, each frame built in C (``replays._native``).

    Made by ``for_core``, which gives None where the native frame encoder is missing.
    """

    def __init__(self, out: BinaryIO, core: sim.NativeCore, header: Header, frames: Any) -> None:
        self._writer = ReplayWriter(out)
        self._writer.header(header)
        self._core = core
        self._version = header.version
        self._frames = frames
        self._applied = frames.applied
        self._write = out.write  # a frame a tick, between the header and the result

    @classmethod
    def for_core(cls, out: BinaryIO, core: sim.NativeCore, header: Header) -> CoreRecorder | None:
        """A recorder of ``core``'s match, writing ``header`` now; None without the native
        frame encoder (nothing is written then)."""
        frames = frames_of(core, header.version)
        return None if frames is None else cls(out, core, header, frames)

    def applied(
        self, fuel_a: int, fuel_b: int, notes: Notes | None = None, memory: Memory | None = None
    ) -> None:
        """Record the tick the core has just stepped, from the records it took (``memory``
        as for ``Recorder.applied``)."""
        self._write(self._applied(fuel_a, fuel_b, notes, memory))

    def forfeit(
        self,
        submitted: Sequence[Sequence[sim.Record]],
        fuel: Sequence[int],
        notes: Notes | None = None,
        memory: Memory | None = None,
    ) -> Frame:
        """Record the current tick, in which a side forfeited, as not applied."""
        core = self._core
        tick = core.tick
        # The sizes the frames so far leave are the C encoder's.
        carried = _carried_memory(self._version, tick, memory, self._frames.memory)
        checksum = core.checksum(checksum_version(self._version))
        frame = _forfeit_frame(tick, submitted, fuel, checksum, notes, carried)
        self._writer.frame(frame)
        return frame

    def result(self, result: Result) -> None:
        """Record the result, as ``Recorder.result`` does."""
        _write_result(self._writer, result)


def _write_result(writer: ReplayWriter, result: Result) -> None:
    """Write the result with its forfeit details clipped to ``MAX_DETAIL_CHARS``."""
    writer.result(
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
