"""The site against a hostile client (issue 14): tokens, traversal, bodies, the hidden module,
where modules compile, and names that are markup.

Against a real server on 127.0.0.1 (uvicorn in a thread over a real ``Site``:
a real store, real worker processes) with raw HTTP where a client library
would tidy the request up (``..`` in a path). The lists of routes are derived
from the app and its OpenAPI document, so a new route is covered as soon as
it exists. tests/test_site.py has the single cases (a wrong token on each
write, a 413 and a 408 on one route); this file sweeps every route.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
from starlette.routing import Route, WebSocketRoute
from starlette.testclient import TestClient

import arena
import web
from tests._support import (
    AUTH,
    SITE_TOKEN,
    Builder,
    Tab,
    compile_bomb,
    proof_run,
    small_case,
)
from web import bench

pytestmark = [pytest.mark.server, pytest.mark.processes]

FUEL_PROBE = "fuel-probe"
DOC = web.openapi_document()
LIMITS = {"/api/controllers": 8 * 1024 * 1024, "/api/runs": 64 * 1024 * 1024}
"""The documented body limits (docs/web.md); every other body is JSON, 64 KiB."""
JSON_LIMIT = 64 * 1024


def _doc_path(path: str) -> str:
    path = path.replace("{id:rowid}", "{id}").replace("{sha256:sha256}", "{sha256}")
    return path.replace("{version:rowid}", "{version}")


def _app_writes() -> set[tuple[str, str]]:
    """Every (path, method) of the app that is not a read, from its routes."""
    app = web.site_app(web.Site.__new__(web.Site), SITE_TOKEN)
    return {
        (_doc_path(route.path), method)
        for route in app.routes
        if isinstance(route, Route)
        for method in route.methods or ()
        if method not in ("GET", "HEAD")
    }


WRITES = sorted(_app_writes())
BODY_ROUTES = sorted(
    (path, method.upper())
    for path, ops in DOC["paths"].items()
    for method, op in ops.items()
    if "requestBody" in op
)


@dataclass
class Served:
    url: str
    port: int
    site: web.Site
    data: Path
    hidden: arena.ControllerRecord
    hidden_module: bytes


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    data = tmp_path_factory.mktemp("data")
    limits = web.SiteLimits(workers=1, queue=8, body_timeout=1.0, keepalive=0.5)
    with (
        web.Site.open(data, limits=limits, case=small_case()) as site,
        bench.BackgroundServer(
            web.site_app(site, SITE_TOKEN, allowed_hosts=["localhost", "127.0.0.1", "::1"])
        ) as server,
    ):
        hidden = site.store.controller(FUEL_PROBE)
        # Records that name the hidden opponent: a quick match and a tournament.
        match = site.queue_match("greedy-raider", FUEL_PROBE, 3)["id"]
        tournament = site.start_tournament("round-robin", ["random", FUEL_PROBE], seeds=[0])["id"]
        deadline = time.monotonic() + 60
        while (
            site.match_json(match)["status"] == "pending"
            or site.tournament_json(tournament)["status"] == "running"
        ):
            assert time.monotonic() < deadline, "the first matches did not finish"
            time.sleep(0.05)
        # Published, so that the public routes the sweeps crawl hold them.
        site.publish_match(match)
        site.publish_tournament(tournament)
        yield Served(
            server.url,
            int(server.url.rsplit(":", 1)[1].strip("/")),
            site,
            data,
            hidden,
            site.store.read_module_bytes(hidden.sha256),
        )


def raw(served: Served, method: str, target: str, **kw: Any) -> tuple[int, bytes]:
    """A request with ``target`` sent exactly as written (no client tidies it up)."""
    conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=30)
    try:
        conn.request(method, target, **kw)
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()


# =========================================================================== the token


def test_every_write_is_documented_as_needing_the_token() -> None:
    """The app's writes are the document's token-only operations: none escapes the sweep."""
    assert WRITES, "no writes found: the sweep below would test nothing"
    documented = {
        (path, method.upper())
        for path, ops in DOC["paths"].items()
        for method, op in ops.items()
        if op.get("security") == [{"bearer": []}] and method != "get"
    }
    assert set(WRITES) == documented


@pytest.mark.parametrize(("path", "method"), WRITES)
@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer not-the-token"},
        {"Authorization": f"Bearer {SITE_TOKEN[:-1]}"},
        {"Authorization": f"Token {SITE_TOKEN}"},
        {"Authorization": SITE_TOKEN},
        {"X-Token": SITE_TOKEN, "Cookie": f"token={SITE_TOKEN}"},
    ],
    ids=["none", "wrong", "a-prefix", "other-scheme", "no-scheme", "elsewhere"],
)
def test_a_write_without_the_token_is_refused_and_changes_nothing(
    served: Served, path: str, method: str, headers: dict[str, str]
) -> None:
    before = {p: httpx.get(served.url + p.lstrip("/"), headers=AUTH).json() for p in _LISTINGS}
    status, body = raw(
        served,
        method,
        f"{_url(path)}?name=x&token={SITE_TOKEN}",
        body=b'{"a": "random", "b": "random"}',
        headers=headers,
    )
    assert status == 401, body
    assert b"token" in body
    after = {p: httpx.get(served.url + p.lstrip("/"), headers=AUTH).json() for p in _LISTINGS}
    assert after == before


_LISTINGS = ["/api/controllers", "/api/matches", "/api/runs", "/api/tournaments"]


def _every_get(served: Served) -> list[str]:
    """A GET of every route of the app, from its routes: records that exist, a public module,
    a static file."""
    app = web.site_app(web.Site.__new__(web.Site), SITE_TOKEN)
    public = next(c for c in httpx.get(served.url + "api/controllers").json())
    targets = []
    writes_only = 0
    for route in app.routes:
        if isinstance(route, WebSocketRoute):
            writes_only += 1  # a worker's connection: its handshake is its path's GET route
        elif isinstance(route, Route) and "GET" in (route.methods or ()):
            targets.append(
                route.path.replace("{id:rowid}", "1")
                .replace("{sha256:sha256}", public["sha256"])
                .replace("{name:path}", "nobody")
                .replace("{slug}", "foray")
                .replace("{version:rowid}", "1")
                .replace("/head-to-head", "/head-to-head?a=random&b=greedy-raider")
            )
        elif getattr(route, "path", "") == "/static":
            targets.append("/static/viewer.js")
        else:
            writes_only += 1  # a route of writes alone (publish): the write sweeps cover it
    assert len(targets) + writes_only == len(app.routes) and writes_only <= 6
    return targets


def test_a_wrong_token_is_refused_on_every_route(served: Served) -> None:
    """docs/web.md: a request with a wrong token is 401 everywhere, a public read included."""
    for target in _every_get(served):
        public, _ = raw(served, "GET", target)
        # 404: no run 1 in this store; 401: a console's or a worker's read (the workers)
        assert public in (200, 401, 404), target
        for header in ("Bearer not-the-token", f"Basic {SITE_TOKEN}", "Bearer"):
            status, body = raw(served, "GET", target, headers={"Authorization": header})
            assert status == 401, (target, header, status)
            assert b"token" in body
        status, _ = raw(served, "GET", target, headers=AUTH)
        if public == 401:  # the console's reads answer it; a worker's refuses it (403)
            assert status in (200, 403, 404), target
        else:
            assert status == public, target


def test_every_answer_carries_nosniff_and_a_referrer_policy(served: Served) -> None:
    odd = ["/nowhere", "/api/matches/999999", "/static/nothing.js", "/api/status?x=%ff"]
    for target in [*_every_get(served), *odd]:
        for headers in ({}, {"Authorization": "Bearer wrong"}):
            conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=30)
            try:
                conn.request("GET", target, headers=headers)
                r = conn.getresponse()
                r.read()
            finally:
                conn.close()
            assert r.getheader("X-Content-Type-Options") == "nosniff", (target, r.status)
            assert r.getheader("Referrer-Policy") == "no-referrer", (target, r.status)
    status, _ = raw(served, "DELETE", "/api/matches")
    assert status == 405


@pytest.mark.parametrize(
    "host", ["evil.example", "evil.example:80", "127.0.0.2", "localhost.evil.example", ""]
)
def test_a_host_name_the_server_does_not_answer_to_is_400(served: Served, host: str) -> None:
    """DNS rebinding: a page of another site whose name resolves here reads nothing."""
    for target in ("/", "/api/status", "/api/controllers", "/static/viewer.js"):
        status, body = raw(served, "GET", target, headers={"Host": host})
        assert status == 400, (host, target)
        assert b"host" in body
    for good in ("localhost", f"localhost:{served.port}", f"127.0.0.1:{served.port}", "[::1]:1"):
        status, _ = raw(served, "GET", "/api/status", headers={"Host": good})
        assert status == 200, good


# =========================================================================== traversal


TRAVERSALS = [
    "/static/../pyproject.toml",
    "/static/../../pyproject.toml",
    "/static/%2e%2e/pyproject.toml",
    "/static/%2e%2e/_api.py",
    "/static/..%2f_api.py",
    "/static/%2e%2e%2f%2e%2e%2fpyproject.toml",
    "/static/..%5c_api.py",
    "/static/..\\_api.py",
    "/static/%5c..%5c_api.py",
    "/static//etc/passwd",
    "/static/%2fetc%2fpasswd",
    "/static/%2F%2Fetc/passwd",
    "/static/viewer.js%00",
    "/static/viewer.js%00.png",
    "/static/vendor/../../_api.py",
    "/api/matches/1/../../../pyproject.toml",
    "/api/matches/..%2f..%2fpyproject.toml/replay",
    "/api/matches/1%2f..%2f..%2fserver-token/replay",
    "/api/matches/%00/replay",
    "/api/controllers/..%2f..%2fserver-token/module",
    "/api/controllers/%2e%2e/module",
    "/api/controllers//etc/passwd/module",
    "/api/controllers/%2Fetc%2Fpasswd/module",
    "/api/controllers/..\\..\\server-token/module",
    "/matches/1/../../server-token",
    "/../server-token",
    "/%2e%2e/server-token",
]


@pytest.mark.parametrize("target", TRAVERSALS)
def test_no_path_reaches_a_file_outside(served: Served, target: str) -> None:
    status, body = raw(served, "GET", target)
    assert status in (400, 404), (target, status)
    for secret in (b"[build-system]", b"def site_app", b"root:x:0:0", SITE_TOKEN.encode()):
        assert secret not in body, target


def test_the_static_files_and_the_modules_are_served_where_they_are(served: Served) -> None:
    """The sweep above is not passing on a server that serves nothing."""
    assert raw(served, "GET", "/static/viewer.js")[0] == 200
    public = served.site.store.controller("greedy-raider")
    status, body = raw(served, "GET", f"/api/controllers/{public.sha256}/module")
    assert status == 200 and hashlib.sha256(body).hexdigest() == public.sha256
    assert raw(served, "GET", "/api/matches/1/replay")[0] == 200


# =========================================================================== bodies


def _limit(path: str) -> int:
    return LIMITS.get(path, JSON_LIMIT)


def _url(path: str) -> str:
    """A documented path as a request's: a record's id is 1, a field's case foray/1."""
    return path.replace("{id}", "1").replace("{slug}", "foray").replace("{version}", "1")


