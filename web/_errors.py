"""The site's one error: an answer other than success, with its status and message.

Every room of the site raises it (``web._site`` and the rooms it is made of),
and so does every handler's parsing (``web._http``); ``web._api`` answers it as
JSON ``{"error": ...}``. It lives apart from both so that the rooms, which do
the arena's work, import nothing of Starlette.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ApiError"]


class ApiError(Exception):
    """An answer other than success, with its status and message (JSON ``{"error": ...}``)."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        headers: dict[str, str] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}
        self.extra = extra or {}
