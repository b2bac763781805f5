"""The structural limits of a module (rules §8.4): how much of each item it may have.

Compile time grows with a module's structure, so these bound it before the
compiler runs (``_structure.py`` reads a module against them).
"""

from __future__ import annotations

from typing import Final

import msgspec

__all__ = ["LIMIT_NAMES", "STRUCTURAL_LIMITS", "StructuralLimits", "over"]


class StructuralLimits(msgspec.Struct, frozen=True):
    """The most of each item a module may have (rules §8.4); docs/decisions.md has the figures."""

    functions: int = 1_000
    """Functions defined (the function and code sections)."""
    code_bytes: int = 128 * 1024
    """All function bodies together."""
    function_bytes: int = 16 * 1024
    """One function body: compile time grows faster than linearly with it."""
    code_weight: int = 2 * (16 * 1024) ** 2
    """The sum over function bodies of their size in bytes, squared: a bound on the
    superlinear part of compiling (two bodies of the largest size)."""
    instruction_cost: int = 50_000
    """The instructions of all function bodies, each counted by what it costs to compile
    (``instruction_cost``): loops, branches and calls into the runtime count more."""
    function_cost: int = 8_192
    """The instruction cost of one function body: like its size, it costs more than
    linearly (a body dense with loops or runtime calls)."""
    locals: int = 1_000
    """Locals declared in one function (parameters not counted)."""
    params: int = 32
    """Parameters of one function type: each costs code in every host-call trampoline."""
    results: int = 8
    """Results of one function type: with as many parameters, they let one call or block
    pass that many values on (a chain of them compiles slowly)."""
    globals: int = 1_000
    data_segments: int = 1_000
    element_segments: int = 1_000
    elements: int = 10_000
    """Entries of all element segments together."""
    types: int = 1_000
    tables: int = 8
    memories: int = 1
    exports: int = 1_000
    imports: int = 0


STRUCTURAL_LIMITS: Final = StructuralLimits()

# What a count is called in a refusal, by limit name.
_WHAT: Final = {
    "functions": "functions defined",
    "code_bytes": "bytes of code (all function bodies)",
    "function_bytes": "bytes in one function body",
    "code_weight": "compile weight (the squares of the function bodies' sizes, summed)",
    "instruction_cost": "instruction cost (every instruction, weighted by its compile cost)",
    "function_cost": "instruction cost of one function body",
    "locals": "locals in one function",
    "params": "parameters of one function type",
    "results": "results of one function type",
    "globals": "globals",
    "data_segments": "data segments",
    "element_segments": "element segments",
    "elements": "elements in all element segments",
    "types": "types",
    "tables": "tables",
    "memories": "memories",
    "exports": "exports",
    "imports": "imports",
}
assert set(_WHAT) == set(StructuralLimits.__struct_fields__)

LIMIT_NAMES: Final = tuple(_WHAT)


def over(name: str, n: int, limit: int) -> str:
    """The refusal of ``n`` of the limit ``name``'s items, over its ``limit``."""
    return f"{n:,} {_WHAT[name]}, over the limit of {limit:,} (rules §8.4)"
