"""The browser viewer in Chromium (Debian's, driven by Playwright) against servers on 127.0.0.1.

The states the viewer rebuilds are compared with Python's ``replays.iter_states``
on real replays; the rest drives the page as a person would: the canvas, the
scrubber and the keys, deep links, the charts, the outcome, forfeit banners,
notes, streaming, errors. The ``tab`` fixture fails a test whose page logged
an error it did not expect.
"""

from __future__ import annotations

import asyncio
import io
import json
import re
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest
from playwright.sync_api import Browser, expect
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Mount, Route

import replays
import sim
import web
from tests._support import ZOO, Builder, Tab, pack, plain_state, play_scripted
from web import bench

# --------------------------------------------------------------------------- the states


pytestmark = [pytest.mark.browser, pytest.mark.server]


def python_states(path: Path) -> list[dict[str, Any]]:
    return [plain_state(s) for s in replays.iter_states(replays.read_replay(path.read_bytes()))]


@pytest.mark.parametrize("name", ["baselines", "golden", "fierce", "forfeit"])
def test_the_viewer_rebuilds_the_states_python_draws(
    tab: Tab, viewers: dict[str, str], replay_files: dict[str, Path], name: str
) -> None:
    states = python_states(replay_files[name])
    assert len(states) > 20  # past a keyframe, so seeking starts from one
    tab.open(viewers[name])
    # Backwards, each tick a seek from the latest keyframe at or before it...
    order = list(reversed(range(len(states))))
    seeked = tab.js(
        "(ts) => JSON.stringify(ts.map((t) => window.forayViewer.replay.stateAt(t).toPlain()))",
        order,
    )
    assert json.loads(seeked) == [states[t] for t in order]
    # ...and forwards, each tick a step from the one before, as playing does.
    stepped = tab.js(
        """(n) => JSON.stringify(
            Array.from({length: n}, (_, t) => window.forayViewer.view(t).state.toPlain()))""",
        len(states),
    )
    assert json.loads(stepped) == states


def python_vision(path: Path, tick: int, side: int) -> list[int]:
    """Rules §3.3, from the drawn state: Chebyshev squares around the units and the colony."""
    replay = replays.read_replay(path.read_bytes())
    cfg, m = replay.config, replay.game_map
    state = next(s for s in replays.iter_states(replay) if s.tick == tick)
    seen = [0] * (m.width * m.height)
    squares = [(u.x, u.y, cfg.unit_vision) for u in state.units[side]]
    squares.append((*m.colonies[side], cfg.colony_vision))
    for cx, cy, r in squares:
        for y in range(max(0, cy - r), min(m.height - 1, cy + r) + 1):
            for x in range(max(0, cx - r), min(m.width - 1, cx + r) + 1):
                seen[y * m.width + x] = 1
    return seen


def test_vision_is_the_union_of_the_sides_squares(
    tab: Tab, viewers: dict[str, str], replay_files: dict[str, Path]
) -> None:
    tab.open(viewers["baselines"])
    for tick in (0, 57, 150):
        for side in (0, 1):
            mask = tab.js(
                """async ([t, side]) => {
                    const { visionMask } = await import("/static/replay.js");
                    const v = window.forayViewer;
                    return Array.from(visionMask(v.replay, v.replay.stateAt(t), side));
                }""",
                [tick, side],
            )
            assert mask == python_vision(replay_files["baselines"], tick, side), (tick, side)


def test_the_viewer_copies_the_python_constants_and_the_readers_bounds(
    tab: Tab, viewers: dict[str, str]
) -> None:
    """Every constant replay.js exports is Python's: the format's, the vocabulary's and the
    reader's decoder bounds (``replays.ReplayLimits.decoder_bounds``, camelCased as the
    msgpack decoder names them)."""
    tab.open(viewers["golden"])
    copied = tab.js(
        """async () => {
            const module = await import("/static/replay.js");
            return Object.fromEntries(
                Object.entries(module).filter(([, value]) => typeof value !== "function"));
        }"""
    )
    bounds = replays.DEFAULT_LIMITS.decoder_bounds()
    # max_str_len -> maxStrLength
    camel = {
        "max" + "".join(w.title() for w in k.split("_")[1:-1]) + "Length": v
        for k, v in bounds.items()
    }
    assert copied == {
        "FORMAT": replays.FORMAT,
        "VERSIONS": list(replays.SUPPORTED_VERSIONS),
        "MEMORY_VERSION": replays.MEMORY_VERSION,
        "KEYFRAME_INTERVAL": replays.KEYFRAME_INTERVAL,
        "WORKER": sim.WORKER,
        "SOLDIER": sim.SOLDIER,
        "DIRECTION_DELTAS": [list(d) for d in sim.DIRECTION_DELTAS],
        "DECODE_LIMITS": camel,
    }


