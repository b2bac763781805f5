"""The instruction cost (rules §8.4): each instruction of a function body weighted by what
it costs to compile.

Cranelift's time per instruction varies widely: next to nothing for
``local.get``, more for a float operation (NaN-canonicalised), a branch, a
loop header (fuel and epoch checks), most for ``memory.grow`` (a call into the
runtime). Bytes alone cannot bound that, so every instruction counts by its
weight, set in the opcode table below from measured compile times (the
figures are in docs/benchmarks.md, the choice in docs/decisions.md).
"""

from __future__ import annotations

from typing import Final

__all__ = ["VALTYPES", "instruction_cost", "scan_code"]

VALTYPES: Final = frozenset({0x7F, 0x7E, 0x7D, 0x7C, 0x7B, 0x70})
"""Value types a local, a global or a block may have under the engine's features (rules §8.3):
the numbers, v128 and funcref (externref needs GC, which is off)."""

_GROW: Final = 32
"""The weight of memory.grow and table.grow: a call into the runtime, the costliest to compile
of the instructions a controller may use, and more so in a large body."""
# How an instruction's immediates are laid out.
_NO, _BLOCK, _LEB, _LEB2, _BR_TABLE, _SELECT_T, _MEMARG, _SKIP4, _SKIP8, _FC, _FD = range(11)
_UNKNOWN: Final = -1
"""An opcode of a feature the engine has off (or none at all): the compiler refuses it."""


def _opcode_table() -> tuple[list[int], list[int]]:
    imm = [_UNKNOWN] * 256
    for op in (0x00, 0x01, 0x05, 0x0B, 0x0F, 0x1A, 0x1B, 0xD1, *range(0x45, 0xC5)):
        imm[op] = _NO
    for op in (0x02, 0x03, 0x04):  # block, loop, if
        imm[op] = _BLOCK
    # br, br_if, call, return_call, local.*, global.*, table.get/set, memory.size/grow,
    # i32.const, i64.const (signed, skipped alike), ref.null (a heap type), ref.func.
    for op in (0x0C, 0x0D, 0x10, 0x12, *range(0x20, 0x27), 0x3F, 0x40, 0x41, 0x42, 0xD0, 0xD2):
        imm[op] = _LEB
    imm[0x11] = imm[0x13] = _LEB2  # call_indirect, return_call_indirect: type, table
    imm[0x0E] = _BR_TABLE
    imm[0x1C] = _SELECT_T
    for op in range(0x28, 0x3F):  # loads and stores
        imm[op] = _MEMARG
    imm[0x43], imm[0x44] = _SKIP4, _SKIP8  # f32.const, f64.const
    imm[0xFC], imm[0xFD] = _FC, _FD
    weight = [1] * 256
    # Next to free: structure the translator resolves, values it only names.
    for op in (0x01, 0x02, 0x05, 0x0B, 0x0F, 0x1A, 0x20, 0x41, 0x42):
        weight[op] = 0
    # Floating point (NaN-canonicalised: a compare and a select more), conversions to
    # and from floats (range checks), calls (values and state saved around them); SIMD
    # and the saturating conversions below. i64.extend_i32_s/u (0xAC, 0xAD) are not.
    for op in (*range(0x8B, 0xA7), *range(0xA8, 0xAC), *range(0xAE, 0xBC), 0x10, 0x12):
        weight[op] = 2
    for op in (0x04, 0x0C, 0x0D, 0x0E):  # if, br, br_if, br_table: a branch and new blocks
        weight[op] = 3
    # loop (fuel and epoch checks at its header), indirect calls, table.get/set.
    for op in (0x03, 0x11, 0x13, 0x25, 0x26):
        weight[op] = 6
    weight[0x40] = _GROW  # memory.grow: a call into the runtime, and the memory reloaded
    return imm, weight


_IMM, _WEIGHT = _opcode_table()
_TYPED_BLOCK: Final = 3
"""Extra weight of a block, loop or if whose type is a type index (multi-value)."""
_BR_TABLE_TARGET: Final = 4
"""The weight of each of a br_table's targets: many tables into many nested blocks
compile in time that grows with the square of their edges."""
_FC_OPS: Final = {
    # sub-opcode: (immediates, weight). 0-7: saturating conversions; 8-17: bulk
    # memory and tables, calls into the runtime; table.grow as costly as memory.grow.
    **{sub: (0, 2) for sub in range(8)},
    8: (2, 6),  # memory.init
    9: (1, 6),  # data.drop
    10: (2, 6),  # memory.copy
    11: (1, 6),  # memory.fill
    12: (2, 6),  # table.init
    13: (1, 6),  # elem.drop
    14: (2, 6),  # table.copy
    15: (1, _GROW),  # table.grow
    16: (1, 1),  # table.size
    17: (1, 6),  # table.fill
}
_SIMD_WEIGHT: Final = 2
"""The weight of a SIMD instruction: many lower to several machine instructions."""
_SIMD_OPS: Final = 256
"""SIMD sub-opcodes below this are 128-bit SIMD; the rest (relaxed SIMD) are off."""


