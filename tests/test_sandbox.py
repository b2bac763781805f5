"""The wasm sandbox against a zoo of hostile modules (rules §8).

Every module is built from source in tests/zoo: C through ziglang, WAT through
``wasmtime.wat2wasm`` (the sandbox itself refuses text), and the compile bomb
by a generator below. After each hostile case the host must keep working.
"""

from __future__ import annotations

import hashlib
import struct
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import wasmtime

import sim
from arena.sandbox import (
    BUFFER_BYTES,
    STRUCTURAL_LIMITS,
    WASMTIME_VERSION,
    Admission,
    Controller,
    Fault,
    Limits,
    check_module,
)
from arena.sandbox._native import _load as native_call
from tests._support import BOTS, ZOO, Builder, cli, compile_bomb, require_native

INIT_MESSAGE = struct.pack("<4i", 1, 32, 32, 100)
MiB = 1024 * 1024


@pytest.fixture(params=["C", "ctypes"])
def call_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """A tick test runs on both ways ``Controller.tick`` makes its call: from C
    (arena.sandbox._native) and through ctypes, which must give the same results."""
    if request.param == "ctypes":
        monkeypatch.setattr(native_call.load, "_loaded", [None])
    else:
        require_native(native_call.load() is not None)
    path: str = request.param
    return path


def started(blob: bytes, limits: Limits | None = None) -> Controller:
    controller = Controller(blob, limits or Limits())
    assert controller.init(INIT_MESSAGE) is None
    return controller


@pytest.fixture
def healthy(zoo: dict[str, bytes]) -> Iterator[None]:
    """After the test, a good controller must still work in this process."""
    yield
    controller = started(zoo["good"])
    assert controller.tick(struct.pack("<4i", 0, 0, 0, 0), 10) == (
        1,
        struct.pack("<3i", 7, 1, 2),
    )


def fault_of(blob: bytes, limits: Limits | None = None, word0: int = 0) -> Fault:
    controller = started(blob, limits)
    result = controller.tick(struct.pack("<4i", word0, 0, 0, 0), 10)
    assert isinstance(result, Fault), result
    # A call that trapped, ran out of fuel or hit the backstop is charged the whole
    # tick; one that returned (over the memory cap) is charged what it used.
    trapped = result.kind != sim.ForfeitKind.MEMORY or "the call ended with" in result.detail
    budget = controller.limits.fuel_per_tick
    assert (controller.last_fuel == budget) == trapped, (result, controller.last_fuel)
    with pytest.raises(RuntimeError):
        controller.tick(b"", 10)
    return result


# ---- limits ---------------------------------------------------------------


def test_limits_defaults_follow_the_spec() -> None:
    limits = Limits()
    assert (limits.fuel_per_tick, limits.init_fuel) == (5_000_000, 50_000_000)
    assert limits.max_memory_bytes == 64 * MiB
    assert (limits.tick_timeout, limits.init_timeout) == (2.0, 10.0)


@pytest.mark.parametrize(
    "field, value",
    [
        ("fuel_per_tick", 0),
        ("fuel_per_tick", True),
        ("init_fuel", -1),
        ("max_memory_bytes", 1000),
        ("tick_timeout", 0.0),
        ("init_timeout", float("nan")),
        ("compile_timeout", -2.0),
        ("compile_memory_bytes", 1),
    ],
)
def test_limits_reject_out_of_bounds(field: str, value: object) -> None:
    with pytest.raises(ValueError, match=field):
        Limits(**{field: value})  # type: ignore[arg-type]


def test_wasmtime_version_is_pinned() -> None:
    assert WASMTIME_VERSION == "50.0.1"


# ---- admissibility ----------------------------------------------------------


def test_good_module_is_admissible(zoo: dict[str, bytes]) -> None:
    admission = check_module(zoo["good"])
    assert admission == Admission(True, admission.sha256, None)
    assert len(admission.sha256) == 64


