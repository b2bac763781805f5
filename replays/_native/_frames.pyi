# The C extension's names (_frames.c), for mypy.
from sim import NativeCore

SOURCE_HASH: str

class Frames:
    def __init__(self, core: NativeCore, version: int, keyframe_interval: int, /) -> None: ...
    def applied(
        self,
        fuel_a: int,
        fuel_b: int,
        notes: tuple[str | int | None, str | int | None] | None = None,
        memory: tuple[int, int] | None = None,
        /,
    ) -> bytes: ...
    @property
    def memory(self) -> tuple[int, int] | None: ...
