"""The site's tokens and the sides of the site: who may call what.

Every route is on one **side** (``Side``): public (anyone; without a console
token it shows only what is published), console, worker or push. A token has
one **role** (``Role``, ``arena.TokenRole``): a console token may do
everything the console does (every side but a worker's), a push token only
pushes, a worker token only answers for its worker (``SIDE_ROLES``).

Tokens are made by ``arena token create`` (``new_token``): the token is printed
once and the store keeps only its digest (``token_digest``: the sha256 of its
text). Besides them, the **quick-start token** is a console token: ``$ARENA_TOKEN``
if that is set, else the one in ``<data>/server-token`` (mode 0600), which the
first start makes (from ``secrets``) and prints, once (``server_token``).

``Keyring`` tells who a request's ``Authorization: Bearer <token>`` is
(``Caller``), comparing in constant time: the quick-start token's bytes with
``hmac.compare_digest``, and the given token's digest with every live token's
digest, each one compared, whichever matches.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import secrets
import stat
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Final

import arena

__all__ = [
    "SIDE_ROLES",
    "TOKEN_ENV",
    "TOKEN_FILE",
    "Caller",
    "Keyring",
    "Role",
    "Side",
    "bearer",
    "new_token",
    "server_token",
    "token_digest",
]

_log = logging.getLogger("web")

TOKEN_ENV: Final = "ARENA_TOKEN"
TOKEN_FILE: Final = "server-token"

Role = arena.TokenRole
"""A token's role: console, worker or push (the store keeps it)."""


class Side(StrEnum):
    """Which side of the site a route or a page is on: who may call it."""

    PUBLIC = "public"
    """Anyone, with a token of any role or none; what it shows without a console token is
    only what is published."""
    CONSOLE = "console"
    """A console token."""
    WORKER = "worker"
    """A worker token (its worker's routes)."""
    PUSH = "push"
    """A push token (or a console one)."""


SIDE_ROLES: Final[Mapping[Side, frozenset[arena.TokenRole]]] = {
    Side.PUBLIC: frozenset(Role),
    Side.CONSOLE: frozenset({Role.CONSOLE}),
    Side.WORKER: frozenset({Role.WORKER}),
    Side.PUSH: frozenset({Role.PUSH, Role.CONSOLE}),
}
"""The roles a side lets in (the public side: any, and no token too)."""

QUICK_START_NAME: Final = "quick-start"
"""The name the quick-start console token goes by (``Caller.name``)."""


@dataclass(frozen=True, slots=True)
class Caller:
    """Who a request's token says it is: a role, and the token's name (a worker's: its worker)."""

    role: arena.TokenRole
    name: str
    token_id: int | None
    """The stored token's id; None for the quick-start token."""

    @property
    def console(self) -> bool:
        """Whether it sees everything (a console token)."""
        return self.role is Role.CONSOLE


def new_token() -> str:
    """A new token's text: 256 random bits, URL-safe."""
    return secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    """What the store keeps of a token: the sha256 of its text, in hex."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def bearer(header: str) -> bytes | None:
    """The token of an ``Authorization: Bearer <token>`` header as bytes (latin-1, as the
    header arrived), or None for another scheme."""
    scheme, _, given = header.partition(" ")
    if scheme.lower() != "bearer":
        return None
    return given.strip().encode("latin-1")


class Keyring:
    """The tokens a site takes: the quick-start console token and the store's live tokens.

    The store's are read again at most every ``refresh`` seconds, so a token
    made or revoked by ``arena token`` (another process) is taken or refused
    within that time.
    """

    def __init__(
        self, store: arena.Store | None, quick_start: str | None, *, refresh: float = 1.0
    ) -> None:
        self._store = store
        self._quick = None if quick_start is None else quick_start.encode("utf-8")
        self._refresh = refresh
        self._lock = threading.Lock()
        self._live: tuple[arena.TokenRecord, ...] = ()
        self._read_at = -float("inf")

    def _tokens(self) -> tuple[arena.TokenRecord, ...]:
        if self._store is None:
            return ()
        with self._lock:
            if time.monotonic() - self._read_at >= self._refresh:
                try:
                    self._live = tuple(self._store.tokens(include_revoked=False))
                except arena.StoreError as exc:
                    # Busy or failing: keep the tokens read last (the guard runs before any
                    # route's error handling), and read again at the next request.
                    _log.error("the tokens could not be read again, the last read kept: %s", exc)
                    return self._live
                self._read_at = time.monotonic()
            return self._live

    def forget(self) -> None:
        """Read the store's tokens again at the next request (after this server changed them)."""
        with self._lock:
            self._read_at = -float("inf")

    def live(self, token_id: int) -> bool:
        """Whether the stored token ``token_id`` is still live (not revoked, not deleted), as
        read at most ``refresh`` seconds ago."""
        return any(record.id == token_id for record in self._tokens())

    def identify(self, header: str) -> Caller | None:
        """The caller an ``Authorization`` header names, or None if it names no token here."""
        given = bearer(header)
        if given is None:
            return None
        found: Caller | None = None
        if self._quick is not None and hmac.compare_digest(given, self._quick):
            found = Caller(Role.CONSOLE, QUICK_START_NAME, None)
        digest = hashlib.sha256(given).hexdigest().encode("ascii")
        for record in self._tokens():
            # Every live token is compared, whichever matches: no early answer.
            if hmac.compare_digest(digest, record.digest.encode("ascii")) and found is None:
                found = Caller(record.role, record.name, record.id)
        return found


def server_token(root: Path) -> tuple[str, bool]:
    """The quick-start console token, and whether it was made just now (then it is printed
    once)."""
    given = os.environ.get(TOKEN_ENV)
    if given is not None:
        if not given.strip() or given != given.strip():
            raise arena.ArenaError(f"${TOKEN_ENV} is empty or has spaces around it")
        return given, False
    path = root / TOKEN_FILE
    token = new_token()
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
