"""The site's workers: who is connected, their local runs, and their modules fetched on demand.

A worker (``arena worker``) opens a WebSocket to ``/api/workers/connect`` and
offers its data directory's local runs (``web._worker_protocol``). The site
keeps, in memory only, who is connected and what each offers, and who went
away (the last ``MAX_GONE``, with the reason: their runs are listed
unselectable). The server's own data directory is a worker too, always
there, named after its host (``socket.gethostname()``): its local runs are
in the store already.

When a quick match or a tournament names a worker's local run (the request's
``worker``), the site asks that worker for the module by sha256, compares the
sha256 of the bytes it gets with the one it asked for, and admits them exactly
as an upload (``Controllers.upload``: the admission check in a worker process,
the name's rules, the store), held for review only (``Store.held_modules``:
never published, deleted with the last quick match that plays it). Nothing
else of a worker is ever stored: its list of runs is kept in memory while it
is connected, and a module is fetched only for a match that plays it. A
worker that is gone cannot give a module,
so its runs cannot be chosen (409, with the reason); a match already queued
holds its bytes and plays on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from starlette.responses import JSONResponse
from starlette.websockets import WebSocket, WebSocketDisconnect

import arena
from replays import MAX_NAME_CHARS
from web._errors import ApiError
from web._guard import caller_in
from web._site import Site
from web._token import Keyring, Role
from web._worker_protocol import (
    HELLO_SECONDS,
    CloseCode,
    Hello,
    LocalRun,
    Missing,
    ProtocolViolation,
    Runs,
    digest_of,
    fetch_message,
    local_runs,
    parse_module,
    parse_text,
    welcome_message,
)

__all__ = ["FETCH_SECONDS", "MAX_GONE", "TOKEN_CHECK_SECONDS", "Workers", "worker_module_name"]

_log = logging.getLogger("web")

FETCH_SECONDS: Final = 60.0
"""How long the site waits for a module it asked a worker for (504 past it)."""
MAX_GONE: Final = 64
"""The workers that went away that the site still lists (the most recent), with why."""
MAX_FETCHES: Final = 8
"""Modules asked of one worker at once (429 past it)."""
TOKEN_CHECK_SECONDS: Final = 2.0
"""How often a connected worker's token is checked again (a revoked one closes it)."""


def worker_module_name(controller: str, worker: str, sha256: str) -> str:
    """The name a worker's module is admitted under: its run's controller, the worker, and the
    start of its sha256 (``bot@lab-1#3f5c0a1b``), so that a rebuild under the same name is a
    name of its own, and a reader sees where it came from."""
    tail = f"@{worker}#{sha256[:8]}"
    return controller[: max(1, MAX_NAME_CHARS - len(tail))] + tail


def _now() -> datetime:
    return datetime.now(UTC)


