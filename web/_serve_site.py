"""``arena serve``: the site over the data directory, served by uvicorn until Ctrl-C.

It binds its socket first (``web._uvicorn``), opens the ``Site``, takes the
write token (``web._token``) and says where it serves, then hands the socket
to uvicorn with the site's logger on uvicorn's handler. It answers only to
the Host names it is given (``--allowed-host``; by default the loopback names
and the bind address: ``web._guard``), and bounds its connections
(``web._connections``).
"""

from __future__ import annotations

import contextlib
import copy
import ipaddress
import logging.config
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import uvicorn
import uvicorn.config

import arena
from web._api import site_app
from web._connections import ConnectionLimits
from web._guard import default_hosts
from web._limits import SiteLimits
from web._site import Site
from web._token import TOKEN_ENV, TOKEN_FILE, server_token
from web._uvicorn import bind, run_until_stopped, server_config, url_of

__all__ = ["serve_site"]


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
    allowed_hosts: Sequence[str] = (),
    connections: ConnectionLimits | None = None,
    console_link: bool = False,
    field: bool = True,
) -> int:
    """Serve the site over the data directory ``root`` on (host, port) until Ctrl-C; exit code.

    It answers to the Host names ``allowed_hosts`` (none given: the loopback
    names and ``host``); others get 400. ``console_link`` (``arena demo``):
    print the console's address with the quick-start token in its fragment
    (which no server or log sees), beside the public address. ``field``: make the
    case's field (its committed opponents) now if there is none, and play it.
    """
    root = arena.data_dir() if root is None else root
    hosts = list(allowed_hosts) or default_hosts(host)
    sock = bind(host, port)
    # Configured before the site opens: opening says what it swept and queued again.
    log_config = _log_config()
    logging.config.dictConfig(log_config)
    try:
        with Site.open(root, limits=limits) as site:
            if field:
                site.open_field()
            token, created = server_token(site.store.root)
            app = site_app(site, token, allowed_hosts=hosts)
            url = url_of(sock)
            print(f"serving {root} at {url}  (Ctrl-C stops)", flush=True)
            if console_link:
                print(
                    f"the console (everything, published or not; keep this link to yourself):"
                    f" {url}console#token={token}",
                    flush=True,
                )
            if created and not console_link:
                print(
                    f"console token (printed this once; kept in {root / TOKEN_FILE}): {token}",
                    flush=True,
                )
            elif os.environ.get(TOKEN_ENV) is None and not console_link:
                print(f"console token: in {root / TOKEN_FILE}", flush=True)
            if not _loopback(host):
                print(
                    "note: the token travels in clear over plain HTTP: put TLS in front of a"
                    " server reached from other machines",
                    flush=True,
                )
            if not allowed_hosts and host in ("0.0.0.0", "::"):
                print(
                    f"note: answering only to Host {', '.join(hosts)}: name the others this"
                    " server is reached by with --allowed-host",
                    flush=True,
                )
            config = server_config(
                app,
                connections,
                log_level="info",
                log_config=log_config,
                timeout_graceful_shutdown=5,
            )
            run_until_stopped(uvicorn.Server(config), sock)
            print(_STOPPING, flush=True)
    except KeyboardInterrupt:
        # Ctrl-C before the server ran (while the site opened): the same clean stop.
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