@pytest.mark.parametrize(("path", "method"), BODY_ROUTES)
def test_a_body_declared_over_its_limit_is_413_at_once(
    served: Served, path: str, method: str
) -> None:
    over = _limit(path) + 1
    with socket.create_connection(("127.0.0.1", served.port), timeout=10) as sock:
        sock.sendall(
            f"{method} {_url(path)}?name=big HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Bearer {SITE_TOKEN}"
            f"\r\nContent-Length: {over}\r\nConnection: close\r\n\r\n".encode()
        )  # and no body at all: refused from the header
        answer = _read_all(sock)
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
    assert f"{_limit(path):,}-byte limit".encode() in answer


@pytest.mark.parametrize(("path", "method"), BODY_ROUTES)
def test_a_body_streamed_over_its_limit_is_413(served: Served, path: str, method: str) -> None:
    chunk = b"\0" * (1024 * 1024)
    sent = 0

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
        nonlocal sent
        while sent <= _limit(path) + len(chunk):
            sent += len(chunk)
            yield chunk

    r = httpx.request(
        method,
        served.url + _url(path).lstrip("/") + "?name=big",
        content=chunks(),
        headers=AUTH,
        timeout=60,
    )
    assert r.status_code == 413, r.text
    assert "limit" in r.json()["error"]


