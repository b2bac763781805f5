"""What a hostile controller author tried, each a recorded, bounded outcome (rules §8).

Fault text a module controls (crafted names on trapping functions), structure
that makes compiling slow (counts over the limits of rules §8.4, a reader fed
hostile bytes), segments that do not fit, and every zoo module played in a
short match whose replay must verify, alone and against the modules.
"""

from __future__ import annotations

import io
import struct
from collections.abc import Callable
from typing import Any

import msgpack
import pytest
from hypothesis import event, given, settings, strategies as st

import arena
import arena.match
import replays
import sim
from arena.sandbox import STRUCTURAL_LIMITS, Controller, Limits, check_module
from arena.sandbox._structure import read_structure
from tests._support import (
    I32_0,
    UNREACHABLE,
    ZOO,
    controller,
    examples,
    func_body,
    leb,
    module_bytes,
    pack,
    section,
    vec,
    wasm_name,
)

MANGLED = b"_Z1fI1AI" + b"i" * 1000 + b"EEv" + b"T_" * 50_000
"""A C++ name whose demangling expands every ``T_`` into the 1,000-character template."""
CALL_3 = b"\x10\x03"
"""``call 3``: the first function after the contract's three."""
LIMITS = Limits(fuel_per_tick=1_000_000, init_fuel=2_000_000)
CONFIG = sim.Config(width=16, height=16, max_ticks=3)
INIT_MESSAGE = struct.pack("<4i", 1, 32, 32, 100)

# Hostile modules no toolchain would emit, built by the writer in tests/_support.
HOSTILE: dict[str, bytes] = {
    # A tick that calls a trapping function with a crafted mangled name.
    "mangled_trap": controller(CALL_3 + I32_0, extra=(UNREACHABLE,), names={3: MANGLED}),
    # The same name on a function that recurses until the stack runs out.
    "mangled_recursion": controller(CALL_3 + I32_0, extra=(CALL_3,), names={3: MANGLED}),
    # A trap in a function with a 100 KB plain name.
    "long_name_trap": controller(CALL_3 + I32_0, extra=(UNREACHABLE,), names={3: b"f" * 100_000}),
    # A start function that traps, with the crafted name.
    "mangled_start": controller(extra=(UNREACHABLE,), start=3, names={3: MANGLED}),
    # The validator quotes a duplicate export's name: 100 KB of it.
    "long_duplicate_export": controller(
        more_exports=(wasm_name(b"x" * 100_000) + b"\x00\x00",) * 2
    ),
    # An import with a 100 KB name.
    "long_import": module_bytes(
        section(1, vec([b"\x60\x00\x00"])),
        section(2, vec([wasm_name(b"env") + wasm_name(b"y" * 100_000) + b"\x00\x00"])),
    ),
    # Control characters in a trapping function's name and in an export's name.
    "control_names": controller(
        CALL_3 + I32_0,
        extra=(UNREACHABLE,),
        names={3: b"\x1b[2J\x1b]0;pwned\x07"},
        more_exports=(wasm_name(b"\x1b[31mred") + b"\x00\x00",),
    ),
}


def hostile_match(blob: bytes, name: str = "hostile") -> arena.MatchResult:
    idle = controller()
    return arena.match.run_match(
        arena.Contestant(name, blob),
        arena.Contestant("idle", idle),
        seed=5,
        config=CONFIG,
        limits=LIMITS,
    )


# --------------------------------------------------------------------------- fault text


@pytest.mark.parametrize(
    ("name", "kind", "detail"),
    [
        (
            "mangled_trap",
            "trap",
            "wasm trap: wasm `unreachable` instruction executed (in function 3",
        ),
        ("mangled_recursion", "trap", "wasm trap: call stack exhausted (in function 3"),
        ("long_name_trap", "trap", "wasm trap: wasm `unreachable` instruction executed"),
        ("mangled_start", "init", "the start function trapped: wasm trap: wasm `unreachable`"),
        ("long_duplicate_export", "init", "module not admissible: invalid module: "),
        ("long_import", "init", "module not admissible: import env.yyyy"),
    ],
)
def test_fault_text_is_the_hosts_and_bounded(name: str, kind: str, detail: str) -> None:
    result = hostile_match(HOSTILE[name])
    forfeit = result.sides[0].forfeit
    assert forfeit is not None and forfeit.kind == kind
    assert forfeit.detail.startswith(detail)
    assert len(forfeit.detail) < 400  # the host's words plus at most 300 foreign characters
    assert "backtrace" not in forfeit.detail and "_Z1f" not in forfeit.detail
    # A small replay that verifies, alone and against the modules.
    assert len(result.replay) < 10_000
    assert replays.verify_replay(result.replay).ok
    assert arena.match.replay_matches(result.replay, HOSTILE[name], controller()).ok


