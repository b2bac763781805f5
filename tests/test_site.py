"""The site's JSON API (Starlette TestClient over a real Site: a real store, real worker processes).

Every route and every error: controllers (the hidden one never served
publicly, uploads admitted in a worker, deduplicated, bounded, a name one
module's), quick matches through the bounded queue (429 with Retry-After, each
recorded once, played after a restart), replays checked by sha256, live
events, runs and push (a real run accepted; tampered or forged ones, and a
non-module's, refused with the reason; twice is once), tokens, the OpenAPI
document, the pages' shells.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import csv
import dataclasses
import hashlib
import io
import json
import os
import re
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import msgpack
import msgspec
import pytest
from openapi_spec_validator import validate
from starlette.requests import Request
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.testclient import TestClient

import arena
import arena.store
import replays
import web
from tests._support import AUTH, SITE_TOKEN, Builder, cli, controller, proof_run, small_case
from web import bench
from web._error_answers import _without_place

pytestmark = [pytest.mark.processes]

FUEL_PROBE = "650e1fe4d4a98ec4887fbd4dfef73b52b37bd9b917284f2014848775c2167584"


@pytest.fixture(scope="module")
def case() -> arena.Case:
    return small_case()


def long_case(case: arena.Case) -> arena.Case:
    """``case`` with matches long enough that none finishes while a test makes a few
    requests, on the native core too, whose ticks are quickest: two ``busy`` bots play to
    the last tick (docs/benchmarks.md has what a tick costs)."""
    return msgspec.structs.replace(case, rules=case.rules.replace(max_ticks=30_000))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, case: arena.Case) -> Iterator[web.Site]:
    limits = web.SiteLimits(workers=1, queue=8, body_timeout=5.0, keepalive=1.0)
    with web.Site.open(tmp_path_factory.mktemp("data"), limits=limits, case=case) as opened:
        yield opened


@pytest.fixture(scope="module")
def client(site: web.Site) -> TestClient:
    return TestClient(web.site_app(site, SITE_TOKEN))


def wait_finished(client: TestClient, match_id: int, timeout: float = 60.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        match: dict[str, Any] = client.get(f"/api/matches/{match_id}", headers=AUTH).json()
        if match["status"] != "pending":
            return match
        assert time.monotonic() < deadline, f"match {match_id} still pending"
        time.sleep(0.05)


def events(client: TestClient, url: str) -> list[tuple[str, dict[str, Any]]]:
    """Every event of a stream until the server ends it (the record is final)."""
    out = []
    with client.stream("GET", url, headers=AUTH) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        event = None
        for line in r.iter_lines():
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                assert event is not None
                out.append((event, json.loads(line[6:])))
    return out


def error_of(r: Any, status: int) -> str:
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == "application/json"
    message = r.json()["error"]
    assert isinstance(message, str) and message
    return message


# =========================================================================== controllers


def test_the_public_list_leaves_the_hidden_opponent_out(client: TestClient) -> None:
    public = client.get("/api/controllers").json()
    names = {c["name"] for c in public}
    assert {"border-soldier", "greedy-raider", "random"} <= names
    assert "fuel-probe" not in names and FUEL_PROBE not in {c["sha256"] for c in public}
    everyone = client.get("/api/controllers", headers=AUTH).json()
    (probe,) = [c for c in everyone if c["name"] == "fuel-probe"]
    assert probe == {**probe, "sha256": FUEL_PROBE, "hidden": True, "origin": "baseline"}


def test_the_hidden_module_is_never_served_publicly(client: TestClient) -> None:
    url = f"/api/controllers/{FUEL_PROBE}/module"
    assert "no controller" in error_of(client.get(url), 404)
    error_of(client.get(url, headers={"Authorization": "Bearer nope"}), 401)
    r = client.get(url, headers=AUTH)
    assert r.status_code == 200
    assert hashlib.sha256(r.content).hexdigest() == FUEL_PROBE


def test_a_public_module_is_served_as_wasm(client: TestClient, case: arena.Case) -> None:
    (raider,) = [o for o in case.opponents if o.name == "greedy-raider"]
    r = client.get(f"/api/controllers/{raider.sha256}/module")
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/wasm"
    assert r.headers["content-disposition"] == f'attachment; filename="{raider.sha256}.wasm"'
    assert r.content == raider.read_module()


def test_an_upload_is_admitted_stored_and_deduplicated(client: TestClient, idle: bytes) -> None:
    r = client.post("/api/controllers", params={"name": "<b>idle</b>"}, content=idle, headers=AUTH)
    assert r.status_code == 201, r.text
    record = r.json()
    sha = hashlib.sha256(idle).hexdigest()
    assert record == {**record, "name": "<b>idle</b>", "sha256": sha, "origin": "upload"}
    again = client.post("/api/controllers", params={"name": "other"}, content=idle, headers=AUTH)
    assert again.status_code == 201 and again.json() == record  # the first name stays
    assert sha in {c["sha256"] for c in client.get("/api/controllers", headers=AUTH).json()}
    assert client.get(f"/api/controllers/{sha}/module", headers=AUTH).content == idle
    # Not published: the public side neither lists nor serves it.
    assert sha not in {c["sha256"] for c in client.get("/api/controllers").json()}
    error_of(client.get(f"/api/controllers/{sha}/module"), 404)


def test_uploading_the_hidden_modules_bytes_keeps_them_hidden(
    client: TestClient, case: arena.Case
) -> None:
    (probe,) = [o for o in case.opponents if o.hidden]
    r = client.post("/api/controllers?name=mine", content=probe.read_module(), headers=AUTH)
    assert r.status_code == 201 and r.json()["hidden"] is True
    error_of(client.get(f"/api/controllers/{FUEL_PROBE}/module"), 404)


def test_a_name_means_one_module(client: TestClient, idle: bytes, case: arena.Case) -> None:
    """An upload under a name another module holds is 409: "random" stays the baseline."""
    (baseline,) = [o for o in case.opponents if o.name == "random"]
    mine = arena.numbered_module(idle, 901)
    sha = hashlib.sha256(mine).hexdigest()
    for name in ("random", baseline.sha256):  # a sha256 names its module too
        r = client.post("/api/controllers", params={"name": name}, content=mine, headers=AUTH)
        message = error_of(r, 409)
        assert f"the name {name!r} is taken: controller {baseline.sha256} (baseline)" in message
        assert r.json()["holder"] == baseline.sha256
    assert sha not in {c["sha256"] for c in client.get("/api/controllers", headers=AUTH).json()}
    match = client.post("/api/matches", json={"a": "random", "b": "random"}, headers=AUTH).json()
    assert [s["sha256"] for s in wait_finished(client, match["id"])["sides"]] == [
        baseline.sha256
    ] * 2
    # The same bytes under the same name again: fine, and the same record.
    first = client.post("/api/controllers?name=mine-901", content=mine, headers=AUTH)
    again = client.post("/api/controllers?name=mine-901", content=mine, headers=AUTH)
    assert first.status_code == again.status_code == 201 and again.json() == first.json()
    # Other bytes under that name: 409, naming the module that holds it.
    other = arena.numbered_module(idle, 902)
    r = client.post("/api/controllers?name=mine-901", content=other, headers=AUTH)
    assert f"controller {sha} (upload) holds it" in error_of(r, 409)


@pytest.mark.parametrize(
    "name",
    [
        "r\u0430ndom",  # a Cyrillic a
        "ran\u200bdom",  # a zero-width space
        "random\ufe0f",  # a variation selector
        "Random",
        "RANDOM",
        "\uff52\uff41\uff4e\uff44\uff4f\uff4d",  # fullwidth
        " random ",
        "gr\u0435edy-raider",  # a Cyrillic e
        "b\u043erder-soldier",  # a Cyrillic o
        "border-so1dier",  # a digit one for the l
    ],
)
def test_a_name_that_looks_like_a_stored_one_is_taken(
    client: TestClient, idle: bytes, name: str
) -> None:
    mine = arena.numbered_module(idle, 911)
    r = client.post("/api/controllers", params={"name": name}, content=mine, headers=AUTH)
    message = error_of(r, 409)
    assert f"the name {name!r} is taken, which looks the same as '" in message
    holder = r.json()["holder"]
    assert holder in {c["sha256"] for c in client.get("/api/controllers", headers=AUTH).json()}
    assert hashlib.sha256(mine).hexdigest() not in {
        c["sha256"] for c in client.get("/api/controllers", headers=AUTH).json()
    }


@pytest.mark.parametrize(
    ("blob", "reason"),
    [
        (b"", "bad magic bytes"),
        (b"(module)", "text format is refused"),
        (b"\0asm\x01\0\0\0", "missing export memory"),
    ],
)
def test_an_inadmissible_module_is_refused_with_the_reason(
    client: TestClient, blob: bytes, reason: str
) -> None:
    r = client.post("/api/controllers?name=bad", content=blob, headers=AUTH)
    assert reason in error_of(r, 400)
    assert r.json()["sha256"] == hashlib.sha256(blob).hexdigest()
    assert r.json()["sha256"] not in {c["sha256"] for c in client.get("/api/controllers").json()}


def test_bytes_the_command_line_stored_unadmitted_are_admitted_when_uploaded(
    client: TestClient, site: web.Site
) -> None:
    """``arena match bad.wasm random`` stores the module it plays, admitted or not: an upload
    of those bytes is checked all the same, not answered with the stored record."""
    bad = b"\0asm\x01\0\0\0\0\x02\x01x"  # one custom section: valid, no exports
    stored = site.store.add_controller(bad, name="played-by-the-cli", origin=arena.Origin.FILE)
    r = client.post("/api/controllers?name=again", content=bad, headers=AUTH)
    assert "missing export memory" in error_of(r, 400)
    assert r.json()["sha256"] == stored.sha256


def test_a_module_over_the_size_limit_is_413(client: TestClient) -> None:
    big = b"\0asm\x01\0\0\0" + b"\0" * arena.MAX_MODULE_BYTES
    assert "limit" in error_of(
        client.post("/api/controllers?name=big", content=big, headers=AUTH), 413
    )

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
        for _ in range(9):
            yield b"\0" * (1024 * 1024)

    r = client.post("/api/controllers?name=big", content=chunks(), headers=AUTH)
    assert "limit" in error_of(r, 413)


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("", "query 'name'"),
        ("?name=", "query 'name'"),
        ("?name=" + "x" * 257, "1..256"),
        ("?name=a%0Ab", "control character"),
        ("?name=a%E2%80%AEb", "bidirectional control"),
        ("?name=%E2%80%8B", "no visible character"),
        ("?name=%20%20", "no visible character"),
    ],
)
def test_an_upload_needs_a_plain_name(
    client: TestClient, idle: bytes, query: str, message: str
) -> None:
    assert message in error_of(
        client.post(f"/api/controllers{query}", content=idle, headers=AUTH), 400
    )


WRITES = [
    ("/api/controllers?name=x", b"\0asm"),
    ("/api/matches", b'{"a": "random", "b": "random"}'),
    ("/api/runs", b"\x80"),
    ("/api/tournaments", b'{"format": "round-robin", "field": ["random", "border-soldier"]}'),
]


@pytest.mark.parametrize(("path", "body"), WRITES)
@pytest.mark.parametrize(
    "authorization",
    [None, "Bearer wrong", f"Basic {SITE_TOKEN}", f"Bearer {SITE_TOKEN}x", "Bearer", "bearer"],
)
def test_writes_without_the_token_are_refused(
    client: TestClient, path: str, body: bytes, authorization: str | None
) -> None:
    headers = {} if authorization is None else {"Authorization": authorization}
    r = client.post(path, content=body, headers=headers)
    error_of(r, 401)
    assert r.headers["www-authenticate"] == "Bearer"


def test_a_token_with_bytes_outside_ascii_is_refused_not_a_crash(client: TestClient) -> None:
    r = client.get("/api/controllers", headers=[(b"authorization", b"Bearer \xff\xfe")])
    error_of(r, 401)


# =========================================================================== matches


def test_a_quick_match_is_queued_played_and_recorded(
    client: TestClient, site: web.Site, case: arena.Case
) -> None:
    r = client.post(
        "/api/matches", json={"a": "greedy-raider", "b": FUEL_PROBE, "seed": 3}, headers=AUTH
    )
    assert r.status_code == 202, r.text
    queued = r.json()
    assert queued["status"] == "pending" and queued["stage"] in ("queued", "running")
    assert r.headers["location"] == f"/api/matches/{queued['id']}"
    stream = events(client, f"/api/matches/{queued['id']}/events")
    assert [e for e, _ in stream] == ["match"] * len(stream)
    assert stream[-1][1]["status"] == "finished"
    assert all(data["status"] == "pending" for _, data in stream[:-1])
    match = client.get(f"/api/matches/{queued['id']}", headers=AUTH).json()
    assert match == stream[-1][1]
    # The result with the design's keys, the replay's URL as "replay".
    expected = arena.play(
        case.match_job(
            arena.Contestant("greedy-raider", arena.load_baseline("greedy-raider")),
            arena.Contestant("fuel-probe", arena.load_baseline("fuel-probe")),
            seed=3,
        )
    )
    design = expected.to_json(f"/api/matches/{queued['id']}/replay")
    assert {k: match[k] for k in design} == design
    replay = client.get(match["replay"], headers={**AUTH, "Accept-Encoding": "identity"})
    assert replay.status_code == 200
    assert replay.headers["content-type"] == replays.MEDIA_TYPE
    assert replay.headers["content-length"] == str(len(expected.replay))
    assert replay.content == expected.replay
    assert queued["id"] in [m["id"] for m in client.get("/api/matches", headers=AUTH).json()]


def test_events_of_a_settled_match_end_at_once(client: TestClient) -> None:
    # 7.0 is an integer to JSON Schema, so it is one here too.
    r = client.post("/api/matches", json={"a": "random", "b": "random", "seed": 7.0}, headers=AUTH)
    assert r.json()["seed"] == 7
    match = wait_finished(client, r.json()["id"])
    assert events(client, f"/api/matches/{match['id']}/events") == [("match", match)]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"not json", "not JSON"),
        (b"[1, 2]", "a JSON object"),
        (b'{"b": "random"}', "missing field 'a'"),
        (b'{"a": "random", "b": "random", "c": 1}', "unknown field 'c'"),
        (b'{"a": "random", "b": "random", "seed": -1}', "field 'seed'"),
        (b'{"a": "random", "b": "random", "seed": 4294967296}', "field 'seed'"),
        (b'{"a": "random", "b": "random", "seed": true}', "field 'seed'"),
        (b'{"a": "random", "b": "random", "seed": 1.5}', "field 'seed'"),
        (b'{"a": "random", "b": "random", "seed": 1e10}', "field 'seed'"),
        (b'{"a": 7, "b": "random"}', "field 'a'"),
        (b'{"a": "", "b": "random"}', "field 'a'"),
        (b"\xff\xfe", "not JSON"),
    ],
)
def test_bad_match_requests_are_400(client: TestClient, body: bytes, message: str) -> None:
    assert message in error_of(client.post("/api/matches", content=body, headers=AUTH), 400)


HOSTILE_JSON = [
    pytest.param(b"[" * 60000, "nested too deeply", id="arrays-60000-deep"),
    pytest.param(b'{"a":' * 12000, "nested too deeply", id="objects-12000-deep"),
    pytest.param(
        b'{"a": "random", "b": "random", "seed": ' + b"9" * 5000 + b"}",
        "not JSON",
        id="seed-of-5000-digits",
    ),
    pytest.param(
        b'{"a": "random", "b": "random", "seed": ' + b"9" * 4000 + b"}",
        "field 'seed'",
        id="seed-of-4000-digits",
    ),
    pytest.param(b'{"a": "\\ud800", "b": "random"}', "lone surrogate", id="surrogate-in-a-name"),
    pytest.param(
        b'{"format": "\\udfff", "field": ["random", "greedy-raider"]}',
        "lone surrogate",
        id="surrogate-in-a-format",
    ),
    pytest.param(
        b'{"format": "swiss", "field": ["random", "x\\ud800y"]}',
        "lone surrogate",
        id="surrogate-in-the-field",
    ),
]


@pytest.mark.parametrize(("body", "message"), HOSTILE_JSON)
@pytest.mark.parametrize("path", ["/api/matches", "/api/tournaments"])
def test_bad_json_is_a_400_never_a_500(
    client: TestClient, path: str, body: bytes, message: str
) -> None:
    r = client.post(path, content=body, headers={**AUTH, "Content-Type": "application/json"})
    error = error_of(r, 400)
    if "deep" in message or "surrogate" in message or path == "/api/matches":
        assert message in error, error


def test_a_match_of_a_controller_not_stored_is_404(client: TestClient) -> None:
    r = client.post("/api/matches", json={"a": "random", "b": "nobody"}, headers=AUTH)
    assert error_of(r, 404) == "field 'b': no controller 'nobody'"


def test_a_json_body_over_its_limit_is_413(client: TestClient) -> None:
    body = b'{"a": "' + b"x" * 70_000 + b'", "b": "random"}'
    error_of(client.post("/api/matches", content=body, headers=AUTH), 413)


def test_the_queue_full_gives_429_with_retry_after(
    tmp_path: Path, case: arena.Case, busy: bytes
) -> None:
    limits = web.SiteLimits(workers=1, queue=2)
    with web.Site.open(tmp_path, limits=limits, case=long_case(case)) as site:
        client = TestClient(web.site_app(site, SITE_TOKEN))
        client.post("/api/controllers?name=busy", content=busy, headers=AUTH)
        body = {"a": "busy", "b": "busy"}
        answers = [
            client.post("/api/matches", json={**body, "seed": s}, headers=AUTH) for s in range(4)
        ]
        assert [a.status_code for a in answers] == [202, 202, 429, 429]
        for refused in answers[2:]:
            assert "queue is full" in refused.json()["error"]
            assert int(refused.headers["retry-after"]) >= 1
        accepted = [a.json()["id"] for a in answers[:2]]
        # Every accepted match completes and is recorded once; the refused left no trace.
        finished = [wait_finished(client, i) for i in accepted]
        assert [m["status"] for m in finished] == ["finished", "finished"]
        assert sorted(m.id for m in site.store.matches()) == sorted(accepted)
        assert client.get("/api/status", headers=AUTH).json()["queue"] == {
            "capacity": 2,
            "accepted": 0,
        }
        # The public side learns the case alone: the queue counts unpublished matches.
        assert list(client.get("/api/status").json()) == ["case"]
        # Room again.
        again = client.post("/api/matches", json=body, headers=AUTH)
        assert again.status_code == 202
        assert wait_finished(client, again.json()["id"])["status"] == "finished"


def test_a_server_stopped_with_matches_queued_plays_them_when_it_starts_again(
    tmp_path: Path, case: arena.Case, busy: bytes
) -> None:
    limits = web.SiteLimits(workers=1, queue=4)
    case = long_case(case)
    with web.Site.open(tmp_path, limits=limits, case=case) as site:
        client = TestClient(web.site_app(site, SITE_TOKEN))
        client.post("/api/controllers?name=busy", content=busy, headers=AUTH)
        ids = [
            client.post(
                "/api/matches", json={"a": "busy", "b": "busy", "seed": s}, headers=AUTH
            ).json()["id"]
            for s in range(3)
        ]
        # The last is still waiting behind the first when the server stops.
        assert client.get(f"/api/matches/{ids[-1]}", headers=AUTH).json()["stage"] == "queued"
        assert "pending" in error_of(
            client.get(f"/api/matches/{ids[-1]}/replay", headers=AUTH), 404
        )
    with arena.Store.open(tmp_path) as store:
        assert store.match(ids[-1]).status is arena.MatchStatus.PENDING
    with web.Site.open(tmp_path, limits=limits, case=case) as site:
        client = TestClient(web.site_app(site, SITE_TOKEN))
        settled = [wait_finished(client, i) for i in ids]
        assert [m["status"] for m in settled] == ["finished"] * 3
        assert [m["seed"] for m in settled] == [0, 1, 2]


def test_a_damaged_replay_is_an_error_never_served_as_good(
    client: TestClient, site: web.Site
) -> None:
    r = client.post(
        "/api/matches", json={"a": "random", "b": "border-soldier", "seed": 9}, headers=AUTH
    )
    match = wait_finished(client, r.json()["id"])
    path = site.store.replay_path(match["replay_sha256"])
    good = path.read_bytes()
    try:
        path.write_bytes(good[:-10])
        message = error_of(client.get(match["replay"], headers=AUTH), 500)
        assert "damaged" in message and match["replay_sha256"] in message
        path.unlink()
        assert "missing" in error_of(client.get(match["replay"], headers=AUTH), 500)
    finally:
        path.write_bytes(good)
    assert client.get(match["replay"], headers=AUTH).content == replays.decompress_replay(good)


def finished_match(client: TestClient, seed: int) -> dict[str, Any]:
    r = client.post(
        "/api/matches", json={"a": "random", "b": "border-soldier", "seed": seed}, headers=AUTH
    )
    return wait_finished(client, r.json()["id"])


def raw_get(client: TestClient, url: str, **headers: str) -> tuple[Any, bytes]:
    """The answer and its body as sent (not decoded), asked with the console's token."""
    with client.stream("GET", url, headers={**AUTH, **headers}) as r:
        return r, b"".join(r.iter_raw())


