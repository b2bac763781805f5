"""``GET /api/matches/{id}`` keeps a settled match's answer while the store is unchanged
(``Matches.match_body``, keyed by ``Store.generation``), and answers afresh after any write:
a publish (through the site, or by another process), an exclusion, a rerun, a match that
settles. Over a real Site (a real store, real worker processes) served by uvicorn on
127.0.0.1; every answer is compared with the match read from the store at that moment.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Match, Mount, Route, WebSocketRoute

import arena
import web
from tests._support import AUTH, SITE_TOKEN, small_case
from web import _api as web_api, bench
from web._core import json_bytes


def _settled(record: dict[str, Any]) -> bool:
    return bool(record["status"] != "pending")


@dataclass
class Served:
    site: web.Site
    root: Path
    http: httpx.Client

    def answer(self, match_id: int, *, console: bool = True) -> httpx.Response:
        return self.http.get(f"/api/matches/{match_id}", headers=AUTH if console else {})

    def fresh(self, match_id: int, *, console: bool = True) -> dict[str, Any]:
        """The match as the store holds it now (read past any kept answer)."""
        return self.site.match_json(match_id, everything=console)

    def wait(self, url: str, done: Any, timeout: float = 90.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            data: dict[str, Any] = self.http.get(url, headers=AUTH).json()
            if done(data):
                return data
            assert time.monotonic() < deadline, f"{url} not done: {data}"
            time.sleep(0.05)

    def quick(self, a: str, b: str, seed: int) -> int:
        r = self.http.post("/api/matches", json={"a": a, "b": b, "seed": seed}, headers=AUTH)
        assert r.status_code == 202, r.text
        match_id: int = r.json()["id"]
        self.wait(f"/api/matches/{match_id}", _settled)
        return match_id


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("answers")
    limits = web.SiteLimits(workers=1, queue=8, body_timeout=5.0, keepalive=1.0)
    with (
        web.Site.open(root, limits=limits, case=small_case()) as site,
        bench.BackgroundServer(web.site_app(site, SITE_TOKEN)) as server,
        httpx.Client(base_url=server.url, timeout=60) as http,
    ):
        yield Served(site, root, http)


def _in_another_process(root: Path, code: str) -> None:
    """Run ``code`` (``store`` is the store over ``root``) in a Python process of its own."""
    script = f"import arena\nwith arena.Store.open() as store:\n    {code}\n"
    env = {**os.environ, "FORAY_DATA_DIR": str(root)}
    subprocess.run([sys.executable, "-c", script], env=env, check=True, timeout=120)


# --------------------------------------------------------------------------- the store's part


def test_the_generation_changes_with_every_write_from_anywhere(tmp_path: Path) -> None:
    with arena.Store.open(tmp_path) as store, arena.Store.open(tmp_path) as other:
        first = store.generation()
        assert store.generation() == first  # reading changes nothing
        store.matches()
        assert store.generation() == first
        store.add_token("one", arena.TokenRole.CONSOLE, "a" * 64)  # this store's own write
        second = store.generation()
        assert second != first
        other.add_token("two", arena.TokenRole.CONSOLE, "b" * 64)  # another connection's
        assert store.generation() != second
        # Another thread reads its own connection's: never equal to this thread's.
        seen: list[tuple[int, int]] = []
        thread = threading.Thread(target=lambda: seen.append(store.generation()))
        thread.start()
        thread.join()
        assert seen[0] != store.generation()


@pytest.mark.processes
def test_the_generation_changes_with_a_write_of_another_process(tmp_path: Path) -> None:
    with arena.Store.open(tmp_path) as store:
        before = store.generation()
        _in_another_process(tmp_path, 'store.add_token("one", arena.TokenRole.CONSOLE, "c" * 64)')
        assert store.generation() != before


def test_the_kept_bytes_are_those_starlette_would_render() -> None:
    data = {"name": "<b>é ☃ \U0001f600</b>", "n": [1, 2.5, None, True], "nested": {"a": ""}}
    assert json_bytes(data) == JSONResponse(data).body


# --------------------------------------------------------------------------- the site's part


@pytest.mark.server
@pytest.mark.processes
def test_a_settled_match_answers_the_same_until_a_publish(served: Served) -> None:
    match_id = served.quick("random", "greedy-raider", 1)
    first = served.answer(match_id)
    assert first.status_code == 200
    assert first.headers["content-type"] == "application/json"
    assert first.headers["cache-control"] == "no-store"
    assert first.content == JSONResponse(served.fresh(match_id)).body
    assert served.answer(match_id).content == first.content  # the kept answer
    assert first.json()["published"] is False
    assert served.answer(match_id, console=False).status_code == 404
    # Published through the site: its console answer says so, the public side shows it.
    r = served.http.post(f"/api/matches/{match_id}/publish", headers=AUTH)
    assert r.status_code == 200, r.text
    after = served.answer(match_id)
    assert after.json() == {**first.json(), "published": True} == served.fresh(match_id)
    public = served.answer(match_id, console=False)
    assert public.status_code == 200
    assert public.json() == served.fresh(match_id, console=False)


@pytest.mark.server
@pytest.mark.processes
def test_a_write_of_another_process_changes_the_answer(served: Served) -> None:
    r = served.http.post(
        "/api/tournaments",
        json={
            "format": "round-robin",
            "field": ["random", "border-soldier", "greedy-raider"],
            "seeds": [0],
        },
        headers=AUTH,
    )
    assert r.status_code == 202, r.text
    tournament_id: int = r.json()["id"]
    served.wait(f"/api/tournaments/{tournament_id}", lambda t: t["status"] != "running")
    ids = [m.id for m in served.site.store.matches(limit=20) if m.tournament_id == tournament_id]
    assert len(ids) == 6  # three meetings, each side once
    for match_id in ids:
        assert served.answer(match_id).json()["published"] is False
        assert served.answer(match_id).json() == served.fresh(match_id)  # kept
        assert served.answer(match_id, console=False).status_code == 404
    # Published by another process (`arena tournament --publish` does this much).
    _in_another_process(served.root, f"store.publish_tournament({tournament_id})")
    for match_id in ids:
        answer = served.answer(match_id).json()
        assert answer["published"] is True and answer == served.fresh(match_id)
        public = served.answer(match_id, console=False)
        assert public.status_code == 200
        assert public.json() == served.fresh(match_id, console=False)
    # An exclusion (a write of the tournament's, not of its matches) and a rerun (a new
    # tournament played by another process): every answer is still the store's, and the
    # rerun's matches answer theirs.
    r = served.http.post(
        f"/api/tournaments/{tournament_id}/exclusions",
        json={"name": "random", "reason": "a test"},
        headers=AUTH,
    )
    assert r.status_code == 200, r.text
    for match_id in ids:
        assert served.answer(match_id).json() == served.fresh(match_id)
    env = {**os.environ, "FORAY_DATA_DIR": str(served.root)}
    ran = subprocess.run(
        [sys.executable, "-m", "arena", "tournament", "rerun", str(tournament_id), "--jobs", "1"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    rerun = [
        m for m in served.site.store.matches(limit=20) if (m.tournament_id or 0) > tournament_id
    ]
    assert len(rerun) == 6
    for match_id in [*ids, *(m.id for m in rerun)]:
        answer = served.answer(match_id).json()
        assert answer == served.fresh(match_id)
    assert {served.answer(m.id).json()["tournament_id"] for m in rerun} == {rerun[0].tournament_id}


@pytest.mark.server
@pytest.mark.processes
def test_a_pending_match_is_read_afresh_until_it_settles(served: Served) -> None:
    """Asked while it waits (behind another match on the one worker), then until it settles:
    each answer the match as it stands. On a loaded machine both may be played before the
    first question; then it is asked again of a new pair (the pending answer is the point)."""
    for seed in range(5, 10):
        for a, b in (("random", "random"), ("border-soldier", "random")):  # the other first
            r = served.http.post("/api/matches", json={"a": a, "b": b, "seed": seed}, headers=AUTH)
            assert r.status_code == 202, r.text
        match_id: int = r.json()["id"]
        answers = []
        while True:
            answer = served.answer(match_id).json()
            answers.append(answer)
            if _settled(answer):
                break
            assert answer["stage"] in ("queued", "running", None)
            time.sleep(0.01)
        assert answer["status"] == "finished" and answer["winner"] in (0, 1, None)
        assert answer == served.fresh(match_id)
        assert served.answer(match_id).json() == answer
        if answers[0]["status"] == "pending":  # asked before it was played
            return
    pytest.fail("every match was played before it was first asked for")


# --------------------------------------------------------------------------- the route order


def _sample_path(route: BaseRoute) -> str:
    """A path of ``route``'s pattern, each parameter a value of its kind."""
    assert isinstance(route, Route | WebSocketRoute | Mount)
    values = {"rowid": "7", "sha256": "a" * 64, "path": "some/thing", "str": "some"}
    path = re.sub(r"\{\w+(?::(\w+))?\}", lambda m: values[m[1] or "str"], route.path)
    return f"{path}/some.js" if isinstance(route, Mount) else path


def test_the_app_tries_the_api_first_and_no_path_is_two_routes() -> None:
    """The app's order (``_api_first``) differs from the documented one (``routes``) only in
    how soon a route is tried: no path any route takes is taken by another."""

    def key(route: BaseRoute) -> tuple[str, str, list[str]]:
        return (
            type(route).__name__,
            getattr(route, "path", ""),
            sorted(getattr(route, "methods", None) or ()),
        )

    documented = web_api.routes()
    app = web.site_app(web.Site.__new__(web.Site), SITE_TOKEN)  # a Site unopened: routes alone
    tried = app.router.routes
    assert sorted(map(key, tried)) == sorted(map(key, documented))
    paths = [key(r)[1] for r in tried]
    first_page = next(i for i, p in enumerate(paths) if not p.startswith(("/api/", "/openapi")))
    assert not [p for p in paths[first_page:] if p.startswith("/api/")], "an API route after a page"
    for route in tried:
        path = _sample_path(route)
        kind = "websocket" if isinstance(route, WebSocketRoute) else "http"
        scope = {"type": kind, "path": path, "root_path": "", "method": "GET", "headers": []}
        taking = [r for r in tried if r.matches(scope)[0] is not Match.NONE]
        assert taking == [route], f"{path}: {taking}"
