"""The sandbox's limits and verdicts: plain values, no wasmtime (rules §8)."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Final

import sim

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


@dataclass(frozen=True, slots=True)
class Limits:
    """Per-controller, per-match resource limits (rules §8 defaults)."""

    fuel_per_tick: int = 5_000_000
    init_fuel: int = 50_000_000
    max_memory_bytes: int = 64 * 1024 * 1024
    tick_timeout: float = 2.0
    init_timeout: float = 10.0
    compile_timeout: float = 20.0
    compile_memory_bytes: int = 2 * 1024**3

    def __post_init__(self) -> None:
        _check_int("fuel_per_tick", self.fuel_per_tick, 1, 10**13)
        _check_int("init_fuel", self.init_fuel, 1, 10**14)
        # The buffer must fit; the hard limit (twice the cap) must fit in 4 GiB.
        _check_int("max_memory_bytes", self.max_memory_bytes, BUFFER_BYTES, 2**31)
        _check_seconds("tick_timeout", self.tick_timeout, 0.0, 3600.0)
        _check_seconds("init_timeout", self.init_timeout, 0.0, 3600.0)
        _check_seconds("compile_timeout", self.compile_timeout, 0.0, 3600.0)
        # The compiling child alone (interpreter + wasmtime) maps about 70 MB.
        _check_int("compile_memory_bytes", self.compile_memory_bytes, 2**28, 2**40)

    def to_dict(self) -> dict[str, int | float]:
        """The limits by name, as a replay header records them."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Fault:
    """A guest fault: ``kind`` is init, fuel, memory, trap or timeout."""

    kind: sim.ForfeitKind
    detail: str


@dataclass(frozen=True, slots=True)
class Admission:
    """Whether a module may compete at all, and if not, exactly why."""

    admissible: bool
    sha256: str
    reason: str | None