def test_start_function_is_not_run_by_check(zoo: dict[str, bytes]) -> None:
    # Admissibility does not run guest code; the spin is an init fault later.
    assert check_module(zoo["start_spin"]).admissible


@pytest.mark.parametrize(
    "name, reason",
    [
        ("imports", "import env.foo is not allowed"),
        ("missing_tick", "missing export foray_tick"),
        ("mistyped_tick", "export foray_tick has type (i32) -> i64, expected (i32) -> i32"),
        ("v128_tick", "export foray_tick has type (v128) -> (), expected (i32) -> i32"),
        ("v128_buffer", "export foray_buffer has type () -> v128, expected () -> i32"),
        ("v128_note", "export foray_note has type () -> v128, expected () -> i32"),
        ("memory_not_memory", "export memory is not a memory"),
        ("two_memories", "2 memories, over the limit of 1 (rules §8.4)"),
        ("big_initial_memory", "initial memory 67174400 bytes is over max_memory_bytes"),
        ("data_outside", "data segment 0 writes 10 bytes at offset 65530, past the end of"),
        ("elem_outside", "element segment 0 writes 3 entries at offset 1, past the end of"),
    ],
)
def test_inadmissible_modules(zoo: dict[str, bytes], name: str, reason: str) -> None:
    admission = check_module(zoo[name])
    assert not admission.admissible
    assert admission.reason is not None and reason in admission.reason


def test_text_format_garbage_and_oversize_are_refused() -> None:
    wat = (ZOO / "idle.wat").read_bytes()
    assert wasmtime.wat2wasm(wat.decode())  # valid text, still refused
    reason = check_module(wat).reason
    assert reason is not None and "text format is refused" in reason
    reason = check_module(b"\x7fELF\x02\x01\x01" + bytes(100)).reason
    assert reason is not None and "bad magic" in reason
    reason = check_module(b"\0asm\x01\0\0\0\x99garbage").reason
    assert reason is not None and reason.startswith("invalid module")
    reason = check_module(b"\0asm\x0d\0\x01\0").reason
    assert reason is not None and "not a core" in reason
    reason = check_module(b"\0asm\x01\0\0\0" + bytes(8 * MiB)).reason
    assert reason is not None and "8 MiB" in reason


def test_compile_bomb_is_refused_before_compiling(healthy: None) -> None:
    admission = check_module(compile_bomb())
    limit = STRUCTURAL_LIMITS.function_bytes
    assert admission.reason == (
        f"89,495 bytes in one function body, over the limit of {limit:,} (rules §8.4)"
    )


def test_the_compile_backstop_is_a_timeout(zoo: dict[str, bytes], healthy: None) -> None:
    """A compile the wall clock cut short is kind timeout, and arena check says so."""
    blob = zoo["idle"] + b"\0\x02\x01t"  # a fresh sha (a custom section): not cached
    limits = Limits(compile_timeout=0.01)  # starting the compiler alone takes longer
    reason = check_module(blob, limits).reason
    assert reason == (
        "compile exceeded the 0.01 s backstop (a wall-clock verdict: a match records it"
        " as kind timeout)"
    )
    fault = Controller(blob, limits).init(INIT_MESSAGE)
    assert fault == Fault(
        sim.ForfeitKind.TIMEOUT, "module not admissible: compile exceeded the 0.01 s backstop"
    )


@pytest.mark.slow
def test_the_compile_bounds_hold_against_a_bomb(healthy: None) -> None:
    """The backstops behind the structural limits, on a bomb the limits would refuse."""
    from arena.sandbox import _engine

    start = time.monotonic()
    reason = _engine._compile_out_of_process(compile_bomb(), Limits(compile_timeout=1.0))
    assert reason == "compile exceeded the 1 s backstop"
    assert isinstance(reason, _engine.CompileTimeout)
    assert time.monotonic() - start < 5.0
    limits = Limits(compile_timeout=60.0, compile_memory_bytes=256 * MiB)
    reason = _engine._compile_out_of_process(compile_bomb(), limits)
    assert isinstance(reason, str) and reason.startswith("compile exceeded memory bound")


