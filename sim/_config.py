"""The rules' constants: one frozen, validated object."""

from __future__ import annotations

from typing import Any

import msgspec

__all__ = ["Config", "ConfigError"]


class ConfigError(ValueError):
    """A rules constant is missing, of the wrong type, or out of its bounds."""


# field -> (low, high), inclusive.
_BOUNDS: dict[str, tuple[int, int]] = {
    "width": (8, 64),
    "height": (8, 64),
    "max_ticks": (1, 100_000),
    "start_energy": (0, 1_000_000),
    "start_workers": (0, 4),
    "worker_cost": (1, 1_000_000),
    "soldier_cost": (1, 1_000_000),
    "worker_hp": (1, 1_000_000),
    "soldier_hp": (1, 1_000_000),
    "soldier_attack": (0, 1_000_000),
    "carry_cap": (1, 1_000_000),
    "colony_hp": (1, 1_000_000),
    "unit_vision": (0, 64),
    "colony_vision": (0, 64),
    "max_units": (1, 64),
}


class Config(msgspec.Struct, frozen=True):
    """The constants of rules §4; a case may override any of them."""

    width: int = 32
    height: int = 32
    max_ticks: int = 400
    start_energy: int = 10
    start_workers: int = 3
    worker_cost: int = 5
    soldier_cost: int = 12
    worker_hp: int = 4
    soldier_hp: int = 10
    soldier_attack: int = 3
    carry_cap: int = 4
    colony_hp: int = 60
    unit_vision: int = 4
    colony_vision: int = 5
    max_units: int = 48

    def __post_init__(self) -> None:
        for name in self.__struct_fields__:
            value = getattr(self, name)
            low, high = _BOUNDS[name]
            if type(value) is not int:
                raise ConfigError(f"{name} must be an integer, got {value!r}")
            if not low <= value <= high:
                raise ConfigError(f"{name} = {value} is outside {low}..{high}")
        if self.start_workers > self.max_units:
            raise ConfigError(
                f"start_workers = {self.start_workers} exceeds max_units = {self.max_units}"
            )

    @classmethod
    def from_mapping(cls, values: dict[str, Any], *, where: str = "config") -> Config:
        """Build a config from a mapping, refusing unknown keys by name."""
        known = set(cls.__struct_fields__)
        unknown = sorted(set(values) - known)
        if unknown:
            raise ConfigError(f"{where}: unknown constant(s) {', '.join(unknown)}")
        try:
            return cls(**values)
        except ConfigError as exc:
            raise ConfigError(f"{where}: {exc}") from None

    def to_dict(self) -> dict[str, int]:
        return msgspec.structs.asdict(self)

    def replace(self, **changes: int) -> Config:
        return Config.from_mapping({**self.to_dict(), **changes})
