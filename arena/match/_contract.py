"""The controller contract, ABI version 1 (rules §9): messages in, actions out."""

from __future__ import annotations

import struct

from sim import Config, Game, Observation, OreRecord, Record, UnitRecord

__all__ = ["ABI_VERSION", "decode_actions", "decode_obs", "encode_init", "encode_obs"]

ABI_VERSION = 1
_HEADER_WORDS = 24  # INIT words 0..23; the terrain starts at byte 96
_OBS_WORDS = 16
_RECORD = struct.Struct("<3i")


def encode_init(
    game: Game, side: int, *, seed: int, fuel_per_tick: int, max_memory_bytes: int
) -> bytes:
    """The INIT message for ``side``, entirely in its own view."""
    cfg: Config = game.config
    w, h, n = game.width, game.height, game.cells
    me, foe = game.sides[side], game.sides[1 - side]
    terrain = bytes(game.map.rock)
    if side:
        terrain = terrain[::-1]  # the 180-degree turn reverses row-major order
    ore_cells = [c for c in range(n) if game.ore[c] > 0]
    if side:
        ore_cells.reverse()
    words = [
        ABI_VERSION,
        w,
        h,
        cfg.max_ticks,
        seed - (1 << 32) if seed >= 1 << 31 else seed,  # u32 seen as its i32 bits
        *game.own_xy(side, me.colony),
        *game.own_xy(side, foe.colony),
        cfg.start_energy,
        cfg.worker_cost,
        cfg.soldier_cost,
        cfg.worker_hp,
        cfg.soldier_hp,
        cfg.soldier_attack,
        cfg.carry_cap,
        cfg.colony_hp,
        cfg.unit_vision,
        cfg.colony_vision,
        cfg.max_units,
        _i32(fuel_per_tick),
        _i32(max_memory_bytes),
        len(ore_cells),
        0,
    ]
    assert len(words) == _HEADER_WORDS
    pad = -len(terrain) % 4
    ore: list[int] = []
    for c in ore_cells:
        ore += (*game.own_xy(side, c), game.ore[c])
    return b"".join(
        (
            struct.pack(f"<{_HEADER_WORDS}i", *words),
            terrain,
            bytes(pad),
            struct.pack(f"<{len(ore)}i", *ore),
        )
    )


def encode_obs(obs: Observation, last_fuel: int) -> bytes:
    """The OBS message: a fixed header, then own units, visible enemies, visible ore."""
    words = [
        obs.tick,
        obs.banked,
        obs.energy,
        obs.colony_hp,
        obs.enemy_banked,
        obs.enemy_colony_hp,
        len(obs.own),
        len(obs.enemy),
        len(obs.ore),
        _i32(last_fuel),
        0,
        0,
        0,
        0,
        0,
        0,
    ]
    for unit in obs.own:
        words += unit
    for unit in obs.enemy:
        words += unit
    for cell in obs.ore:
        words += cell
    return struct.pack(f"<{len(words)}i", *words)


def decode_actions(raw: bytes) -> list[Record]:
    """Split a reply's raw bytes into (unit_id, op, arg) records."""
    return list(_RECORD.iter_unpack(raw))


def _i32(value: int) -> int:
    """Fit a host integer into a signed 32-bit word, saturating (fuel, memory)."""
    if value >= 1 << 31:
        return (1 << 31) - 1
    return value if value >= -(1 << 31) else -(1 << 31)


def decode_obs(message: bytes) -> tuple[Observation, int]:
    """Read an OBS message as a controller does: the observation and its ``last_fuel`` word.

    The inverse of :func:`encode_obs`, for tools that show what a controller
    received (``arena replay show``) and for tests.
    """
    head = struct.unpack_from(f"<{_OBS_WORDS}i", message)
    n_own, n_enemy, n_ore = head[6], head[7], head[8]
    offset = _OBS_WORDS * 4
    units = [
        UnitRecord(*struct.unpack_from("<6i", message, offset + 24 * i))
        for i in range(n_own + n_enemy)
    ]
    offset += 24 * (n_own + n_enemy)
    ore = [OreRecord(*struct.unpack_from("<3i", message, offset + 12 * i)) for i in range(n_ore)]
    obs = Observation(
        tick=head[0],
        banked=head[1],
        energy=head[2],
        colony_hp=head[3],
        enemy_banked=head[4],
        enemy_colony_hp=head[5],
        own=units[:n_own],
        enemy=units[n_own:],
        ore=ore,
    )
    return obs, head[9]
