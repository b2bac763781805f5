"""The bench room: ``arena bench web``'s figures, and the drivers they and the tests share.

Not imported by ``import web`` (as ``trio.testing`` is not by ``import
trio``): the product's site and viewer never need it. ``bench_figures`` and
``summary_figures`` are found by ``arena bench`` through the
``foray_arena.bench`` and ``foray_arena.summary`` entry points. The rest drives
a real server, so the browser tests, the load test and the benchmark drive
the same code:

- ``BackgroundServer``: an app served by uvicorn in a thread of this process.
- ``ServerProcess``: ``arena serve`` in a process of its own, its memory read
  from ``/proc``; ``drive``, ``mixed_requests``, ``seed_store`` and
  ``wait_settled``: the load driven at it (docs/web.md, Load).
- ``SlowClients``: connections that never finish their headers, from several
  loopback addresses (``loopback_source``), against a server's bounds.
- ``launch_chromium``: the system's Chromium, headless, with Playwright;
  ``chromium_missing`` says why it cannot be (``scripts/setup.sh`` prints it).
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