@pytest.mark.parametrize(("path", "method"), BODY_ROUTES)
def test_a_slow_body_is_408(served: Served, path: str, method: str) -> None:
    with socket.create_connection(("127.0.0.1", served.port), timeout=10) as sock:
        sock.sendall(
            f"{method} {_url(path)}?name=slow HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Bearer {SITE_TOKEN}"
            "\r\nContent-Length: 1000\r\n\r\n{".encode()
        )  # then nothing more: the server's body timeout (1 s here) ends it
        answer = _read_all(sock, until=b"too long")
    assert answer.startswith(b"HTTP/1.1 408 "), answer[:200]


def _read_all(sock: socket.socket, until: bytes | None = None) -> bytes:
    answer = b""
    while (until is None or until not in answer) and (chunk := sock.recv(65536)):
        answer += chunk
    return answer


# =========================================================================== the hidden module


def _public_gets(served: Served) -> Iterator[str]:
    """Every public GET: pages, listings, each record's routes, the static index."""
    ids = [m["id"] for m in httpx.get(served.url + "api/matches?limit=500").json()]
    tids = [t["id"] for t in httpx.get(served.url + "api/tournaments").json()]
    yield from ["/", "/console", "/openapi.json", "/api/status", *_LISTINGS]
    for i in ids:
        yield from [f"/api/matches/{i}", f"/api/matches/{i}/replay", f"/api/matches/{i}/events"]
        yield f"/matches/{i}"
    for i in tids:
        yield from [f"/api/tournaments/{i}", f"/api/tournaments/{i}/events", f"/tournaments/{i}"]
        yield from [f"/api/tournaments/{i}/standings.csv", f"/api/tournaments/{i}/matches.csv"]