def instruction_cost(code: bytes) -> int:
    """The weighted count of the instructions in ``code``, one function body's (its locals
    read already).

    The scan only counts: it refuses nothing. Where it cannot go on (an opcode
    of a feature the engine has off, a body that ends inside an instruction),
    it stops, and the compiler's validator refuses the module with its own
    words. Linear in the body's size: every step consumes at least one byte,
    and nothing is read past the body (``code`` is a copy of it, so an index
    past its end stops the scan).
    """
    return scan_code(code)[0]


def scan_code(code: bytes) -> tuple[int, int]:
    """``instruction_cost`` and where the scan stopped: exactly ``len(code)`` for a body read
    whole, instruction by instruction."""
    data, pos, end = code, 0, len(code)
    cost = 0
    imm, weight = _IMM, _WEIGHT
    try:
        while pos < end:
            op = data[pos]
            pos += 1
            cost += weight[op]
            kind = imm[op]
            if kind == _NO:
                continue
            if kind == _LEB:  # skip a LEB128 number (most are one byte)
                while data[pos] & 0x80:
                    pos += 1
                pos += 1
            elif kind == _MEMARG:
                pos = _skip_memarg(data, pos)
            elif kind == _BLOCK:
                b = data[pos]
                if b == 0x40 or b in VALTYPES:
                    pos += 1
                elif b in (0x63, 0x64):  # (ref null? ht): typed references, off
                    break
                else:
                    pos = _skip_leb(data, pos)
                    cost += _TYPED_BLOCK
            elif kind == _LEB2:
                pos = _skip_leb(data, _skip_leb(data, pos))
            elif kind == _BR_TABLE:
                targets, pos = _uleb(data, pos)
                for _ in range(targets + 1):  # and the default
                    pos = _skip_leb(data, pos)  # past the end: IndexError, the scan stops
                    cost += _BR_TABLE_TARGET
            elif kind == _SELECT_T:
                count, pos = _uleb(data, pos)
                pos += count  # one byte each: the reference types with more are off
            elif kind == _SKIP4:
                pos += 4
            elif kind == _SKIP8:
                pos += 8
            elif kind == _FC:
                sub, pos = _uleb(data, pos)
                immediates, w = _FC_OPS.get(sub, (-1, 0))
                if immediates < 0:
                    break
                cost += w - 1
                for _ in range(immediates):
                    pos = _skip_leb(data, pos)
            elif kind == _FD:
                cost += _SIMD_WEIGHT - 1
                sub, pos = _uleb(data, pos)
                if sub <= 11 or sub in (92, 93):  # loads and stores
                    pos = _skip_memarg(data, pos)
                elif sub in (12, 13):  # v128.const, i8x16.shuffle
                    pos += 16
                elif 21 <= sub <= 34:  # extract_lane, replace_lane
                    pos += 1
                elif 84 <= sub <= 91:  # load_lane, store_lane
                    pos = _skip_memarg(data, pos) + 1
                elif sub >= _SIMD_OPS:
                    break
            else:
                break
    except IndexError:
        pass  # an instruction cut short at the body's end: the compiler refuses it
    return cost, pos


def _skip_leb(data: bytes, pos: int) -> int:
    while data[pos] & 0x80:
        pos += 1
    return pos + 1


def _uleb(data: bytes, pos: int) -> tuple[int, int]:
    """A count or a sub-opcode (at most 35 bits, so a hostile one stays small) and the
    position after it."""
    result = shift = 0
    while shift < 35:
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
    raise IndexError("an overlong LEB128 number")  # the scan stops, as at the end


def _skip_memarg(data: bytes, pos: int) -> int:
    """Skip a memory access's alignment (with a memory index if its bit 6 says so) and offset."""
    flags, pos = _uleb(data, pos)
    if flags & 0x40:
        pos = _skip_leb(data, pos)
    return _skip_leb(data, pos)
