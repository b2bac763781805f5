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
    """Print the viewer's and the site's figures (``repeat`` scales the runs)."""
    _viewer_figures(repeat)
    _site_figures(repeat)


def _viewer_figures(repeat: int) -> None:
    """The viewer in Chromium: first frame, jumps, the stream decoded."""
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


# --------------------------------------------------------------------------- the site

_CLIENTS = 8
"""Concurrent clients of the site's figure, each on a keep-alive connection."""


def _site_figures(repeat: int) -> None:
    """``arena serve`` in a process of its own, its replay stream and a listing under load.

    One stored 400-tick replay; ``_CLIENTS`` threads of this process each keep
    one connection and send requests back to back: requests/s over all, and
    each request's latency (p50, p99).
    """
    import os
    import signal
    import subprocess
    import sys
    import tempfile
    import threading

    import arena

    a, b = "random", "border-soldier"
    result = arena.play(
        arena.MatchJob(
            arena.Contestant(a, arena.load_baseline(a)),
            arena.Contestant(b, arena.load_baseline(b)),
            seed=1,
        )
    )
    with tempfile.TemporaryDirectory() as tmp:
        with arena.Store.open(Path(tmp)) as store:
            for side in result.sides:
                store.add_controller(
                    arena.load_baseline(side.name), name=side.name, origin=arena.Origin.BASELINE
                )
            match = store.record_match(result)
        env = {**os.environ, "FORAY_DATA_DIR": tmp, "ARENA_TOKEN": "bench"}
        server = subprocess.Popen(
            [sys.executable, "-m", "arena", "serve", "--port", "0", "--jobs", "1"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
        )
        try:
            assert server.stdout is not None
            line = server.stdout.readline()
            if " at http://" not in line:
                print(f"site: skipped (arena serve did not start: {line.strip()!r})")
                return
            url = line.split(" at ")[1].split()[0]
            # Keep reading what it prints (its access log): a full pipe would stop it.
            threading.Thread(target=server.stdout.read, daemon=True).start()
            n = 400 * repeat
            replay = _load(url, f"/api/matches/{match.id}/replay", n, len(result.replay))
            listing = _load(url, "/api/matches?limit=50", n // 2, None)
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(timeout=30)
    print(
        f"site (arena serve in its own process, 1 worker; {_CLIENTS} clients of this process,"
        " keep-alive, 127.0.0.1):"
    )
    size = len(result.replay)
    for label, (rate, latencies) in (
        (f"replay stream ({size:,} bytes)", replay),
        ("listing GET /api/matches", listing),
    ):
        ms = sorted(latencies)
        p50 = ms[len(ms) // 2]
        p99 = ms[min(len(ms) - 1, round(0.99 * len(ms)))]
        print(
            f"  {label:<32} {rate:7.0f} requests/s, p50 {p50:5.1f} ms, p99 {p99:5.1f} ms "
            f"({len(ms)} requests)"
        )


def _load(url: str, path: str, count: int, size: int | None) -> tuple[float, list[float]]:
    """``count`` GETs of ``path`` from ``_CLIENTS`` threads: (requests/s, latencies in ms)."""
    import http.client
    import threading
    import urllib.parse

    host = urllib.parse.urlsplit(url)
    latencies: list[float] = []
    lock = threading.Lock()
    failures: list[str] = []

    def client(share: int) -> None:
        conn = http.client.HTTPConnection(host.hostname or "127.0.0.1", host.port, timeout=30)
        mine = []
        try:
            for _ in range(share):
                t0 = time.perf_counter()
                conn.request("GET", path)
                response = conn.getresponse()
                body = response.read()
                mine.append((time.perf_counter() - t0) * 1000)
                if response.status != 200 or (size is not None and len(body) != size):
                    failures.append(f"{response.status}, {len(body)} bytes")
        finally:
            conn.close()
            with lock:
                latencies.extend(mine)

    threads = [threading.Thread(target=client, args=(count // _CLIENTS,)) for _ in range(_CLIENTS)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    if failures:
        raise RuntimeError(f"{path}: {len(failures)} bad answers, the first {failures[0]}")
    return len(latencies) / elapsed, latencies
