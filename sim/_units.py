"""The pieces a game's state is made of: a unit, and a side with its colony and units."""

from __future__ import annotations

from sim._config import Config

__all__ = ["SideState", "Unit"]


class Unit:
    """A living unit. ``cell`` is its absolute cell index."""

    __slots__ = ("carry", "cell", "hp", "id", "kind", "side")

    def __init__(self, side: int, uid: int, kind: int, cell: int, hp: int) -> None:
        self.side = side
        self.id = uid
        self.kind = kind
        self.cell = cell
        self.hp = hp
        self.carry = 0

    def __repr__(self) -> str:
        return (
            f"Unit(side={self.side}, id={self.id}, kind={self.kind}, cell={self.cell}, "
            f"hp={self.hp}, carry={self.carry})"
        )


class SideState:
    """One side's state: colony cell and hp, banked score, energy, living units by id.

    ``units`` is in id order: ids only grow and dicts keep insertion order, and
    observations and replays rely on it.
    """

    __slots__ = ("banked", "colony", "colony_hp", "energy", "next_id", "units")

    def __init__(self, colony: int, config: Config) -> None:
        self.colony = colony
        self.colony_hp = config.colony_hp
        self.banked = 0
        self.energy = config.start_energy
        self.next_id = 1
        self.units: dict[int, Unit] = {}