def test_the_trap_detail_names_where_it_struck() -> None:
    forfeit = hostile_match(HOSTILE["control_names"]).sides[0].forfeit
    assert forfeit is not None
    # Function 3's body: its size 3, no locals, `unreachable`, `end`.
    offset = HOSTILE["control_names"].index(b"\x03\x00\x00\x0b") + 2
    assert forfeit.detail == (
        f"wasm trap: wasm `unreachable` instruction executed (in function 3, at module"
        f" offset {offset:#x})"
    )


def test_import_names_in_a_refusal_are_cut() -> None:
    reason = check_module(HOSTILE["long_import"]).reason
    assert reason is not None
    assert reason.startswith("import env." + "y" * 63 + "… is not allowed: a controller may")


def test_a_million_imports_are_counted_not_read() -> None:
    """The names of the first imports are read for the toolchain they point to; the rest
    are counted, so a section of a million tiny imports is refused at once."""
    import time

    tiny = wasm_name(b"") + wasm_name(b"") + b"\x00\x00"  # "".(""), a function of type 0
    late = wasm_name(b"env") + wasm_name(b"abort") + b"\x00\x00"  # AssemblyScript's, too late
    blob = module_bytes(
        section(1, vec([b"\x60\x00\x00"])), section(2, vec([tiny] * 1_000_000 + [late]))
    )
    start = time.monotonic()
    reason = check_module(blob).reason
    assert time.monotonic() - start < 2.0
    assert reason is not None and reason.startswith(
        "1,000,001 imports are not allowed (., ., . and 999,998 more): a controller may import"
        " nothing; a function the module calls but does not define becomes an import"
    )


def test_every_string_a_replay_holds_is_bounded() -> None:
    long_name = "n" * 10_000 + "\udcff"
    result = arena.match.run_match(
        arena.Contestant(long_name, HOSTILE["mangled_start"]),
        arena.Contestant("idle", controller()),
        config=CONFIG,
    )
    header = replays.read_replay(result.replay).header
    cut = "n" * (replays.MAX_NAME_CHARS - 1) + "…"
    assert header.sides[0].name == cut == result.sides[0].name
    assert replays.verify_replay(result.replay).ok
    assert replays.clip("bot\udcff", 10) == "bot\ufffd"
    assert len(replays.clip("d" * 5000, replays.MAX_DETAIL_CHARS)) == replays.MAX_DETAIL_CHARS


# --------------------------------------------------------------------------- structure


def _bodies(n: int, code: bytes = I32_0, runs: tuple[tuple[int, int], ...] = ()) -> bytes:
    """A module of ``n`` functions of type () -> i32, each with ``code``."""
    return module_bytes(
        section(1, vec([b"\x60\x00\x01\x7f"])),
        section(3, vec([leb(0)] * n)),
        section(10, vec([func_body(code, runs)] * n)),
    )


def _count_only(ident: int, n: int, entry: bytes) -> bytes:
    return module_bytes(section(ident, leb(n) + entry * n))


def _functype(params: int, results: int, valtype: int = 0x7F) -> bytes:
    value = bytes([valtype])
    return b"\x60" + leb(params) + value * params + leb(results) + value * results


def _escaped(types: list[bytes], funcs: list[int], bodies: list[bytes]) -> bytes:
    """Functions of the types ``funcs`` names, every one in a table, so that each gets a
    host-call trampoline; with a memory for the bodies' instructions."""
    n = len(funcs)
    return module_bytes(
        section(1, vec(types)),
        section(3, vec([leb(t) for t in funcs])),
        section(4, vec([b"\x70\x00" + leb(n)])),
        section(5, vec([b"\x00\x01"])),
        section(9, vec([b"\x00" + I32_0 + b"\x0b" + vec([leb(i) for i in range(n)])])),
        section(10, vec(bodies)),
    )


