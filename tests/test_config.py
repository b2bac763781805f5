"""The rules' constants: one frozen, validated object (rules §4)."""

from __future__ import annotations

import pytest

import sim


def test_defaults_are_the_specs() -> None:
    assert sim.Config().to_dict() == {
        "width": 32,
        "height": 32,
        "max_ticks": 400,
        "start_energy": 10,
        "start_workers": 3,
        "worker_cost": 5,
        "soldier_cost": 12,
        "worker_hp": 4,
        "soldier_hp": 10,
        "soldier_attack": 3,
        "carry_cap": 4,
        "colony_hp": 60,
        "unit_vision": 4,
        "colony_vision": 5,
        "max_units": 48,
    }


def test_config_is_frozen() -> None:
    with pytest.raises(AttributeError, match="immutable"):
        sim.Config().width = 40  # type: ignore[misc]


@pytest.mark.parametrize(
    ("field", "value", "bounds"),
    [
        ("width", 7, "8..64"),
        ("height", 65, "8..64"),
        ("max_units", 0, "1..64"),
        ("max_units", 65, "1..64"),
        ("max_ticks", 0, "1..100000"),
        ("worker_cost", 0, "1..1000000"),
        ("start_energy", -1, "0..1000000"),
    ],
)
def test_a_bad_value_names_the_field_and_its_bounds(field: str, value: int, bounds: str) -> None:
    with pytest.raises(sim.ConfigError, match=f"^{field} = {value} is outside {bounds}$"):
        sim.Config(**{field: value})


@pytest.mark.parametrize("value", [3.0, "3", True, None])
def test_constants_must_be_integers(value: object) -> None:
    with pytest.raises(sim.ConfigError, match=r"^carry_cap must be an integer"):
        sim.Config(carry_cap=value)  # type: ignore[arg-type]


def test_start_workers_may_not_exceed_max_units() -> None:
    with pytest.raises(sim.ConfigError, match="start_workers = 3 exceeds max_units = 2"):
        sim.Config(max_units=2)


def test_from_mapping_refuses_unknown_keys_and_says_where() -> None:
    with pytest.raises(sim.ConfigError, match=r"^case.toml \[simulation\]: unknown constant"):
        sim.Config.from_mapping({"wdth": 30}, where="case.toml [simulation]")
    with pytest.raises(sim.ConfigError, match=r"^here: colony_hp = 0 is outside"):
        sim.Config.from_mapping({"colony_hp": 0}, where="here")
    assert sim.Config.from_mapping({"max_ticks": 10}).max_ticks == 10
