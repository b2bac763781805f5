"""The web: Starlette apps served by uvicorn, and the browser replay viewer (``static/``).

Uses only ``arena``'s facade and ``replays`` (tests/test_layering.py). The viewer
is one ES module, ``static/viewer.js`` (``mountViewer(element, {replayUrl,
tick})``), which only consumes a replay stream; ``replay_response`` streams a
replay file to it and ``viewer_page`` is a page holding one. ``view_app`` is
the app of ``arena view``. The site (``arena serve``) is ``site_app`` over a
running ``Site`` (the store, the match queue, worker processes); ``push``
uploads a local proof run to one. docs/web.md describes it all. What drives a
real server and browser for ``arena bench web`` and the tests is ``web.bench``,
which ``import web`` leaves out.

Names load on first use (PEP 562): ``arena`` builds its parser with
``register_commands`` for every command, which must not import Starlette.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from web._cli import register_commands

if TYPE_CHECKING:
    from web._api import openapi_document, site_app
    from web._bundle import Bundle, BundleError, PushedMatch, decode_bundle
    from web._pages import CSP, STATIC_DIR, viewer_page
    from web._push import PushRefused, bundle_of, push
    from web._serve_site import serve_site
    from web._site import ApiError, Site, SiteLimits
    from web._static import MemoryStaticFiles
    from web._stream import replay_response
    from web._token import TOKEN_ENV, TOKEN_FILE, server_token
    from web._view import static_files, view_app

__all__ = [
    "CSP",
    "STATIC_DIR",
    "TOKEN_ENV",
    "TOKEN_FILE",
    "ApiError",
    "Bundle",
    "BundleError",
    "MemoryStaticFiles",
    "PushRefused",
    "PushedMatch",
    "Site",
    "SiteLimits",
    "bundle_of",
    "decode_bundle",
    "openapi_document",
    "push",
    "register_commands",
    "replay_response",
    "serve_site",
    "server_token",
    "site_app",
    "static_files",
    "view_app",
    "viewer_page",
]

_LAZY = {
    **dict.fromkeys(("openapi_document", "site_app"), "web._api"),
    **dict.fromkeys(("Bundle", "BundleError", "PushedMatch", "decode_bundle"), "web._bundle"),
    **dict.fromkeys(("PushRefused", "bundle_of", "push"), "web._push"),
    "serve_site": "web._serve_site",
    **dict.fromkeys(("TOKEN_ENV", "TOKEN_FILE", "server_token"), "web._token"),
    **dict.fromkeys(("ApiError", "Site", "SiteLimits"), "web._site"),
    "CSP": "web._pages",
    "viewer_page": "web._pages",
    "replay_response": "web._stream",
    "MemoryStaticFiles": "web._static",
    "STATIC_DIR": "web._pages",
    "static_files": "web._view",
    "view_app": "web._view",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'web' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