@dataclass(eq=False)
class _Connection:
    """A connected worker: its socket, what it offers, the modules asked of it."""

    name: str
    websocket: WebSocket
    connected_at: datetime = field(default_factory=_now)
    runs: tuple[LocalRun, ...] = ()
    welcomed: bool = False
    """Whether its hello was taken (before it, the name is held but nothing is listed)."""
    pending: dict[str, asyncio.Future[bytes]] = field(default_factory=dict)
    sending: asyncio.Lock = field(default_factory=asyncio.Lock)
    revoked: str | None = None
    """Why the site closed it for its token (revoked), once it has."""

    async def send(self, text: str) -> None:
        async with self.sending:
            await self.websocket.send_text(text)

    async def fetch(self, sha256: str) -> bytes:
        """The module ``sha256`` from this worker, its bytes checked against it."""
        future = self.pending.get(sha256)
        if future is None:
            if len(self.pending) >= MAX_FETCHES:
                raise ApiError(
                    429,
                    f"worker {self.name!r} is asked for {MAX_FETCHES} modules already",
                    headers={"Retry-After": "5"},
                )
            future = asyncio.get_running_loop().create_future()
            self.pending[sha256] = future
            try:
                await self.send(fetch_message(sha256))
            except Exception:
                self.pending.pop(sha256, None)
                raise ApiError(409, f"worker {self.name!r} went away") from None
        try:
            return await asyncio.wait_for(asyncio.shield(future), FETCH_SECONDS)
        except TimeoutError:
            if self.pending.get(sha256) is future:
                del self.pending[sha256]
            raise ApiError(
                504, f"worker {self.name!r} did not send module {sha256} within {FETCH_SECONDS:g} s"
            ) from None

    def answered(self, sha256: str, blob: bytes) -> None:
        """A module arrived: the one asked for, or refused (nothing is kept)."""
        future = self.pending.pop(sha256, None)
        if future is None:
            raise ProtocolViolation(CloseCode.MALFORMED, f"module {sha256[:16]}… was not asked for")
        actual = digest_of(blob)
        if actual != sha256:
            _log.warning(
                "worker %r sent bytes whose sha256 is %s for module %s: refused",
                self.name,
                actual,
                sha256,
            )
            future.set_exception(
                ApiError(
                    409,
                    f"worker {self.name!r} sent bytes whose sha256 is {actual}, not {sha256}:"
                    " refused, nothing stored",
                )
            )
        elif not future.done():
            future.set_result(blob)

    def missing(self, message: Missing) -> None:
        future = self.pending.pop(message.sha256, None)
        if future is not None and not future.done():
            future.set_exception(
                ApiError(
                    409,
                    f"worker {self.name!r} cannot give module {message.sha256}: {message.reason}",
                )
            )

    def went_away(self, reason: str) -> None:
        for future in self.pending.values():
            if not future.done():
                future.set_exception(ApiError(409, f"worker {self.name!r} went away: {reason}"))
        self.pending.clear()


@dataclass(frozen=True)
class _Gone:
    """A worker that went away: what it offered, when and why it left."""

    name: str
    runs: tuple[LocalRun, ...]
    gone_at: datetime
    reason: str

    def why(self) -> str:
        since = f"{self.gone_at:%Y-%m-%d %H:%M:%S} UTC"
        return f"worker {self.name!r} is gone since {since} ({self.reason})"


def _find(runs: tuple[LocalRun, ...], ref: str) -> LocalRun | None:
    """The offered run ``ref`` names: its module's sha256, or its controller (the newest)."""
    for r in runs:
        if r.sha256 == ref:
            return r
    return next((r for r in runs if r.controller == ref), None)


