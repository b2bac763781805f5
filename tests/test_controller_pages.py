"""A controller's page (issue 26): its runs, its record against each opponent, its forfeits'
ticks, fuel per match and its rating after each match, over a real Site (a real store, real
worker processes, the small case): public for a published controller, showing only what
is published; 404 for any other without a console token.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

import arena
import replays
import web
from tests._support import AUTH, SITE_TOKEN, Builder, proof_run, small_case

pytestmark = [pytest.mark.processes]


@dataclass
class World:
    client: TestClient
    site: web.Site
    trapper: str
    """An upload that forfeits every match, in the published tournament."""
    secret: str
    """An upload only in the unpublished tournament."""
    pushed: str
    """A pushed (published) run's controller."""
    pushed_run: int
    shown: int
    hidden: int


def _tournament(client: TestClient, field: list[str], seeds: list[int]) -> int:
    body = {"format": "round-robin", "field": field, "seeds": seeds}
    r = client.post("/api/tournaments", json=body, headers=AUTH)
    assert r.status_code == 202, r.text
    tid: int = r.json()["id"]
    deadline = time.monotonic() + 120
    while client.get(f"/api/tournaments/{tid}", headers=AUTH).json()["status"] == "running":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    return tid


def _upload(client: TestClient, name: str, blob: bytes) -> str:
    r = client.post(f"/api/controllers?name={name}", content=blob, headers=AUTH)
    assert r.status_code == 201, r.text
    sha: str = r.json()["sha256"]
    return sha


@pytest.fixture(scope="module")
def world(
    tmp_path_factory: pytest.TempPathFactory,
    zoo: dict[str, bytes],
    busy: bytes,
    idle: bytes,
    build_c: Builder,
) -> Iterator[World]:
    case = small_case()
    root = tmp_path_factory.mktemp("controllers")
    limits = web.SiteLimits(workers=1, queue=8)
    with web.Site.open(root / "data", limits=limits, case=case) as site:
        client = TestClient(web.site_app(site, SITE_TOKEN))
        trapper = _upload(client, "trapper", zoo["divzero"])
        secret = _upload(client, "secret-bot", busy)
        hidden = _tournament(client, ["random", "secret-bot"], [0])
        shown = _tournament(client, ["random", "greedy-raider", "trapper"], [0, 1])
        assert client.post(f"/api/tournaments/{shown}/publish", headers=AUTH).status_code == 200
        other = root / "other"
        other.mkdir()
        module = other / "pushed-bot.wasm"
        module.write_bytes(idle)
        with arena.Store.open(other) as elsewhere:
            bundle = web.bundle_of(elsewhere, proof_run(elsewhere, module, "pushed-bot", case).id)
        r = client.post(
            "/api/runs",
            content=bundle.encode(),
            headers={**AUTH, "Content-Type": replays.MEDIA_TYPE},
        )
        assert r.status_code == 201, r.text
        pushed_run: int = r.json()["run"]
        pushed = next(
            c["sha256"] for c in site.controllers(everything=True) if c["name"] == "pushed-bot"
        )
        yield World(client, site, trapper, secret, pushed, pushed_run, shown, hidden)


