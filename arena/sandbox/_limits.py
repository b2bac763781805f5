"""The sandbox's limits and verdicts: plain values, no wasmtime (rules §8)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final

import msgspec

import sim
from replays import LIMIT_RANGES

__all__ = [
    "BUFFER_BYTES",
    "MAX_MODULE_BYTES",
    "MAX_TABLES",
    "RECORD_BYTES",
    "TABLE_ELEMENTS",
    "Admission",
    "Fault",
    "Limits",
]

BUFFER_BYTES: Final = 65_536
"""Size of the I/O buffer a controller exports (rules §9)."""
RECORD_BYTES: Final = 12
"""One action record: three little-endian i32 words."""
MAX_MODULE_BYTES: Final = 8 * 1024 * 1024
TABLE_ELEMENTS: Final = 10_000
# Tables are bounded per table by TABLE_ELEMENTS; a few are allowed because
# reference types (on by default in toolchains) permit more than one.
MAX_TABLES: Final = 8


def _check_int(name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} must be an int in [{low}, {high}], got {value!r}")


def _check_seconds(name: str, value: object, low: float, high: float) -> None:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not low < value <= high
    ):
        raise ValueError(f"{name} must be a number of seconds in ({low}, {high}], got {value!r}")


class Limits(msgspec.Struct, frozen=True):
    """Per-controller, per-match resource limits (rules §8 defaults)."""

    fuel_per_tick: int = 5_000_000
    init_fuel: int = 50_000_000
    max_memory_bytes: int = 64 * 1024 * 1024
    tick_timeout: float = 2.0
    init_timeout: float = 10.0
    compile_timeout: float = 20.0
    compile_memory_bytes: int = 2 * 1024**3

    def __post_init__(self) -> None:
        # The ranges are the replay format's, so a header's limits can be checked
        # without the sandbox. max_memory_bytes: the buffer must fit, and the hard
        # limit (twice the cap) must fit in 4 GiB. compile_memory_bytes: the
        # compiling child maps the interpreter and wasmtime before it compiles
        # anything, so the range starts well above that (docs/benchmarks.md).
        for name, (kind, low, high) in LIMIT_RANGES.items():
            if kind is int:
                _check_int(name, getattr(self, name), int(low), int(high))
            else:
                _check_seconds(name, getattr(self, name), low, high)

    def to_dict(self) -> dict[str, int | float]:
        """The limits by name, as a replay header records them."""
        return msgspec.structs.asdict(self)

    @classmethod
    def from_dict(cls, limits: Mapping[str, int | float]) -> Limits:
        """The limits a replay header records; ValueError names a missing or bad one."""
        missing = sorted(set(LIMIT_RANGES) - limits.keys())
        if missing or len(limits) != len(LIMIT_RANGES):
            raise ValueError(f"limits must be exactly {', '.join(LIMIT_RANGES)}")
        values: dict[str, Any] = dict(limits)
        return cls(**values)


assert set(Limits.__struct_fields__) == set(LIMIT_RANGES)
assert LIMIT_RANGES["max_memory_bytes"][1] == BUFFER_BYTES


class Fault(msgspec.Struct, frozen=True):
    """A guest fault: ``kind`` is init, fuel, memory, trap or timeout."""

    kind: sim.ForfeitKind
    detail: str


class Admission(msgspec.Struct, frozen=True):
    """Whether a module may compete at all, and if not, exactly why."""

    admissible: bool
    sha256: str
    reason: str | None
