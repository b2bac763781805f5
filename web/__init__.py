"""The web: Starlette apps served by uvicorn, and the browser replay viewer (``static/``).

Uses only ``arena``'s facade and ``replays`` (tests/test_layering.py). The viewer
is one ES module, ``static/viewer.js`` (``mountViewer(element, {replayUrl,
tick})``), which only consumes a replay stream; ``ReplayFile`` serves a
replay file to it and ``viewer_page`` is a page holding one. ``view_app`` is
the app of ``arena view``. The site (``arena serve``) is ``site_app`` over a
running ``Site`` (the store, the match queue, worker processes); ``push``
uploads a local proof run to one. docs/web.md describes it all. What drives a
real server and browser for ``arena bench web`` and the tests is ``web.bench``,
which ``import web`` leaves out.

Names load on first use (PEP 562): ``arena`` builds its parser with
``register_commands`` for every command, which must not import Starlette.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
