"""Host-side errors: what the operator or a file got wrong (guest faults are outcomes)."""

from __future__ import annotations

from collections.abc import Iterator

__all__ = ["ArenaError", "UnknownControllerError", "error_leaves"]


class ArenaError(Exception):
    """A request the arena cannot carry out; the message names the file or field."""


class UnknownControllerError(ArenaError):
    """A controller named on the command line is neither a readable file nor a baseline."""


def error_leaves(group: BaseExceptionGroup[BaseException]) -> Iterator[BaseException]:
    """The errors in ``group`` and in the groups it holds, depth first: what a trio
    nursery raised, for code that raises one of them as itself."""
    for exc in group.exceptions:
        if isinstance(exc, BaseExceptionGroup):
            yield from error_leaves(exc)
        else:
            yield exc