LIM = STRUCTURAL_LIMITS
LOOP = b"\x03\x40\x0b"
"""An empty loop: instruction cost 6 (its header checks fuel and the epoch)."""
CALL_INDIRECT = I32_0 + b"\x11\x01\x00"
"""``call_indirect`` of type 1, () -> (), through table 0: instruction cost 6."""
PER_BODY = LIM.function_cost // 6
"""Loops (or indirect calls) in a body at the limit of one body's instruction cost."""


def _dense(unit: bytes, weight: int, budget: int) -> list[bytes]:
    """Bodies of ``unit`` repeated, each at the limit of one body, until ``budget`` is spent."""
    bodies = []
    while budget >= weight:
        k = min(LIM.function_cost, budget) // weight
        bodies.append(func_body(unit * k))
        budget -= k * weight
    return bodies


OVER: dict[str, tuple[Callable[[], bytes], str]] = {
    "functions": (lambda: _bodies(LIM.functions + 1), f"{LIM.functions + 1:,} functions defined"),
    "function_bytes": (
        lambda: _bodies(1, b"\x01" * LIM.function_bytes + I32_0),
        f"{LIM.function_bytes + 4:,} bytes in one function body",
    ),
    "code_bytes": (
        # 65 bodies of 2 KiB: 1 KiB past the total, far inside the compile weight.
        lambda: _bodies(65, b"\x01" * 2044 + I32_0),
        f"{65 * 2048:,} bytes of code (all function bodies)",
    ),
    "code_weight": (
        # Three bodies just under the largest: each passes, their squares do not.
        lambda: _bodies(3, b"\x01" * (LIM.function_bytes - 6) + I32_0),
        f"{3 * (LIM.function_bytes - 2) ** 2:,} compile weight"
        " (the squares of the function bodies' sizes, summed)",
    ),
    "locals": (
        lambda: _bodies(1, runs=((600, 0x7F), (401, 0x7E))),
        f"{LIM.locals + 1:,} locals in one function",
    ),
    "locals_overflow": (
        lambda: _bodies(1, runs=((2**32 - 1, 0x7F), (2**32 - 1, 0x7F))),
        "4,294,967,295 locals in one function",
    ),
    "types": (
        lambda: _count_only(1, LIM.types + 1, b"\x60\x00\x00"),
        f"{LIM.types + 1:,} types",
    ),
    "tables": (
        lambda: _count_only(4, LIM.tables + 1, b"\x70\x00\x01"),
        f"{LIM.tables + 1:,} tables",
    ),
    "memories": (lambda: _count_only(5, 2, b"\x00\x01"), "2 memories"),
    "globals": (
        lambda: _count_only(6, LIM.globals + 1, b"\x7f\x00" + I32_0 + b"\x0b"),
        f"{LIM.globals + 1:,} globals",
    ),
    "exports": (
        lambda: module_bytes(
            section(7, vec([wasm_name(b"e%d" % i) + b"\x00\x00" for i in range(LIM.exports + 1)]))
        ),
        f"{LIM.exports + 1:,} exports",
    ),
    "element_segments": (
        lambda: _count_only(9, LIM.element_segments + 1, b"\x01\x00\x00"),
        f"{LIM.element_segments + 1:,} element segments",
    ),
    "elements": (
        lambda: module_bytes(
            section(9, vec([b"\x01\x00" + leb(LIM.elements + 1) + b"\x00" * (LIM.elements + 1)]))
        ),
        f"{LIM.elements + 1:,} elements in all element segments",
    ),
    "data_segments": (
        lambda: _count_only(11, LIM.data_segments + 1, b"\x01\x00"),
        f"{LIM.data_segments + 1:,} data segments",
    ),
    # The example: 200,000 empty functions (0.8 MB) took 13 s to compile.
    "200k_functions": (lambda: _bodies(200_000), "200,000 functions defined"),
    "params": (
        lambda: _count_only(1, 1, _functype(LIM.params + 1, 0)),
        f"{LIM.params + 1:,} parameters of one function type",
    ),
    "results": (
        lambda: _count_only(1, 1, _functype(0, LIM.results + 1)),
        f"{LIM.results + 1:,} results of one function type",
    ),
    # An audit's bomb (7 KB): 997 functions of (i32 x 1000) -> () in a table took 11 s to
    # compile (a host-call trampoline each, as long as its parameters); v128 parameters
    # with 1,000 v128 locals hit the 20 s backstop under load.
    "escaped_params": (
        lambda: _escaped([_functype(1000, 0)], [0] * 997, [func_body(b"")] * 997),
        "1,000 parameters of one function type",
    ),
    "function_cost": (
        lambda: _bodies(1, LOOP * (PER_BODY + 1) + I32_0),
        f"{(PER_BODY + 1) * 6:,} instruction cost of one function body",
    ),
    # 128 KiB of empty loops compiled in 1.5 s, of memory.grow in 3.3 s: within every
    # byte limit, so the instructions are counted by their weight. Each body here is
    # within the limit of one; together they are not.
    "instruction_cost": (
        lambda: _bodies(7, LOOP * PER_BODY + I32_0),
        f"{7 * PER_BODY * 6:,} instruction cost (every instruction, weighted by its compile cost)",
    ),
    "memory_grow": (
        lambda: _bodies(1, (I32_0 + b"\x40\x00\x1a") * (LIM.function_cost // 32 + 1) + I32_0),
        f"{(LIM.function_cost // 32 + 1) * 32:,} instruction cost of one function body",
    ),
}


@pytest.mark.parametrize("name", sorted(OVER))
def test_structure_over_a_limit_is_refused_before_compiling(name: str) -> None:
    build, what = OVER[name]
    reason = check_module(build()).reason
    assert reason is not None and reason.startswith(what + ", over the limit of ")
    assert reason.endswith(" (rules §8.4)")


def _largest() -> dict[str, bytes]:
    n = LIM.functions
    signature = _functype(LIM.params, LIM.results, 0x7B)  # v128: the widest values
    light = [func_body(UNREACHABLE, ((LIM.locals, 0x7B),))]
    heavy = _dense(CALL_INDIRECT, 6, LIM.instruction_cost - (n - 7))
    return {
        # The most functions, each with the most locals.
        "functions_and_locals": _bodies(n, runs=((LIM.locals, 0x7F),)),
        # Each of them in a table, with the widest signature: a trampoline each.
        "escaped_signatures": _escaped([signature], [0] * n, light * n),
        # The whole instruction cost spent on the slowest kinds found.
        "loops": _escaped([_functype(0, 0)], [0] * 7, _dense(LOOP, 6, LIM.instruction_cost)),
        "indirect_calls": _escaped(
            [_functype(0, 0)] * 2, [0] * 7, _dense(CALL_INDIRECT, 6, LIM.instruction_cost)
        ),
        # All at once: the slowest module found within the limits.
        "everything": _escaped(
            [signature, _functype(0, 0)],
            [0] * (n - len(heavy)) + [1] * len(heavy),
            light * (n - len(heavy)) + heavy,
        ),
    }


LARGEST = _largest()


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(LARGEST))
def test_the_largest_structure_within_the_limits_compiles(name: str) -> None:
    """Shapes at the limits pass them and compile (within the backstop, by far).

    Not controllers (no exports), so the first reason after compiling says so.
    docs/decisions.md gives their compile times: under a second on an idle machine.
    """
    blob = LARGEST[name]
    assert not isinstance(read_structure(blob), str)
    reason = check_module(blob).reason
    assert reason == "missing export memory, foray_buffer, foray_init, foray_tick"


@pytest.mark.parametrize(
    ("blob", "reason"),
    [
        # A count far beyond the bytes that could hold it.
        (module_bytes(section(9, leb(5) + b"\x01")), "runs past the end of its section"),
        # A section longer than the module.
        (b"\0asm\x01\0\0\0\x0a\xff\xff\x03\x00", "runs past the end of its section"),
        # A number with too many continuation bytes.
        (module_bytes(section(3, b"\x80\x80\x80\x80\x80\x80\x01")), "an overlong LEB128 number"),
        # A 32-bit number that does not fit.
        (module_bytes(section(3, b"\xff\xff\xff\xff\x7f")), "a number wider than 32 bits"),
        # The garbage: an unknown section framing.
        (b"\0asm\x01\0\0\0\x99garbage", "runs past the end"),
    ],
)
def test_the_reader_refuses_hostile_framing(blob: bytes, reason: str) -> None:
    refused = read_structure(blob)
    assert isinstance(refused, str) and refused.startswith("invalid module: ")
    assert reason in refused


@settings(max_examples=examples(300), deadline=None)
@given(st.binary(max_size=200))
def test_the_reader_never_raises_on_random_bytes(tail: bytes) -> None:
    result = read_structure(b"\0asm\x01\0\0\0" + tail)
    assert isinstance(result, str) or result.memories is not None


# --------------------------------------------------------------------------- the whole zoo

ZOO_NAMES = sorted(
    {p.stem for p in ZOO.glob("*.wat")} | {p.stem for p in ZOO.glob("*.c")} - {"foray"}
)


@pytest.mark.parametrize("name", ZOO_NAMES + sorted(HOSTILE))
def test_every_zoo_module_plays_a_match_whose_replay_verifies(
    zoo: dict[str, bytes], name: str
) -> None:
    blob = zoo[name] if name in zoo else HOSTILE[name]
    result = hostile_match(blob, name)
    report = replays.verify_replay(result.replay)
    assert report.ok, report.detail
    assert report.ticks == result.ticks
    again = arena.match.replay_matches(result.replay, blob, controller())
    assert again.ok, again.detail


def test_a_controller_keeps_working_after_the_hostile_ones(zoo: dict[str, bytes]) -> None:
    for blob in HOSTILE.values():
        Controller(blob, LIMITS).init(INIT_MESSAGE)
    good = Controller(zoo["good"], Limits())
    assert good.init(INIT_MESSAGE) is None
    assert good.tick(struct.pack("<4i", 0, 0, 0, 0), 10) == (1, struct.pack("<3i", 7, 1, 2))


# --------------------------------------------------------------------------- proving who won


@pytest.fixture(scope="module")
def honest() -> tuple[bytes, bytes, bytes]:
    """A real match whose play depends on the seed and the view: (replay, module A, module B)."""
    a, b = arena.load_baseline("random"), arena.load_baseline("greedy-raider")
    result = arena.match.run_match(
        arena.Contestant("random", a),
        arena.Contestant("greedy-raider", b),
        seed=3,
        config=sim.Config(width=16, height=16, max_ticks=20),
    )
    return result.replay, a, b


def _edit(replay: bytes, edit: Callable[[Any, Any, Any], None]) -> bytes:
    header, *frames, result = msgpack.Unpacker(io.BytesIO(replay), raw=False)
    edit(header, frames, result)
    return pack(header, frames, result)


def test_the_honest_replay_is_proved(honest: tuple[bytes, bytes, bytes]) -> None:
    replay, a, b = honest
    assert arena.match.replay_matches(replay, a, b) == replays.VerifyReport(True, 20, None, None)


@pytest.mark.parametrize(
    ("edit", "alone"),
    [
        # A raised fuel_total with the winner flipped: the fuel tie-break stolen. Within
        # the init budget, only playing the match again shows the init charge is false.
        (lambda h, f, r: r["sides"][0].update(fuel_total=r["sides"][0]["fuel_total"] + 9), True),
        (
            lambda h, f, r: r["sides"][0].update(fuel_total=r["sides"][0]["fuel_total"] + 10**8),
            False,
        ),
        # A win cut short with a forged trap forfeit pinned on a side.
        (lambda h, f, r: _forge_trap(h, f, r), True),
        # Swapped side names and hashes.
        (lambda h, f, r: h.update(sides=h["sides"][::-1]), True),
        # An edited seed, wasmtime version, vision radius.
        (lambda h, f, r: h.update(seed=h["seed"] + 1), True),
        (lambda h, f, r: h.update(wasmtime="49.0.0"), True),
        (lambda h, f, r: h["config"].update(unit_vision=1, colony_vision=1), True),
    ],
    ids=[
        "fuel-in-slack",
        "fuel-past-init",
        "forged-trap",
        "swapped-sides",
        "seed",
        "wasmtime",
        "vision",
    ],
)
def test_what_only_the_modules_prove(
    honest: tuple[bytes, bytes, bytes], edit: Callable[[Any, Any, Any], None], alone: bool
) -> None:
    replay, a, b = honest
    tampered = _edit(replay, edit)
    assert replays.verify_replay(tampered).ok is alone
    report = arena.match.replay_matches(tampered, a, b)
    assert not report.ok and report.detail


def _forge_trap(header: Any, frames: list[Any], result: Any) -> None:
    """Cut the match at tick 10 with a trap pinned on side 0, as a forfeit frame records it."""
    cut = frames[10]
    budget = header["limits"]["fuel_per_tick"]
    b_records = [
        v
        for i in range(0, len(cut["a"][1]), 2)
        for v in (cut["a"][1][i], cut["a"][1][i + 1] >> 3, cut["a"][1][i + 1] & 7)
    ]
    frames[10:] = [{"t": 10, "a": [[], b_records], "f": [budget, cut["f"][1]], "x": frames[9]["x"]}]
    fuel = [sum(fr["f"][s] for fr in frames) for s in (0, 1)]
    for s, side in enumerate(result["sides"]):
        init = side["fuel_total"] - sum(fr["f"][s] for fr in frames)
        side.update(
            banked=frames[9]["b"][s],
            fuel_peak=max(fr["f"][s] for fr in frames),
            fuel_total=max(init, 0) + fuel[s],
        )
    result["sides"][0]["forfeit"] = {"tick": 10, "kind": "trap", "detail": "wasm trap: forged"}
    result["sides"][1]["forfeit"] = None
    result.update(winner=1, reason="forfeit", ticks=11)


RESULT_EDITS = st.one_of(
    st.tuples(st.just("winner"), st.sampled_from([0, 1, None])),
    st.tuples(st.just("reason"), st.sampled_from(sorted(sim.Reason))),
    st.tuples(
        st.sampled_from(["banked", "fuel_total", "fuel_peak"]),
        st.integers(0, 1),
        st.integers(-1000, 1000).filter(bool),
    ),
    st.tuples(
        st.just("forfeit"),
        st.integers(0, 1),
        st.integers(0, 19),
        st.sampled_from(sorted(sim.ForfeitKind)),
    ),
)
HEADER_EDITS = st.one_of(
    st.tuples(st.just("seed"), st.integers(0, 2**32 - 1)),
    st.tuples(
        st.sampled_from(["colony_hp", "start_energy", "worker_hp", "max_ticks"]),
        st.integers(1, 100),
    ),
    st.tuples(st.just("sha256"), st.integers(0, 1), st.sampled_from("0123456789abcdef")),
    st.tuples(st.just("wasmtime"), st.text(max_size=10)),
)


def _apply(edit: tuple[Any, ...], header: Any, result: Any) -> None:
    key = edit[0]
    if key in ("winner", "reason"):
        result[key] = edit[1]
    elif key in ("banked", "fuel_total", "fuel_peak"):
        side = result["sides"][edit[1]]
        side[key] = max(0, side[key] + edit[2])
    elif key == "forfeit":
        result["sides"][edit[1]]["forfeit"] = {"tick": edit[2], "kind": edit[3], "detail": "x"}
    elif key == "seed":
        header["seed"] = edit[1]
    elif key == "sha256":
        header["sides"][edit[1]]["sha256"] = edit[2] * 64
    elif key == "wasmtime":
        header["wasmtime"] = edit[1]
    else:
        header["config"][key] = edit[1]


# Playing again proves more of the header: every map edit (the map rules, then the
# keyframes' ore and units, or greedy-raider's fuel: its paths read the terrain it is
# given at init), the format version (its checksum), a name longer than a match writes
# (run_match cuts names at MAX_NAME_CHARS), and a limit below what the match used (a
# frame over fuel_per_tick or an init charge over init_fuel, which the replay alone
# shows; memory under 1 MiB, too little for these modules to start).
PROVED_EDITS = st.one_of(
    st.tuples(st.just("rock"), st.integers(0, 255), st.booleans()),
    st.tuples(
        st.just("ore"), st.integers(0, 255), st.sampled_from([-3, -2, -1, 1, 2, 3]), st.booleans()
    ),
    st.tuples(
        st.just("colonies"), st.sampled_from([(0, 1), (1, 0), (0, -1), (-1, 0), (1, 1), (2, -1)])
    ),
    st.tuples(st.just("version"), st.just(1)),
    st.tuples(
        st.just("long-name"), st.integers(0, 1), st.integers(replays.MAX_NAME_CHARS + 1, 999)
    ),
    st.tuples(
        st.just("under"),
        st.sampled_from(["fuel_per_tick", "init_fuel", "max_memory_bytes"]),
        st.floats(0, 1, exclude_max=True),
    ),
)
# What playing again cannot prove, by design (docs/replays.md): it plays the header's
# settings as recorded, so a label (a side's name within MAX_NAME_CHARS, the case) or
# a limit that decided nothing (a budget above what was used, a wall-clock bound that
# never fired) gives the very same bytes. These edits are accepted: said, not skipped.
UNPROVED_EDITS = st.one_of(
    st.tuples(st.just("name"), st.integers(0, 1), st.text(max_size=replays.MAX_NAME_CHARS)),
    st.tuples(
        st.just("case"),
        st.text("abcdefghijklmnopqrstuvwxyz0123456789-", max_size=64),
        st.integers(1, 2**31) | st.text(max_size=8),
    ),
    st.tuples(st.just("slack"), st.sampled_from(sorted(replays.LIMIT_RANGES)), st.floats(0, 1)),
)
UNPROVED = frozenset({"name", "case", "slack"})
MORE = frozenset({"rock", "ore", "colonies", "version", "long-name", "under"}) | UNPROVED
"""The keys ``_apply_more`` edits (``_apply`` edits the others)."""
SLACK_FROM = {
    "max_memory_bytes": 16 << 20,
    "tick_timeout": 5.0,
    "init_timeout": 5.0,
    "compile_timeout": 5.0,
    "compile_memory_bytes": 2**31,
}
"""Where a limit's slack starts (fuel budgets: one unit above what the match used, since a
call that spends its whole budget has run out of fuel: docs/rules.md, 8.6)."""


def _used(frames: list[Any], result: Any) -> dict[str, int]:
    """The most fuel a tick and an init took in the honest match, of either side."""
    init = [s["fuel_total"] - sum(f["f"][i] for f in frames) for i, s in enumerate(result["sides"])]
    return {"fuel_per_tick": max(s["fuel_peak"] for s in result["sides"]), "init_fuel": max(init)}


def _apply_more(edit: tuple[Any, ...], header: Any, frames: list[Any], result: Any) -> None:
    key, m = edit[0], header["map"]
    cells = m["width"] * m["height"]
    if key == "rock":
        rock = bytearray(m["rock"])
        for cell in (edit[1], cells - 1 - edit[1]) if edit[2] else (edit[1],):
            rock[cell] ^= 1  # with its mirror (the map stays point-symmetric), or alone
        m["rock"] = bytes(rock)
    elif key == "ore":
        for cell in (edit[1], cells - 1 - edit[1]) if edit[3] else (edit[1],):
            m["ore"][cell] += edit[2]
    elif key == "colonies":
        (dx, dy), ((ax, ay), (bx, by)) = edit[1], m["colonies"]
        m["colonies"] = [[ax + dx, ay + dy], [bx - dx, by - dy]]
    elif key == "version":
        header["version"] = edit[1]
    elif key in ("long-name", "name"):
        side = header["sides"][edit[1]]
        side["name"] = "n" * edit[2] if key == "long-name" else edit[2]
    elif key == "case":
        header["case"] = {"slug": edit[1], "version": edit[2]}
    elif key == "under":
        if edit[1] == "max_memory_bytes":
            low, need = 65_536, 1 << 20
        else:
            low, need = 1, _used(frames, result)[edit[1]]
        header["limits"][edit[1]] = low + int(edit[2] * (need - low))
    else:
        name, (kind, _, high) = edit[1], replays.LIMIT_RANGES[edit[1]]
        start = SLACK_FROM.get(name) or _used(frames, result)[name] + 1
        value = start + edit[2] * (high - start)
        header["limits"][name] = int(value) if kind is int else float(value)


@settings(max_examples=examples(150), deadline=None)
@given(edit=st.one_of(RESULT_EDITS, HEADER_EDITS, PROVED_EDITS, UNPROVED_EDITS))
def test_modules_refuse_every_tampered_result_and_header(
    honest: tuple[bytes, bytes, bytes], edit: tuple[Any, ...]
) -> None:
    """Every edit of the result, and of the header's settings as far as they decide the match."""
    replay, a, b = honest

    def apply(header: Any, frames: list[Any], result: Any) -> None:
        if edit[0] in MORE:
            _apply_more(edit, header, frames, result)
        else:
            _apply(edit, header, result)

    tampered = _edit(replay, apply)
    if tampered == replay:
        return  # the edit changed nothing (a value set to itself)
    report = arena.match.replay_matches(tampered, a, b)
    event(f"{edit[0]}: {'accepted' if report.ok else 'refused'}")
    if edit[0] in UNPROVED:
        # Not proved, by design: the match played again writes the edited value back.
        assert report.ok, f"{edit}: {report.detail}"
    else:
        assert not report.ok and report.detail, edit


# --------------------------------------------------------------------------- the code scan


def _code_bodies(blob: bytes) -> list[bytes]:
    """Each function body's instructions (its locals skipped), read with the host's reader."""
    from arena.sandbox._structure import _Reader, _valtype

    top, found = _Reader(blob, 8, len(blob)), []
    while top.pos < top.end:
        ident, size = top.byte(), top.uleb()
        start = top.pos
        top.skip(size)
        if ident != 10:
            continue
        code = _Reader(blob, start, top.pos)
        for _ in range(code.uleb()):
            size = code.uleb()
            body = _Reader(blob, code.pos, code.pos + size)
            code.skip(size)
            for _ in range(body.uleb()):
                body.uleb()
                _valtype(body)
            found.append(body.take(body.end - body.pos))
    return found


def test_the_scan_reads_every_instruction_the_engine_accepts(zoo: dict[str, bytes]) -> None:
    """Every body of every zoo module and baseline is read whole, instruction by instruction.

    ``every_instruction`` has one of each immediate's layout; a wrong layout would
    leave the scan out of step, stopped before its body's end.
    """
    from arena.baselines import BASELINES, load_baseline
    from arena.sandbox._opcode_cost import scan_code

    assert check_module(zoo["every_instruction"]).admissible
    modules = {**zoo, **{name: load_baseline(name) for name in BASELINES}}
    read = 0
    for name, blob in modules.items():
        for i, code in enumerate(_code_bodies(blob)):
            assert scan_code(code)[1] == len(code), f"{name}: body {i}"
            read += 1
    assert read > 50


def test_real_controllers_use_a_fraction_of_the_instruction_cost() -> None:
    """The largest baseline, as rules §8.4 says: about a tenth of the instruction cost."""
    from arena.baselines import load_baseline
    from arena.sandbox._opcode_cost import instruction_cost

    costs = [instruction_cost(code) for code in _code_bodies(load_baseline("fuel-probe"))]
    assert 0.05 < sum(costs) / LIM.instruction_cost < 0.15
    assert max(costs) < LIM.function_cost / 2


@pytest.mark.parametrize(
    ("code", "cost"),
    [
        (b"\x20\x00\x1a\x0b", 0),  # local.get, drop, end: nothing to compile
        (b"\x20\x00\x20\x00\x6a\x1a\x0b", 1),  # i32.add
        (b"\x44" + bytes(8) + b"\x9f\x1a\x0b", 3),  # f64.const, f64.sqrt (NaN-canonicalised)
        (LOOP + b"\x0b", 6),
        (b"\x02\x40\x20\x00\x0e\x02\x00\x00\x00\x0b\x0b", 15),  # br_table: 3 + 3 targets x 4
        (b"\x02\x00\x0b\x0b", 3),  # a block of a type index (multi-value)
        (I32_0 + b"\x40\x00\x1a\x0b", 32),  # memory.grow
        (I32_0 * 3 + b"\xfc\x0b\x00\x0b", 6),  # memory.fill
        (b"\xfd\x0c" + bytes(16) + b"\xfd\xe3\x01\x1a\x0b", 4),  # v128.const, f32x4.sqrt
    ],
)
def test_instructions_weigh_what_they_cost_to_compile(code: bytes, cost: int) -> None:
    from arena.sandbox._opcode_cost import scan_code

    assert scan_code(code) == (cost, len(code))


def test_the_scan_stops_at_an_opcode_the_engine_refuses() -> None:
    """Threads, exceptions, GC: the scan stops there and the compiler refuses the module."""
    from arena.sandbox._opcode_cost import scan_code

    for code in (b"\xfe\x00" + b"\x03\x40\x0b" * 100, b"\x06\x40\x0b", b"\xfb\x00\x0b"):
        cost, stopped = scan_code(code)
        assert stopped < len(code) and cost <= 2
    blob = controller(b"\xfe\x03\x00" + I32_0)  # atomic.fence: threads are off
    reason = check_module(blob).reason
    assert reason is not None and reason.startswith("invalid module: ")


def test_an_unterminated_number_is_never_read_past_its_body() -> None:
    """1,000 bodies that each end inside a LEB128 number, then 8 MB of continuation bytes:
    the scan reads each body once, never the bytes after it (that would be quadratic)."""
    import time

    body = leb(30) + b"\x00" + b"\x41" + b"\x80" * 28
    blob = module_bytes(
        section(1, vec([b"\x60\x00\x00"])),
        section(3, vec([leb(0)] * 1000)),
        section(10, vec([body] * 1000)),
        section(0, wasm_name(b"pad") + b"\x80" * (8 * 1024 * 1024 - 40_000)),
    )
    start = time.monotonic()
    assert not isinstance(read_structure(blob), str)  # left to the compiler, which refuses it
    assert time.monotonic() - start < 2.0
