"""Helpers shared by the tests: paths, the in-process CLI, scripted policies and matches.

Fixtures live in conftest.py; everything else a test module shares lives here,
so no test module imports another.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import random
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgpack
import pytest
import trio

import replays
import sim
from arena.cli import main
from arena.executors import Executor, MatchJob, Outcome, Session, play
from arena.match import MatchResult, SideResult
from arena.store import ControllerRecord, Entrant

if TYPE_CHECKING:
    from playwright.sync_api import Page

    import arena

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
BOTS = TESTS / "bots"
ZOO = TESTS / "zoo"
EXTRA = ROOT / "baselines" / "extra"

Builder = Callable[..., bytes]
"""The ``build_c`` fixture: (C source, *defines) -> module bytes."""


# `./scripts/test.sh --fast` sets it: property tests then try a tenth of their examples.
FAST = os.environ.get("FORAY_FAST_TESTS") == "1"


def require_native(available: bool) -> None:
    """Fail a test that needs a native part this checkout lacks (``./scripts/setup.sh``
    builds them); skip it only when FORAY_NATIVE=0 turned them off on purpose."""
    if available:
        return
    reason = sim.native_unavailable() or "not built"
    if os.environ.get("FORAY_NATIVE") == "0":
        pytest.skip(f"the native parts are {reason}")
    pytest.fail(f"the native parts are {reason}: run ./scripts/setup.sh")


def examples(n: int) -> int:
    """A property test's number of examples: ``n``, or a tenth (at least 5) in the fast loop."""
    return max(5, n // 10) if FAST else n


# --------------------------------------------------------------------------- the CLI


@dataclass(frozen=True)
class Ran:
    """What a command printed and returned."""

    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> Ran:
    """Run ``arena ARGS`` in this process; argparse's own exits become codes."""
    capsys.readouterr()
    try:
        code = main(list(args))
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 2
    captured = capsys.readouterr()
    return Ran(code, captured.out, captured.err)


def cli_process(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``python -m arena ARGS`` as a separate process (smoke tests only)."""
    return subprocess.run(
        [sys.executable, "-m", "arena", *args], capture_output=True, text=True, cwd=cwd, check=False
    )


# --------------------------------------------------------------------------- worker processes


class _PlayHere(Session):
    """One call at a time (``slots``): the others wait their turn, and a cancelled one
    never starts its match."""

    slots = 1

    def __init__(self) -> None:
        self._limiter = trio.CapacityLimiter(self.slots)

    async def play(self, job: MatchJob) -> Outcome:
        async with self._limiter:
            return play(job)


class InProcess(Executor):
    """An executor that plays the jobs one after the other in this process (no worker start-up):
    what an executor implements, and no more."""

    @asynccontextmanager
    async def open_session(self) -> AsyncIterator[Session]:
        yield _PlayHere()


def worker_pids() -> list[int]:
    """The pids of this process's living worker processes: forked by its worker server (a
    child of this process), or spawned by this process where there is none."""
    me = str(os.getpid())
    procs: list[tuple[int, str, str, bytes]] = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
            cmdline = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        procs.append((int(proc.name), fields[0], fields[1], cmdline))
    servers = {
        str(pid)
        for pid, _, parent, cmdline in procs
        if parent == me and b"multiprocessing.forkserver" in cmdline
    }
    return [
        pid
        for pid, state, parent, cmdline in procs
        if state != "Z" and (parent in servers or (parent == me and b"spawn_main" in cmdline))
    ]


WORKER_HOOKS = {
    "die-mid-send": """
import os, signal, struct, sys
from multiprocessing import connection
_send = connection.Connection._send_bytes
def _send_bytes(self, buf):
    # Once (a marker file made exclusively): half of a result's message, then SIGKILL.
    if len(buf) > 4096:
        try:
            os.close(os.open(os.path.join(DIRECTORY, "died"), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            pass
        else:
            self._send(struct.pack("!i", len(buf)) + bytes(buf[: len(buf) // 2]))
            os.kill(os.getpid(), signal.SIGKILL)
    return _send(self, buf)
connection.Connection._send_bytes = _send_bytes
""",
    "die-given-a-match": """
import os, signal
import _trio_parallel_workers as workers
_handle_job = workers.handle_job
def handle_job(job):
    # A call that plays matches (not the pool's start-up ping): the first DEATHS of them
    # among all workers (marker files made exclusively) kill their worker (SIGKILL) once
    # it has the call and before it plays, where the coordinator waits for the result.
    fn, _ = workers.loads(job)
    if getattr(fn, "__name__", "") in ("play", "play_in_turn", "play_batch", "play_batch_timed"):
        for death in range(DEATHS):
            marker = os.path.join(DIRECTORY, f"died-{death}")
            try:
                os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:
                continue
            os.kill(os.getpid(), signal.SIGKILL)
    return _handle_job(job)
workers.handle_job = handle_job
""",
    "cannot-start": """
import os
os._exit(1)
""",
    "hold-results": """
import os, time
from multiprocessing import connection
_send = connection.Connection._send_bytes
def _send_bytes(self, buf):
    # A result's message (a match's) waits while the marker file "hold" exists.
    while len(buf) > 4096 and os.path.exists(os.path.join(DIRECTORY, "hold")):
        time.sleep(0.01)
    return _send(self, buf)
connection.Connection._send_bytes = _send_bytes
""",
}
"""What ``worker_hook`` can make every worker process do (a ``sitecustomize``)."""

SERVER_HOOKS = {
    "no-worker-server": """
import os
os._exit(1)
""",
}
"""What ``worker_hook`` can make the worker server itself do as it starts (nothing where
workers are spawned)."""


def worker_hook(directory: Path, hook: str, *, deaths: int = 1) -> dict[str, str]:
    """The environment under which the worker processes of a command (never the command itself)
    run ``WORKER_HOOKS[hook]`` as they start: a ``sitecustomize`` in ``directory``, on the
    ``PYTHONPATH``, that acts only in a worker: a process multiprocessing spawned, or one
    the worker server forked (the server, started under it, has each of its children run
    the hook as it is forked; the ``hooked_workers`` fixture does this for the workers of
    the test's own process).

    ``die-mid-send``: the first worker to send back a result bigger than a call's answer
    (a match's) sends half of it and is killed (SIGKILL); ``die-given-a-match``: the
    first ``deaths`` calls that play matches (``play_in_turn``, ``play_batch``), among all
    workers, kill their worker (SIGKILL) as it gets the call, so the coordinator loses
    it mid-match (``deaths_of`` counts them); ``cannot-start``: every worker exits at
    once; ``hold-results``: a worker keeps a match's result while the file ``directory /
    "hold"`` exists (so a test can change the world before the result arrives);
    ``no-worker-server`` (``SERVER_HOOKS``): the worker server exits as it starts."""
    in_server = hook in SERVER_HOOKS
    code = (SERVER_HOOKS if in_server else WORKER_HOOKS)[hook]
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "sitecustomize.py").write_text(
        "import sys\n"
        f"DIRECTORY = {str(directory)!r}\n"
        f"DEATHS = {deaths}\n"
        "def _hook():\n"
        + "".join(f"    {line}\n" for line in code.strip().splitlines())
        + 'if "--multiprocessing-fork" in sys.argv:  # a spawned worker\n'
        f"    {'pass' if in_server else '_hook()'}\n"
        'elif any("multiprocessing.forkserver" in arg for arg in sys.orig_argv):\n'
        # The worker server: each worker it forks runs a worker's hook as it starts, the
        # server itself only its own.
        "    import os\n"
        f"    {'_hook()' if in_server else 'os.register_at_fork(after_in_child=_hook)'}\n"
    )
    path = os.pathsep.join(filter(None, [str(directory), os.environ.get("PYTHONPATH")]))
    return {"PYTHONPATH": path}


HookWorkers = Callable[..., Path]
"""The ``hooked_workers`` fixture: (hook, deaths=1) -> the hook's directory. The workers this
process starts from then on, until the test ends, run ``WORKER_HOOKS[hook]``."""


def deaths_of(directory: Path) -> int:
    """How many workers the ``die-given-a-match`` hook in ``directory`` has killed."""
    return len(list(directory.glob("died-*")))


# --------------------------------------------------------------------------- policies


def policy(obs: sim.Observation, max_units: int) -> list[sim.Record]:
    """A deterministic, busy policy of the observation alone (so mirrored sides agree)."""
    out: list[sim.Record] = []
    ore_at = {(o.x, o.y): o.amount for o in obs.ore}
    enemies = {(u.x, u.y) for u in obs.enemy}
    for u in obs.own:
        x, y = u.x, u.y
        h = (u.id * 2654435761 + obs.tick * 40503 + x * 31 + y * 17) & 0xFFFF
        near = [
            d
            for d in range(1, 5)
            if (x + sim.DIRECTION_DELTAS[d][0], y + sim.DIRECTION_DELTAS[d][1]) in enemies
        ]
        if u.kind == sim.SOLDIER and near:
            out.append((u.id, sim.ATTACK, near[0]))
        elif u.kind == sim.WORKER and u.carry and h % 3 == 0:
            out.append((u.id, sim.DEPOSIT, 0))
        elif u.kind == sim.WORKER and (x, y) in ore_at and u.carry < 4:
            out.append((u.id, sim.MINE, 0))
        elif h % 5:
            out.append((u.id, sim.MOVE, 1 + h % 4))
        else:
            out.append((u.id, sim.NOOP, 0))
    if obs.tick % 3 == 0:
        out.append((0, sim.SPAWN, 1 + (obs.tick // 3) % 2))
    return out[: max_units + 1]


def random_policy(
    game: sim.Game, side: int, rng: random.Random, fierce: bool = False
) -> list[sim.Record]:
    """Random legal actions in the side's own view: busy enough to move, mine, fight, spawn.

    ``fierce`` soldiers hunt: they strike adjacent enemies (or the enemy colony)
    and march on the enemy colony, so that units die.
    """
    obs = game.observe(side)
    out: list[sim.Record] = []
    enemies = {(u.x, u.y) for u in obs.enemy}
    # Maps are point-symmetric, so every side's own view has its colony where
    # side 0's is, and the enemy colony opposite.
    cx, cy = game.map.colonies[0]
    goal = (game.width - 1 - cx, game.height - 1 - cy)
    for u in obs.own:
        uid, kind, x, y, carry = u.id, u.kind, u.x, u.y, u.carry
        r = rng.random()
        if fierce and kind == sim.SOLDIER:
            near = [(x + dx, y + dy) for dx, dy in sim.DIRECTION_DELTAS]
            foes = [d for d in range(1, 5) if near[d] in enemies or near[d] == goal]
            closer = [
                d
                for d in range(1, 5)
                if abs(near[d][0] - goal[0]) + abs(near[d][1] - goal[1])
                < abs(x - goal[0]) + abs(y - goal[1])
            ]
            if foes:
                out.append((uid, sim.ATTACK, rng.choice(foes)))
            elif closer and r < 0.8:
                out.append((uid, sim.MOVE, rng.choice(closer)))
            else:
                out.append((uid, sim.MOVE, rng.randint(1, 4)))
        elif kind == sim.SOLDIER and r < 0.5:
            out.append((uid, sim.ATTACK, rng.randint(1, 4)))
        elif kind == sim.WORKER and carry and r < 0.3:
            out.append((uid, sim.DEPOSIT, 0))
        elif kind == sim.WORKER and r < 0.6:
            out.append((uid, sim.MINE, rng.randint(0, 4)))
        elif r < 0.95:
            out.append((uid, sim.MOVE, rng.randint(1, 4)))
    if rng.random() < 0.6:
        out.append((0, sim.SPAWN, rng.choice((sim.WORKER, sim.SOLDIER, sim.SOLDIER)[: 2 + fierce])))
    rng.shuffle(out)
    return out


# --------------------------------------------------------------------------- readings from scratch


def brute_observation(g: sim.Game, side: int) -> sim.Observation:
    """What ``side`` sees, read from the spec cell by cell (rules §3, §9): no cache, no mask."""
    me, foe = g.sides[side], g.sides[1 - side]
    cfg = g.config
    eyes = [(u.cell, cfg.unit_vision) for u in me.units.values()]
    eyes.append((me.colony, cfg.colony_vision))

    def visible(cell: int) -> bool:
        x, y = g.xy(cell)
        return any(
            max(abs(x - ex), abs(y - ey)) <= r for (ex, ey), r in ((g.xy(c), r) for c, r in eyes)
        )

    def seen(u: sim.Unit) -> sim.UnitRecord:
        return sim.UnitRecord(u.id, u.kind, *g.own_xy(side, u.cell), u.hp, u.carry)

    ore = sorted(
        (sim.OreRecord(*g.own_xy(side, c), g.ore[c]) for c in range(g.cells) if g.ore[c] > 0),
        key=lambda o: (o.y, o.x),
    )
    return sim.Observation(
        tick=g.tick,
        banked=me.banked,
        energy=me.energy,
        colony_hp=me.colony_hp,
        enemy_banked=foe.banked,
        enemy_colony_hp=foe.colony_hp if visible(foe.colony) else -1,
        own=[seen(u) for u in me.units.values()],
        enemy=[seen(u) for u in foe.units.values() if visible(u.cell)],
        ore=[o for o in ore if visible(_cell_of(g, side, o.x, o.y))],
    )


def _cell_of(g: sim.Game, side: int, x: int, y: int) -> int:
    """The absolute cell of (x, y) in ``side``'s view."""
    cell = x + y * g.width
    return g.cells - 1 - cell if side else cell


def _mix64(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % 2**64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % 2**64
    return z ^ (z >> 31)


def reference_checksum(g: sim.Game) -> int:
    """``Game.checksum`` as its docstring defines it, computed from the whole state."""
    words = [g.tick]
    for side in g.sides:
        words += [side.banked, side.energy, side.colony_hp, side.next_id, len(side.units)]
        for u in sorted(side.units.values(), key=lambda u: u.id):
            words += [u.id, u.kind, u.cell, u.hp, u.carry]
    ore_digest = 0
    for c in range(g.cells):
        if g.ore[c]:
            key = _mix64((c + 1) * 0x9E3779B97F4A7C15 % 2**64)
            ore_digest ^= _mix64(key ^ g.ore[c])
    data = b"".join(v.to_bytes(8, "little", signed=True) for v in words)
    data += ore_digest.to_bytes(8, "little")
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


# --------------------------------------------------------------------------- scripted replays

# The shape of arena.sandbox.Limits (the header's "limits" is {name: number}).
LIMITS: dict[str, Any] = {
    "fuel_per_tick": 5_000_000,
    "init_fuel": 50_000_000,
    "max_memory_bytes": 64 * 1024 * 1024,
    "tick_timeout": 2.0,
    "init_timeout": 10.0,
    "compile_timeout": 20.0,
    "compile_memory_bytes": 2 * 1024**3,
}
INIT_FUEL_USED = (12_345, 23_456)
PAGE = 65_536
"""A wasm page: memory grows by whole pages."""


@dataclass
class Played:
    """A scripted match: its replay bytes, the wire objects in them, and the true states."""

    data: bytes
    header: dict[str, Any]
    frames: list[dict[str, Any]]
    result: dict[str, Any]
    truth: list[replays.FrameState]
    """The sim's own state after every applied tick."""


def truth(game: sim.Game, tick: int) -> replays.FrameState:
    """The sim's state after ``tick``, in the shape ``iter_states`` draws."""
    w = game.width
    s0, s1 = game.sides
    units = tuple(
        tuple(
            sim.UnitRecord(u.id, u.kind, u.cell % w, u.cell // w, u.hp, u.carry)
            for u in sorted(side.units.values(), key=lambda u: u.id)
        )
        for side in game.sides
    )
    return replays.FrameState(
        tick=tick,
        units=(units[0], units[1]),
        colony_hp=(s0.colony_hp, s1.colony_hp),
        banked=(s0.banked, s1.banked),
        energy=(s0.energy, s1.energy),
        ore=tuple(game.ore),
    )


def play_scripted(
    seed: int,
    max_ticks: int = 8,
    size: int = 16,
    forfeit: tuple[int, int, str] | None = None,
    init_forfeit: tuple[bool, bool] = (False, False),
    fierce: bool = False,
) -> Played:
    """Play a scripted match, recorded by ``replays.Recorder`` as run_match records.

    Random policies and made-up fuel and memory stand in for wasm controllers
    (side A's memory grows a page every 7 ticks). ``forfeit`` is (tick, side,
    kind); a ``memory`` forfeit's side ends its tick a page over the cap. A
    ``fierce`` match has cheap, frail soldiers that hunt.
    """
    config = sim.Config(width=size, height=size, max_ticks=max_ticks, start_energy=40)
    if fierce:
        config = config.replace(soldier_cost=6, soldier_hp=4, worker_hp=2)
    game = sim.Game(sim.generate_map(seed, size, size), config)
    header = replays.Header.for_game(
        game,
        (
            replays.SideInfo("alpha", "a" * 64),
            replays.SideInfo("beta", "0123456789abcdef" * 4),
        ),
        seed=seed,
        limits=LIMITS,
        wasmtime="test",
        case=replays.CaseRef("foray", 1),
    )
    out = io.BytesIO()
    recorder = replays.Recorder(out, game, header)
    states: list[replays.FrameState] = []
    rngs = [random.Random(seed * 2), random.Random(seed * 2 + 1)]
    forfeits: list[sim.Forfeit | None] = [None, None]
    fuel_total = list(INIT_FUEL_USED)
    fuel_peak = [0, 0]
    for s in (0, 1):
        if init_forfeit[s]:
            forfeits[s] = sim.Forfeit(0, sim.ForfeitKind.INIT, "foray_init returned 1")
            fuel_total[s] = LIMITS["init_fuel"]
    outcome = sim.forfeit_outcome(init_forfeit) if any(init_forfeit) else None
    ticks = 0
    while outcome is None:
        tick = game.tick
        submitted: list[list[sim.Record]] = [[], []]
        fuel = [0, 0]
        for s in (0, 1):
            records = random_policy(game, s, rngs[s], fierce)
            fuel[s] = 1_000 + 37 * len(records) + 5 * tick + s
            if forfeit is not None and forfeit[:2] == (tick, s) and forfeit[2] != "invalid_action":
                fuel[s] = LIMITS["fuel_per_tick"]  # a fault is charged its whole budget
                forfeits[s] = sim.Forfeit(tick, sim.ForfeitKind(forfeit[2]), "scripted fault")
                continue
            if forfeit is not None and forfeit == (tick, s, "invalid_action"):
                records = [*records, (999, sim.NOOP, 0)]
            submitted[s] = records
            broken = sim.validate_actions(len(records), records, game.roster(s), config.max_units)
            if broken is not None:
                forfeits[s] = sim.Forfeit(tick, sim.ForfeitKind.INVALID_ACTION, broken)
        memory = [PAGE * (2 + tick // 7), PAGE * 3]
        for s in (0, 1):
            fuel_total[s] += fuel[s]
            fuel_peak[s] = max(fuel_peak[s], fuel[s])
            faulted = forfeits[s]
            if faulted is not None and faulted.kind == sim.ForfeitKind.MEMORY:
                memory[s] = LIMITS["max_memory_bytes"] + PAGE
        ticks = tick + 1
        if any(forfeits):
            recorder.forfeit(submitted, fuel, memory=(memory[0], memory[1]))
            outcome = sim.forfeit_outcome((forfeits[0] is not None, forfeits[1] is not None))
            break
        events = game.step(submitted)
        recorder.applied(submitted, fuel, events, memory=(memory[0], memory[1]))
        states.append(truth(game, tick))
        outcome = game.outcome((fuel_total[0], fuel_total[1]))
    recorder.result(
        replays.Result(
            winner=outcome.winner,
            reason=outcome.reason,
            ticks=ticks,
            sides=tuple(  # type: ignore[arg-type]
                replays.ResultSide(game.sides[s].banked, fuel_total[s], fuel_peak[s], forfeits[s])
                for s in (0, 1)
            ),
        )
    )
    data = out.getvalue()
    objects = list(msgpack.Unpacker(io.BytesIO(data), raw=False))
    return Played(data, objects[0], objects[1:-1], objects[-1], states)


def pack(header: dict[str, Any], frames: list[dict[str, Any]], result: dict[str, Any]) -> bytes:
    """Re-encode (possibly tampered) wire objects as a replay file."""
    packer = msgpack.Packer(use_bin_type=True)
    return b"".join(packer.pack(o) for o in (header, *frames, result))


# --------------------------------------------------------------------------- wasm binaries
#
# A small writer of wasm binaries, for modules no toolchain would emit: hostile
# names, counts over the structural limits, segments out of bounds.

I32_0 = b"\x41\x00"
"""``i32.const 0``."""
UNREACHABLE = b"\x00"


def leb(n: int) -> bytes:
    """Unsigned LEB128."""
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def sleb(n: int) -> bytes:
    """Signed LEB128."""
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        if (n == 0 and not byte & 0x40) or (n == -1 and byte & 0x40):
            out.append(byte)
            return bytes(out)
        out.append(byte | 0x80)


def section(ident: int, body: bytes) -> bytes:
    return bytes([ident]) + leb(len(body)) + body


def vec(items: list[bytes]) -> bytes:
    return leb(len(items)) + b"".join(items)


def wasm_name(text: bytes) -> bytes:
    return leb(len(text)) + text


def func_body(code: bytes, local_runs: tuple[tuple[int, int], ...] = ()) -> bytes:
    """A code-section entry: its size, its locals as (count, type) runs, ``code`` and ``end``."""
    body = vec([leb(n) + bytes([t]) for n, t in local_runs]) + code + b"\x0b"
    return leb(len(body)) + body


def module_bytes(*sections: bytes) -> bytes:
    return b"\0asm\x01\0\0\0" + b"".join(sections)


def controller(
    tick: bytes = I32_0,
    *,
    extra: tuple[bytes, ...] = (),
    start: int | None = None,
    names: dict[int, bytes] | None = None,
    pages: int = 2,
    data: tuple[bytes, ...] = (),
    table: int | None = None,
    elements: tuple[bytes, ...] = (),
    globals_: tuple[bytes, ...] = (),
    more_exports: tuple[bytes, ...] = (),
) -> bytes:
    """A controller module: functions 0-2 are foray_buffer, foray_init and foray_tick.

    ``tick`` is foray_tick's code (it must leave one i32); ``extra`` are the codes
    of functions 3, 4, ... of type () -> (); ``names`` names functions in a
    name section; ``data``, ``elements``, ``globals_`` and ``more_exports`` are raw
    section entries.
    """
    types = vec([b"\x60\x00\x01\x7f", b"\x60\x01\x7f\x01\x7f", b"\x60\x00\x00"])
    funcs = vec([leb(0), leb(1), leb(1)] + [leb(2)] * len(extra))
    exports = vec(
        [
            wasm_name(b"memory") + b"\x02\x00",
            wasm_name(b"foray_buffer") + b"\x00\x00",
            wasm_name(b"foray_init") + b"\x00\x01",
            wasm_name(b"foray_tick") + b"\x00\x02",
            *more_exports,
        ]
    )
    code = vec(
        [func_body(I32_0), func_body(I32_0), func_body(tick)] + [func_body(c) for c in extra]
    )
    parts = [section(1, types), section(3, funcs)]
    if table is not None:
        parts.append(section(4, vec([b"\x70\x00" + leb(table)])))
    parts.append(section(5, vec([b"\x00" + leb(pages)])))
    if globals_:
        parts.append(section(6, vec(list(globals_))))
    parts.append(section(7, exports))
    if start is not None:
        parts.append(section(8, leb(start)))
    if elements:
        parts.append(section(9, vec(list(elements))))
    parts.append(section(10, code))
    if data:
        parts.append(section(11, vec(list(data))))
    if names:
        entries = vec([leb(i) + wasm_name(n) for i, n in sorted(names.items())])
        parts.append(section(0, wasm_name(b"name") + b"\x01" + leb(len(entries)) + entries))
    return module_bytes(*parts)


def compile_bomb(n_locals: int = 5000, n_blocks: int = 5000) -> bytes:
    """A ~90 KB module whose one function takes seconds and GBs to compile.

    ``n_locals`` values stay live across ``n_blocks`` nested blocks with a
    ``br_if`` each: register allocation is superlinear in live values x edges.
    """
    body = b"".join(b"\x41" + leb(i) + b"\x21" + leb(i) for i in range(n_locals))
    body += b"\x02\x40" * n_blocks
    for j in range(n_blocks):
        depth = min(j % 7, n_blocks - j - 1)
        body += b"\x20" + leb(j % n_locals) + b"\x0d" + leb(depth) + b"\x0b"
    body += b"\x41\x00" + b"".join(b"\x20" + leb(i) + b"\x6a" for i in range(n_locals))
    return module_bytes(
        section(1, b"\x01\x60\x00\x01\x7f"),  # type () -> i32
        section(3, b"\x01\x00"),
        section(10, vec([func_body(body, ((n_locals, 0x7F),))])),
    )


# --------------------------------------------------------------------------- stored results


def result_between(
    a: Entrant | ControllerRecord,
    b: Entrant | ControllerRecord,
    *,
    seed: int = 1,
    replay: bytes = b"replay",
    winner: int | None = 0,
    forfeit: sim.Forfeit | None = None,
) -> MatchResult:
    """A match result as ``run_match`` returns one, without playing it (for store tests).

    The store reads a result's fields and writes its replay bytes; it never
    plays or parses them, so any bytes do.
    """
    sides = (
        SideResult(a.name, a.sha256, 7, 1000, 60, None),
        SideResult(b.name, b.sha256, 3, 2000, 90, forfeit),
    )
    reason = sim.Reason.FORFEIT if forfeit else sim.Reason.SCORE
    return MatchResult(winner, reason, 42, seed, sides, replay)


# --------------------------------------------------------------------------- the viewer

GOLDEN_REPLAY = TESTS / "golden" / "busy-vs-idle-seed77-v2.replay"
MEMORY_REPLAY = TESTS / "golden" / "memory-forfeit-seed5-v3.replay"


def write_viewer_replays(directory: Path) -> dict[str, Path]:
    """Replays for the viewer's tests, by name: real matches and scripted endings."""
    import arena

    a, b = (arena.Contestant(n, arena.load_baseline(n)) for n in ("greedy-raider", "fuel-probe"))
    data = {
        # A real match of the baselines: fights, deaths, spawns, deposits; a sweep in tick 190.
        "baselines": arena.match.run_match(a, b, seed=3).replay,
        "golden": GOLDEN_REPLAY.read_bytes(),
        "fierce": play_scripted(5, max_ticks=60, fierce=True).data,
        "forfeit": play_scripted(3, max_ticks=40, forfeit=(25, 1, "invalid_action")).data,
        "init-forfeit": play_scripted(1, init_forfeit=(True, False)).data,
        # Side A's memory grows a page every 3 ticks to a forfeit past its 2 MiB cap.
        "memory": MEMORY_REPLAY.read_bytes(),
    }
    paths = {}
    for name, replay in data.items():
        paths[name] = directory / f"{name}.replay"
        paths[name].write_bytes(replay)
    return paths


def plain_state(state: replays.FrameState) -> dict[str, Any]:
    """A drawn state as JSON-like data: the shape the viewer's ``State.toPlain()`` gives."""
    return {
        "tick": state.tick,
        "units": [[list(u) for u in side] for side in state.units],
        "colony_hp": list(state.colony_hp),
        "banked": list(state.banked),
        "energy": list(state.energy),
        "ore": list(state.ore),
    }


class Tab:
    """A browser page that records the errors it logs (console errors, uncaught exceptions)."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.errors: list[str] = []
        self.expected_errors: list[str] = []
        """Substrings of errors this test provokes on purpose."""
        self.viewer = "#viewer"
        """The element the viewer is mounted on (a site's page: ``.site-viewer``)."""
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(f"uncaught: {e}"))

    def open(self, url: str, *, state: str = "ready") -> None:
        """Go to a viewer page and wait until its viewer is in ``state`` (ready, error...)."""
        self.page.goto(url)
        self.page.wait_for_function(
            "(s) => document.getElementById('viewer')?.dataset.state === s", arg=state
        )

    def js(self, expression: str, arg: Any = None) -> Any:
        """Evaluate a function expression (the pages' CSP forbids eval of plain strings)."""
        return self.page.evaluate(expression, arg)

    @property
    def tick(self) -> int:
        return int(self.page.locator(self.viewer).get_attribute("data-tick") or "-2")

    def open_site(self, url: str) -> None:
        """Go to a page of the site and wait until it has drawn itself from the API."""
        self.viewer = ".site-viewer"
        self.page.goto(url)
        self.page.wait_for_function(
            "() => document.getElementById('page')?.dataset.state === 'ready'"
        )

    def scripts(self) -> tuple[list[str], list[str]]:
        """The page's preloaded modules, and the scripts it loaded but the charts' chunk
        (loaded after the first frame), each a sorted list of paths."""
        found: dict[str, list[str]] = self.js(
            """() => {
                const path = (href) => new URL(href, location.href).pathname;
                const preloaded = [...document.querySelectorAll('link[rel="modulepreload"]')]
                    .map((link) => path(link.href));
                const loaded = performance.getEntriesByType("resource").map((e) => path(e.name))
                    .filter((p) => /\\.m?js$/.test(p) && !/\\/charts-[^/]*$/.test(p));
                return { preloaded: preloaded.sort(), loaded: [...new Set(loaded)].sort() };
            }"""
        )
        return found["preloaded"], found["loaded"]

    def viewer_ready(self) -> None:
        """Wait until the site page's viewer has its replay whole."""
        self.page.wait_for_function(
            "(s) => document.querySelector(s)?.dataset.state === 'ready'", arg=self.viewer
        )


# --------------------------------------------------------------------------- the site

SITE_TOKEN = "test-token-0123456789abcdef"
"""The token of the test sites (tests/test_site.py, tests/test_site_browser.py)."""
AUTH = {"Authorization": f"Bearer {SITE_TOKEN}"}


def small_case() -> arena.Case:
    """The default case on a smaller map and fewer ticks: matches of a second or less."""
    import msgspec

    import arena

    case = arena.default_case()
    return msgspec.structs.replace(
        case, rules=case.rules.replace(width=20, height=20, max_ticks=120)
    )


def proof_run(
    store: arena.Store, module: Path, name: str, case: arena.Case, *, again: bool = False
) -> arena.store.RunRecord:
    """``arena prove`` of the module file ``module`` on ``case``, recorded in ``store``
    (``again``: a run recorded anew, as ``--again``, though the module was proved)."""
    import arena.proving

    return arena.proving.prove(module, case, store=store, name=name, jobs=2, again=again).run


def local_runs(directory: Path, pages: Sequence[int]) -> list[tuple[Path, int, str]]:
    """Proof runs of different controllers (a small module told apart by its memory pages,
    one run per entry of ``pages``) on the default case, each in a store of its own under
    ``directory``: (its data directory, the run's id, the controller's name)."""
    import arena

    runs = []
    for i, n in enumerate(pages):
        root = directory / f"local-{i}"
        root.mkdir()
        module = root / f"bot-{i}.wasm"
        module.write_bytes(controller(pages=n))
        with arena.Store.open(root) as store:
            runs.append(
                (root, proof_run(store, module, f"bot-{i}", arena.default_case()).id, f"bot-{i}")
            )
    return runs


def push_run(local: Path, run_id: int, url: str, timeout: float) -> None:
    """``arena push RUN --server URL`` as a process, from the data directory ``local`` with
    the test sites' token; it must succeed."""
    env = {**os.environ, "FORAY_DATA_DIR": str(local), "ARENA_TOKEN": SITE_TOKEN}
    done = subprocess.run(
        [sys.executable, "-m", "arena", "push", str(run_id), "--server", url],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr
