"""The site's pages in Chromium (Debian's, driven by Playwright) against a real server on 127.0.0.1.

A run page draws its viewer, moves with the scrubber and the keys, switches
matches with its opponent selector and opens deep links at their tick; the
console uploads a controller, plays a quick match and shows its viewer; names
are shown as text, never markup. The ``tab`` fixture fails any test whose page
logged an error.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

import arena
import arena.coordinator
import arena.store
import web
from tests._support import SITE_TOKEN, Builder, Tab, proof_run, small_case
from web import bench
from web._errors import ApiError

pytestmark = [pytest.mark.browser, pytest.mark.server, pytest.mark.processes]

HOSTILE = '<img src=x onerror="window.hacked=1">&amp;'


@dataclass
class Served:
    url: str
    site: web.Site
    run: arena.store.RunRecord
    quick: int
    """A quick match's id."""
    tournament: int
    """A tournament's id (round-robin of three)."""
    idle: Path
    """An admissible module file, for the console's upload."""


@pytest.fixture(scope="module")
def served(
    tmp_path_factory: pytest.TempPathFactory, build_c: Builder, idle: bytes
) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("data")
    case = small_case()
    module = root.parent / "template.wasm"
    module.write_bytes(build_c(Path("baselines") / "template.c"))
    with arena.Store.open(root) as store:
        run = proof_run(store, module, HOSTILE, case)
        store.publish_run(run.id)  # the public pages show it (as a push would)
    idle_file = root.parent / "idle.wasm"
    idle_file.write_bytes(idle)
    limits = web.SiteLimits(workers=1, queue=8)
    with (
        web.Site.open(root, limits=limits, case=case) as site,
        bench.BackgroundServer(web.site_app(site, SITE_TOKEN)) as server,
    ):
        # The published run entered the field as the site opened (its twenty matches are
        # public): they are played first, so that the records below are the newest listed.
        deadline = time.monotonic() + 120
        while site.field_json("foray", 1)["matches"]["pending"]:
            assert time.monotonic() < deadline, "the field is still playing"
            time.sleep(0.1)
        quick = site.queue_match("greedy-raider", "fuel-probe", 3)["id"]
        field = ["random", "greedy-raider", "border-soldier"]
        tournament = site.start_tournament("round-robin", field, seeds=[0])["id"]
        site.publish_tournament(tournament)
        _settled(site, quick)
        site.publish_match(quick)
        yield Served(server.url, site, run, quick, tournament, idle_file)


def _settled(site: web.Site, match_id: int) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while (m := site.match_json(match_id))["status"] == "pending":
        assert time.monotonic() < deadline, f"match {match_id} still pending"
        time.sleep(0.1)
    return m


def run_rows(served: Served) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = served.site.run_json(served.run.id)["matches"]
    return rows


def canvas_is_drawn(tab: Tab) -> bool:
    colours: int = tab.js(
        """(sel) => {
            const c = document.querySelector(sel + " .fv-canvas");
            const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
            const seen = new Set();
            for (let i = 0; i < d.length; i += 4) {
                seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
            }
            return seen.size;
        }""",
        tab.viewer,
    )
    return colours > 20


def test_a_run_page_shows_its_results_and_draws_its_canonical_match(
    tab: Tab, served: Served
) -> None:
    tab.open_site(f"{served.url}runs/{served.run.id}")
    tab.viewer_ready()
    assert canvas_is_drawn(tab)
    rows = tab.page.locator(".site-table tbody tr")
    assert rows.count() == len(run_rows(served)) == 4
    first = rows.first.locator("td").all_inner_texts()
    assert first[:3] == ["border-soldier", "canonical", "A"]
    canonical = next(r for r in run_rows(served) if r["role"] == "canonical")
    assert tab.page.locator(".site-opponent").input_value() == str(canonical["id"])
    tab.page.wait_for_url(f"**/runs/{served.run.id}?match={canonical['id']}*")
    # The controller's name is text, never markup.
    assert tab.page.locator(".site-head .site-name").inner_text() == HOSTILE
    assert tab.js("() => window.hacked === undefined && !document.querySelector('img')")


def test_each_page_loads_its_bundle_with_every_chunk_preloaded(tab: Tab, served: Served) -> None:
    """A page's scripts (the charts' chunk aside) are its bundle and the chunks it preloads:
    none found a level of imports later, no source module (web/build.sh)."""
    for path, page in (
        (f"runs/{served.run.id}", "run"),
        (f"matches/{served.quick}", "match"),
        (f"tournaments/{served.tournament}", "tournament"),
        ("", "index"),
        ("console", "console"),
        (f"controllers/{_sha(served, 'random')}", "controller"),
    ):
        tab.open_site(served.url + path)
        preloaded, loaded = tab.scripts()
        assert loaded == preloaded, page
        assert f"/static/dist/{page}.js" in loaded
        assert all(p.startswith("/static/dist/") for p in loaded), loaded


def test_a_run_pages_results_show_both_sides_banked_and_fuel_labelled(
    tab: Tab, served: Served
) -> None:
    """The run's controller's banked and fuel ("yours"), then the opponent's, as ``arena runs
    show`` prints them."""
    tab.open_site(f"{served.url}runs/{served.run.id}")
    heads = tab.page.locator(".site-table thead th").all_inner_texts()
    labelled = ["banked (yours)", "banked (opponent)", "fuel (yours)", "fuel (opponent)"]
    at = heads.index(labelled[0])
    assert heads[at : at + 4] == labelled and "fuel" not in heads
    body = tab.page.locator(".site-table tbody tr")
    for i, row in enumerate(run_rows(served)):
        result: Any = row["result"]
        mine, theirs = result["sides"][row["side"]], result["sides"][1 - int(str(row["side"]))]
        cells = body.nth(i).locator("td").all_inner_texts()[at : at + 4]
        expected = [mine["banked"], theirs["banked"], mine["fuel_total"], theirs["fuel_total"]]
        assert cells == [f"{n:,}" for n in expected]


def test_the_scrubber_and_the_keyboard_move_the_tick_on_a_run_page(
    tab: Tab, served: Served
) -> None:
    page = tab.page
    tab.open_site(f"{served.url}runs/{served.run.id}")
    tab.viewer_ready()
    assert tab.tick == 0
    last = int(tab.js("() => window.forayViewer.replay.ticks") - 1)
    scrubber = page.locator(".fv-scrubber")
    scrubber.scroll_into_view_if_needed()
    box = scrubber.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    at = tab.tick
    assert abs(at - last / 2) <= last / 10
    page.wait_for_url(f"**tick={at}")
    for key, expected in [("ArrowRight", at + 1), ("Shift+ArrowLeft", at - 9), ("End", last)]:
        page.keyboard.press(key)
        assert tab.tick == expected, key
    page.keyboard.press("Home")
    assert tab.tick == 0


def test_the_opponent_selector_switches_the_match(tab: Tab, served: Served) -> None:
    page = tab.page
    tab.open_site(f"{served.url}runs/{served.run.id}")
    tab.viewer_ready()
    for row in run_rows(served):
        page.locator(".site-opponent").select_option(str(row["id"]))
        tab.viewer_ready()
        shown = tab.js("() => window.forayViewer.replay.header.sides.map((s) => s.name)")
        assert row["opponent"] in shown and HOSTILE in shown
        assert tab.js("() => window.forayViewer.replayUrl") == f"/api/matches/{row['id']}/replay"
        page.wait_for_url(f"**?match={row['id']}*")
        selected = page.locator(".site-table tr.site-selected td").first.inner_text()
        assert selected == row["opponent"]
        assert canvas_is_drawn(tab)


def test_a_deep_link_opens_a_runs_match_at_its_tick(tab: Tab, served: Served) -> None:
    row = run_rows(served)[2]
    tab.open_site(f"{served.url}runs/{served.run.id}?match={row['id']}&tick=37")
    tab.viewer_ready()
    assert tab.tick == 37
    assert tab.page.locator(".site-opponent").input_value() == str(row["id"])
    assert tab.page.locator(".fv-scrubber").input_value() == "37"


def test_a_match_page_opens_at_its_tick(tab: Tab, served: Served) -> None:
    url = f"{served.url}matches/{served.quick}?tick=42"
    tab.page.goto(url)
    tab.viewer = ".site-viewer"
    tab.viewer_ready()
    assert tab.tick == 42
    assert (
        tab.page.locator("h1").inner_text() == f"Match #{served.quick}: greedy-raider vs fuel-probe"
    )


def test_chromium_takes_the_replay_zstd_coded_and_the_viewer_draws_it(
    tab: Tab, served: Served
) -> None:
    """Chromium (Debian's) asks for zstd; the site sends the stored frame as it is, with
    Content-Encoding: zstd, and the viewer decodes the stream and draws its first frame."""
    answers: list[tuple[dict[str, str], dict[str, str]]] = []
    tab.page.on(
        "response",
        lambda r: (
            answers.append((r.request.all_headers(), r.all_headers()))
            if r.url.endswith("/replay")
            else None
        ),
    )
    tab.page.goto(f"{served.url}matches/{served.quick}")
    tab.viewer = ".site-viewer"
    tab.viewer_ready()
    assert canvas_is_drawn(tab)
    (asked, sent), *_ = answers
    assert "zstd" in asked["accept-encoding"]
    assert sent["content-encoding"] == "zstd" and sent["vary"] == "Accept-Encoding"
    match = served.site.match_json(served.quick)
    assert sent["etag"] == f'"{match["replay_sha256"]}-zstd"'
    assert tab.js("() => window.forayViewer.replay.ticks") == match["ticks"]


def test_the_console_uploads_a_controller_and_plays_a_quick_match(tab: Tab, served: Served) -> None:
    page = tab.page
    tab.open_site(f"{served.url}console")
    # Without the token the hidden opponent is not offered.
    assert "fuel-probe (hidden)" not in page.locator(".site-pick-a").inner_text()
    page.locator(".site-token").fill(SITE_TOKEN)
    page.get_by_role("button", name="use").click()
    page.wait_for_function(
        "() => document.querySelector('.site-pick-a').textContent.includes('hidden')"
    )
    page.locator(".site-upload input[type=file]").set_input_files(str(served.idle))
    page.locator(".site-upload input[type=text]").fill("my <idle>")
    page.get_by_role("button", name="upload").click()
    page.wait_for_function(
        "() => document.querySelector('.site-upload .site-note').textContent.startsWith('stored')"
    )
    assert page.locator(".site-controllers").get_by_text("my <idle>", exact=True).count() == 1
    # The uploaded controller (selected on side A) against the hidden opponent.
    page.locator(".site-pick-b").select_option(label="fuel-probe (hidden)")
    page.locator(".site-seed").fill("5")
    page.get_by_role("button", name="play").click()
    page.wait_for_function(
        "() => document.querySelector('.site-match-status')?.dataset.status === 'finished'"
    )
    tab.viewer_ready()
    assert canvas_is_drawn(tab)
    names = tab.js("() => window.forayViewer.replay.header.sides.map((s) => s.name)")
    assert names == ["my <idle>", "fuel-probe"]
    assert (
        "wins" in page.locator(".fv-outcome").inner_text()
        or "Draw" in page.locator(".fv-outcome").inner_text()
    )
    assert saved_token(tab) == SITE_TOKEN


def saved_token(tab: Tab) -> str | None:
    token: str | None = tab.js("() => sessionStorage.getItem('foray-arena-token')")
    return token


def test_the_console_shows_the_servers_refusal(tab: Tab, served: Served) -> None:
    page = tab.page
    tab.open_site(f"{served.url}console")
    tab.expected_errors.append("401")  # the browser logs the refused request
    page.locator(".site-token").fill("not the token")
    page.get_by_role("button", name="use").click()
    # The note says "no token" until the server's answer replaces it: wait for that.
    note = page.locator(".site-form .site-note.site-error")
    expect(note).to_have_text(re.compile(r"^401: the token is not the server's"))
    assert saved_token(tab) is None


