"""Memory over time (format version 3): each side's linear memory size, read and checked.

A frame carries "l", both sides' sizes in bytes after the tick's calls, at
every keyframe tick and wherever a size changed (``replays._format``);
``memory_series`` fills in the frames between. Verification judges the sizes a
replay alone can: memory never shrinks, none is over ``max_memory_bytes`` in
an applied tick, and a memory forfeit is exactly memory over the cap in the
forfeit tick (rules §8.5, §8.9). Which sizes the modules really reached only
playing them again proves (``arena replay verify --modules``).
"""

from __future__ import annotations

import sim
from replays._errors import Mismatch
from replays._format import MEMORY_VERSION, Memory, Result, memory_carried
from replays._reader import Replay

__all__ = ["MemoryCheck", "forfeit_memory", "memory_series", "sizes_of"]

_MOST = 1 << 32
"""A 32-bit memory's most bytes: 65,536 pages of 64 KiB."""


def memory_series(replay: Replay) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """Per side, its linear memory size in bytes after each frame's tick (the forfeit
    frame's included: where the side's calls ended), one per frame; None for a replay of
    a format version before 3, which records no memory.

    A frame records the sizes only when one changed, and at every keyframe tick
    (``replays._format``); this fills in the frames between.
    """
    if replay.header.version < MEMORY_VERSION:
        return None
    series: tuple[list[int], list[int]] = ([], [])
    now = (0, 0)  # tick 0 always carries its sizes
    for frame in replay.frames:
        if frame.memory is not None:
            now = frame.memory
        series[0].append(now[0])
        series[1].append(now[1])
    return tuple(series[0]), tuple(series[1])


def sizes_of(value: object) -> Memory | None:
    """Two sizes as "l" holds them, from an unchecked wire value: a pair of ints in
    0..2^32, else None."""
    if not isinstance(value, list | tuple) or len(value) != 2:
        return None
    a, b = value
    if type(a) is not int or type(b) is not int or not (0 <= a <= _MOST and 0 <= b <= _MOST):
        return None
    return (a, b)


class MemoryCheck:
    """Each side's memory over a replay's frames, checked as they come (version 3; a
    version without memory passes)."""

    def __init__(self, version: int, cap: int) -> None:
        self.on = version >= MEMORY_VERSION
        self.cap = cap  # the header's max_memory_bytes
        self.now: Memory | None = None  # the sizes the frames so far leave

    def take(self, t: int, carried: Memory | None, applied: bool) -> Memory | None:
        """The sizes after frame ``t``, which carries ``carried`` (None: the frame before's),
        once they are sizes a match records: "l" only where ``memory_carried`` says, and
        as ``advance`` checks them. Raises ``Mismatch``."""
        if not self.on:
            return None
        if carried is not None and not memory_carried(t, carried, self.now):
            raise Mismatch(
                t,
                f"frame of tick {t}: field 'l': {list(carried)} are the sizes of the frame"
                " before; away from a keyframe tick a frame carries 'l' only when one changed",
            )
        now = self.now if carried is None else carried
        assert now is not None  # the schema requires "l" at tick 0, a keyframe tick
        self.advance(t, now, applied)
        return now

    def advance(self, t: int, now: Memory, applied: bool) -> None:
        """Take ``now``, the sizes after frame ``t``, once no memory shrank and none is over
        the cap in an applied tick (that is a forfeit). Raises ``Mismatch``."""
        before = self.now
        where = f"frame of tick {t}: field 'l'"
        for s in (0, 1):
            if before is not None and now[s] < before[s]:
                raise Mismatch(
                    t,
                    f"{where}: side {s}'s memory {now[s]} is below the frame before's"
                    f" {before[s]}: memory never shrinks (rules §8.5)",
                )
            if applied and now[s] > self.cap:
                raise Mismatch(
                    t,
                    f"{where}: side {s}'s memory {now[s]} is over max_memory_bytes {self.cap},"
                    " yet the tick was applied: that is a memory forfeit (rules §8.5)",
                )
        self.now = now


def forfeit_memory(t: int, memory: Memory, result: Result, cap: int) -> None:
    """The sizes of forfeit tick ``t``: memory over the cap is a memory forfeit, and a
    memory forfeit is memory over the cap, whatever else the call did (rules §8.9).
    Raises ``Mismatch``."""
    for s, side in enumerate(result.sides):
        kind = None if side.forfeit is None else side.forfeit.kind
        over = memory[s] > cap
        if over and kind != sim.ForfeitKind.MEMORY:
            raise Mismatch(
                t,
                f"frame of tick {t}: field 'l': side {s}'s memory {memory[s]} is over"
                f" max_memory_bytes {cap}, but its forfeit is {kind or 'none'}, not memory"
                " (memory over the cap comes first, rules §8.9)",
            )
        if not over and kind == sim.ForfeitKind.MEMORY:
            raise Mismatch(
                t,
                f"frame of tick {t}: field 'l': side {s} forfeited for memory, but its"
                f" memory {memory[s]} is within max_memory_bytes {cap}",
            )
