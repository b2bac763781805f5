"""``Game``: one match's state together with its rules, its observer and its checksum."""

from __future__ import annotations

from collections.abc import Sequence

from sim import _checksum, _rules
from sim._actions import Record
from sim._checksum import UnitWords
from sim._config import Config
from sim._maps import GameMap
from sim._observer import FlatObservation, Observation, Observer
from sim._rules import Outcome, TickEvents
from sim._state import State

__all__ = ["Game"]


class Game(State):
    """One match's state. Pure: no I/O, no clock; the same inputs give the same states.

    The state and how its cells change are ``State``'s (``sim._state``); ``step``
    and ``outcome`` are the rules (``sim._rules``); ``observe`` is what a side
    sees (``sim._observer``); ``checksum`` sums the state up (``sim._checksum``).
    """

    def __init__(self, game_map: GameMap, config: Config) -> None:
        super().__init__(game_map, config)
        self._observer_made: Observer | None = None

    @property
    def _observer(self) -> Observer:
        # Made on first use: a match played on the native core never observes here. The
        # observer starts with nothing kept, so it reads the state as it stands then.
        observer = self._observer_made
        if observer is None:
            observer = self._observer_made = Observer(self)
        return observer

    def step(self, actions: Sequence[Sequence[Record]]) -> TickEvents:
        """Resolve one tick from both sides' valid records (each in its own view).

        Records must already satisfy :func:`sim.validate_actions` against this
        tick's rosters; the arena forfeits a side whose reply does not.
        """
        return _rules.step(self, actions)

    def outcome(self, fuel_totals: tuple[int, int]) -> Outcome | None:
        """Rules §7.2-§7.3, checked after a tick has been stepped; None while play goes on."""
        return _rules.outcome(self, fuel_totals)

    def observe(self, side: int) -> Observation:
        """The observation of ``side`` at the start of the current tick (rules §9)."""
        return self._observer.observe(side)

    def observe_flat(self, side: int) -> FlatObservation:
        """``observe(side)`` as flat sequences of ints: what the match loop packs every tick.

        The sequences belong to the game (a later call may return the same ones):
        read them, do not change them.
        """
        return self._observer.observe_flat(side)

    def unit_words(self) -> UnitWords:
        """Per side, its living units by id as flat ints: id, kind, cell, hp, carry each.

        The checksum hashes these words; a frame encoder that needs them too can
        take them once and hand them to ``checksum``.
        """
        return _checksum.unit_words(self.sides)

    def checksum(self, units: UnitWords | None = None) -> int:
        """A 64-bit digest of the whole resolved state, the same on every machine.

        Replay format version 2's: BLAKE2b of the tick, the sides' totals, their
        units and a digest of the ore that the state keeps up to date, so a
        tick's checksum does not grow with the map (``sim._checksum.checksum``
        spells it out). ``units`` is this state's ``unit_words()``, when the
        caller has them.
        """
        return _checksum.checksum(
            self.tick,
            self.sides,
            self._ore_digest,
            _checksum.unit_words(self.sides) if units is None else units,
        )

    def checksum_v1(self, units: UnitWords | None = None) -> int:
        """The checksum of replay format version 1, kept so that its replays still verify:
        the words of ``checksum`` up to the units, then every cell's ore amount."""
        return _checksum.checksum_v1(
            self.tick,
            self.sides,
            self.ore,
            _checksum.unit_words(self.sides) if units is None else units,
        )
