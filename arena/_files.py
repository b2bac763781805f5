"""Files the arena reads and writes: bounded reads of regular files, atomic writes, one data dir.

Every path comes from the operator, so every failure is an operator error
(``ArenaError``, exit 2) that names the path (the command line escapes it
for the terminal): a FIFO, a device or a directory
is refused without blocking (it is opened non-blocking and judged by ``fstat``
before a byte is read), an output path is checked before the work that would
fill it, and no ``OSError`` escapes as a traceback.
"""

from __future__ import annotations

import fcntl
import os
import stat
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import BinaryIO

from arena._errors import ArenaError

__all__ = [
    "FileStamp",
    "atomic_write",
    "atomic_write_all",
    "cache_dir",
    "check_directory",
    "check_output",
    "data_dir",
    "file_stamp",
    "open_regular",
    "read_regular",
    "read_unchanged",
    "sweep_temporary",
    "write_output",
]


def data_dir() -> Path:
    """The data directory: ``$FORAY_DATA_DIR``, else ``./data``."""
    return Path(os.environ.get("FORAY_DATA_DIR", "data"))


def cache_dir() -> Path:
    """The machine's disk cache (compiled modules, loaded cases): ``$FORAY_CACHE_DIR``, else
    ``cache/`` in the data directory."""
    root = os.environ.get("FORAY_CACHE_DIR")
    return Path(root) if root else data_dir() / "cache"


def _kind(mode: int) -> str:
    if stat.S_ISREG(mode):
        return "a regular file"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "something else"


def _failed(path: Path, what: str, exc: OSError) -> ArenaError:
    return ArenaError(f"{path}: cannot {what}: {exc.strerror or exc}")


def open_regular(path: Path, what: str) -> BinaryIO:
    """Open ``path`` for reading if it is a regular file; ``what`` names the file in errors.

    O_NONBLOCK makes opening a FIFO return at once (no writer needed), and
    ``fstat`` on the open file judges what was opened, so a file swapped in
    between a check and the open cannot slip through.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise _failed(path, f"read the {what}", exc) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise ArenaError(f"{path}: the {what} is {_kind(mode)}, not a regular file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


FileStamp = tuple[int, int, int, int, int]
"""An open file's device, inode, size, mtime and ctime (ns): ``file_stamp``."""


def file_stamp(f: BinaryIO) -> FileStamp:
    """The stamp of the open file ``f``: while it is the same, the file holds the same bytes.

    A write changes the size or the mtime, and the ctime (which no tool can set
    back); a file renamed into place has another inode. So bytes checked once
    need checking again only when the stamp changes.
    """
    st = os.fstat(f.fileno())
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def read_unchanged(f: BinaryIO, stamp: FileStamp) -> bytes | None:
    """The rest of the open file ``f``, if it holds the bytes ``stamp`` says and still has that
    stamp once read; else None (it changed before or as it was read)."""
    data = f.read(stamp[2] + 1)
    return data if len(data) == stamp[2] and file_stamp(f) == stamp else None


def read_regular(path: Path, most: int, what: str) -> bytes:
    """At most ``most + 1`` bytes of the regular file ``path`` (one more shows it is too big)."""
    with open_regular(path, what) as f:
        try:
            return f.read(most + 1)
        except OSError as exc:
            raise _failed(path, f"read the {what}", exc) from None


def check_directory(path: Path, what: str) -> None:
    """Refuse, before any work, a directory path that could not hold the ``what``.

    ``path`` must be a directory, or not exist yet with a directory as its
    nearest existing ancestor (it is created when written to).
    """
    current = path
    while True:
        try:
            mode = os.stat(current).st_mode
            break
        except (FileNotFoundError, NotADirectoryError):
            if current == current.parent:
                raise ArenaError(f"{path}: no existing directory above it") from None
            current = current.parent
        except OSError as exc:
            raise _failed(path, f"write the {what}", exc) from None
    if not stat.S_ISDIR(mode):
        where = "it" if current == path else str(current)
        raise ArenaError(
            f"{path}: cannot write the {what} there: {where} is {_kind(mode)}, not a directory"
        )


