"""docs/rules.md's tables of constants, limits and vocabularies agree with the code.

Each test reads one table of the rules (found by its section's heading) and
checks its names, defaults and ranges against ``sim.Config``, the sandbox's
``Limits`` and structural limits, and the ``sim`` enums, so neither can
change without the other.
"""

from __future__ import annotations

import re

import pytest

import sim
from arena.sandbox import (
    BUFFER_BYTES,
    MAX_MODULE_BYTES,
    MAX_TABLES,
    STRUCTURAL_LIMITS,
    TABLE_ELEMENTS,
    Limits,
)
from tests._support import ROOT

RULES = ROOT / "docs" / "rules.md"
UNITS = {"": 1, "s": 1, "bytes": 1, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3}


def _table(heading: str) -> list[dict[str, str]]:
    """The first Markdown table under ``heading`` (a whole heading line), one dict per row."""
    lines = RULES.read_text(encoding="utf-8").splitlines()
    assert heading in lines, f"{RULES.name} has no heading {heading!r}"
    start = lines.index(heading) + 1
    rows: list[list[str]] = []
    for line in lines[start:]:
        if line.startswith("#"):
            break
        if line.startswith("|"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        elif rows:
            break
    assert len(rows) > 2, f"no table under {heading!r}"
    header, rule, *body = rows
    assert set("".join(rule)) <= set("-:"), f"{heading!r}: the table has no header row"
    return [dict(zip(header, row, strict=True)) for row in body]


def _code(cell: str) -> list[str]:
    """The ``code`` spans of a cell: ``"`width`, `height`"`` -> ``["width", "height"]``."""
    return re.findall(r"`([^`]+)`", cell)


def _quantity(text: str) -> int | float:
    """A number as the rules write it: ``5,000,000``, ``10^13``, ``2 s``, ``64 MiB``,
    ``67,108,864 (64 MiB)`` (a parenthesis is a gloss)."""
    text = re.sub(r"\(.*\)", "", text).strip()
    match = re.fullmatch(r"(\d+)\^(\d+)|([\d,]+(?:\.\d+)?)", text.split(" ")[0])
    assert match is not None, f"not a number: {text!r}"
    unit = text.partition(" ")[2]
    assert unit in UNITS, f"unknown unit {unit!r} in {text!r}"
    if match[1] is not None:
        base: int | float = int(match[1]) ** int(match[2])
    else:
        digits = match[3].replace(",", "")
        base = float(digits) if "." in digits else int(digits)
    return base * UNITS[unit]


def _int_range(text: str) -> tuple[int, int]:
    """``1..1,000,000`` or ``2^28..2^40 bytes``; a condition after it (``, and ...``) is prose."""
    low, _, high = text.split(", and")[0].removesuffix(" bytes").partition("..")
    lo, hi = _quantity(low), _quantity(high)
    assert isinstance(lo, int) and isinstance(hi, int), f"not an integer range: {text!r}"
    return lo, hi


def _config(name: str, value: int) -> sim.Config:
    """The defaults with ``name`` set to ``value`` (no start workers beside a tiny max_units)."""
    changes = {name: value}
    if name == "max_units":
        changes["start_workers"] = 0
    return sim.Config().replace(**changes)


def _limits(name: str, value: float) -> Limits:
    """The default limits with ``name`` set to ``value``."""
    return Limits.from_dict({**Limits().to_dict(), name: value})


def test_the_constants_table_is_sim_config() -> None:
    rows = _table("### 4.1 Constants")
    defaults = sim.Config()
    documented: list[str] = []
    for row in rows:
        names = _code(row["name"])
        values = [_quantity(v) for v in row["default"].split(", ")]
        assert len(names) == len(values), f"{row['name']}: {len(values)} defaults"
        low, high = _int_range(row["allowed"])
        for name, value in zip(names, values, strict=True):
            documented.append(name)
            code = getattr(defaults, name)
            assert code == value, f"rules §4.1 gives {name} the default {value}, sim.Config {code}"
            _config(name, low)
            _config(name, high)
            for outside in (low - 1, high + 1):
                with pytest.raises(sim.ConfigError, match=name):
                    _config(name, outside)
                    pytest.fail(f"rules §4.1 puts {name} = {outside} outside, sim.Config takes it")
    assert documented == list(sim.Config.__struct_fields__)


def test_the_limits_table_is_the_sandboxs() -> None:
    rows = {(_code(row["limit"]) or [row["limit"]])[0]: row for row in _table("### 8.1 Limits")}
    settable = list(Limits.__struct_fields__)
    assert list(rows)[: len(settable)] == settable, "rules §8.1 lists the settable limits first"
    defaults = Limits()
    for name in settable:
        row = rows[name]
        value, code = _quantity(row["default"]), getattr(defaults, name)
        assert code == value, f"rules §8.1 gives {name} the default {value}, Limits {code}"
        allowed = row["allowed"]
        if allowed.startswith("("):  # seconds, (low, high]
            low, high = (float(x) for x in re.findall(r"[\d.]+", allowed))
            _limits(name, high)
            for outside in (low, high + 0.001):
                with pytest.raises(ValueError, match=name):
                    _limits(name, outside)
                    pytest.fail(f"rules §8.1 puts {name} = {outside} outside, Limits takes it")
        else:
            lo, hi = _int_range(allowed)
            _limits(name, lo)
            _limits(name, hi)
            for outside in (lo - 1, hi + 1):
                with pytest.raises(ValueError, match=name):
                    _limits(name, outside)
                    pytest.fail(f"rules §8.1 puts {name} = {outside} outside, Limits takes it")
    fixed = {
        "module size": MAX_MODULE_BYTES,
        "tables": MAX_TABLES,
        "table elements": TABLE_ELEMENTS,
        "I/O buffer": BUFFER_BYTES,
    }
    for name, value in fixed.items():
        assert rows[name]["allowed"] == "fixed"
        documented = _quantity(rows[name]["default"])
        assert documented == value, f"rules §8.1 gives the {name} as {documented}, the code {value}"


def test_the_structural_limits_table_is_the_sandboxs() -> None:
    """Rules §8.4 lists the items in ``StructuralLimits``' order, one row per field."""
    rows = [(row["item"], _quantity(row["at most"])) for row in _table("### 8.4 Structural limits")]
    names = STRUCTURAL_LIMITS.__struct_fields__
    limits = [(name, getattr(STRUCTURAL_LIMITS, name)) for name in names]
    assert [v for _, v in rows] == [v for _, v in limits], (
        "rules §8.4 and StructuralLimits differ:\n"
        f"  rules §8.4:       {'; '.join(f'{k} {v}' for k, v in rows)}\n"
        f"  StructuralLimits: {'; '.join(f'{k} {v}' for k, v in limits)}"
    )


def test_the_forfeit_kinds_are_sims() -> None:
    kinds = [_code(row["kind"]) for row in _table("### 8.8 Forfeit kinds")]
    assert kinds == [[kind.value] for kind in sim.ForfeitKind]


def test_the_reasons_are_sims() -> None:
    reasons = [_code(row["`reason`"]) for row in _table("### 11.2 Winner and reason")]
    assert reasons == [[reason.value] for reason in sim.Reason]
    (row,) = (r for r in _table("### 11.1 The result JSON") if r["key"] == "`reason`")
    assert _code(row["value"]) == [reason.value for reason in sim.Reason]
