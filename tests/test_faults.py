"""Faults of the whole service, with real processes: nothing lost, nothing half-written.

``arena serve`` runs as a process of its own over a data directory and is
killed (SIGKILL) while it receives an upload, while it receives a push and
while it plays a push's matches again; started again on the same directory,
it lists nothing partial, the same request succeeds, recorded once, and a
quick match it had accepted is played. It
meets a data directory that is read-only or full when it starts (exit 2, one
line, no traceback) and one that fills while it serves (writes answer 503
naming the file, reads go on, writes work again once there is room). Two CLI
processes and the server write one store at once.

The other faults of issue 14 are tested where their code is: the store's
(a held lock, concurrent writers, read-only and full directories) in
test_store_faults.py, a worker killed mid-match in test_executors.py and
test_coordinator.py, a tournament killed and resumed in test_coordinator.py,
a damaged replay in test_store.py and test_site.py.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import os
import re
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import arena
import replays
import web
from arena.cli import main as arena_main
from arena.store import STALE_TEMPORARY_SECONDS, STORE_FILE
from tests._support import SITE_TOKEN, controller, proof_run, worker_hook
from web import bench

pytestmark = [pytest.mark.server, pytest.mark.processes]

ARENA = (sys.executable, "-m", "arena")
WAIT = 60.0
"""Seconds any wait of these tests may take before it fails (never reached when all is well)."""
SHA = re.compile(r"[0-9a-f]{64}")


# =========================================================================== a real server


def _server(root: Path) -> bench.ServerProcess:
    """``arena serve --port 0 --jobs 1`` over ``root`` with the tests' token (not started)."""
    return bench.ServerProcess(root, token=SITE_TOKEN, start_timeout=WAIT)


def call(
    url: str, data: bytes | None = None, *, method: str | None = None, content_type: str = ""
) -> tuple[int, Any]:
    """A request with the token; (status, the JSON answered)."""
    headers = {"Authorization": f"Bearer {SITE_TOKEN}"}
    if content_type:
        headers["Content-Type"] = content_type
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=WAIT) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _with_token(url: str) -> urllib.request.Request:
    """A GET with the (console) token: a quick match is not published."""
    return urllib.request.Request(url, headers={"Authorization": f"Bearer {SITE_TOKEN}"})


def post_json(url: str, body: dict[str, Any]) -> tuple[int, Any]:
    return call(url, json.dumps(body).encode(), content_type="application/json")


