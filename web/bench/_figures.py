"""``arena bench web`` (printed, never asserted): the viewer in headless Chromium on loopback, and
the site under load.

The viewer, for a stored 400-tick replay (random against border-soldier, seed
1): time from navigation to the first frame drawn (warm, and each of several
fresh browsers' first load), time to jump to any tick (seek and draw: median,
p99, worst), and the replay stream's throughput, from the server alone and
fetched and decoded in the browser (needs the dev extra's Playwright and
Chromium). The site: a real ``arena serve`` in a process of its own, driven
from this one with the load test's load (``web.bench._load``): the replay
stream and the listings alone (requests/s, p50/p99), then the mixed load
(streams, listings, uploads, quick matches past the queue) while its memory
is sampled.
``summary_figures`` is the site's part of ``arena bench``'s one-run summary.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from pathlib import Path

from web.bench._load import (
    LISTINGS,
    LoadRun,
    Request,
    RequestKind,
    Timing,
    drive,
    mixed_requests,
    seed_store,
    wait_settled,
)
from web.bench._process import Memory, ServerProcess

__all__ = ["bench_figures", "summary_figures"]

# Ticks to jump to: a fixed pseudo-random walk over the whole replay, never to a
# neighbour of the tick before (that would be a step, not a jump). A jump is timed
# with the work of the frame that shows it: the seek (the state rebuilt, the map,
# panels and labels drawn) and the charts' markers, which the viewer moves on the
# next animation frame.
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
    v.charts.setTick(v.tick);
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
    from web._local import check_replay
    from web._view import view_app
    from web.bench._background import BackgroundServer
    from web.bench._browser import chromium_path, launch_chromium

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
    # Each browser's first load is cold (no cache, no compiled code, new connections;
    # the very first is also the server's first requests), the loads after it warm.
    browsers = 2 * repeat + 1
    cold: list[float] = []
    warm: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.replay"
        path.write_bytes(result.replay)
        # Checked first, as `arena view` does.
        with BackgroundServer(view_app(check_replay(path))) as server, sync_playwright() as p:
            for n in range(browsers):
                browser = launch_chromium(p)
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                for i in range(4):
                    page.goto(server.url, wait_until="commit")
                    page.wait_for_function("() => window.forayViewer?.metrics.firstFrame != null")
                    (warm if i else cold).append(
                        page.evaluate("window.forayViewer.metrics.firstFrame")
                    )
                    page.wait_for_function(_READY)
                if n == browsers - 1:
                    page.wait_for_function("() => window.forayViewer.charts !== null")
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
    print(
        f"  navigation to first frame drawn  {statistics.median(warm):6.0f} ms median, "
        f"{min(warm):.0f} best of {len(warm)} warm loads  (goal < 300 ms)"
    )
    print(
        f"  the same, a browser's first load {statistics.median(cold):6.0f} ms median, "
        f"{min(cold):.0f} best, {max(cold):.0f} worst of {len(cold)} browsers"
    )
    p99 = statistics.quantiles(jumps, n=100)[98]
    print(
        f"  jump to any tick (seek + draw)   {statistics.median(jumps):6.2f} ms median, "
        f"{p99:.2f} p99, {max(jumps):.2f} worst of {len(jumps)}  (goal < 16 ms)"
    )
    for label, times in (("stream, server alone", served), ("stream, fetched + decoded", decoded)):
        best = min(times) / 1000
        print(
            f"  {label:<32} {mib / best:6.1f} MiB/s, {result.ticks / best:>9,.0f} frames/s "
            f"(best of {len(times)}: {min(times):.1f} ms)"
        )


# --------------------------------------------------------------------------- the site

_CLIENTS = 8
"""Concurrent clients of the site's figures, each on a keep-alive connection."""


@dataclass(frozen=True, slots=True)
class _Mixed:
    """The mixed load's figures: timings by kind, answers, and the server's memory."""

    run: LoadRun
    accepted: int
    refused: int
    peak: Memory
    """The most resident while the load ran (server and workers each at its own peak)."""
    after: Memory
    """At the end (VmHWM: the server's peak over its whole life)."""


