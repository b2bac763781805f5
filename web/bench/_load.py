"""The load on a real ``arena serve``: requests driven at it from client threads.

Both the load test (tests/test_load.py) and the site's figures (``arena bench
web``, and the server's line of ``arena bench``) use this module, with the
server in a process of its own (``web.bench._process``), so the test and the
benchmark drive the same load:

- ``drive`` sends a list of ``Request`` from a number of client threads of
  this process, each on one kept-alive connection, back to back, and keeps
  every ``Answer`` (status, latency, Retry-After, the body's sha256).
- ``mixed_requests`` builds the mixed load: replay streams, listings, uploads
  of modules and quick-match submissions, the first of them in a burst (to
  fill the match queue past its bound).
- ``seed_store`` records the match the streams read before the server starts,
  and ``wait_settled`` waits for the matches a load queued to be played.
"""

from __future__ import annotations

import enum
import hashlib
import http.client
import json
import queue
import random
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import arena
import replays

__all__ = [
    "LISTINGS",
    "LOAD_TOKEN",
    "Answer",
    "LoadRun",
    "Request",
    "RequestKind",
    "SeededMatch",
    "Timing",
    "drive",
    "get_json",
    "mixed_requests",
    "seed_store",
    "wait_settled",
]

BROWSER_ENCODINGS: Final = "gzip, deflate, br, zstd"
"""The ``Accept-Encoding`` a replay stream sends: Chromium's (the site answers zstd)."""
LOAD_TOKEN: Final = "load-test-token"
"""The token ``drive`` sends, and ``ServerProcess`` gives the server, unless told another."""


class RequestKind(enum.Enum):
    """What a request of the load does."""

    STREAM = "stream"
    """``GET /api/matches/{id}/replay``: a stored replay, streamed."""
    LIST_MATCHES = "list_matches"
    """``GET /api/matches?limit=50``."""
    LIST_RUNS = "list_runs"
    """``GET /api/runs``."""
    LIST_CONTROLLERS = "list_controllers"
    """``GET /api/controllers``."""
    UPLOAD = "upload"
    """``POST /api/controllers?name=``: a module, admitted in a worker."""
    QUICK_MATCH = "quick_match"
    """``POST /api/matches``: a quick match, queued (or 429)."""
    STATUS = "status"
    """``GET /api/status``: the queue and the workers."""
    TOURNAMENT = "tournament"
    """``POST /api/tournaments``: a tournament started (or 429)."""


LISTINGS: Final = (RequestKind.LIST_MATCHES, RequestKind.LIST_RUNS, RequestKind.LIST_CONTROLLERS)


@dataclass(frozen=True, slots=True)
class Request:
    """One request of a load."""

    kind: RequestKind
    method: str
    path: str
    body: bytes = b""
    content_type: str | None = None
    write: bool = False
    """Sent with the token."""

    @classmethod
    def stream(cls, match_id: int) -> Request:
        """The replay of match ``match_id``."""
        return cls(RequestKind.STREAM, "GET", f"/api/matches/{match_id}/replay")

    @classmethod
    def listing(cls, kind: RequestKind) -> Request:
        """A listing: ``kind`` is one of ``LISTINGS``."""
        paths = {
            RequestKind.LIST_MATCHES: "/api/matches?limit=50",
            RequestKind.LIST_RUNS: "/api/runs",
            RequestKind.LIST_CONTROLLERS: "/api/controllers",
        }
        return cls(kind, "GET", paths[kind])

    @classmethod
    def tournament(cls, format: str, field: Sequence[str], seeds: Sequence[int]) -> Request:
        """Start a tournament of ``format`` over the stored controllers ``field``."""
        body = json.dumps({"format": format, "field": list(field), "seeds": list(seeds)})
        return cls(
            RequestKind.TOURNAMENT,
            "POST",
            "/api/tournaments",
            body.encode(),
            "application/json",
            write=True,
        )

    @classmethod
    def status(cls) -> Request:
        """The server's status (the cheapest route)."""
        return cls(RequestKind.STATUS, "GET", "/api/status")

    @classmethod
    def upload(cls, name: str, module: bytes) -> Request:
        """Upload ``module`` under ``name``."""
        path = "/api/controllers?" + urllib.parse.urlencode({"name": name})
        return cls(RequestKind.UPLOAD, "POST", path, module, "application/wasm", write=True)

    @classmethod
    def quick_match(cls, a: str, b: str, seed: int) -> Request:
        """A quick match between the stored controllers ``a`` and ``b``."""
        body = json.dumps({"a": a, "b": b, "seed": seed}).encode()
        return cls(
            RequestKind.QUICK_MATCH, "POST", "/api/matches", body, "application/json", write=True
        )


