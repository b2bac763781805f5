"""The site's write token: writes need it, reads do not.

It is ``$ARENA_TOKEN`` if that is set, else the one in ``<data>/server-token``
(mode 0600), which the first start makes (from ``secrets``) and prints, once.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path
from typing import Final

import arena

__all__ = ["TOKEN_ENV", "TOKEN_FILE", "server_token"]

TOKEN_ENV: Final = "ARENA_TOKEN"
TOKEN_FILE: Final = "server-token"


def server_token(root: Path) -> tuple[str, bool]:
    """The token writes need, and whether it was made just now (then it is printed once)."""
    given = os.environ.get(TOKEN_ENV)
    if given is not None:
        if not given.strip() or given != given.strip():
            raise arena.ArenaError(f"${TOKEN_ENV} is empty or has spaces around it")
        return given, False
    path = root / TOKEN_FILE
    token = secrets.token_urlsafe(32)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        return _read_token(path), False
    except OSError as exc:
        raise arena.ArenaError(f"{path}: cannot write the token: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(token + "\n")
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return token, True


def _read_token(path: Path) -> str:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "r", encoding="ascii", errors="replace") as f:
            mode = os.fstat(f.fileno()).st_mode
            if not stat.S_ISREG(mode):
                raise arena.ArenaError(f"{path}: the token file is not a regular file")
            if mode & 0o077:
                # Readable by others: make it the owner's alone before trusting it.
                os.fchmod(f.fileno(), 0o600)
            token = f.read(4096).strip()
    except OSError as exc:
        raise arena.ArenaError(f"{path}: cannot read the token: {exc.strerror or exc}") from None
    if not token:
        raise arena.ArenaError(f"{path}: the token file is empty (delete it to make a new one)")
    return token
