"""Content-addressed files: ``<dir>/<sha256><suffix>``, written atomically, checked on every read.

A file is written in the directory's ``.tmp/`` and renamed into place
(``atomic_write_all``); a killed write leaves its temporary file there, which
``sweep`` deletes. A file's name is the sha256 of its bytes, so a reader can
always tell a good file from a damaged one: every read hashes what it read and refuses a file
whose hash is not its name (``CorruptFileError``), whatever the cause (a
truncation, a bit flip, an edit). Files are only ever replaced by identical
bytes, which is also how a damaged file is repaired: storing the same content
again rewrites it.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

from arena._files import atomic_write_all, sweep_temporary
from arena.store._errors import CorruptFileError, NotInStoreError, StoreError

__all__ = ["CHUNK_BYTES", "STAGING", "Blobs", "ReplayStream", "check_sha256"]

CHUNK_BYTES = 64 * 1024
STAGING = ".tmp"
"""The sub-directory of a kind's directory where its files are written before their rename."""
_SHA256 = re.compile(r"[0-9a-f]{64}")


def check_sha256(sha256: str, what: str) -> str:
    """``sha256`` if it is 64 lowercase hex digits (so it is safe as a file name), else an error."""
    if not isinstance(sha256, str) or not _SHA256.fullmatch(sha256):
        raise NotInStoreError(f"no {what} {sha256!r}: not a sha256 (64 lowercase hex digits)")
    return sha256


class Blobs:
    """One kind of content-addressed file (replays, modules) under one directory."""

    def __init__(self, directory: Path, suffix: str, what: str, max_bytes: int) -> None:
        self.directory = directory
        self.suffix = suffix
        self.what = what
        self.max_bytes = max_bytes
        self.staging = directory / STAGING
        """Where files are written before they are renamed into place (``sweep``)."""
        self._temporary = re.compile(rf"\.[0-9a-f]{{64}}{re.escape(suffix)}\.[0-9a-f]{{12}}")

    def path(self, sha256: str) -> Path:
        """Where the file of ``sha256`` is (or would be); the sha256 is checked first."""
        return self.directory / f"{check_sha256(sha256, self.what)}{self.suffix}"

    def put(self, data: bytes) -> str:
        """Store ``data`` (atomically, fsynced) unless an identical file is there; its sha256."""
        return self.put_all([data])[0]

    def put_all(self, datas: Sequence[bytes]) -> list[str]:
        """``put`` each of ``datas``, the new files written together (``atomic_write_all``:
        all fsynced before any is renamed into place); their sha256s, in order."""
        shas = [hashlib.sha256(data).hexdigest() for data in datas]
        new: dict[Path, bytes] = {}
        for sha256, data in zip(shas, datas, strict=True):
            path = self.path(sha256)
            try:
                if path not in new and not _holds(path, data):
                    new[path] = data
            except OSError as exc:
                raise StoreError(
                    f"cannot write the {self.what} file {path}: {_reason(exc)}"
                ) from exc
        if new:
            try:
                atomic_write_all(list(new.items()), staging=self.staging)
            except OSError as exc:
                files = (
                    f"the {self.what} file {next(iter(new))}"
                    if len(new) == 1
                    else f"{len(new)} {self.what} files in {self.directory}"
                )
                raise StoreError(f"cannot write {files}: {_reason(exc)}") from exc
        return shas

    def sweep(self, older_than: float | None = None) -> list[Path]:
        """Delete the temporary files of writes that never finished; the files deleted.

        A write makes ``.tmp/.<sha256><suffix>.<12 hex>`` and renames it into
        place; a process killed in between leaves it behind. Readers never see
        one (files are found by name, never by listing), so they are only wasted
        room. One that no process holds locked is such a leftover, whatever its
        age: a write in flight holds its file locked until it is renamed
        (``atomic_write_all``), so it is never deleted. This reads ``.tmp/``
        alone, so it is cheap however many files are stored.

        ``older_than`` (seconds) also sweeps the directory itself of the
        temporary files older than that, which writes made beside their files
        before ``.tmp/`` (unlocked, so only their age tells a leftover).
        """
        try:
            swept = sweep_temporary(self.staging, self._is_temporary)
        except OSError as exc:
            raise StoreError(f"cannot sweep {self.staging}: {_reason(exc)}") from exc
        if older_than is not None:
            swept += self._sweep_beside(older_than)
        return swept

    def _is_temporary(self, name: str) -> bool:
        return self._temporary.fullmatch(name) is not None

    def _sweep_beside(self, older_than: float) -> list[Path]:
        """The temporary files older than ``older_than`` s beside the files, deleted."""
        limit = time.time() - older_than
        swept = []
        try:
            entries = list(os.scandir(self.directory))
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise StoreError(f"cannot list {self.directory}: {_reason(exc)}") from exc
        for entry in entries:
            try:
                if (
                    self._temporary.fullmatch(entry.name)
                    and entry.is_file(follow_symlinks=False)
                    and entry.stat(follow_symlinks=False).st_mtime < limit
                ):
                    os.unlink(entry.path)
                    swept.append(Path(entry.path))
            except FileNotFoundError:
                continue  # another process swept it or renamed it into place
            except OSError as exc:
                raise StoreError(f"cannot delete {entry.path}: {_reason(exc)}") from exc
        return swept

    def read(self, sha256: str) -> bytes:
        """The file's bytes, checked against its name; FileNotFoundError if there is none."""
        path = self.path(sha256)
        try:
            with open(path, "rb") as f:
                data = f.read(self.max_bytes + 1)
        except FileNotFoundError:
            raise
        except OSError as exc:
            raise StoreError(f"cannot read the {self.what} file {path}: {_reason(exc)}") from exc
        self._check(path, sha256, hashlib.sha256(data).hexdigest(), len(data))
        return data

    def open(self, sha256: str, chunk_size: int = CHUNK_BYTES) -> ReplayStream:
        """Open the file, hash it whole, and hand it out for streaming only if it is good.

        FileNotFoundError if there is none.
        """
        path = self.path(sha256)
        try:
            f = open(path, "rb")  # noqa: SIM115 (the stream owns it)
        except FileNotFoundError:
            raise
        except OSError as exc:
            raise StoreError(f"cannot read the {self.what} file {path}: {_reason(exc)}") from exc
        try:
            digest, size = _hash(f, chunk_size, self.max_bytes)
            self._check(path, sha256, digest, size)
        except OSError as exc:
            f.close()
            raise StoreError(f"cannot read the {self.what} file {path}: {_reason(exc)}") from exc
        except BaseException:
            f.close()
            raise
        return ReplayStream(f, path, sha256, size, chunk_size, self.what)

    def stored(self) -> list[str]:
        """The sha256 of every file stored here (the files named ``<sha256><suffix>``)."""
        pattern = re.compile(rf"([0-9a-f]{{64}}){re.escape(self.suffix)}")
        try:
            names = os.listdir(self.directory)
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise StoreError(f"cannot list {self.directory}: {_reason(exc)}") from exc
        return sorted(m[1] for name in names if (m := pattern.fullmatch(name)))

    def size(self, sha256: str) -> int | None:
        """The file's size in bytes, or None if there is none."""
        try:
            return os.stat(self.path(sha256), follow_symlinks=False).st_size
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StoreError(f"cannot read {self.path(sha256)}: {_reason(exc)}") from exc

    def delete(self, sha256: str) -> None:
        """Delete the file of ``sha256`` (nothing if there is none). The caller makes sure
        no row points at it, in the write transaction this runs in."""
        try:
            os.unlink(self.path(sha256))
        except FileNotFoundError:
            return
        except OSError as exc:
            raise StoreError(f"cannot delete {self.path(sha256)}: {_reason(exc)}") from exc

    def _check(self, path: Path, expected: str, actual: str, size: int) -> None:
        if size > self.max_bytes:
            raise CorruptFileError(
                f"the {self.what} file {path} is over {self.max_bytes:,} bytes: "
                f"not a stored {self.what}"
            )
        if actual != expected:
            raise CorruptFileError(
                f"the {self.what} file {path} is damaged: its {size:,} bytes hash to {actual}, "
                "not to its name (truncated or changed on disk)"
            )