class Workers:
    """The workers of one site (see the module): connected, gone, and the server's own."""

    def __init__(self, site: Site, own: str | None = None, keyring: Keyring | None = None) -> None:
        """``keyring``: the site's tokens, read again while a worker is connected so that a
        revoked worker token ends its connection (None: never read again)."""
        self.site = site
        self.keyring = keyring
        self.own = own or socket.gethostname() or "server"
        """The name of the server's own data directory in the list (its host's)."""
        self._connected: dict[str, _Connection] = {}
        self._gone: OrderedDict[str, _Gone] = OrderedDict()

    # ------------------------------------------------------------------ listing

    async def listing(self) -> list[dict[str, Any]]:
        """The server's own entry, then the connected workers by name, then the gone ones
        (the most recent first)."""
        own = await asyncio.to_thread(local_runs, self.site.store)
        rows = [_row(self.own, own=True, runs=len(own), since=None, reason=None)]
        for name in sorted(self._connected):
            c = self._connected[name]
            if not c.welcomed:
                continue
            rows.append(_row(name, own=False, runs=len(c.runs), since=c.connected_at, reason=None))
        for gone in reversed(self._gone.values()):
            rows.append(
                _row(
                    gone.name, own=False, runs=len(gone.runs), since=gone.gone_at, reason=gone.why()
                )
            )
        return rows

    async def runs_of(self, name: str) -> dict[str, Any]:
        """A worker's local runs, each ``selectable`` or not with the ``reason``; 404 for a
        worker the site does not know."""
        if name == self.own:
            runs = tuple(await asyncio.to_thread(local_runs, self.site.store))
            return _runs(name, True, runs, None)
        connected = self._connected.get(name)
        if connected is not None and connected.welcomed:
            return _runs(name, True, connected.runs, None)
        gone = self._gone.get(name)
        if gone is not None:
            return _runs(name, False, gone.runs, gone.why())
        raise ApiError(404, f"no worker {name!r} (GET /api/workers lists them)")

    # ------------------------------------------------------------------ resolving

    async def resolve(self, worker: str | None, refs: list[str], fields: list[str]) -> list[str]:
        """``refs`` (names or sha256s) with each of ``worker``'s local runs among them fetched
        from it, admitted as an upload and named by its sha256; the others as they are.

        The server's own name (or none) changes nothing: its local runs are
        stored. 404 for a worker the site does not know; 409 for a run of a
        worker that is gone (with why: its runs are unselectable, even one whose
        module was fetched before, which stays choosable as a stored controller by
        its sha256), for bytes whose sha256 differs and for a module the worker
        cannot give; 400 for a module that is not admissible.
        """
        if worker is None or worker == self.own:
            return refs
        connected = self._connected.get(worker)
        if connected is not None and not connected.welcomed:
            connected = None
        gone = self._gone.get(worker)
        if connected is None and gone is None:
            raise ApiError(404, f"field 'worker': no worker {worker!r} (GET /api/workers)")
        offered = connected.runs if connected is not None else gone.runs if gone else ()
        out: list[str] = []
        for ref, where in zip(refs, fields, strict=True):
            run = _find(offered, ref)
            if run is None:
                out.append(ref)
                continue
            if connected is None:
                assert gone is not None
                raise ApiError(409, f"field {where!r}: {gone.why()}: its runs cannot be chosen")
            if await asyncio.to_thread(self._stored, run.sha256):
                out.append(run.sha256)
                continue
            await self._admit(connected, run)
            out.append(run.sha256)
        return out

    def _stored(self, sha256: str) -> bool:
        """Whether the module is stored (and its file there); one held from a worker is
        chosen again now, so the quick-match retention keeps it (``Store.touch_held``)."""
        store = self.site.store
        if store.touch_held(sha256):
            return store.module_path(sha256).is_file()  # else fetched and written again
        try:
            return store.controller(sha256).sha256 == sha256
        except arena.NotInStoreError:
            return False

    async def _admit(self, worker: _Connection, run: LocalRun) -> None:
        """Fetch ``run``'s module from ``worker`` and admit it as an upload (see the module)."""
        with self.site.uploads.held(retry_after=5):  # the bytes in memory are bounded alike
            blob = await worker.fetch(run.sha256)
            name = worker_module_name(run.controller, worker.name, run.sha256)
            record, created = await self.site.upload(name, blob, held_by=worker.name)
        if created:
            _log.info(
                "worker %r: module %s (run %d, %s) admitted as %r",
                worker.name,
                run.sha256,
                run.run,
                run.controller,
                record["name"],
            )

    # ------------------------------------------------------------------ the connection

    async def serve(self, websocket: WebSocket) -> None:
        """A worker's connection, from the handshake until it closes (see the protocol)."""
        name = websocket.query_params.get("name", "")
        refusal = self._refusal(websocket, name)
        if refusal is not None:
            status, message = refusal
            _log.warning("worker connection refused (%d): %s", status, message)
            await _deny(websocket, status, message)
            return
        connection = _Connection(name, websocket)
        # Taken before the first await: a second connection of this name is refused.
        self._connected[name] = connection
        reason = "disconnected"
        caller = caller_in(websocket.scope)
        watch = asyncio.create_task(
            self._while_token_lives(connection, None if caller is None else caller.token_id)
        )
        try:
            await websocket.accept()
            try:
                first = await asyncio.wait_for(_receive(websocket), HELLO_SECONDS)
            except TimeoutError:
                raise ProtocolViolation(
                    CloseCode.TIMEOUT, f"no hello within {HELLO_SECONDS:g} s"
                ) from None
            if not isinstance(first, Hello):
                raise ProtocolViolation(CloseCode.MALFORMED, "the first message must be a hello")
            connection.runs = first.runs
            await connection.send(welcome_message(name))
            connection.welcomed = True
            self._gone.pop(name, None)
            _log.info("worker %r connected: %d local runs", name, len(first.runs))
            while True:
                got = await _receive(websocket)
                if isinstance(got, tuple):
                    connection.answered(*got)
                elif isinstance(got, Runs):
                    connection.runs = got.runs
                elif isinstance(got, Missing):
                    connection.missing(got)
                else:
                    raise ProtocolViolation(CloseCode.MALFORMED, "a second hello")
        except ProtocolViolation as exc:
            reason = f"closed by the site: {exc.reason}"
            _log.warning("worker %r: connection closed (%d): %s", name, exc.code, exc.reason)
            with contextlib.suppress(Exception):
                await websocket.close(int(exc.code), exc.reason)
        except WebSocketDisconnect as exc:
            reason = connection.revoked or f"disconnected, code {exc.code}"
        except Exception as exc:  # a send to a connection that dropped
            reason = connection.revoked or f"connection lost: {type(exc).__name__}"
        finally:
            watch.cancel()
            del self._connected[name]
            connection.went_away(reason)
            self._gone[name] = _Gone(name, connection.runs, _now(), reason)
            self._gone.move_to_end(name)
            while len(self._gone) > MAX_GONE:
                self._gone.popitem(last=False)
            _log.info("worker %r: %s", name, reason)

    async def _while_token_lives(self, connection: _Connection, token_id: int | None) -> None:
        """Every ``TOKEN_CHECK_SECONDS``, whether the connection's token is still live; when it
        is revoked, the site closes the connection (``CloseCode.REVOKED``): a token is checked
        at every request, and a worker's connection is one long request."""
        if self.keyring is None or token_id is None:
            return
        while True:
            await asyncio.sleep(TOKEN_CHECK_SECONDS)
            if not self.keyring.live(token_id):
                message = "the worker's token was revoked"
                connection.revoked = f"closed by the site: {message}"
                _log.warning("worker %r: %s; closing its connection", connection.name, message)
                with contextlib.suppress(Exception):
                    await connection.websocket.close(int(CloseCode.REVOKED), message)
                return

    def _refusal(self, websocket: WebSocket, name: str) -> tuple[int, str] | None:
        """Why a worker's handshake is refused (status, message), or None."""
        caller = caller_in(websocket.scope)
        if caller is None:
            return 401, "this needs a worker token: Authorization: Bearer <token>"
        if caller.role is not Role.WORKER:
            return 403, f"a {caller.role} token cannot do this: it needs a worker token"
        if not name:
            return 400, "query 'name' is missing: the worker's name (?name=NAME)"
        problem = arena.name_problem(name)
        if problem is not None:
            return 400, f"query 'name': {problem}"
        if name != caller.name:
            return 403, f"this worker token answers for the worker {caller.name!r}, not {name!r}"
        if name == self.own:
            return 409, f"{name!r} is the server's own data directory's name"
        if name in self._connected:
            return 409, f"worker {name!r} is connected already"
        return None


