"""The public site shows only what is published (issue 25), over a real Site (a real store,
real worker processes, the small case) holding some of everything: a local run and a
pushed one, an upload, a published and an unpublished tournament, a published and an
unpublished quick match.

The crawl starts from every public listing and follows every record, replay, event
stream, module and page they lead to, without a token: it must reach exactly what is
published, and nothing else answers without a token. Then publishing (its bad input),
quick matches kept up to the bound, and ``arena tournament --publish``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

import arena
import replays
import web
from tests._support import AUTH, SITE_TOKEN, Builder, cli, proof_run, small_case
from web._token import Role, new_token, token_digest

pytestmark = [pytest.mark.processes]


@dataclass
class World:
    """The site and what it holds, published or not."""

    client: TestClient
    site: web.Site
    local_run: arena.RunRecord
    pushed_run: int
    upload_sha256: str
    published_tournament: int
    hidden_tournament: int
    published_quick: int
    hidden_quick: int
    tokens: dict[arena.TokenRole, str] = field(default_factory=dict)


def _wait(client: TestClient, url: str, done: Any, timeout: float = 90.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        data: dict[str, Any] = client.get(url, headers=AUTH).json()
        if done(data):
            return data
        assert time.monotonic() < deadline, f"{url} not done: {data}"
        time.sleep(0.05)


def _quick(client: TestClient, a: str, b: str, seed: int) -> int:
    r = client.post("/api/matches", json={"a": a, "b": b, "seed": seed}, headers=AUTH)
    assert r.status_code == 202, r.text
    match_id: int = r.json()["id"]
    _wait(client, f"/api/matches/{match_id}", lambda m: m["status"] != "pending")
    return match_id


def _tournament(client: TestClient, field: list[str]) -> int:
    body = {"format": "round-robin", "field": field, "seeds": [0]}
    r = client.post("/api/tournaments", json=body, headers=AUTH)
    assert r.status_code == 202, r.text
    tid: int = r.json()["id"]
    _wait(client, f"/api/tournaments/{tid}", lambda t: t["status"] != "running")
    return tid


@pytest.fixture(scope="module")
def world(
    tmp_path_factory: pytest.TempPathFactory, build_c: Builder, idle: bytes, busy: bytes
) -> Iterator[World]:
    case = small_case()
    root = tmp_path_factory.mktemp("published")
    limits = web.SiteLimits(workers=1, queue=8, keep_quick=1_000)
    with web.Site.open(root / "data", limits=limits, case=case) as site:
        client = TestClient(web.site_app(site, SITE_TOKEN))
        tokens = {}
        for role in Role:
            tokens[role] = new_token()
            site.store.add_token(f"{role}-1", role, token_digest(tokens[role]))
        # A run proved on the server's own data directory: local, not published.
        template = root / "local-bot.wasm"
        template.write_bytes(build_c(Path("baselines") / "template.c"))
        local = proof_run(site.store, template, "local-bot", case)
        # A run proved elsewhere and pushed, with a push token: published.
        other = root / "other"
        pushed_module = other / "pushed-bot.wasm"
        other.mkdir()
        pushed_module.write_bytes(idle)
        with arena.Store.open(other) as elsewhere:
            bundle = web.bundle_of(
                elsewhere, proof_run(elsewhere, pushed_module, "pushed-bot", case).id
            )
        r = client.post(
            "/api/runs",
            content=bundle.encode(),
            headers={
                "Authorization": f"Bearer {tokens[Role.PUSH]}",
                "Content-Type": replays.MEDIA_TYPE,
            },
        )
        assert r.status_code == 201, r.text
        pushed: int = r.json()["run"]
        # An upload, in the unpublished tournament only.
        up = client.post("/api/controllers?name=uploaded-bot", content=busy, headers=AUTH)
        assert up.status_code == 201, up.text
        hidden_t = _tournament(client, ["random", "uploaded-bot"])
        shown_t = _tournament(client, ["random", "greedy-raider"])
        assert client.post(f"/api/tournaments/{shown_t}/publish", headers=AUTH).status_code == 200
        shown_q = _quick(client, "border-soldier", "greedy-raider", 7)
        hidden_q = _quick(client, "uploaded-bot", "fuel-probe", 8)
        assert client.post(f"/api/matches/{shown_q}/publish", headers=AUTH).status_code == 200
        yield World(
            client,
            site,
            local,
            pushed,
            up.json()["sha256"],
            shown_t,
            hidden_t,
            shown_q,
            hidden_q,
            tokens,
        )


# =========================================================================== the crawl


@dataclass
class Crawl:
    matches: set[int] = field(default_factory=set)
    runs: set[int] = field(default_factory=set)
    tournaments: set[int] = field(default_factory=set)
    modules: dict[str, int] = field(default_factory=dict)
    controllers: set[str] = field(default_factory=set)
    bodies: list[bytes] = field(default_factory=list)


def _get(client: TestClient, url: str, crawl: Crawl, headers: dict[str, str]) -> Any:
    r = client.get(url, headers=headers)
    assert r.status_code == 200, (url, r.status_code, r.text)
    crawl.bodies.append(r.content)
    return r.json() if r.headers["content-type"].startswith("application/json") else r


def crawl_site(client: TestClient, headers: dict[str, str] | None = None) -> Crawl:
    """Every record the listings lead to, each record's replay, events, page and modules."""
    headers = headers or {}
    crawl = Crawl()
    page = _get(client, "/", crawl, headers)
    assert 'data-side="public"' in page.text
    for m in _get(client, "/api/matches?limit=500", crawl, headers):
        crawl.matches.add(m["id"])
    for m in _get(client, "/api/matches?limit=500&kind=quick", crawl, headers):
        assert m["tournament_id"] is None and m["run_id"] is None
        crawl.matches.add(m["id"])
    for r in _get(client, "/api/runs?limit=500", crawl, headers):
        crawl.runs.add(r["run"])
    for t in _get(client, "/api/tournaments?limit=500", crawl, headers):
        crawl.tournaments.add(t["id"])
    shas = {c["sha256"] for c in _get(client, "/api/controllers", crawl, headers)}
    for run in sorted(crawl.runs):
        detail = _get(client, f"/api/runs/{run}", crawl, headers)
        crawl.matches |= {m["id"] for m in detail["matches"]}
        _get(client, f"/runs/{run}", crawl, headers)
    for tid in sorted(crawl.tournaments):
        detail = _get(client, f"/api/tournaments/{tid}", crawl, headers)
        shas |= {e["sha256"] for e in detail["field"]}
        for stage in detail["stages"]:
            for meeting in stage["meetings"]:
                crawl.matches |= {m["id"] for m in meeting["matches"]}
        _get(client, f"/tournaments/{tid}", crawl, headers)
        with client.stream("GET", f"/api/tournaments/{tid}/events", headers=headers) as r:
            assert r.status_code == 200
            crawl.bodies.append(r.read())
    for match_id in sorted(crawl.matches):
        match = _get(client, f"/api/matches/{match_id}", crawl, headers)
        shas |= {s["sha256"] for s in match["sides"]}
        for owner, ids in (("run_id", crawl.runs), ("tournament_id", crawl.tournaments)):
            assert match[owner] is None or match[owner] in ids, (match_id, owner)
        assert _get(client, match["replay"], crawl, headers).status_code == 200
        with client.stream("GET", f"/api/matches/{match_id}/events", headers=headers) as r:
            assert r.status_code == 200
            crawl.bodies.append(r.read())
        _get(client, f"/matches/{match_id}", crawl, headers)
    for sha in sorted(shas):
        # Each controller's page (issue 26): what it leads to is published, and found above.
        page = _get(client, f"/api/controllers/{sha}", crawl, headers)
        _get(client, f"/controllers/{sha}", crawl, headers)
        crawl.controllers.add(sha)
        for opponent in page["record"]:
            assert opponent["opponent"]["sha256"] in shas, (sha, opponent["opponent"])
            for m in opponent["matches"]:
                assert m["id"] in crawl.matches, (sha, m["id"])
        assert {r["run"] for r in page["runs"]} <= crawl.runs, sha
        assert {t["id"] for t in page["tournaments"]} <= crawl.tournaments, sha
        r = client.get(f"/api/controllers/{sha}/module", headers=headers)
        crawl.modules[sha] = r.status_code
        if r.status_code == 200:
            crawl.bodies.append(r.content)
    return crawl


