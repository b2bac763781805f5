"""``arena push RUN --server URL``: upload a local proof run to a server, which checks it.

The run comes from the local store (the data directory): its case identity,
its controller's module, its outcome and build log, and every match's result
and replay, in one bundle (``web._bundle``). The server plays every match
again and lists the run only if the replays come out the same.
"""

from __future__ import annotations

import http.client
import json
import os
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, Final

import arena
import replays
from web._bundle import Bundle, PushedMatch
from web._token import TOKEN_ENV

__all__ = ["PushRefused", "bundle_of", "push"]

_LOST: Final = (
    ConnectionResetError,
    ConnectionAbortedError,
    BrokenPipeError,
    http.client.HTTPException,
)
"""What a connection that was lost after it was made raises (not a server never reached)."""

TIMEOUT: Final = 900.0
"""Seconds to wait for the server: it plays every match of the run again first."""


class PushRefused(Exception):
    """The server refused the run (a forged or tampered run, another case, a module not
    admissible, a name another module holds): its reason."""


def bundle_of(store: arena.Store, run_id: int) -> Bundle:
    """The bundle of the local run ``run_id``: every file read back and checked by sha256."""
    run = store.run(run_id)
    if run.controller_sha256 is None or run.outcome is arena.RunOutcome.COULD_NOT_COMPETE:
        raise arena.ArenaError(f"run {run_id} could not compete: it has no match to push")
    matches = []
    for m in store.run_matches(run_id):
        assert m.result is not None and m.opponent is not None and m.role is not None
        result = {k: v for k, v in m.to_json().items() if k not in ("id", "replay")}
        matches.append(
            PushedMatch(
                opponent=m.opponent,
                role=str(m.role),
                result=result,
                replay=store.read_replay_bytes(m.result.replay_sha256),
            )
        )
    return Bundle(
        case_slug=run.case_slug,
        case_version=run.case_version,
        manifest_sha256=run.manifest_sha256,
        controller=run.controller,
        module=store.read_module_bytes(run.controller_sha256),
        outcome=str(run.outcome),
        reason=run.reason,
        build_log=store.build_log(run_id),
        matches=tuple(matches),
    )


def _endpoint(server: str) -> str:
    wanted = "give the server's address, http://host:port"
    try:
        parts = urllib.parse.urlsplit(server)
        _ = parts.port  # read for its check: a port that is no number raises
    except ValueError as exc:  # "http://[::1" (an unclosed bracket), a port out of range
        raise arena.ArenaError(f"--server {server!r}: not an address ({exc}): {wanted}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise arena.ArenaError(f"--server {server!r}: {wanted}")
    return urllib.parse.urljoin(server if server.endswith("/") else server + "/", "api/runs")


def push(
    run_id: int, server: str, *, root: Path | None = None, timeout: float = TIMEOUT
) -> tuple[bool, dict[str, Any]]:
    """Push run ``run_id`` of the store in ``root``: (whether the server recorded it anew, its run).

    ``PushRefused`` with the server's reason for a run it will not list;
    ``ArenaError`` for what the operator must fix (no token, no such run, no
    server there, a wrong token, a connection lost before the answer: pushing
    again is safe, the server records a run once).
    """
    token = os.environ.get(TOKEN_ENV)
    if not token:
        raise arena.ArenaError(
            f"${TOKEN_ENV} is not set: it must hold a push (or console) token of the server"
            " (made there, over its data directory: arena token create --role push)"
        )
    url = _endpoint(server)
    with arena.Store.open(root) as store:
        data = bundle_of(store, run_id).encode()
    request = urllib.request.Request(
        url,
        data=data,
        method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": replays.MEDIA_TYPE},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            answer = _json(response.read())
            return response.status == 201, answer
    except urllib.error.HTTPError as exc:
        message = str(_json(exc.read()).get("error") or exc.reason)
        if exc.code in (400, 409):  # a run the server will not list; a name taken
            raise PushRefused(message) from None
        raise arena.ArenaError(f"{url}: {exc.code}: {message}") from None
    except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, _LOST):
            # Sent, or half sent, and no answer: the server stopped or was cut off.
            raise arena.ArenaError(
                f"{url}: the connection was lost before the server answered ({reason}): push"
                " again; a run the server recorded already is found, never recorded twice"
            ) from None
        raise arena.ArenaError(f"{url}: cannot reach the server: {reason}") from None


def _json(body: bytes) -> dict[str, Any]:
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}