def test_the_console_starts_a_tournament_and_its_standings_fill_in(
    tab: Tab, served: Served
) -> None:
    page = tab.page
    tab.open_site(f"{served.url}console")
    page.locator(".site-token").fill(SITE_TOKEN)
    page.get_by_role("button", name="use").click()
    page.wait_for_function("() => document.querySelectorAll('.site-field input').length >= 4")
    page.locator(".site-tournament select").select_option("bracket")
    for name in ("random", "greedy-raider", "border-soldier", "fuel-probe (hidden)"):
        page.locator(".site-field label", has_text=name).first.locator("input").check()
    # The seeds field says what it takes, and the server names what it refuses.
    assert "0 1 2, 0,1,2 or 0-15" in page.locator("#seeds-hint").inner_text()
    page.locator(".site-seeds").fill("0 x")
    tab.expected_errors.append("status of 400")
    page.get_by_role("button", name="start").click()
    page.wait_for_function(
        "() => document.querySelector('.site-tournament + .site-field + .site-note')"
        "?.textContent.includes(\"'x' is not a seed nor a range\")"
    )
    page.locator(".site-seeds").fill("0 1")
    page.get_by_role("button", name="start").click()
    page.wait_for_function(
        "() => document.querySelector('.site-tournament + .site-field + .site-note')"
        "?.dataset.status === 'finished'",
        timeout=60_000,
    )
    rows = page.locator(".site-live-standings tbody tr")
    assert rows.count() == 4
    # Settled, it joins the review list with its publish button, the page as it is.
    started = page.locator(".site-tournament + .site-field + .site-note a").inner_text()
    listed = page.locator(f".site-tournaments tr.site-row-{started.removeprefix('tournament #')}")
    expect(listed.get_by_role("button", name="publish")).to_have_count(1)
    # A bracket cannot be recomputed without an entrant: the form says so, and why.
    page.locator(".site-exclude-reason").fill("a test")
    tab.expected_errors.append("status of 400")
    page.get_by_role("button", name="exclude").click()
    expect(page.locator(".site-exclusion .site-note")).to_contain_text("cannot be recomputed")
    link = page.locator(".site-tournament + .site-field + .site-note a")
    href = link.get_attribute("href")
    # On the console: its pages ask with the token (this tournament is not published).
    assert href is not None and href.startswith("/console/tournaments/")
    # The tournament's page: the standings, and the bracket drawn by rounds.
    tab.open_site(served.url + href.lstrip("/"))
    assert "seeds 0, 1" in page.locator(".site-head .site-meta").first.inner_text()
    assert page.locator(".site-bracket-round h3").all_inner_texts() == ["semi-finals", "final"]
    assert page.locator(".site-bracket .site-meeting").count() == 3
    assert page.locator(".site-table tbody tr").count() == 4
    first = page.locator(".site-meeting-matches a").first
    first.click()
    page.wait_for_url("**/console/matches/*")
    tab.viewer = ".site-viewer"
    tab.viewer_ready()
    assert canvas_is_drawn(tab)
    assert page.locator(".site-side").inner_text() == "console"


def test_the_consoles_link_carries_its_token_and_a_quick_match_is_published(
    tab: Tab, served: Served
) -> None:
    page = tab.page
    match_id = served.site.queue_match("border-soldier", "random", 11)["id"]
    _settled(served.site, match_id)
    tab.expected_errors.append("404")  # the public page of a match not published yet
    tab.page.goto(f"{served.url}matches/{match_id}")
    assert page.locator("h1").inner_text() == f"no match {match_id}"
    # The link arena demo prints: the token in the fragment, kept, then out of the address.
    tab.open_site(f"{served.url}console#token={SITE_TOKEN}")
    assert saved_token(tab) == SITE_TOKEN and "#" not in page.url
    # The link followed again in this tab (only the fragment changes): taken all the same.
    tab.js("() => sessionStorage.clear()")
    page.goto(f"{served.url}console#token={SITE_TOKEN}")
    page.wait_for_function("() => !window.location.hash")
    assert saved_token(tab) == SITE_TOKEN
    row = page.locator(f".site-quick-matches tr.site-row-{match_id}")
    expect(row).to_have_count(1)
    expect(page.locator(".site-quick-matches tbody tr").first).to_have_class(
        re.compile(rf"site-row-{match_id}\b")
    )
    row.get_by_role("button", name="publish").click()
    expect(row.locator(".site-published")).to_have_text("published")
    assert served.site.match_json(match_id)["published"] is True
    # Now the public page shows it, without a token, and says it is the public side.
    tab.open_site(f"{served.url}matches/{match_id}")
    tab.viewer = ".site-viewer"
    tab.viewer_ready()
    assert canvas_is_drawn(tab)
    assert page.locator(".site-side").inner_text() == "public"


def _finished(served: Served, tournament_id: int) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while (t := served.site.tournament_json(tournament_id))["status"] == "running":
        assert time.monotonic() < deadline, f"tournament {tournament_id} still running"
        time.sleep(0.2)
    return t


def test_a_tournament_pages_pairings_give_each_match_its_seed_sides_and_winner(
    tab: Tab, served: Served
) -> None:
    t = _finished(served, served.tournament)
    tab.open_site(f"{served.url}tournaments/{served.tournament}")
    expected = []
    for stage in t["stages"]:
        for m in stage["meetings"]:
            for x in m["matches"]:
                a, b = (m["a"], m["b"]) if x["side"] == 0 else (m["b"], m["a"])
                won = f"{x['winner']} wins" if x["winner"] else "draw"
                expected.append(
                    (f"/matches/{x['id']}", f"seed {x['seed']} · A {a} · B {b} · {won}")
                )
    # Each meeting is its score, wins-losses over its matches, opening to them.
    summaries = tab.page.locator(".site-meeting-score summary")
    scores = []
    for stage in t["stages"]:
        for m in stage["meetings"]:
            wins = [sum(x["winner"] == name for x in m["matches"]) for name in (m["a"], m["b"])]
            drawn = sum(x["winner"] is None for x in m["matches"])
            scores.append(f"{m['a']} {wins[0]}-{wins[1]}{f'-{drawn}' if drawn else ''} {m['b']}")
    assert summaries.all_inner_texts() == scores
    for i in range(summaries.count()):
        summaries.nth(i).click()
    links = tab.page.locator(".site-meeting-matches a")
    shown = [
        (links.nth(i).get_attribute("href"), links.nth(i).inner_text())
        for i in range(links.count())
    ]
    assert shown == expected and len(expected) == 6  # three meetings, both sides
    heads = tab.page.locator(".site-table thead th").all_inner_texts()
    assert heads[2:4] == ["played", "wins"], heads  # finished: nothing pending
    took = tab.page.locator(".site-head .site-timing").inner_text()
    assert re.fullmatch(r" · took \d+\.\ds, \d+\.\d matches/s", took), took
    downloads = tab.page.locator(".site-downloads a")
    assert [downloads.nth(i).get_attribute("href") for i in range(downloads.count())] == [
        f"/api/tournaments/{served.tournament}/standings.csv",
        f"/api/tournaments/{served.tournament}/matches.csv",
    ]


def test_a_tournament_page_says_who_is_excluded_and_ranks_the_rest(
    tab: Tab, served: Served
) -> None:
    _finished(served, served.tournament)
    store = served.site.store
    arena.coordinator.exclude_entrant(store, served.tournament, "random", "a test's exclusion")
    try:
        tab.open_site(f"{served.url}tournaments/{served.tournament}")
        note = tab.page.locator(".site-excluded").inner_text()
        assert note.startswith("Excluded: random (a test's exclusion; ")
        names = tab.page.locator(".site-table tbody .site-name").all_inner_texts()
        assert sorted(names) == ["border-soldier", "greedy-raider"]
    finally:
        store.include_entrant(served.tournament, "random")


def test_a_gauntlets_page_names_its_entrant_and_ranks_all_by_wins(tab: Tab, served: Served) -> None:
    field = ["greedy-raider", "random", "border-soldier"]
    deadline = time.monotonic() + 120
    while True:  # the server plays two tournaments at once: wait for a slot
        try:
            started = served.site.start_tournament("gauntlet", field, seeds=[0])
            break
        except ApiError as exc:
            assert exc.status == 429 and time.monotonic() < deadline, exc
            time.sleep(0.5)
    t = _finished(served, started["id"])
    served.site.publish_tournament(started["id"])
    tab.open_site(f"{served.url}tournaments/{started['id']}")
    rows = tab.page.locator(".site-table tbody tr")
    ranks = [rows.nth(i).locator("td").first.inner_text() for i in range(rows.count())]
    names = [rows.nth(i).locator("td").nth(1).inner_text() for i in range(rows.count())]
    assert names == [r["name"] for r in t["standings"]] and t["entrant"] == "greedy-raider"
    assert ranks == ["1", "2", "3"]
    heads = tab.page.locator(".site-table thead th").all_inner_texts()
    assert "mu" in heads and "sigma" in heads and "rating" not in heads  # as the field's
    assert (
        "its entrant, greedy-raider, against each of the others"
        in tab.page.locator(".site-meta").last.inner_text()
    )


