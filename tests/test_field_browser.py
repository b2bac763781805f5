"""The field's page in Chromium (issue 26), against a real ``arena serve``: it updates live,
with no reload, as a fourth run is pushed (its entrant appears, its meetings are played);
its standings link each entrant's controller page; head to head of two entrants.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import arena
from tests._support import SITE_TOKEN, Tab, local_runs, push_run
from web import bench

pytestmark = [pytest.mark.browser, pytest.mark.server, pytest.mark.processes, pytest.mark.slow]

WAIT = 120.0
"""Seconds any wait here may take before it fails (never reached when all is well)."""


@pytest.fixture
def four_runs(tmp_path: Path) -> list[tuple[Path, int, str]]:
    """Four proof runs of different controllers, each in a store of its own (``local_runs``)."""
    return local_runs(tmp_path, (3, 4, 5, 6))


def _wait(tab: Tab, expression: str, arg: object = None) -> None:
    tab.page.wait_for_function(expression, arg=arg, timeout=WAIT * 1000)


def test_the_field_page_updates_live_as_a_fourth_run_is_pushed(
    tmp_path: Path, four_runs: list[tuple[Path, int, str]], tab: Tab
) -> None:
    case = arena.default_case()
    baselines = len(case.opponents)
    with bench.ServerProcess(tmp_path / "data", token=SITE_TOKEN, start_timeout=WAIT) as server:
        url = server.serving()
        for local, run_id, _ in four_runs[:3]:
            push_run(local, run_id, url, WAIT)
        tab.open_site(f"{url}field/{case.slug}/{case.version}")
        main = "document.getElementById('page')"
        assert tab.page.locator(".site-side").inner_text() == "public"
        assert tab.page.locator("main").get_attribute("data-entrants") == str(baselines + 3)
        headers = tab.page.locator(".site-standings thead th").all_inner_texts()
        for label in ("rank", "name", "wins", "losses", "draws", "played", "pending"):
            assert label in headers
        assert headers[-3:] == ["fuel", "mu", "sigma"]  # labelled as `arena field` prints them
        # Each forfeit kind's column says it counts forfeits (one is "fuel", like the total).
        kinds = headers[headers.index("forfeits") + 1 : -3]
        assert all(k.endswith(" forfeits") for k in kinds), headers
        # A mark on this page: gone if it were loaded again.
        tab.js("() => { window.__sameDocument = true; }")
        played = int(tab.page.locator("main").get_attribute("data-played") or "0")
        local, run_id, name = four_runs[3]
        push_run(local, run_id, url, WAIT)
        # The fourth entrant shows up, and its meetings play, on the page as it is.
        _wait(tab, f"(n) => {main}.dataset.entrants === String(n)", baselines + 4)
        n = baselines + 4
        total = n * (n - 1) * len(case.match.seeds)
        _wait(tab, f"(t) => {main}.dataset.played === String(t)", total)
        assert int(tab.page.locator("main").get_attribute("data-played") or "0") > played
        assert tab.js("() => window.__sameDocument === true"), "the page was loaded again"
        rows = tab.page.locator(".site-standings tbody tr")
        assert rows.count() == n
        link = tab.page.locator(".site-standings a.site-name", has_text=name)
        href = link.get_attribute("href") or ""
        assert href.startswith("/controllers/") and len(href) == len("/controllers/") + 64
        # The standings as the API gives them.
        api = tab.page.request.get(f"{url}api/field/{case.slug}/{case.version}").json()
        shown = [r.locator("td").nth(1).locator("a").inner_text() for r in rows.all()]
        assert shown == [r["name"] for r in api["standings"]]
        first = rows.first.locator("td").all_inner_texts()
        top = api["standings"][0]
        assert first[-2:] == [f"{top['rating']['mu']:.2f}", f"{top['rating']['sigma']:.2f}"]

        # Head to head: the newcomer against a baseline, every match and who won.
        tab.page.locator(".site-h2h-a").select_option(name)
        tab.page.locator(".site-h2h-b").select_option("random")
        tab.page.wait_for_url(f"**/field/{case.slug}/{case.version}?a={name}&b=random")
        _wait(tab, "() => document.querySelector('.site-h2h-score') !== null")
        versus = tab.page.request.get(
            f"{url}api/field/{case.slug}/{case.version}/head-to-head?a={name}&b=random"
        ).json()
        assert len(versus["matches"]) == 2 * len(case.match.seeds)
        score = tab.page.locator(".site-h2h-score").inner_text()
        assert score.startswith(f"{name} {versus['wins_a']} – {versus['wins_b']} random")
        winners = tab.page.locator(".site-h2h-result td.site-h2h-winner").all_inner_texts()
        assert winners == [m["winner"] or "draw" for m in versus["matches"]]

        # The newcomer's page: its field row, its record against each other entrant.
        link.click()
        tab.page.wait_for_url(f"**{href}")
        _wait(tab, f"() => {main}.dataset.state === 'ready'")
        places = tab.page.locator(".site-places tbody tr").first.locator("td").all_inner_texts()
        assert places[0] == f"field {case.slug}/{case.version}"
        opponents = tab.page.locator(".site-record details.site-opponent")
        assert opponents.count() == n - 1
        points = tab.page.locator(".site-ratings .site-ratings-point")
        assert points.count() == (n - 1) * 2 * len(case.match.seeds)

        # The console's page of the field: withdraw the newcomer with the reason, then undo.
        tab.open_site(f"{url}console#token={SITE_TOKEN}")
        tab.open_site(f"{url}console/field/{case.slug}/{case.version}")
        assert tab.page.locator(".site-side").inner_text() == "console"
        tab.page.locator(".site-withdraw-name").select_option(name)
        tab.page.locator(".site-withdraw-reason").fill("copied from another entrant")
        tab.page.get_by_role("button", name="withdraw").click()
        _wait(tab, f"(n) => {main}.dataset.entrants === String(n)", n - 1)
        gone = tab.page.locator(".site-withdrawn .site-excluded").inner_text()
        assert name in gone and "copied from another entrant" in gone
        assert tab.page.locator(".site-standings a.site-name", has_text=name).count() == 0
        tab.page.locator(".site-withdraw-name").select_option(name)
        tab.page.get_by_role("button", name="undo").click()
        _wait(tab, f"(n) => {main}.dataset.entrants === String(n)", n)
        tab.page.goto("about:blank")  # its event stream closed before the server stops
        assert server.stop() == 0
    assert "Traceback" not in server.stderr
