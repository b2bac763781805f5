"""Content-addressed files: ``<dir>/<sha256><suffix>``, written atomically, checked on every read.

A file is written in the directory's ``.tmp/`` and renamed into place
(``atomic_write_all``); a killed write leaves its temporary file there, which
``sweep`` deletes. A file's name is the sha256 of its content, so a reader can
always tell a good file from a damaged one: every read hashes what it read and refuses a file
whose hash is not its name (``CorruptFileError``), whatever the cause (a
truncation, a bit flip, an edit). Files are only ever replaced by the same
content, which is also how a damaged file is repaired: storing the same
content again rewrites it.

Replays are kept compressed (``compressed=True``): the file holds one zstd
frame of the replay (``replays.compress_replay``) and its name stays the
sha256 of the replay's own bytes, so a match's ``replay_sha256`` is the same
whichever way its file is kept. A replay the command line names by its path
(a one-off match's, a proof run's) is written raw (``put(raw=True)``), as is
a file written before replays were compressed; every read tells the two apart
by the zstd magic, so both are read and served (docs/storage.md).

``Blobs.stored_replay`` serves a web request: the file's digest is checked the
first time and then only when the file changes (its inode, size, mtime or
ctime), and a file of a typical size is read in one call.
"""

from __future__ import annotations

import enum
import hashlib
import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import BinaryIO, Final

import replays
from arena._files import (
    FileStamp,
    atomic_write_all,
    file_stamp,
    read_unchanged,
    sweep_temporary,
)
from arena.store._errors import CorruptFileError, NotInStoreError, StoreError

__all__ = ["STAGING", "Blobs", "FileCoding", "StoredReplay", "check_sha256"]

WHOLE_READ_BYTES: Final = 4 * 1024 * 1024
"""A file up to this size is handed out read whole (one read); a larger one as an open file."""
STREAM_CHUNK_BYTES: Final = 1024 * 1024
"""Bytes read at a time from a file over ``WHOLE_READ_BYTES``."""
VERIFIED_FILES: Final = 4096
"""Files whose verified state is remembered (the least recently used are forgotten)."""
STAGING = ".tmp"
"""The sub-directory of a kind's directory where its files are written before their rename."""
_SHA256 = re.compile(r"[0-9a-f]{64}")


class FileCoding(enum.StrEnum):
    """How a stored file holds its content."""

    RAW = "raw"
    """The content itself (modules; replays stored before they were compressed)."""
    ZSTD = "zstd"
    """One zstd frame of the content (replays): also its HTTP content-coding's name."""


def check_sha256(sha256: str, what: str) -> str:
    """``sha256`` if it is 64 lowercase hex digits (so it is safe as a file name), else an error."""
    if not isinstance(sha256, str) or not _SHA256.fullmatch(sha256):
        raise NotInStoreError(f"no {what} {sha256!r}: not a sha256 (64 lowercase hex digits)")
    return sha256