@pytest.mark.parametrize(
    "page",
    [
        "",
        "console",
        "runs/{run}",
        "matches/{quick}",
        "tournaments/{tournament}",
        "controllers/{random}",
        "console/controllers/{template}",
    ],
)
def test_no_page_logs_an_error(tab: Tab, served: Served, page: str) -> None:
    url = page.format(
        run=served.run.id,
        quick=served.quick,
        tournament=served.tournament,
        random=_sha(served, "random"),
        template=served.run.controller_sha256,
    )
    tab.open_site(served.url + url)
    assert tab.page.locator(".site-nav a").first.inner_text() == "Foray Arena"


def test_the_home_page_lists_runs_and_matches_as_text(tab: Tab, served: Served) -> None:
    tab.open_site(served.url)
    case = served.site.case
    first = tab.page.locator(".site-section").first
    assert first.locator("h2").inner_text() == f"The case: {case.name}"
    assert case.summary and case.summary in first.inner_text()
    assert tab.page.get_by_text(HOSTILE, exact=True).count() >= 1
    assert tab.js("() => window.hacked === undefined && !document.querySelector('img')")
    link = tab.page.locator(f"a[href='/runs/{served.run.id}']").first
    link.click()
    tab.page.wait_for_url(f"**/runs/{served.run.id}*")


def test_a_reader_following_every_link_of_the_public_site_finds_only_what_is_published(
    tab: Tab, served: Served
) -> None:
    """From the home page, without a token, every link to a run, a match or a tournament,
    followed page by page as a reader would: each leads to something published."""
    # Something not published, which a link must not lead to.
    hidden = served.site.queue_match("random", "border-soldier", 23)["id"]
    _settled(served.site, hidden)
    store = served.site.store
    todo: list[str] = ["/"]
    seen: set[str] = set()
    while todo and len(seen) < 60:
        path = todo.pop(0)
        if path in seen:
            continue
        seen.add(path)
        tab.open_site(served.url + path.lstrip("/"))
        assert tab.page.locator(".site-side").inner_text() == "public", path
        hrefs: list[str] = tab.js(
            "() => [...document.querySelectorAll('#page a[href]')]"
            ".map((a) => a.getAttribute('href'))"
        )
        for href in hrefs:
            record = re.fullmatch(r"/(runs|matches|tournaments)/(\d+)(\?.*)?", href)
            if href.startswith("?"):
                continue  # a run page's own opponent links
            if re.fullmatch(r"/field/[^/]+/\d+", href):  # a field's page: public
                todo.append(href)
                continue
            controller = re.fullmatch(r"/controllers/([0-9a-f]{64})", href)
            if controller is not None:  # a controller's page (issue 26): a published one's
                assert served.site.published_controller(controller[1]), (path, href)
                todo.append(href)
                continue
            module = re.fullmatch(r"/api/controllers/([0-9a-f]{64})/module", href)
            if module is not None:  # an open committed opponent's module, public
                record_ = store.controller(module[1])
                assert record_.origin is arena.Origin.BASELINE and not record_.hidden, href
                got = tab.page.request.get(served.url + href.lstrip("/"))
                assert got.status == 200, href
                continue
            download = re.fullmatch(r"/api/tournaments/(\d+)/(standings|matches)\.csv", href)
            if download is not None:  # a published tournament's downloads, public too
                assert store.tournament(int(download[1])).published, (path, href)
                got = tab.page.request.get(served.url + href.lstrip("/"))
                assert got.status == 200 and got.headers["content-type"].startswith("text/csv")
                continue
            assert record is not None, (path, href)  # never the console's pages
            kind, ident = record[1], int(record[2])
            published = (
                store.run(ident).published
                if kind == "runs"
                else store.match(ident).published
                if kind == "matches"
                else store.tournament(ident).published
            )
            assert published, (path, href)
            todo.append(f"/{kind}/{ident}")
    assert f"/matches/{served.quick}" in seen and f"/runs/{served.run.id}" in seen
    assert f"/matches/{hidden}" not in seen
    assert any(p.startswith("/controllers/") for p in seen)