def _published(store: arena.Store) -> tuple[set[int], set[int], set[int]]:
    return (
        {m.id for m in store.matches(limit=500, published_only=True)},
        {r.id for r in store.runs(limit=500, published_only=True)},
        {t.id for t in store.tournaments(limit=500, published_only=True)},
    )


def test_a_crawl_without_a_token_finds_what_is_published_and_nothing_else(world: World) -> None:
    store = world.site.store
    matches, runs, tournaments = _published(store)
    # The pushed run's controller entered the field, which is public from the start.
    field = store.field_id("foray", 1)
    assert runs == {world.pushed_run} and tournaments == {world.published_tournament, field}
    assert world.published_quick in matches and world.hidden_quick not in matches
    for role in (None, Role.PUSH, Role.WORKER):
        headers = {} if role is None else {"Authorization": f"Bearer {world.tokens[role]}"}
        crawl = crawl_site(world.client, headers)
        assert crawl.matches == matches, role
        assert crawl.runs == runs and crawl.tournaments == tournaments, role
        # Module bytes: the open committed opponents' alone.
        open_baselines = {
            c.sha256 for c in store.controllers() if c.origin is arena.Origin.BASELINE
        }
        served = {sha for sha, status in crawl.modules.items() if status == 200}
        assert served == open_baselines & set(crawl.modules), role
        assert set(crawl.modules) - served, "a pushed controller's module was not even tried"
        assert store.run(world.pushed_run).controller_sha256 in crawl.controllers, role
        everything = b"\n".join(crawl.bodies)
        # Nothing of what is not published: the local run's controller, the upload (its
        # name, its sha256, its bytes), the hidden opponent's bytes.
        assert world.local_run.controller_sha256 is not None
        for secret in (
            b"local-bot",
            world.local_run.controller_sha256.encode(),
            b"uploaded-bot",
            world.upload_sha256.encode(),
        ):
            assert secret not in everything, (role, secret)
        for c in store.controllers(include_hidden=True):
            if c.hidden:
                assert store.read_module_bytes(c.sha256) not in everything