class Blobs:
    """One kind of content-addressed file (replays, modules) under one directory."""

    def __init__(
        self, directory: Path, suffix: str, what: str, max_bytes: int, *, compressed: bool = False
    ) -> None:
        self.directory = directory
        self.suffix = suffix
        self.what = what
        self.max_bytes = max_bytes
        self.compressed = compressed
        """New files are written zstd-compressed (replays); reads take either kind."""
        self._verified: OrderedDict[str, FileStamp] = OrderedDict()
        self._verified_lock = threading.Lock()
        self.staging = directory / STAGING
        """Where files are written before they are renamed into place (``sweep``)."""
        self._temporary = re.compile(rf"\.[0-9a-f]{{64}}{re.escape(suffix)}\.[0-9a-f]{{12}}")

    def path(self, sha256: str) -> Path:
        """Where the file of ``sha256`` is (or would be); the sha256 is checked first."""
        return self.directory / f"{check_sha256(sha256, self.what)}{self.suffix}"

    def put(self, data: bytes | replays.PackedReplay, *, raw: bool = False) -> str:
        """Store ``data`` (atomically, fsynced) unless an identical file is there; its sha256."""
        return self.put_all([data], raw=raw)[0]

    def put_all(
        self, datas: Sequence[bytes | replays.PackedReplay], *, raw: bool = False
    ) -> list[str]:
        """``put`` each of ``datas``, the new files written together (``atomic_write_all``:
        all fsynced before any is renamed into place); their sha256s, in order.

        A replay packed where it was played (``replays.PackedReplay``, for a kind
        kept compressed) is checked (its frame decompresses to bytes of its sha256)
        and its frame written as it is, not compressed again.

        ``raw`` writes the content itself even in a kind kept compressed, and a file
        of the same content kept compressed is written again raw: the files the
        command line names by their path (docs/storage.md).
        """
        new: dict[Path, bytes] = {}
        shas = []
        for data in datas:
            content, stored, sha256 = self._content(data)
            shas.append(sha256)
            path = self.path(sha256)
            try:
                if path not in new and not self._holds(path, content, raw_only=raw):
                    if raw:
                        stored = content
                    elif stored is None:
                        stored = replays.compress_replay(content) if self.compressed else content
                    new[path] = stored
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

    def _content(self, data: bytes | replays.PackedReplay) -> tuple[bytes, bytes | None, str]:
        """The bytes to store, for a packed replay its file as it is kept (the frame), and
        their sha256."""
        if not isinstance(data, replays.PackedReplay):
            return data, None, hashlib.sha256(data).hexdigest()
        if not self.compressed:
            raise ValueError(f"a packed replay given to the {self.what} files, kept raw")
        try:
            raw = data.unpacked(replays.ReplayLimits(max_bytes=self.max_bytes))
        except replays.ReplayError as exc:
            raise StoreError(f"cannot store a packed {self.what}: {exc}") from exc
        return raw, data.frame, data.sha256

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
        """The content (decompressed), checked against its name; FileNotFoundError if none."""
        path = self.path(sha256)
        try:
            with open(path, "rb") as f:
                data = f.read(self.max_bytes + 1)
        except FileNotFoundError:
            raise
        except OSError as exc:
            raise StoreError(f"cannot read the {self.what} file {path}: {_reason(exc)}") from exc
        return self._checked(path, sha256, data)

    def stored_replay(self, sha256: str) -> StoredReplay:
        """The file of ``sha256`` as stored, ready to send; FileNotFoundError if there is none.

        Its digest is checked the first time, and again only when the file
        changed since (another inode, size, mtime or ctime): a damaged file is
        refused (``CorruptFileError``) before a byte is handed out. A file up to
        ``WHOLE_READ_BYTES`` comes read whole (``body``), the bytes checked being
        the bytes handed out; a larger one as an open file (``chunks``), which
        raises ``CorruptFileError`` at its end if the file changed meanwhile.
        """
        path = self.path(sha256)
        try:
            f = open(path, "rb")  # noqa: SIM115 (closed here, or by the StoredReplay)
        except FileNotFoundError:
            raise
        except OSError as exc:
            raise StoreError(f"cannot read the {self.what} file {path}: {_reason(exc)}") from exc
        try:
            before = file_stamp(f)
            if before[2] > self.max_bytes:
                self._check(path, sha256, "", before[2])
            if before[2] <= WHOLE_READ_BYTES:
                data = f.read(before[2] + 1)
                after = file_stamp(f)
                f.close()
                if after != before or len(data) != before[2] or not self._known(sha256, after):
                    content = self._checked(path, sha256, data)
                    self._remember(sha256, after if after == before else None)
                else:
                    content = None
                return StoredReplay(sha256, path, _coding(data), len(data), data, content)
            if not self._known(sha256, before):
                # Checked whole now; the stream is checked against ``before`` at its end.
                self._checked(path, sha256, f.read(self.max_bytes + 1))
                f.seek(0)
                self._remember(sha256, before)
            head = f.read(4)
            f.seek(0)
            return StoredReplay(
                sha256, path, _coding(head), before[2], None, None, _file=f, _key=before
            )
        except OSError as exc:
            f.close()
            raise StoreError(f"cannot read the {self.what} file {path}: {_reason(exc)}") from exc
        except BaseException:
            f.close()
            raise

    def verified_replay(self, sha256: str, most: int) -> StoredReplay | None:
        """``stored_replay``'s answer without hashing or waiting on much: the file read whole if
        it is at most ``most`` bytes and was verified as it is now; else None (ask
        ``stored_replay``). For an event loop, which must not hash a large file."""
        path = self.path(sha256)
        try:
            with open(path, "rb") as f:
                before = file_stamp(f)
                if before[2] > most or not self._known(sha256, before):
                    return None
                data = read_unchanged(f, before)
        except OSError:
            return None  # ``stored_replay`` says what is wrong
        if data is None:
            return None
        return StoredReplay(sha256, path, _coding(data), len(data), data)

    def _known(self, sha256: str, key: FileStamp) -> bool:
        """Whether the file of ``sha256`` was verified as it is now (``key``)."""
        with self._verified_lock:
            if self._verified.get(sha256) != key:
                return False
            self._verified.move_to_end(sha256)
            return True

    def _remember(self, sha256: str, key: FileStamp | None) -> None:
        with self._verified_lock:
            if key is None:
                self._verified.pop(sha256, None)
                return
            self._verified[sha256] = key
            self._verified.move_to_end(sha256)
            while len(self._verified) > VERIFIED_FILES:
                self._verified.popitem(last=False)

    def _checked(self, path: Path, sha256: str, data: bytes) -> bytes:
        """The content of the file bytes ``data``, if it hashes to ``sha256``."""
        if len(data) > self.max_bytes:
            self._check(path, sha256, "", len(data))
        content = data
        if replays.is_compressed(data):
            try:
                content = replays.decompress_replay(
                    data, replays.ReplayLimits(max_bytes=self.max_bytes)
                )
            except replays.ReplayError as exc:
                raise CorruptFileError(
                    f"the {self.what} file {path} is damaged: its {len(data):,} bytes do not"
                    f" decompress ({exc})"
                ) from None
        self._check(path, sha256, hashlib.sha256(content).hexdigest(), len(content))
        return content

    def _holds(self, path: Path, data: bytes, *, raw_only: bool = False) -> bool:
        """Whether ``path`` already holds exactly ``data`` (compressed or not; only as it is,
        with ``raw_only``)."""
        try:
            with open(path, "rb") as f:
                if not self.compressed or raw_only:
                    return f.read(len(data) + 1) == data
                held = f.read(self.max_bytes + 1)
        except FileNotFoundError:
            return False
        if not replays.is_compressed(held):
            return held == data
        try:
            limits = replays.ReplayLimits(max_bytes=max(len(data), 1))
            return replays.decompress_replay(held, limits) == data
        except replays.ReplayError:
            return False  # damaged: written again

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


