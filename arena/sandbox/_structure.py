"""Structural limits (rules §8.4): a bounded reader of a module's sections, run before compiling.

Compile time grows with a module's structure (functions, signatures, code,
locals), so the host judges the structure first, in Python, without the
compiler: a verdict no clock decides. The module is hostile input. Every count
is compared with its limit, and every declared length with the bytes that
remain, before anything is read or looped over; LEB128 numbers are read with a
byte bound; nothing is allocated from a declared length. The reader reads only
what the limits and the segment check need (the code instruction by
instruction, to weigh it: ``_opcode_cost.py``) and leaves everything else to
the compiler's validator.

It also records the active data and element segments with their constant
offsets, so admission can prove that they fit the initial memory and tables
without running the module (rules §8.2, check 10).
"""

from __future__ import annotations

from typing import Final

import msgspec

from arena.sandbox._features import (
    EXACT_HEAP_TYPE,
    GC_CONSTANT_INSTRUCTIONS,
    REFERENCE_TYPES,
    SHARED_HEAP_TYPE,
    Feature,
    not_allowed,
)
from arena.sandbox._opcode_cost import VALTYPES, instruction_cost
from arena.sandbox._structural_limits import LIMIT_NAMES, STRUCTURAL_LIMITS, StructuralLimits, over
from arena.sandbox._toolchains import Imports, imports_reason, producers_toolchain

__all__ = [
    "Segment",
    "Structure",
    "read_structure",
    "segments_reason",
]

PAGE_BYTES: Final = 65_536


_I32_CONST, _I64_CONST, _F32_CONST, _F64_CONST = 0x41, 0x42, 0x43, 0x44
_GLOBAL_GET, _END, _REF_NULL, _REF_FUNC, _GC, _SIMD = 0x23, 0x0B, 0xD0, 0xD2, 0xFB, 0xFD
_FUNCREF: Final = 0x70
# Extended constant expressions: i32 and i64 add, sub, mul.
_ARITH: Final = {
    0x6A: (32, int.__add__),
    0x6B: (32, int.__sub__),
    0x6C: (32, int.__mul__),
    0x7C: (64, int.__add__),
    0x7D: (64, int.__sub__),
    0x7E: (64, int.__mul__),
}
_FUNC_TYPE: Final = 0x60
_NAME_CHARS: Final = 64  # of an import's names quoted in a refusal
_PRODUCERS_READ: Final = 16  # fields of the producers section, and values of each, read at most
_IMPORTS_READ: Final = 256  # imports whose names are read for the toolchain; the rest counted


class Segment(msgspec.Struct, frozen=True):
    """An active data or element segment: where it writes and how much."""

    kind: str
    """"data" or "element"."""
    index: int
    """The segment's index among its kind."""
    target: int
    """The memory (data) or table (element) it writes to; -1 for a passive or declared one."""
    offset: int | None
    """Its constant offset, or None if the reader could not evaluate it."""
    length: int
    """Bytes (data) or entries (element)."""


class Structure(msgspec.Struct, frozen=True):
    """What admission needs to know about a module that passed the structural limits."""

    memories: tuple[int | None, ...]
    """Each defined memory's initial size in pages (None for a form the engine refuses)."""
    tables: tuple[int | None, ...]
    """Each defined table's initial size in entries (None likewise)."""
    segments: tuple[Segment, ...]
    """Every data then element segment, in order (only active ones have a target)."""


class _Refused(Exception):
    """The module is refused: over a limit, or its framing cannot be read."""


