"""The plan of a tournament: its format, field in seeded order, seeds and options, checked.

Every stage of a format (a colour class, an opponent, a bracket or swiss round)
is played as 2 x seeds schedule rounds, one per (seed, side assignment): round
``stage * 2S + 2 * seed_index + side``. A meeting's ``slot`` is its place in
its stage. The plan's pure helpers run a ``Scheduler`` (``_schedule``).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import networkx as nx

from arena.tournament._formats import (
    bracket_graph,
    circle_stages,
    shuffled,
)
from arena.tournament._records import (
    Format,
    Pairing,
    Played,
    TournamentSetupError,
)
from arena.tournament._schedule import Scheduler
from arena.tournament._standings import Standings

__all__ = ["TournamentPlan"]

_U32 = 1 << 32


def _check_u32(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < _U32:
        raise TournamentSetupError(f"{what} {value!r} is not an unsigned 32-bit integer")
    return value


@dataclasses.dataclass(frozen=True)
class TournamentPlan:
    """What a tournament is: the format, the field in seeded order, the seeds, the options.

    ``rounds`` is swiss only (default ceil(log2 field)); ``shuffle`` is bracket
    only: a seed that draws the bracket's seeding order from the field's order.
    Invalid plans raise ``TournamentSetupError`` naming the value.
    """

    format: Format
    field: tuple[str, ...]
    seeds: tuple[int, ...]
    rounds: int | None = None
    shuffle: int | None = None
    order: tuple[str, ...] = dataclasses.field(init=False)
    """The seeded order the schedule uses: ``field``, or ``field`` shuffled by ``shuffle``."""
    _bracket: Any = dataclasses.field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        try:
            fmt = Format(self.format)
        except ValueError:
            choices = ", ".join(f.value for f in Format)
            raise TournamentSetupError(f"format {self.format!r} is not one of {choices}") from None
        set_(self, "format", fmt)
        names = tuple(self.field)
        for name in names:
            if not isinstance(name, str) or not name:
                raise TournamentSetupError(f"entrant name {name!r} is not a non-empty string")
        repeated = sorted(name for name, k in Counter(names).items() if k > 1)
        if repeated:
            raise TournamentSetupError(f"entrant {repeated[0]!r} is in the field twice")
        least = 1 if fmt is Format.FIELD else 2  # a field starts with whoever is there
        if len(names) < least:
            raise TournamentSetupError(
                f"a {fmt} needs {'an entrant' if least == 1 else 'two entrants'} or more, "
                f"not {len(names)}"
            )
        set_(self, "field", names)
        seeds = tuple(_check_u32(seed, "seed") for seed in self.seeds)
        if not seeds:
            raise TournamentSetupError("a tournament needs at least one seed")
        if len(set(seeds)) != len(seeds):
            raise TournamentSetupError("the seeds repeat a value")
        set_(self, "seeds", seeds)
        n = len(names)
        if fmt is Format.SWISS:
            most = n - 1 if n % 2 == 0 else n  # beyond this a round must hold a rematch
            rounds = (n - 1).bit_length() if self.rounds is None else self.rounds
            if not isinstance(rounds, int) or isinstance(rounds, bool) or not 1 <= rounds <= most:
                raise TournamentSetupError(
                    f"swiss rounds {rounds!r} is not in 1..{most} for a field of {n}"
                )
            set_(self, "rounds", rounds)
        elif self.rounds is not None:
            raise TournamentSetupError(f"rounds is for swiss, not {fmt}")
        if self.shuffle is not None:
            if fmt is not Format.BRACKET:
                raise TournamentSetupError(f"shuffle is for bracket, not {fmt}")
            _check_u32(self.shuffle, "shuffle seed")
            set_(self, "order", shuffled(names, self.shuffle))
        else:
            set_(self, "order", names)
        set_(self, "_bracket", bracket_graph(n) if fmt is Format.BRACKET else None)

    # ----------------------------------------------------------------- shape

    @property
    def stages(self) -> int:
        """The format's rounds: colour classes, opponents, bracket or swiss rounds."""
        n = len(self.field)
        match self.format:
            case Format.ROUND_ROBIN:
                return circle_stages(n)
            case Format.GAUNTLET | Format.FIELD:
                return n - 1
            case Format.BRACKET:
                return (n - 1).bit_length()
            case Format.SWISS:
                assert self.rounds is not None
                return self.rounds

    @property
    def rounds_per_stage(self) -> int:
        """Schedule rounds per stage: one per seed and side assignment."""
        return 2 * len(self.seeds)

    def stage_of(self, pairing: Pairing) -> int:
        """The stage ``pairing`` is played in (its round is ``stage * 2S + 2 * seed_index +
        side``); a stage the plan does not have for a pairing it does not hold."""
        return pairing.round // self.rounds_per_stage

    def side_of(self, pairing: Pairing) -> int:
        """Which side assignment ``pairing`` is: 0 when its meeting's first entrant is side A,
        1 when the sides are swapped."""
        return pairing.round % 2

    @property
    def matches(self) -> int:
        """Matches the plan schedules: exact, except swiss, where it is the most (a
        swiss round that cannot pair everyone without a rematch sits more out)."""
        n = len(self.field)
        per_meeting = self.rounds_per_stage
        match self.format:
            case Format.ROUND_ROBIN | Format.FIELD:
                return n * (n - 1) // 2 * per_meeting
            case Format.GAUNTLET | Format.BRACKET:
                return (n - 1) * per_meeting
            case Format.SWISS:
                return self.stages * (n // 2) * per_meeting

    def bracket_graph(self) -> nx.DiGraph:
        """Bracket only: a copy of the bracket, match nodes (round, place) pointing to the next."""
        if self._bracket is None:
            raise TournamentSetupError(f"a {self.format} tournament has no bracket")
        return self._bracket.copy()

    # ----------------------------------------------------------------- pure helpers

    def scheduler(self, played: Iterable[Played] = ()) -> Scheduler:
        """A scheduler for this plan with ``played`` recorded."""
        return Scheduler(self, played)

    def next_round(self, played: Iterable[Played]) -> list[Pairing] | None:
        """The matches still to play of the first round not complete, or None when done.

        Pure: a function of the plan and the results. O(results) per call; a
        coordinator keeps one ``Scheduler`` instead.
        """
        return self.scheduler(played).next_round()

    def standings(self, played: Iterable[Played]) -> Standings:
        """The standings from these results (pure, like ``next_round``)."""
        return self.scheduler(played).standings()

    def to_json(self) -> dict[str, Any]:
        """{"format", "field", "seeds", "rounds", "shuffle"}: all a store needs to rebuild it.

        ``rounds`` is resolved (the swiss default is stored as a number)."""
        return {
            "format": str(self.format),
            "field": list(self.field),
            "seeds": list(self.seeds),
            "rounds": self.rounds,
            "shuffle": self.shuffle,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TournamentPlan:
        return cls(
            Format(data["format"]),
            tuple(data["field"]),
            tuple(data["seeds"]),
            rounds=data.get("rounds"),
            shuffle=data.get("shuffle"),
        )