@dataclass(frozen=True, slots=True)
class Answer:
    """What the server answered to one request."""

    request: Request
    status: int
    latency_ms: float
    """From sending the request to the last byte of the answer read."""
    retry_after: str | None
    size: int
    """The body's length in bytes (a zstd-coded body's once decompressed: the replay's)."""
    sha256: str
    """The body's sha256, likewise (a stream's body is not kept)."""
    body: bytes
    """The body, except a stream's (empty then)."""

    def json(self) -> Any:
        """The body as JSON."""
        return json.loads(self.body)


@dataclass(frozen=True, slots=True)
class Timing:
    """Requests of one kind in a run: how many, how fast, how long each took."""

    requests: int
    per_s: float
    """Requests of this kind answered per second of the run's wall time."""
    p50_ms: float
    p99_ms: float


def _percentile(sorted_ms: Sequence[float], q: float) -> float:
    """The nearest-rank percentile ``q`` (0..1) of sorted values."""
    return sorted_ms[min(len(sorted_ms) - 1, max(0, round(q * len(sorted_ms)) - 1))]


@dataclass(frozen=True, slots=True)
class LoadRun:
    """Every answer of one ``drive``, and its wall time."""

    answers: list[Answer]
    seconds: float

    def of(self, *kinds: RequestKind) -> list[Answer]:
        """The answers to requests of ``kinds``."""
        return [a for a in self.answers if a.request.kind in kinds]

    def timing(self, *kinds: RequestKind) -> Timing:
        """Rate and latency of the requests of ``kinds`` (the rate over the whole run)."""
        ms = sorted(a.latency_ms for a in self.of(*kinds))
        if not ms:
            raise ValueError(f"no requests of {[k.value for k in kinds]} in this run")
        return Timing(len(ms), len(ms) / self.seconds, _percentile(ms, 0.5), _percentile(ms, 0.99))


class _Client:
    """One kept-alive connection, opened again when the server closes it."""

    def __init__(self, host: str, port: int, token: str, timeout: float) -> None:
        self._host, self._port, self._timeout = host, port, timeout
        self._token = token
        self._conn: http.client.HTTPConnection | None = None

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def send(self, request: Request) -> Answer:
        headers = {}
        if request.content_type is not None:
            headers["Content-Type"] = request.content_type
        if request.write:
            headers["Authorization"] = f"Bearer {self._token}"
        if request.kind is RequestKind.STREAM:
            headers["Accept-Encoding"] = BROWSER_ENCODINGS  # as a browser asks for a replay
        for attempt in (0, 1):
            fresh = self._conn is None
            if self._conn is None:
                self._conn = http.client.HTTPConnection(
                    self._host, self._port, timeout=self._timeout
                )
            t0 = time.perf_counter()
            try:
                self._conn.request(request.method, request.path, request.body or None, headers)
                response = self._conn.getresponse()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                # The server closed a kept-alive connection before reading this request
                # (it had closed it after the previous answer): send it once more.
                self.close()
                if fresh or attempt:
                    raise
                continue
            body = response.read()
            latency = (time.perf_counter() - t0) * 1000
            if response.getheader("Content-Encoding") == "zstd":
                body = replays.decompress_replay(body)  # the replay's own bytes, as hashed
            if response.will_close:
                self.close()
            return Answer(
                request,
                response.status,
                latency,
                response.getheader("Retry-After"),
                len(body),
                hashlib.sha256(body).hexdigest(),
                b"" if request.kind is RequestKind.STREAM else body,
            )
        raise AssertionError("unreachable")