class _Reader:
    """A cursor over ``data[pos:end]`` that never reads past ``end``."""

    def __init__(self, data: bytes, pos: int, end: int) -> None:
        self.data, self.pos, self.end = data, pos, end

    def malformed(self, what: str) -> _Refused:
        return _Refused(f"invalid module: {what} at byte {self.pos}")

    def refused(self, lead: str, what: str) -> _Refused:
        """A refusal that names its cause (``lead``) before what was read, and where."""
        return _Refused(f"invalid module: {lead}: {what} at byte {self.pos}")

    def byte(self) -> int:
        if self.pos >= self.end:
            raise self.malformed("unexpected end of a section")
        b = self.data[self.pos]
        self.pos += 1
        return b

    def uleb(self, bits: int = 32) -> int:
        """An unsigned LEB128 number of at most ``bits`` bits."""
        result = shift = 0
        for _ in range((bits + 6) // 7):
            b = self.byte()
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                if result >> bits:
                    raise self.malformed(f"a number wider than {bits} bits")
                return result
            shift += 7
        raise self.malformed("an overlong LEB128 number")

    def sleb(self, bits: int) -> int:
        """A signed LEB128 number of at most ``bits`` bits."""
        result = shift = 0
        for _ in range((bits + 6) // 7):
            b = self.byte()
            result |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                if b & 0x40:
                    result -= 1 << shift
                if not -(1 << (bits - 1)) <= result < 1 << (bits - 1):
                    raise self.malformed(f"a number wider than {bits} bits")
                return result
        raise self.malformed("an overlong LEB128 number")

    def skip(self, n: int) -> None:
        if n > self.end - self.pos:
            raise self.malformed(f"a length of {n} bytes runs past the end of its section")
        self.pos += n

    def take(self, n: int) -> bytes:
        start = self.pos
        self.skip(n)
        return self.data[start : self.pos]

    def count(self, limit: int, name: str, *, at_least: int = 1) -> int:
        """A vector's length, checked against its limit and the bytes that could hold it."""
        n = self.uleb()
        if n > limit:
            raise _Refused(over(name, n, limit))
        if n * at_least > self.end - self.pos:
            raise self.malformed(f"a count of {n} runs past the end of its section")
        return n


def read_structure(blob: bytes, limits: StructuralLimits = STRUCTURAL_LIMITS) -> Structure | str:
    """Check ``blob``'s structure against ``limits``; a str is the reason it is refused.

    ``blob`` has passed the byte-level checks (magic and version). The cost is
    linear in the number of sections, functions, segments and locals runs, all
    of them bounded before they are looped over.
    """
    try:
        return _Module(blob, limits).read()
    except _Refused as exc:
        return str(exc)


class _Module:
    def __init__(self, blob: bytes, limits: StructuralLimits) -> None:
        self.blob = blob
        self.limits = limits
        self.used = dict.fromkeys(LIMIT_NAMES, 0)
        self.memories: list[int | None] = []
        self.tables: list[int | None] = []
        self.data: list[Segment] = []
        self.elements: list[Segment] = []
        self.imports: Imports | None = None  # set when the module has any: its refusal
        self.producers: list[str] = []  # tool and language names of the producers section

    def add(self, name: str, n: int) -> None:
        """Count ``n`` more of ``name`` (repeated sections add up)."""
        self.used[name] += n
        limit = getattr(self.limits, name)
        if self.used[name] > limit:
            raise _Refused(over(name, self.used[name], limit))

    def read(self) -> Structure:
        top = _Reader(self.blob, 8, len(self.blob))
        while top.pos < top.end:
            try:
                ident = top.byte()
                size = top.uleb()
                start = top.pos
                top.skip(size)
            except _Refused:
                if self.imports is None:
                    raise
                break  # the imports are the refusal, whatever follows them
            section = _Reader(self.blob, start, top.pos)
            if self.imports is not None:
                # Refused already: the rest is only searched for the producers section,
                # which says which toolchain the imports came from.
                if ident == 0:
                    self._custom(section)
                continue
            handler = self._SECTIONS.get(ident)
            if handler is not None:
                handler(self, section)
        if self.imports is not None:
            raise _Refused(imports_reason(self.imports, producers_toolchain(self.producers)))
        return Structure(tuple(self.memories), tuple(self.tables), (*self.data, *self.elements))

    # ---- sections ----------------------------------------------------------

    def _types(self, r: _Reader) -> None:
        n = r.count(self.limits.types, "types")
        self.add("types", n)
        for _ in range(n):
            if r.byte() != _FUNC_TYPE:
                return  # a form the engine refuses (GC types): the compiler says so
            for name in ("params", "results"):
                for _ in range(r.count(getattr(self.limits, name), name)):
                    _valtype(r)

    def _imports(self, r: _Reader) -> None:
        n = r.uleb()
        if n and self.limits.imports == 0:
            # The message the compiled-module check gives too (rules §8.2, check 6). The
            # imports are read for what their names say of the toolchain: a toolchain's
            # show among the first few, and reading them all could take a hostile while.
            imports = Imports()
            try:
                while imports.total < min(n, _IMPORTS_READ):
                    module, name = _name(r), _name(r)
                    _import_desc(r)
                    imports.add(module, name)
            except _Refused:
                if not imports.total:
                    raise
                # A malformed entry after a good one: name those read, count them all.
            imports.total = n
            self.imports = imports
            return
        if n > self.limits.imports:
            raise _Refused(over("imports", n, self.limits.imports))
        self.add("imports", n)

    def _custom(self, r: _Reader) -> None:
        """Keep the tool and language names of the producers section (the tool conventions'
        format: fields, each a name and its values, each a name and a version); a custom
        section means nothing to the engine, so one that cannot be read is ignored."""
        try:
            if _name(r) != "producers":
                return
            for _ in range(min(r.uleb(), _PRODUCERS_READ)):
                _name(r)  # the field: language, processed-by, sdk
                for _ in range(min(r.uleb(), _PRODUCERS_READ)):
                    self.producers.append(_name(r))
                    _name(r)  # its version
        except _Refused:
            return

    def _functions(self, r: _Reader) -> None:
        self.add("functions", r.count(self.limits.functions, "functions"))

    def _table_section(self, r: _Reader) -> None:
        n = r.count(self.limits.tables, "tables", at_least=2)
        self.add("tables", n)
        for _ in range(n):
            init = r.byte() == 0x40
            if init:  # a table with an initial value: 0x40 0x00 reftype limits expr
                r.byte()
            else:
                r.pos -= 1
            _reftype(r)
            minimum = _limits(r)
            if init:
                self._const(r)
            self.tables.append(minimum)

    def _memory_section(self, r: _Reader) -> None:
        n = r.count(self.limits.memories, "memories", at_least=2)
        self.add("memories", n)
        for _ in range(n):
            self.memories.append(_limits(r))

    def _global_section(self, r: _Reader) -> None:
        n = r.count(self.limits.globals, "globals", at_least=3)
        self.add("globals", n)
        for _ in range(n):
            _valtype(r)
            r.byte()  # mutability
            self._const(r)

    def _exports(self, r: _Reader) -> None:
        self.add("exports", r.count(self.limits.exports, "exports", at_least=3))

    def _element_section(self, r: _Reader) -> None:
        n = r.count(self.limits.element_segments, "element_segments", at_least=2)
        self.add("element_segments", n)
        for _ in range(n):
            flags = r.uleb()
            if flags > 7:
                raise r.malformed(f"element segment flags {flags}")
            active = not flags & 1
            table = r.uleb() if flags & 2 and active else 0
            offset = self._const(r) if active else None
            if flags & 3:  # an element kind (0x00) or a reference type
                if flags & 4:
                    _reftype(r)
                else:
                    r.byte()
            entries = r.count(self.limits.elements - self.used["elements"], "elements")
            self.add("elements", entries)
            for _ in range(entries):
                if flags & 4:
                    self._const(r)
                else:
                    r.uleb()
            index = len(self.elements)
            self.elements.append(
                Segment("element", index, table if active else -1, offset, entries)
            )

    def _code_section(self, r: _Reader) -> None:
        n = r.count(self.limits.functions, "functions")
        for _ in range(n):
            size = r.uleb()
            if size > self.limits.function_bytes:
                raise _Refused(over("function_bytes", size, self.limits.function_bytes))
            self.add("code_bytes", size)
            self.add("code_weight", size * size)
            start = r.pos
            r.skip(size)
            body = _Reader(r.data, start, r.pos)
            runs = body.count(self.limits.locals, "locals", at_least=2)
            declared = 0
            for _ in range(runs):
                # Each run is (count, type); stop as soon as the sum is over.
                declared += body.uleb()
                if declared > self.limits.locals:
                    raise _Refused(over("locals", declared, self.limits.locals))
                _valtype(body)
            cost = instruction_cost(body.take(body.end - body.pos))
            if cost > self.limits.function_cost:
                raise _Refused(over("function_cost", cost, self.limits.function_cost))
            self.add("instruction_cost", cost)

    def _data_section(self, r: _Reader) -> None:
        n = r.count(self.limits.data_segments, "data_segments", at_least=2)
        self.add("data_segments", n)
        for _ in range(n):
            flags = r.uleb()
            if flags > 2:
                raise r.malformed(f"data segment flags {flags}")
            active = flags != 1
            memory = r.uleb() if flags == 2 else 0
            offset = self._const(r) if active else None
            length = r.uleb()
            r.skip(length)
            index = len(self.data)
            self.data.append(Segment("data", index, memory if active else -1, offset, length))

    _SECTIONS: Final = {
        1: _types,
        2: _imports,
        3: _functions,
        4: _table_section,
        5: _memory_section,
        6: _global_section,
        7: _exports,
        9: _element_section,
        10: _code_section,
        11: _data_section,
    }

    # ---- constant expressions -----------------------------------------------

    def _const(self, r: _Reader) -> int | None:
        """Read a constant expression; its integer value, or None if it has none we can know."""
        stack: list[int | None] = []
        while True:
            op = r.byte()
            if op == _END:
                return stack[-1] if len(stack) == 1 else None
            if op == _I32_CONST:
                stack.append(r.sleb(32) & 0xFFFF_FFFF)
            elif op == _I64_CONST:
                stack.append(r.sleb(64) & 0xFFFF_FFFF_FFFF_FFFF)
            elif op == _GLOBAL_GET:
                # Only an imported global may be read there while GC is off.
                r.pos -= 1
                raise r.refused(
                    "global.get in a constant expression is not allowed: it may read only an"
                    " imported global, and a controller imports nothing (rules §8.3)",
                    "instruction 0x23",
                )
            elif op in _ARITH:
                bits, fn = _ARITH[op]
                if len(stack) < 2:
                    raise r.malformed("a constant expression pops an empty stack")
                b, a = stack.pop(), stack.pop()
                stack.append(None if a is None or b is None else fn(a, b) % (1 << bits))
            elif op in (_F32_CONST, _F64_CONST):
                r.skip(4 if op == _F32_CONST else 8)
                stack.append(None)
            elif op == _REF_NULL:
                _heaptype(r)
                stack.append(None)
            elif op == _REF_FUNC:
                r.uleb()
                stack.append(None)
            elif op == _SIMD and r.uleb() == 12:  # v128.const
                r.skip(16)
                stack.append(None)
            elif op == _GC:
                at = r.pos - 1
                sub = r.uleb()
                name = GC_CONSTANT_INSTRUCTIONS.get(sub, "a GC instruction")
                r.pos = at
                raise r.refused(
                    not_allowed(name, Feature.GC),
                    f"instruction 0xfb {sub} in a constant expression",
                )
            else:
                raise r.malformed(f"instruction 0x{op:02x} in a constant expression")


def _name(r: _Reader) -> str:
    raw = r.take(r.uleb())
    text = raw[: _NAME_CHARS * 4].decode("utf-8", "replace")
    return text if len(text) <= _NAME_CHARS else text[: _NAME_CHARS - 1] + "…"


def _import_desc(r: _Reader) -> None:
    """Skip an import's description, to reach the next import's names."""
    kind = r.byte()
    if kind in (0x00, 0x04):  # a function (type index), a tag (attribute, type index)
        if kind == 0x04:
            r.byte()
        r.uleb()
    elif kind == 0x01:  # a table
        _reftype(r)
        _limits(r)
    elif kind == 0x02:  # a memory
        _limits(r)
    elif kind == 0x03:  # a global
        _valtype(r)
        r.byte()
    else:
        raise r.malformed(f"import kind 0x{kind:02x}")


def _refused_type(r: _Reader, b: int, what: str) -> _Refused:
    """The refusal of a reference or heap type the engine has off, named (rules §8.3)."""
    name, feature = REFERENCE_TYPES[b]
    return r.refused(not_allowed(name, feature), f"{what} 0x{b:02x}")


def _heaptype(r: _Reader) -> None:
    """A heap type: a type index (typed function references: the compiler refuses it in its
    own words), or an abstract one, a negative number of one byte's worth."""
    start = r.pos
    index = r.sleb(33)
    b = index + 0x80  # an abstract heap type's byte
    if index >= 0 or b == _FUNCREF:
        return
    end, r.pos = r.pos, start
    if b in REFERENCE_TYPES:
        raise _refused_type(r, b, "heap type")
    if b == EXACT_HEAP_TYPE:
        lead = not_allowed("an exact reference type", Feature.CUSTOM_DESCRIPTORS)
        raise r.refused(lead, "heap type prefix 0x62")
    if b == SHARED_HEAP_TYPE:
        lead = not_allowed("a shared reference type", Feature.SHARED_EVERYTHING)
        raise r.refused(lead, "heap type prefix 0x65")
    r.pos = end  # no heap type at all: the compiler says so


def _reftype(r: _Reader) -> None:
    b = r.byte()
    if b in (0x63, 0x64):  # (ref null? heaptype)
        _heaptype(r)
    elif b in REFERENCE_TYPES:
        r.pos -= 1
        raise _refused_type(r, b, "reference type")


def _valtype(r: _Reader) -> None:
    b = r.byte()
    if b in (0x63, 0x64):
        _heaptype(r)
    elif b not in VALTYPES:
        r.pos -= 1
        if b in REFERENCE_TYPES:
            raise _refused_type(r, b, "value type")
        raise r.malformed(f"value type 0x{b:02x}")


def _limits(r: _Reader) -> int | None:
    """A memory's or table's limits; the initial size, or None for a form the engine refuses."""
    flags = r.byte()
    if flags & ~0x0F:
        r.pos -= 1
        raise r.malformed(f"limits flags 0x{flags:02x}")
    wide = flags & 0x04  # memory64 or table64
    minimum = r.uleb(64 if wide else 32)
    if flags & 0x01:
        r.uleb(64 if wide else 32)
    if flags & 0x08:  # custom page sizes
        r.uleb()
    return None if flags & 0x0E else minimum


def segments_reason(structure: Structure) -> str | None:
    """Whether every active segment fits its memory or table at its initial size (rules §8.2)."""
    for seg in structure.segments:
        if seg.target < 0:  # passive or declared: written only by the guest's own code
            continue
        sizes = structure.memories if seg.kind == "data" else structure.tables
        unit = PAGE_BYTES if seg.kind == "data" else 1
        name = f"{seg.kind} segment {seg.index}"
        if seg.target >= len(sizes) or sizes[seg.target] is None:
            continue  # no such memory or table, or a refused form: the compiler said no already
        if seg.offset is None:
            return f"{name}: its offset is not a constant the host can evaluate"
        size = sizes[seg.target]
        assert size is not None
        what = "memory" if seg.kind == "data" else f"table {seg.target}"
        units = "bytes" if seg.kind == "data" else "entries"
        if seg.offset + seg.length > size * unit:
            return (
                f"{name} writes {seg.length} {units} at offset {seg.offset}, past the end of"
                f" the initial {what} ({size * unit} {units})"
            )
    return None
