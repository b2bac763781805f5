"""``arena bench viewer`` (printed, never asserted): the cold first frame against its floor.

A 64x64 replay of 2,000 ticks (border-soldier against itself, seed 1),
served by ``arena view``'s app under uvicorn on 127.0.0.1 and opened in
headless Chromium (Debian's) driven by Playwright. Each load is a fresh
browser's first (an empty cache, no compiled code, new connections): the time
from navigation to the first frame drawn (the viewer's own mark,
``metrics.firstFrame``), read by polling the page with a plain evaluate (no
script of Playwright's injected into the page while it loads), and when the
animation frame that paints it began (``metrics.shown``). Beside it, in
turns with it, the **floor**: a trivial page served by the same app, one
small script that fetches the same replay (preloaded as the viewer's page
does) until the header and the first frame have arrived, draws them on a
canvas and sets its mark. What the viewer adds over the floor is its own: its
scripts, decoding, the state, the drawing.

A fresh browser that navigates at once (the goal's figure, as issue 27 measured its
floor) loads the page while it is still starting itself: on two cores its own start-up
work (its pages of its own interface among it) takes the CPU the page needs. So both
pages are also loaded, in the same turns, by fresh browsers left to start for
``SETTLE_S`` first: the page as cold (empty caches, new connections), in a browser a
user would already have running.

Then, in the last browser, jumps: a seek to each of 400 ticks of a fixed
pseudo-random walk over the whole replay, timed with the work of the frame
that shows it (the map, panels and labels drawn, and the charts' markers
moved), against one animation frame at 60 Hz; and the worst place to land,
the tick before each keyframe (the most deltas to apply).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserType, Page

__all__ = ["ViewerRun", "bench_replay", "measure_viewer", "viewer_figures"]

FRAME_MS: Final = 1000 / 60
"""One animation frame at 60 Hz: the budget of a jump."""

GOAL_MS: Final = 180.0
"""Issue 27's goal for the cold first frame (the median)."""

SETTLE_S: Final = 1.0
"""How long a browser runs before it loads the page, for the figures of a running browser:
about when its own start-up work ends here (0.5 s was not enough, 2 s gave the same)."""

