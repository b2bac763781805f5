"""``arena worker --server URL --name NAME``: offer this data directory's local runs to a site.

The worker opens the connection itself (a WebSocket to
``/api/workers/connect``, so it works from behind NAT or a firewall), says
hello with its local runs (``web._worker_protocol.local_runs``), sends them
again when they change (read every ``every`` seconds), and answers the site's
``fetch`` with the module's bytes, only for a module it offers. When the
connection drops it connects again, waiting 1, 2, 4 ... up to 30 seconds
between tries (a connection that was welcomed starts the count again). A
refusal that another try cannot change (a wrong token, a token of another
role or worker, a name that is not one) ends it with exit code 2.
"""

from __future__ import annotations

import json
import logging
import random
import time
import urllib.parse
from pathlib import Path
from typing import Any, Final

from websockets.exceptions import ConnectionClosed, InvalidStatus, InvalidURI, WebSocketException
from websockets.sync.client import ClientConnection, connect

import arena
from arena import shown
from web._worker_protocol import (
    DIGEST_BYTES,
    LocalRun,
    local_runs,
    module_message,
)

__all__ = ["BACKOFF_MAX", "connect_url", "run_worker"]

_log = logging.getLogger("web.worker")

BACKOFF_MAX: Final = 30.0
"""The longest wait between two tries to connect."""
_PERMANENT: Final = (400, 401, 403, 404)
"""Handshake refusals another try would meet again."""


class WorkerRefused(arena.ArenaError):
    """The site refused this worker for good (a wrong token, role or name)."""


def connect_url(server: str, name: str) -> str:
    """The WebSocket address of a site's worker connection (http -> ws, https -> wss)."""
    parts = urllib.parse.urlsplit(server.strip())
    scheme = {"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}.get(parts.scheme)
    if scheme is None or not parts.netloc:
        raise arena.ArenaError(f"--server {server!r}: an address like http://host:port")
    path = parts.path.rstrip("/") + "/api/workers/connect"
    query = urllib.parse.urlencode({"name": name})
    return urllib.parse.urlunsplit((scheme, parts.netloc, path, query, ""))


def run_worker(
    server: str,
    name: str,
    token: str,
    root: Path | None = None,
    *,
    every: float = 5.0,
    tries: int | None = None,
) -> int:
    """Serve as worker ``name`` of the site ``server`` over the data directory ``root`` until
    Ctrl-C (or ``tries`` connections, for a test); the exit code."""
    problem = arena.name_problem(name)
    if problem is not None:
        raise arena.ArenaError(f"--name: {problem}")
    url = connect_url(server, name)
    root = arena.data_dir() if root is None else root
    wait = 1.0
    made = 0
    with arena.Store.open(root) as store:
        print(f"worker {shown(name)} over {root}, connecting to {server}", flush=True)
        while tries is None or made < tries:
            made += 1
            try:
                welcomed = _session(url, name, token, store, every)
            except WorkerRefused as exc:
                print(f"refused: {exc}", flush=True)
                return 2
            except KeyboardInterrupt:
                print("stopped", flush=True)
                return 0
            if welcomed:
                wait = 1.0
            pause = wait * random.uniform(0.8, 1.2)
            print(f"connecting again in {pause:.1f} s", flush=True)
            try:
                time.sleep(pause)
            except KeyboardInterrupt:
                print("stopped", flush=True)
                return 0
            wait = min(BACKOFF_MAX, wait * 2)
    return 0


def _session(url: str, name: str, token: str, store: arena.Store, every: float) -> bool:
    """One connection, until it drops; whether the site welcomed it."""
    try:
        ws = connect(
            url,
            additional_headers={"Authorization": f"Bearer {token}"},
            open_timeout=10,
            max_size=64 * 1024,
            compression=None,
        )
    except InvalidStatus as exc:
        status = exc.response.status_code
        reason = _error_of(exc.response.body)
        if status in _PERMANENT:
            raise WorkerRefused(f"{status}: {reason}") from None
        print(f"not connected: {status}: {reason}", flush=True)
        return False
    except InvalidURI as exc:
        raise WorkerRefused(str(exc)) from None
    except (OSError, TimeoutError, WebSocketException) as exc:
        print(f"not connected: {exc}", flush=True)
        return False
    welcomed = False
    with ws:
        runs = local_runs(store)
        try:
            ws.send(_json({"type": "hello", "runs": [r.to_json() for r in runs]}))
            welcome = json.loads(ws.recv(timeout=30))
            welcomed = True
            print(
                f"connected as {shown(welcome.get('name', name))}: offering"
                f" {len(runs)} local run{'s' * (len(runs) != 1)}",
                flush=True,
            )
            _serve(ws, store, runs, every)
        except ConnectionClosed as exc:
            why = exc.rcvd.reason if exc.rcvd is not None and exc.rcvd.reason else "dropped"
            code = exc.rcvd.code if exc.rcvd is not None else None
            print(f"connection closed ({code}): {why}", flush=True)
        except (OSError, TimeoutError, ValueError) as exc:
            print(f"connection lost: {exc}", flush=True)
        except arena.ArenaError as exc:  # the store busy or damaged: tried again later
            print(f"cannot read the local runs: {shown(str(exc))}", flush=True)
        except KeyboardInterrupt:
            # Stopped on purpose: a normal close (the connection's own exit on an exception
            # would say 1011, an internal error, to the site).
            ws.close(1000, "the worker stopped")
            raise
    return welcomed


def _serve(ws: ClientConnection, store: arena.Store, runs: list[LocalRun], every: float) -> None:
    """Answer the site's fetches, and send the runs again when they changed, until it drops."""
    offered = {r.sha256 for r in runs}
    checked = time.monotonic()
    while True:
        try:
            message = ws.recv(timeout=max(0.1, every - (time.monotonic() - checked)))
        except TimeoutError:
            message = None
        if time.monotonic() - checked >= every:
            checked = time.monotonic()
            now = local_runs(store)
            if now != runs:
                runs = now
                offered = {r.sha256 for r in runs}
                ws.send(_json({"type": "runs", "runs": [r.to_json() for r in runs]}))
                print(f"offering {len(runs)} local runs", flush=True)
        if message is None:
            continue
        request = json.loads(message)
        if not isinstance(request, dict) or request.get("type") != "fetch":
            continue
        sha256 = str(request.get("sha256", ""))
        if sha256 not in offered:
            ws.send(_missing(sha256, "this worker offers no such module"))
            continue
        try:
            blob = store.read_module_bytes(sha256)
        except arena.ArenaError as exc:
            ws.send(_missing(sha256, shown(str(exc))[:900]))
            continue
        ws.send(module_message(sha256, blob))
        print(f"sent module {sha256[:12]}… ({len(blob):,} bytes)", flush=True)


def _missing(sha256: str, reason: str) -> str:
    return _json({"type": "missing", "sha256": sha256[: DIGEST_BYTES * 2], "reason": reason})


def _json(data: dict[str, Any]) -> str:
    return json.dumps(data, separators=(",", ":"))


def _error_of(body: bytes | bytearray | None) -> str:
    try:
        return str(json.loads(body or b"")["error"])
    except (ValueError, KeyError, TypeError):
        return bytes(body or b"").decode("utf-8", "replace")[:200] or "no reason given"