def test_numbers_are_grouped_as_intl_groups_them(tab: Tab, viewers: dict[str, str]) -> None:
    """format.js groups integers itself (a cold page's first Intl formatter is slow to make),
    and writes every value as ``Intl.NumberFormat("en-US")`` does."""
    tab.open(viewers["golden"])
    values = [0, -0.0, 7, -7, 999, 1000, -1000, 12345, 999999, 1000000, -1234567, 2**53 - 1]
    values += [-(2**53) + 1, 2**53, 1.5, -0.25, 1234.5678, 1e21]
    ours, intl = tab.js(
        """async (values) => {
            const { num } = await import("/static/format.js");
            const f = new Intl.NumberFormat("en-US");
            return [values.map(num), values.map((v) => f.format(v))];
        }""",
        values,
    )
    assert ours == intl


# --------------------------------------------------------------------------- the page


def canvas_colours(tab: Tab) -> dict[str, int]:
    """Pixels of the canvas: how many distinct colours, and how many of each side's colour."""
    result: dict[str, int] = tab.js(
        """() => {
            const c = document.querySelector(".fv-canvas");
            const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
            const colours = new Set();
            let a = 0, b = 0, dark = 0;
            for (let i = 0; i < d.length; i += 4) {
                colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
                if (d[i] === 0x4f && d[i + 1] === 0x9d && d[i + 2] === 0xff) a++;
                if (d[i] === 0xff && d[i + 1] === 0x7a && d[i + 2] === 0x45) b++;
                if (d[i] + d[i + 1] + d[i + 2] < 60) dark++;
            }
            return { colours: colours.size, a, b, dark, pixels: d.length / 4 };
        }"""
    )
    return result


def test_the_page_draws_the_map(tab: Tab, viewers: dict[str, str]) -> None:
    tab.open(viewers["baselines"])
    pixels = canvas_colours(tab)
    assert pixels["colours"] > 20
    assert pixels["a"] > 100 and pixels["b"] > 100  # both colonies and their units
    assert tab.js("() => window.forayViewer.metrics.firstFrame") > 0
    # The vision overlay darkens what the side does not see.
    tab.page.keyboard.press("v")
    assert tab.page.locator(".fv-vision").input_value() == "0"
    assert canvas_colours(tab)["dark"] > pixels["dark"] + 1000


def test_the_terrain_is_each_cell_in_its_colour_sized_to_the_board(
    tab: Tab, viewers: dict[str, str]
) -> None:
    """The terrain (drawn from an image of one pixel a cell, web/static/draw.js): each cell's
    body open or rock, a rock's top two rows its edge, a one-pixel gap of the grid at the
    right and bottom of every cell; the canvas sized from the board's width, as laid out."""
    tab.open(viewers["baselines"])
    got = tab.js(
        """() => {
            const v = window.forayViewer;
            const r = v.renderer, c = r.cell, w = v.replay.width, h = v.replay.height;
            const t = r.terrain().getContext("2d").getImageData(0, 0, w * c, h * c).data;
            const at = (x, y) => {
                const i = 4 * (y * w * c + x);
                return [t[i], t[i + 1], t[i + 2]];
            };
            const rock = v.replay.header.map.rock;
            const cellOf = (kind) => rock.findIndex((k) => k === kind);
            const cells = {};
            for (const [name, i] of [["open", cellOf(0)], ["rock", cellOf(1)]]) {
                const x = (i % w) * c, y = Math.floor(i / w) * c;
                cells[name] = {top: at(x + 2, y), body: at(x + 2, y + c - 2),
                               right: at(x + c - 1, y + 4), bottom: at(x + 2, y + c - 1)};
            }
            const room = Math.min(v.ui.board.clientWidth, ((window.innerHeight - 220) * w) / h);
            return { cell: c, expected: Math.max(6, Math.min(28, Math.floor(room / w))),
                     width: v.ui.canvas.width, cells, w };
        }"""
    )
    assert got["cell"] == got["expected"] and got["cell"] >= 10  # gaps and edges drawn
    assert got["width"] == got["w"] * got["cell"]
    open_, rock = (0x1C, 0x22, 0x29), (0x4B, 0x52, 0x5C)
    edge, grid = (0x5D, 0x65, 0x70), (0x16, 0x1B, 0x21)
    cells = {k: {p: tuple(rgb) for p, rgb in v.items()} for k, v in got["cells"].items()}
    assert cells["open"] == {"top": open_, "body": open_, "right": grid, "bottom": grid}
    assert cells["rock"] == {"top": edge, "body": rock, "right": grid, "bottom": grid}


