"""A replay file streamed to a browser, checked by the bounded reader as it goes.

The response is ``application/x-msgpack``: the file's own objects (header,
frames, result), each validated by ``replays.frame_chunks`` before it is sent.
A file whose header or first frame is bad is refused with 422 and the reader's
message; one that turns out bad later (after a 200 has been sent) ends with one
extra object, ``{"type": "error", "detail": ...}``, which the viewer shows.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, Final

import msgpack
from starlette.responses import PlainTextResponse, Response, StreamingResponse

import arena
import replays

__all__ = ["replay_response"]

_log = logging.getLogger("web")

# Objects are sent in batches of about this many bytes: a file is read 64 KiB at
# a time, so its frames are ready at once and one write per frame would only add
# overhead. The header and the first frame go first, alone, so drawing can start.
_BATCH: Final = 32 * 1024

HEADERS: Final = {"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"}


def replay_response(path: Path) -> Response:
    """Stream the replay at ``path``, or a 4xx with a message saying what is wrong with it.

    Only a regular file is opened (``arena.open_regular``): one swapped for a
    FIFO since ``arena view`` checked it is a 404 at once, not a request that hangs.
    """
    try:
        f = arena.open_regular(path, "replay")
    except arena.ArenaError as exc:
        # Its message begins with the path: the browser is told the file's name only.
        reason = str(exc).removeprefix(f"{path}: ")
        return PlainTextResponse(f"{path.name}: {reason}", status_code=404)
    chunks = replays.frame_chunks(f)
    try:
        # The header and the first frame (or the result): a file that is not a
        # replay at all is refused before anything is sent.
        first = next(chunks) + next(chunks, b"")
    except replays.ReplayError as exc:
        f.close()
        return PlainTextResponse(f"{path.name}: {exc}", status_code=422)
    except OSError as exc:
        f.close()
        return PlainTextResponse(
            f"{path.name}: cannot read the replay: {exc.strerror or exc}", status_code=404
        )
    return StreamingResponse(
        _rest(first, chunks, f, path.name), media_type=replays.MEDIA_TYPE, headers=HEADERS
    )


def _rest(first: bytes, chunks: Iterator[bytes], f: BinaryIO, name: str) -> Iterator[bytes]:
    try:
        yield first
        batch = bytearray()
        try:
            for chunk in chunks:
                batch += chunk
                if len(batch) >= _BATCH:
                    yield bytes(batch)
                    batch.clear()
        except (replays.ReplayError, OSError) as exc:
            detail = f"{name}: {exc}"
            _log.warning("replay stream stopped: %s", detail)
            yield bytes(batch) + msgpack.packb({"type": "error", "detail": detail})
            return
        if batch:
            yield bytes(batch)
    finally:
        f.close()
