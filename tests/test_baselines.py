"""The committed baselines: reproducible builds, the contract's exports, sane actions.

Everything here drives the modules through raw wasmtime with hand-made INIT
and OBS messages (rules §9), independent of the arena's sandbox.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from pathlib import Path

import pytest
import wasmtime

from arena import UnknownControllerError
from arena.baselines import (
    BASELINES,
    BASELINES_DIR,
    baseline_path,
    check_baselines,
    compile_assemblyscript,
    compile_c,
    load_baseline,
)

NAMES = ("random", "border-soldier", "greedy-raider", "fuel-probe")
FUEL_PER_TICK = 5_000_000
INIT_FUEL = 50_000_000
ARG_RANGE = {0: (0, 0), 1: (1, 4), 2: (1, 4), 3: (0, 4), 4: (0, 0), 5: (1, 2)}

# A 12x12 map in the receiver's own frame: colony at (2, 2), enemy at (9, 9),
# a rock wall, and ore to the east of home and in the middle.
W = H = 12
COLONY, ENEMY = (2, 2), (9, 9)
ROCK = {(5, 1), (5, 2), (5, 3), (6, 8), (6, 9), (6, 10)}
ORE = {(4, 2): 20, (4, 4): 10, (6, 5): 50, (5, 6): 50, (7, 3): 30, (4, 8): 30}
MAX_UNITS = 48


Unit = tuple[int, int, int, int, int, int]  # id, kind, x, y, hp, carry


def init_message(seed: int = 7, max_units: int = MAX_UNITS) -> bytes:
    ores = sorted(ORE.items(), key=lambda kv: (kv[0][1], kv[0][0]))
    words = [1, W, H, 400, seed, *COLONY, *ENEMY]
    words += [10, 5, 12, 4, 10, 3, 4, 60, 4, 5, max_units]
    words += [FUEL_PER_TICK, 64 << 20, len(ores), 0]
    msg = struct.pack("<24i", *words)
    msg += bytes(1 if (x, y) in ROCK else 0 for y in range(H) for x in range(W))
    msg += bytes(-len(msg) % 4)
    for (x, y), amount in ores:
        msg += struct.pack("<3i", x, y, amount)
    return msg


def obs_message(
    tick: int,
    own: Sequence[Unit],
    enemy: Sequence[Unit] = (),
    ore: dict[tuple[int, int], int] | None = None,
    energy: int = 10,
) -> bytes:
    ore = ORE if ore is None else ore
    cells = sorted(ore.items(), key=lambda kv: (kv[0][1], kv[0][0]))
    head = [tick, 0, energy, 60, 0, -1, len(own), len(enemy), len(cells), 0, 0, 0, 0, 0, 0, 0]
    msg = struct.pack("<16i", *head)
    for u in (*own, *enemy):
        msg += struct.pack("<6i", *u)
    for (x, y), amount in cells:
        msg += struct.pack("<3i", x, y, amount)
    return msg


class Controller:
    """A module instance driven like the host does: one store, fuel per call."""

    def __init__(self, wasm: bytes) -> None:
        config = wasmtime.Config()
        config.consume_fuel = True
        engine = wasmtime.Engine(config)
        self.store = wasmtime.Store(engine)
        self.store.set_fuel(INIT_FUEL)
        instance = wasmtime.Instance(self.store, wasmtime.Module(engine, wasm), [])
        exports = instance.exports(self.store)
        memory, init, tick, buffer = (
            exports[k] for k in ("memory", "foray_init", "foray_tick", "foray_buffer")
        )
        assert isinstance(memory, wasmtime.Memory)
        assert isinstance(init, wasmtime.Func) and isinstance(tick, wasmtime.Func)
        assert isinstance(buffer, wasmtime.Func)
        self.memory, self._init, self._tick = memory, init, tick
        self.buffer = buffer(self.store) & 0xFFFFFFFF
        assert self.buffer + 65536 <= self.memory.data_len(self.store)

    def init(self, msg: bytes) -> int:
        self.memory.write(self.store, msg, self.buffer)
        result: int = self._init(self.store, len(msg))
        return result

    def tick(self, msg: bytes) -> list[tuple[int, int, int]]:
        self.memory.write(self.store, msg, self.buffer)
        self.store.set_fuel(FUEL_PER_TICK)
        n: int = self._tick(self.store, len(msg))
        assert 0 <= n <= MAX_UNITS + 1, f"n = {n}"
        raw = self.memory.read(self.store, self.buffer, self.buffer + 12 * n)
        return [struct.unpack_from("<3i", raw, 12 * i) for i in range(n)]


def assert_valid(records: list[tuple[int, int, int]], own: Sequence[Unit]) -> None:
    """Rules §9's rules for a reply."""
    roster = {u[0] for u in own}
    seen: set[int] = set()
    for uid, op, arg in records:
        assert uid == 0 or uid in roster, f"unit {uid} is not on the roster"
        assert uid not in seen, f"unit {uid} repeats"
        seen.add(uid)
        assert op in ARG_RANGE, f"op {op}"
        low, high = ARG_RANGE[op]
        assert low <= arg <= high, f"op {op} arg {arg}"
        assert (op == 5) == (uid == 0) or (uid == 0 and op == 0), f"unit {uid} op {op}"


