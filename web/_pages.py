"""The HTML pages: a page holding one viewer (``static/view.js`` mounts it)."""

from __future__ import annotations

import functools
import html
import posixpath
import re
from pathlib import Path
from typing import Final

from starlette.responses import HTMLResponse

__all__ = ["CSP", "first_draw_modules", "page_script", "viewer_page"]

STATIC_DIR: Final = Path(__file__).resolve().parent / "static"
"""The viewer's static files: scripts, styles, the vendored libraries, and the pages' bundles."""

CSP: Final = (
    "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'self'; form-action 'self'"
)
"""Pages load only the site's own scripts and styles: replays are untrusted, and the
viewer writes their strings (names, details, notes) as text, never as markup."""

# A static import or re-export of a relative module: `import ... from "./x.js"`,
# `export ... from "./x.js"`, or `import "./x.js"` (a chunk the bundler imports for its
# effects).
_IMPORT: Final = re.compile(
    r"""^\s*(?:import|export)\b(?:[^;'"]*?\bfrom)?\s*["'](\.{1,2}/[^"']+)["']""", re.M
)


def page_script(page: str) -> str:
    """The bundle of ``static/<page>.js`` (``web/build.sh``), a path under static/: what a page
    loads, its chunks preloaded (``first_draw_modules``)."""
    return f"dist/{page}.js"


@functools.cache
def first_draw_modules(entry: str) -> tuple[str, ...]:
    """``entry`` and the modules it imports statically, directly or not (paths under static/).

    The pages preload them all at once: otherwise the browser finds them one level
    of imports at a time, a round trip each, before it can draw. Modules loaded
    later with ``import()`` (the charts) are not among them.
    """
    found: list[str] = []
    todo = [entry]
    while todo:
        path = todo.pop()
        if path in found:
            continue
        found.append(path)
        source = (STATIC_DIR / path).read_text(encoding="utf-8")
        base = posixpath.dirname(path)
        todo += [posixpath.normpath(posixpath.join(base, m)) for m in _IMPORT.findall(source)]
    return (entry, *sorted(found[1:]))


def _preloads(page: str) -> str:
    return "\n".join(
        f'<link rel="modulepreload" href="/static/{m}">'
        for m in first_draw_modules(page_script(page))
    )


_VIEWER_PAGE: Final = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} · Foray Arena</title>
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
<link rel="preload" href="{replay_url}" as="fetch" crossorigin="anonymous">
{preloads}
<link rel="stylesheet" href="/static/viewer.css">
<script type="module" src="/static/{script}"></script>
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
        title=html.escape(title),
        replay_url=html.escape(replay_url, quote=True),
        preloads=_preloads("view"),
        script=page_script("view"),
    )
    return HTMLResponse(body, headers={"Content-Security-Policy": CSP})


_SITE_PAGE: Final = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} · Foray Arena</title>
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
{preloads}
<link rel="stylesheet" href="/static/vendor/uplot/uPlot.min.css">
<link rel="stylesheet" href="/static/viewer.css">
<link rel="stylesheet" href="/static/site.css">
<script type="module" src="/static/{script}"></script>
</head>
<body class="fv-page site" data-page="{page}" data-id="{ident}" data-side="{side}">
<main id="page">
<noscript>This page needs JavaScript.</noscript>
</main>
</body>
</html>
"""

SITE_PAGES: Final = ("index", "run", "match", "tournament", "console", "controller", "field")
"""The site's pages: each is static/<name>.js over the JSON API (bundled: ``page_script``)."""


def site_page_html(
    page: str, title: str, ident: int | str | None = None, *, side: str = "public"
) -> HTMLResponse:
    """The shell of one of the site's pages; its module draws it from the JSON API, on
    its ``side`` (public: without a token; console: with the console's token). ``ident``:
    a record's id (the title says "#id"), or text that names it (a sha256's head, a case
    version), which the page reads from its address.

    Nothing in it comes from the store: names are written by the page's script,
    as text.
    """
    if page not in SITE_PAGES:
        raise ValueError(f"no page {page!r}")
    body = _SITE_PAGE.format(
        title=html.escape(
            title
            if ident is None
            else f"{title} #{ident}"
            if isinstance(ident, int)
            else f"{title} {ident}"
        ),
        page=page,
        ident="" if ident is None else html.escape(str(ident), quote=True),
        side=html.escape(side, quote=True),
        preloads=_preloads(page),
        script=page_script(page),
    )
    return HTMLResponse(body, headers={"Content-Security-Policy": CSP})


def missing_page(message: str) -> HTMLResponse:
    """A 404 page saying what is not there (the message is escaped)."""
    body = (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        "<title>not found · Foray Arena</title>\n"
        '<link rel="stylesheet" href="/static/viewer.css">\n'
        '<link rel="stylesheet" href="/static/site.css">\n</head>\n'
        f'<body class="fv-page site">\n<main id="page">\n<h1>{html.escape(message)}</h1>\n'
        '<p><a href="/">Foray Arena</a></p>\n</main>\n</body>\n</html>\n'
    )
    return HTMLResponse(body, status_code=404, headers={"Content-Security-Policy": CSP})