def test_a_replay_is_sent_zstd_coded_to_a_client_that_takes_it_else_decompressed(
    client: TestClient, site: web.Site
) -> None:
    match = finished_match(client, 21)
    sha, url = match["replay_sha256"], match["replay"]
    stored = site.store.replay_path(sha).read_bytes()
    assert stored.startswith(replays.ZSTD_MAGIC)
    replay = replays.decompress_replay(stored)
    assert hashlib.sha256(replay).hexdigest() == sha  # the id is the replay's own bytes'
    for taken in ("gzip, deflate, br, zstd", "zstd", "*", "gzip;q=1, ZSTD;q=0.5"):
        r, body = raw_get(client, url, **{"Accept-Encoding": taken})
        assert r.status_code == 200, taken
        assert r.headers["content-encoding"] == "zstd" and r.headers["vary"] == "Accept-Encoding"
        assert r.headers["content-length"] == str(len(stored)) and body == stored
        assert r.headers["etag"] == f'"{sha}-zstd"'
    assert client.get(url, headers=AUTH).content == replay  # httpx takes zstd, decodes it
    for refused in ("identity", "gzip, deflate", "zstd;q=0", "*, zstd;q=0", ""):
        r, body = raw_get(client, url, **{"Accept-Encoding": refused})
        assert "content-encoding" not in r.headers, refused
        assert r.headers["vary"] == "Accept-Encoding" and r.headers["etag"] == f'"{sha}"'
        assert r.headers["content-length"] == str(len(replay)) and body == replay
    # Revalidation: the ETag of what would be sent answers 304, another does not.
    r, body = raw_get(client, url, **{"Accept-Encoding": "zstd", "If-None-Match": f'"{sha}-zstd"'})
    assert r.status_code == 304 and body == b"" and r.headers["etag"] == f'"{sha}-zstd"'
    r, body = raw_get(client, url, **{"Accept-Encoding": "gzip", "If-None-Match": f'W/"{sha}"'})
    assert r.status_code == 304 and body == b""
    r, body = raw_get(client, url, **{"Accept-Encoding": "gzip", "If-None-Match": f'"{sha}-zstd"'})
    assert r.status_code == 200 and body == replay