def by_unit(records: list[tuple[int, int, int]]) -> dict[int, tuple[int, int]]:
    return {uid: (op, arg) for uid, op, arg in records}


# ------------------------------------------------------------------ the build


def test_rebuild_is_byte_identical() -> None:
    assert check_baselines() == []


def test_registry() -> None:
    assert tuple(BASELINES) == NAMES
    assert [b.name for b in BASELINES.values() if b.hidden] == ["fuel-probe"]
    for name, b in BASELINES.items():
        assert b.source.is_file() and b.wasm.is_file()
        assert baseline_path(name) == b.wasm
        assert load_baseline(name) == b.wasm.read_bytes()
        assert b.summary


def test_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(UnknownControllerError, match="border-soldier"):
        baseline_path("nope")


@pytest.mark.parametrize("name", NAMES)
def test_module_shape(name: str) -> None:
    engine = wasmtime.Engine()
    module = wasmtime.Module(engine, load_baseline(name))
    assert list(module.imports) == []
    exports = {e.name: e.type for e in module.exports}
    memories = [t for t in exports.values() if isinstance(t, wasmtime.MemoryType)]
    assert len(memories) == 1 and isinstance(exports["memory"], wasmtime.MemoryType)
    # Far under the 64 MiB cap: static arrays only.
    assert exports["memory"].limits.min * 65536 < 8 << 20
    i32 = str(wasmtime.ValType.i32())
    for fn, params in (("foray_buffer", []), ("foray_init", [i32]), ("foray_tick", [i32])):
        ty = exports[fn]
        assert isinstance(ty, wasmtime.FuncType), fn
        assert [str(p) for p in ty.params] == params, fn
        assert [str(r) for r in ty.results] == [i32], fn


@pytest.mark.parametrize("source", ["template.c", "extra/economy.c"])
def test_author_sources_build(source: str, tmp_path: Path) -> None:
    wasm = compile_c([BASELINES_DIR / source], tmp_path / "bot.wasm", include=[BASELINES_DIR])
    module = wasmtime.Module(wasmtime.Engine(), wasm)
    assert list(module.imports) == []
    bot = Controller(wasm)
    assert bot.init(init_message()) == 0
    own = [(1, 1, 2, 1, 4, 0), (2, 1, 3, 2, 4, 4)]
    assert_valid(bot.tick(obs_message(0, own)), own)


# ----------------------------------------------------------------- behaviour

START: list[Unit] = [(1, 1, 2, 1, 4, 0), (2, 1, 3, 2, 4, 0), (3, 1, 2, 3, 4, 0)]