def _named(module: bytes, name: str) -> bytes:
    """``module`` with a custom section ``name`` appended: the same controller, another sha256."""
    payload = bytes([len(name)]) + name.encode()
    assert len(payload) < 128  # one byte of LEB128
    return module + b"\x00" + bytes([len(payload)]) + payload


def test_the_consoles_field_picker_pages_filters_and_keeps_what_is_chosen_across_pages(
    tab: Tab, tmp_path: Path, idle: bytes
) -> None:
    """More than a page of controllers (48 a page): chosen on two pages and through the
    filter, the field sent is those, in the listing's order."""
    root = tmp_path / "data"
    with arena.Store.open(root) as store:
        for i in range(60):
            store.add_controller(
                _named(idle, f"bot-{i}"), name=f"bot-{i:02}", origin=arena.Origin.UPLOAD
            )
    with (
        web.Site.open(root, limits=web.SiteLimits(workers=1, queue=8), case=small_case()) as site,
        bench.BackgroundServer(web.site_app(site, SITE_TOKEN)) as server,
    ):
        total = len(site.controllers(everything=True))
        assert total > 60
        page = tab.page
        tab.open_site(f"{server.url}console")
        page.locator(".site-token").fill(SITE_TOKEN)
        page.get_by_role("button", name="use").click()
        boxes = page.locator(".site-field-boxes input")
        expect(boxes).to_have_count(48)
        pager = page.locator(".site-field-page")
        count = page.locator(".site-field-count")
        expect(pager).to_have_text(" page 1 of 2 ")
        expect(count).to_have_text(f"0 chosen of {total}")

        def pick(name: str) -> None:
            page.locator(".site-field label", has_text=name).locator("input").check()

        pick("bot-03")
        page.locator(".site-field-next").click()
        expect(pager).to_have_text(" page 2 of 2 ")
        expect(boxes).to_have_count(total - 48)
        assert page.locator(".site-field label", has_text="bot-03").count() == 0
        pick("bot-55")
        page.locator(".site-field-previous").click()
        expect(
            page.locator(".site-field label", has_text="bot-03").locator("input")
        ).to_be_checked()
        # The filter narrows to one page (no pager); what is chosen stays chosen.
        page.locator(".site-field-filter").fill("BOT-1")
        expect(boxes).to_have_count(10)
        assert page.locator(".site-field-page").count() == 0
        pick("bot-12")
        expect(count).to_have_text(f"3 chosen; 10 of {total} match the filter")
        page.locator(".site-field-filter").fill("nothing like it")
        expect(page.locator(".site-field-boxes")).to_have_text(
            "no controller's name has that in it"
        )
        page.locator(".site-field-filter").fill("")
        expect(count).to_have_text(f"3 chosen of {total}")
        expect(pager).to_have_text(" page 1 of 2 ")

        page.locator(".site-tournament select").select_option("round-robin")
        page.locator(".site-seeds").fill("0")
        page.get_by_role("button", name="start").click()
        note = ".site-tournament + .site-field + .site-note"
        page.wait_for_function(
            f"() => document.querySelector({note!r})?.dataset.status === 'finished'",
            timeout=60_000,
        )
        href = page.locator(f"{note} a").get_attribute("href")
        assert href is not None
        started = site.tournament_json(int(href.rsplit("/", 1)[1]))
        assert [e["name"] for e in started["field"]] == ["bot-03", "bot-12", "bot-55"]


