"""wasmtime's trap codes: each one's name, and wasmtime's own words for those a controller meets.

The codes are ``wasmtime_trap_code_t``'s (wasmtime-py's ``TrapCode``: the same
names and values, which ``tests/test_sandbox_ffi.py`` compares). A tuple of
names, not an enum: making an enum of 50 members costs a one-off match more
than the whole of the binding that reads them (docs/decisions.md, "The
engine's library without wasmtime-py").
"""

from __future__ import annotations

from typing import Final

__all__ = ["INTERRUPT", "OUT_OF_FUEL", "TRAP_CODES", "trap_name", "trap_words"]

TRAP_CODES: Final = (
    "STACK_OVERFLOW",
    "MEMORY_OUT_OF_BOUNDS",
    "HEAP_MISALIGNED",
    "TABLE_OUT_OF_BOUNDS",
    "INDIRECT_CALL_TO_NULL",
    "BAD_SIGNATURE",
    "INTEGER_OVERFLOW",
    "INTEGER_DIVISION_BY_ZERO",
    "BAD_CONVERSION_TO_INTEGER",
    "UNREACHABLE",
    "INTERRUPT",
    "OUT_OF_FUEL",
    "ATOMIC_WAIT_NON_SHARED_MEMORY",
    "NULL_REFERENCE",
    "ARRAY_OUT_OF_BOUNDS",
    "ALLOCATION_TOO_LARGE",
    "CAST_FAILURE",
    "CANNOT_ENTER_COMPONENT",
    "NO_ASYNC_RESULT",
    "UNHANDLED_TAG",
    "CONTINUATION_ALREADY_CONSUMED",
    "DISABLED_OPCODE",
    "ASYNC_DEADLOCK",
    "CANNOT_LEAVE_COMPONENT",
    "CANNOT_BLOCK_SYNC_TASK",
    "INVALID_CHAR",
    "DEBUG_ASSERT_STRING_ENCODING_FINISHED",
    "DEBUG_ASSERT_EQUAL_CODE_UNITS",
    "DEBUG_ASSERT_POINTER_ALIGNED",
    "DEBUG_ASSERT_UPPER_BITS_UNSET",
    "STRING_OUT_OF_BOUNDS",
    "LIST_OUT_OF_BOUNDS",
    "INVALID_DISCRIMINANT",
    "UNALIGNED_POINTER",
    "TASK_CANCEL_NOT_CANCELLED",
    "TASK_CANCEL_OR_RETURN_TWICE",
    "SUBTASK_CANCEL_AFTER_TERMINAL",
    "TASK_RETURN_INVALID",
    "WAITABLE_SET_DROP_HAS_WAITERS",
    "SUBTASK_DROP_NOT_RESOLVED",
    "THREAD_NEW_INDIRECT_INVALID_TYPE",
    "THREAD_NEW_INDIRECT_UNINITIALIZED",
    "BACKPRESSURE_OVERFLOW",
    "UNSUPPORTED_CALLBACK_CODE",
    "CANNOT_RESUME_THREAD",
    "CONCURRENT_FUTURE_STREAM_OP",
    "REFERENCE_COUNT_OVERFLOW",
    "STREAM_OP_TOO_BIG",
    "WAITABLE_SYNC_AND_ASYNC",
    "UNCAUGHT_EXCEPTION",
)
"""``wasmtime_trap_code_t``'s names, each at its value."""
INTERRUPT: Final = TRAP_CODES.index("INTERRUPT")
"""The trap code of a fired epoch deadline: the wall-clock backstop."""
OUT_OF_FUEL: Final = TRAP_CODES.index("OUT_OF_FUEL")
"""The trap code of a call that ran out of fuel at a check."""

# wasmtime's own words for each trap code by name (its Display text); any other by name.
_WORDS: Final = {
    "STACK_OVERFLOW": "call stack exhausted",
    "MEMORY_OUT_OF_BOUNDS": "out of bounds memory access",
    "HEAP_MISALIGNED": "unaligned atomic",
    "TABLE_OUT_OF_BOUNDS": "undefined element: out of bounds table access",
    "INDIRECT_CALL_TO_NULL": "uninitialized element",
    "BAD_SIGNATURE": "indirect call type mismatch",
    "INTEGER_OVERFLOW": "integer overflow",
    "INTEGER_DIVISION_BY_ZERO": "integer divide by zero",
    "BAD_CONVERSION_TO_INTEGER": "invalid conversion to integer",
    "UNREACHABLE": "wasm `unreachable` instruction executed",
    "INTERRUPT": "interrupt",
    "OUT_OF_FUEL": "all fuel consumed by WebAssembly",
    "NULL_REFERENCE": "null reference",
}


def trap_name(code: int | None) -> str | None:
    """A trap code's name (``OUT_OF_FUEL``); None for no code, ``CODE_60`` for a code newer
    than this list."""
    if code is None:
        return None
    return TRAP_CODES[code] if 0 <= code < len(TRAP_CODES) else f"CODE_{code}"


def trap_words(code: int | None) -> str:
    """What a trap code means, in wasmtime's words where it has them, else by its name."""
    name = trap_name(code)
    if name is None:
        return "a trap without a code"
    return _WORDS.get(name, name.lower().replace("_", " "))
