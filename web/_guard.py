"""What the site checks and adds on every request, before any route: the Host, the token, headers.

``Guard`` is a pure ASGI middleware around the site's app, so it covers every
route alike (the pages, the static files, the API, ``/openapi.json``), the
routes to come included:

- **Host names**: a request whose ``Host`` is not one the server was told it
  answers to (``arena serve --allowed-host``; by default the loopback names
  and the bind address) is refused with 400, so a page of another site that
  resolves its own name to this server (DNS rebinding) reads nothing here.
- **A wrong token is 401 on every route**, a read included, as on the writes:
  a client that sends a token learns at once that it is wrong.
- **Headers on every answer**: ``X-Content-Type-Options: nosniff`` (no answer
  is ever sniffed as another type) and ``Referrer-Policy: no-referrer`` (no
  address of the site leaves it in a ``Referer``).
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Collection, Iterable
from typing import Any, Final

from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "SECURITY_HEADERS",
    "Guard",
    "GuardedApp",
    "default_hosts",
    "host_name",
    "token_matches",
]

SECURITY_HEADERS: Final = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)
"""Added to every answer of the site (and of ``arena view``)."""

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


def token_matches(header: str, expected: bytes) -> bool:
    """Whether an ``Authorization`` header is ``Bearer <expected>``, compared in constant time
    on the header's bytes (latin-1 text, encoded back), so no header value can make the
    comparison itself fail."""
    scheme, _, given = header.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(
        given.strip().encode("latin-1"), expected
    )


class Guard:
    """The site's checks on every request, and its headers on every answer (see the module)."""

    def __init__(
        self, app: ASGIApp, *, token: bytes | None, allowed_hosts: Collection[str] | None
    ) -> None:
        """``token``: refuse a wrong one (None: no token here); ``allowed_hosts``: the Host
        names answered (None: any, for an app that no network reaches, such as a test's)."""
        self.app = app
        self.token = token
        self.hosts = None if allowed_hosts is None else {host_name(h) for h in allowed_hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        refusal = self._refusal(headers)

        async def send_guarded(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in SECURITY_HEADERS if k not in present]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        if refusal is None:
            await self.app(scope, receive, send_guarded)
            return
        status, body, more = refusal
        await send_guarded(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"cache-control", b"no-store"),
                    *more,
                ],
            }
        )
        await send_guarded({"type": "http.response.body", "body": body})

    def _refusal(self, headers: Headers) -> tuple[int, bytes, Iterable[tuple[bytes, bytes]]] | None:
        if self.hosts is not None and "*" not in self.hosts:
            host = host_name(headers.get("host", ""))
            if host not in self.hosts:
                return 400, _error(f"host {host!r} is not a name this server answers to"), ()
        header = headers.get("authorization")
        if self.token is not None and header is not None and not token_matches(header, self.token):
            return (
                401,
                _error("the token is not the server's"),
                ((b"www-authenticate", b"Bearer"),),
            )
        return None


def _error(message: str) -> bytes:
    return json.dumps({"error": message}, separators=(",", ":")).encode()


class GuardedApp(Starlette):
    """A Starlette app with ``Guard`` outside everything, its error pages included: every
    answer carries the headers, and the Host and the token are checked before any route."""

    def __init__(
        self, *, token: bytes | None, allowed_hosts: Collection[str] | None, **app: Any
    ) -> None:
        super().__init__(**app)
        self.token = token
        self.allowed_hosts = None if allowed_hosts is None else list(allowed_hosts)

    def build_middleware_stack(self) -> ASGIApp:
        return Guard(
            super().build_middleware_stack(), token=self.token, allowed_hosts=self.allowed_hosts
        )