def wait_until(what: str, ready: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT
    while not ready():
        assert time.monotonic() < deadline, f"still waiting for {what}"
        time.sleep(0.02)


def finished(url: str, match_id: int) -> dict[str, Any]:
    """Wait for a quick match to settle; its JSON."""
    deadline = time.monotonic() + WAIT
    while True:
        match: dict[str, Any] = call(f"{url}api/matches/{match_id}")[1]
        if match["status"] != "pending":
            return match
        assert time.monotonic() < deadline, f"match {match_id} is still pending"
        time.sleep(0.05)


@contextlib.contextmanager
def half_sent(server: bench.ServerProcess, path: str, body: bytes) -> Iterator[None]:
    """A POST of ``body`` with its headers and only half its bytes sent, held open.

    Once the server has answered another request since, it has read what was
    sent (uvicorn reads a connection as data arrives) and the handler awaits
    the rest.
    """
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
        f"Authorization: Bearer {SITE_TOKEN}\r\nContent-Type: application/octet-stream\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=WAIT) as sock:
        sock.sendall(head + body[: len(body) // 2])
        assert call(server.url + "api/status")[0] == 200
        yield


# =========================================================================== the data directory


@dataclass(frozen=True)
class Held:
    """What a data directory holds, read from the store directly (nothing of a server's)."""

    controllers: list[tuple[str, str, str]]
    """(sha256, name, origin) of every controller."""
    matches: list[tuple[int, str, str | None]]
    """(id, status, replay sha256) of every match."""
    runs: list[tuple[int, int]]
    """(id, matches) of every run."""
    temporary: list[str]
    """Temporary files of writes that never finished."""


def audit(root: Path) -> Held:
    """Check the data directory as a reader would find it after a fault; what it holds.

    Every file is the database, or a replay or module named by the sha256 of
    its bytes (nothing half-written under a final name), or a temporary file
    (``.<name>.<hex>``, in ``.tmp/`` or beside, listed); every row's file is there and whole; every
    run has all its matches, every match finished has its replay.
    """
    temporary = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if path.is_dir():
            assert str(rel) in ("replays", "modules", "replays/.tmp", "modules/.tmp"), rel
            continue
        if rel.parent == Path("."):
            assert rel.name in (STORE_FILE, f"{STORE_FILE}-wal", f"{STORE_FILE}-shm"), rel
            continue
        kind = rel.parent.parent.name if rel.parent.name == ".tmp" else rel.parent.name
        suffix = {"replays": ".replay", "modules": ".wasm"}[kind]
        if rel.name.startswith("."):
            assert re.fullmatch(rf"\.[0-9a-f]{{64}}{suffix}\.[0-9a-f]{{12}}", rel.name), rel
            temporary.append(str(rel))
            continue
        assert rel.name.endswith(suffix) and SHA.fullmatch(rel.name.removesuffix(suffix)), rel
        # A replay file is named by the replay's own bytes, kept zstd-compressed (raw where
        # the command line names it: a one-off match's, a local proof run's).
        content = path.read_bytes()
        if suffix == ".replay" and replays.is_compressed(content):
            content = replays.decompress_replay(content)
        assert hashlib.sha256(content).hexdigest() == rel.name.removesuffix(suffix)
    with arena.Store.open(root) as store:
        controllers = store.controllers(include_hidden=True)
        for c in controllers:
            store.read_module_bytes(c.sha256)
        matches = store.matches(limit=500)
        for m in matches:
            assert (m.result is not None) == (m.status is arena.MatchStatus.FINISHED)
            if m.result is not None:
                store.read_replay_bytes(m.result.replay_sha256)
        runs = store.runs(limit=500)
        for r in runs:
            assert len(store.run_matches(r.id)) == r.matches > 0
    return Held(
        controllers=sorted((c.sha256, c.name, str(c.origin)) for c in controllers),
        matches=[
            (m.id, str(m.status), None if m.result is None else m.result.replay_sha256)
            for m in matches
        ],
        runs=[(r.id, r.matches) for r in runs],
        temporary=temporary,
    )


# =========================================================================== killed mid-upload


def test_the_server_killed_mid_upload_keeps_nothing_and_the_upload_then_succeeds_once(
    tmp_path: Path,
) -> None:
    root = tmp_path / "data"
    module = controller(pages=3)
    sha = hashlib.sha256(module).hexdigest()
    with _server(root) as server:
        url = server.serving()
        # A quick match accepted, not finished when the server dies: played at the next start.
        status, match = post_json(url + "api/matches", {"a": "random", "b": "greedy-raider"})
        assert status == 202
        before = audit(root)
        with half_sent(server, "/api/controllers?name=cut-off", module):
            server.kill()
    after = audit(root)  # nothing of the upload, not even a temporary file
    assert after.controllers == before.controllers
    # (A temporary replay file may be there: on a loaded machine the quick match can be
    # recording its replay when the kill lands. The next open sweeps it.)
    assert [t for t in after.temporary if not t.startswith("replays/")] == []
    assert [m[0] for m in after.matches] == [match["id"]]

    # The whole body sent, killed before the answer: in its admission check or
    # its write, wherever the kill lands, the controller is there whole or not at all.
    other = controller(pages=4)
    with _server(root) as server:
        server.serving()
        with socket.create_connection(("127.0.0.1", server.port), timeout=WAIT) as sock:
            sock.sendall(
                f"POST /api/controllers?name=sent HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                f"Authorization: Bearer {SITE_TOKEN}\r\n"
                f"Content-Length: {len(other)}\r\n\r\n".encode()
                + other
            )
            server.kill()
    held = audit(root)
    assert [c for c in held.controllers if c[0] == sha] == []

    with _server(root) as server:
        url = server.serving()
        assert audit(root).temporary == []  # swept or never there
        status, record = call(f"{url}api/controllers?name=cut-off", module)
        assert status == 201 and record["sha256"] == sha
        # The same record again.
        assert call(f"{url}api/controllers?name=cut-off", module) == (201, record)
        status, again = call(f"{url}api/controllers?name=sent", other)
        assert status in (200, 201) and again["name"] == "sent"
        listed = [c["sha256"] for c in call(f"{url}api/controllers")[1]]
        assert listed.count(sha) == 1 and listed.count(again["sha256"]) == 1
        assert finished(url, match["id"])["status"] == "finished"
        assert [m["id"] for m in call(url + "api/matches")[1]] == [match["id"]]
        assert server.stop() == 0
    assert "Traceback" not in server.stderr


# =========================================================================== killed mid-push


@pytest.fixture
def local_run(tmp_path: Path) -> tuple[Path, int, bytes]:
    """A proof run of a small module on the default case, in a store of its own (another
    machine's): (its data directory, the run's id, the pushed module)."""
    root = tmp_path / "local"
    module = root / "my-bot.wasm"
    root.mkdir()
    module.write_bytes(controller(pages=5))
    with arena.Store.open(root) as store:
        run = proof_run(store, module, "my-bot", arena.default_case())
    return root, run.id, module.read_bytes()


def arena_push(local: Path, run_id: int, url: str) -> subprocess.Popen[str]:
    env = {**os.environ, "FORAY_DATA_DIR": str(local), "ARENA_TOKEN": SITE_TOKEN}
    return subprocess.Popen(
        [*ARENA, "push", str(run_id), "--server", url],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def test_the_server_killed_mid_push_and_while_checking_it_keeps_nothing_and_the_push_then_succeeds(
    tmp_path: Path, local_run: tuple[Path, int, bytes]
) -> None:
    local, run_id, module = local_run
    sha = hashlib.sha256(module).hexdigest()
    with arena.Store.open(local) as store:
        bundle = web.bundle_of(store, run_id)
    root = tmp_path / "data"

    # Killed while the bundle arrives.
    with _server(root) as server:
        server.serving()
        before = audit(root)
        with half_sent(server, "/api/runs", bundle.encode()):
            server.kill()
    assert audit(root) == before

    # Killed while it plays the run's matches again: `arena push` says so in one line.
    with _server(root) as server:
        url = server.serving()
        push = arena_push(local, run_id, url)

        def checking() -> bool:
            assert push.poll() is None, "the push ended before the server could be killed"
            return bool(call(url + "api/status")[1]["running"] > 0)

        try:
            wait_until("the push's matches to be played again", checking)
            server.kill()
            out, err = push.communicate(timeout=WAIT)
        finally:
            if push.poll() is None:
                push.kill()
                push.wait()
    assert push.returncode == 2, (out, err)
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err
    assert "connection was lost before the server answered" in err and "push again" in err
    held = audit(root)
    assert held == before  # no run, no controller, no module file, no replay of it
    assert not (root / "modules" / f"{sha}.wasm").exists()

    # Started again: the same push is checked and recorded, once.
    with _server(root) as server:
        url = server.serving()
        push = arena_push(local, run_id, url)
        out, err = push.communicate(timeout=WAIT)
        assert push.returncode == 0, err
        assert "checked and recorded, as run 1" in out
        push = arena_push(local, run_id, url)
        out, err = push.communicate(timeout=WAIT)
        assert push.returncode == 0 and "already there" in out, err
        runs = call(url + "api/runs")[1]
        assert [(r["run"], r["matches"]) for r in runs] == [(1, len(bundle.matches))]
        assert server.stop() == 0
    held = audit(root)
    assert held.runs == [(1, len(bundle.matches))]
    assert [c for c in held.controllers if c[0] == sha] == [(sha, "my-bot", "upload")]
    assert "Traceback" not in server.stderr


# =========================================================================== read-only, full


def serve_unprivileged(root: Path) -> tuple[int, str, str]:
    """``arena serve`` in a child process that is not root: (exit code, stdout, stderr).

    Root's CAP_DAC_OVERRIDE ignores permission bits, so the child drops to
    uid/gid 65534 (nobody) first. It is forked, not executed anew, with what
    the command imports imported before: the interpreter and its library may
    live where nobody can read them (a root-only home).
    """
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the child)
        code = 99
        try:
            os.dup2(out_w, 1)
            os.dup2(err_w, 2)
            sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115 (pytest captured the old)
            sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
            signal.alarm(int(WAIT))  # never outlive the test
            # What serve imports lazily, while the interpreter's files can still be read.
            importlib.import_module("web._serve_site")
            "127.0.0.1".encode("idna")  # getaddrinfo's codec
            if os.geteuid() == 0:
                os.setgroups([])
                os.setgid(65534)
                os.setuid(65534)
            os.environ.update(FORAY_DATA_DIR=str(root), ARENA_TOKEN=SITE_TOKEN)
            code = arena_main(["serve", "--port", "0", "--jobs", "1"])
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    os.close(out_w)
    os.close(err_w)
    with open(out_r, encoding="utf-8") as out, open(err_r, encoding="utf-8") as err:
        _, status = os.waitpid(pid, 0)  # the alarm bounds it
        return os.waitstatus_to_exitcode(status), out.read(), err.read()


@pytest.mark.parametrize("layout", ["a store", "an empty directory", "no directory"])
def test_arena_serve_on_a_read_only_data_directory_exits_2_with_one_line(
    shared_dir: Path, layout: str
) -> None:
    root = shared_dir / "data"
    if layout == "a store":
        arena.Store.open(root).close()
    elif layout == "an empty directory":
        root.mkdir()
    for path in (shared_dir, *shared_dir.rglob("*")):
        path.chmod(0o555 if path.is_dir() else 0o444)
    code, out, err = serve_unprivileged(root)
    assert code == 2, err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert str(root) in err and "Traceback" not in err
    assert "serving" not in out


def _full(limit: int) -> Callable[[], None]:
    """A preexec_fn that makes every file of the process stop growing at ``limit`` bytes.

    A full disk without privileges: the kernel refuses to write past
    RLIMIT_FSIZE (EFBIG; Python ignores SIGXFSZ), where a full disk would
    refuse (ENOSPC): in SQLite's files and in a replay or module file.
    """

    def limit_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))

    return limit_files


@pytest.mark.parametrize("fresh", [True, False], ids=["new", "existing"])
def test_arena_serve_on_a_full_data_directory_exits_2_with_one_line(
    tmp_path: Path, fresh: bool
) -> None:
    root = tmp_path / "data"
    if not fresh:
        arena.Store.open(root).close()
    full = bench.ServerProcess(root, token=SITE_TOKEN, preexec_fn=_full(1)).start()
    code = full.exited(WAIT)
    err = full.stderr.splitlines()
    assert code == 2, full.stderr
    assert len(err) == 1 and err[0].startswith("error: "), err
    assert str(root) in err[0]
    assert "full" in err[0] or "File too large" in err[0]
    if not fresh:
        assert audit(root).controllers == []  # nothing half-stored


def test_a_data_directory_that_fills_while_serving_refuses_writes_and_keeps_serving(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "data"
    hook = tmp_path / "hook"
    for name, value in worker_hook(hook, "hold-results").items():
        monkeypatch.setenv(name, value)
    module = controller(pages=6)
    quick = {"a": "random", "b": "fuel-probe"}
    with _server(root) as server:
        url = server.serving()
        status, match = post_json(url + "api/matches", quick)
        assert status == 202
        played = finished(url, match["id"])
        with urllib.request.urlopen(
            _with_token(url + played["replay"].lstrip("/")), timeout=WAIT
        ) as r:
            replay = r.read()
        before = audit(root)
        # Two matches accepted, the second waiting behind the first: the disk
        # fills before they finish (the worker holds the first's result until then).
        (hook / "hold").touch()
        accepted = [post_json(url + "api/matches", {**quick, "seed": s})[1]["id"] for s in (1, 2)]

        resource.prlimit(server.pid, resource.RLIMIT_FSIZE, (1, resource.RLIM_INFINITY))
        (hook / "hold").unlink()
        status, answer = call(f"{url}api/controllers?name=no-room", module)
        assert status == 503, answer
        # Said from the data directory: the site never tells a client where it is on disk.
        assert "cannot write the module file modules/" in answer["error"]
        assert str(root) not in answer["error"]
        status, answer = post_json(url + "api/matches", quick)
        assert status == 503 and str(root) not in answer["error"], answer
        assert "store" in answer["error"], answer
        wait_until(
            "the waiting match to be played and found no room",
            lambda: f"match {accepted[1]}: not recorded, it stays pending" in server.stderr,
        )
        # Reads go on.
        assert call(url + "api/status")[1]["queue"]["accepted"] == 0
        assert call(f"{url}api/matches/{accepted[1]}")[1]["status"] == "pending"
        with urllib.request.urlopen(
            _with_token(url + played["replay"].lstrip("/")), timeout=WAIT
        ) as r:
            assert r.read() == replay
        full = audit(root)  # nothing half-written
        assert full.controllers == before.controllers and full.runs == before.runs
        assert full.matches[-1] == before.matches[-1] and full.temporary == []

        resource.prlimit(server.pid, resource.RLIMIT_FSIZE, (-1, -1))
        status, record = call(f"{url}api/controllers?name=no-room", module)
        assert status == 201, record
        assert server.stop() == 0
    assert "Traceback" not in server.stderr

    # The matches that found no room are played when the server starts again.
    with _server(root) as server:
        url = server.serving()
        assert [finished(url, i)["status"] for i in accepted] == ["finished"] * 2
        assert server.stop() == 0
    assert "Traceback" not in server.stderr
    held = audit(root)
    assert [c for c in held.controllers if c[1] == "no-room"] == [
        (record["sha256"], "no-room", "upload")
    ]
    assert [m[0] for m in held.matches] == [*reversed(accepted), match["id"]]
    assert {m[1] for m in held.matches} == {"finished"}


# =========================================================================== workers that die


def tournament_over(url: str, tournament_id: int) -> dict[str, Any]:
    """Wait for a tournament to stop running; its JSON."""
    deadline = time.monotonic() + WAIT
    while True:
        tournament: dict[str, Any] = call(f"{url}api/tournaments/{tournament_id}")[1]
        if tournament["status"] != "running":
            return tournament
        assert time.monotonic() < deadline, f"tournament {tournament_id} is still running"
        time.sleep(0.05)


def test_a_worker_killed_mid_send_costs_the_server_only_that_attempt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real worker killed half-way through sending a result back, under a quick match and
    under a tournament started by the API: each match is played again, the quick match
    finishes (it does not stay running with its queue slot taken), the tournament too."""
    hook = tmp_path / "hook"
    for name, value in worker_hook(hook, "die-mid-send").items():
        monkeypatch.setenv(name, value)
    with _server(tmp_path / "data") as server:
        url = server.serving()
        status, match = post_json(url + "api/matches", {"a": "random", "b": "greedy-raider"})
        assert status == 202
        assert finished(url, match["id"])["status"] == "finished"
        assert (hook / "died").exists()
        assert call(url + "api/status")[1]["queue"]["accepted"] == 0

        (hook / "died").unlink()  # the next result sent dies half-way again
        body = {"format": "round-robin", "field": ["random", "border-soldier"]}
        status, tournament = post_json(url + "api/tournaments", body)
        assert status == 202
        over = tournament_over(url, tournament["id"])
        assert (hook / "died").exists()
        assert (over["status"], over["matches"], over["error"]) == ("finished", 2, None)
        assert all(row["errors"] == 0 for row in over["standings"])
        assert server.stop() == 0
    assert "Traceback" not in server.stderr


def test_a_server_whose_workers_cannot_start_fails_no_match_and_plays_it_once_they_can(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No worker process can start: a quick match is not failed for it (it stays pending, its
    queue slot given back), an upload's check answers 503 naming the reason; the server
    started again where workers start plays the match."""
    root = tmp_path / "data"
    with monkeypatch.context() as patch:
        for name, value in worker_hook(tmp_path / "hook", "cannot-start").items():
            patch.setenv(name, value)
        server = _server(root)
        with server:
            url = server.serving()
            status, match = post_json(url + "api/matches", {"a": "random", "b": "greedy-raider"})
            assert status == 202
            wait_until("the queue slot given back", lambda: _accepted(url) == 0)
            assert call(f"{url}api/matches/{match['id']}")[1]["status"] == "pending"
            status, refused = call(f"{url}api/controllers?name=late", controller(pages=2))
            assert status == 503 and "worker processes cannot start" in refused["error"]
            assert server.stop() == 0
    assert f"match {match['id']}: not played, it stays pending" in server.stderr
    assert "Traceback" not in server.stderr
    with _server(root) as server:
        url = server.serving()
        assert finished(url, match["id"])["status"] == "finished"
        assert server.stop() == 0


def _accepted(url: str) -> int:
    accepted: int = call(url + "api/status")[1]["queue"]["accepted"]
    return accepted


def test_a_restarted_server_plays_on_the_tournaments_it_started(tmp_path: Path) -> None:
    """``arena serve`` killed (SIGKILL) mid-tournament: started again, it plays on the
    tournament it started (what was recorded kept, each match once) until it finishes, as
    it queues its pending quick matches again. A tournament the command line left running
    is the command line's to resume: the server leaves it alone."""
    root = tmp_path / "data"
    body = {"format": "round-robin", "field": ["random", "border-soldier", "greedy-raider"]}
    with _server(root) as server:
        url = server.serving()
        with arena.Store.open(root) as store:  # the command line's, left running
            field = [arena.Entrant(c.name, c.sha256) for c in store.controllers()[:2]]
            theirs = arena.create_tournament(store, "round-robin", field).id
        status, tournament = post_json(url + "api/tournaments", {**body, "seeds": list(range(16))})
        assert status == 202
        tid = tournament["id"]
        wait_until(
            "a few matches recorded",
            lambda: call(f"{url}api/tournaments/{tid}")[1]["matches"] >= 3,
        )
        server.kill()
    before = call_store(root, tid)
    assert str(before.status) == "running"
    assert 3 <= before.matches < 96

    with _server(root) as server:
        url = server.serving()
        over = tournament_over(url, tid)
        assert (over["status"], over["matches"], over["planned"]) == ("finished", 96, 96)
        assert all(row["errors"] == 0 for row in over["standings"])
        assert call(f"{url}api/tournaments/{theirs}")[1]["status"] == "running"
        assert server.stop() == 0
    assert f"tournament {tid} was running: playing on" in server.stderr
    assert "Traceback" not in server.stderr
    with arena.Store.open(root) as store:
        keys = [m.pairing_key for m in store.tournament_matches(tid)]
        assert len(keys) == len(set(keys)) == 96
        assert store.tournament(theirs).matches == 0


def call_store(root: Path, tournament_id: int) -> arena.TournamentRecord:
    with arena.Store.open(root) as store:
        return store.tournament(tournament_id)


# =========================================================================== leftovers


def test_temporary_files_of_killed_writes_are_swept_when_the_server_starts(
    tmp_path: Path,
) -> None:
    root = tmp_path / "data"
    for kind in ("replays", "modules"):
        (root / kind / ".tmp").mkdir(parents=True)
    stale = root / "replays" / f".{'a' * 64}.replay.0123456789ab"
    fresh = root / "modules" / f".{'b' * 64}.wasm.ba9876543210"
    other = root / "replays" / ".something-else"
    killed = root / "replays" / ".tmp" / f".{'c' * 64}.replay.0123456789ab"
    for path in (stale, fresh, other, killed):
        path.write_bytes(b"half a file")
    long_ago = time.time() - 2 * STALE_TEMPORARY_SECONDS
    os.utime(stale, (long_ago, long_ago))
    os.utime(other, (long_ago, long_ago))
    with _server(root) as server:
        server.serving()
        assert server.stop() == 0  # at once: Ctrl-C while it starts is a clean stop too
    assert "Traceback" not in server.stderr
    # In .tmp/, one nobody holds locked is a killed write's, however young. Beside the files
    # (where earlier writes left them), only age tells: the stale one is gone, a young one
    # may be a write in flight elsewhere; others are not ours.
    assert not killed.exists() and not stale.exists() and fresh.exists() and other.exists()
    # ... and the server says so, in its log.
    for path in (killed, stale):
        assert f"deleted {path}: a temporary file of a write that never finished" in server.stderr


# =========================================================================== writers at once


def test_two_cli_processes_and_the_server_write_one_store_at_once_and_lose_nothing(
    tmp_path: Path,
) -> None:
    root = tmp_path / "data"
    env = {**os.environ, "FORAY_DATA_DIR": str(root)}
    short = "--seeds 2 --max-ticks 40 --jobs 1 --json"
    commands = [
        f"tournament --format round-robin {short} random border-soldier greedy-raider",
        f"tournament --format gauntlet {short} fuel-probe random greedy-raider",
    ]

    def run(args: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [*ARENA, *args.split()],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )

    with _server(root) as server:
        url = server.serving()
        cli = [run(args) for args in commands]
        single: list[subprocess.CompletedProcess[str]] = []

        def matches() -> None:
            # One `arena match` process after another, beside the two tournaments.
            for seed in range(3):
                args = f"match random border-soldier --seed {seed} --max-ticks 40 --json"
                single.append(
                    subprocess.run(
                        [*ARENA, *args.split()],
                        capture_output=True,
                        text=True,
                        env=env,
                        timeout=WAIT,
                        check=False,
                    )
                )

        matcher = threading.Thread(target=matches)
        matcher.start()
        uploads, quick = [], []
        for i in range(4):
            status, record = call(f"{url}api/controllers?name=up-{i}", controller(pages=10 + i))
            assert status == 201, record
            uploads.append(record["sha256"])
            status, match = post_json(
                url + "api/matches", {"a": "random", "b": "greedy-raider", "seed": i}
            )
            assert status == 202, match
            quick.append(match["id"])
        settled = [finished(url, i) for i in quick]
        matcher.join(WAIT)
        outputs = [p.communicate(timeout=WAIT) for p in cli]
        assert server.stop() == 0

    reports = [(p.returncode, *o) for p, o in zip(cli, outputs, strict=True)]
    reports += [(p.returncode, p.stdout, p.stderr) for p in single]
    reports.append((0, server.stdout, server.stderr))
    for code, out, err in reports:
        assert code == 0, err
        assert "locked" not in out + err and "Traceback" not in out + err, err
    assert [m["status"] for m in settled] == ["finished"] * len(quick)

    with arena.Store.open(root) as store:
        every = store.matches(limit=500)
        for _, out, _ in reports[:2]:
            t = json.loads(out)
            assert t["complete"] and t["matches"] == t["total"]
            recorded = store.tournament_matches(t["id"])
            assert len(recorded) == t["total"]
            assert len({m.pairing_key for m in recorded}) == t["total"]
        singles = [json.loads(p.stdout) for p in single]
        for m in singles:
            assert store.match(m["id"]).result.replay_sha256 == m["replay_sha256"]  # type: ignore[union-attr]
        stored = {c.sha256: c for c in store.controllers()}
        assert all(stored[sha].origin is arena.Origin.UPLOAD for sha in uploads)
        tournaments = sum(json.loads(o)["total"] for _, o, _ in reports[:2])
        # Each record once, none lost, none extra.
        assert len(every) == len({m.id for m in every}) == tournaments + len(singles) + len(quick)
        assert {m.status for m in every} == {arena.MatchStatus.FINISHED}
    audit(root)
