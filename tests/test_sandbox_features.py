"""The engine's determinism and safety settings (rules §8), each shown by a module.

Threads, shared memory, memory64 and relaxed SIMD are off, so modules that use
them are not admissible; floats are NaN-canonicalised, so a NaN's bits do not
depend on the host's processor.
"""

from __future__ import annotations

import struct

import pytest
import wasmtime

from arena.sandbox import Controller, Limits, check_module
from arena.sandbox._structure import read_structure
from tests._support import func_body, leb, module_bytes, section, vec

# The contract's exports around a tick body that leaves one i32 on the stack.
SKELETON = """
(module
  {memory}
  (func (export "foray_buffer") (result i32) (i32.const 0))
  (func (export "foray_init") (param i32) (result i32) (i32.const 0))
  (func (export "foray_tick") (param i32) (result i32) {body})
  {extra})
"""


def module(body: str, memory: str = '(memory (export "memory") 2)', extra: str = "") -> bytes:
    wat = SKELETON.format(memory=memory, body=body, extra=extra)
    return bytes(wasmtime.wat2wasm(wat))


def tick_result(blob: bytes) -> int:
    controller = Controller(blob, Limits())
    assert controller.init(struct.pack("<4i", 1, 32, 32, 100)) is None
    reply = controller.tick(b"", 0)
    assert isinstance(reply, tuple), reply
    return reply[0]


RELAXED = "(i32x4.extract_lane 0 (i32x4.relaxed_trunc_f32x4_s (v128.const i32x4 0 0 0 0)))"
ZERO = "(i32.const 0)"
GC_TYPES = "externref or a GC reference type (anyref, ...) needs garbage collection (GC)"


def _in_code(code: bytes) -> bytes:
    """A module whose one function of type () -> () runs ``code`` (bytes the text format
    cannot write)."""
    types = section(1, vec([b"\x60\x00\x00"]))
    return module_bytes(types, section(3, vec([leb(0)])), section(10, vec([func_body(code)])))


@pytest.mark.parametrize(
    ("blob", "lead", "words"),
    [
        (
            module(ZERO, memory='(memory (export "memory") 2 2 shared)'),
            "it uses threads (shared memory and atomics)",
            "threads must be enabled for shared memories",
        ),
        (
            module(ZERO, memory='(memory (export "memory") i64 2)'),
            "it uses memory64",
            "memory64 must be enabled for 64-bit memories",
        ),
        (
            module(ZERO, extra="(table i64 1 funcref)"),
            "it uses memory64",
            "memory64 must be enabled for 64-bit tables",
        ),
        (
            module("(i32.atomic.load (i32.const 0))"),
            "it uses threads (shared memory and atomics)",
            "threads support is not enabled",
        ),
        (module(RELAXED), "it uses relaxed SIMD", "relaxed SIMD support is not enabled"),
        (
            module("(ref.is_null (ref.null extern))"),
            GC_TYPES,
            "gc types are disallowed but found type which requires gc",
        ),
        (
            module(ZERO, extra="(type (struct (field i32)))"),
            "it uses garbage collection (GC)",
            "struct indexed types not supported without the gc feature",
        ),
        (
            module(ZERO, extra="(type $t (func)) (func (param (ref null $t)))"),
            "it uses typed function references",
            "function references required for index reference types",
        ),
        (
            module("try (result i32) i32.const 0 catch_all i32.const 1 end"),
            "a legacy exception instruction (try, catch, rethrow or delegate) needs exception"
            " handling",
            "legacy_exceptions feature required for try instruction",
        ),
        (
            module("(block $l (try_table (catch_all $l))) (i32.const 0)"),
            "it uses exception handling",
            "exceptions support is not enabled",
        ),
        (module(ZERO, extra="(tag)"), "it uses exception handling", "exceptions proposal"),
        (
            module("(ref.is_null (ref.null exn))"),
            "it uses exception handling",
            "exception refs not supported without the exception handling feature",
        ),
        (
            _in_code(b"\xd0\x62\x00\x1a"),  # ref.null (exact 0), drop
            "it uses custom descriptors (a GC extension)",
            "custom descriptors required for exact reference types",
        ),
        (
            _in_code(b"\xd0\x65\x6e\x1a"),  # ref.null (shared any), drop
            "it uses shared-everything threads",
            "shared reference types require the shared-everything-threads proposal",
        ),
        (
            module(ZERO, extra="(type $f (func)) (type (cont $f))"),
            "it uses stack switching",
            "cannot define continuation types when stack switching is disabled",
        ),
        (
            module(ZERO, memory='(memory (export "memory") 2 (pagesize 1))'),
            "it uses custom page sizes",
            "the custom page sizes proposal must be enabled",
        ),
        (
            module(
                ZERO,
                extra="(func (result i64 i64) (i64.add128 (i64.const 0) (i64.const 0)"
                " (i64.const 0) (i64.const 0)))",
            ),
            "it uses wide arithmetic",
            "wide arithmetic support is not enabled",
        ),
    ],
    ids=[
        "shared-memory",
        "memory64",
        "table64",
        "atomics",
        "relaxed-simd",
        "externref-in-code",
        "gc-struct",
        "typed-function-references",
        "legacy-exceptions",
        "try-table",
        "tag",
        "exnref-in-code",
        "custom-descriptors",
        "shared-everything-threads",
        "stack-switching",
        "custom-page-sizes",
        "wide-arithmetic",
    ],
)
def test_a_feature_the_engine_has_off_leads_its_refusal(blob: bytes, lead: str, words: str) -> None:
    """One line naming the feature, then the engine's innermost cause (rules §8.3)."""
    reason = check_module(blob).reason
    assert reason is not None
    assert reason.startswith(f"invalid module: {lead}, which is not allowed (rules §8.3); ")
    assert f"; wasmtime: {words}" in reason and reason.endswith(")")  # its offset
    assert "Caused by" not in reason and "failed to" not in reason


