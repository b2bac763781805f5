"""A replay file streamed to a browser, checked by the bounded reader as it goes.

The response is ``application/x-msgpack``: the file's own objects (header,
frames, result), each validated by ``replays.frame_chunks`` before it is sent.
A file whose header or first frame is bad is refused with 422 and the reader's
message; one that turns out bad later (after a 200 has been sent) ends with one
extra object, ``{"type": "error", "detail": ...}``, which the viewer shows.

A file is read through the reader until it has once been read whole as a valid
replay (by ``arena view`` before it serves, or by a stream that went to the
end); after that, while its stamp (``arena.file_stamp``) is the one it had then,
its bytes are sent as they are, in one body: the object-by-object check and a
thread-pool hop per chunk would only cost the server time that a page's
scripts, asked for beside the replay, wait on. A file that changes is read
through the reader again.
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

__all__ = ["ReplayFile"]

_log = logging.getLogger("web")

# Objects are sent in batches of about this many bytes: a file is read 64 KiB at
# a time, so its frames are ready at once and one write per frame would only add
# overhead. The header and the first frame go first, alone, so drawing can start.
_BATCH: Final = 32 * 1024

WHOLE_BYTES: Final = 4 * 1024 * 1024
"""A checked file up to this size is sent read whole; a larger one goes through the reader."""

HEADERS: Final = {"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"}


class ReplayFile:
    """A replay file served to browsers: streamed through the bounded reader until it has been
    read whole as a valid replay, then sent as it is while it stays that file (see the module).
    """

    def __init__(self, path: Path, checked: arena.FileStamp | None = None) -> None:
        self.path = path
        self.checked = checked
        """The file's stamp when it was last read whole as a valid replay; None until then."""

    @property
    def name(self) -> str:
        """The file's name, the only part of its path a browser is told."""
        return self.path.name

    def response(self) -> Response:
        """The replay's own bytes, or a 4xx with a message saying what is wrong with the file.

        Only a regular file is opened (``arena.open_regular``): one swapped for a
        FIFO since ``arena view`` checked it is a 404 at once, not a request that hangs.
        """
        path = self.path
        try:
            f = arena.open_regular(path, "replay")
        except arena.ArenaError as exc:
            # Its message begins with the path: the browser is told the file's name only.
            reason = str(exc).removeprefix(f"{path}: ")
            return PlainTextResponse(f"{self.name}: {reason}", status_code=404)
        try:
            stamp = arena.file_stamp(f)
            whole = self._checked_bytes(f, stamp)
            if whole is not None:
                f.close()
                return Response(whole, media_type=replays.MEDIA_TYPE, headers=HEADERS)
            chunks = replays.frame_chunks(f)
            # The header and the first frame (or the result): a file that is not a
            # replay at all is refused before anything is sent.
            first = next(chunks) + next(chunks, b"")
        except replays.ReplayError as exc:
            f.close()
            return PlainTextResponse(f"{self.name}: {exc}", status_code=422)
        except OSError as exc:
            f.close()
            return PlainTextResponse(
                f"{self.name}: cannot read the replay: {exc.strerror or exc}", status_code=404
            )
        return StreamingResponse(
            self._rest(first, chunks, f, stamp), media_type=replays.MEDIA_TYPE, headers=HEADERS
        )

    def _checked_bytes(self, f: BinaryIO, stamp: arena.FileStamp) -> bytes | None:
        """The replay's own bytes if ``f`` is still the file that was checked; else None, ``f``
        where it was."""
        if stamp != self.checked or stamp[2] > WHOLE_BYTES:
            return None
        data = arena.read_unchanged(f, stamp)
        if data is None:  # changed as it was read
            f.seek(0)
            return None
        return replays.decompress_replay(data) if replays.is_compressed(data) else data

    def _rest(
        self, first: bytes, chunks: Iterator[bytes], f: BinaryIO, stamp: arena.FileStamp
    ) -> Iterator[bytes]:
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
                detail = f"{self.name}: {exc}"
                _log.warning("replay stream stopped: %s", detail)
                yield bytes(batch) + msgpack.packb({"type": "error", "detail": detail})
                return
            if arena.file_stamp(f) == stamp:  # read whole, valid, and unchanged meanwhile
                self.checked = stamp
            if batch:
                yield bytes(batch)
        finally:
            f.close()