def test_a_run_and_its_matches_show_the_modules_first_name_where_the_run_named_it_otherwise(
    tab: Tab, tmp_path: Path, build_c: Builder
) -> None:
    """A module first stored as ``zigbot`` (by a published run), proved again as
    ``zigbot-proved``: the run page, the match page and their viewers show both names, on
    the public side too (both published; an unpublished first name is not told there)."""
    root = tmp_path / "data"
    case = small_case()
    module = tmp_path / "zigbot.wasm"
    module.write_bytes(build_c(Path("baselines") / "template.c"))
    with arena.Store.open(root) as store:
        store.publish_run(proof_run(store, module, "zigbot", case).id)
        run = proof_run(store, module, "zigbot-proved", case, again=True)
        store.publish_run(run.id)
        first = store.run_matches(run.id)[0]
    assert run.controller_sha256 is not None
    mine = [e.sha256 for e in first.entrants].index(run.controller_sha256)
    both = "zigbot-proved, stored as zigbot"
    with (
        web.Site.open(root, limits=web.SiteLimits(workers=1), case=case) as site,
        bench.BackgroundServer(web.site_app(site, SITE_TOKEN)) as server,
    ):
        page = tab.page
        tab.open_site(f"{server.url}runs/{run.id}?match={first.id}")
        expect(page.locator(".site-head h1")).to_have_text(
            f"Run #{run.id}: zigbot-proved (stored as zigbot)"
        )
        tab.viewer_ready()
        expect(page.locator(".fv-title")).to_contain_text(f"{'AB'[mine]} ({both})")
        expect(page.locator(".fv-name").nth(mine)).to_have_text(f"{'AB'[mine]} ({both})")
        opponent = first.entrants[1 - mine].name
        expect(page.locator(".fv-name").nth(1 - mine)).to_have_text(
            f"{'AB'[1 - mine]} ({opponent})"
        )

        tab.open_site(f"{server.url}matches/{first.id}")
        names = ["zigbot-proved (stored as zigbot)", opponent]
        if mine:
            names.reverse()
        expect(page.locator(".site-head h1")).to_have_text(
            f"Match #{first.id}: {names[0]} vs {names[1]}"
        )
        tab.viewer_ready()
        expect(page.locator(".fv-title")).to_contain_text(f"{'AB'[mine]} ({both})")


# =========================================================================== a controller's page


def _sha(served: Served, name: str) -> str:
    return served.site.store.controller(name).sha256


def test_a_controllers_page_shows_its_record_rating_and_head_to_head(
    tab: Tab, served: Served
) -> None:
    """From the tournament's standings to an entrant's page: its place, its rating after
    each match drawn (a point a match, each linked), its record against each opponent
    (a replay deep-linked at its last tick), and head to head with one opponent."""
    _finished(served, served.tournament)
    tab.open_site(f"{served.url}tournaments/{served.tournament}")
    tab.page.locator(".site-table a.site-name", has_text="greedy-raider").first.click()
    sha = _sha(served, "greedy-raider")
    tab.page.wait_for_url(f"**/controllers/{sha}")
    tab.page.wait_for_function("() => document.getElementById('page')?.dataset.state === 'ready'")
    page = served.site.controller_page_json(sha, everything=False)
    assert tab.page.locator(".site-head .site-name").inner_text() == "greedy-raider"
    # Other tests publish tournaments of their own: this one's line, beside any other.
    series = next(s for s in page["ratings"] if s["tournament"] == served.tournament)
    points = tab.page.locator(
        f".site-ratings [data-tournament='{served.tournament}'] .site-ratings-point"
    )
    assert points.count() == len(series["points"]) == 4  # two opponents, one seed, two sides
    places = len(page["tournaments"]) + len(page["fields"])  # a baseline is a field's entrant
    assert tab.page.locator(".site-places tbody tr").count() == places
    opponents = tab.page.locator(".site-record details.site-opponent")
    assert opponents.count() == len(page["record"]) >= 2  # other tests' matches too
    # Open one opponent's matches and follow a match's end, deep-linked by tick.
    first = page["record"][0]
    opponents.first.locator("summary").click()
    match = first["matches"][0]
    end = match["ticks"] - 1  # a match of N ticks shows ticks 0 to N-1
    link = opponents.first.locator(f"a[href='/matches/{match['id']}?tick={end}']")
    # Head to head: choosing the opponent shows its score and keeps ?vs= in the address.
    tab.page.locator(".site-h2h-pick").select_option(first["opponent"]["sha256"])
    tab.page.wait_for_url(f"**/controllers/{sha}?vs={first['opponent']['sha256']}")
    score = tab.page.locator(".site-h2h-score").inner_text()
    assert score.startswith(f"greedy-raider {first['wins']} – {first['losses']} ")
    assert tab.page.locator(".site-h2h-result tbody tr").count() == len(first["matches"])
    link.click()
    tab.page.wait_for_url(f"**/matches/{match['id']}?tick={end}")
    tab.viewer_ready()
    assert tab.tick == end
