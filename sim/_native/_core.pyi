# The C extension's names (_core.c), for mypy; sim._native.NativeCore documents them.
from collections.abc import Sequence

SOURCE_HASH: str

class Core:
    def __init__(
        self,
        width: int,
        height: int,
        rock: bytes,
        config: tuple[int, ...],
        tick: int,
        ore: Sequence[int],
        sides: tuple[
            tuple[int, int, int, int, int, list[tuple[int, int, int, int, int]]],
            tuple[int, int, int, int, int, list[tuple[int, int, int, int, int]]],
        ],
        /,
    ) -> None: ...
    @property
    def tick(self) -> int: ...
    @property
    def ended(self) -> bool: ...
    def observe(self, side: int, last_fuel: int, /) -> bytes: ...
    def take(self, side: int, n: int, raw: bytes | bytearray | memoryview, /) -> bool: ...
    def take_records(self, side: int, records: Sequence[tuple[int, int, int]], /) -> bool: ...
    def take_packed(self, side: int, flat: Sequence[int], /) -> bool: ...
    def step(self) -> None: ...
    def checksum(self, version: int = 2, /) -> int: ...
    def taken(self, side: int, /) -> list[tuple[int, int, int]]: ...
    def roster(self, side: int, /) -> list[int]: ...
    def totals(self, side: int, /) -> tuple[int, int]: ...
    def state(
        self,
    ) -> tuple[
        int,
        list[int],
        tuple[
            tuple[int, int, int, int, int, list[tuple[int, int, int, int, int]]],
            tuple[int, int, int, int, int, list[tuple[int, int, int, int, int]]],
        ],
    ]: ...
    def events(
        self,
    ) -> tuple[
        list[tuple[int, int, int]],
        list[tuple[int, int]],
        list[tuple[int, int, int, int]],
        list[tuple[int, int, int]],
        list[int],
    ]: ...

def blake2b_64(data: bytes | bytearray | memoryview, /) -> int: ...
