"""A real ``arena serve`` under a mixed load from another process (this one), losing nothing.

The server runs as a subprocess on 127.0.0.1 over a data directory of its own,
with one worker and a match queue of 3. This process drives it from 8
threads at once: replay streams, listings of matches, runs and controllers,
uploads of real modules (``idle``, ``busy`` and variants of them that are
distinct modules), and quick matches, the first a burst of more than the
queue holds. Then: no 5xx; every 429 carries Retry-After; every accepted match
completes, is listed exactly once, and its replay streams and verifies (and
plays again to the same bytes); no match is recorded that was not accepted;
every upload answered 200/201 is stored; the server's stderr holds no
traceback; and SIGINT stops it cleanly. Nothing here times anything: the same
load's speed is ``arena bench web``'s (web/bench/).
"""

from __future__ import annotations

import hashlib
import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

import arena
import arena.bench
import arena.match
import replays
from tests._support import cli
from web import bench

pytestmark = [pytest.mark.server, pytest.mark.processes]

CONTEXT_KEYS = ("machine", "date", "load_average", "size", "seconds")
"""The summary's keys that say where and when, after its figures."""
QUEUE = 3
BURST = 10
"""Quick matches sent first, back to back from 8 clients: more than the queue holds."""
PAIRS = (("random", "greedy-raider"), ("border-soldier", "random"), ("busy", "idle"))

OK = {
    bench.RequestKind.STREAM: {200},
    bench.RequestKind.LIST_MATCHES: {200},
    bench.RequestKind.LIST_RUNS: {200},
    bench.RequestKind.LIST_CONTROLLERS: {200},
    bench.RequestKind.UPLOAD: {200, 201, 429},
    bench.RequestKind.QUICK_MATCH: {202, 429},
}


def get(url: str, token: str | None = None) -> bytes:
    request = urllib.request.Request(url)
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=30) as r:
        body: bytes = r.read()
        return body


def every_match(url: str) -> list[dict[str, Any]]:
    """The whole listing of matches, page by page."""
    found: list[dict[str, Any]] = []
    before = ""
    while True:
        page = bench.get_json(f"{url}api/matches?limit=7{before}", token=bench.LOAD_TOKEN)
        found += page
        if len(page) < 7:
            return found
        before = f"&before={page[-1]['id']}"


def accepted_ids(run: bench.LoadRun) -> list[int]:
    return [a.json()["id"] for a in run.of(bench.RequestKind.QUICK_MATCH) if a.status == 202]


