"""Files the arena writes: atomically (temp file + rename), under one data directory."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["atomic_write", "data_dir"]


def data_dir() -> Path:
    """The data directory: ``$FORAY_DATA_DIR``, else ``./data``."""
    return Path(os.environ.get("FORAY_DATA_DIR", "data"))


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the new, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # A fresh name beside the target, created exclusively (tempfile's mkstemp,
    # without importing tempfile: a one-off match should not pay for it).
    tmp = path.parent / f".{path.name}.{os.urandom(6).hex()}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o644)
    try:
        os.fchmod(fd, 0o644)  # whatever the umask: these files are meant to be shared
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