def _page(world: World, sha: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    r = world.client.get(f"/api/controllers/{sha}", headers=headers or {})
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


def test_a_published_controllers_record_has_each_match_from_its_side(world: World) -> None:
    page = _page(world, world.trapper)
    assert page["sha256"] == world.trapper and page["name"] == "trapper"
    assert page["names"] == ["trapper"] and page["runs"] == []
    assert [t["id"] for t in page["tournaments"]] == [world.shown]
    by_name = {r["opponent"]["name"]: r for r in page["record"]}
    assert set(by_name) == {"random", "greedy-raider"}
    standings = world.client.get(f"/api/tournaments/{world.shown}").json()["standings"]
    row = next(r for r in standings if r["name"] == "trapper")
    wins = losses = 0
    for opponent in by_name.values():
        assert len(opponent["matches"]) == 4  # two seeds, both sides
        assert opponent["wins"] + opponent["losses"] + opponent["draws"] == 4
        wins, losses = wins + opponent["wins"], losses + opponent["losses"]
        for m in opponent["matches"]:
            sides = (m["a"], m["b"])
            assert sides[m["side"]]["sha256"] == world.trapper
            assert sides[1 - m["side"]]["sha256"] == opponent["opponent"]["sha256"]
            assert m["tournament_id"] == world.shown and m["run_id"] is None
            # Its division by zero: a forfeit at a tick, a loss, its fuel counted.
            assert m["outcome"] == "loss" and m["reason"] == "forfeit"
            assert m["winner"] == opponent["opponent"]["name"]
            assert m["forfeit"] is not None and m["forfeit"]["kind"] == "trap"
            assert 0 <= m["forfeit"]["tick"] <= m["ticks"]
            assert isinstance(m["fuel_total"], int)
            assert m["replay"] == f"/api/matches/{m['id']}/replay"
            assert m["rating_after"] is not None
    assert (wins, losses) == (row["wins"], row["losses"])
    # Its rating after each match, in schedule order: the last one is the standings'.
    (series,) = page["ratings"]
    assert series["tournament"] == world.shown and len(series["points"]) == 8
    last = series["points"][-1]
    assert (last["mu"], last["sigma"]) == (row["rating"]["mu"], row["rating"]["sigma"])
    assert page["tournaments"][0]["row"]["rating"] == row["rating"]
    mus = [p["mu"] for p in series["points"]]
    assert mus == sorted(mus, reverse=True), "losing every match, its mu only falls"


def _field_played(world: World) -> dict[str, Any]:
    """The field of the site's case once every meeting is played (the push entered it)."""
    case = world.site.case
    deadline = time.monotonic() + 120
    while True:
        field: dict[str, Any] = world.client.get(f"/api/field/{case.slug}/{case.version}").json()
        if field["matches"]["pending"] == 0:
            return field
        assert time.monotonic() < deadline, field["matches"]
        time.sleep(0.05)


def test_a_pushed_runs_controller_shows_its_run_and_its_field(world: World) -> None:
    field = _field_played(world)
    page = _page(world, world.pushed)
    assert [r["run"] for r in page["runs"]] == [world.pushed_run]
    assert page["names"] == ["pushed-bot"] and not page["module"]
    run = world.client.get(f"/api/runs/{world.pushed_run}").json()
    ids = {m["id"] for m in run["matches"]}
    rows = [m for r in page["record"] for m in r["matches"]]
    assert {m["id"] for m in rows if m["run_id"] is not None} == ids
    for m in rows:
        if m["run_id"] is not None:  # a run's matches are rated by nothing
            assert m["run_id"] == world.pushed_run and m["rating_after"] is None
        else:
            assert m["tournament_id"] == field["tournament"] and m["rating_after"] is not None
    # Its place in the field: its row of the field's standings, as the field's API gives it.
    (place,) = page["fields"]
    row = next(r for r in field["standings"] if r["sha256"] == world.pushed)
    assert place["case"] == field["case"] and place["tournament"] == field["tournament"]
    assert {k: place[k] for k in row} == row
    # Its rating after each field match, in schedule order: the last is the standings'.
    (series,) = page["ratings"]
    assert series["tournament"] == field["tournament"] and series["label"].startswith("field")
    per_opponent = 2 * len(world.site.case.match.seeds)
    assert len(series["points"]) == row["played"] == (field["entrants"] - 1) * per_opponent
    last = series["points"][-1]
    assert {"mu": last["mu"], "sigma": last["sigma"]} == {
        k: row["rating"][k] for k in ("mu", "sigma")
    }


def test_head_to_head_in_the_field_lists_every_match_and_who_won(world: World) -> None:
    field = _field_played(world)
    case = world.site.case
    url = f"/api/field/{case.slug}/{case.version}/head-to-head"
    r = world.client.get(url, params={"a": "pushed-bot", "b": "random"})
    assert r.status_code == 200, r.text
    data = r.json()
    assert data["a"]["name"] == "pushed-bot" and data["b"]["name"] == "random"
    assert len(data["matches"]) == 2 * len(case.match.seeds)
    assert {m["side"] for m in data["matches"]} == {0, 1}  # both side assignments
    for m in data["matches"]:
        assert m["tournament_id"] == field["tournament"]
        sides = (m["a"], m["b"])
        assert sides[m["side"]]["name"] == "pushed-bot"
        winner = None if m["winner"] is None else m["winner"]
        assert winner in (None, "pushed-bot", "random")
    assert data["wins_a"] == sum(m["outcome"] == "win" for m in data["matches"])
    assert data["wins_b"] == sum(m["outcome"] == "loss" for m in data["matches"])
    # The same from the other side: the wins swapped.
    other = world.client.get(url, params={"a": "random", "b": "pushed-bot"}).json()
    assert (other["wins_a"], other["wins_b"]) == (data["wins_b"], data["wins_a"])
    assert [m["id"] for m in other["matches"]] == [m["id"] for m in data["matches"]]
    # Bad input: a name not in the field, no name, no field.
    assert world.client.get(url, params={"a": "pushed-bot", "b": "nobody"}).status_code == 404
    assert world.client.get(url, params={"a": "pushed-bot"}).status_code == 400
    r = world.client.get("/api/field/nope/9/head-to-head", params={"a": "x", "b": "y"})
    assert r.status_code == 404
    # The field's page: there for the case's field, a 404 page for another.
    page = world.client.get(f"/field/{case.slug}/{case.version}")
    assert page.status_code == 200 and 'data-page="field"' in page.text
    assert world.client.get("/field/nope/9").status_code == 404


def test_a_baseline_shows_only_its_published_matches(world: World) -> None:
    random = next(c for c in world.site.store.controllers() if c.name == "random").sha256
    public = _page(world, random)
    assert public["module"] is True
    opponents = {r["opponent"]["sha256"] for r in public["record"]}
    assert world.secret not in opponents and world.trapper in opponents
    assert {t["id"] for t in public["tournaments"]} == {world.shown}
    console = _page(world, random, AUTH)
    assert world.secret in {r["opponent"]["sha256"] for r in console["record"]}
    assert {t["id"] for t in console["tournaments"]} == {world.shown, world.hidden}


def test_an_unpublished_controller_is_not_there_without_a_console_token(world: World) -> None:
    client = world.client
    for url in (f"/api/controllers/{world.secret}", f"/controllers/{world.secret}"):
        r = client.get(url)
        assert r.status_code == 404, url
        assert b"secret-bot" not in r.content
    page = _page(world, world.secret, AUTH)
    assert page["names"] == ["secret-bot"]
    assert [t["id"] for t in page["tournaments"]] == [world.hidden]
    # The console's page is its shell for any sha256; the public one a page for a published.
    assert client.get(f"/console/controllers/{world.secret}").status_code == 200
    r = client.get(f"/controllers/{world.trapper}")
    assert r.status_code == 200 and 'data-page="controller"' in r.text
    unknown = "0" * 64
    assert client.get(f"/api/controllers/{unknown}", headers=AUTH).status_code == 404
    assert client.get(f"/controllers/{unknown}").status_code == 404
    assert client.get("/api/controllers/random").status_code == 404  # a name is no sha256


def test_the_controller_page_is_written_from_the_api_alone(world: World) -> None:
    r = world.client.get(f"/controllers/{world.trapper}")
    assert "trapper" not in r.text  # names are written by the page's script, as text
    assert r.headers["content-security-policy"].startswith("default-src 'self'")


def test_a_field_entrant_that_has_not_played_yet_has_its_page(tmp_path: Path) -> None:
    """The hidden opponent enters the field with the baselines: its page is public (under the
    name it has there) before any match is played, its module still private."""
    case = small_case()
    with web.Site.open(tmp_path / "data", limits=web.SiteLimits(workers=1), case=case) as site:
        field = arena.open_field(site.store, case)  # made, and not played: nothing woke it
        hidden = next(e for e in field.field if site.store.controller(e.sha256).hidden)
        client = TestClient(web.site_app(site, SITE_TOKEN))
        r = client.get(f"/api/controllers/{hidden.sha256}")
        assert r.status_code == 200, r.text
        page = r.json()
        assert page["names"] == [hidden.name] and page["module"] is False
        assert page["record"] == [] and page["runs"] == []
        (place,) = page["fields"]
        assert place["name"] == hidden.name and place["played"] == 0
        assert client.get(f"/api/controllers/{hidden.sha256}/module").status_code == 404