def test_the_hidden_module_is_served_by_no_public_route(served: Served) -> None:
    sha = served.hidden.sha256
    # Its bytes past the common preamble: a stretch no other answer could hold by chance.
    middle = served.hidden_module[len(served.hidden_module) // 2 :][:64]
    assert len(middle) == 64
    seen = 0
    for target in _public_gets(served):
        status, body = raw(served, "GET", target)
        assert status == 200, target
        assert middle not in body, target
        seen += 1
    assert seen > 10
    for target in (
        f"/api/controllers/{sha}/module",
        f"/api/controllers/{sha.upper()}/module",
        f"/api/controllers/{FUEL_PROBE}/module",
        f"/static/{sha}.wasm",
        f"/static/../modules/{sha}.wasm",
    ):
        for method in ("GET", "HEAD"):
            status, body = raw(served, method, target)
            assert status in (404, 405), (target, status)
            assert middle not in body
    # Its page is public (it plays in published matches and in the field: issue 26), its
    # module no more than before.
    status, body = raw(served, "GET", f"/api/controllers/{sha}")
    assert status == 200 and middle not in body
    assert json.loads(body)["module"] is False
    status, _ = raw(
        served, "GET", f"/api/controllers/{sha}/module", headers={"Authorization": "Bearer x"}
    )
    assert status == 401
    # Not listed without the token, by name or sha256.
    listed = httpx.get(served.url + "api/controllers").text
    assert sha not in listed and FUEL_PROBE not in listed
    # The token serves it: the route was there all along.
    status, body = raw(served, "GET", f"/api/controllers/{sha}/module", headers=AUTH)
    assert status == 200 and body == served.hidden_module


# =========================================================================== compiling


def _fresh(idle: bytes) -> bytes:
    """An admissible module no cache has seen: ``idle`` with a custom section of random bytes."""
    salt = os.urandom(16)
    return idle + b"\0" + bytes([len(salt) + 2]) + b"\x01s" + salt


def _compilers() -> dict[int, list[str]]:
    """The compile workers running now that any process of this test session started (they
    inherit its module cache directory, ``$FORAY_CACHE_DIR``, conftest.py; other
    sessions on the machine compile too): pid -> argv. The session's other pytest
    processes (pytest-xdist's) share that directory, so some may not be this one's."""
    ours = f"FORAY_CACHE_DIR={os.environ['FORAY_CACHE_DIR']}".encode()
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
            argv = cmdline.rstrip("\0").split("\0")
            if not any(a.endswith("_compile_worker.py") for a in argv):
                continue
            if ours not in (entry / "environ").read_bytes().split(b"\0"):
                continue
        except OSError:
            continue
        found[int(entry.name)] = argv
    return found


def _ancestors(pid: int) -> list[tuple[int, str]]:
    """The processes above ``pid``, its parent first, each with its command line."""
    out = []
    while pid > 1:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            pid = int(stat.rsplit(")", 1)[1].split()[1])
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, UnicodeDecodeError):
            break
        out.append((pid, cmdline))
    return out


