"""``arena bench web-endpoints``: the server's CPU per request of two routes, beside their floors.

The site serves a store holding one match: border-soldier against itself on a
64x64 map for 2,000 ticks (seed 1; its sizes are printed, and in
docs/benchmarks.md). The server runs in a process of its own (``python -m
web.bench._endpoints ROOT``): the site's app, the same uvicorn configuration
as the tests' servers (warnings only), and three extra routes that give the
floors:

- ``/bench/stored`` and ``/bench/raw``: routes of the same app answering the
  replay's stored (zstd) bytes, or its own bytes, from memory, with the same
  headers: what the replay route costs at least, once the app has its bytes;
- ``/bench/bare``: a bare ASGI app in front of the site, answering the match's
  JSON from memory without Starlette: what any answer of the server costs;
- ``/bench/cpu``: the server process's CPU time (``time.process_time_ns``).

One client thread of this process sends each kind of request back to back on
a kept-alive connection, the kinds in turns, several rounds; a kind's figure
is its least CPU per request over the rounds (the server's process: every
thread, the thread pool's included).

With ``before`` (``arena bench web-endpoints --before DIR``, an earlier
checkout), that tree's server serves the same store beside this one's, started
the same way from its own code, and every kind is asked of both in turns, so
before, after and each one's floors come from the same minutes.
"""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final

__all__ = ["endpoint_figures"]

_TOKEN: Final = "endpoint-bench-token"
ACCEPT_BROWSER: Final = "gzip, deflate, br, zstd"
"""What Chromium sends (156, over http:// on loopback)."""


def _seed(root: Path) -> tuple[int, int, int]:
    """Record the 64x64, 2,000-tick match and publish it; its id, its replay's size and its
    file's size."""
    import arena
    import sim

    name = "border-soldier"
    blob = arena.load_baseline(name)
    result = arena.play(
        arena.MatchJob(
            arena.Contestant(name, blob),
            arena.Contestant(name, blob),
            seed=1,
            config=sim.Config(width=64, height=64, max_ticks=2000),
        )
    )
    with arena.Store.open(root) as store:
        store.add_controller(blob, name=name, origin=arena.Origin.BASELINE)
        match = store.record_match(result)
        store.publish_match(match.id)  # the public side serves it, as to a visitor
        stored = store.replay_path(result.replay_sha256).stat().st_size
    return match.id, len(result.replay), stored


def _serve(root: Path, match_id: int) -> None:
    """The child: the site over ``root`` with the floors' routes, until killed."""
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route
    from starlette.types import Receive, Scope, Send

    import web
    from web._uvicorn import LOOPBACK, bind, quiet_server, url_of

    with web.Site.open(root) as site:
        app = web.site_app(site, _TOKEN)
        record = site.store.match(match_id)
        assert record.result is not None
        stored = site.store.replay_path(record.result.replay_sha256).read_bytes()
        raw = site.store.read_replay_bytes(record.result.replay_sha256)
        match_json = json.dumps(site.match_json(match_id)).encode()
        replay_headers = {
            "Cache-Control": "no-cache",
            "X-Content-Type-Options": "nosniff",
            "Vary": "Accept-Encoding",
            "ETag": f'"{record.result.replay_sha256}"',
        }

        async def stored_bytes(request: Request) -> Response:
            headers = {**replay_headers, "Content-Encoding": "zstd"}
            return Response(stored, media_type="application/x-msgpack", headers=headers)

        async def raw_bytes(request: Request) -> Response:
            return Response(raw, media_type="application/x-msgpack", headers=replay_headers)

        app.router.routes[0:0] = [
            Route("/bench/stored", stored_bytes),
            Route("/bench/raw", raw_bytes),
        ]
        bare_headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(match_json)).encode()),
            (b"cache-control", b"no-store"),
            (b"x-content-type-options", b"nosniff"),
        ]

        async def front(scope: Scope, receive: Receive, send: Send) -> None:
            path = scope.get("path")
            if path == "/bench/bare":
                await send({"type": "http.response.start", "status": 200, "headers": bare_headers})
                await send({"type": "http.response.body", "body": match_json})
            elif path == "/bench/cpu":
                body = str(time.process_time_ns()).encode()
                await send(
                    {
                        "type": "http.response.start",
                        "status": 200,
                        "headers": [(b"content-length", str(len(body)).encode())],
                    }
                )
                await send({"type": "http.response.body", "body": body})
            else:
                await app(scope, receive, send)

        sock = bind(LOOPBACK, 0)
        print(url_of(sock), flush=True)
        quiet_server(front).run(sockets=[sock])