def test_a_replay_stored_raw_by_an_older_arena_is_still_served(
    client: TestClient, site: web.Site
) -> None:
    match = finished_match(client, 22)
    path = site.store.replay_path(match["replay_sha256"])
    good = path.read_bytes()
    replay = replays.decompress_replay(good)
    try:
        path.write_bytes(replay)  # as the store wrote it before replays were compressed
        r, body = raw_get(client, match["replay"], **{"Accept-Encoding": "zstd"})
        assert r.status_code == 200 and "content-encoding" not in r.headers
        assert body == replay and r.headers["etag"] == f'"{match["replay_sha256"]}"'
    finally:
        path.write_bytes(good)


@pytest.mark.parametrize(
    "path",
    [
        "/api/matches/999999",
        "/api/matches/999999/replay",
        "/api/matches/999999/events",
        "/api/runs/999999",
        "/api/tournaments/999999",
        "/api/tournaments/999999/events",
        f"/api/controllers/{'0' * 64}/module",
        "/api/matches/abc",
        "/api/matches/-1",
        "/api/matches/1234567890123456789",
        "/api/controllers/NOTASHA/module",
        f"/api/controllers/{'A' * 64}/module",
        "/api/controllers/..%2F..%2Fpyproject.toml/module",
        "/static/../pyproject.toml",
        "/static/%2e%2e/pyproject.toml",
        "/nothing",
    ],
)
def test_what_is_not_there_is_404(client: TestClient, path: str) -> None:
    r = client.get(path)
    assert r.status_code == 404, (path, r.status_code)
    assert r.headers["content-type"] == "application/json"


@pytest.mark.parametrize(
    ("path", "message"),
    [
        (
            "/api/matches/abc",
            "no route GET /api/matches/abc: {id} in /api/matches/{id} is a record id"
            " (a whole number, 1 to 18 digits), not 'abc'",
        ),
        ("/api/matches/-1/replay", "{id} in /api/matches/{id}/replay is a record id"),
        ("/api/matches/1234567890123456789", "not '1234567890123456789'"),
        (
            f"/api/controllers/{'A' * 64}",
            f"{{sha256}} in /api/controllers/{{sha256}} is a sha256 (64 lowercase hex digits),"
            f" not '{'A' * 64}'",
        ),
        ("/api/field/foray/abc", "{version} in /api/field/{slug}/{version} is a record id"),
        ("/matches/x1", "{id} in /matches/{id} is a record id"),
        ("/api/nothing", "no route GET /api/nothing (/openapi.json lists the API's routes)"),
        ("/nothing", "no route GET /nothing"),
    ],
)
def test_a_path_that_matches_no_route_is_a_404_saying_what_is_wrong(
    client: TestClient, path: str, message: str
) -> None:
    assert message in error_of(client.get(path), 404)
    # The same with the console's token: the path's shape alone, nothing of the store.
    assert message in error_of(client.get(path, headers=AUTH), 404)


