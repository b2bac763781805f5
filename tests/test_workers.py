"""Workers (issue 25): ``arena worker`` offers its data directory's local runs to a site over a
WebSocket it opens; the site lists them, fetches a module by sha256 when a match plays it,
checks the bytes and admits them as an upload.

The protocol's parsing is tested alone with hostile input (fast); the site's end over a real
``Site`` (real store, real worker processes) through Starlette's test client, a worker's
messages sent by hand; and the whole with real processes: ``arena serve`` over one data
directory and ``arena worker`` over another.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from playwright.sync_api import expect
from starlette.testclient import TestClient, WebSocketDenialResponse
from starlette.websockets import WebSocketDisconnect

import arena
import web
from tests._support import AUTH, SITE_TOKEN, Builder, Tab, cli, small_case
from web._token import Role, new_token, token_digest
from web._worker import connect_url
from web._worker_protocol import (
    MAX_RUNS,
    CloseCode,
    Hello,
    LocalRun,
    Missing,
    ProtocolViolation,
    Runs,
    digest_of,
    local_runs,
    module_message,
    parse_module,
    parse_text,
)
from web._workers import worker_module_name

SHA = "ab" * 32
EMPTY_MODULE = b"\0asm\x01\0\0\0"
"""A valid wasm module that exports nothing: not admissible."""


def _run(i: int = 1, **over: Any) -> dict[str, Any]:
    run = {
        "run": i,
        "controller": f"bot-{i}",
        "sha256": f"{i:064x}",
        "outcome": "win",
        "case": "foray",
        "version": 1,
        "created_at": "2026-12-02T10:00:00+00:00",
    }
    return {**run, **over}


def _hello(*runs: dict[str, Any]) -> str:
    return json.dumps({"type": "hello", "runs": list(runs)})


# =========================================================================== the protocol


def test_a_hello_and_its_runs_are_read_whole() -> None:
    hello = parse_text(_hello(_run(1), _run(2)))
    assert isinstance(hello, Hello) and [r.run for r in hello.runs] == [1, 2]
    assert hello.runs[0] == LocalRun(**{**_run(1)})
    again = parse_text(json.dumps({"type": "runs", "runs": []}))
    assert again == Runs(())
    missing = parse_text(json.dumps({"type": "missing", "sha256": SHA, "reason": "gone"}))
    assert missing == Missing(SHA, "gone")


@pytest.mark.parametrize(
    ("text", "code", "says"),
    [
        ("not json", CloseCode.MALFORMED, "not JSON"),
        ("[" * 100_000 + "]" * 100_000, CloseCode.MALFORMED, "JSON"),
        ("[]", CloseCode.MALFORMED, "a JSON object"),
        ('{"type": "hi"}', CloseCode.MALFORMED, "unknown message type"),
        ('{"type": 7}', CloseCode.MALFORMED, "unknown message type int"),
        ('{"type": "hello"}', CloseCode.MALFORMED, "missing or unknown key 'runs'"),
        ('{"type": "hello", "runs": [], "x": 1}', CloseCode.MALFORMED, "unknown key 'x'"),
        ('{"type": "hello", "runs": {}}', CloseCode.MALFORMED, "runs: a list"),
        (_hello(*[_run(i + 1) for i in range(10_000)]), CloseCode.TOO_LARGE, "over 1,048,576"),
        (_hello(*[_run(i + 1) for i in range(1001)]), CloseCode.TOO_LARGE, "1,001 runs, over"),
        ('"' + "x" * (2 * 1024 * 1024) + '"', CloseCode.TOO_LARGE, "text message over"),
        (_hello(_run(controller="a\x1bb")), CloseCode.MALFORMED, "runs[0].controller"),
        (_hello(_run(controller="x\u202ey")), CloseCode.MALFORMED, "runs[0].controller"),
        (_hello(_run(controller="")), CloseCode.MALFORMED, "runs[0].controller"),
        (_hello(_run(controller=7)), CloseCode.MALFORMED, "runs[0].controller: a string"),
        (_hello(_run(outcome="w\nin")), CloseCode.MALFORMED, "runs[0].outcome"),
        (_hello(_run(case="c" * 65)), CloseCode.MALFORMED, "runs[0].case: over 64"),
        (_hello(_run(sha256="AB" * 32)), CloseCode.MALFORMED, "runs[0].sha256"),
        (_hello(_run(sha256="../" * 21 + "a")), CloseCode.MALFORMED, "runs[0].sha256"),
        (_hello(_run(run=True)), CloseCode.MALFORMED, "runs[0].run"),
        (_hello(_run(run=0)), CloseCode.MALFORMED, "runs[0].run"),
        (_hello(_run(run=10**30)), CloseCode.MALFORMED, "runs[0].run"),
        (_hello(_run(version=1.5)), CloseCode.MALFORMED, "runs[0].version"),
        (_hello(_run(created_at="yesterday")), CloseCode.MALFORMED, "runs[0].created_at"),
        (_hello(_run(extra=1)), CloseCode.MALFORMED, "runs[0]: an object"),
        (_hello(_run(1), _run(2, sha256=f"{1:064x}")), CloseCode.MALFORMED, "offered twice"),
        ('{"type": "missing", "sha256": "x", "reason": "r"}', CloseCode.MALFORMED, "sha256"),
        (
            json.dumps({"type": "missing", "sha256": SHA, "reason": "a\x00b"}),
            CloseCode.MALFORMED,
            "reason: a control character",
        ),
    ],
)
def test_hostile_text_messages_are_refused_naming_what_is_wrong(
    text: str, code: CloseCode, says: str
) -> None:
    with pytest.raises(ProtocolViolation) as caught:
        parse_text(text)
    assert caught.value.code is code
    assert says in caught.value.reason, caught.value.reason
    assert len(caught.value.reason.encode()) <= 123  # fits a WebSocket close frame


def test_at_most_max_runs_are_taken() -> None:
    hello = parse_text(_hello(*[_run(i + 1) for i in range(MAX_RUNS)]))
    assert isinstance(hello, Hello) and len(hello.runs) == MAX_RUNS


def test_a_module_message_is_its_sha256_then_its_bytes() -> None:
    blob = b"\0asm\x01\0\0\0" + b"x" * 10
    sha = digest_of(blob)
    assert parse_module(module_message(sha, blob)) == (sha, blob)
    with pytest.raises(ProtocolViolation, match="has no sha256"):
        parse_module(b"\x01" * 31)
    with pytest.raises(ProtocolViolation, match="over the") as caught:
        parse_module(bytes(32 + arena.MAX_MODULE_BYTES + 1))
    assert caught.value.code is CloseCode.TOO_LARGE


def test_the_connection_address_and_a_worker_module_name() -> None:
    assert connect_url("http://h:8000", "lab 1") == "ws://h:8000/api/workers/connect?name=lab+1"
    assert connect_url("https://h/arena/", "w").startswith("wss://h/arena/api/workers/connect?")
    with pytest.raises(arena.ArenaError, match="an address like"):
        connect_url("ftp://h", "w")
    name = worker_module_name("bot", "lab-1", SHA)
    assert name == "bot@lab-1#abababab" and arena.name_problem(name) is None
    long = worker_module_name("b" * 300, "w", SHA)
    assert len(long) <= 256 and long.endswith("@w#abababab")


def test_arena_worker_needs_a_token_and_a_name(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    none = cli(capsys, "worker", "--server", "http://127.0.0.1:9", "--name", "lab")
    assert none.code == 2 and "no token: set $ARENA_TOKEN or give --token-file" in none.err
    monkeypatch.setenv("ARENA_TOKEN", "t")
    bad = cli(capsys, "worker", "--server", "http://127.0.0.1:9", "--name", "a\x07b")
    assert bad.code == 2 and "--name" in bad.err and "control character" in bad.err
    where = cli(capsys, "worker", "--server", "127.0.0.1:9", "--name", "lab")
    assert where.code == 2 and "an address like http://host:port" in where.err


def test_local_runs_are_the_runs_of_modules_proved_here(tmp_path: Path) -> None:
    """A run proved from a directory (its module a run's) or from a module file (a file's)
    is a local run; a pushed run (an upload's module) and a baseline's are not."""
    with arena.Store.open(tmp_path / "b") as store:
        assert local_runs(store) == []
        _local_run(store, "mine", EMPTY_MODULE + b"1")
        _local_run(store, "mine-again", EMPTY_MODULE + b"1")  # the same module: listed once
        _local_run(store, "pushed", EMPTY_MODULE + b"2", origin=arena.Origin.UPLOAD)
        _local_run(store, "committed", EMPTY_MODULE + b"3", origin=arena.Origin.BASELINE)
        _local_run(store, "a-file", EMPTY_MODULE + b"4", origin=arena.Origin.FILE)
        # The module of a-file pushed here from elsewhere: its run is published, not local.
        _local_run(store, "a-file-pushed", EMPTY_MODULE + b"4", published=True)
        runs = local_runs(store)
    assert [r.controller for r in runs] == ["a-file", "mine-again"]
    assert (
        runs[1].sha256 == digest_of(EMPTY_MODULE + b"1") and runs[1].outcome == "could-not-compete"
    )


def _local_run(
    store: arena.Store,
    name: str,
    blob: bytes,
    origin: arena.Origin = arena.Origin.RUN,
    *,
    published: bool = False,
) -> arena.store.RunRecord:
    """A local run as ``arena prove`` records one whose module could not compete (no matches
    to play: quick), its module stored as a run's."""
    return store.record_run(
        case_slug="foray",
        case_version=1,
        manifest_sha256="0" * 64,
        controller=name,
        controller_sha256=digest_of(blob),
        outcome=arena.RunOutcome.COULD_NOT_COMPETE,
        reason="recorded by a test",
        module=blob,
        module_origin=origin,
        published=published,
    )


# =========================================================================== the site's end


def test_the_handshake_is_guarded_as_every_request(tmp_path: Path) -> None:
    """The Host and the token are checked before the connection opens (no worker started:
    the site's rooms are never opened), each refusal an HTTP answer."""
    with arena.Store.open(tmp_path / "a") as store:
        bare = web.Site.__new__(web.Site)
        bare.store = store
        token = new_token()
        store.add_token("lab", Role.WORKER, token_digest(token))
        url = "/api/workers/connect?name=lab"
        elsewhere = web.site_app(bare, SITE_TOKEN, allowed_hosts=["localhost"])
        with TestClient(elsewhere) as other:  # its WebSockets' Host is "testserver"
            with pytest.raises(WebSocketDenialResponse) as denied:
                other.websocket_connect(url, headers=_as(token)).__enter__()
            assert denied.value.status_code == 400 and "not a name this server" in denied.value.text
            assert denied.value.headers["x-content-type-options"] == "nosniff"
        with TestClient(web.site_app(bare, SITE_TOKEN, allowed_hosts=["testserver"])) as client:
            for headers, status in (({}, 401), (_as("wrong"), 401), (AUTH, 403)):
                with pytest.raises(WebSocketDenialResponse) as denied:
                    client.websocket_connect(url, headers=headers).__enter__()
                assert denied.value.status_code == status, denied.value.text
            assert store.controllers(include_hidden=True) == []


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[web.Site]:
    limits = web.SiteLimits(workers=1, queue=8, body_timeout=5.0)
    with web.Site.open(tmp_path_factory.mktemp("data"), limits=limits, case=small_case()) as s:
        yield s


@pytest.fixture(scope="module")
def worker_tokens(site: web.Site) -> dict[str, str]:
    out = {}
    for name in ("lab-1", "lab-2", "lab-3", "lab-4"):
        out[name] = new_token()
        site.store.add_token(name, Role.WORKER, token_digest(out[name]))
    out["console"] = new_token()
    site.store.add_token("console-w", Role.CONSOLE, token_digest(out["console"]))
    return out


@pytest.fixture(scope="module")
def client(site: web.Site) -> Iterator[TestClient]:
    # Entered: one event loop for every request and WebSocket, as a server has (a worker's
    # connection and the request that fetches through it meet there).
    with TestClient(web.site_app(site, SITE_TOKEN)) as opened:
        yield opened


def _as(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _offer(blob: bytes, controller: str, run: int = 1) -> dict[str, Any]:
    return _run(run, controller=controller, sha256=digest_of(blob))


def _workers(client: TestClient) -> dict[str, dict[str, Any]]:
    r = client.get("/api/workers", headers=AUTH)
    assert r.status_code == 200, r.text
    return {w["name"]: w for w in r.json()}


def _own(client: TestClient) -> str:
    own: str = client.app.state.workers.own  # type: ignore[attr-defined]
    return own


def _in_thread(call: Any) -> tuple[threading.Thread, list[Any]]:
    out: list[Any] = []
    thread = threading.Thread(target=lambda: out.append(call()), daemon=True)
    thread.start()
    return thread, out


def _stored(site: web.Site) -> set[str]:
    return {c.sha256 for c in site.store.controllers(include_hidden=True)}


@pytest.mark.processes
def test_a_worker_offers_its_runs_and_a_quick_match_fetches_one(
    client: TestClient,
    site: web.Site,
    worker_tokens: dict[str, str],
    idle: bytes,
    busy: bytes,
    build_c: Builder,
) -> None:
    url = "/api/workers/connect?name=lab-1"
    with client.websocket_connect(url, headers=_as(worker_tokens["lab-1"])) as ws:
        ws.send_text(_hello(_offer(idle, "idler", 1), _offer(busy, "busy", 2)))
        welcome = ws.receive_json()
        assert welcome["type"] == "welcome" and welcome["name"] == "lab-1"
        listed = _workers(client)
        assert listed["lab-1"]["connected"] and listed["lab-1"]["runs"] == 2
        assert next(w for w in listed.values() if w["own"])["name"] == _own(client)
        runs = client.get("/api/workers/lab-1/runs", headers=AUTH).json()
        assert [r["controller"] for r in runs["runs"]] == ["idler", "busy"]
        assert all(r["selectable"] for r in runs["runs"])
        # The worker's runs are not the site's: nothing of them is stored, or public.
        assert digest_of(idle) not in _stored(site)
        assert client.get("/api/workers").status_code == 401

        body = {"a": digest_of(idle), "b": "random", "worker": "lab-1"}
        thread, answer = _in_thread(lambda: client.post("/api/matches", json=body, headers=AUTH))
        asked = ws.receive_json()
        assert asked == {"type": "fetch", "sha256": digest_of(idle)}
        ws.send_bytes(module_message(digest_of(idle), idle))
        thread.join(60)
        assert answer[0].status_code == 202, answer[0].text
        match = answer[0].json()
        stored = site.store.controller(digest_of(idle))
        assert stored.name == f"idler@lab-1#{digest_of(idle)[:8]}"
        assert stored.origin is arena.Origin.UPLOAD
        assert match["status"] == "pending"

        # Once admitted it is stored: the same run again needs no fetch.
        again = client.post("/api/matches", json=body, headers=AUTH)
        assert again.status_code == 202, again.text

        # A tournament over a run the worker offers since, named by its controller.
        template = build_c(Path("baselines") / "template.c")
        offered = [_offer(busy, "busy", 2), _offer(template, "tmpl", 3)]
        ws.send_text(json.dumps({"type": "runs", "runs": offered}))
        _until(lambda: _workers(client)["lab-1"]["runs"] == 2, "the runs were not taken")
        start = {"format": "round-robin", "field": ["tmpl", "random"], "worker": "lab-1"}
        thread, answer = _in_thread(
            lambda: client.post("/api/tournaments", json=start, headers=AUTH)
        )
        assert ws.receive_json() == {"type": "fetch", "sha256": digest_of(template)}
        ws.send_bytes(module_message(digest_of(template), template))
        thread.join(60)
        assert answer[0].status_code == 202, answer[0].text
        assert [e["sha256"] for e in answer[0].json()["field"]] == [
            digest_of(template),
            site.store.controller("random").sha256,
        ]

        # The worker updates its runs; a bad message closes its connection, with why.
        ws.send_text(json.dumps({"type": "runs", "runs": [_offer(busy, "busy", 2)]}))
        deadline = time.monotonic() + 5
        while _workers(client)["lab-1"]["runs"] != 1:
            assert time.monotonic() < deadline
            time.sleep(0.02)

    # Gone: its runs are listed unselectable with the reason; choosing one is 409.
    listed = _workers(client)
    assert not listed["lab-1"]["connected"] and "gone since" in listed["lab-1"]["reason"]
    runs = client.get("/api/workers/lab-1/runs", headers=AUTH).json()
    assert runs["runs"] and not any(r["selectable"] for r in runs["runs"])
    assert "gone since" in runs["reason"]
    gone = client.post(
        "/api/matches",
        json={"a": digest_of(busy), "b": "random", "worker": "lab-1"},
        headers=AUTH,
    )
    assert gone.status_code == 409 and "is gone since" in gone.json()["error"], gone.text
    assert digest_of(busy) not in _stored(site)
    nobody = client.post(
        "/api/matches", json={"a": "random", "b": "random", "worker": "nobody"}, headers=AUTH
    )
    assert nobody.status_code == 404 and "no worker 'nobody'" in nobody.json()["error"]


@pytest.mark.processes
def test_bytes_whose_sha256_differs_and_a_module_not_admissible_store_nothing(
    client: TestClient, site: web.Site, worker_tokens: dict[str, str], idle: bytes, busy: bytes
) -> None:
    lying = _offer(busy, "liar", 1)
    bad = _offer(EMPTY_MODULE, "empty", 2)
    with client.websocket_connect(
        "/api/workers/connect?name=lab-2", headers=_as(worker_tokens["lab-2"])
    ) as ws:
        ws.send_text(_hello(lying, bad))
        assert ws.receive_json()["type"] == "welcome"
        before = _stored(site)

        body = {"a": lying["sha256"], "b": "random", "worker": "lab-2"}
        thread, answer = _in_thread(lambda: client.post("/api/matches", json=body, headers=AUTH))
        assert ws.receive_json()["sha256"] == lying["sha256"]
        ws.send_bytes(module_message(lying["sha256"], idle))  # the wrong bytes
        thread.join(60)
        assert answer[0].status_code == 409, answer[0].text
        assert f"sent bytes whose sha256 is {digest_of(idle)}" in answer[0].json()["error"]

        body = {"a": bad["sha256"], "b": "random", "worker": "lab-2"}
        thread, answer = _in_thread(lambda: client.post("/api/matches", json=body, headers=AUTH))
        assert ws.receive_json()["sha256"] == bad["sha256"]
        ws.send_bytes(module_message(bad["sha256"], EMPTY_MODULE))
        thread.join(60)
        assert answer[0].status_code == 400, answer[0].text
        assert "not admissible" in answer[0].json()["error"]

        body = {"format": "round-robin", "field": [lying["sha256"], "random"], "worker": "lab-2"}
        thread, answer = _in_thread(
            lambda: client.post("/api/tournaments", json=body, headers=AUTH)
        )
        assert ws.receive_json()["sha256"] == lying["sha256"]
        ws.send_text(json.dumps({"type": "missing", "sha256": lying["sha256"], "reason": "rm"}))
        thread.join(60)
        assert answer[0].status_code == 409 and "cannot give module" in answer[0].json()["error"]

        assert _stored(site) == before
        # The worker stays connected through all of it.
        assert _workers(client)["lab-2"]["connected"]


def test_a_worker_whose_token_is_revoked_while_connected_is_closed(
    client: TestClient, site: web.Site
) -> None:
    """A token is checked at every request; a worker's connection is checked again every
    ``TOKEN_CHECK_SECONDS``, and revoking its token (``arena token revoke``, here the store's
    call) closes it with ``CloseCode.REVOKED``, the reason listed."""
    token = new_token()
    site.store.add_token("lab-revoked", Role.WORKER, token_digest(token))
    client.app.state.keyring.forget()  # type: ignore[attr-defined]  # (read again at once)
    url = "/api/workers/connect?name=lab-revoked"
    with client.websocket_connect(url, headers=_as(token)) as ws:
        ws.send_text(_hello(_run(1)))
        assert ws.receive_json()["type"] == "welcome"
        assert _workers(client)["lab-revoked"]["connected"]
        site.store.revoke_token("lab-revoked")
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()  # (without the check, this waits until the test's timeout)
        assert closed.value.code == CloseCode.REVOKED
        assert "revoked" in (closed.value.reason or "")
    gone = _until(
        lambda: not (w := _workers(client)["lab-revoked"])["connected"] and w, "still connected"
    )
    assert "token was revoked" in gone["reason"]
    with (
        pytest.raises(WebSocketDenialResponse) as denied,
        client.websocket_connect(url, headers=_as(token)),
    ):
        pass
    assert denied.value.status_code == 401


@pytest.mark.processes
def test_hostile_workers_are_refused_and_the_others_are_not_affected(
    client: TestClient, site: web.Site, worker_tokens: dict[str, str]
) -> None:
    url = "/api/workers/connect?name="
    with client.websocket_connect(url + "lab-3", headers=_as(worker_tokens["lab-3"])) as good:
        good.send_text(_hello(_run(1)))
        assert good.receive_json()["type"] == "welcome"

        refusals = [
            ("lab-3", worker_tokens["lab-3"], 409, "is connected already"),
            ("lab-4", worker_tokens["console"], 403, "a console token cannot do this"),
            ("lab-4", SITE_TOKEN, 403, "a console token cannot do this"),
            ("lab-4", worker_tokens["lab-1"], 403, "answers for the worker 'lab-1', not 'lab-4'"),
            ("lab-4", "not-a-token", 401, "the token is not the server's"),
            ("lab-4\x1b[2J", worker_tokens["lab-4"], 400, "control character"),
            (_own(client), worker_tokens["lab-4"], 403, "answers for the worker 'lab-4'"),
        ]
        for name, token, status, says in refusals:
            with (
                pytest.raises(WebSocketDenialResponse) as denied,
                client.websocket_connect(url + quote(name), headers=_as(token)),
            ):
                pass
            assert denied.value.status_code == status, (name, denied.value.content)
            assert says in denied.value.json()["error"], denied.value.content
            # A query's name once, not twice ("query 'name': query 'name' is missing").
            assert denied.value.json()["error"].count("query 'name'") <= 1, denied.value.content
        with (
            pytest.raises(WebSocketDenialResponse) as denied,
            client.websocket_connect(url, headers=_as(worker_tokens["lab-4"])),
        ):
            pass
        assert (denied.value.status_code, denied.value.json()["error"]) == (
            400,
            "query 'name' is missing: the worker's name (?name=NAME)",
        )
        with (
            pytest.raises(WebSocketDenialResponse) as denied,
            client.websocket_connect(url + "lab-4"),
        ):
            pass
        assert denied.value.status_code == 401

        for message, code, says in [
            (_hello(*[_run(i + 1) for i in range(10_000)]), CloseCode.TOO_LARGE, "over"),
            (_hello(_run(controller="a\x07b")), CloseCode.MALFORMED, "control character"),
            (json.dumps({"type": "runs", "runs": []}), CloseCode.MALFORMED, "must be a hello"),
        ]:
            with client.websocket_connect(url + "lab-4", headers=_as(worker_tokens["lab-4"])) as w:
                w.send_text(message)
                with pytest.raises(WebSocketDisconnect) as closed:
                    w.receive_json()
                assert closed.value.code == code and says in (closed.value.reason or "")
        with client.websocket_connect(url + "lab-4", headers=_as(worker_tokens["lab-4"])) as w:
            w.send_text(_hello())
            assert w.receive_json()["type"] == "welcome"
            w.send_bytes(module_message(SHA, b"x"))  # a module nobody asked for
            with pytest.raises(WebSocketDisconnect) as closed:
                w.receive_json()
            assert closed.value.code == CloseCode.MALFORMED

        # The first worker is still there, its runs as it offered them.
        listed = _workers(client)
        assert listed["lab-3"]["connected"] and listed["lab-3"]["runs"] == 1
        assert "closed by the site" in listed["lab-4"]["reason"]
    assert (
        client.get("/api/workers/connect", headers=_as(worker_tokens["lab-3"])).status_code == 426
    )
    assert client.get("/api/workers/connect", headers=AUTH).status_code == 403


# =========================================================================== real processes


def _arena(*args: str, data: Path, token: str | None = None, **popen: Any) -> subprocess.Popen[str]:
    env = {**os.environ, "FORAY_DATA_DIR": str(data), "PYTHONUNBUFFERED": "1"}
    env.pop("ARENA_TOKEN", None)
    if token is not None:
        env["ARENA_TOKEN"] = token
    return subprocess.Popen(
        [sys.executable, "-m", "arena", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        **popen,
    )


def _until(check: Any, what: str, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


@pytest.mark.server
@pytest.mark.processes
@pytest.mark.slow
@pytest.mark.timeout(240)
def test_a_real_worker_against_a_real_server(tmp_path: Path, idle: bytes, busy: bytes) -> None:
    """``arena serve`` over data dir A; ``arena worker`` over data dir B, which holds two
    local runs: listed, one played in a quick match, the worker killed as the match is
    queued (the match plays on; its runs unselectable, with why), started again (connected
    again). The module it fetched is held for review: not published, and deleted with the
    last quick match that played it (``--keep-quick 1``)."""
    a, b = tmp_path / "a", tmp_path / "b"
    made = subprocess.run(
        [sys.executable, "-m", "arena", "token", "create", "--role", "worker", "--name", "lab"],
        capture_output=True,
        text=True,
        env={**os.environ, "FORAY_DATA_DIR": str(a)},
        check=True,
    )
    worker_token = made.stdout.strip()
    with arena.Store.open(b) as store:
        _local_run(store, "idler", idle)
        _local_run(store, "busy-bot", busy)
    server = _arena(
        "serve", "--port", "0", "--jobs", "1", "--keep-quick", "1", data=a, token=SITE_TOKEN
    )
    workers: list[subprocess.Popen[str]] = []
    try:
        assert server.stdout is not None
        first = server.stdout.readline()
        url = first.split(" at ")[1].split()[0]
        http = httpx.Client(base_url=url, headers=AUTH, timeout=30)

        def connected() -> dict[str, Any] | None:
            listed = {w["name"]: w for w in http.get("api/workers").json()}
            w = listed.get("lab")
            return w if w is not None and w["connected"] else None

        def lab() -> dict[str, Any]:
            listed: dict[str, dict[str, Any]] = {
                w["name"]: w for w in http.get("api/workers").json()
            }
            return listed["lab"]

        workers.append(
            _arena("worker", "--server", url, "--name", "lab", data=b, token=worker_token)
        )
        assert _until(connected, "the worker never connected")["runs"] == 2
        runs = http.get("api/workers/lab/runs").json()["runs"]
        by_name = {r["controller"]: r for r in runs}
        assert set(by_name) == {"idler", "busy-bot"} and all(r["selectable"] for r in runs)
        assert digest_of(idle) not in {c["sha256"] for c in http.get("api/controllers").json()}

        body = {"a": digest_of(idle), "b": "random", "seed": 3, "worker": "lab"}
        queued = http.post("api/matches", json=body)
        assert queued.status_code == 202, queued.text
        match_id = queued.json()["id"]
        # Killed as soon as the match is queued: the match holds its bytes and plays on.
        workers[0].send_signal(signal.SIGKILL)
        workers[0].wait(10)
        match = _until(
            lambda: (m := http.get(f"api/matches/{match_id}").json())["status"] != "pending" and m,
            "the match never finished",
            timeout=120,
        )
        assert match["status"] == "finished", match
        names = [s["name"] for s in match["sides"]]
        assert names[0].startswith("idler@lab#") and names[1] == "random"
        # Held for review: the console names its worker; it cannot be published.
        listed = {c["sha256"]: c for c in http.get("api/controllers").json()}
        assert listed[digest_of(idle)]["held_by"] == "lab"
        refused = http.post(f"api/matches/{match_id}/publish")
        assert refused.status_code == 409 and "held for review" in refused.json()["error"]
        assert (a / "modules" / f"{digest_of(idle)}.wasm").is_file()

        # Gone at once (the kernel closes its socket), its runs unselectable.
        gone = _until(
            lambda: (
                not (w := {x["name"]: x for x in http.get("api/workers").json()}["lab"])[
                    "connected"
                ]
                and w
            ),
            "the killed worker is still listed as connected",
        )
        assert "gone since" in gone["reason"]
        listing = http.get("api/workers/lab/runs").json()
        assert not any(r["selectable"] for r in listing["runs"]) and listing["reason"]
        refused = http.post(
            "api/matches", json={"a": digest_of(busy), "b": "random", "worker": "lab"}
        )
        assert refused.status_code == 409 and "gone since" in refused.json()["error"]
        # Fetched before, its module stored (held): still not as the gone worker's run (it
        # stays a stored controller, chosen by its sha256 without "worker").
        held = {"a": digest_of(idle), "b": "random", "worker": "lab"}
        refused = http.post("api/matches", json=held)
        assert refused.status_code == 409 and "gone since" in refused.json()["error"]

        # Started again: connected again, its runs selectable.
        again = ("worker", "--server", url, "--name", "lab", "--every", "0.5")
        workers.append(_arena(*again, data=b, token=worker_token))
        _until(connected, "the worker never connected again")
        assert all(r["selectable"] for r in http.get("api/workers/lab/runs").json()["runs"])
        # A run proved meanwhile on the worker's machine is offered within --every.
        with arena.Store.open(b) as store:
            _local_run(store, "fresh", EMPTY_MODULE + b"fresh")
        _until(lambda: (w := connected()) and w["runs"] == 3, "the new run was never offered")

        # Another quick match, past --keep-quick 1: the first goes, and the module with it.
        other = http.post("api/matches", json={"a": "random", "b": "random", "seed": 1})
        assert other.status_code == 202, other.text
        _until(
            lambda: http.get(f"api/matches/{match_id}").status_code == 404,
            "the first quick match was never dropped",
            timeout=120,
        )
        assert digest_of(idle) not in {c["sha256"] for c in http.get("api/controllers").json()}
        assert not (a / "modules" / f"{digest_of(idle)}.wasm").exists()

        # Stopped with Ctrl-C: it says goodbye with a normal close (1000), not an error's.
        workers[-1].send_signal(signal.SIGINT)
        out, _ = workers[-1].communicate(timeout=20)
        assert workers[-1].returncode == 0 and "stopped" in out, out
        stopped = _until(lambda: not (w := lab())["connected"] and w, "still listed as connected")
        assert "code 1000" in stopped["reason"], stopped

        # A worker token of another name is refused for good (exit 2).
        wrong = _arena("worker", "--server", url, "--name", "other", data=b, token=worker_token)
        out, _err = wrong.communicate(timeout=60)
        assert wrong.returncode == 2 and "refused: 403" in out, out
    finally:
        for w in workers:
            if w.poll() is None:
                w.send_signal(signal.SIGINT)
        for w in workers:
            try:
                w.communicate(timeout=20)
            except subprocess.TimeoutExpired:
                w.kill()
                w.communicate()
        server.send_signal(signal.SIGINT)
        _out, err = server.communicate(timeout=30)
    assert "Traceback" not in err, err
    assert "worker 'lab' connected: 2 local runs" in err


# =========================================================================== the console


@pytest.mark.browser
@pytest.mark.server
@pytest.mark.processes
def test_the_consoles_worker_dropdown_lists_its_runs_and_a_gone_ones_unselectable(
    tab: Tab, tmp_path: Path, idle: bytes
) -> None:
    from websockets.sync.client import connect

    from web import bench

    token = new_token()
    offered = _offer(idle, "idler", 7)
    with (
        web.Site.open(tmp_path / "a", limits=web.SiteLimits(workers=1), case=small_case()) as site,
        bench.BackgroundServer(web.site_app(site, SITE_TOKEN)) as server,
        contextlib.ExitStack() as stack,
    ):
        site.store.add_token("lab", Role.WORKER, token_digest(token))
        ws = stack.enter_context(
            connect(
                server.url.replace("http", "ws") + "api/workers/connect?name=lab",
                additional_headers=_as(token),
            )
        )
        ws.send(_hello(offered))
        assert json.loads(ws.recv(timeout=10))["type"] == "welcome"

        def answer() -> None:
            with contextlib.suppress(Exception):
                while True:
                    asked = json.loads(ws.recv())
                    ws.send(module_message(asked["sha256"], idle))

        threading.Thread(target=answer, daemon=True).start()
        page = tab.page
        tab.open_site(f"{server.url}console")
        page.locator(".site-token").fill(SITE_TOKEN)
        page.get_by_role("button", name="use", exact=True).click()
        own = page.locator(".site-worker option").first.inner_text()
        assert own.endswith("(this server)")
        page.locator(".site-worker").select_option("lab")
        group = page.locator('.site-pick-a optgroup[label="local runs of lab"]')
        expect(group).to_have_count(1)
        assert group.locator("option").all_inner_texts() == ["idler (run 7)"]
        assert page.locator(".site-field label", has_text="idler (run 7 on lab)").count() == 1
        page.locator(".site-pick-a").select_option(offered["sha256"])
        page.locator(".site-pick-b").select_option(label="random")
        page.get_by_role("button", name="play").click()
        page.wait_for_function(
            "() => document.querySelector('.site-match-status')?.dataset.status === 'finished'",
            timeout=60_000,
        )
        tab.viewer_ready()
        names = tab.js("() => window.forayViewer.replay.header.sides.map((s) => s.name)")
        assert names == [worker_module_name("idler", "lab", offered["sha256"]), "random"]

        ws.close()
        _until(lambda: not _listed(site, server.url)["lab"]["connected"], "still connected")
        # The console reads the workers again by itself, every few seconds.
        expect(page.locator(".site-worker-note")).to_contain_text("gone since", timeout=15_000)
        option = page.locator(f'.site-pick-a option[value="{offered["sha256"]}"]')
        assert option.first.is_disabled()
        assert "gone since" in (option.first.get_attribute("title") or "")
        expect(page.locator(".site-worker option", has_text="lab (gone)")).to_have_count(1)


def _listed(site: web.Site, url: str) -> dict[str, dict[str, Any]]:
    answer = httpx.get(url + "api/workers", headers=AUTH, timeout=10).json()
    return {w["name"]: w for w in answer}
