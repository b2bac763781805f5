"""The native core: the rules, the observation and the checksum of a match in C.

The extension ``_core`` is a second implementation of the pure Python reference,
written for the match loop's hot path and split as it is, a C file for each job:
``state.c`` (``sim._state``), ``rules.c`` (``sim._rules``), ``actions.c``
(``sim.validate_actions``), ``observer.c`` (``sim._observer``), ``checksum.c``
(``sim._checksum``), and ``_core.c``, the module that puts them together; the pure code
stays the reference, and the default wherever the native part is missing. It is
built by ``scripts/build_native.py`` (``./scripts/setup.sh`` runs it), never on
import. ``load`` loads it on first use, and only a build of the sources beside
it: a build the sources have moved on from is refused, since it would play by
other rules. ``FORAY_NATIVE=0`` in the environment turns it off.

Either way the same inputs give the same bytes: the tests play both on every
golden replay and on generated games, tick by tick (tests/test_native.py).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Protocol

from sim._actions import Record
from sim._state import State

__all__ = [
    "SOURCES",
    "NativeCore",
    "NativeLoader",
    "NativeSide",
    "load",
    "native_core",
    "native_source_hash",
    "native_unavailable",
    "state_of",
]

NativeSide = tuple[int, int, int, int, int, list[tuple[int, int, int, int, int]]]
"""A side as the core takes and gives it: colony, colony hp, banked, energy, next id, and
its units by id as (id, kind, cell, hp, carry)."""


class NativeCore(Protocol):
    """One match's state in C (the extension's ``Core``): what the match loop and the replay
    check call, each the counterpart of a pure function named in its docstring."""

    @property
    def tick(self) -> int:
        """The ticks resolved so far (``Game.tick``)."""

    @property
    def ended(self) -> bool:
        """Whether ``Game.outcome`` is not None (it does not depend on the fuel totals)."""

    def observe(self, side: int, last_fuel: int) -> bytes:
        """The side's OBS message: ``arena.match.encode_obs_for(game, side, last_fuel)``."""

    def take(self, side: int, n: int, raw: bytes) -> bool:
        """Keep a reply's records (``raw``: little-endian int32 triples) for the step; whether
        ``sim.validate_actions`` passes them. A refused reply keeps none."""

    def take_records(self, side: int, records: Sequence[Record]) -> bool:
        """``take`` for (id, op, arg) records."""

    def take_packed(self, side: int, flat: Sequence[int]) -> bool:
        """``take`` for a replay's packed records, [id, op * 8 + arg, ...]."""

    def step(self) -> None:
        """``Game.step`` of the records taken for both sides."""

    def checksum(self, version: int = 2) -> int:
        """``Game.checksum`` (version 2), or ``Game.checksum_v1`` (version 1)."""

    def taken(self, side: int) -> list[Record]:
        """The records kept for the step."""

    def roster(self, side: int) -> list[int]:
        """The ids of the side's living units (``Game.roster``)."""

    def totals(self, side: int) -> tuple[int, int]:
        """The side's colony hp and banked score."""

    def state(self) -> tuple[int, list[int], tuple[NativeSide, NativeSide]]:
        """The tick, every cell's ore, and both sides."""

    def events(
        self,
    ) -> tuple[
        list[tuple[int, int, int]],
        list[tuple[int, int]],
        list[tuple[int, int, int, int]],
        list[tuple[int, int, int]],
        list[int],
    ]:
        """The last step's attacks, deaths, spawns, deposits and ore changed, as
        ``sim.TickEvents`` has them (the cells ascending)."""


SOURCES = (
    "_core.c",
    "state.c",
    "rules.c",
    "actions.c",
    "observer.c",
    "checksum.c",
    "core.h",
    "core_internal.h",
    "blake2b.h",
)
"""The files the module is built from, in this directory; their hash is built into it."""

_HERE = Path(__file__).resolve().parent
_loaded: list[ModuleType | None] = []  # the module (or None), once tried
_reason: list[str] = []


def native_source_hash(paths: list[Path]) -> str:
    """The hash a build of ``paths`` carries (``SOURCE_HASH``): sha256 over names and bytes."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def load() -> ModuleType | None:
    """The native core's module, or None when it is off, not built, or built from other
    sources (``native_unavailable`` says which). Tried once per process."""
    if not _loaded:
        module, reason = _try_load()
        _loaded.append(module)
        if reason:
            _reason.append(reason)
    return _loaded[0]


def native_unavailable() -> str | None:
    """Why ``load`` gives None, in a line; None when the native core is loaded."""
    load()
    return _reason[0] if _reason else None


def _try_load() -> tuple[ModuleType | None, str | None]:
    if os.environ.get("FORAY_NATIVE") == "0":
        return None, "turned off (FORAY_NATIVE=0)"
    return _built(_import_core, _HERE, SOURCES)


def _import_core() -> ModuleType:
    from sim._native import _core

    return _core


def _built(
    importer: Callable[[], ModuleType], directory: Path, sources: Sequence[str]
) -> tuple[ModuleType | None, str | None]:
    """The extension ``importer`` imports, once its build is known to be of ``sources`` (in
    ``directory``) as they stand; else None and why."""
    try:
        module = importer()
    except ImportError:
        return None, "not built (./scripts/setup.sh builds it with gcc)"
    try:
        expected = native_source_hash([directory / name for name in sources])
    except OSError as exc:
        return None, f"its sources are not beside it ({exc.strerror}: {exc.filename})"
    if expected != module.SOURCE_HASH:
        return None, "built from other sources than these (./scripts/setup.sh rebuilds it)"
    return module, None


class NativeLoader:
    """Loads another extension built with the native core (the frame encoder, the tick
    call) on its first call, and gives the same each time after: the module, or None
    without the native core, unbuilt, or built from other sources than ``sources`` in
    ``directory`` (so a stale build never plays)."""

    def __init__(
        self, importer: Callable[[], ModuleType], directory: Path, sources: Sequence[str]
    ) -> None:
        self.sources = tuple(sources)
        self._importer = importer
        self._directory = directory
        self._loaded: list[ModuleType | None] = []

    def __call__(self) -> ModuleType | None:
        if not self._loaded:
            found = None
            if native_unavailable() is None:
                found = _built(self._importer, self._directory, self.sources)[0]
            self._loaded.append(found)
        return self._loaded[0]


def native_core(state: State) -> NativeCore | None:
    """A native core holding ``state`` as it stands (the map, the config, the tick, the ore,
    both sides and their units), or None without the native core or for a state it does not
    take (a side over 64 cells, more than 64 units allowed)."""
    module = load()
    if module is None:
        return None
    tick, ore, sides = state_of(state)
    config = tuple(state.config.to_dict().values())
    try:
        core: NativeCore = module.Core(
            state.width,
            state.height,
            bytes(state.map.rock),
            config,
            tick,
            ore,
            sides,
        )
    except (ValueError, OverflowError):
        return None
    return core


def state_of(state: State) -> tuple[int, list[int], tuple[NativeSide, NativeSide]]:
    """A state as the native core takes it and gives it back (``NativeCore.state``)."""
    a, b = (
        (
            side.colony,
            side.colony_hp,
            side.banked,
            side.energy,
            side.next_id,
            [(u.id, u.kind, u.cell, u.hp, u.carry) for u in side.units.values()],
        )
        for side in state.sides
    )
    return state.tick, list(state.ore), (a, b)