def test_disk_cache(zoo: dict[str, bytes], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.sandbox import _engine

    monkeypatch.setenv("FORAY_CACHE_DIR", str(tmp_path))
    blob = zoo["idle"] + b"\0\x02\x01x"  # a fresh sha: a custom section
    assert check_module(blob).admissible
    (artifact,) = tmp_path.glob("*.cwasm")
    assert WASMTIME_VERSION in artifact.name
    _engine.forget_module(artifact.name[:64])  # force a load from disk
    assert started(blob).tick(b"", 0) == (0, b"")
    # A damaged entry is dropped and recompiled, not trusted or fatal.
    artifact.write_bytes(b"junk")
    _engine.forget_module(artifact.name[:64])
    assert started(blob).tick(b"", 0) == (0, b"")
    assert artifact.read_bytes() != b"junk"


# ---- init faults ------------------------------------------------------------


@pytest.mark.parametrize(
    "name, detail",
    [
        ("start_spin", "the start function ran out of init_fuel"),
        ("start_trap", "the start function trapped: wasm trap: wasm `unreachable`"),
        ("data_outside", "module not admissible: data segment 0 writes 10 bytes at offset"),
        ("elem_outside", "module not admissible: element segment 0 writes 3 entries at"),
        ("init_spin", "foray_init ran out of init_fuel"),
        ("init_nonzero", "foray_init returned 3, expected 0"),
        ("init_grow", "memory is 72155136 bytes after foray_init, over max_memory_bytes"),
        ("buffer_outside", "foray_buffer returned 0x64: the 65536-byte buffer does not lie"),
        ("buffer_negative", "foray_buffer returned 0xfffffff0"),
        ("big_initial_memory", "initial memory 67174400 bytes is over max_memory_bytes"),
        ("missing_tick", "missing export foray_tick"),
        ("imports", "import env.foo is not allowed"),
        ("v128_note", "module not admissible: export foray_note has type () -> v128"),
    ],
)
def test_init_faults(zoo: dict[str, bytes], healthy: None, name: str, detail: str) -> None:
    limits = Limits(init_fuel=20_000_000)
    controller = Controller(zoo[name], limits)
    fault = controller.init(INIT_MESSAGE)
    assert fault is not None and fault.kind == "init"
    assert detail in fault.detail
    assert controller.fuel_total == limits.init_fuel  # charged the whole budget
    with pytest.raises(RuntimeError):
        controller.tick(b"", 10)


def test_init_garbage_is_an_init_fault() -> None:
    fault = Controller(b"not wasm", Limits()).init(INIT_MESSAGE)
    assert fault is not None and fault.kind == "init" and "bad magic" in fault.detail


def test_init_backstop(zoo: dict[str, bytes], healthy: None) -> None:
    limits = Limits(init_fuel=10**13, init_timeout=0.05)
    start = time.monotonic()
    fault = Controller(zoo["init_spin"], limits).init(INIT_MESSAGE)
    assert time.monotonic() - start < 2.0
    assert fault == Fault(sim.ForfeitKind.TIMEOUT, "init exceeded the 0.05 s wall-clock backstop")


# ---- tick faults ------------------------------------------------------------


@pytest.mark.usefixtures("call_path")
def test_fuel_loop(zoo: dict[str, bytes], healthy: None) -> None:
    assert fault_of(zoo["spin"]) == Fault(
        sim.ForfeitKind.FUEL, "tick ran out of fuel_per_tick (5000000)"
    )


@pytest.mark.usefixtures("call_path")
def test_bulk_memory_loop_costs_fuel(zoo: dict[str, bytes], healthy: None) -> None:
    assert fault_of(zoo["bulk_loop"]).kind == "fuel"


@pytest.mark.usefixtures("call_path")
@pytest.mark.parametrize(
    "name, detail",
    [
        ("unreachable", "wasm `unreachable` instruction executed"),
        ("recurse", "call stack exhausted"),
        ("oob", "out of bounds memory access"),
        ("divzero", "integer divide by zero"),
    ],
)
def test_traps(zoo: dict[str, bytes], healthy: None, name: str, detail: str) -> None:
    fault = fault_of(zoo[name])
    assert fault.kind == "trap"
    assert detail in fault.detail


@pytest.mark.usefixtures("call_path")
def test_trap_is_charged_the_whole_tick(zoo: dict[str, bytes]) -> None:
    controller = started(zoo["unreachable"])
    init_fuel = controller.fuel_total
    assert isinstance(controller.tick(b"", 10), Fault)
    assert controller.last_fuel == controller.fuel_peak == 5_000_000
    assert controller.fuel_total == init_fuel + 5_000_000


@pytest.mark.usefixtures("call_path")
def test_memory_growth_past_the_cap(zoo: dict[str, bytes], healthy: None) -> None:
    fault = fault_of(zoo["grow"], word0=1024)
    assert fault.kind == "memory"
    assert "over max_memory_bytes 67108864" in fault.detail


@pytest.mark.usefixtures("call_path")
@pytest.mark.parametrize("name", ["grow_then_trap", "grow_then_spin"])
def test_memory_takes_precedence(zoo: dict[str, bytes], healthy: None, name: str) -> None:
    fault = fault_of(zoo[name], word0=1024)
    assert fault.kind == "memory"


@pytest.mark.usefixtures("call_path")
def test_grow_past_the_hard_limit_returns_minus_one(zoo: dict[str, bytes]) -> None:
    controller = started(zoo["grow"])
    # The hard limit is 2 x 64 MiB = 2048 pages: a single grow past it fails.
    result = controller.tick(struct.pack("<i", 2048), 10)
    assert result == (1, struct.pack("<3i", -1, 0, 0))
    # A grow within the cap is fine and reports the old size in pages.
    n, raw = controller.tick(struct.pack("<i", 1), 10)  # type: ignore[misc]
    assert n == 1 and struct.unpack("<3i", raw)[0] > 0


@pytest.mark.usefixtures("call_path")
def test_the_memory_size_is_read_after_every_call(zoo: dict[str, bytes]) -> None:
    """``last_memory``: the size the cap judges, after init, after each tick's call, and
    after the call that broke the cap (what the replay records, rules §8.5)."""
    page = 65_536
    controller = started(zoo["grow"])
    start = controller.last_memory
    assert start > 0 and start % page == 0
    sizes = []
    for pages in (0, 3, 0, 2):
        reply = controller.tick(struct.pack("<i", pages), 10)
        assert not isinstance(reply, Fault) and reply[0] == 1
        sizes.append(controller.last_memory)
    assert sizes == [start, start + 3 * page, start + 3 * page, start + 5 * page]
    over = 1024 - sizes[-1] // page + 1  # a page past the 64 MiB cap
    fault = controller.tick(struct.pack("<i", over), 10)
    assert isinstance(fault, Fault) and fault.kind == sim.ForfeitKind.MEMORY
    assert controller.last_memory == 64 * MiB + page
    assert f"memory is {64 * MiB + page} bytes" in fault.detail
    # A call that grows and then traps: the size where it ended, as the cap judges it.
    trapped = started(zoo["grow_then_trap"])
    assert isinstance(trapped.tick(struct.pack("<i", 3), 10), Fault)
    assert trapped.last_memory == 4 * page


@pytest.mark.usefixtures("call_path")
def test_table_growth_is_capped_without_forfeit(zoo: dict[str, bytes]) -> None:
    controller = started(zoo["table_grow"])
    grow = [struct.pack("<3i", k, 0, 0) for k in (20_000, 9_999, 1)]
    assert controller.tick(grow[0], 10) == (1, struct.pack("<3i", -1, 1, 0))
    assert controller.tick(grow[1], 10) == (1, struct.pack("<3i", 1, 10_000, 0))
    assert controller.tick(grow[2], 10) == (1, struct.pack("<3i", -1, 10_000, 0))


@pytest.mark.usefixtures("call_path")
def test_tick_backstop(zoo: dict[str, bytes], healthy: None) -> None:
    limits = Limits(tick_timeout=0.05, fuel_per_tick=10**12)
    controller = started(zoo["spin_forever"], limits)
    start = time.monotonic()
    fault = controller.tick(b"", 10)
    elapsed = time.monotonic() - start
    assert fault == Fault(sim.ForfeitKind.TIMEOUT, "tick exceeded the 0.05 s wall-clock backstop")
    assert 0.04 <= elapsed < 2.0


# ---- well-behaved modules ----------------------------------------------------


@pytest.mark.usefixtures("call_path")
def test_good_tick_and_bad_n(zoo: dict[str, bytes]) -> None:
    controller = started(zoo["good"])
    assert controller.tick(struct.pack("<3i", 0, 0, 0), 1) == (1, struct.pack("<3i", 7, 1, 2))
    # The buffer is not cleared: the records past the message are old bytes.
    expected = struct.pack("<9i", 1, 3, 2, 100, 0, 0, 0, 0, 0)
    assert controller.tick(struct.pack("<2i", 1, 3), 3) == (3, expected)
    assert controller.tick(struct.pack("<2i", 1, 4), 3) == (4, b"")
    assert controller.tick(struct.pack("<2i", 1, -1), 3) == (-1, b"")
    assert controller.tick(struct.pack("<2i", 1, 6000), 10_000) == (6000, b"")  # past the buffer
    assert controller.tick(struct.pack("<2i", 1, 0), 3) == (0, b"")


@pytest.mark.usefixtures("call_path")
def test_message_is_written_without_clearing(zoo: dict[str, bytes]) -> None:
    controller = started(zoo["good"])
    controller.tick(struct.pack("<2i", 1, 2) + bytes(16), 5)
    # A 4-byte message: the bytes after it keep what the last tick left.
    n, raw = controller.tick(struct.pack("<i", 1), 5)  # type: ignore[misc]
    assert n == 2 and raw == struct.pack("<6i", 1, 2, 0, 0, 0, 0)
    with pytest.raises(ValueError):
        controller.tick(bytes(BUFFER_BYTES + 1), 5)


@pytest.mark.usefixtures("call_path")
def test_fuel_accounting(zoo: dict[str, bytes]) -> None:
    controller = started(zoo["good"])
    init_fuel = controller.fuel_total
    assert 0 < init_fuel < controller.limits.init_fuel
    assert (controller.last_fuel, controller.fuel_peak) == (0, 0)
    short = controller.tick(bytes(16), 5)
    assert short == (1, struct.pack("<3i", 7, 1, 2))
    short_fuel = controller.last_fuel
    controller.tick(bytes(4000), 5)
    long_fuel = controller.last_fuel
    controller.tick(bytes(16), 5)
    assert controller.last_fuel == short_fuel  # same message, same fuel
    assert 0 < short_fuel < long_fuel
    assert controller.fuel_peak == long_fuel
    assert controller.fuel_total == init_fuel + 2 * short_fuel + long_fuel


@pytest.mark.usefixtures("call_path")
def test_a_call_that_spends_its_whole_budget_runs_out_of_fuel(zoo: dict[str, bytes]) -> None:
    """wasmtime checks fuel at function entries and loop headers, and its reading stops at 0:
    a call that spends every unit of its budget (docs/rules.md, 8.6) runs out of fuel, whether
    at a check or past the last one, and is charged its whole budget; one unit more returns."""

    def tick(budget: int) -> tuple[Fault | tuple[int, bytes], int, int]:
        controller = started(zoo["good"], Limits(fuel_per_tick=budget))
        end = controller.tick(bytes(16), 5)
        return end, controller.last_fuel, controller.fuel_peak

    _, cost, _ = tick(Limits().fuel_per_tick)
    end, charged, peak = tick(cost + 1)
    assert end == (1, struct.pack("<3i", 7, 1, 2)) and charged == peak == cost
    for budget in range(cost, max(cost - 120, 0), -1):  # the last check passed, and before it
        end, charged, peak = tick(budget)
        assert isinstance(end, Fault) and end.kind is sim.ForfeitKind.FUEL, budget
        assert end.detail == f"tick ran out of fuel_per_tick ({budget})"
        assert charged == peak == budget


@pytest.mark.usefixtures("call_path")
def test_an_init_that_spends_its_whole_init_fuel_runs_out(zoo: dict[str, bytes]) -> None:
    """The same for the init phase: returning with no init_fuel left is running out of it."""
    cost = started(zoo["good"]).fuel_total
    assert started(zoo["good"], Limits(init_fuel=cost + 1)).fuel_total == cost
    for budget in (cost, cost - 1):
        controller = Controller(zoo["good"], Limits(init_fuel=budget))
        fault = controller.init(INIT_MESSAGE)
        assert fault is not None and fault.kind is sim.ForfeitKind.INIT, budget
        assert "ran out of init_fuel" in fault.detail
        assert controller.fuel_total == budget


@pytest.mark.usefixtures("call_path")
def test_fuel_is_deterministic_across_instances(zoo: dict[str, bytes]) -> None:
    def run() -> list[int]:
        controller = started(zoo["good"])
        fuels = [controller.fuel_total]
        for size in (16, 400, 4000, 16):
            controller.tick(bytes(size), 5)
            fuels.append(controller.last_fuel)
        return fuels

    assert run() == run()


@pytest.mark.usefixtures("call_path")
def test_init_is_called_once(zoo: dict[str, bytes]) -> None:
    controller = started(zoo["idle"])
    with pytest.raises(RuntimeError):
        controller.init(INIT_MESSAGE)
    with pytest.raises(RuntimeError):
        Controller(zoo["idle"], Limits()).tick(b"", 1)


# ---- what an author is told ---------------------------------------------------


@pytest.mark.usefixtures("call_path")
def test_a_stack_overflow_has_no_offset_to_show(zoo: dict[str, bytes]) -> None:
    """wasmtime knows no offset for a stack overflow (it says SIZE_MAX): said, not printed."""
    fault = fault_of(zoo["recurse"])
    assert fault.detail == (
        "wasm trap: call stack exhausted (in function 2, at an unknown module offset)"
    )


def test_every_export_problem_is_named_at_once() -> None:
    wat = """(module (memory 1)
      (func (export "foray_buffer") (result i64) (i64.const 0))
      (func (export "foray_tick") (param i32) (result i32) (i32.const 0))
      (global (export "foray_note") i32 (i32.const 0)))"""
    reason = check_module(bytes(wasmtime.wat2wasm(wat))).reason
    assert reason == (
        "missing export memory, foray_init; export foray_buffer has type () -> i64,"
        " expected () -> i32; export foray_note is not a function"
    )


def test_every_value_type_a_signature_may_hold_is_named() -> None:
    """Named without asking wasmtime a type's kind (it aborts the process on a v128),
    and externref is not wasmtime-py's "anyref"; v128 globals in place of exports too."""
    wat = """(module
      (global (export "memory") v128 (v128.const i64x2 0 0))
      (func (export "foray_buffer") (param i64 f32 f64 v128 funcref) (result f64 v128)
        (f64.const 0) (v128.const i64x2 0 0))
      (global (export "foray_init") v128 (v128.const i64x2 0 0))
      (func (export "foray_tick") (result funcref) (ref.null func)))"""
    reason = check_module(bytes(wasmtime.wat2wasm(wat))).reason
    assert reason == (
        "export memory is not a memory; export foray_buffer has type"
        " (i64, f32, f64, v128, funcref) -> f64, v128, expected () -> i32;"
        " export foray_init is not a function;"
        " export foray_tick has type () -> funcref, expected (i32) -> i32"
    )


def test_imports_are_named_with_what_to_do() -> None:
    wat = """(module
      (import "env" "a" (func))
      (import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32 i32) (result i32)))
      (import "env" "m" (memory 1))
      (import "env" "t" (table 1 funcref))
      (import "env" "g" (global i32)))"""
    reason = check_module(bytes(wasmtime.wat2wasm(wat))).reason
    assert reason == (
        "5 imports are not allowed (env.a, wasi_snapshot_preview1.fd_write, env.m and 2 more):"
        " a controller may import nothing; WASI imports come from a standard library: in Rust,"
        " build for wasm32-unknown-unknown with no std I/O; in Go, tinygo -target=wasm-unknown;"
        " in C, zig cc -target wasm32-freestanding -nostdlib (see docs/controllers.md)"
    )


TOOLCHAIN_FIXES = {
    "imports_assemblyscript": (
        "3 imports are not allowed (env.abort, env.trace, env.seed): a controller may import"
        " nothing; in AssemblyScript, build with asc --runtime stub --use abort=, and call"
        " neither trace(), Math.random() (env.seed: seed a generator from INIT's seed) nor Date"
    ),
    "imports_emscripten": (
        "5 imports are not allowed (wasi_snapshot_preview1.fd_write,"
        " wasi_snapshot_preview1.fd_close, env.exit and 2 more): a controller may import"
        " nothing; with Emscripten, build a standalone module (emcc --no-entry"
        " -sSTANDALONE_WASM, without -sALLOW_MEMORY_GROWTH), and call no printf, time or file"
        " function"
    ),
    "imports_rust_wasi": (
        "4 imports are not allowed (wasi_snapshot_preview1.fd_write,"
        " wasi_snapshot_preview1.environ_get, wasi_snapshot_preview1.environ_sizes_get and 1"
        " more): a controller may import nothing; in Rust, build with cargo build --release"
        " --target wasm32-unknown-unknown (not wasm32-wasip1), without wasm-bindgen, and use"
        " no std I/O (println!, std::fs, std::time)"
    ),
    "imports_wasm_bindgen": "a controller may import nothing; in Rust, build with cargo build",
    "imports_tinygo_js": (
        "3 imports are not allowed (wasi_snapshot_preview1.fd_write, gojs.runtime.ticks,"
        " gojs.runtime.sleepTicks): a controller may import nothing; in Go, build with TinyGo:"
        " tinygo build -target=wasm-unknown -scheduler=none -gc=leaking -panic=trap -no-debug,"
        " and use no fmt, os or time"
    ),
    "imports_c_wasi": (
        "a controller may import nothing; in C, build with zig cc -target wasm32-freestanding"
        " -nostdlib -Wl,--no-entry, and call no libc function"
    ),
    "imports_wasi_stripped": (
        "a controller may import nothing; WASI imports come from a standard library: in Rust,"
        " build for wasm32-unknown-unknown with no std I/O; in Go, tinygo -target=wasm-unknown;"
        " in C, zig cc -target wasm32-freestanding -nostdlib"
    ),
    "imports": (
        "import env.foo is not allowed: a controller may import nothing; a function the module"
        " calls but does not define becomes an import (a libc or WASI call, an undefined"
        " extern); in C, build with zig cc -target wasm32-freestanding -nostdlib -Wl,--no-entry"
    ),
}
"""Zoo modules with a toolchain's usual imports, and the fix each refusal must give."""


@pytest.mark.parametrize("name", sorted(TOOLCHAIN_FIXES))
def test_each_toolchains_imports_get_its_own_fix(zoo: dict[str, bytes], name: str) -> None:
    reason = check_module(zoo[name]).reason
    assert reason is not None and reason.endswith(" (see docs/controllers.md)")
    assert TOOLCHAIN_FIXES[name] in reason


PRINTF_C = """#include <stdio.h>
__attribute__((export_name("foray_tick"))) int foray_tick(int n) { return printf("%d", n); }
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    ("strip", "fix"),
    [
        ((), TOOLCHAIN_FIXES["imports_c_wasi"]),
        (("-Wl,--strip-all",), TOOLCHAIN_FIXES["imports_wasi_stripped"]),
    ],
    ids=["producers", "stripped"],
)
def test_c_built_for_wasi_by_zig_cc_gets_the_c_fix(
    tmp_path: Path, strip: tuple[str, ...], fix: str
) -> None:
    """A real module: C that calls printf, built with zig cc for wasm32-wasi (its first
    build compiles wasi-libc). clang's producers section says C; stripped, nothing does."""
    import subprocess
    import sys

    source, out = tmp_path / "bot.c", tmp_path / "bot.wasm"
    source.write_text(PRINTF_C)
    target = ["-target", "wasm32-wasi", "-O2", "-Wl,--no-entry", *strip]
    cmd = [sys.executable, "-m", "ziglang", "cc", *target, "-o", str(out), str(source)]
    subprocess.run(cmd, check=True, capture_output=True, timeout=600)
    reason = check_module(out.read_bytes()).reason
    assert reason is not None and "imports are not allowed (wasi_snapshot_preview1." in reason
    assert fix in reason


@pytest.mark.parametrize(
    "name", ["imports", "imports_assemblyscript", "imports_emscripten", "imports_tinygo_js"]
)
def test_the_check_after_compiling_gives_the_same_fix(zoo: dict[str, bytes], name: str) -> None:
    """Imports are refused before compiling; the compiled module's check, behind it, says
    the same where the names alone tell the toolchain (it has no producers section)."""
    from arena.sandbox._admission import structure_reason
    from arena.sandbox._engine import load_module
    from arena.sandbox._structure import read_structure

    blob = zoo[name]
    compiled = load_module(blob, hashlib.sha256(blob).hexdigest(), Limits())
    assert not isinstance(compiled, str), compiled
    assert structure_reason(compiled, Limits()) == read_structure(blob)


@pytest.mark.parametrize(
    ("blob", "start"),
    [
        (b"", "not a WebAssembly binary (bad magic bytes; it is only 0 bytes: "),
        (b"\x7fELF\x02\x01\x01", "not a WebAssembly binary (bad magic bytes; it is only 7 bytes: "),
        (b"\0asm", "not a whole WebAssembly module (its 8-byte header is cut short; it is only 4"),
    ],
)
def test_a_tiny_file_that_is_no_module_gets_the_build_hint(blob: bytes, start: str) -> None:
    reason = check_module(blob).reason
    assert reason is not None and reason.startswith(start)
    assert "did the build write the module and keep your exports?" in reason
    assert "-rdynamic" in reason


def test_a_large_file_that_is_no_module_gets_no_hint() -> None:
    assert check_module(b"\x7fELF" + bytes(300)).reason == (
        "not a WebAssembly binary (bad magic bytes)"
    )


def test_arena_check_gives_the_hint_for_an_empty_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    empty = tmp_path / "bot.wasm"
    empty.write_bytes(b"")
    out = cli(capsys, "check", str(empty))
    assert out.code == 1
    assert "only 0 bytes: did the build write the module and keep your exports?" in out.out


NOTES = BOTS / "notes.c"


@pytest.mark.parametrize(
    ("mode", "limits", "kind", "detail"),
    [
        (5, Limits(), "fuel", "foray_note ran out of fuel_per_tick (5000000)"),
        (4, Limits(), "trap", "foray_note trapped: wasm trap: wasm `unreachable` instruction"),
        (
            5,
            Limits(fuel_per_tick=10**12, tick_timeout=0.05),
            "timeout",
            "foray_note exceeded the tick's 0.05 s wall-clock backstop",
        ),
    ],
)
def test_a_fault_in_foray_note_says_so(
    build_c: Builder, idle: bytes, mode: int, limits: Limits, kind: str, detail: str
) -> None:
    import arena

    result = arena.match.run_match(
        arena.Contestant("notes", build_c(NOTES, f"NOTE={mode}")),
        arena.Contestant("idle", idle),
        config=sim.Config(max_ticks=3),
        limits=limits,
    )
    forfeit = result.sides[0].forfeit
    assert forfeit is not None and (forfeit.tick, forfeit.kind) == (0, kind)
    assert forfeit.detail.startswith(detail)