def test_arena_serve_under_mixed_load_loses_nothing(
    tmp_path: Path, idle: bytes, busy: bytes
) -> None:
    seeded = bench.seed_store(tmp_path)
    uploads = [("idle", idle), ("busy", busy)]
    uploads += [(f"variant-{i}", arena.numbered_module((idle, busy)[i % 2], i)) for i in range(4)]
    matches = [(*PAIRS[i % 2], i) for i in range(BURST + 4)]
    first = bench.mixed_requests(
        [seeded.id], stream_count=200, listings=90, uploads=uploads, matches=matches, burst=BURST
    )
    # Then matches of the modules uploaded (stored by now), among more reads.
    uploaded = [(*PAIRS[2], 100 + i) for i in range(4)]
    then = bench.mixed_requests([seeded.id], stream_count=120, listings=45, matches=uploaded)

    with bench.ServerProcess(tmp_path, jobs=1, queue=QUEUE) as server:
        runs = [bench.drive(server.url, first, clients=8, token=server.token)]
        # The queue drains before the second part, so its matches are accepted.
        bench.wait_settled(server.url, accepted_ids(runs[0]), token=server.token)
        runs.append(bench.drive(server.url, then, clients=8, token=server.token))
        run = bench.LoadRun([a for r in runs for a in r.answers], sum(r.seconds for r in runs))
        assert len(run.answers) == len(first) + len(then)
        # Every answer is one the route may give; 429 only with Retry-After; never a 5xx.
        bad = [(a.request.kind, a.request.path, a.status, a.body[:200]) for a in run.answers]
        bad = [b for b in bad if b[2] not in OK[b[0]]]
        assert not bad, bad
        refused = [a for a in run.answers if a.status == 429]
        assert any(a.request.kind is bench.RequestKind.QUICK_MATCH for a in refused), "no 429"
        for a in refused:
            assert a.retry_after is not None and int(a.retry_after) >= 1, a
            assert "full" in a.json()["error"] or "at once" in a.json()["error"]
        # Every stream of the stored match is its replay, whole.
        for a in run.of(bench.RequestKind.STREAM):
            assert (a.size, a.sha256) == (seeded.replay_bytes, seeded.replay_sha256)

        accepted = accepted_ids(run)
        assert len(accepted) >= 2 * QUEUE and len(set(accepted)) == len(accepted)
        settled = bench.wait_settled(server.url, accepted, token=server.token)
        assert [m["status"] for m in settled] == ["finished"] * len(accepted)
        # The modules uploaded under load played too.
        assert any([s["name"] for s in m["sides"]] == ["busy", "idle"] for m in settled)

        # Listed exactly once each; nothing recorded that was not accepted.
        listed = [m["id"] for m in every_match(server.url)]
        assert sorted(listed) == sorted([seeded.id, *accepted])
        status = bench.get_json(server.url + "api/status", token=server.token)
        assert status["queue"] == {"capacity": QUEUE, "accepted": 0}

        # Each accepted match's replay streams, is the one recorded, verifies, and plays
        # again from the stored modules to the very same bytes.
        modules: dict[str, bytes] = {}
        for match in settled:
            replay = get(server.url + match["replay"].lstrip("/"), server.token)
            assert hashlib.sha256(replay).hexdigest() == match["replay_sha256"]
            assert replays.verify_replay(replay).ok
            blobs = []
            for side in match["sides"]:
                sha = side["sha256"]
                if sha not in modules:
                    modules[sha] = get(f"{server.url}api/controllers/{sha}/module", server.token)
                blobs.append(modules[sha])
            assert arena.match.replay_matches(replay, *blobs).ok, match["id"]

        # Every upload answered 200/201 is stored, under its sha256.
        stored = {
            c["sha256"] for c in bench.get_json(server.url + "api/controllers", token=server.token)
        }
        for a in run.of(bench.RequestKind.UPLOAD):
            if a.status in (200, 201):
                assert a.json()["sha256"] in stored
                assert hashlib.sha256(a.request.body).hexdigest() == a.json()["sha256"]
        assert server.memory().rss_kib > 0

        code = server.stop()
    assert code == 0, server.stderr
    assert "stopping" in server.stdout
    assert "Traceback" not in server.stderr, server.stderr


@pytest.mark.slow
def test_arena_bench_json_prints_one_object_with_every_figure() -> None:
    """The one-run summary's shape, not its speed: every documented key, a positive number."""
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "arena", "bench", "--quick", "--json"],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    summary = json.loads(proc.stdout)  # the whole of stdout: one JSON document
    assert isinstance(summary, dict)
    assert list(summary) == [*arena.bench.SUMMARY_KEYS, *CONTEXT_KEYS]
    tournament = summary.pop("tournament_matches_per_s")
    assert set(tournament) == {"1", "N", "workers"}
    assert tournament["workers"] >= 1 and tournament["1"] > 0 and tournament["N"] > 0
    for key in arena.bench.SUMMARY_KEYS:
        if key != "tournament_matches_per_s":
            assert isinstance(summary[key], float) and summary[key] > 0, key
    assert summary["machine"] == arena.bench.machine() and summary["size"] == "quick"
    # The progress went to stderr, and the summary's own lines too.
    assert "machine:" in proc.stderr and "server, replay stream" in proc.stderr


def test_arena_bench_json_goes_with_the_summary_only(capsys: pytest.CaptureFixture[str]) -> None:
    ran = cli(capsys, "bench", "sim", "--json")
    assert ran.code == 2 and ran.out == ""
    assert (
        ran.err.strip()
        == "error: --json goes with the one-run summary (arena bench without a figure)"
    )