@dataclass(frozen=True, slots=True)
class _Site:
    """What the site's figures measured."""

    replay_bytes: int
    stream: Timing
    listing: Timing
    memory: Memory
    mixed: _Mixed | None


def _site_load(streams: int, *, mixed: bool) -> _Site:
    """``arena serve`` in a process of its own, over a store holding one 400-tick replay.

    ``_CLIENTS`` threads of this process each keep one connection and send
    requests back to back: ``streams`` replay streams, then half as many
    listings (matches, runs, controllers in turn); then, if ``mixed``, the load
    test's mixed load (``web.bench._load``): streams, listings, uploads of new modules
    and quick matches, the first a burst past the queue, while the server's
    memory is sampled.
    """
    import tempfile

    with tempfile.TemporaryDirectory(prefix="arena-bench-site-") as tmp:
        root = Path(tmp)
        seeded = seed_store(root)
        with ServerProcess(root, jobs=1, queue=_QUEUE) as server:
            # A first request of each kind outside the timing (imports, the first connection).
            drive(server.url, [Request.stream(seeded.id), Request.listing(LISTINGS[0])])
            stream = drive(server.url, [Request.stream(seeded.id)] * streams, clients=_CLIENTS)
            _check(stream, seeded.replay_bytes)
            lists = [Request.listing(LISTINGS[i % len(LISTINGS)]) for i in range(streams // 2)]
            listing = drive(server.url, lists, clients=_CLIENTS)
            _check(listing, None)
            memory = server.memory()
            load = _mixed_load(server, seeded.id, streams) if mixed else None
            code = server.stop()
            if code != 0 or "Traceback" in server.stderr:
                raise RuntimeError(f"arena serve stopped badly ({code}): {server.stderr[-500:]}")
    return _Site(
        seeded.replay_bytes,
        stream.timing(RequestKind.STREAM),
        listing.timing(*LISTINGS),
        memory,
        load,
    )


_QUEUE = 16
"""The bench server's match queue: the mixed load's burst is twice as many."""

_SAMPLE_EVERY = 0.02
"""Seconds between two readings of the server's memory under the mixed load."""


def _mixed_load(server: ServerProcess, match_id: int, streams: int) -> _Mixed:
    """The mixed load on a running server, its memory sampled every ``_SAMPLE_EVERY`` meanwhile."""
    import threading

    import arena

    blobs = [arena.load_baseline(name) for name in ("random", "greedy-raider")]
    uploads = [(f"bench-{i}", arena.numbered_module(blobs[i % 2], i)) for i in range(8)]
    pairs = [("random", "greedy-raider"), ("border-soldier", "random")]
    matches = [(*pairs[i % 2], i) for i in range(2 * _QUEUE + 8)]
    requests = mixed_requests(
        [match_id],
        stream_count=streams,
        listings=streams // 2,
        uploads=uploads,
        matches=matches,
        burst=2 * _QUEUE,
    )
    peaks = [server.memory()]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(_SAMPLE_EVERY):
            peaks.append(server.memory())

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        run = drive(server.url, requests, clients=_CLIENTS, token=server.token)
        accepted = [a.json()["id"] for a in run.of(RequestKind.QUICK_MATCH) if a.status == 202]
        # The load goes on until the matches accepted are played.
        wait_settled(server.url, accepted, timeout=300, token=server.token)
    finally:
        done.set()
        sampler.join()
    bad = [a for a in run.answers if a.status >= 500]
    if bad:
        raise RuntimeError(f"{bad[0].request.path}: {bad[0].status} {bad[0].body[:200]!r}")
    after = server.memory()
    peak = Memory(
        max(m.rss_kib for m in peaks),
        after.hwm_kib,
        max(m.workers_rss_kib for m in peaks),
    )
    refused = sum(1 for a in run.answers if a.status == 429)
    return _Mixed(run, len(accepted), refused, peak, after)


def _check(run: LoadRun, size: int | None) -> None:
    bad = [a for a in run.answers if a.status != 200 or (size is not None and a.size != size)]
    if bad:
        raise RuntimeError(f"{bad[0].request.path}: {bad[0].status}, {bad[0].size} bytes")


def _timing_line(label: str, t: Timing) -> str:
    return (
        f"  {label:<36} {t.per_s:7,.0f} requests/s, p50 {t.p50_ms:6.1f} ms, "
        f"p99 {t.p99_ms:6.1f} ms ({t.requests} requests)"
    )


def _mib(kib: int) -> str:
    return f"{kib / 1024:.1f} MiB"


def _site_figures(repeat: int) -> None:
    """Print the site's figures: the stream and listings alone, then the mixed load."""
    site = _site_load(400 * repeat, mixed=True)
    print(
        f"site (arena serve in its own process, 1 worker, queue {_QUEUE}; {_CLIENTS} clients"
        " of this process, keep-alive, 127.0.0.1):"
    )
    print(_timing_line(f"replay stream ({site.replay_bytes:,} bytes)", site.stream))
    print(_timing_line("listings (matches, runs, controllers)", site.listing))
    print(f"  server memory after them: VmRSS {_mib(site.memory.rss_kib)}")
    mixed = site.mixed
    assert mixed is not None
    run = mixed.run
    print(
        f"  mixed load: {len(run.answers)} requests in {run.seconds:.1f} s "
        f"({len(run.answers) / run.seconds:.0f} requests/s in all); {mixed.accepted} quick "
        f"matches accepted, {mixed.refused} refused with 429 (Retry-After), all accepted played;"
        " latency by kind:"
    )
    for label, kinds in (
        ("replay stream", (RequestKind.STREAM,)),
        ("listings", LISTINGS),
        ("uploads (admitted in a worker)", (RequestKind.UPLOAD,)),
        ("quick-match submissions", (RequestKind.QUICK_MATCH,)),
    ):
        t = run.timing(*kinds)
        print(f"    {label:<34} p50 {t.p50_ms:7.1f} ms, p99 {t.p99_ms:7.1f} ms ({t.requests})")
    print(
        f"  server memory under the mixed load: VmRSS {_mib(mixed.peak.rss_kib)} at most "
        f"(sampled every {_SAMPLE_EVERY * 1000:.0f} ms), VmHWM {_mib(mixed.after.hwm_kib)} "
        "(its high-water mark since it started); its worker processes together "
        f"{_mib(mixed.peak.workers_rss_kib)} at most"
    )


def summary_figures(size: str) -> dict[str, float]:
    """The site's part of ``arena bench``'s one-run summary (the ``foray_arena.summary`` entry
    point): the replay stream and the listings alone, as ``arena bench web`` measures them.

    ``size`` is ``full`` or ``quick``; prints its lines and returns the
    figures by their summary keys (docs/benchmarks.md).
    """
    streams = 400 if size == "quick" else 1200
    site = _site_load(streams, mixed=False)
    print(f"site: arena serve, 1 worker, {_CLIENTS} clients on keep-alive connections:")
    print(_timing_line(f"replay stream ({site.replay_bytes:,} bytes)", site.stream))
    print(_timing_line("listings (matches, runs, controllers)", site.listing))
    print(f"  server memory after them: VmRSS {_mib(site.memory.rss_kib)}")
    return {
        "server_stream_requests_per_s": site.stream.per_s,
        "server_stream_p50_ms": site.stream.p50_ms,
        "server_stream_p99_ms": site.stream.p99_ms,
        "server_list_requests_per_s": site.listing.per_s,
        "server_list_p50_ms": site.listing.p50_ms,
        "server_list_p99_ms": site.listing.p99_ms,
        "server_rss_mib": site.memory.rss_kib / 1024,
    }