def test_the_page_loads_its_bundle_and_chunks_all_preloaded(
    tab: Tab, viewers: dict[str, str]
) -> None:
    """Every script the page loads before the charts is one it preloads (none found a level
    of imports later), and all are the bundle's (web/build.sh), none a source module."""
    tab.open(viewers["baselines"])
    preloaded, loaded = tab.scripts()
    assert loaded == preloaded
    assert "/static/dist/view.js" in loaded
    assert all(p.startswith("/static/dist/") for p in loaded), loaded
    # The charts come after the first frame, from a chunk of their own (uPlot inside it).
    tab.page.wait_for_function("() => window.forayViewer.charts !== null")
    charts = tab.js(
        """() => performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname)
            .filter((p) => p.endsWith(".js") && !p.startsWith("/static/dist/chunk-")
                && p !== "/static/dist/view.js")"""
    )
    assert len(charts) == 1 and re.fullmatch(r"/static/dist/charts-[0-9A-Z]+\.js", charts[0])


def test_uplots_stylesheet_comes_with_the_charts_not_in_the_pages_head(
    tab: Tab, viewers: dict[str, str]
) -> None:
    """The page's head links viewer.css alone (a stylesheet there holds the first frame);
    the viewer adds uPlot's with the charts, from static/ (not static/dist/), loaded."""
    tab.open(viewers["baselines"])
    tab.page.wait_for_function("() => window.forayViewer.charts !== null")
    sheets = tab.js(
        """() => [...document.querySelectorAll('link[rel="stylesheet"]')].map((link) => ({
            path: new URL(link.href).pathname, loaded: link.sheet !== null }))"""
    )
    assert [s["path"] for s in sheets] == [
        "/static/viewer.css",
        "/static/vendor/uplot/uPlot.min.css",
    ], sheets
    assert all(s["loaded"] for s in sheets), sheets
    # Its rules apply (a chart's overlay is positioned by them alone).
    assert tab.js("() => getComputedStyle(document.querySelector('.u-over')).position") == (
        "absolute"
    )


def test_the_scrubber_and_the_keyboard_move_the_tick(tab: Tab, viewers: dict[str, str]) -> None:
    page = tab.page
    tab.open(viewers["baselines"])
    assert tab.tick == 0
    scrubber = page.locator(".fv-scrubber")
    box = scrubber.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    at = tab.tick
    assert 85 <= at <= 105  # the middle of 0..190
    assert scrubber.input_value() == str(at)
    page.wait_for_url(f"**/?tick={at}")  # the address is a deep link to it
    for key, expected in [
        ("ArrowRight", at + 1),
        ("Shift+ArrowRight", at + 11),
        ("ArrowLeft", at + 10),
        ("Shift+ArrowLeft", at),
        ("End", 190),
        ("Home", 0),
    ]:
        page.keyboard.press(key)
        assert tab.tick == expected, key
    assert page.locator(".fv-tick").inner_text() == "tick 0 / 190"
    page.keyboard.press("Space")
    page.wait_for_function("() => Number(document.getElementById('viewer').dataset.tick) >= 3")
    page.keyboard.press("Space")
    stopped = tab.tick
    time.sleep(0.3)
    assert tab.tick == stopped
    page.wait_for_url(f"**/?tick={stopped}")


