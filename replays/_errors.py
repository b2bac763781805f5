"""The replay error, apart from the reader: the CLI's error boundary names it without
loading the reader."""

from __future__ import annotations

__all__ = ["Mismatch", "ReplayError"]


class ReplayError(ValueError):
    """The bytes are not a valid replay; the message names the object, the field and the fault.

    ``tick`` is the tick of the frame at fault, or None for the header, the
    result, or the stream as a whole.
    """

    def __init__(self, message: str, tick: int | None = None) -> None:
        super().__init__(message)
        self.tick = tick


class Mismatch(Exception):
    """Internal to verification: the replay disagrees with the rules (at ``tick``, or in
    the header or result when None); ``verify_replay`` reports it, never raises it."""

    def __init__(self, tick: int | None, detail: str) -> None:
        super().__init__(detail)
        self.tick = tick
        self.detail = detail
