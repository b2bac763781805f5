"""What the site checks and adds on every request, before any route: the Host, the token, headers.

``Guard`` is a pure ASGI middleware around the site's app, so it covers every
route alike (the pages, the static files, the API, ``/openapi.json``), the
routes to come included:

- **Host names**: a request whose ``Host`` is not one the server was told it
  answers to (``arena serve --allowed-host``; by default the loopback names
  and the bind address) is refused with 400, so a page of another site that
  resolves its own name to this server (DNS rebinding) reads nothing here.
- **A wrong token is 401 on every route**, a read included, as on the writes:
  a client that sends a token learns at once that it is wrong. A token the
  site knows is who the request comes from (``web._token.Caller``, in the
  scope under ``CALLER``); whether its role may call the route is the route's
  side's (``web._api``).
- **Headers on every answer**: ``X-Content-Type-Options: nosniff`` (no answer
  is ever sniffed as another type) and ``Referrer-Policy: no-referrer`` (no
  address of the site leaves it in a ``Referer``).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable
from typing import Any, Final

from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from web._token import Caller, Keyring

__all__ = [
    "CALLER",
    "SECURITY_HEADERS",
    "Guard",
    "GuardedApp",
    "caller_in",
    "default_hosts",
    "host_name",
]

SECURITY_HEADERS: Final = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)
"""Added to every answer of the site (and of ``arena view``)."""

CALLER: Final = "foray.caller"
"""The scope's key for the request's ``Caller`` (None: no token)."""

_LOOPBACK_NAMES: Final = ("localhost", "127.0.0.1", "::1")
_WILDCARD_BINDS: Final = ("0.0.0.0", "::", "")


def default_hosts(bind_host: str) -> list[str]:
    """The Host names a server bound to ``bind_host`` answers to unless told others: the
    loopback names and the bind address (not a wildcard address, which no client names)."""
    hosts = list(_LOOPBACK_NAMES)
    name = host_name(bind_host)
    if name not in hosts and name not in _WILDCARD_BINDS:
        hosts.append(name)
    return hosts


def host_name(host: str) -> str:
    """A Host header's name: lower case, without its port, brackets or a trailing dot."""
    host = host.strip().lower()
    if host.startswith("["):  # [::1]:8000
        host = host[1:].partition("]")[0]
    elif host.count(":") == 1:  # name:8000 (an IPv6 address unbracketed has several)
        host = host.partition(":")[0]
    return host.rstrip(".")


def caller_in(scope: Scope) -> Caller | None:
    """Who the request's token says it is (None: it carries none)."""
    caller: Caller | None = scope.get(CALLER)
    return caller


class Guard:
    """The site's checks on every request, and its headers on every answer (see the module)."""

    def __init__(
        self, app: ASGIApp, *, keyring: Keyring | None, allowed_hosts: Collection[str] | None
    ) -> None:
        """``keyring``: the tokens taken, a wrong one refused (None: no token here);
        ``allowed_hosts``: the Host names answered (None: any, for an app that no network
        reaches, such as a test's)."""
        self.app = app
        self.keyring = keyring
        self.hosts = None if allowed_hosts is None else {host_name(h) for h in allowed_hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        # A WebSocket's handshake (a worker's connection) is checked alike: its refusal is
        # an HTTP answer (the denial response), or a close where the server has none.
        http = scope["type"] == "http"
        headers = Headers(scope=scope)
        refusal, caller = self._check(headers)
        scope = {**scope, CALLER: caller}

        async def send_guarded(message: Message) -> None:
            if message["type"] in ("http.response.start", "websocket.http.response.start"):
                present = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in SECURITY_HEADERS if k not in present]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        if refusal is None:
            await self.app(scope, receive, send_guarded)
            return
        status, body, more = refusal
        if not http:
            if "websocket.http.response" not in scope.get("extensions", {}):
                await send({"type": "websocket.close", "code": 1008, "reason": ""})
                return
            await receive()  # websocket.connect: the handshake is answered after it
        prefix = "" if http else "websocket."
        await send_guarded(
            {
                "type": f"{prefix}http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"cache-control", b"no-store"),
                    *more,
                ],
            }
        )
        await send_guarded({"type": f"{prefix}http.response.body", "body": body})

    def _check(
        self, headers: Headers
    ) -> tuple[tuple[int, bytes, Iterable[tuple[bytes, bytes]]] | None, Caller | None]:
        """(why the request is refused, or None; who its token says it is, or None)."""
        if self.hosts is not None and "*" not in self.hosts:
            host = host_name(headers.get("host", ""))
            if host not in self.hosts:
                return (
                    400,
                    _error(f"host {host!r} is not a name this server answers to"),
                    (),
                ), None
        header = headers.get("authorization")
        if self.keyring is None or header is None:
            return None, None
        caller = self.keyring.identify(header)
        if caller is None:
            refusal = (
                401,
                _error("the token is not the server's"),
                ((b"www-authenticate", b"Bearer"),),
            )
            return refusal, None
        return None, caller


def _error(message: str) -> bytes:
    return json.dumps({"error": message}, separators=(",", ":")).encode()


class GuardedApp(Starlette):
    """A Starlette app with ``Guard`` outside everything, its error pages included: every
    answer carries the headers, and the Host and the token are checked before any route."""

    def __init__(
        self, *, keyring: Keyring | None, allowed_hosts: Collection[str] | None, **app: Any
    ) -> None:
        super().__init__(**app)
        self.keyring = keyring
        self.allowed_hosts = None if allowed_hosts is None else list(allowed_hosts)

    def build_middleware_stack(self) -> ASGIApp:
        return Guard(
            super().build_middleware_stack(),
            keyring=self.keyring,
            allowed_hosts=self.allowed_hosts,
        )