_FLOOR_PAGE: Final = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>floor</title>
<link rel="preload" href="/replay" as="fetch" crossorigin="anonymous">
<script type="module" src="/floor.js"></script>
</head>
<body data-need="{need}"><canvas width="64" height="64"></canvas></body>
</html>
"""

# Reads the replay until the header and the first frame are in, and draws their bytes.
_FLOOR_SCRIPT: Final = """const need = Number(document.body.dataset.need);
const response = await fetch("/replay");
const reader = response.body.getReader();
const bytes = new Uint8Array(need);
let have = 0;
while (have < need) {
  const { done, value } = await reader.read();
  if (done) break;
  const part = value.subarray(0, need - have);
  bytes.set(part, have);
  have += part.length;
}
const canvas = document.querySelector("canvas");
const ctx = canvas.getContext("2d");
const image = ctx.createImageData(canvas.width, canvas.height);
for (let i = 0; i < image.data.length; i++) image.data[i] = bytes[i % need];
ctx.putImageData(image, 0, 0);
window.floorFirstFrame = performance.now();
reader.cancel();
"""

# The scripts in by the first frame (``by``), and the replay's first byte, from the
# resource timings (the replay's entry is there once it has streamed whole).
_RESOURCES: Final = """(by) => {
  const entries = performance.getEntriesByType("resource");
  const path = (e) => new URL(e.name).pathname;
  const scripts = entries.filter((e) => /\\.m?js$/.test(path(e)) && e.responseEnd <= by);
  const replay = entries.find((e) => path(e) === "/replay");
  return {
    scripts: scripts.length,
    scriptsEnd: Math.max(0, ...scripts.map((e) => e.responseEnd)),
    replayStart: replay.responseStart,
  };
}"""

# Jumps: to each tick of a fixed pseudo-random walk over the whole replay, then to
# the tick before each keyframe. Each is timed with the work of the frame that
# shows it (the seek: the state rebuilt, the map, panels and labels drawn; and the
# charts' markers, which the viewer moves on the next animation frame). Each target
# is reached three times, from three other ticks (a jump, never a step), and the
# least is kept: what the code costs, not what the machine's other work took.
_JUMPS: Final = """([keyframe]) => {
  const v = window.forayViewer;
  const n = v.replay.ticks;
  let x = 12345;
  const next = () => (x = (x * 1103515245 + 12345) % 2147483648) % n;
  const timed = (t) => {
    let least = Infinity;
    for (let i = 0; i < 3; i++) {
      let from = next();
      if (Math.abs(from - t) < 2) from = (t + n / 2) % n;
      v.seek(from);
      const t0 = performance.now();
      v.seek(t);
      v.charts.setTick(v.tick);
      least = Math.min(least, performance.now() - t0);
    }
    return least;
  };
  const walk = Array.from({ length: 400 }, () => timed(next()));
  const before = [];
  for (let t = keyframe - 1; t < n; t += keyframe) before.push(timed(t));
  return { walk, before };
}"""


@dataclass(frozen=True, slots=True)
class ViewerRun:
    """What one run of the benchmark measured (milliseconds)."""

    ticks: int
    replay_bytes: int
    browser: str
    viewer: list[float]
    """Each fresh browser's first frame drawn, from navigation."""
    shown: list[float]
    """The start of the animation frame that paints it (the viewer's ``metrics.shown``)."""
    floor: list[float]
    """The floor page's, in turns with the viewer's."""
    viewer_running: list[float]
    """The viewer's first frame drawn in a browser that ran ``SETTLE_S`` first."""
    floor_running: list[float]
    """The floor's, likewise."""
    scripts: list[int]
    """Script files the viewer's page loaded before its first frame, per load."""
    scripts_end: list[float]
    """When the last of them had arrived, per load."""
    replay_start: list[float]
    """When the replay's first byte arrived, per load."""
    jumps: list[float]
    """Seek and draw, the charts' markers included, for 400 ticks over the replay."""
    before_keyframes: list[float]
    """The same, to the tick before each keyframe (the most deltas to apply)."""

    @property
    def ratio(self) -> float:
        """The viewer's median over the floor's."""
        return statistics.median(self.viewer) / statistics.median(self.floor)

    @property
    def ratio_running(self) -> float:
        """The same in browsers that ran ``SETTLE_S`` first."""
        return statistics.median(self.viewer_running) / statistics.median(self.floor_running)


def bench_replay() -> tuple[bytes, int]:
    """The benchmark's replay (64x64, 2,000 ticks, border-soldier x2, seed 1) and its ticks."""
    import arena
    import sim

    name = "border-soldier"
    result = arena.play(
        arena.MatchJob(
            arena.Contestant(name, arena.load_baseline(name)),
            arena.Contestant(name, arena.load_baseline(name)),
            seed=1,
            config=sim.Config(width=64, height=64, max_ticks=2000),
        )
    )
    return result.replay, result.ticks


def _first_frame_end(data: bytes) -> int:
    """Bytes from the start of a replay to the end of its first frame."""
    import io

    import msgpack

    unpacker = msgpack.Unpacker(io.BytesIO(data), raw=False)
    next(unpacker)  # the header
    next(unpacker)  # the first frame
    end: int = unpacker.tell()
    return end


@contextmanager
def _served(path: Path, need: int) -> Iterator[str]:
    """``arena view``'s app over ``path`` with the floor's page and script beside it; its URL."""
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, Response
    from starlette.routing import Route

    from web._local import check_replay
    from web._view import view_app
    from web.bench._background import BackgroundServer

    def floor_page(request: Request) -> Response:
        return HTMLResponse(_FLOOR_PAGE.format(need=need))

    def floor_script(request: Request) -> Response:
        return Response(_FLOOR_SCRIPT, media_type="text/javascript")

    app = view_app(check_replay(path))  # checked first, as `arena view` does
    app.router.routes[:0] = [Route("/floor", floor_page), Route("/floor.js", floor_script)]
    with BackgroundServer(app) as server:
        yield server.url