def test_a_no_route_404_repeats_a_long_or_odd_path_cut_and_as_json(client: TestClient) -> None:
    message = error_of(client.get("/api/matches/" + "x" * 5000), 404)
    assert len(message) < 500 and message.count("…") == 2, message  # the path, the value
    r = client.get("/api/matches/%22%3Cb%3E")  # a quote, a tag
    assert error_of(r, 404).startswith('no route GET /api/matches/"<b>: ')
    assert b'/api/matches/\\"<b>: ' in r.content  # JSON-escaped in the answer


@pytest.mark.parametrize(
    "path",
    [
        "/api/matches/999999",
        "/api/runs/999999",
        "/api/tournaments/999999",
        f"/api/controllers/{'0' * 64}",
        "/api/field/foray/999",
    ],
)
def test_a_well_formed_id_of_nothing_is_answered_by_its_route(
    client: TestClient, path: str
) -> None:
    """Its route's own 404, public or console, which says nothing of unpublished records
    (the message is the same as for one missing): never the router's."""
    for headers in ({}, AUTH):
        message = error_of(client.get(path, headers=headers), 404)
        assert not message.startswith("no route"), message


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("limit=0", "'limit'"),
        ("limit=501", "'limit'"),
        ("limit=abc", "'limit'"),
        ("limit=%C2%B9", "'limit'"),  # "¹": a digit to str.isdigit, not to int()
        ("before=%D9%A1", "'before'"),  # an Arabic-Indic 1: only ASCII digits are numbers here
        ("before=0", "'before'"),
        ("before=-5", "'before'"),
        ("before=1e3", "'before'"),
    ],
)
@pytest.mark.parametrize("listing", ["/api/matches", "/api/runs", "/api/tournaments"])
def test_bad_pages_of_listings_are_400(
    client: TestClient, listing: str, query: str, message: str
) -> None:
    assert message in error_of(client.get(f"{listing}?{query}"), 400)


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("before=x", "query 'before' must be a whole number of at least 1, got 'x'"),
        ("before=0", "query 'before' must be a whole number of at least 1, got '0'"),
        ("limit=501", "query 'limit' must be a whole number from 1 to 500, got '501'"),
        (
            "limit=" + "9" * 100,
            f"query 'limit' must be a whole number from 1 to 500, got '{'9' * 40}…'",
        ),
    ],
)
def test_a_bad_page_says_what_the_value_must_be_and_what_it_was(
    client: TestClient, query: str, message: str
) -> None:
    assert error_of(client.get(f"/api/matches?{query}"), 400) == message


def test_listings_page_by_id(client: TestClient) -> None:
    for seed in (1, 2):  # at least two to page through, whichever tests ran before
        made = client.post(
            "/api/matches", json={"a": "random", "b": "random", "seed": seed}, headers=AUTH
        )
        wait_finished(client, made.json()["id"])
    every = [m["id"] for m in client.get("/api/matches?limit=500", headers=AUTH).json()]
    assert every == sorted(every, reverse=True) and len(every) >= 2
    first = client.get("/api/matches?limit=1", headers=AUTH).json()
    assert [m["id"] for m in first] == every[:1]
    assert [
        m["id"] for m in client.get(f"/api/matches?before={every[0]}", headers=AUTH).json()
    ] == every[1:]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("DELETE", "/api/matches"),
        ("PUT", "/api/controllers"),
        ("OPTIONS", "/api/runs"),
        ("POST", "/api/matches/1"),
    ],
)
def test_other_methods_are_405(client: TestClient, method: str, path: str) -> None:
    r = client.request(method, path, headers=AUTH)
    error_of(r, 405)
    allowed = {m.strip() for m in r.headers["allow"].split(",")}
    assert allowed == ({"GET", "HEAD", "POST"} if path.count("/") == 2 else {"GET", "HEAD"})


# =========================================================================== runs and push


@pytest.fixture(scope="module")
def local_run(
    tmp_path_factory: pytest.TempPathFactory, build_c: Builder, case: arena.Case
) -> tuple[Path, arena.store.RunRecord]:
    """A proof run of the template controller in a store of its own (another machine's)."""
    root = tmp_path_factory.mktemp("local")
    module = root / "my-bot.wasm"
    module.write_bytes(build_c(Path("baselines") / "template.c"))
    with arena.Store.open(root) as store:
        return root, proof_run(store, module, "my-bot", case)


@pytest.fixture(scope="module")
def bundle(local_run: tuple[Path, arena.store.RunRecord]) -> web.Bundle:
    root, run = local_run
    with arena.Store.open(root) as store:
        return web.bundle_of(store, run.id)


def push(client: TestClient, data: bytes) -> Any:
    return client.post(
        "/api/runs", content=data, headers={**AUTH, "Content-Type": replays.MEDIA_TYPE}
    )


def test_a_real_run_pushed_is_played_again_and_listed(
    client: TestClient, bundle: web.Bundle, local_run: tuple[Path, arena.store.RunRecord]
) -> None:
    r = push(client, bundle.encode())
    assert r.status_code == 201, r.text
    run = r.json()
    local = local_run[1]
    assert run["controller"] == {"name": "my-bot", "sha256": local.controller_sha256}
    assert run["outcome"] == str(local.outcome) and run["matches"] == local.matches
    detail = client.get(f"/api/runs/{run['run']}").json()
    assert [m["opponent"] for m in detail["matches"]] == [m.opponent for m in bundle.matches]
    assert detail["build_log"] == bundle.build_log
    for row, pushed in zip(detail["matches"], bundle.matches, strict=True):
        assert row["side"] == 0 and row["role"] == pushed.role
        assert client.get(row["result"]["replay"]).content == pushed.replay
        mine = row["result"]["sides"][0]
        assert mine["name"] == "my-bot"
    assert run["run"] in [x["run"] for x in client.get("/api/runs").json()]
    # The pushed controller is selectable from then on.
    listed = {c["sha256"]: c for c in client.get("/api/controllers").json()}
    assert listed[bundle.module_sha256]["origin"] == "upload"
    # Pushing again changes nothing.
    again = push(client, bundle.encode())
    assert again.status_code == 200 and again.json() == run
    assert client.get("/api/runs").json().count(run) == 1


def test_a_local_runs_match_is_not_published_alone_and_the_answer_says_how(
    site: web.Site, client: TestClient, tmp_path: Path
) -> None:
    """A run proved on the server's own data directory is not published, and no route
    publishes a run: publishing one of its matches says so, not that it is published."""
    module = tmp_path / "local-probe.wasm"
    module.write_bytes(controller(pages=5))
    run = proof_run(site.store, module, "local-probe", site.case)
    match_id = site.store.run_matches(run.id)[0].id
    message = error_of(client.post(f"/api/matches/{match_id}/publish", headers=AUTH), 400)
    assert message == (
        f"match {match_id} is a match of run {run.id}, which is not published: a run is"
        " published by pushing it to this site (arena push), its matches with it"
    )
    assert client.get(f"/api/matches/{match_id}").status_code == 404  # still not published


def tamper(bundle: web.Bundle, index: int, **changes: Any) -> bytes:
    matches = list(bundle.matches)
    matches[index] = dataclasses.replace(matches[index], **changes)
    return dataclasses.replace(bundle, matches=tuple(matches)).encode()


def reencoded(replay: bytes, change: Any) -> bytes:
    objects = list(msgpack.Unpacker(io.BytesIO(replay), raw=False))
    change(objects)
    return b"".join(msgpack.packb(o, use_bin_type=True) for o in objects)


def test_a_tampered_replay_is_refused_with_the_reason(
    client: TestClient, bundle: web.Bundle
) -> None:
    def more_fuel(objects: list[Any]) -> None:
        objects[5]["f"][1] += 1  # side B's fuel in tick 4: still a valid replay on its own

    data = tamper(bundle, 1, replay=reencoded(bundle.matches[1].replay, more_fuel))
    message = error_of(push(client, data), 400)
    assert message.startswith(f"refused: match 1 (against {bundle.matches[1].opponent}): ")
    assert "differs from the match played again" in message


def test_a_replay_of_another_match_is_refused(client: TestClient, bundle: web.Bundle) -> None:
    data = tamper(bundle, 0, replay=bundle.matches[1].replay)
    message = error_of(push(client, data), 400)
    assert "refused: match 0" in message and "its sides are" in message


def test_a_forged_result_is_refused(client: TestClient, bundle: web.Bundle) -> None:
    result = dict(bundle.matches[2].result)
    result["sides"] = [dict(s) for s in result["sides"]]
    result["sides"][0]["banked"] += 100
    message = error_of(push(client, tamper(bundle, 2, result=result)), 400)
    assert "the result pushed differs from the match played again (keys sides)" in message


