"""A stored replay as ``GET /api/matches/{id}/replay`` answers it: compressed when it can be.

The store keeps a replay as one zstd frame (older files: raw). A client whose
``Accept-Encoding`` takes ``zstd`` gets the file's bytes as they are, with
``Content-Encoding: zstd``; any other gets the replay's own bytes, decompressed
here. Both carry ``Vary: Accept-Encoding``. The store checked the file's
digest (once per change of the file) before this sees it.

The ETag names the bytes sent: ``"<sha256>"`` (the replay's own bytes, the
sha256 every record and push uses) for the replay as it is, ``"<sha256>-zstd"``
for its zstd coding (a strong validator per content-coding, as RFC 9110 asks).
``If-None-Match`` with the one that would be sent answers 304.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Final

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

import arena
import replays
from web._stream import HEADERS

__all__ = ["accepts_coding", "needs_decoding", "stored_replay_response"]

_log = logging.getLogger("web")

ZSTD: Final = "zstd"


def accepts_coding(header: str | None, coding: str) -> bool:
    """Whether an ``Accept-Encoding`` value takes ``coding`` (named, or ``*``, with q > 0)."""
    if not header:
        return False
    star = False
    for item in header.split(","):
        name, _, params = item.partition(";")
        name = name.strip().lower()
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value.strip())
                except ValueError:
                    q = 0.0
        if name == coding:
            return q > 0
        if name == "*":
            star = q > 0
    return star


def _matches(header: str | None, etag: str) -> bool:
    if header is None:
        return False
    tags = [t.strip().removeprefix("W/") for t in header.split(",")]
    return "*" in tags or etag in tags


def needs_decoding(request: Request, stored: arena.StoredReplay) -> bool:
    """Whether ``stored`` is compressed and the client does not take zstd."""
    return stored.coding is arena.FileCoding.ZSTD and not accepts_coding(
        request.headers.get("accept-encoding"), ZSTD
    )


def stored_replay_response(
    request: Request, stored: arena.StoredReplay, *, decode: bool
) -> Response:
    """The answer carrying ``stored``: its file's bytes as they are, or its replay's own
    bytes where ``decode`` (``needs_decoding``: the caller has asked it already)."""
    zstd_file = stored.coding is arena.FileCoding.ZSTD
    as_stored = not decode
    etag = f'"{stored.sha256}-zstd"' if zstd_file and as_stored else f'"{stored.sha256}"'
    headers = {**HEADERS, "ETag": etag, "Vary": "Accept-Encoding"}
    if _matches(request.headers.get("if-none-match"), etag):
        stored.close()
        return Response(status_code=304, headers=headers)
    if zstd_file and as_stored:
        headers["Content-Encoding"] = ZSTD
    if not as_stored:
        if stored.body is not None:  # a file of a typical size: decompressed at once
            return Response(stored.content(), media_type=replays.MEDIA_TYPE, headers=headers)
        return StreamingResponse(
            _decompressed(stored), media_type=replays.MEDIA_TYPE, headers=headers
        )
    if stored.body is not None:
        # Read whole by the store: one body, no thread-pool hop per chunk.
        return Response(stored.body, media_type=replays.MEDIA_TYPE, headers=headers)
    headers["Content-Length"] = str(stored.file_size)
    return StreamingResponse(_checked(stored), media_type=replays.MEDIA_TYPE, headers=headers)


def _checked(stored: arena.StoredReplay) -> Iterator[bytes]:
    """The file's chunks; if it changed on disk meanwhile, the transfer is broken off."""
    try:
        yield from stored.chunks()
    except arena.CorruptFileError:
        _log.error("replay stream broken off: %s changed while it was sent", stored.path)
        raise


def _decompressed(stored: arena.StoredReplay) -> Iterator[bytes]:
    """A large compressed file, decompressed a chunk at a time as it is sent."""
    yield from replays.iter_decompressed(b"".join(_checked(stored)))