def test_uploads_compile_in_a_child_of_a_worker_under_the_cases_bounds(
    served: Served, idle: bytes
) -> None:
    seen: dict[int, tuple[list[str], list[tuple[int, str]]]] = {}
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            for pid, argv in _compilers().items():
                if pid not in seen:
                    seen[pid] = (argv, _ancestors(pid))
            time.sleep(0.002)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        answers = []
        for i in range(3):
            r = httpx.post(
                served.url + f"api/controllers?name=fresh-{i}",
                content=_fresh(idle),
                headers=AUTH,
                timeout=60,
            )
            answers.append(r.status_code)
    finally:
        done.set()
        watcher.join(timeout=10)
    assert answers == [201, 201, 201]
    server = os.getpid()
    # This server's compile children: those of other processes of the session are not.
    ours = {
        pid: (argv, ancestors)
        for pid, (argv, ancestors) in seen.items()
        if server in (p for p, _ in ancestors)
    }
    assert ours, "no compile worker was seen: the modules compiled somewhere else"
    memory = str(served.site.case.limits.compile_memory_bytes)
    for argv, ancestors in ours.values():
        (parent, parent_cmd), (grandparent, grandparent_cmd) = ancestors[:2]
        assert parent != server  # never the server's own child: a worker's
        # The worker is the server's: spawned by it, or forked by its worker server (a
        # child of the server; a forked worker keeps the server's command line).
        if "--multiprocessing-fork" in parent_cmd:
            assert grandparent == server
        else:
            assert "multiprocessing.forkserver" in parent_cmd
            assert "multiprocessing.forkserver" in grandparent_cmd
            assert ancestors[2][0] == server
        assert argv[-1] == memory  # the case's address-space bound


def test_a_compile_bomb_is_refused_and_the_server_stays_responsive(served: Served) -> None:
    results: list[httpx.Response] = []

    def upload() -> None:
        results.append(
            httpx.post(
                served.url + "api/controllers?name=bomb",
                content=compile_bomb(),
                headers=AUTH,
                timeout=60,
            )
        )

    uploads = [threading.Thread(target=upload) for _ in range(3)]
    for t in uploads:
        t.start()
    while any(t.is_alive() for t in uploads):
        assert httpx.get(served.url + "api/status", timeout=10).status_code == 200
    for t in uploads:
        t.join(timeout=60)
    assert [r.status_code for r in results] == [400] * 3
    assert all("(rules §8.4)" in r.json()["error"] for r in results)


def test_an_upload_over_the_compile_time_bound_is_refused(tmp_path: Path, idle: bytes) -> None:
    case = small_case()
    case = msgspec.structs.replace(
        case, limits=msgspec.structs.replace(case.limits, compile_timeout=0.01)
    )
    with web.Site.open(tmp_path, limits=web.SiteLimits(workers=1), case=case) as site:
        r = TestClient(web.site_app(site, SITE_TOKEN)).post(
            "/api/controllers?name=slow", content=_fresh(idle), headers=AUTH
        )
    assert r.status_code == 400
    assert "compile exceeded the 0.01 s backstop" in r.json()["error"]


# =========================================================================== names as markup

XSS_IMG = "<img src=x onerror=window.__xss=1>"
XSS_SCRIPT = '"><script>window.__xss=2</script><b x="'


@dataclass
class Marked:
    """A site whose controllers are named like markup, with a record of each kind."""

    url: str
    run: int
    match: int
    tournament: int


