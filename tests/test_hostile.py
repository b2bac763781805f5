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
from hypothesis import given, settings
from hypothesis import strategies as st

import arena
import replays
import sim
from arena.sandbox import STRUCTURAL_LIMITS, Controller, Limits, check_module
from arena.sandbox._structure import read_structure
from tests._support import (
    I32_0,
    UNREACHABLE,
    ZOO,
    controller,
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
    return arena.run_match(
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
    assert arena.replay_matches(result.replay, HOSTILE[name], controller()).ok


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
    assert reason == "import env." + "y" * 63 + "… is not allowed (modules may have no imports)"


def test_every_string_a_replay_holds_is_bounded() -> None:
    long_name = "n" * 10_000 + "\udcff"
    result = arena.run_match(
        arena.Contestant(long_name, HOSTILE["mangled_start"]),
        arena.Contestant("idle", controller()),
        config=CONFIG,
    )
    header = replays.read_replay(result.replay).header
    assert header.sides[0].name == "n" * 127 + "…" == result.sides[0].name
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


LIM = STRUCTURAL_LIMITS
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
}


@pytest.mark.parametrize("name", sorted(OVER))
def test_structure_over_a_limit_is_refused_before_compiling(name: str) -> None:
    build, what = OVER[name]
    reason = check_module(build()).reason
    assert reason is not None and reason.startswith(what + ", over the limit of ")
    assert reason.endswith(" (rules §8.4)")


def test_the_largest_structure_within_the_limits_compiles() -> None:
    """The most functions, each with the most locals, passes the limits and compiles.

    Not a controller (no exports), so the first reason after compiling says so.
    docs/decisions.md gives the compile times of such modules.
    """
    blob = _bodies(LIM.functions, runs=((LIM.locals, 0x7F),))
    assert not isinstance(read_structure(blob), str)
    assert check_module(blob).reason == "missing export memory"


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


@settings(max_examples=300, deadline=None)
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
    again = arena.replay_matches(result.replay, blob, controller())
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
    result = arena.run_match(
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
    assert arena.replay_matches(replay, a, b) == replays.VerifyReport(True, 20, None, None)


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
    report = arena.replay_matches(tampered, a, b)
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


@settings(max_examples=60, deadline=None)
@given(edit=st.one_of(RESULT_EDITS, HEADER_EDITS))
def test_modules_refuse_every_tampered_result_and_header(
    honest: tuple[bytes, bytes, bytes], edit: tuple[Any, ...]
) -> None:
    replay, a, b = honest
    tampered = _edit(replay, lambda h, f, r: _apply(edit, h, r))
    if tampered == replay:
        return  # the edit changed nothing (a value set to itself)
    assert not arena.replay_matches(tampered, a, b).ok