# A plain class: not a dataclass, whose import a one-off match would pay for (the store
# loads this module), nor a frozen Struct, as reading it fills and empties its own fields.
class StoredReplay:
    """A stored file whose digest was checked, as ``Blobs.stored_replay`` hands it out.

    Either ``body`` (the file's bytes, read whole) or ``chunks`` (an open file,
    read once, closed at its end or by ``close``). Equal only to itself.
    """

    __slots__ = ("_content", "_file", "_key", "body", "coding", "file_size", "path", "sha256")

    sha256: str
    """The sha256 of the content (the replay's own bytes): the file's name."""
    path: Path
    coding: FileCoding
    """How the file holds the replay: ``ZSTD`` (one zstd frame) or ``RAW``."""
    file_size: int
    """The file's size in bytes: a Content-Length for ``body``/``chunks`` as they are."""
    body: bytes | None
    """The file's bytes, if it was read whole."""

    def __init__(
        self,
        sha256: str,
        path: Path,
        coding: FileCoding,
        file_size: int,
        body: bytes | None,
        _content: bytes | None = None,
        _file: BinaryIO | None = None,
        _key: FileStamp | None = None,
    ) -> None:
        self.sha256 = sha256
        self.path = path
        self.coding = coding
        self.file_size = file_size
        self.body = body
        self._content = _content
        self._file = _file
        self._key = _key

    def __repr__(self) -> str:
        # The public fields, as a dataclass shows them.
        return (
            f"StoredReplay(sha256={self.sha256!r}, path={self.path!r}, coding={self.coding!r},"
            f" file_size={self.file_size!r}, body={self.body!r})"
        )

    def content(self) -> bytes:
        """The replay's own bytes (decompressed if the file is compressed)."""
        if self._content is None:
            data = self.body if self.body is not None else b"".join(self.chunks())
            self._content = (
                replays.decompress_replay(data) if self.coding is FileCoding.ZSTD else data
            )
        return self._content

    def chunks(self) -> Iterator[bytes]:
        """The file's bytes as stored, ``STREAM_CHUNK_BYTES`` at a time; ``CorruptFileError``
        after the last if the file changed since its digest was checked."""
        if self.body is not None:
            yield self.body
            return
        assert self._file is not None, "a StoredReplay's chunks are read once"
        f, self._file = self._file, None
        try:
            size = 0
            while size <= self.file_size and (chunk := f.read(STREAM_CHUNK_BYTES)):
                size += len(chunk)
                yield chunk
            if size != self.file_size or file_stamp(f) != self._key:
                raise CorruptFileError(f"the replay file {self.path} changed while it was sent")
        finally:
            f.close()

    def close(self) -> None:
        """Close the open file, if any (``chunks`` does at its end)."""
        if self._file is not None:
            self._file.close()
            self._file = None


def _coding(head: bytes) -> FileCoding:
    return FileCoding.ZSTD if replays.is_compressed(head) else FileCoding.RAW


def _reason(exc: OSError) -> str:
    return os.strerror(exc.errno) if exc.errno else str(exc)