_VIEWER_MARK: Final = "window.forayViewer?.metrics.firstFrame"
_FLOOR_MARK: Final = "window.floorFirstFrame"

# The replay has streamed whole, the charts are up (the replay's resource timing is complete),
# and the first frame's animation frame has run: the charts' script can arrive before it.
_SETTLED: Final = """() => window.forayViewer.charts !== null
  && window.forayViewer.metrics.shown !== null && performance
  .getEntriesByType("resource").some((e) => new URL(e.name).pathname === "/replay")"""


_MARK_POLL_S: Final = 0.02
"""How often the benchmark asks the page for its mark while it loads."""

_MARK_TIMEOUT_S: Final = 30.0


def _await_mark(page: Page, mark: str) -> float:
    """The page's mark ``mark`` once it is set, asked for with a plain evaluate every
    ``_MARK_POLL_S``: not ``wait_for_function``, whose first call injects Playwright's own
    script into the page, on the main thread the page is loading on."""
    import time

    deadline = time.monotonic() + _MARK_TIMEOUT_S
    while True:
        at: float | None = page.evaluate(f"({mark}) ?? null")
        if at is not None:
            return at
        if time.monotonic() > deadline:
            raise TimeoutError(f"{page.url}: no {mark} within {_MARK_TIMEOUT_S:.0f} s")
        time.sleep(_MARK_POLL_S)


def _cold_load(
    chromium: BrowserType,
    url: str,
    mark: str,
    then: Callable[[Browser, Page, float], None] | None = None,
    settle_s: float = 0.0,
) -> float:
    """A fresh browser's first load of ``url``, ``settle_s`` after its page opened: its mark
    ``mark``; then ``then`` on the page."""
    from web.bench._browser import CHROMIUM_ARGS, chromium_path

    browser = chromium.launch(
        executable_path=chromium_path(), args=list(CHROMIUM_ARGS), headless=True
    )
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        if settle_s:
            time.sleep(settle_s)
        page.goto(url, wait_until="commit")
        at = _await_mark(page, mark)
        if then is not None:
            then(browser, page, at)
        return at
    finally:
        browser.close()


def measure_viewer(
    runs: int,
    *,
    replay: tuple[bytes, int] | None = None,
    chromium: BrowserType | None = None,
) -> ViewerRun:
    """``runs`` cold loads of the viewer and of the floor, in turns, then the jumps.

    ``replay`` is the replay's bytes and ticks (default: ``bench_replay()``);
    ``chromium`` the browser type of a running Playwright (default: one started here).
    """
    from playwright.sync_api import sync_playwright

    import replays

    if chromium is None:
        with sync_playwright() as p:
            return measure_viewer(runs, replay=replay, chromium=p.chromium)

    data, ticks = replay if replay is not None else bench_replay()
    viewer: list[float] = []
    floor: list[float] = []
    viewer_running: list[float] = []
    floor_running: list[float] = []
    resources: list[dict[str, Any]] = []
    shown: list[float] = []
    jumps: dict[str, list[float]] = {}
    version = ""

    def settled(browser: Browser, page: Page, at: float) -> None:
        page.wait_for_function(_SETTLED)
        resources.append(page.evaluate(_RESOURCES, at))
        shown.append(page.evaluate("window.forayViewer.metrics.shown"))

    def jump(browser: Browser, page: Page, at: float) -> None:
        nonlocal version
        settled(browser, page, at)
        jumps.update(page.evaluate(_JUMPS, [replays.KEYFRAME_INTERVAL]))
        version = browser.version

    with tempfile.TemporaryDirectory(prefix="arena-bench-viewer-") as tmp:
        path = Path(tmp) / "bench.replay"
        path.write_bytes(data)
        with _served(path, _first_frame_end(data)) as url:
            # The server's first requests (imports, its first reads) are no browser's.
            _cold_load(chromium, url, _VIEWER_MARK)
            _cold_load(chromium, url + "floor", _FLOOR_MARK)
            for n in range(runs):
                last = n == runs - 1
                viewer.append(_cold_load(chromium, url, _VIEWER_MARK, jump if last else settled))
                floor.append(_cold_load(chromium, url + "floor", _FLOOR_MARK))
                viewer_running.append(_cold_load(chromium, url, _VIEWER_MARK, settle_s=SETTLE_S))
                floor_running.append(
                    _cold_load(chromium, url + "floor", _FLOOR_MARK, settle_s=SETTLE_S)
                )
    return ViewerRun(
        ticks=ticks,
        replay_bytes=len(data),
        browser=version,
        viewer=viewer,
        shown=shown,
        floor=floor,
        viewer_running=viewer_running,
        floor_running=floor_running,
        scripts=[r["scripts"] for r in resources],
        scripts_end=[r["scriptsEnd"] for r in resources],
        replay_start=[r["replayStart"] for r in resources],
        jumps=jumps["walk"],
        before_keyframes=jumps["before"],
    )


