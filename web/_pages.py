"""The HTML pages: a page holding one viewer (``static/view.js`` mounts it)."""

from __future__ import annotations

import html
from typing import Final

from starlette.responses import HTMLResponse

__all__ = ["CSP", "viewer_page"]

CSP: Final = (
    "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'self'; form-action 'self'"
)
"""Pages load only the site's own scripts and styles: replays are untrusted, and the
viewer writes their strings (names, details, notes) as text, never as markup."""

_VIEWER_PAGE: Final = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} · Foray Arena</title>
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/static/vendor/uplot/uPlot.min.css">
<link rel="stylesheet" href="/static/viewer.css">
<link rel="modulepreload" href="/static/viewer.js">
<link rel="modulepreload" href="/static/replay.js">
<link rel="modulepreload" href="/static/draw.js">
<script type="module" src="/static/view.js"></script>
</head>
<body class="fv-page">
<main id="viewer" data-replay-url="{replay_url}">
<noscript>The viewer needs JavaScript.</noscript>
</main>
</body>
</html>
"""


def viewer_page(replay_url: str, title: str) -> HTMLResponse:
    """A page with one viewer of the replay stream at ``replay_url`` (opens at ``?tick=N``)."""
    body = _VIEWER_PAGE.format(
        title=html.escape(title), replay_url=html.escape(replay_url, quote=True)
    )
    return HTMLResponse(body, headers={"Content-Security-Policy": CSP})