def test_what_is_not_published_is_not_there_without_a_console_token(world: World) -> None:
    client = world.client
    local_matches = [m.id for m in world.site.store.run_matches(world.local_run.id)]
    hidden_t_matches = [m.id for m in world.site.store.tournament_matches(world.hidden_tournament)]
    unpublished = [world.hidden_quick, local_matches[0], hidden_t_matches[0]]
    for headers in ({}, {"Authorization": f"Bearer {world.tokens[Role.PUSH]}"}):
        for match_id in unpublished:
            for url in (
                f"/api/matches/{match_id}",
                f"/api/matches/{match_id}/replay",
                f"/api/matches/{match_id}/events",
                f"/matches/{match_id}",
            ):
                r = client.get(url, headers=headers)
                assert r.status_code == 404, (url, r.status_code)
        for url in (
            f"/api/runs/{world.local_run.id}",
            f"/runs/{world.local_run.id}",
            f"/api/tournaments/{world.hidden_tournament}",
            f"/api/tournaments/{world.hidden_tournament}/events",
            f"/tournaments/{world.hidden_tournament}",
            f"/api/controllers/{world.upload_sha256}/module",
            f"/api/controllers/{world.upload_sha256}",
            f"/controllers/{world.upload_sha256}",
            f"/api/controllers/{world.local_run.controller_sha256}",
            f"/controllers/{world.local_run.controller_sha256}",
        ):
            assert client.get(url, headers=headers).status_code == 404, url
    # The console sees them all, and its pages are shells for any id.
    for match_id in unpublished:
        assert client.get(f"/api/matches/{match_id}/replay", headers=AUTH).status_code == 200
        assert client.get(f"/console/matches/{match_id}").status_code == 200
    for sha in (world.upload_sha256, world.local_run.controller_sha256):
        assert client.get(f"/api/controllers/{sha}", headers=AUTH).status_code == 200
        assert client.get(f"/console/controllers/{sha}").status_code == 200
    assert client.get(f"/api/runs/{world.local_run.id}", headers=AUTH).json()["published"] is False
    listed = client.get("/api/matches?kind=quick", headers=AUTH).json()
    assert [m["id"] for m in listed] == sorted([m["id"] for m in listed], reverse=True)
    assert {world.hidden_quick, world.published_quick} <= {m["id"] for m in listed}


