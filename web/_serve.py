"""``arena serve``: the site over the data directory, served by uvicorn, and its token.

Writes need the server's token: ``$ARENA_TOKEN`` if it is set, else the one in
``<data>/server-token`` (mode 0600), which the first start makes (from
``secrets``) and prints, once.
"""

from __future__ import annotations

import contextlib
import copy
import ipaddress
import logging.config
import os
import secrets
import stat
from pathlib import Path
from typing import Any, Final

import uvicorn
import uvicorn.config

import arena
from web._api import site_app
from web._server import bind, url_of
from web._site import Site, SiteLimits

__all__ = ["TOKEN_ENV", "TOKEN_FILE", "serve_site", "server_token"]

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


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    with contextlib.suppress(ValueError):
        return ipaddress.ip_address(host).is_loopback
    return False


def serve_site(
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    root: Path | None = None,
    limits: SiteLimits | None = None,
) -> int:
    """Serve the site over the data directory ``root`` on (host, port) until Ctrl-C; exit code."""
    root = arena.data_dir() if root is None else root
    sock = bind(host, port)
    # Configured before the site opens: opening says what it swept and queued again.
    log_config = _log_config()
    logging.config.dictConfig(log_config)
    try:
        with Site.open(root, limits=limits) as site:
            token, created = server_token(site.store.root)
            app = site_app(site, token)
            url = url_of(sock)
            print(f"serving {root} at {url}  (Ctrl-C stops)", flush=True)
            if created:
                print(
                    f"token for writes (printed this once; kept in {root / TOKEN_FILE}): {token}",
                    flush=True,
                )
            elif os.environ.get(TOKEN_ENV) is None:
                print(f"token for writes: in {root / TOKEN_FILE}", flush=True)
            if not _loopback(host):
                print(
                    "note: the token travels in clear over plain HTTP: put TLS in front of a"
                    " server reached from other machines",
                    flush=True,
                )
            config = uvicorn.Config(
                app,
                lifespan="off",
                log_level="info",
                log_config=log_config,
                timeout_graceful_shutdown=5,
            )
            # uvicorn stops cleanly on Ctrl-C, then raises it again for us.
            with contextlib.suppress(KeyboardInterrupt):
                uvicorn.Server(config).run(sockets=[sock])
            print(_STOPPING, flush=True)
    except KeyboardInterrupt:
        # Ctrl-C before uvicorn took the signal over (while starting): the same clean stop.
        print(_STOPPING, flush=True)
    finally:
        sock.close()
    return 0


def _log_config() -> dict[str, Any]:
    """uvicorn's logging, with the site's own logger (``web``: what it swept at start, matches
    queued again, records that failed) on the same handler, from INFO up."""
    config: dict[str, Any] = copy.deepcopy(uvicorn.config.LOGGING_CONFIG)
    config["loggers"]["web"] = {"handlers": ["default"], "level": "INFO", "propagate": False}
    return config


_STOPPING: Final = "stopping: matches not finished stay queued for the next start"