def viewer_figures(repeat: int) -> None:
    """Print the viewer's cold first frame beside its floor, and its jumps (``repeat`` scales)."""
    try:
        import playwright  # noqa: F401
    except ImportError:
        print("viewer: skipped (Playwright is in the dev extra: pip install -e '.[dev]')")
        return
    from web.bench._browser import chromium_missing

    missing = chromium_missing()
    if missing is not None:
        print(f"viewer: skipped ({missing})")
        return
    run = measure_viewer(5 * repeat)
    med = statistics.median
    print(
        f"viewer ({run.ticks}-tick 64x64 replay, {run.replay_bytes:,} bytes; Chromium "
        f"{run.browser}, headless, 127.0.0.1; {len(run.viewer)} fresh browsers each, in turns):"
    )
    print(
        f"  first frame drawn, cold   {med(run.viewer):6.0f} ms median "
        f"({min(run.viewer):.0f} - {max(run.viewer):.0f})  (goal <= {GOAL_MS:.0f} ms)"
    )
    print(
        f"  first frame shown         {med(run.shown):6.0f} ms median "
        f"({min(run.shown):.0f} - {max(run.shown):.0f})  (the animation frame that paints it)"
    )
    print(
        f"  floor, cold               {med(run.floor):6.0f} ms median "
        f"({min(run.floor):.0f} - {max(run.floor):.0f})  ratio {run.ratio:.2f}x"
    )
    print(
        f"  in a browser running {SETTLE_S:.0f} s first (its own start-up done; the page as cold):"
    )
    print(
        f"    first frame drawn       {med(run.viewer_running):6.0f} ms median "
        f"({min(run.viewer_running):.0f} - {max(run.viewer_running):.0f})"
    )
    print(
        f"    floor                   {med(run.floor_running):6.0f} ms median "
        f"({min(run.floor_running):.0f} - {max(run.floor_running):.0f})  ratio "
        f"{run.ratio_running:.2f}x"
    )
    print(
        f"  the viewer's scripts      {med(run.scripts):6.0f} files, the last in at "
        f"{med(run.scripts_end):.0f} ms; the replay's first byte at {med(run.replay_start):.0f} ms"
    )
    for label, times in (
        ("jump to any tick", run.jumps),
        ("jump before a keyframe", run.before_keyframes),
    ):
        p99 = statistics.quantiles(times, n=100)[98] if len(times) > 1 else times[0]
        print(
            f"  {label:<25} {med(times):6.2f} ms median, {p99:.2f} p99, {max(times):.2f} worst "
            f"of {len(times)}  (one frame: {FRAME_MS:.1f} ms)"
        )