async def _receive(websocket: WebSocket) -> Hello | Runs | Missing | tuple[str, bytes]:
    """The next message of a worker, parsed (a module: its sha256 and bytes)."""
    message = await websocket.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000), message.get("reason"))
    if message.get("bytes") is not None:
        return parse_module(message["bytes"])
    return parse_text(message.get("text") or "")


async def _deny(websocket: WebSocket, status: int, message: str) -> None:
    """Refuse a handshake with an HTTP answer (``status``, JSON ``{"error"}``), or, where the
    server cannot answer a WebSocket's handshake so, by closing it (policy violation)."""
    if "websocket.http.response" in websocket.scope.get("extensions", {}):
        headers = {"Cache-Control": "no-store"}
        if status == 401:
            headers["WWW-Authenticate"] = "Bearer"
        await websocket.send_denial_response(
            JSONResponse({"error": message}, status_code=status, headers=headers)
        )
    else:
        await websocket.close(1008, message[:123])


def _row(
    name: str, *, own: bool, runs: int, since: datetime | None, reason: str | None
) -> dict[str, Any]:
    return {
        "name": name,
        "own": own,
        "connected": reason is None,
        "runs": runs,
        "since": None if since is None else since.isoformat(),
        "reason": reason,
    }


def _runs(
    name: str, connected: bool, runs: tuple[LocalRun, ...], reason: str | None
) -> dict[str, Any]:
    return {
        "worker": name,
        "connected": connected,
        "reason": reason,
        "runs": [{**r.to_json(), "selectable": connected} for r in runs],
    }
