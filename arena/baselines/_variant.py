"""Numbered copies of a module: distinct sha256s that play exactly as the original."""

from __future__ import annotations

__all__ = ["numbered_module"]

_SECTION = b"foray-arena-variant"


def _leb128(n: int) -> bytes:
    """``n`` (>= 0) as an unsigned LEB128 number (how wasm writes sizes)."""
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def numbered_module(blob: bytes, index: int, *, pad: int = 0) -> bytes:
    """``blob`` with a custom section ``foray-arena-variant`` appended, holding ``index`` (and
    ``pad`` zero bytes): a module of its own sha256 that behaves exactly as ``blob`` does (a
    custom section is never executed). Benchmarks and load tests make fields with it."""
    payload = _leb128(len(_SECTION)) + _SECTION + index.to_bytes(4, "little") + bytes(pad)
    return blob + b"\x00" + _leb128(len(payload)) + payload
