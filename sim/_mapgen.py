"""Maps (rules §2): the seeded generator.

Pure: it draws from its own PRNG (SplitMix64 seeded by the arguments), never from
global random state; the same arguments always give the same map.
"""

from __future__ import annotations

import functools

from sim._maps import MAX_SIDE, MIN_SIDE, GameMap, MapError, _cells_of, _reachable, _walkable

__all__ = ["GENERATOR_VERSION", "generate_map"]

# Bump whenever generate_map's output for some (seed, width, height) changes:
# replays record it, so old seeds must keep meaning the same map.
GENERATOR_VERSION: int = 1

_MASK64 = (1 << 64) - 1


class _SplitMix64:
    """SplitMix64 on Python ints: tiny, fast and byte-identical everywhere."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & _MASK64

    def next_u64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """Uniform integer in [0, n); rejection keeps it exactly unbiased."""
        limit = (1 << 64) - (1 << 64) % n
        while True:
            r = self.next_u64()
            if r < limit:
                return r % n


def _generator_rng(seed: int, width: int, height: int) -> _SplitMix64:
    # Fold every input (and the version) into the start state, then stir once so
    # neighbouring seeds do not start from neighbouring states.
    mixer = _SplitMix64(
        seed | (width << 32) | (height << 40) | ((GENERATOR_VERSION & 0xFFFF) << 48)
    )
    return _SplitMix64(mixer.next_u64())


def _colony_a(width: int, height: int) -> tuple[int, int]:
    # (3, 3) unless the map is so small that A and its mirror B would be too close;
    # 2 keeps every colony neighbour on the map and at least 3 cells apart.
    return (min(3, (width - 1) // 2 - 1), min(3, (height - 1) // 2 - 1))


def _place_rock(
    rng: _SplitMix64, width: int, height: int, protected: set[int], colonies: set[int]
) -> bytearray | None:
    """One attempt at symmetric rock clumps; None if it cut the map apart."""
    area = width * height
    rock = bytearray(area)
    target = area * (10 + rng.below(4)) // 100  # 10-13% before pockets are filled
    count = 0
    steps = 0
    while count < target and steps < area * 8:
        steps += 1
        i = rng.below(area)
        for _ in range(2 + rng.below(5)):  # a clump of a random walk, 2-6 steps
            m = area - 1 - i  # row-major index of the point mirror
            if i not in protected and not rock[i]:
                rock[i] = 1
                count += 1
                if m != i:
                    rock[m] = 1
                    count += 1
            x, y = i % width, i // width
            d = rng.below(4)
            if d == 0 and x > 0:
                i -= 1
            elif d == 1 and x < width - 1:
                i += 1
            elif d == 2 and y > 0:
                i -= width
            elif d == 3 and y < height - 1:
                i += width
    a, b = sorted(colonies)
    walkable = _walkable(rock, colonies)
    region = _reachable(walkable, width, height, [a + width])
    if not (region >> (b - width)) & 1:
        return None
    # Fill enclosed pockets: the region is symmetric (the colonies are), so its
    # complement is too.
    for i in _cells_of(walkable & ~region):
        rock[i] = 1
        count += 1
    if count > area * 15 // 100:
        return None
    return rock


def _place_ore(
    rng: _SplitMix64,
    width: int,
    height: int,
    rock: bytearray,
    protected: set[int],
    a: tuple[int, int],
) -> list[int]:
    area = width * height
    digits = [0] * area
    # Doubled Manhattan distance from the centre, so odd and even sizes stay integral.
    span = (width - 1) + (height - 1)

    def deposit(cx: int, cy: int, peak: int, radius: int) -> None:
        for dy in range(-radius, radius + 1):
            for dx in range(-radius, radius + 1):
                d = abs(dx) + abs(dy)
                x, y = cx + dx, cy + dy
                if d > radius or not (0 <= x < width and 0 <= y < height):
                    continue
                if d and rng.below(4) == 0:  # ragged edges
                    continue
                i = y * width + x
                if rock[i] or i in protected:
                    continue
                value = max(1, peak - 2 * d)
                m = area - 1 - i
                if value > digits[i]:
                    digits[i] = value
                    digits[m] = value

    pairs = max(3, area // 96)
    for _ in range(pairs):
        # Best of two draws pulls deposits toward the centre.
        best: tuple[int, int, int] | None = None
        for _ in range(2):
            x, y = rng.below(width), rng.below(height)
            dist = abs(2 * x - (width - 1)) + abs(2 * y - (height - 1))
            if best is None or dist < best[0]:
                best = (dist, x, y)
        assert best is not None
        dist, x, y = best
        peak = min(9, max(2, 9 - (7 * dist) // span + rng.below(2) - rng.below(2)))
        deposit(x, y, peak, 1 + rng.below(2))
    # A small, poor starter deposit just outside each colony's cleared ring.
    ax, ay = a
    offsets = ((2, 0), (0, 2), (2, 1), (1, 2), (2, 2))
    ox, oy = offsets[rng.below(len(offsets))]
    deposit(ax + ox, ay + oy, 2, 1)
    return digits


def generate_map(seed: int, width: int = 32, height: int = 32) -> GameMap:
    """The map of generator version ``GENERATOR_VERSION`` for (seed, width, height).

    ``seed`` is an unsigned 32-bit integer; width and height are 8..64. Colony A
    sits near (3, 3) and B at its mirror; about 10-15% of cells are rock in
    point-symmetric clumps; ore deposits (multiples of 10 in 10..90) are
    symmetric and richer toward the centre. The result always passes
    ``check_map``; the same arguments always give the same map.
    """
    if type(seed) is not int or not 0 <= seed < 1 << 32:
        raise MapError(f"seed must be an unsigned 32-bit integer, got {seed!r}")
    for name, value in (("width", width), ("height", height)):
        if type(value) is not int or not MIN_SIDE <= value <= MAX_SIDE:
            raise MapError(f"{name} must be an integer {MIN_SIDE}..{MAX_SIDE}, got {value!r}")
    return _generated(seed, width, height)


# A tournament plays each seed's map once a pairing: the same immutable map, made once.
@functools.lru_cache(maxsize=64)
def _generated(seed: int, width: int, height: int) -> GameMap:
    rng = _generator_rng(seed, width, height)
    area = width * height
    ax, ay = _colony_a(width, height)
    bx, by = width - 1 - ax, height - 1 - ay
    colonies = {ay * width + ax, by * width + bx}
    # Colonies and the 8 cells around each stay open and ore-free: spawn room.
    protected: set[int] = set()
    for cx, cy in ((ax, ay), (bx, by)):
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                protected.add((cy + dy) * width + cx + dx)

    rock: bytearray | None = None
    for _ in range(64):
        rock = _place_rock(rng, width, height, protected, colonies)
        if rock is not None:
            break
    if rock is None:  # never seen in practice; an open map is always legal
        rock = bytearray(area)
    digits = _place_ore(rng, width, height, rock, protected, (ax, ay))
    game_map = GameMap(
        width,
        height,
        bytes(rock),
        tuple(10 * d for d in digits),
        ((ax, ay), (bx, by)),
    )
    # Legal by construction (symmetric placement, cleared rings, pockets filled);
    # the full check would add to the cost, so the tests run it instead.
    return game_map