@pytest.mark.parametrize("name", NAMES)
def test_init_and_ticks_give_valid_actions(name: str) -> None:
    bot = Controller(load_baseline(name))
    assert bot.init(init_message()) == 0
    own: list[Unit] = [*START, (4, 2, 6, 6, 10, 0), (5, 2, 8, 8, 10, 0)]
    enemy: list[Unit] = [(1, 1, 8, 7, 4, 2), (2, 2, 7, 6, 10, 0), (3, 2, 8, 9, 10, 0)]
    for tick in range(12):
        # Units shuffle about between ticks; the bot must cope with any roster.
        shown = own[tick % 3 :]
        records = bot.tick(obs_message(tick, shown, enemy if tick % 2 else ()))
        assert_valid(records, shown)


@pytest.mark.parametrize("name", NAMES)
def test_never_more_than_max_units_plus_one(name: str) -> None:
    bot = Controller(load_baseline(name))
    assert bot.init(init_message(max_units=8)) == 0
    own = [(i + 1, 1 + i % 2, i % W, 5 + i // W, 4, 0) for i in range(8)]
    assert_valid(bot.tick(obs_message(0, own, energy=100)), own)


@pytest.mark.parametrize("name", ["border-soldier", "greedy-raider", "fuel-probe"])
def test_full_worker_next_to_home_deposits(name: str) -> None:
    bot = Controller(load_baseline(name))
    assert bot.init(init_message()) == 0
    own: list[Unit] = [(1, 1, 3, 2, 4, 4)]
    assert by_unit(bot.tick(obs_message(0, own)))[1] == (4, 0)


@pytest.mark.parametrize("name", ["border-soldier", "greedy-raider", "fuel-probe"])
def test_worker_next_to_ore_mines_it(name: str) -> None:
    bot = Controller(load_baseline(name))
    assert bot.init(init_message()) == 0
    own: list[Unit] = [(1, 1, 3, 2, 4, 0)]  # (4, 2) holds 20 ore, to the east
    assert by_unit(bot.tick(obs_message(0, own)))[1] == (3, 2)


@pytest.mark.parametrize("name", ["border-soldier", "greedy-raider", "fuel-probe"])
def test_full_worker_walks_round_rock(name: str) -> None:
    bot = Controller(load_baseline(name))
    assert bot.init(init_message()) == 0
    # At (6, 2), home is west behind the rock column x = 5 (y 1..3): the way
    # round is north via (6, 0) or south via (6, 4), never west into rock.
    own: list[Unit] = [(1, 1, 6, 2, 4, 4)]
    op, arg = by_unit(bot.tick(obs_message(0, own, ore={})))[1]
    assert op == 1 and arg in (1, 3)


@pytest.mark.parametrize("name", ["border-soldier", "greedy-raider", "fuel-probe"])
def test_soldier_strikes_adjacent_enemy_and_focuses(name: str) -> None:
    bot = Controller(load_baseline(name))
    assert bot.init(init_message()) == 0
    # Two soldiers flank a wounded enemy soldier at (7, 6); a fresh one stands
    # at (8, 5) next to soldier 2 only. Both must hit the one they can kill.
    own: list[Unit] = [(1, 2, 6, 6, 10, 0), (2, 2, 8, 6, 10, 0)]
    enemy: list[Unit] = [(1, 2, 7, 6, 6, 0), (2, 2, 8, 5, 10, 0)]
    acts = by_unit(bot.tick(obs_message(5, own, enemy)))
    assert acts[1] == (2, 2)  # east
    assert acts[2] == (2, 4)  # west


def test_random_is_seeded() -> None:
    own: list[Unit] = [*START, (4, 2, 6, 6, 10, 0)]

    def run(seed: int) -> list[list[tuple[int, int, int]]]:
        bot = Controller(load_baseline("random"))
        assert bot.init(init_message(seed)) == 0
        return [bot.tick(obs_message(t, own)) for t in range(20)]

    assert run(1) == run(1)
    assert run(1) != run(2)
    for records in run(3):
        assert_valid(records, own)


# ------------------------------------------------------------------- the SDK

_EMITTER_BOT = r"""
#include "foray.h"
void bot_init(const foray_init_t *g) { (void)g; }
void bot_tick(const foray_obs_t *obs, foray_actions_t *a) {
    const foray_unit_t *u = &obs->own[0];
    foray_move(a, u, 0);                 /* malformed: MOVE takes 1..4 */
    foray_mine(a, u, 5);                 /* malformed */
    foray_act(a, u, FORAY_SPAWN, 1);     /* SPAWN is the colony's */
    foray_move(a, u, FORAY_EAST);        /* accepted */
    foray_attack(a, u, FORAY_WEST);      /* a second action for u */
    foray_act(a, obs->own + obs->n_own, FORAY_NOOP, 0); /* not on the roster */
    foray_spawn(a, 3);                   /* no such kind */
    foray_spawn(a, FORAY_SOLDIER);       /* accepted */
    foray_spawn(a, FORAY_WORKER);        /* a second spawn */
    foray_deposit(a, &obs->own[1]);      /* accepted */
}
"""


def test_emitters_refuse_what_the_contract_forbids(tmp_path: Path) -> None:
    source = tmp_path / "emit.c"
    source.write_text(_EMITTER_BOT)
    bot = Controller(compile_c([source], tmp_path / "emit.wasm", include=[BASELINES_DIR]))
    assert bot.init(init_message()) == 0
    own: list[Unit] = [(3, 1, 4, 4, 4, 0), (9, 1, 3, 2, 4, 2)]
    assert bot.tick(obs_message(0, own)) == [(3, 1, 2), (0, 5, 2), (9, 4, 0)]


_AS_EMITTER_BOT = """
import * as foray from "./foray";
function botInit(g: foray.Init): void {}
function botTick(obs: foray.Obs, a: foray.Actions): void {
  const u = obs.own(0);
  a.move(u, 0);                                  // malformed: MOVE takes 1..4
  a.mine(u, 5);                                  // malformed
  a.act(u, foray.Op.SPAWN, 1);                   // SPAWN is the colony's
  a.act(u, 6, 0);                                // no such op
  a.move(u, foray.Dir.EAST);                     // accepted
  a.attack(u, foray.Dir.WEST);                   // a second action for u
  a.act(obs.enemy(0), foray.Op.NOOP, 0);         // not on the roster
  a.act(changetype<foray.Unit>(changetype<usize>(obs.own(1)) + 4), 0, 0);  // not a record
  a.spawn(3);                                    // no such kind
  a.spawn(foray.Kind.SOLDIER);                   // accepted
  a.spawn(foray.Kind.WORKER);                    // a second spawn
  if (a.acted(obs.own(1)) || !a.acted(u) || a.acted(obs.enemy(0))) return;
  a.deposit(obs.own(1));                         // accepted
}
export function foray_buffer(): i32 { return foray.buffer(); }
export function foray_init(len: i32): i32 { return foray.init(len, botInit); }
export function foray_tick(len: i32): i32 { return foray.tick(len, botTick); }
"""


@pytest.mark.slow
def test_the_assemblyscript_emitters_refuse_what_the_contract_forbids(tmp_path: Path) -> None:
    """foray.ts refuses what foray.h refuses, and a few more (a unit that is not a record)."""
    (tmp_path / "foray.ts").write_bytes((BASELINES_DIR / "foray.ts").read_bytes())
    source = tmp_path / "emit.ts"
    source.write_text(_AS_EMITTER_BOT)
    module = compile_assemblyscript(source, tmp_path / "emit.wasm")
    bot = Controller(module)
    assert bot.init(init_message()) == 0
    own: list[Unit] = [(3, 1, 4, 4, 4, 0), (9, 1, 3, 2, 4, 2)]
    enemy: list[Unit] = [(5, 2, 5, 4, 10, 0)]
    assert bot.tick(obs_message(0, own, enemy)) == [(3, 1, 2), (0, 5, 2), (9, 4, 0)]
    msg = bytearray(init_message())
    msg[0:4] = struct.pack("<i", 2)
    assert Controller(module).init(bytes(msg)) != 0


def test_init_refuses_another_abi_version() -> None:
    bot = Controller(load_baseline("border-soldier"))
    msg = bytearray(init_message())
    msg[0:4] = struct.pack("<i", 2)
    assert bot.init(bytes(msg)) != 0