def test_a_deep_link_opens_at_its_tick(tab: Tab, viewers: dict[str, str]) -> None:
    tab.open(viewers["baselines"] + "?tick=57")
    assert tab.tick == 57
    assert tab.page.locator(".fv-scrubber").input_value() == "57"
    assert tab.page.locator(".fv-tick").inner_text() == "tick 57 / 190"
    tab.open(viewers["baselines"] + "?tick=100000")
    assert tab.tick == 190


def test_the_charts_follow_and_move_the_viewer(tab: Tab, viewers: dict[str, str]) -> None:
    page = tab.page
    tab.open(viewers["baselines"] + "?tick=20")
    page.wait_for_function("() => document.querySelectorAll('.fv-chart .uplot').length === 4")
    titles = page.locator(".fv-chart .u-title").all_inner_texts()
    assert titles == ["Banked", "Units", "Fuel per tick", "Memory"]
    # The legends show the values at the viewer's tick; the fuel cap is a series of its own.
    expect(page.locator(".fv-chart").nth(2).locator(".u-legend")).to_contain_text(
        re.compile(r"cap\W*5,000,000")
    )
    over = page.locator(".fv-chart .u-over").first
    over.scroll_into_view_if_needed()
    box = over.bounding_box()
    assert box is not None
    middle_y = box["y"] + box["height"] / 2
    page.mouse.click(box["x"] + box["width"] / 2, middle_y)
    assert abs(tab.tick - 95) <= 1
    # While paused, the chart's cursor moves the viewer; the marker follows.
    page.mouse.move(box["x"] + box["width"] / 4, middle_y)
    assert abs(tab.tick - 47) <= 1
    # The markers move on the next animation frame (not in the seek itself).
    tab.js("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    marker = page.locator(".fv-chart .fv-now").first.bounding_box()
    assert marker is not None
    assert abs(marker["x"] - (box["x"] + box["width"] / 4)) <= 3


def chart_data(tab: Tab, title: str) -> list[list[float | None]]:
    """The data a chart draws: ticks, then each series (its legend's order)."""
    data: list[list[float | None]] = tab.js(
        """(title) => {
            const plots = window.forayViewer.charts.plots;
            return plots.find((p) => p.spec.title === title).data.map((s) => Array.from(s));
        }""",
        title,
    )
    return data


def test_memory_is_charted_beside_fuel_up_to_the_forfeit(
    tab: Tab, viewers: dict[str, str], replay_files: dict[str, Path]
) -> None:
    """A side grows a page every 3 ticks past its 2 MiB cap in tick 49 (the golden memory
    forfeit): the chart draws both sides' sizes of every tick and the cap as a line, and
    the side's statistics say its memory at the tick shown."""
    page = tab.page
    replay = replays.read_replay(replay_files["memory"].read_bytes())
    series = replays.memory_series(replay)
    assert series is not None
    cap = replay.header.limits["max_memory_bytes"]
    assert series[0][-1] == cap + 65_536 and replay.ticks == 50
    tab.open(viewers["memory"] + "?tick=49")
    page.wait_for_function("() => document.querySelectorAll('.fv-chart .uplot').length === 4")
    charts = page.locator(".fv-chart")
    titles = charts.locator(".u-title").all_inner_texts()
    assert titles[2:] == ["Fuel per tick", "Memory"]
    # Fuel and memory share a row: the memory chart sits beside the fuel chart.
    fuel_box, memory_box = charts.nth(2).bounding_box(), charts.nth(3).bounding_box()
    assert fuel_box is not None and memory_box is not None
    assert memory_box["y"] == fuel_box["y"] and memory_box["x"] > fuel_box["x"]
    ticks, a, b, cap_line = chart_data(tab, "Memory")
    assert ticks == list(range(50))
    assert (a, b) == (list(series[0]), list(series[1]))
    assert a[-1] == 2_162_688 and cap_line == [cap] * 50
    legend = charts.nth(3).locator(".u-legend")
    expect(legend).to_contain_text(re.compile(r"A grow\W*2,162,688"))
    expect(legend).to_contain_text(re.compile(r"cap\W*2,097,152"))
    stats = page.locator(".fv-side").nth(0)
    memory = stats.locator("dt:text-is('memory') + dd")
    share = stats.locator("dt:text-is('of its cap') + dd")
    assert (memory.inner_text(), share.inner_text()) == ("2,162,688", "103.1%")
    page.keyboard.press("Home")
    assert memory.inner_text() == f"{series[0][0]:,}"
    assert share.inner_text() == f"{100 * series[0][0] / cap:.1f}%"
    # A replay of an older format version records no memory: no chart, no figure.
    tab.open(viewers["golden"])
    page.wait_for_function("() => document.querySelectorAll('.fv-chart .uplot').length === 3")
    assert "Memory" not in page.locator(".fv-chart .u-title").all_inner_texts()
    assert memory.inner_text() == share.inner_text() == "–"


def test_the_outcome_is_spelled_out(
    tab: Tab, viewers: dict[str, str], replay_files: dict[str, Path]
) -> None:
    result = replays.read_replay(replay_files["baselines"].read_bytes()).result
    assert (result.winner, result.reason, result.ticks) == (1, "sweep", 191)
    banked = "-".join(str(s.banked) for s in result.sides)
    tab.open(viewers["baselines"])
    assert tab.page.locator(".fv-outcome").inner_text() == (
        f"B (fuel-probe) wins by sweep — A's colony destroyed in tick 190; banked {banked}"
    )
    # Every reason, from results made up for it.
    texts = tab.js(
        """async (cases) => {
            const { describeOutcome } = await import("/static/outcome.js");
            return cases.map(([result, k]) => {
                const frames = [{ t: 0, k }];
                const replay = {
                    header: { sides: [{ name: "alpha" }, { name: "beta" }] },
                    result, frames, ticks: 1, lastApplied: 0,
                };
                const o = describeOutcome(replay);
                return `${o.headline}: ${o.detail}`;
            });
        }""",
        [
            [outcome(1, "fuel", (12, 1000), (12, 590)), [60, 60]],
            [outcome(0, "score", (30, 9), (28, 7)), [4, 60]],
            [outcome(1, "score", (3, 2000), (5, 9000)), [0, 0]],
            [outcome(None, "draw", (7, 123456), (7, 123456)), [60, 60]],
            [outcome(0, "fuel", (0, 999999), (0, 1000000)), [60, 60]],
        ],
    )
    assert texts == [
        "B (beta) wins on fuel: level on banked 12-12; B used 41% less fuel (590 vs 1,000)",
        "A (alpha) wins on score: banked 30-28",
        "B (beta) wins on score: both colonies destroyed in tick 0; banked 3-5",
        "Draw: level on banked 7-7 and on fuel (123,456 each)",
        "A (alpha) wins on fuel: level on banked 0-0; A used 0.00010% less fuel"
        " (999,999 vs 1,000,000)",
    ]


def outcome(
    winner: int | None, reason: str, a: tuple[int, int], b: tuple[int, int]
) -> dict[str, Any]:
    """A result object with (banked, fuel_total) per side and no forfeit."""
    sides = [{"banked": s[0], "fuel_total": s[1], "fuel_peak": 0, "forfeit": None} for s in (a, b)]
    return {"type": "result", "winner": winner, "reason": reason, "ticks": 1, "sides": sides}


def test_a_forfeit_has_a_banner_at_its_tick(
    tab: Tab, viewers: dict[str, str], replay_files: dict[str, Path]
) -> None:
    forfeit = replays.read_replay(replay_files["forfeit"].read_bytes()).result.sides[1].forfeit
    assert forfeit is not None and forfeit.tick == 25
    said = f"B (beta) forfeited in tick 25: invalid_action ({forfeit.detail})"
    banner = tab.page.locator(".fv-banner")
    tab.open(viewers["forfeit"] + "?tick=25")
    assert banner.is_visible()
    assert banner.inner_text() == said
    assert tab.page.locator(".fv-outcome").inner_text() == f"A (alpha) wins by forfeit — {said}"
    tab.page.keyboard.press("ArrowLeft")
    assert tab.tick == 24 and not banner.is_visible()
    # At init: no ticks at all, the map and the banner.
    tab.open(viewers["init-forfeit"])
    assert banner.inner_text() == "A (alpha) forfeited at init: init (foray_init returned 1)"
    assert tab.page.locator(".fv-tick").inner_text() == "no ticks"
    assert canvas_colours(tab)["b"] > 100


def test_a_trapping_tick_says_why_it_is_charged_the_whole_fuel(
    tab: Tab, tmp_path: Path, build_c: Builder
) -> None:
    """Rules §8.6: a tick whose call traps is charged all of fuel_per_tick; the 100% says so."""
    import arena
    import arena.match

    trap = arena.Contestant("divzero", build_c(ZOO / "divzero.c"))
    other = arena.Contestant("random", arena.load_baseline("random"))
    result = arena.match.run_match(other, trap, seed=1)
    forfeit = result.sides[1].forfeit
    assert forfeit is not None and forfeit.kind is sim.ForfeitKind.TRAP
    path = tmp_path / "trap.replay"
    path.write_bytes(result.replay)
    with bench.BackgroundServer(web.view_app(path)) as server:
        tab.open(f"{server.url}?tick={forfeit.tick}")
        cap = tab.page.locator('.fv-side[data-side="1"] .fv-stats dd').nth(7)
        assert cap.inner_text() == "100.0% · trap: charged whole"
        assert "charged the whole fuel_per_tick (rules §8.6)" in (cap.get_attribute("title") or "")
        other_side = tab.page.locator('.fv-side[data-side="0"] .fv-stats dd').nth(7)
        assert "charged whole" not in other_side.inner_text()


# --------------------------------------------------------------------------- streams


class RawReplays:
    """An app serving replay bytes as they are, unchecked (what a future format may carry).

    ``/page/NAME`` is a viewer page of ``/raw/NAME``. A replay added with
    ``hold=N`` streams its first N objects, then the rest once ``release`` is set.
    """

    def __init__(self) -> None:
        self.replays: dict[str, tuple[list[bytes], int | None]] = {}
        self.release = threading.Event()
        self.app = Starlette(
            routes=[
                Route("/page/{name}", self._page),
                Route("/raw/{name}", self._raw),
                Mount("/static", web.static_files()),
            ]
        )

    async def _page(self, request: Request) -> Response:
        name = request.path_params["name"]
        return web.viewer_page(f"/raw/{name}", name)

    def add(self, name: str, objects: list[bytes], hold: int | None = None) -> None:
        self.replays[name] = (objects, hold)

    async def _raw(self, request: Request) -> Response:
        objects, hold = self.replays[request.path_params["name"]]
        return StreamingResponse(self._stream(objects, hold), media_type=replays.MEDIA_TYPE)

    async def _stream(self, objects: list[bytes], hold: int | None) -> AsyncIterator[bytes]:
        held = len(objects) if hold is None else hold
        yield b"".join(objects[:held])
        deadline = time.monotonic() + 10
        while held < len(objects) and not self.release.is_set() and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        yield b"".join(objects[held:])


@pytest.fixture(scope="module")
def raw() -> Iterator[tuple[RawReplays, str]]:
    served = RawReplays()
    with bench.BackgroundServer(served.app) as server:
        yield served, server.url


def wire_objects(data: bytes) -> list[Any]:
    return list(msgpack.Unpacker(io.BytesIO(data), raw=False))


def test_drawing_starts_before_the_replay_has_streamed(
    tab: Tab, raw: tuple[RawReplays, str]
) -> None:
    served, url = raw
    data = play_scripted(7, max_ticks=30).data
    # The header and the frames of ticks 0..2 now, the rest when released.
    served.add("slow", [msgpack.packb(o) for o in wire_objects(data)], hold=4)
    tab.open(url + "page/slow", state="streaming")
    tab.page.wait_for_function("() => document.getElementById('viewer').dataset.tick === '0'")
    assert canvas_colours(tab)["a"] > 100
    assert tab.page.locator(".fv-tick").inner_text() == "tick 0 / 2…"
    assert tab.js("() => document.getElementById('viewer').dataset.state") == "streaming"
    served.release.set()
    tab.page.wait_for_function("() => document.getElementById('viewer').dataset.state === 'ready'")
    assert tab.page.locator(".fv-tick").inner_text() == "tick 0 / 29"


def test_notes_of_format_version_2_show_beside_their_side(
    tab: Tab, raw: tuple[RawReplays, str]
) -> None:
    header, *frames, result = wire_objects(play_scripted(8, max_ticks=12).data)
    header["version"] = 2  # version 3 less each side's memory
    for frame in frames:
        frame.pop("l", None)
    frames[5]["n"] = ["<b>hold</b> the line", None]
    # Dropped notes: the frame keeps the length returned, outside 0..256 (rules §9.9).
    frames[6]["n"] = [None, 300]
    frames[7]["n"] = [-1, None]
    data = pack(header, frames, result)
    assert [f.notes for f in replays.read_replay(data).frames[5:8]] == [
        ("<b>hold</b> the line", None),
        (None, 300),
        (-1, None),
    ]
    served, url = raw
    served.add("notes", [data])
    tab.open(url + "page/notes?tick=5")
    notes = tab.page.locator(".fv-note")
    assert notes.nth(0).is_visible() and notes.nth(0).inner_text() == "<b>hold</b> the line"
    assert not notes.nth(1).is_visible()
    tab.page.keyboard.press("ArrowRight")
    assert not notes.nth(0).is_visible()
    assert notes.nth(1).inner_text() == "(note dropped: returned length 300)"
    tab.page.keyboard.press("ArrowRight")
    assert notes.nth(0).inner_text() == "(note dropped: returned length -1)"
    assert not notes.nth(1).is_visible()
    tab.page.keyboard.press("ArrowRight")
    assert not notes.nth(0).is_visible() and not notes.nth(1).is_visible()


def test_an_unknown_format_version_is_refused_by_name(
    tab: Tab, raw: tuple[RawReplays, str]
) -> None:
    header, *frames, result = wire_objects(play_scripted(8, max_ticks=3).data)
    header["version"] = 4
    served, url = raw
    served.add("v4", [pack(header, frames, result)])
    tab.open(url + "page/v4", state="error")
    assert tab.page.locator(".fv-status").inner_text() == (
        "header: format version 4 is not supported (only 1, 2, 3)"
    )


def test_a_bad_replay_file_shows_the_servers_message(tab: Tab, tmp_path: Path) -> None:
    bad = tmp_path / "bad.replay"
    bad.write_bytes(msgpack.packb({"type": "header", "format": "foray-replay", "version": 9}))
    data = play_scripted(9, max_ticks=40).data
    cut = tmp_path / "cut.replay"
    cut.write_bytes(data[: len(data) * 2 // 3])
    tab.expected_errors.append("the server responded with a status of 422")
    with bench.BackgroundServer(web.view_app(bad)) as server:
        tab.open(server.url, state="error")
        assert tab.page.locator(".fv-status").inner_text() == (
            "cannot load the replay (HTTP 422): bad.replay: header: field 'version': "
            "format version 9 is not supported (only 1, 2, 3)"
        )
    with bench.BackgroundServer(web.view_app(cut)) as server:
        tab.open(server.url, state="error")
        status = tab.page.locator(".fv-status").inner_text()
        assert status.startswith("the server stopped the replay: cut.replay: truncated: ")
        assert tab.tick == 0 and canvas_colours(tab)["a"] > 100  # what came is drawn


def test_the_viewer_benchmark_measures_the_viewer_and_its_floor(
    browser: Browser, replay_files: dict[str, Path]
) -> None:
    """A smoke test of ``arena bench viewer`` on a short replay: figures, never asserted."""
    path = replay_files["baselines"]
    data = path.read_bytes()
    replay = (data, len(python_states(path)))
    run = bench.measure_viewer(1, replay=replay, chromium=browser.browser_type)
    assert len(run.viewer) == len(run.floor) == len(run.viewer_running) == len(run.floor_running)
    assert len(run.viewer) == 1
    assert min(run.viewer + run.floor + run.viewer_running + run.floor_running) > 0
    assert run.shown[0] >= run.viewer[0]  # the frame that paints it comes after it is drawn
    assert run.scripts[0] >= 1 and run.replay_start[0] > 0
    assert len(run.jumps) == 400 and run.before_keyframes
