"""``arena bench web``: the viewer's speed in headless Chromium on loopback (printed, not asserted).

For a stored 400-tick replay (random against border-soldier, seed 1): time from
navigation to the first frame drawn, time to jump to any tick (seek and draw),
and the replay stream's throughput, from the server alone and fetched and
decoded in the browser. Needs the dev extra (Playwright) and Chromium.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

__all__ = ["bench_figures"]

# Ticks to jump to: a fixed pseudo-random walk over the whole replay, never to a
# neighbour of the tick before (that would be a step, not a jump).
_JUMPS = """() => {
  const v = window.forayViewer;
  const n = v.replay.ticks;
  let x = 12345;
  const times = [];
  for (let i = 0; i < 400; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    const t = x % n;
    const t0 = performance.now();
    v.seek(t);
    times.push(performance.now() - t0);
  }
  return times;
}"""

_STREAM = """async (reps) => {
  const { streamReplay } = await import("/static/replay.js");
  const sink = { header() {}, frames() {}, done() {} };
  const times = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    await streamReplay("/replay", sink);
    times.push(performance.now() - t0);
  }
  return times;
}"""

_READY = "() => document.getElementById('viewer').dataset.state === 'ready'"


def bench_figures(repeat: int) -> None:
    """Print the viewer's figures (``repeat`` scales the number of page loads)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("web viewer: skipped (Playwright is in the dev extra: pip install -e '.[dev]')")
        return
    import tempfile
    import urllib.request

    import arena
    from web._browser import chromium_path, launch_chromium
    from web._server import BackgroundServer
    from web._view import view_app

    if not Path(chromium_path()).exists():
        print(f"web viewer: skipped (no Chromium at {chromium_path()}; set FORAY_CHROMIUM)")
        return
    a, b = "random", "border-soldier"
    result = arena.play(
        arena.MatchJob(
            arena.Contestant(a, arena.load_baseline(a)),
            arena.Contestant(b, arena.load_baseline(b)),
            seed=1,
        )
    )
    size = len(result.replay)
    loads = 5 * repeat
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.replay"
        path.write_bytes(result.replay)
        with BackgroundServer(view_app(path)) as server, sync_playwright() as p:
            browser = launch_chromium(p)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            first: list[float] = []
            for _ in range(loads + 1):
                page.goto(server.url, wait_until="commit")
                page.wait_for_function("() => window.forayViewer?.metrics.firstFrame != null")
                first.append(page.evaluate("window.forayViewer.metrics.firstFrame"))
                page.wait_for_function(_READY)
            jumps: list[float] = page.evaluate(_JUMPS)
            decoded: list[float] = page.evaluate(_STREAM, 10 * repeat)
            version = browser.version
            browser.close()
            served: list[float] = []
            for _ in range(10 * repeat):
                t0 = time.perf_counter()
                with urllib.request.urlopen(server.url + "replay") as response:
                    body = response.read()
                served.append((time.perf_counter() - t0) * 1000)
                if len(body) != size:
                    raise RuntimeError(f"the server sent {len(body)} bytes of {size}")
    mib = size / 2**20
    print(
        f"web viewer ({result.ticks}-tick replay of {a} vs {b}, {size:,} bytes; "
        f"Chromium {version}, headless, 127.0.0.1):"
    )
    warm = first[1:]
    print(
        f"  navigation to first frame drawn  {statistics.median(warm):6.0f} ms median, "
        f"{min(warm):.0f} best, {first[0]:.0f} cold  (goal < 300 ms)"
    )
    print(
        f"  jump to any tick (seek + draw)   {statistics.median(jumps):6.2f} ms median, "
        f"{max(jumps):.2f} worst of {len(jumps)}  (goal < 16 ms)"
    )
    for label, times in (("stream, server alone", served), ("stream, fetched + decoded", decoded)):
        best = min(times) / 1000
        print(
            f"  {label:<32} {mib / best:6.1f} MiB/s, {result.ticks / best:>9,.0f} frames/s "
            f"(best of {len(times)}: {min(times):.1f} ms)"
        )
