"""The static files (scripts, styles, vendored libraries), served from memory.

Starlette's ``StaticFiles`` looks each file up and reads it in worker threads:
a few milliseconds of the server's time per file, and a page's first load asks
for twenty at once, beside the replay stream the server checks object by
object. Here the files are read when the app is made and answered from memory
(the directory is the package's own, a few hundred KiB), with the same headers
as ``StaticFiles`` (``ETag``, ``Last-Modified``; 304 for a conditional request
that matches), so the browser caches them as before. A file edited since is
read again when it is next asked for (its size or mtime changed); the set of
files is the one found at the start.

A path is a key of that table or nothing: no request can name a file outside
the directory (``..``, ``%2e%2e``, absolute paths and NUL all miss it: 404).
"""

from __future__ import annotations

import hashlib
import mimetypes
import os
from dataclasses import dataclass
from email.utils import formatdate
from pathlib import Path

from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

__all__ = ["MemoryStaticFiles"]


@dataclass(frozen=True, slots=True)
class _File:
    body: bytes
    media_type: str
    etag: str
    last_modified: str
    stamp: tuple[int, int]
    """(size, mtime in ns) when read."""


def _stamp(path: Path) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_size, st.st_mtime_ns


def _read(path: Path) -> _File:
    stamp = _stamp(path)
    body = path.read_bytes()
    # As StaticFiles: Starlette adds "; charset=utf-8" to the text types.
    media_type = mimetypes.guess_type(path.name)[0] or "text/plain"
    return _File(
        body,
        media_type,
        f'"{hashlib.sha256(body).hexdigest()[:32]}"',
        formatdate(stamp[1] / 1e9, usegmt=True),
        stamp,
    )


class MemoryStaticFiles:
    """An ASGI app serving every file under ``directory`` from memory (see the module's doc)."""

    def __init__(self, directory: Path) -> None:
        # ES modules must be served as JavaScript; not every system's table knows .mjs.
        mimetypes.add_type("text/javascript", ".mjs")
        self.directory = directory
        self._files = {
            path.relative_to(directory).as_posix(): _read(path)
            for path in sorted(directory.rglob("*"))
            if path.is_file()
        }

    def _file(self, name: str) -> _File | None:
        cached = self._files.get(name)
        if cached is None:
            return None
        path = self.directory / name
        try:
            # A stat in the event loop: microseconds, for the package's own small files.
            if _stamp(path) == cached.stamp:
                return cached
            fresh = _read(path)  # edited since: a small file of the package, read again
        except OSError:
            return None
        self._files[name] = fresh
        return fresh

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert scope["type"] == "http"
        # Raised, as StaticFiles does, for the app's own error handlers (the site's are JSON).
        if scope["method"] not in ("GET", "HEAD"):
            raise HTTPException(405, headers={"Allow": "GET, HEAD"})
        found = self._file(_name(scope))
        if found is None:
            raise HTTPException(404)
        headers = {"ETag": found.etag, "Last-Modified": found.last_modified}
        asked = Headers(scope=scope).get("if-none-match")
        if asked is not None and found.etag in (t.strip() for t in asked.split(",")):
            response = Response(status_code=304, headers=headers)
        elif scope["method"] == "HEAD":
            headers["Content-Length"] = str(len(found.body))
            response = Response(b"", media_type=found.media_type, headers=headers)
        else:
            response = Response(found.body, media_type=found.media_type, headers=headers)
        await response(scope, receive, send)


def _name(scope: Scope) -> str:
    """The path under the mount point (a Mount passes the whole path and its own prefix)."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    if root and path.startswith(root):
        path = path[len(root) :]
    return path.lstrip("/")