def test_a_forged_outcome_is_refused(client: TestClient, bundle: web.Bundle) -> None:
    forged = "win" if bundle.outcome != "win" else "loss"
    message = error_of(push(client, dataclasses.replace(bundle, outcome=forged).encode()), 400)
    assert f"the run says {forged}" in message


def test_a_replay_whose_sides_are_named_otherwise_is_refused(
    client: TestClient, bundle: web.Bundle
) -> None:
    """The names in a replay's header are what a listing shows: swapped (in the replay and
    in its result alike), the pusher's bot would be shown beating its opponent."""

    def swap_names(objects: list[Any]) -> None:
        a, b = objects[0]["sides"]
        a["name"], b["name"] = b["name"], a["name"]

    replay = reencoded(bundle.matches[0].replay, swap_names)
    result = dict(bundle.matches[0].result)
    result["sides"] = [dict(s) for s in result["sides"]]
    result["sides"][0]["name"], result["sides"][1]["name"] = (
        result["sides"][1]["name"],
        result["sides"][0]["name"],
    )
    result["replay_sha256"] = hashlib.sha256(replay).hexdigest()
    data = tamper(bundle, 0, replay=replay, result=result)
    message = error_of(push(client, data), 400)
    assert message.startswith(f"refused: match 0 (against {bundle.matches[0].opponent}): ")
    assert "its sides are A " in message and "'my-bot'" in message


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("my\nbot", "control character"),
        ("my\x1bbot", "control character"),
        ("my\u202ebot", "bidirectional control"),
        ("\u200b\u200b", "no visible character"),
    ],
)
def test_a_pushed_name_is_checked_as_an_uploads_is(
    client: TestClient, bundle: web.Bundle, name: str, problem: str
) -> None:
    message = error_of(push(client, dataclasses.replace(bundle, controller=name).encode()), 400)
    assert "field 'controller.name'" in message and problem in message


@pytest.fixture(scope="module")
def forged(bundle: web.Bundle, case: arena.Case) -> web.Bundle:
    """A run of a module that is not one (8 bytes, no exports), its matches played for real:
    every one a forfeit at init, and each plays again to the very same bytes."""
    bad = b"\0asm\x01\0\0\0"
    matches = []
    for m in bundle.matches:
        (opponent,) = [o for o in case.opponents if o.name == m.opponent]
        job = case.match_job(
            arena.Contestant("no-module", bad),
            arena.Contestant(opponent.name, opponent.read_module()),
            seed=m.result["seed"],
        )
        played = arena.play(job)
        assert played.sides[0].forfeit is not None and played.sides[0].forfeit.kind == "init"
        result = {k: v for k, v in played.to_json("").items() if k not in ("id", "replay")}
        matches.append(dataclasses.replace(m, result=result, replay=played.replay))
    return dataclasses.replace(
        bundle, controller="no-module", module=bad, outcome="loss", matches=tuple(matches)
    )


def test_a_run_of_a_module_that_is_not_admissible_is_refused(
    client: TestClient, forged: web.Bundle
) -> None:
    """The pushed module is admitted as an upload is, before a match is played again."""
    runs = client.get("/api/runs").json()
    r = push(client, forged.encode())
    message = error_of(r, 400)
    assert message == (
        "refused: the controller's module is not admissible:"
        " missing export memory, foray_buffer, foray_init, foray_tick"
    )
    assert r.json()["sha256"] == forged.module_sha256
    assert client.get("/api/runs").json() == runs
    listed = client.get("/api/controllers", headers=AUTH).json()
    assert forged.module_sha256 not in {c["sha256"] for c in listed}


def test_a_run_under_a_name_another_module_holds_is_409(
    client: TestClient, forged: web.Bundle, case: arena.Case
) -> None:
    (baseline,) = [o for o in case.opponents if o.name == "greedy-raider"]
    r = push(client, dataclasses.replace(forged, controller="greedy-raider").encode())
    assert f"controller {baseline.sha256} (baseline) holds it" in error_of(r, 409)


def test_a_run_under_a_name_that_looks_like_another_is_409(
    client: TestClient, forged: web.Bundle, case: arena.Case
) -> None:
    (baseline,) = [o for o in case.opponents if o.name == "greedy-raider"]
    r = push(client, dataclasses.replace(forged, controller="greedy-r\u0430ider").encode())
    assert "looks the same as 'greedy-raider'" in error_of(r, 409)
    assert r.json()["holder"] == baseline.sha256


def test_a_run_without_every_match_is_refused(client: TestClient, bundle: web.Bundle) -> None:
    short = dataclasses.replace(bundle, matches=bundle.matches[:-1])
    assert "every opponent of the case" in error_of(push(client, short.encode()), 400)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"case_version": 99}, "this server plays foray/1"),
        ({"case_slug": "other"}, "this server plays foray/1"),
        ({"manifest_sha256": "0" * 64}, "manifest"),
    ],
)
def test_a_run_of_another_case_is_refused(
    client: TestClient, bundle: web.Bundle, changes: dict[str, Any], message: str
) -> None:
    assert message in error_of(push(client, dataclasses.replace(bundle, **changes).encode()), 400)


def test_a_replay_played_on_other_terms_is_refused(client: TestClient, bundle: web.Bundle) -> None:
    def fewer_ticks(objects: list[Any]) -> None:
        objects[0]["config"]["max_ticks"] -= 1

    data = tamper(bundle, 0, replay=reencoded(bundle.matches[0].replay, fewer_ticks))
    assert "rules constants are not the case's" in error_of(push(client, data), 400)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "not one msgpack map"),
        (b"\x80" * 3, "bytes after the bundle's map"),
        (msgpack.packb([1, 2]), "field 'bundle': expected a map"),
        (msgpack.packb({"format": "zip"}), "missing"),
        (b"\x91" * 100_000 + b"\xc0", "nested over"),
        (b"\xc1", "type 0xc1"),
        (b"\xa5abc", "cut short"),
    ],
)
def test_bytes_that_are_no_bundle_are_400(client: TestClient, data: bytes, message: str) -> None:
    assert message in error_of(push(client, data), 400)


def _rss_kib() -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


def test_a_push_of_8_mib_of_empty_arrays_is_refused_and_costs_no_memory(
    client: TestClient,
) -> None:
    """Decoded whole, it was a list per byte: 580 MiB, on the server's loop."""
    size = 8 * 1024 * 1024
    data = b"\xdd" + size.to_bytes(4, "big") + b"\x90" * size
    before = _rss_kib()
    assert "msgpack objects" in error_of(push(client, data), 400)
    del data
    # Generous: the body is read into memory (8 MiB) and joined once.
    assert _rss_kib() - before < 64 * 1024


