"""Host-side errors: what the operator or a file got wrong (guest faults are outcomes)."""

from __future__ import annotations

__all__ = ["ArenaError", "UnknownControllerError"]


class ArenaError(Exception):
    """A request the arena cannot carry out; the message names the file or field."""


class UnknownControllerError(ArenaError):
    """A controller named on the command line is neither a readable file nor a baseline."""