class ReplayStream:
    """A content-addressed file that was verified when opened, ready to stream in chunks.

    Opening it (``Store.open_replay``) reads and hashes the whole file before a
    single byte is handed out, so a damaged file is refused while the caller
    can still answer with an error (a web response has not started). Iterating
    reads the same open file again from the start and hashes it once more: if
    the bytes changed in between (someone wrote into the file in place), the
    iteration raises ``CorruptFileError`` after the last chunk, so the caller
    can break the transfer off rather than end it as good. Iterate once; the
    file is closed at the end, on an error, or by ``close()``.
    """

    def __init__(
        self, f: BinaryIO, path: Path, sha256: str, size: int, chunk_size: int, what: str
    ) -> None:
        self._file = f
        self.path = path
        self.sha256 = sha256
        self.size = size
        """The file's size in bytes (e.g. a Content-Length)."""
        self._chunk_size = chunk_size
        self._what = what

    def __iter__(self) -> Iterator[bytes]:
        try:
            self._file.seek(0)
            h = hashlib.sha256()
            size = 0
            while size <= self.size and (chunk := self._file.read(self._chunk_size)):
                size += len(chunk)
                h.update(chunk)
                yield chunk
            if size != self.size or h.hexdigest() != self.sha256:
                raise CorruptFileError(
                    f"the {self._what} file {self.path} changed while it was streamed"
                )
        finally:
            self._file.close()

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> ReplayStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _hash(f: BinaryIO, chunk_size: int, max_bytes: int) -> tuple[str, int]:
    h = hashlib.sha256()
    size = 0
    while size <= max_bytes and (chunk := f.read(chunk_size)):
        size += len(chunk)
        h.update(chunk)
    return h.hexdigest(), size


def _holds(path: Path, data: bytes) -> bool:
    """Whether ``path`` already holds exactly ``data`` (read at most one byte more)."""
    try:
        with open(path, "rb") as f:
            return f.read(len(data) + 1) == data
    except FileNotFoundError:
        return False


def _reason(exc: OSError) -> str:
    return os.strerror(exc.errno) if exc.errno else str(exc)