def check_output(path: Path, what: str) -> None:
    """Refuse, before any work, an output path that could not take a file.

    ``path`` may not exist yet, or must be a regular file (never a symbolic
    link, a directory, a FIFO or a device: a rename would replace the entry
    itself); its directory must be one, or be creatable (``check_directory``).
    """
    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        mode = None  # not there (or under a file, which check_directory names)
    except OSError as exc:
        raise _failed(path, f"write the {what}", exc) from None
    if mode is not None and not stat.S_ISREG(mode):
        raise ArenaError(f"{path}: the {what} would replace {_kind(mode)}; give a file path")
    check_directory(path.parent, what)


def write_output(path: Path, data: bytes, what: str) -> None:
    """``atomic_write`` for an operator's path: checked first, every OSError an ArenaError."""
    check_output(path, what)
    try:
        atomic_write(path, data)
    except OSError as exc:
        raise _failed(path, f"write the {what}", exc) from None


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the new, never half."""
    atomic_write_all([(path, data)])


def atomic_write_all(files: Sequence[tuple[Path, bytes]], *, staging: Path | None = None) -> None:
    """``atomic_write`` for several files: every one written, then every one fsynced, then
    each renamed into place, so that one journal commit covers them all on most file systems
    (a batch of replays costs one commit, not one each). A failure leaves no temporary file
    and renames nothing after it; the files renamed before it stay, each whole.

    Each temporary file is ``.<name>.<12 hex>`` in ``staging`` (a directory on the same
    file system; default: beside its file), locked (``flock``) from its creation until it
    is renamed into place: ``sweep_temporary`` deletes only one that nobody holds, the
    temporary file of a write whose process is gone.
    """
    tmps: list[Path] = []
    fds: list[int] = []  # the temporary files still open, each locked
    renamed = 0
    try:
        for path, data in files:
            directory = path.parent if staging is None else staging
            directory.mkdir(parents=True, exist_ok=True)
            fd, tmp = _locked_temporary(directory / f".{path.name}")
            fds.append(fd)
            tmps.append(tmp)
            os.fchmod(fd, 0o644)  # whatever the umask: these files are meant to be shared
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        for fd in fds:
            os.fsync(fd)
        for tmp, (path, _) in zip(tmps, files, strict=True):
            os.replace(tmp, path)
            renamed += 1
    except BaseException:
        for tmp in tmps[renamed:]:
            tmp.unlink(missing_ok=True)
        raise
    finally:
        # Closed only now: the lock says "being written" until every file is in place.
        for fd in fds:
            os.close(fd)


def _locked_temporary(prefix: Path) -> tuple[int, Path]:
    """A new file ``<prefix>.<12 hex>``, open for writing and locked: its fd and path.

    A fresh name, created exclusively (tempfile's mkstemp, without importing
    tempfile: a one-off match should not pay for it). A sweep may find it between
    its creation and its lock and delete it (nobody held it yet): the lock taken,
    a file no longer linked is given up for another name.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    while True:
        tmp = prefix.with_name(f"{prefix.name}.{os.urandom(6).hex()}")
        fd = os.open(tmp, flags, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # a sweep holds it only to delete it
        except OSError:
            return fd, tmp  # no locks here (some network file systems): no sweep deletes it
        if os.fstat(fd).st_nlink > 0:
            return fd, tmp
        os.close(fd)


def sweep_temporary(directory: Path, is_temporary: Callable[[str], bool]) -> list[Path]:
    """Delete the files of ``directory`` whose names ``is_temporary`` accepts and that no
    process holds locked: temporary files of ``atomic_write_all`` whose writer was killed
    (the kernel drops a dead process's locks). Whatever their age: one being written is
    locked, and left alone. Returns the files deleted; ``OSError`` if one cannot be.
    """
    swept: list[Path] = []
    try:
        entries = [e for e in os.scandir(directory) if is_temporary(e.name)]
    except FileNotFoundError:
        return []
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    for entry in entries:
        try:
            fd = os.open(entry.path, flags)
        except FileNotFoundError:
            continue  # renamed into place, or swept by another process
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue  # a live writer holds it (or this file system has no locks)
            # Still the file that was locked (its name was not taken by another since)?
            if os.stat(entry.path, follow_symlinks=False).st_ino == os.fstat(fd).st_ino:
                os.unlink(entry.path)
                swept.append(Path(entry.path))
        except FileNotFoundError:
            continue
        finally:
            os.close(fd)
    return swept
