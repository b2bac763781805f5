"""A tournament's seeds as a person types them: ``0 1 2``, ``0,1,2``, ``0-15``, or a mix."""

from __future__ import annotations

import re
from typing import Final

from arena.tournament._records import TournamentSetupError

__all__ = ["SEEDS_FORM", "parse_seeds"]

SEEDS_FORM: Final = "seeds separated by spaces or commas, and ranges: 0 1 2, 0,1,2, 0-15"
"""What ``parse_seeds`` takes, said as a form's hint and in its refusals."""

_U32: Final = 1 << 32
_ITEM: Final = re.compile(r"([0-9]+)(?:\s*-\s*([0-9]+))?")
_SEPARATOR: Final = re.compile(r"[\s,]+")


def parse_seeds(text: str, most: int) -> tuple[int, ...]:
    """The seeds ``text`` names, in its order: numbers and ranges ``a-b`` (both ends
    included), separated by spaces or commas; each an unsigned 32-bit integer, none twice,
    at most ``most`` in all (counted before a range is laid out, so ``0-999999999`` costs
    nothing). ``TournamentSetupError`` names the part that is wrong and the accepted form."""
    parts = [p for p in _SEPARATOR.split(_join_ranges(text.strip())) if p]
    if not parts:
        raise TournamentSetupError(f"no seed given: give {SEEDS_FORM}")
    ranges: list[tuple[int, int]] = []
    count = 0
    for part in parts:
        m = _ITEM.fullmatch(part)
        if m is None or len(part) > 32:
            raise TournamentSetupError(
                f"seeds: {part[:32]!r} is not a seed nor a range; give {SEEDS_FORM}"
            )
        low = int(m.group(1))
        high = low if m.group(2) is None else int(m.group(2))
        for value in (low, high):
            if value >= _U32:
                raise TournamentSetupError(
                    f"seeds: {value} is not an unsigned 32-bit integer (0..{_U32 - 1})"
                )
        if high < low:
            raise TournamentSetupError(
                f"seeds: the range {part} runs backwards (give {high}-{low})"
            )
        count += high - low + 1
        if count > most:
            raise TournamentSetupError(
                f"seeds: {text.strip()[:64]!r} makes {count} seeds or more, and a tournament "
                f"here takes at most {most}"
            )
        ranges.append((low, high))
    seeds = [s for low, high in ranges for s in range(low, high + 1)]
    seen: set[int] = set()
    for seed in seeds:
        if seed in seen:
            raise TournamentSetupError(f"seeds: {seed} is given twice")
        seen.add(seed)
    return tuple(seeds)


def _join_ranges(text: str) -> str:
    """``0 - 15`` as ``0-15``: a range's dash may stand between spaces."""
    return re.sub(r"\s*-\s*", "-", text)