def drive(
    url: str,
    requests: Sequence[Request],
    *,
    clients: int = 8,
    token: str = LOAD_TOKEN,
    timeout: float = 30.0,
    fresh: bool = False,
) -> LoadRun:
    """Send ``requests`` to the server at ``url`` from ``clients`` threads, back to back.

    Each thread keeps one connection (``fresh``: opens one for each request)
    and takes the next request in order as it is free, so the first
    ``clients`` requests go out at once. Returns every answer (in the order
    they were answered). A request that gets no answer (the connection fails,
    ``timeout`` passes) raises.
    """
    parts = urllib.parse.urlsplit(url)
    todo: queue.SimpleQueue[Request] = queue.SimpleQueue()
    for request in requests:
        todo.put(request)
    answers: list[Answer] = []
    failures: list[BaseException] = []
    lock = threading.Lock()

    def client() -> None:
        conn = _Client(parts.hostname or "127.0.0.1", parts.port or 80, token, timeout)
        try:
            while not failures:
                try:
                    request = todo.get_nowait()
                except queue.Empty:
                    return
                answer = conn.send(request)
                if fresh:
                    conn.close()
                with lock:
                    answers.append(answer)
        except BaseException as exc:  # reported to the caller below
            failures.append(exc)
        finally:
            conn.close()

    threads = [threading.Thread(target=client, name=f"load-{i}") for i in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seconds = time.perf_counter() - t0
    if failures:
        raise RuntimeError(f"a request to {url} got no answer: {failures[0]!r}") from failures[0]
    return LoadRun(answers, seconds)


def mixed_requests(
    streams: Sequence[int],
    *,
    stream_count: int,
    listings: int,
    uploads: Sequence[tuple[str, bytes]] = (),
    matches: Sequence[tuple[str, str, int]] = (),
    burst: int = 0,
    seed: int = 0,
) -> list[Request]:
    """A mixed load, in a fixed pseudo-random order (``seed``).

    ``stream_count`` streams of the matches ``streams`` (in turn), ``listings``
    listings (matches, runs and controllers in turn), the ``uploads`` (name,
    module) and the quick ``matches`` (a, b, seed). The first ``burst``
    matches come first, one after another (more than the queue holds gets
    429s); the rest of the writes are spread through the reads.
    """
    reads = [Request.stream(streams[i % len(streams)]) for i in range(stream_count)]
    reads += [Request.listing(LISTINGS[i % len(LISTINGS)]) for i in range(listings)]
    writes = [Request.quick_match(a, b, s) for a, b, s in matches[burst:]]
    writes += [Request.upload(name, blob) for name, blob in uploads]
    mixed = reads + writes
    random.Random(seed).shuffle(mixed)
    return [Request.quick_match(a, b, s) for a, b, s in matches[:burst]] + mixed


def get_json(
    url: str, timeout: float = 30.0, *, token: str | None = None, method: str = "GET"
) -> Any:
    """GET ``url`` (on its own connection; with ``token``, as the console) and read its JSON."""
    request = urllib.request.Request(url, method=method)
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.load(response)


def wait_settled(
    url: str, ids: Sequence[int], timeout: float = 60.0, *, token: str | None = None
) -> list[dict[str, Any]]:
    """Poll the matches ``ids`` of the server at ``url`` until none is pending; their JSON
    (``token``: a console token, for quick matches not published).

    Raises ``TimeoutError`` if one is still pending after ``timeout`` seconds in all.
    """
    deadline = time.monotonic() + timeout
    settled = []
    for match_id in ids:
        while (match := get_json(f"{url}api/matches/{match_id}", token=token))[
            "status"
        ] == "pending":
            if time.monotonic() > deadline:
                raise TimeoutError(f"match {match_id} still pending after {timeout:.0f} s")
            time.sleep(0.05)
        settled.append(match)
    return settled


@dataclass(frozen=True, slots=True)
class SeededMatch:
    """A match recorded in a data directory before its server starts (what streams read)."""

    id: int
    replay_sha256: str
    replay_bytes: int
    ticks: int


def seed_store(root: Path, seed: int = 1) -> SeededMatch:
    """Record one 400-tick match (random against border-soldier, ``seed``) in the store at
    ``root``, with its two controllers, for the load's streams to read: published, so
    that the streams are a reader's, without a token."""
    a, b = "random", "border-soldier"
    result = arena.play(
        arena.MatchJob(
            arena.Contestant(a, arena.load_baseline(a)),
            arena.Contestant(b, arena.load_baseline(b)),
            seed=seed,
        )
    )
    with arena.Store.open(root) as store:
        for name in (a, b):
            store.add_controller(arena.load_baseline(name), name=name, origin=arena.Origin.BASELINE)
        match = store.record_match(result)
        store.publish_match(match.id)
    return SeededMatch(match.id, result.replay_sha256, len(result.replay), result.ticks)