def test_a_bundle_cut_off_half_way_records_nothing(client: TestClient, bundle: web.Bundle) -> None:
    before = client.get("/api/runs").json()
    data = bundle.encode()
    assert "not one msgpack map" in error_of(push(client, data[: len(data) // 2]), 400)
    assert client.get("/api/runs").json() == before


def test_bundle_fields_are_checked_by_name(bundle: web.Bundle) -> None:
    wire = msgpack.unpackb(bundle.encode(), raw=False)
    wire["matches"][1]["replay"] = "text"
    with pytest.raises(web.BundleError, match=r"'matches\[1\].replay': expected binary"):
        web.decode_bundle(msgpack.packb(wire, use_bin_type=True))
    wire = msgpack.unpackb(bundle.encode(), raw=False)
    wire["extra"] = 1
    with pytest.raises(web.BundleError, match="unknown extra"):
        web.decode_bundle(msgpack.packb(wire, use_bin_type=True))
    assert web.decode_bundle(bundle.encode()) == bundle


@pytest.mark.server
def test_arena_push_uploads_a_local_run(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    case: arena.Case,
    local_run: tuple[Path, arena.store.RunRecord],
) -> None:
    root, run = local_run
    monkeypatch.setenv("FORAY_DATA_DIR", str(root))
    with web.Site.open(tmp_path, limits=web.SiteLimits(workers=2), case=case) as site:
        with bench.BackgroundServer(web.site_app(site, SITE_TOKEN)) as server:
            monkeypatch.delenv("ARENA_TOKEN", raising=False)
            ran = cli(capsys, "push", str(run.id), "--server", server.url)
            assert ran.code == 2 and "ARENA_TOKEN is not set" in ran.err
            monkeypatch.setenv("ARENA_TOKEN", "wrong")
            ran = cli(capsys, "push", str(run.id), "--server", server.url)
            assert ran.code == 2 and "401" in ran.err
            monkeypatch.setenv("ARENA_TOKEN", SITE_TOKEN)
            ran = cli(capsys, "push", str(run.id), "--server", server.url)
            assert ran.code == 0, ran.err
            assert "checked and recorded, as run 1" in ran.out and f"{server.url}runs/1" in ran.out
            ran = cli(capsys, "push", str(run.id), "--server", server.url, "--json")
            assert ran.json() == {**ran.json(), "pushed": True, "created": False}
            ran = cli(capsys, "push", "999", "--server", server.url)
            assert ran.code == 2 and "no run 999" in ran.err
        ran = cli(capsys, "push", str(run.id), "--server", server.url)
        assert ran.code == 2 and "cannot reach the server" in ran.err
    ran = cli(capsys, "push", str(run.id), "--server", "ftp://x")
    assert ran.code == 2 and "http://host:port" in ran.err


@pytest.mark.parametrize(
    ("server", "why"),
    [
        ("http://[::1", "not an address (Invalid IPv6 URL): "),
        (
            "http://host:http",
            "not an address (Port could not be cast to integer value as 'http'): ",
        ),
        ("http://host:70000", "not an address (Port out of range 0-65535): "),
        ("http://:8000", ""),
        ("ftp://host", ""),
    ],
)
def test_arena_push_refuses_an_address_that_is_none(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, server: str, why: str
) -> None:
    """An operator's error, named: exit 2 and the address, never a traceback."""
    monkeypatch.setenv("ARENA_TOKEN", SITE_TOKEN)
    ran = cli(capsys, "push", "1", "--server", server)
    assert ran.code == 2 and ran.out == ""
    assert ran.err == (
        f"error: --server {server!r}: {why}give the server's address, http://host:port\n"
    )


# =========================================================================== tournaments


def test_a_tournament_plays_with_live_standings(client: TestClient) -> None:
    field = ["random", "greedy-raider", "border-soldier"]
    r = client.post(
        "/api/tournaments", json={"format": "round-robin", "field": field}, headers=AUTH
    )
    assert r.status_code == 202, r.text
    started = r.json()
    assert started["status"] == "running" and started["planned"] == 6
    assert r.headers["location"] == f"/api/tournaments/{started['id']}"
    stream = events(client, f"/api/tournaments/{started['id']}/events")
    assert all(e == "tournament" for e, _ in stream)
    done = [data["matches"] for _, data in stream]
    assert done == sorted(done) and done[-1] == 6
    # Each row's played and pending add up to its share of the plan, live or not.
    for _, data in stream:
        rows = data["standings"]
        assert sum(r["matches"] + r["errors"] + r["pending"] for r in rows) == 2 * 6, rows
    final = stream[-1][1]
    assert final["status"] == "finished" and final["complete"] is True
    assert client.get(f"/api/tournaments/{started['id']}", headers=AUTH).json() == final
    rows = final["standings"]
    assert sorted(row["name"] for row in rows) == sorted(field)
    assert [row["rank"] for row in rows] == [1, 2, 3]
    assert sum(row["wins"] + row["draws"] / 2 for row in rows) == 6
    assert all({"mu", "sigma", "ordinal"} <= row["rating"].keys() for row in rows)
    # The pairings: three stages of one meeting, each meeting's two matches linked.
    assert [len(s["meetings"]) for s in final["stages"]] == [1, 1, 1]
    ids = [m["id"] for s in final["stages"] for g in s["meetings"] for m in g["matches"]]
    assert len(ids) == 6
    for match_id in ids:
        assert (
            client.get(f"/api/matches/{match_id}", headers=AUTH).json()["tournament_id"]
            == started["id"]
        )
    listed = client.get("/api/tournaments", headers=AUTH).json()
    assert started["id"] in [t["id"] for t in listed]
    # Not published yet: no page, no listing, no record without the console token.
    assert client.get(f"/tournaments/{started['id']}").status_code == 404
    assert started["id"] not in [t["id"] for t in client.get("/api/tournaments").json()]
    error_of(client.get(f"/api/tournaments/{started['id']}"), 404)
    error_of(client.get(f"/api/matches/{ids[0]}/replay"), 404)
    published = client.post(f"/api/tournaments/{started['id']}/publish", headers=AUTH)
    assert published.status_code == 200 and published.json()["published"] is True
    assert client.get(f"/tournaments/{started['id']}").status_code == 200
    assert client.get(f"/api/tournaments/{started['id']}").json()["published"] is True
    assert client.get(f"/api/matches/{ids[0]}/replay").status_code == 200

    # The downloads: the standings and every match as CSV, as the CLI exports them.
    got = client.get(f"/api/tournaments/{started['id']}/standings.csv")
    assert got.status_code == 200 and got.headers["content-type"].startswith("text/csv")
    assert "attachment" in got.headers["content-disposition"]
    ranked = list(csv.DictReader(io.StringIO(got.text)))
    assert [r["name"] for r in ranked] == [row["name"] for row in rows]
    assert all(r["played"] == "4" and r["pending"] == "0" for r in ranked)
    got = client.get(f"/api/tournaments/{started['id']}/matches.csv")
    assert got.status_code == 200 and got.headers["content-type"].startswith("text/csv")
    played = list(csv.DictReader(io.StringIO(got.text)))
    assert sorted(int(m["id"]) for m in played) == sorted(ids)
    assert all(m["replay"] == f"/api/matches/{m['id']}/replay" for m in played)
    assert client.get("/api/tournaments/999999/matches.csv").status_code == 404
    # An operator leaves an entrant out (recorded, recomputed), then counts it again.
    url = f"/api/tournaments/{started['id']}"
    leave = {"name": "random", "reason": "a test"}
    assert client.post(f"{url}/exclusions", json=leave).status_code == 401
    out = client.post(f"{url}/exclusions", json=leave, headers=AUTH)
    assert out.status_code == 200, out.text
    assert [x["name"] for x in out.json()["excluded"]] == ["random"]
    assert sorted(r["name"] for r in out.json()["standings"]) == ["border-soldier", "greedy-raider"]
    assert client.get(url).json()["excluded"][0]["reason"] == "a test"
    back = client.post(f"{url}/inclusions", json={"name": "random"}, headers=AUTH)
    assert back.status_code == 200 and back.json()["standings"] == final["standings"]
    again = client.post(f"{url}/inclusions", json={"name": "random"}, headers=AUTH)
    assert "'random' is not excluded" in error_of(again, 400)


@pytest.mark.parametrize(
    ("method", "path", "body", "message"),
    [
        (
            "POST",
            "/api/tournaments/99999/exclusions",
            {"name": "random", "reason": "x"},
            "no tournament 99999",
        ),
        ("POST", "/api/tournaments/99999/inclusions", {"name": "random"}, "no tournament 99999"),
        ("POST", "/api/tournaments/99999/publish", None, "no tournament 99999"),
        ("POST", "/api/matches/99999/publish", None, "no match 99999"),
        ("GET", "/api/tournaments/99999", None, "no tournament 99999"),
        ("GET", "/api/tournaments/99999/standings.csv", None, "no tournament 99999"),
        ("GET", "/api/runs/99999", None, "no run 99999"),
        ("GET", f"/api/controllers/{'0' * 64}/module", None, None),
        ("GET", f"/api/controllers/{'0' * 64}", None, None),
    ],
)
def test_a_404_of_the_console_does_not_say_where_the_store_is(
    site: web.Site, client: TestClient, method: str, path: str, body: Any, message: str | None
) -> None:
    """The store's "no tournament 99999 in the store /its/path" names the file for the
    command line; the site's answer, the console's included, says what is missing only."""
    r = client.request(method, path, json=body, headers=AUTH)
    said = error_of(r, 404)
    assert str(site.store.root) not in said and "arena.sqlite3" not in said, said
    if message is not None:
        assert said == message


def test_arena_errors_name_no_place_on_disk(site: web.Site, client: TestClient) -> None:
    """Whatever arena error an answer passes on: the store's place is the data directory."""
    scope = {"type": "http", "method": "GET", "path": "/", "headers": [], "app": client.app}
    request = Request(scope)
    root, file = site.store.root, site.store.path
    cases = {
        f"no tournament 9 in the store {file}": "no tournament 9",
        f"no replay {'a' * 64} in the store {root}": f"no replay {'a' * 64}",
        f"controller 'x' is not in the store {file}: store it": (
            "controller 'x' is not in the store: store it"
        ),
        f"cannot read the replay file {root / 'replays' / 'ab' / 'c'}: gone": (
            "cannot read the replay file replays/ab/c: gone"
        ),
    }
    for said, answered in cases.items():
        assert _without_place(said, request) == answered


def test_a_tournament_is_never_served_finished_with_a_match_missing(
    site: web.Site, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its last match recorded and the tournament finished while its JSON is being read: the
    JSON is of one moment, running with that match missing (then finished with all of
    them), never the status of a later read with the matches of an earlier one."""
    store = site.store
    field = {c.name: arena.Entrant(c.name, c.sha256) for c in store.controllers()[:2]}
    record = arena.create_tournament(store, "round-robin", list(field.values()), seeds=[0, 1])
    *first, last = arena.tournament_plan(record).scheduler().ready()

    def record_error(p: arena.tournament.Pairing) -> None:
        store.record_match_error(
            field[p.a],
            field[p.b],
            seed=p.seed,
            error="no worker",
            tournament_id=record.id,
            pairing_key=p.key,
        )

    for pairing in first:
        record_error(pairing)
    read = store._db.read

    def read_then_finish(body: Any, what: str, **options: Any) -> Any:
        # Right after the JSON's first read of the store, the coordinator (here) records the
        # last match and finishes the tournament.
        out = read(body, what, **options)
        monkeypatch.setattr(store._db, "read", read)
        record_error(last)
        store.finish_tournament(record.id, {})
        return out

    monkeypatch.setattr(store._db, "read", read_then_finish)
    # What GET /api/tournaments/{id} and its event stream serve.
    served = site.tournament_json(record.id)
    assert (served["status"], served["matches"], served["planned"]) == ("running", 3, 4)
    served = client.get(f"/api/tournaments/{record.id}", headers=AUTH).json()
    assert (served["status"], served["matches"], served["planned"]) == ("finished", 4, 4)


def test_a_bracket_is_drawn_by_rounds(client: TestClient) -> None:
    field = ["random", "greedy-raider", "border-soldier", FUEL_PROBE]
    # The seeds as the console's form sends them: text as a person types it.
    r = client.post(
        "/api/tournaments",
        json={"format": "bracket", "field": field, "seeds": " 3-4 "},
        headers=AUTH,
    )
    final = events(client, f"/api/tournaments/{r.json()['id']}/events")[-1][1]
    assert final["seeds"] == [3, 4]
    bracket = client.post(
        f"/api/tournaments/{final['id']}/exclusions",
        json={"name": "random", "reason": "x"},
        headers=AUTH,
    )
    assert "cannot be recomputed" in error_of(bracket, 400)
    assert [s["label"] for s in final["stages"]] == ["semi-finals", "final"]
    (decider,) = final["stages"][1]["meetings"]
    assert decider["winner"] == final["standings"][0]["name"]


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"format": "zip", "field": ["random", "greedy-raider"]}, 400, "format 'zip'"),
        ({"format": "swiss", "field": ["random", "random"]}, 400, "in the field twice"),
        ({"format": "swiss", "field": ["random", "nobody"]}, 404, "no controller 'nobody'"),
        (
            {"format": "swiss", "field": ["random"]},
            400,
            "1 controllers; a tournament here takes 2..256",
        ),
        ({"format": "swiss", "field": "random"}, 400, "field 'field'"),
        ({"format": "swiss", "field": ["random", "greedy-raider"], "seeds": []}, 400, "'seeds'"),
        ({"format": "swiss", "field": ["random", "greedy-raider"], "seeds": [-1]}, 400, "'seeds'"),
        (
            {"format": "swiss", "field": ["random", "greedy-raider"], "seeds": "0-999999999"},
            400,
            "makes 1000000000 seeds or more, and a tournament here takes at most 16",
        ),
        (
            {"format": "swiss", "field": ["random", "greedy-raider"], "seeds": "0 x"},
            400,
            "'x' is not a seed nor a range; give seeds separated by spaces or commas",
        ),
        ({"format": "swiss", "field": ["random", "greedy-raider"], "rounds": 0}, 400, "rounds"),
        (
            {"format": "gauntlet", "field": ["random", "greedy-raider"], "shuffle": 1},
            400,
            "shuffle",
        ),
        ({"format": "swiss", "field": ["random", "greedy-raider"], "x": 1}, 400, "unknown field"),
    ],
)
def test_bad_tournament_requests_are_refused(
    client: TestClient, body: dict[str, Any], status: int, message: str
) -> None:
    # By id: a running one (the field a push made, still playing) changes its counts.
    before = [t["id"] for t in client.get("/api/tournaments", headers=AUTH).json()]
    assert message in error_of(client.post("/api/tournaments", json=body, headers=AUTH), status)
    assert [t["id"] for t in client.get("/api/tournaments", headers=AUTH).json()] == before


def test_the_server_plays_a_bounded_number_of_tournaments(tmp_path: Path, case: arena.Case) -> None:
    limits = web.SiteLimits(workers=1, tournaments=1)
    with web.Site.open(tmp_path, limits=limits, case=case) as site:
        client = TestClient(web.site_app(site, SITE_TOKEN))
        body = {"format": "round-robin", "field": ["random", "greedy-raider", "border-soldier"]}
        first = client.post("/api/tournaments", json=body, headers=AUTH)
        second = client.post("/api/tournaments", json=body, headers=AUTH)
        assert (first.status_code, second.status_code) == (202, 429)
        assert int(second.headers["retry-after"]) >= 1
        assert events(client, f"/api/tournaments/{first.json()['id']}/events")[-1][1]["status"] == (
            "finished"
        )
        third = client.post("/api/tournaments", json=body, headers=AUTH)
        assert third.status_code == 202


# =========================================================================== status, schema


def test_status_shows_the_queue_to_the_console(client: TestClient) -> None:
    status = client.get("/api/status", headers=AUTH).json()
    assert (status["case"]["slug"], status["case"]["version"]) == ("foray", 1)
    assert status["workers"] == 1 and status["queue"]["capacity"] == 8
    case = arena.default_case()
    assert client.get("/api/status").json() == {
        "case": {
            "slug": "foray",
            "version": 1,
            "name": case.name,
            "difficulty": "medium",
            "tags": list(case.tags),
            "summary": case.summary,
        }
    }
    assert case.summary and status["case"]["summary"] == case.summary  # for the site


def test_the_openapi_document_is_valid_and_names_every_route(client: TestClient) -> None:
    doc = client.get("/openapi.json").json()
    validate(doc)
    app = web.site_app(web.Site.__new__(web.Site), SITE_TOKEN)
    served = set()
    for route in app.routes:
        if isinstance(route, Route) and (
            route.path.startswith("/api") or route.path == "/openapi.json"
        ):
            path = re.sub(r"\{(\w+):\w+\}", r"{\1}", route.path)
            for method in route.methods or ():
                if method != "HEAD":
                    served.add((path, method.lower()))
        elif isinstance(route, WebSocketRoute):
            # A worker's connection: its handshake is the documented GET of the same path.
            assert (route.path, "get") in {(p, m) for p, ops in doc["paths"].items() for m in ops}
        else:
            assert isinstance(route, Mount) or not route.path.startswith("/api")  # type: ignore[attr-defined]
    documented = {(p, m) for p, ops in doc["paths"].items() for m in ops}
    assert served == documented


def test_the_openapi_document_is_the_same_bytes_whatever_the_hash_seed() -> None:
    """The document is gathered from the routes, whose methods are sets: their order changes
    with the interpreter's hash seed, the document's must not."""
    code = "import json, web; print(json.dumps(web.openapi_document()))"
    seen = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in range(4)
    }
    assert len(seen) == 1
    (document,) = seen
    assert json.loads(document) == web.openapi_document()


def schema_of(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{name}", "components": doc["components"]}


def test_json_answers_match_their_schemas(client: TestClient, bundle: web.Bundle) -> None:
    doc = web.openapi_document()

    def check(data: Any, name: str) -> None:
        jsonschema.validate(data, schema_of(doc, name))

    for c in client.get("/api/controllers", headers=AUTH).json():
        check(c, "Controller")
    pending = client.post("/api/matches", json={"a": "random", "b": "random"}, headers=AUTH).json()
    check(pending, "Match")
    check(wait_finished(client, pending["id"]), "Match")
    for m in client.get("/api/matches?limit=500", headers=AUTH).json():
        check(m, "Match")
    assert push(client, bundle.encode()).status_code in (200, 201)
    for r in client.get("/api/runs").json():
        check(r, "Run")
        check(client.get(f"/api/runs/{r['run']}").json(), "RunDetail")
    body = {"format": "gauntlet", "field": ["random", "greedy-raider"]}
    tid = client.post("/api/tournaments", json=body, headers=AUTH).json()["id"]
    for _, data in events(client, f"/api/tournaments/{tid}/events"):
        check(data, "TournamentDetail")
    for t in client.get("/api/tournaments", headers=AUTH).json():
        check(t, "Tournament")
    check(client.get("/api/status").json(), "Status")
    check(client.get("/api/matches/999999").json(), "Error")


# =========================================================================== pages


@pytest.mark.parametrize("page", ["/", "/console"])
def test_the_pages_are_shells_with_the_sites_policy(client: TestClient, page: str) -> None:
    r = client.get(page)
    assert r.status_code == 200
    assert "default-src 'self'" in r.headers["content-security-policy"]
    assert '<main id="page">' in r.text


def test_record_pages_exist_only_for_published_records(client: TestClient) -> None:
    made = client.post(
        "/api/matches", json={"a": "random", "b": "greedy-raider", "seed": 5}, headers=AUTH
    )
    match_id = wait_finished(client, made.json()["id"])["id"]
    assert client.get(f"/matches/{match_id}").status_code == 404  # a quick match, not published
    r = client.get(f"/console/matches/{match_id}?tick=5")
    assert (
        r.status_code == 200
        and f'data-id="{match_id}"' in r.text
        and 'data-side="console"' in r.text
    )
    # published from the console, its page is public
    assert client.post(f"/api/matches/{match_id}/publish", headers=AUTH).status_code == 200
    published = match_id
    assert published in [m["id"] for m in client.get("/api/matches?limit=50").json()]
    r = client.get(f"/matches/{published}?tick=5")
    assert r.status_code == 200 and f'data-id="{published}"' in r.text
    assert 'data-side="public"' in r.text
    assert '<script type="module" src="/static/dist/match.js">' in r.text
    for page in ("runs", "matches", "tournaments"):
        missing = client.get(f"/{page}/999999")
        assert missing.status_code == 404 and "no " in missing.text
        assert missing.headers["content-type"].startswith("text/html")


# =========================================================================== the token, serve


def test_the_server_makes_its_token_once_and_keeps_it_private(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    token, created = web.server_token(tmp_path)
    assert created and len(token) >= 40
    path = tmp_path / web.TOKEN_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert web.server_token(tmp_path) == (token, False)
    path.chmod(0o644)
    assert web.server_token(tmp_path) == (token, False)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    monkeypatch.setenv("ARENA_TOKEN", "from-the-environment")
    assert web.server_token(tmp_path) == ("from-the-environment", False)
    monkeypatch.setenv("ARENA_TOKEN", "")
    with pytest.raises(arena.ArenaError, match="empty"):
        web.server_token(tmp_path)
    monkeypatch.delenv("ARENA_TOKEN")
    path.write_text("")
    with pytest.raises(arena.ArenaError, match="empty"):
        web.server_token(tmp_path)


@pytest.mark.server
def test_a_slow_body_gets_408(tmp_path: Path, case: arena.Case) -> None:
    limits = web.SiteLimits(workers=1, body_timeout=0.5)
    with (
        web.Site.open(tmp_path, limits=limits, case=case) as site,
        bench.BackgroundServer(web.site_app(site, SITE_TOKEN)) as server,
    ):
        port = int(server.url.rsplit(":", 1)[1].strip("/"))
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(
                b"POST /api/controllers?name=slow HTTP/1.1\r\nHost: x\r\n"
                + f"Authorization: Bearer {SITE_TOKEN}\r\n".encode()
                + b"Content-Length: 1000\r\n\r\n\0asm"
            )
            answer = b""
            while b"took too long" not in answer and (chunk := sock.recv(65536)):
                answer += chunk
    assert answer.startswith(b"HTTP/1.1 408 ")
    assert answer.endswith(b'{"error":"the body took too long to arrive"}')


def test_the_demo_ends_by_serving_the_site(tmp_path: Path) -> None:
    """``arena demo``'s last step finds web's ``serve_site`` through its entry point."""
    import signal
    import subprocess
    import sys
    import urllib.request

    script = (
        "from arena.cli._demo import run_demo, serve_site\n"
        "raise SystemExit(run_demo(steps=(serve_site,), serve=('127.0.0.1', 0)))\n"
    )
    env = {**os.environ, "FORAY_DATA_DIR": str(tmp_path), "ARENA_TOKEN": SITE_TOKEN}
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline() for _ in range(3)]
        assert "the site" in lines[0] and lines[1].startswith(f"serving {tmp_path} at http://")
        url = lines[1].split(" at ")[1].split()[0]
        with urllib.request.urlopen(url, timeout=10) as r:
            assert r.status == 200 and b'<main id="page">' in r.read()
        # The console's link beside it, its token in the fragment (no server sees it).
        assert lines[2].rstrip().endswith(f" {url}console#token={SITE_TOKEN}"), lines[2]
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err


@pytest.mark.server
def test_arena_serve_serves_the_site_until_interrupted(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys
    import urllib.request

    env = {**os.environ, "FORAY_DATA_DIR": str(tmp_path)}
    env.pop("ARENA_TOKEN", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "--port", "0", "--jobs", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith(f"serving {tmp_path} at http://127.0.0.1:")
        url = first.split(" at ")[1].split()[0]
        token_line = proc.stdout.readline()
        token = (tmp_path / web.TOKEN_FILE).read_text().strip()
        assert token_line.rstrip().endswith(token) and "printed this once" in token_line
        request = urllib.request.Request(
            url + "api/status", headers={"Authorization": f"Bearer {token}"}
        )
        with urllib.request.urlopen(request, timeout=10) as r:
            assert json.load(r)["workers"] == 1
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "stopping" in out
    assert "Traceback" not in err


# =========================================================================== event streams


def _read_stream(url: str, source: str = "127.0.0.1") -> list[dict[str, Any]]:
    """Every event's data of a stream until the server ends it, from the address ``source``."""
    out = []
    transport = httpx.HTTPTransport(local_address=source)
    with (
        httpx.Client(transport=transport, timeout=60) as http,
        http.stream("GET", url) as r,
    ):
        assert r.status_code == 200, r.read()
        for line in r.iter_lines():
            if line.startswith("data: "):
                out.append(json.loads(line[6:]))
    return out


@contextlib.contextmanager
def tournament_served(
    root: Path, case: arena.Case, limits: web.SiteLimits, seeds: int
) -> Iterator[tuple[web.Site, str]]:
    """A site served on 127.0.0.1 playing a round-robin of the case's four opponents on
    ``seeds`` seeds, its matches long: the site and the tournament's event stream's URL."""
    with (
        web.Site.open(root, limits=limits, case=long_case(case)) as site,
        bench.BackgroundServer(web.site_app(site, SITE_TOKEN)) as server,
    ):
        field = ["random", "greedy-raider", "border-soldier", FUEL_PROBE]
        body = {"format": "round-robin", "field": field, "seeds": list(range(seeds))}
        started = httpx.post(server.url + "api/tournaments", json=body, headers=AUTH).json()
        # Published, so that its streams are public (read without a token, as a reader's).
        publish = f"{server.url}api/tournaments/{started['id']}/publish"
        assert httpx.post(publish, headers=AUTH).status_code == 200
        yield site, f"{server.url}api/tournaments/{started['id']}/events"


@pytest.mark.server
def test_the_streams_of_a_tournament_share_one_build_a_change(
    tmp_path: Path, case: arena.Case
) -> None:
    limits = web.SiteLimits(workers=1, live_every=0.1, keepalive=1.0)
    with tournament_served(tmp_path, case, limits, seeds=2) as (site, url):
        with concurrent.futures.ThreadPoolExecutor(12) as pool:
            seen = list(pool.map(_read_stream, [url] * 12))
        assert all(s[-1]["status"] == "finished" and s[-1]["matches"] == 24 for s in seen)
        most = max(len(s) for s in seen)
        assert most >= 2, "the tournament ended before its streams saw it play"
        # Each state built once for all twelve streams (not once a stream): no more builds
        # than states the streams saw between them (a stream that connects after a change
        # may start from a state the others never saw; built a stream, it would be 12x).
        states = {(event["status"], event["matches"]) for s in seen for event in s}
        assert site.snapshots.builds <= len(states) + 2, (site.snapshots.builds, len(states))


@pytest.mark.server
def test_one_client_holds_at_most_its_share_of_the_event_streams(
    tmp_path: Path, case: arena.Case
) -> None:
    limits = web.SiteLimits(workers=1, streams_per_client=2, keepalive=0.5)
    with tournament_served(tmp_path, case, limits, seeds=8) as (site, url):
        with contextlib.ExitStack() as held:
            mine = httpx.Client(timeout=30)
            held.enter_context(mine)
            first, second = (held.enter_context(mine.stream("GET", url)) for _ in range(2))
            assert (first.status_code, second.status_code) == (200, 200)
            third = mine.get(url)
            assert third.status_code == 429 and int(third.headers["retry-after"]) >= 1
            assert "from this address" in third.json()["error"]
            other = httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.2"))
            with other, other.stream("GET", url) as elsewhere:
                assert elsewhere.status_code == 200
            first.close()
            deadline = time.monotonic() + 10
            while True:
                with mine.stream("GET", url) as again:
                    if again.status_code == 200:
                        break
                    assert again.status_code == 429
                assert time.monotonic() < deadline, "a stream closed did not give its slot back"
                time.sleep(0.1)
        tournament = int(url.rsplit("/", 2)[1])
        assert site.tournament_json(tournament)["status"] == "running"
