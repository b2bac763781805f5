"""The ABI v1 messages, byte by byte (rules §9)."""

from __future__ import annotations

import random
import struct

from hypothesis import given, settings, strategies as st

import arena
import arena.match
import sim
from tests._support import examples, random_policy

TINY = """\
; 9x8 so the terrain (72 bytes) needs no padding, unlike 9x9
A.#......
.........
...3.....
.........
.........
.....3...
.........
......#.B
"""


def words(data: bytes, start: int, n: int) -> list[int]:
    return list(struct.unpack_from(f"<{n}i", data, start))


def init_for(game: sim.Game, side: int, seed: int = 7) -> bytes:
    return arena.match.encode_init(
        game, side, seed=seed, fuel_per_tick=5_000_000, max_memory_bytes=1 << 26
    )


def test_init_layout() -> None:
    m = sim.parse_map(TINY)
    g = sim.Game(m, sim.Config(width=9, height=8))
    msg = init_for(g, 0)
    head = words(msg, 0, 24)
    assert head[:5] == [1, 9, 8, 400, 7]
    assert head[5:9] == [0, 0, 8, 7]  # own colony, enemy colony
    assert head[9:20] == [10, 5, 12, 4, 10, 3, 4, 60, 4, 5, 48]
    assert head[20:24] == [5_000_000, 1 << 26, 2, 0]
    terrain = msg[96 : 96 + 72]
    assert terrain[2] == 1 and terrain[7 * 9 + 6] == 1 and sum(terrain) == 2
    assert words(msg, 96 + 72, 6) == [3, 2, 30, 5, 5, 30]
    assert len(msg) == 96 + 72 + 24


def test_init_pads_the_terrain_to_a_word() -> None:
    text = "A........\n" + ".........\n" * 7 + "........B\n"
    g = sim.Game(sim.parse_map(text), sim.Config(width=9, height=9))
    msg = init_for(g, 0)
    assert len(msg) == 96 + 81 + 3  # no ore: terrain, then padding to 84
    assert msg[96 + 81 :] == b"\0\0\0"


def test_seed_is_the_u32_bit_pattern() -> None:
    g = sim.Game(sim.parse_map(TINY), sim.Config(width=9, height=8))
    assert struct.unpack_from("<I", init_for(g, 0, seed=2**32 - 1), 16)[0] == 2**32 - 1


@settings(max_examples=examples(30), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), size=st.sampled_from([(8, 8), (9, 13), (32, 32), (64, 40)]))
def test_both_sides_get_the_same_init_on_a_symmetric_map(seed: int, size: tuple[int, int]) -> None:
    w, h = size
    g = sim.Game(sim.generate_map(seed, w, h), sim.Config(width=w, height=h))
    assert init_for(g, 0, seed) == init_for(g, 1, seed)


def test_obs_layout() -> None:
    g = sim.Game(sim.parse_map(TINY), sim.Config(width=9, height=8, start_workers=2))
    enemy = g.add_unit(1, sim.SOLDIER, 2, 1)
    obs = g.observe(0)
    msg = arena.match.encode_obs(obs, 1234)
    head = words(msg, 0, 16)
    assert head == [0, 0, 10, 60, 0, -1, 2, 1, 2, 1234, 0, 0, 0, 0, 0, 0]
    assert words(msg, 64, 12) == [1, 1, 1, 0, 4, 0, 2, 1, 0, 1, 4, 0]
    assert words(msg, 64 + 48, 6) == [enemy.id, sim.SOLDIER, 2, 1, 10, 0]
    assert words(msg, 64 + 72, 6) == [3, 2, 30, 5, 5, 30]  # colony_vision 5 reaches both
    assert len(msg) == 64 + 72 + 24


def test_actions_decode_as_little_endian_triples() -> None:
    raw = struct.pack("<6i", 1, 1, 2, 0, 5, 1)
    assert arena.match.decode_actions(raw) == [(1, 1, 2), (0, 5, 1)]


@settings(max_examples=examples(15), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), fuel=st.integers(-(2**40), 2**40))
def test_the_one_pass_obs_is_the_typed_one_packed(seed: int, fuel: int) -> None:
    """encode_obs_for (the match loop's) gives encode_obs(observe()) byte for byte."""
    g = sim.Game(sim.generate_map(seed, 16, 16), sim.Config(width=16, height=16, start_energy=40))
    rngs = [random.Random(seed), random.Random(~seed)]
    for _ in range(25):
        for side in (0, 1):
            assert arena.match.encode_obs_for(g, side, fuel) == arena.match.encode_obs(
                g.observe(side), fuel
            )
        g.step([random_policy(g, s, rngs[s], fierce=True) for s in (0, 1)])
