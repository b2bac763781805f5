"""Closed vocabularies that more than one of arena's sub-packages speaks, defined once.

Dependency-free on purpose: ``arena.store`` keeps these values without loading
``arena.cases`` or ``arena.proving`` (which load the sandbox, and so wasmtime);
``arena.cases`` declares the roles and ``arena.proving`` scores runs with them.
Each sub-package re-exports what it uses.
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