def test_publishing_refuses_what_it_cannot_publish_and_stores_nothing(world: World) -> None:
    client = world.client
    before = _published(world.site.store)
    tournament_match = world.site.store.tournament_matches(world.hidden_tournament)[0].id
    cases = [
        ("/api/tournaments/999999/publish", AUTH, 404, "no tournament 999999"),
        ("/api/matches/999999/publish", AUTH, 404, "no match 999999"),
        (f"/api/matches/{tournament_match}/publish", AUTH, 400, "published with it"),
        (f"/api/tournaments/{world.hidden_tournament}/publish", {}, 401, "needs a console token"),
        (
            f"/api/tournaments/{world.hidden_tournament}/publish",
            {"Authorization": f"Bearer {world.tokens[Role.PUSH]}"},
            403,
            "a push token cannot do this",
        ),
        (
            f"/api/matches/{world.hidden_quick}/publish",
            {"Authorization": f"Bearer {world.tokens[Role.WORKER]}"},
            403,
            "a worker token cannot do this",
        ),
    ]
    for url, headers, status, message in cases:
        r = client.post(url, headers=headers)
        assert r.status_code == status, (url, r.text)
        assert message in r.json()["error"], (url, r.text)
    r = client.get("/api/matches?kind=other", headers=AUTH)
    assert r.status_code == 400 and "query 'kind'" in r.json()["error"]
    assert _published(world.site.store) == before
    # Publishing twice is once.
    again = client.post(f"/api/matches/{world.published_quick}/publish", headers=AUTH)
    assert again.status_code == 200 and again.json()["published"] is True
    assert _published(world.site.store) == before


def test_a_push_token_pushes_and_a_worker_token_does_not(world: World) -> None:
    client = world.client
    r = client.post(
        "/api/runs",
        content=b"\x80",
        headers={"Authorization": f"Bearer {world.tokens[Role.WORKER]}"},
    )
    assert r.status_code == 403 and "a worker token cannot do this" in r.json()["error"]
    up = client.post(
        "/api/controllers?name=x",
        content=b"\0asm",
        headers={"Authorization": f"Bearer {world.tokens[Role.PUSH]}"},
    )
    assert up.status_code == 403
    assert "x" not in {c["name"] for c in client.get("/api/controllers", headers=AUTH).json()}
    console = new_token()
    world.site.store.add_token("console-2", Role.CONSOLE, token_digest(console))
    # A console token made by arena token does what the quick-start one does.
    world.site.store.tokens()  # the keyring reads the store again within a second
    deadline = time.monotonic() + 3
    while True:
        r = client.get("/api/runs", headers={"Authorization": f"Bearer {console}"})
        if r.status_code == 200:
            break
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert world.local_run.id in {x["run"] for x in r.json()}


# =========================================================================== quick matches kept


def _cli_match(capsys: pytest.CaptureFixture[str], seed: int) -> dict[str, Any]:
    out = cli(
        capsys,
        "match",
        "random",
        "greedy-raider",
        "--seed",
        str(seed),
        "--max-ticks",
        "20",
        "--json",
    )
    assert out.code == 0, out.err
    data: dict[str, Any] = out.json()
    return data


def test_quick_matches_are_kept_up_to_the_bound_and_no_replay_in_use_goes(
    capsys: pytest.CaptureFixture[str], data_dir: Path
) -> None:
    # A published tournament whose one match has the same replay as a quick match of seed 0.
    out = cli(
        capsys,
        "tournament",
        "--format",
        "round-robin",
        "--max-ticks",
        "20",
        "--publish",
        "--json",
        "random",
        "greedy-raider",
    )
    assert out.code == 0, out.err
    played = [_cli_match(capsys, seed) for seed in (0, 1, 2, 3, 4)]
    with arena.Store.open(data_dir) as store:
        (tournament,) = store.tournaments()
        assert tournament.published
        shared = {
            m.result.replay_sha256 for m in store.tournament_matches(tournament.id) if m.result
        }
        assert played[0]["replay_sha256"] in shared, "the quick match of seed 0 is a tournament's"
        store.publish_match(played[1]["id"])
        with pytest.raises(arena.ArenaError, match="not a count"):
            store.keep_quick_matches(0)
        dropped = store.keep_quick_matches(2)
        # The newest two unpublished stay; the published one is kept and not counted.
        assert [m.id for m in dropped] == [played[0]["id"], played[2]["id"]]
        kept = {m.id for m in store.matches(quick_only=True)}
        assert kept == {played[1]["id"], played[3]["id"], played[4]["id"]}
        files = {p.stem for p in (data_dir / "replays").glob("*.replay")}
        assert played[0]["replay_sha256"] in files  # the tournament's match still uses it
        assert played[2]["replay_sha256"] not in files
        assert store.keep_quick_matches(2) == []


def test_arena_tournament_publish_refuses_no_record(capsys: pytest.CaptureFixture[str]) -> None:
    out = cli(
        capsys,
        "tournament",
        "--format",
        "round-robin",
        "--no-record",
        "--publish",
        "random",
        "greedy-raider",
    )
    assert out.code == 2 and "nothing to publish" in out.err
