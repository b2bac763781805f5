# The C extension's names (_core.c, which puts the core's files together), for mypy:
# a Core is a sim._native.NativeCore.
from collections.abc import Sequence

from sim._native._load import NativeCore, NativeSide

SOURCE_HASH: str

# A class in C; described here by what it makes.
def Core(
    width: int,
    height: int,
    rock: bytes,
    config: tuple[int, ...],
    tick: int,
    ore: Sequence[int],
    sides: tuple[NativeSide, NativeSide],
    /,
) -> NativeCore: ...
def blake2b_64(data: bytes | bytearray | memoryview, /) -> int: ...
