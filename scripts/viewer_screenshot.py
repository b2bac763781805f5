"""Take docs/viewer.png, the README's picture of the viewer, with Playwright and Chromium.

    .venv/bin/python scripts/viewer_screenshot.py

Plays greedy-raider against fuel-probe (seed 3), serves the replay with
``arena view``'s app and photographs tick 150 with side B's vision shown.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

import arena
import web
from web import bench

OUT = Path(__file__).resolve().parent.parent / "docs" / "viewer.png"


def main() -> int:
    a, b = (arena.Contestant(n, arena.load_baseline(n)) for n in ("greedy-raider", "fuel-probe"))
    result = arena.play(arena.MatchJob(a, b, seed=3))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "greedy-raider-vs-fuel-probe.replay"
        path.write_bytes(result.replay)
        with bench.BackgroundServer(web.view_app(path)) as server, sync_playwright() as p:
            browser = bench.launch_chromium(p)
            page = browser.new_page(viewport={"width": 1360, "height": 1000})
            page.goto(server.url + "?tick=150")
            page.wait_for_function(
                "() => document.getElementById('viewer').dataset.state === 'ready'"
            )
            page.wait_for_function("() => document.querySelectorAll('.uplot').length === 4")
            page.keyboard.press("v")
            page.keyboard.press("v")  # side B's vision
            page.screenshot(path=str(OUT), full_page=True)
            browser.close()
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
