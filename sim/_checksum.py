"""The checksum of a game's state: 64 bits, the same on every machine.

A replay records it after every tick and verification computes it again, so
it is defined here once, with the ore digest it hashes. The state keeps that
digest up to date as each cell's ore changes (``cell_key`` and ``ore_term``),
so a tick's checksum costs the units and the cells that changed, never the
whole map. ``checksum`` is replay format version 2's; ``checksum_v1``, which
hashes every cell's ore, is version 1's, kept so that its replays still verify.
"""

from __future__ import annotations

import functools
import hashlib
import struct
from collections.abc import Sequence

from sim._units import SideState

__all__ = ["UnitWords", "cell_key", "checksum", "checksum_v1", "ore_term", "unit_words"]

UnitWords = tuple[list[int], list[int]]
"""Per side, its units by id as flat ints: id, kind, cell, hp, carry each (``Game.unit_words``)."""

_MASK64 = (1 << 64) - 1
_GOLDEN64 = 0x9E3779B97F4A7C15


def _mix64(z: int) -> int:
    """SplitMix64's finalizer: a bijection on 64-bit words in which every input bit
    reaches every output bit."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def cell_key(cell: int) -> int:
    """Key of a cell in the ore digest: the (cell + 1)-th output of SplitMix64 seeded with 0."""
    return _mix64(((cell + 1) * _GOLDEN64) & _MASK64)


def ore_term(key: int, amount: int) -> int:
    """One cell's share of the ore digest (``key`` is its ``cell_key``); no ore adds nothing."""
    return _mix64(key ^ (amount & _MASK64)) if amount else 0


def unit_words(sides: Sequence[SideState]) -> UnitWords:
    """Per side, its living units by id as flat ints: id, kind, cell, hp, carry each.

    The checksum hashes these words; a frame encoder that needs them too can
    take them once and hand them to ``checksum``.
    """
    a: list[int] = []
    for u in sides[0].units.values():
        a += (u.id, u.kind, u.cell, u.hp, u.carry)
    b: list[int] = []
    for u in sides[1].units.values():
        b += (u.id, u.kind, u.cell, u.hp, u.carry)
    return a, b


@functools.lru_cache(maxsize=256)
def _layout(words: int) -> struct.Struct:
    """``words`` little-endian int64s, then the ore digest as a little-endian u64."""
    return struct.Struct(f"<{words}qQ")


def checksum(tick: int, sides: Sequence[SideState], ore_digest: int, units: UnitWords) -> int:
    """The checksum of replay format version 2, of a state after ``tick`` ticks.

    BLAKE2b (8-byte digest) of the little-endian int64 words: the tick; per
    side its banked, energy, colony hp, next id and unit count, then per
    unit by id its id, kind, cell, hp and carry; then the ore digest as a
    little-endian u64. The ore digest is the XOR, over every cell c whose
    ore amount a is not 0, of mix64(K[c] ^ a), where mix64 is SplitMix64's
    finalizer and K[c] = mix64((c + 1) * 0x9E3779B97F4A7C15 mod 2**64).
    ``units`` are the sides' ``unit_words``.
    """
    a, b = units
    s0, s1 = sides
    # The words of _state_words, packed as they are gathered: no list of them first.
    data = _layout(len(a) + len(b) + 11).pack(
        tick,
        s0.banked,
        s0.energy,
        s0.colony_hp,
        s0.next_id,
        len(s0.units),
        *a,
        s1.banked,
        s1.energy,
        s1.colony_hp,
        s1.next_id,
        len(s1.units),
        *b,
        ore_digest,
    )
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


def checksum_v1(tick: int, sides: Sequence[SideState], ore: Sequence[int], units: UnitWords) -> int:
    """The checksum of replay format version 1.

    BLAKE2b (8-byte digest) of the same words as ``checksum`` up to the
    units, followed by every cell's ore amount as a little-endian int64:
    the whole map, every tick.
    """
    words = _state_words(tick, sides, units)
    words += ore
    digest = hashlib.blake2b(struct.pack(f"<{len(words)}q", *words), digest_size=8)
    return int.from_bytes(digest.digest(), "little")


def _state_words(tick: int, sides: Sequence[SideState], units: UnitWords) -> list[int]:
    """The tick; per side its totals, then its ``unit_words``."""
    words = [tick]
    for side, flat in zip(sides, units, strict=True):
        words += (side.banked, side.energy, side.colony_hp, side.next_id, len(side.units))
        words += flat
    return words
