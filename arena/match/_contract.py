"""The controller contract, ABI version 1 (rules §9): messages in, actions out."""

from __future__ import annotations

import struct
from itertools import chain

from sim import Config, FlatObservation, Game, Observation, OreRecord, Record, UnitRecord

__all__ = [
    "ABI_VERSION",
    "ObservationError",
    "decode_actions",
    "decode_obs",
    "encode_init",
    "encode_obs",
    "encode_obs_flat",
    "encode_obs_for",
]

ABI_VERSION = 1
_HEADER_WORDS = 24  # INIT words 0..23; the terrain starts at byte 96
_OBS_WORDS = 16
_OBS_PADDING = (0,) * 6  # OBS words 10..15 are reserved
_RECORD = struct.Struct("<3i")
_I32_MIN, _I32_MAX = -(1 << 31), (1 << 31) - 1
# OBS layouts (header and units) by unit words: at most 6 * 2 * 64, a few dozen in use.
_OBS_LAYOUTS: dict[int, struct.Struct] = {}


def encode_init(
    game: Game, side: int, *, seed: int, fuel_per_tick: int, max_memory_bytes: int
) -> bytes:
    """The INIT message for ``side``, entirely in its own view."""
    cfg: Config = game.config
    w, h = game.width, game.height
    me, foe = game.sides[side], game.sides[1 - side]
    terrain = bytes(game.map.rock)
    if side:
        terrain = terrain[::-1]  # the 180-degree turn reverses row-major order
    ore_cells = game.ore_cells()
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
    ore = list(chain.from_iterable(obs.ore))
    flat = FlatObservation(
        obs.tick,
        obs.banked,
        obs.energy,
        obs.colony_hp,
        obs.enemy_banked,
        obs.enemy_colony_hp,
        list(chain.from_iterable(obs.own)),
        list(chain.from_iterable(obs.enemy)),
        struct.pack(f"<{len(ore)}i", *ore),
    )
    return encode_obs_flat(flat, last_fuel)


def encode_obs_for(game: Game, side: int, last_fuel: int) -> bytes:
    """``encode_obs(game.observe(side), last_fuel)`` in one pass: the match loop's path.

    Packs the sim's flat view of the state (``Game.observe_flat``) without an
    object per unit or cell.
    """
    return encode_obs_flat(game.observe_flat(side), last_fuel)


def encode_obs_flat(flat: FlatObservation, last_fuel: int) -> bytes:
    """The OBS message of a flat observation (the same bytes as ``encode_obs``).

    The layout (rules §9): tick, banked, energy, colony hp, enemy banked, enemy
    colony hp, the three counts, the last fuel, six reserved words, then six
    words per own unit, six per visible enemy, and the ore records (three words
    per cell), which come packed (``sim.FlatObservation.ore``).
    """
    tick, banked, energy, colony_hp, enemy_banked, enemy_colony_hp, own, enemy, ore = flat
    fuel = last_fuel if _I32_MIN <= last_fuel <= _I32_MAX else _i32(last_fuel)
    units = len(own) + len(enemy)
    layout = _OBS_LAYOUTS.get(units) or _obs_layout(units)
    return (
        layout.pack(
            tick,
            banked,
            energy,
            colony_hp,
            enemy_banked,
            enemy_colony_hp,
            len(own) // 6,
            len(enemy) // 6,
            len(ore) // 12,
            fuel,
            *_OBS_PADDING,
            *own,
            *enemy,
        )
        + ore
    )


def _obs_layout(unit_words: int) -> struct.Struct:
    layout = _OBS_LAYOUTS[unit_words] = struct.Struct(f"<{_OBS_WORDS + unit_words}i")
    return layout


def decode_actions(raw: bytes) -> list[Record]:
    """Split a reply's raw bytes into (unit_id, op, arg) records."""
    return list(_RECORD.iter_unpack(raw))


def _i32(value: int) -> int:
    """Fit a host integer into a signed 32-bit word, saturating (fuel, memory)."""
    if value >= 1 << 31:
        return (1 << 31) - 1
    return value if value >= -(1 << 31) else -(1 << 31)


class ObservationError(ValueError):
    """Bytes that are not an OBS message: the message names the part that is wrong."""


def decode_obs(message: bytes) -> tuple[Observation, int]:
    """Read an OBS message as a controller does: the observation and its ``last_fuel`` word.

    The inverse of :func:`encode_obs`, for tools that show what a controller
    received (``arena replay show``) and for tests. Any other bytes raise
    ``ObservationError``: the counts are checked against the message's length
    before a record is read, so a count in the billions costs nothing.
    """
    size = len(message)
    if size < _OBS_WORDS * 4:
        raise ObservationError(
            f"OBS message: {size} bytes, shorter than its {_OBS_WORDS * 4}-byte header"
        )
    head = struct.unpack_from(f"<{_OBS_WORDS}i", message)
    n_own, n_enemy, n_ore = head[6], head[7], head[8]
    if min(n_own, n_enemy, n_ore) < 0:
        raise ObservationError(
            f"OBS message: negative count (words 6..8: {n_own}, {n_enemy}, {n_ore})"
        )
    expected = _OBS_WORDS * 4 + 24 * (n_own + n_enemy) + 12 * n_ore
    if size != expected:
        raise ObservationError(
            f"OBS message: {size} bytes, but its counts ({n_own} own units, {n_enemy} enemies,"
            f" {n_ore} ore cells) make {expected}"
        )
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