@pytest.mark.parametrize(
    ("blob", "lead", "what"),
    [
        (
            module(ZERO, extra="(func (param anyref))"),
            "anyref needs garbage collection (GC)",
            "value type 0x6e",
        ),
        (
            module(ZERO, extra="(func (local eqref))"),
            "eqref needs garbage collection (GC)",
            "value type 0x6d",
        ),
        (
            module(ZERO, extra="(func (param exnref))"),
            "exnref needs exception handling",
            "value type 0x69",
        ),
        (
            module(ZERO, extra="(func (param externref))"),
            "externref needs garbage collection (GC)",
            "value type 0x6f",
        ),
        (
            module(ZERO, extra="(table 1 externref)"),
            "externref needs garbage collection (GC)",
            "reference type 0x6f",
        ),
        (
            module(ZERO, extra="(global funcref (ref.null extern))"),
            "externref needs garbage collection (GC)",
            "heap type 0x6f",
        ),
        (
            module(ZERO, extra="(global funcref (ref.i31 (i32.const 1)))"),
            "ref.i31 needs garbage collection (GC)",
            "instruction 0xfb 28 in a constant expression",
        ),
        (
            module(ZERO, extra="(global funcref (any.convert_extern (ref.null func)))"),
            "any.convert_extern needs garbage collection (GC)",
            "instruction 0xfb 26 in a constant expression",
        ),
        (
            module_bytes(section(1, vec([b"\x60\x00\x00", b"\x60\x01\x64\x62\x00\x00"]))),
            "an exact reference type needs custom descriptors (a GC extension)",
            "heap type prefix 0x62",
        ),
        (
            module_bytes(section(1, vec([b"\x60\x01\x63\x65\x6e\x00"]))),
            "a shared reference type needs shared-everything threads",
            "heap type prefix 0x65",
        ),
    ],
    ids=[
        "anyref",
        "eqref-local",
        "exnref",
        "externref",
        "externref-table",
        "ref-null-extern",
        "ref-i31",
        "any-convert-extern",
        "exact",
        "shared",
    ],
)
def test_a_type_or_constant_of_a_feature_that_is_off_is_named_before_compiling(
    blob: bytes, lead: str, what: str
) -> None:
    """The host's section reader answers first (rules §8.2, check 4): it names the type or
    the instruction and the feature, as the engine would, never a bare byte."""
    reason = read_structure(blob)
    assert isinstance(reason, str)
    assert reason.startswith(
        f"invalid module: {lead}, which is not allowed (rules §8.3): {what} at byte "
    )
    assert check_module(blob).reason == reason


@pytest.mark.parametrize(
    "extra",
    [
        "(global $a i32 (i32.const 1)) (global i32 (global.get $a))",
        '(global $a i32 (i32.const 1)) (data (global.get $a) "x")',
        "(global $a i32 (i32.const 0)) (table 1 funcref) (elem (global.get $a) func)",
    ],
    ids=["global", "data-offset", "element-offset"],
)
def test_global_get_never_appears_in_a_constant_expression(extra: str) -> None:
    """Only an imported global may be read there while GC is off, and imports are banned."""
    reason = check_module(module(ZERO, extra=extra)).reason
    assert reason is not None and reason.startswith(
        "invalid module: global.get in a constant expression is not allowed: it may read only"
        " an imported global, and a controller imports nothing (rules §8.3): instruction 0x23"
        " at byte "
    )


def test_the_engines_cause_survives_a_long_function_name() -> None:
    """wasmtime's error chain starts with the function's name from the name section; the
    cause, at its end, is what the refusal keeps (the text is cut after it is chosen)."""
    name = "f" * 1000
    blob = module(ZERO, extra=f"(func ${name} (result i32) (i64.const 0))")
    reason = check_module(blob).reason
    assert reason is not None
    assert reason.startswith("invalid module: type mismatch: expected i32, found i64 (at offset 0x")
    assert "fff" not in reason


def test_plain_simd_is_allowed() -> None:
    body = (
        "(i32x4.extract_lane 0 (i32x4.add (v128.const i32x4 1 2 3 4) (v128.const i32x4 5 6 7 8)))"
    )
    assert tick_result(module(body)) == 6


@pytest.mark.parametrize(
    ("op", "operands"),
    [
        # 0/0 from memory (zeros), so nothing is folded at compile time.
        ("f32.div", "(f32.load (i32.const 100)) (f32.load (i32.const 104))"),
        ("f32.sqrt", "(f32.neg (f32.const 1))"),
        ("f32.sub", "(f32.const inf) (f32.const inf)"),
    ],
)
def test_nans_are_canonical(op: str, operands: str) -> None:
    # x86 produces the "default NaN" 0xFFC00000 (sign set); canonical is 0x7FC00000.
    bits = tick_result(module(f"(i32.reinterpret_f32 ({op} {operands}))"))
    assert bits & 0xFFFF_FFFF == 0x7FC0_0000


def test_f64_nans_are_canonical() -> None:
    body = (
        "(i32.wrap_i64 (i64.shr_u (i64.reinterpret_f64"
        " (f64.div (f64.load (i32.const 100)) (f64.load (i32.const 108)))) (i64.const 32)))"
    )
    assert tick_result(module(body)) & 0xFFFF_FFFF == 0x7FF8_0000
