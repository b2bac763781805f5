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


@pytest.mark.parametrize(
    ("blob_args", "reason"),
    [
        (
            {"body": "(i32.const 0)", "memory": '(memory (export "memory") 2 2 shared)'},
            "threads must be enabled for shared memories",
        ),
        (
            {"body": "(i32.const 0)", "memory": '(memory (export "memory") i64 2)'},
            "memory64 must be enabled",
        ),
        ({"body": "(i32.atomic.load (i32.const 0))"}, "threads support is not enabled"),
        ({"body": RELAXED}, "relaxed SIMD support is not enabled"),
    ],
    ids=["shared-memory", "memory64", "atomics", "relaxed-simd"],
)
def test_switched_off_features_are_not_admissible(blob_args: dict[str, str], reason: str) -> None:
    admission = check_module(module(**blob_args))
    assert not admission.admissible
    assert admission.reason is not None and reason in admission.reason


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