class _Client:
    def __init__(self, port: int) -> None:
        self._conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def get(self, path: str, headers: dict[str, str]) -> bytes:
        try:
            self._conn.request("GET", path, headers=headers)
            response = self._conn.getresponse()
        except (http.client.RemoteDisconnected, ConnectionResetError):
            # The server let an idle kept-alive connection go: once more, on a new one.
            self._conn.close()
            self._conn.request("GET", path, headers=headers)
            response = self._conn.getresponse()
        body = response.read()
        if response.status != 200:
            raise RuntimeError(f"GET {path}: {response.status} {body[:200]!r}")
        return body

    def cpu_ns(self) -> int:
        return int(self.get("/bench/cpu", {}))


def endpoint_figures(repeat: int, before: Path | None = None) -> dict[str, float]:
    """Print each route's CPU per request beside its floor (with ``before``, that tree's too,
    in turns); return them (ms, by label: before's prefixed ``before: ``)."""
    rounds = max(3, 2 * repeat)
    trees = {"": Path(_tree())}
    if before is not None:
        trees = {"before: ": before.resolve(), "": trees[""]}
    with tempfile.TemporaryDirectory(prefix="foray-bench-endpoints-") as tmp:
        root = Path(tmp)
        match_id, replay_bytes, stored_bytes = _seed(root)
        procs: list[subprocess.Popen[str]] = []
        try:
            clients = {}
            for label, tree in trees.items():
                env = {**os.environ, "FORAY_DATA_DIR": str(root), "PYTHONPATH": str(tree)}
                proc = subprocess.Popen(
                    [sys.executable, "-m", "web.bench._endpoints", str(root), str(match_id)],
                    stdout=subprocess.PIPE,
                    text=True,
                    env=env,
                    cwd=tree,
                )
                procs.append(proc)
                assert proc.stdout is not None
                url = proc.stdout.readline().strip()
                if not url:
                    raise RuntimeError(f"the benchmark's server of {tree} did not start")
                clients[label] = _Client(int(url.rstrip("/").rsplit(":", 1)[1]))
            return _measure(clients, match_id, replay_bytes, stored_bytes, rounds)
        finally:
            for proc in procs:
                proc.terminate()
                proc.wait(timeout=30)


def _tree() -> str:
    """The project's root, for the child's imports (as this process has them)."""
    import web

    return str(Path(web.__file__).resolve().parent.parent)


def _measure(
    clients: dict[str, _Client],
    match_id: int,
    replay_bytes: int,
    stored_bytes: int,
    rounds: int,
) -> dict[str, float]:
    replay = f"/api/matches/{match_id}/replay"
    zstd = {"Accept-Encoding": ACCEPT_BROWSER}
    plain = {"Accept-Encoding": "identity"}
    kinds: dict[str, tuple[Callable[[_Client], bytes], int]] = {
        "replay, zstd": (lambda c: c.get(replay, zstd), 2000),
        "floor: the stored bytes from memory": (lambda c: c.get("/bench/stored", zstd), 2000),
        "replay, identity": (lambda c: c.get(replay, plain), 1000),
        "floor: the raw bytes from memory": (lambda c: c.get("/bench/raw", plain), 1000),
        "match": (lambda c: c.get(f"/api/matches/{match_id}", {}), 4000),
        "floor: a bare ASGI app, the same JSON": (lambda c: c.get("/bench/bare", {}), 4000),
    }
    sizes: dict[str, int] = {}
    for tree, client in clients.items():
        for label, (call, _) in kinds.items():  # warm every route
            body = call(client)
            sizes.setdefault(label, len(body))
            if len(body) != sizes[label]:
                raise RuntimeError(f"{tree}{label}: {len(body)} bytes, not {sizes[label]}")
    best: dict[str, float] = {}
    for _ in range(rounds):
        for label, (call, n) in kinds.items():
            for tree, client in clients.items():
                start = client.cpu_ns()
                for _ in range(n):
                    call(client)
                ms = (client.cpu_ns() - start) / n / 1e6
                best[tree + label] = min(best.get(tree + label, ms), ms)
    print(
        "server CPU per request (its process, every thread), least over"
        f" {rounds} rounds; a 64x64 2,000-tick replay of {replay_bytes:,} bytes,"
        f" {stored_bytes:,} stored:"
    )
    pairs = [
        ("GET /api/matches/{id}/replay, Accept-Encoding zstd", "replay, zstd", 1),
        ("GET /api/matches/{id}/replay, identity", "replay, identity", 3),
        ("GET /api/matches/{id}", "match", 5),
    ]
    labels = list(kinds)
    for title, label, floor_at in pairs:
        floor = labels[floor_at]
        print(f"  {title} ({sizes[label]:,} bytes); {floor}")
        for tree in clients:
            ours, base = best[tree + label], best[tree + floor]
            name = tree.rstrip(": ") or "now"
            print(f"    {name:<7} {ours:6.3f} ms   floor {base:6.3f} ms   ratio {ours / base:.2f}x")
    return best


def _main(argv: list[str]) -> None:
    _serve(Path(argv[0]), int(argv[1]))


if __name__ == "__main__":
    _main(sys.argv[1:])
