"""What a case says of its opponents and of a proof run: an opponent's role, a run's outcome.

Both are the case's vocabulary (case-manifest.md); the store keeps them and
``arena.proving`` scores runs with them. This module imports nothing, so the
store reads them without loading the rest of a case (its maps, its limits).
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Role", "RunOutcome"]


class Role(StrEnum):
    """What an opponent's match means for a proof run (case-manifest.md)."""

    CANONICAL = "canonical"
    """Decides the run's outcome."""
    EVIDENCE = "evidence"
    """Scored evidence, recorded with the run."""
    EXHIBITION = "exhibition"
    """Recorded and watchable, unscored."""

    @property
    def scored(self) -> bool:
        return self is not Role.EXHIBITION


class RunOutcome(StrEnum):
    """A proof run's outcome: its canonical match, from the controller's side.

    ``WIN``, ``LOSS`` and ``DRAW`` also name one match's outcome from the
    controller's side.
    """

    WIN = "win"
    LOSS = "loss"
    DRAW = "draw"
    COULD_NOT_COMPETE = "could-not-compete"
    """The submission did not build, or its module is not admissible."""