@pytest.fixture(scope="module")
def marked(
    tmp_path_factory: pytest.TempPathFactory, build_c: Builder, idle: bytes
) -> Iterator[Marked]:
    root = tmp_path_factory.mktemp("marked")
    case = small_case()
    module = root.parent / "template.wasm"
    module.write_bytes(build_c(Path("baselines") / "template.c"))
    with arena.Store.open(root) as store:
        run = proof_run(store, module, XSS_IMG, case)
        store.publish_run(run.id)  # the public pages show it
    with (
        web.Site.open(root, limits=web.SiteLimits(workers=1), case=case) as site,
        bench.BackgroundServer(web.site_app(site, SITE_TOKEN)) as server,
    ):
        client = TestClient(web.site_app(site, SITE_TOKEN))
        r = client.post("/api/controllers", params={"name": XSS_SCRIPT}, content=idle, headers=AUTH)
        assert r.status_code in (200, 201), r.text
        match = site.queue_match(XSS_IMG, XSS_SCRIPT, 1)["id"]
        field = [XSS_IMG, XSS_SCRIPT, "random"]
        tournament = site.start_tournament("round-robin", field, seeds=[0])["id"]
        deadline = time.monotonic() + 60
        while (
            site.match_json(match)["status"] == "pending"
            or site.tournament_json(tournament)["status"] == "running"
        ):
            assert time.monotonic() < deadline, "the matches did not finish"
            time.sleep(0.05)
        site.publish_match(match)
        site.publish_tournament(tournament)
        yield Marked(server.url, run.id, match, tournament)


def _shown_as_text(tab: Tab, url: str, names: list[str]) -> None:
    """Nothing injected ran or was built, and each name is on the page as its characters."""
    seen = tab.js(
        """() => ({
            xss: window.__xss === undefined ? null : window.__xss,
            images: document.querySelectorAll("img").length,
            bold: document.querySelectorAll("b[x]").length,
            scripts: [...document.scripts].map((s) => s.src || "inline"),
            text: document.body.innerText + "\\n" +
                [...document.querySelectorAll("option")].map((o) => o.textContent).join("\\n"),
        })"""
    )
    assert seen["xss"] is None
    assert seen["images"] == 0 and seen["bold"] == 0
    assert all(src.startswith(url + "static/") for src in seen["scripts"]), seen["scripts"]
    for name in names:
        assert name in seen["text"], (name, url)


@pytest.mark.parametrize(
    ("page", "names", "viewer"),
    [
        ("", [XSS_IMG, XSS_SCRIPT], False),
        ("matches/{match}", [XSS_IMG, XSS_SCRIPT], True),
        ("runs/{run}", [XSS_IMG], True),
        ("tournaments/{tournament}", [XSS_IMG, XSS_SCRIPT], False),
    ],
)
def test_names_are_text_on_every_page(
    tab: Tab, marked: Marked, page: str, names: list[str], viewer: bool
) -> None:
    url = marked.url + page.format(match=marked.match, run=marked.run, tournament=marked.tournament)
    tab.open_site(url)
    _shown_as_text(tab, marked.url, names)
    if viewer:
        tab.viewer_ready()  # the viewer writes the sides' names and the outcome too
        _shown_as_text(tab, marked.url, names)


def test_names_are_text_in_the_console(tab: Tab, marked: Marked) -> None:
    page = tab.page
    tab.open_site(marked.url + "console")
    page.locator(".site-token").fill(SITE_TOKEN)
    page.get_by_role("button", name="use").click()
    page.wait_for_function(
        "() => document.querySelector('.site-pick-a').textContent.includes('hidden')"
    )
    # The controllers' table, both pickers and the tournament's field.
    _shown_as_text(tab, marked.url, [XSS_IMG, XSS_SCRIPT])
    assert page.locator(".site-controllers").get_by_text(XSS_SCRIPT, exact=True).count() == 1
    # (the run's controller; its run is published, so not one of the server's local runs)
    assert page.locator(".site-field label", has_text=XSS_IMG).count() == 1
    # A quick match between them, watched live and then in the viewer.
    page.locator(".site-pick-a").select_option(label=XSS_IMG)
    page.locator(".site-pick-b").select_option(label=XSS_SCRIPT)
    page.get_by_role("button", name="play").click()
    page.wait_for_function(
        "() => document.querySelector('.site-match-status')?.dataset.status === 'finished'"
    )
    tab.viewer_ready()
    _shown_as_text(tab, marked.url, [XSS_IMG, XSS_SCRIPT])
