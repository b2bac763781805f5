"""The engine's switched-off features by name (rules §8.3): what a refusal calls them.

A module that needs a feature the engine has off is refused by whichever sees
it first: the host's section reader (a value type, a heap type, an instruction
of a constant expression) or the engine's validator. Either way the refusal
leads with what the module used and the feature it needs, said to be not
allowed; where the engine refused, its own words follow. No wasmtime here: the
reader runs before anything is compiled.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Final

__all__ = [
    "EXACT_HEAP_TYPE",
    "GC_CONSTANT_INSTRUCTIONS",
    "REFERENCE_TYPES",
    "SHARED_HEAP_TYPE",
    "Feature",
    "engine_refusal",
    "not_allowed",
]


class Feature(StrEnum):
    """A WebAssembly feature the engine has off, as a refusal names it (rules §8.3)."""

    GC = "garbage collection (GC)"
    EXCEPTIONS = "exception handling"
    STACK_SWITCHING = "stack switching"
    CUSTOM_DESCRIPTORS = "custom descriptors (a GC extension)"
    SHARED_EVERYTHING = "shared-everything threads"
    THREADS = "threads (shared memory and atomics)"
    MEMORY64 = "memory64"
    FUNCTION_REFERENCES = "typed function references"
    RELAXED_SIMD = "relaxed SIMD"
    CUSTOM_PAGE_SIZES = "custom page sizes"
    WIDE_ARITHMETIC = "wide arithmetic"


REFERENCE_TYPES: Final[dict[int, tuple[str, Feature]]] = {
    0x6F: ("externref", Feature.GC),  # wasmtime implements it with its collector
    0x6E: ("anyref", Feature.GC),
    0x6D: ("eqref", Feature.GC),
    0x6C: ("i31ref", Feature.GC),
    0x6B: ("structref", Feature.GC),
    0x6A: ("arrayref", Feature.GC),
    0x71: ("nullref", Feature.GC),
    0x72: ("nullexternref", Feature.GC),
    0x73: ("nullfuncref", Feature.GC),
    0x69: ("exnref", Feature.EXCEPTIONS),
    0x74: ("nullexnref", Feature.EXCEPTIONS),
    0x68: ("contref", Feature.STACK_SWITCHING),
    0x75: ("nullcontref", Feature.STACK_SWITCHING),
}
"""The reference types the engine refuses, by their byte; a heap type's byte is its reference
type's (0x6F: ``externref``, and ``extern`` in ``ref.null extern``). ``funcref`` (0x70) is on."""
EXACT_HEAP_TYPE: Final = 0x62
"""The prefix of an exact heap type, ``(exact $t)``: custom descriptors."""
SHARED_HEAP_TYPE: Final = 0x65
"""The prefix of a shared heap type, ``(shared any)``: shared-everything threads."""

GC_CONSTANT_INSTRUCTIONS: Final = {
    0x00: "struct.new",
    0x01: "struct.new_default",
    0x06: "array.new",
    0x07: "array.new_default",
    0x08: "array.new_fixed",
    0x1A: "any.convert_extern",
    0x1B: "extern.convert_any",
    0x1C: "ref.i31",
}
"""The GC instructions (prefix 0xFB) that GC would allow in a constant expression, by sub-opcode."""


def not_allowed(what: str | None, feature: Feature) -> str:
    """A refusal's lead: what the module used needs ``feature``, which is not allowed."""
    if what is None:
        return f"it uses {feature}, which is not allowed (rules §8.3)"
    return f"{what} needs {feature}, which is not allowed (rules §8.3)"


# Words of wasmtime 50's validator (wasmparser) and the feature each names, the most
# specific first: a refusal by the engine leads with the feature, then its words.
_ENGINE_WORDS: Final[tuple[tuple[str, str | None, Feature], ...]] = (
    (
        r"legacy_exceptions",
        "a legacy exception instruction (try, catch, rethrow or delegate)",
        Feature.EXCEPTIONS,
    ),
    (r"gc types are disallowed", "externref or a GC reference type (anyref, ...)", Feature.GC),
    (r"exception", None, Feature.EXCEPTIONS),
    (r"custom descriptors", None, Feature.CUSTOM_DESCRIPTORS),
    (r"shared-everything-threads", None, Feature.SHARED_EVERYTHING),
    (r"memory64", None, Feature.MEMORY64),
    (r"threads", None, Feature.THREADS),
    (r"function.references", None, Feature.FUNCTION_REFERENCES),
    (r"relaxed simd", None, Feature.RELAXED_SIMD),
    (r"custom page size", None, Feature.CUSTOM_PAGE_SIZES),
    (r"stack switching", None, Feature.STACK_SWITCHING),
    (r"wide arithmetic", None, Feature.WIDE_ARITHMETIC),
    (r"\bgc\b", None, Feature.GC),
)
# The form of an error in a function body: its offset in the module, then the defect.
_IN_CODE: Final = re.compile(r"Invalid input WebAssembly code at offset (\d+): (.*)", re.S)


def engine_refusal(cause: str) -> str:
    """The reason for a module the engine refused, from the innermost cause of its error.

    A feature the engine has off is named first; any other cause is the
    module's defect in the engine's words. An offset in a function body is
    shown in hex, as the validator shows the others.
    """
    code = _IN_CODE.fullmatch(cause)
    if code is not None:
        cause = f"{code[2]} (at offset {int(code[1]):#x})"
    for words, what, feature in _ENGINE_WORDS:
        if re.search(words, cause, re.IGNORECASE):
            return f"invalid module: {not_allowed(what, feature)}; wasmtime: {cause}"
    return f"invalid module: {cause}"
