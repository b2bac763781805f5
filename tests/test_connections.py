"""The server's connections under hostile clients (issue 24): slow headers, too many connections,
the log of what was refused.

Real servers on 127.0.0.1 (uvicorn in a thread over a plain app, and ``arena
serve`` as a process), real sockets that never finish their request's headers
(``web.bench.SlowClients``, from several loopback addresses). What these
check is that honest requests are answered at all and that the slow ones are
let go; how fast the honest ones are answered meanwhile is a figure of
``arena bench web`` (docs/benchmarks.md), not a test's.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import resource
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.routing import Route, WebSocketRoute
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket
from uvicorn.server import ServerState
from websockets.sync.client import connect as ws_connect

import web
from web import bench
from web._connections import guarded_protocol, quiet_accept_errors
from web._uvicorn import LOOPBACK, bind, server_config

pytestmark = [pytest.mark.server]


def _status(request: Request) -> JSONResponse:
    return JSONResponse({"ok": True})


def _client(request: Request) -> JSONResponse:
    return JSONResponse({"host": request.client.host if request.client else None})


async def _slow(request: Request) -> StreamingResponse:
    async def body() -> AsyncIterator[bytes]:
        yield b"a"
        await asyncio.sleep(30)
        yield b"b"

    return StreamingResponse(body())


async def _echo(ws: WebSocket) -> None:
    await ws.accept()
    while True:
        await ws.send_text(await ws.receive_text())


APP = Starlette(
    routes=[
        Route("/api/status", _status),
        Route("/api/slow", _slow),
        Route("/api/client", _client),
        WebSocketRoute("/echo", _echo),
    ]
)


def answered(url: str, n: int = 10) -> int:
    """How many of ``n`` requests, each on a connection of its own, got their answer."""
    ok = 0
    for _ in range(n):
        with urllib.request.urlopen(url + "api/status", timeout=10) as r:
            ok += r.status == 200 and r.read() == b'{"ok":true}'
    return ok


def open_now(slow: bench.SlowClients) -> int:
    """How many of ``slow``'s connections the server still holds (a closed one reads EOF)."""
    time.sleep(0.3)  # its thread notices the closed ones within a select period
    return slow.held


@pytest.fixture
def server() -> Iterator[bench.BackgroundServer]:
    limits = web.ConnectionLimits(max_connections=200, waiting_per_client=8, header_timeout=1.5)
    with bench.BackgroundServer(APP, limits) as served:
        yield served


def test_headers_that_never_end_are_let_go_and_honest_requests_answered(
    server: bench.BackgroundServer,
) -> None:
    # 64 slow connections from 8 addresses: under each address's bound and the server's.
    with bench.SlowClients(server.port, 64, sources=8, trickle=0.2) as slow:
        time.sleep(0.3)
        assert open_now(slow) == 64, "the slow connections were not held to begin with"
        assert answered(server.url) == 10
        # A byte every 0.2 s does not move the deadline: all are closed after 1.5 s.
        deadline = time.monotonic() + 10
        while slow.reopened < 64:
            assert time.monotonic() < deadline, f"{slow.reopened} of 64 closed after 10 s"
            time.sleep(0.1)
        assert answered(server.url) == 10


def test_one_address_keeps_at_most_its_share_waiting_and_still_gets_answers(
    server: bench.BackgroundServer,
) -> None:
    with bench.SlowClients(server.port, 40, sources=1, trickle=5.0) as slow:
        assert open_now(slow) <= 8
        # An honest client on the very same address is served: it sends its headers at once.
        assert answered(server.url) == 10


def test_past_the_most_connections_the_oldest_waiting_make_room() -> None:
    limits = web.ConnectionLimits(max_connections=64, waiting_per_client=64, header_timeout=30)
    with (
        bench.BackgroundServer(APP, limits) as server,
        bench.SlowClients(server.port, 64, sources=4, trickle=30) as slow,
    ):
        time.sleep(0.3)
        assert answered(server.url) == 10
        assert open_now(slow) <= 64 - 1


def test_a_kept_alive_connection_gets_the_deadline_again_after_each_answer(
    server: bench.BackgroundServer,
) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert sock.recv(65536).startswith(b"HTTP/1.1 200 ")
        sock.sendall(b"GET /api/status HTTP/1.1\r\n")  # then a byte at a time, never the end
        sock.settimeout(0.1)
        began = time.monotonic()
        closed = False
        while not closed and time.monotonic() - began < 10:
            try:
                sock.sendall(b"x")
                closed = sock.recv(65536) == b""
            except TimeoutError:
                continue
            except OSError:
                closed = True
        elapsed = time.monotonic() - began
    assert elapsed < 5, f"the connection was held {elapsed:.1f} s"


def test_headers_past_their_bound_are_refused_with_431(
    server: bench.BackgroundServer, caplog: pytest.LogCaptureFixture
) -> None:
    big = b"GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + b"a" * 8192
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(big)
        sock.sendall(b"a" * 8192)  # 16 KiB and more, and still no end of the headers
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 431 ")
    assert answer.endswith(b"request header fields too large")
    # Headers just under the bound are a request like any other.
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(big + b"\r\n\r\n")
        assert sock.recv(65536).startswith(b"HTTP/1.1 200 ")
    assert any("headers were too large" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("pad", [20_000, 200_000])
def test_headers_past_their_bound_in_one_send_are_refused_with_431(
    server: bench.BackgroundServer, caplog: pytest.LogCaptureFixture, pad: int
) -> None:
    """Headers whole in the read that brought them (one send: 20,000 bytes is one read on
    loopback) are bounded as those trickling in are; they were answered 200."""
    big = b"GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + b"a" * pad + b"\r\n\r\n"
    answer = b""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(big)
        # 200,000 bytes may come in several reads, refused before their end: a client still
        # sending may get a reset instead of the 431 (the log says which bound it was).
        with contextlib.suppress(ConnectionResetError):
            while chunk := sock.recv(65536):
                answer += chunk
    assert not answer.startswith(b"HTTP/1.1 200 "), answer[:60]
    assert answer.startswith(b"HTTP/1.1 431 ") or pad > 20_000, answer[:60]
    assert answer == b"" or answer.endswith(b"request header fields too large")
    assert any("headers were too large" in r.getMessage() for r in caplog.records)


def _fed(app: ASGIApp, request: bytes) -> tuple[Any, _Recorded]:
    """uvicorn's guarded protocol over ``app``, on a recording transport, fed ``request`` in one
    ``data_received``: the protocol and its transport."""
    config = uvicorn.Config(app, lifespan="off", log_level="warning", proxy_headers=False)
    config.load()
    protocol_type = guarded_protocol(web.ConnectionLimits())
    protocol = protocol_type(config=config, server_state=ServerState(), app_state={})
    transport = _Recorded()
    protocol.connection_made(transport)
    protocol.data_received(request)
    return protocol, transport


async def _answer_to_one_read(request: bytes) -> tuple[bytes, bool, bool]:
    """What uvicorn's guarded protocol writes for ``request`` read in one ``data_received``,
    whether it closed the connection, and whether the app was called."""
    called = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        called.append(scope["path"])
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    protocol, transport = _fed(app, request)
    while protocol.cycle is not None and not protocol.cycle.response_complete:
        await asyncio.sleep(0)
    await asyncio.sleep(0)
    protocol.connection_lost(None)
    return b"".join(transport.writes), transport.closed, bool(called)


@pytest.mark.parametrize(
    ("head", "body", "refused"),
    [
        (b"X-Pad: " + b"a" * 16_500 + b"\r\n", b"", True),  # just past the bound
        (b"X-Pad: " + b"a" * 200_000 + b"\r\n", b"", True),
        (b"X-A: " + b"a" * 8_000 + b"\r\nX-B: " + b"b" * 8_400 + b"\r\n", b"", True),
        (b"X-Pad: " + b"a" * 16_000 + b"\r\n", b"", False),  # just under it
        # A long body in the same read as short headers is no part of them.
        (b"Content-Length: 200000\r\n", b"x" * 200_000, False),
    ],
)
def test_headers_whole_in_one_read_are_bounded_by_their_parsed_size(
    head: bytes, body: bytes, refused: bool
) -> None:
    request = b"POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\n" + head + b"\r\n" + body
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        written, closed, called = pool.submit(asyncio.run, _answer_to_one_read(request)).result()
    if refused:
        assert written.startswith(b"HTTP/1.1 431 ") and closed and not called, written[:60]
    else:
        assert written.startswith(b"HTTP/1.1 200 ") and called, written[:60]


def test_headers_pipelined_behind_an_answer_are_bounded_too(
    server: bench.BackgroundServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A request sent behind one still being answered (a stream) has no header deadline of
    its own; its headers are still bounded: the connection is closed, not left to grow."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"GET /api/slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert b"200" in sock.recv(65536)  # the stream has begun; its end is 30 s away
        sock.sendall(b"GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: ")
        began = time.monotonic()
        with contextlib.suppress(ConnectionError):
            for _ in range(64):  # 64 KiB, and still no end of the headers
                sock.sendall(b"a" * 1024)
                time.sleep(0.005)
            while sock.recv(65536):
                pass
    assert time.monotonic() - began < 10, "the connection was held until the stream ended"
    # Its 431 is written as the connection closes; a client still sending may get a reset
    # instead: the log says which bound it was.
    assert any("headers were too large" in r.getMessage() for r in caplog.records)


def test_a_websocket_outlives_the_header_deadline(server: bench.BackgroundServer) -> None:
    """Upgraded, the connection is the WebSocket's: no deadline of a request's headers."""
    with ws_connect(f"ws://127.0.0.1:{server.port}/echo", open_timeout=10) as ws:
        time.sleep(2.5)  # the server's header deadline is 1.5 s
        ws.send("still here")
        assert ws.recv(timeout=10) == "still here"
    assert answered(server.url) == 10


@pytest.mark.processes
def test_arena_serve_short_of_file_descriptors_keeps_answering_and_logs_little(
    tmp_path: Path,
) -> None:
    """With few file descriptors (hard limit 300), 400 slow connections: the server bounds its
    connections below what it has, so no accept() fails; honest requests are answered; the
    log says so in a few lines, with no traceback."""

    def few_files() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (300, 300))

    with bench.ServerProcess(
        tmp_path, jobs=1, options=["--header-timeout", "3"], preexec_fn=few_files
    ) as served:
        port = served.port
        with bench.SlowClients(port, 400, sources=40, trickle=0.5):
            time.sleep(2)
            for _ in range(10):
                with urllib.request.urlopen(served.url + "api/status", timeout=10) as r:
                    assert r.status == 200
        code = served.stop()
    assert code == 0
    err = served.stderr
    assert "Traceback" not in err
    assert "out of system resource" not in err
    refusals = [line for line in err.splitlines() if "connection" in line and "WARNING" in line]
    assert 0 < len(refusals) <= 12, refusals


def test_a_failed_accept_is_one_line_a_while_without_its_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    quiet_accept_errors()
    loop = asyncio.new_event_loop()
    try:
        with caplog.at_level(logging.ERROR, logger="asyncio"):
            for _ in range(1000):
                loop.call_exception_handler(
                    {
                        "message": "socket.accept() out of system resource",
                        "exception": OSError(24, "Too many open files"),
                    }
                )
    finally:
        loop.close()
    lines = [r for r in caplog.records if "accept()" in r.getMessage()]
    assert len(lines) == 1
    assert lines[0].exc_info is None and "Too many open files" in lines[0].getMessage()


class _Recorded(asyncio.Transport):
    """A connection's transport that keeps each write apart: what the protocol asks of the
    socket, one system call per write."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.writes.append(bytes(data))

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_extra_info(self, name: str, default: object = None) -> object:
        return {"peername": ("127.0.0.1", 40000), "sockname": ("127.0.0.1", 8000)}.get(
            name, default
        )

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


async def _writes_of(
    request: bytes, body: bytes, headers: list[tuple[bytes, bytes]]
) -> list[bytes]:
    """The writes of uvicorn's guarded protocol answering ``request`` with ``body``."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    protocol, transport = _fed(app, request)
    while not protocol.cycle.response_complete:
        await asyncio.sleep(0)
    protocol.connection_lost(None)
    return transport.writes


@pytest.mark.parametrize(
    ("method", "size", "length", "writes"),
    [
        ("GET", 900, True, 1),  # a small answer of known length: its head goes with its body
        ("GET", 128 * 1024, True, 2),  # a long one: not copied to join its head
        ("GET", 900, False, 2),  # chunked (a stream): its head at once
        ("HEAD", 900, True, 1),  # no body: its head alone, at once
    ],
)
def test_an_answers_head_goes_with_its_body_in_one_write_when_its_length_is_known(
    method: str, size: int, length: bool, writes: int
) -> None:
    body = b"x" * size
    headers = [(b"content-length", str(size).encode())] if length else []
    request = f"{method} / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    # In a thread of its own: a browser's sync Playwright, left by another file's tests in
    # this process, keeps an event loop running in this one.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        sent = pool.submit(asyncio.run, _writes_of(request, body, headers)).result()
    assert len(sent) == writes, [w[:40] for w in sent]
    whole = b"".join(sent)
    assert whole.startswith(b"HTTP/1.1 200 OK\r\n")
    chunked = b"%x\r\n" % size + body + b"\r\n0\r\n\r\n"
    assert whole.partition(b"\r\n\r\n")[2] == (
        b"" if method == "HEAD" else body if length else chunked
    )


def test_each_waiting_connection_is_let_go_at_its_own_deadline() -> None:
    """One timer serves every connection's header deadline: a connection opened later is not
    closed at an earlier one's deadline, and is closed at its own."""
    limits = web.ConnectionLimits(max_connections=64, waiting_per_client=8, header_timeout=2.0)
    with bench.BackgroundServer(APP, limits) as server:
        first = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        time.sleep(1.2)
        second = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        with first, second:
            first.settimeout(5)
            began = time.monotonic()
            assert first.recv(1) == b""  # closed at its deadline, 0.8 s from now
            second.settimeout(0.4)  # the second's is 1.2 s later
            with pytest.raises(TimeoutError):
                second.recv(1)
            second.settimeout(10)
            assert second.recv(1) == b""
            assert time.monotonic() - began < 8


def test_the_client_is_the_address_that_connected_whatever_a_header_claims(
    server: bench.BackgroundServer,
) -> None:
    """Not uvicorn's default, which takes X-Forwarded-For from 127.0.0.1: the per-address
    bounds would then count a header's word, and any local process could choose it."""
    request = urllib.request.Request(
        server.url + "api/client", headers={"X-Forwarded-For": "203.0.113.9"}
    )
    with urllib.request.urlopen(request, timeout=10) as r:
        assert r.read() == b'{"host":"127.0.0.1"}'


def test_a_server_run_again_on_its_configuration_keeps_its_header_deadline() -> None:
    """The deadline's timer belongs to a run's loop: a second run of the same configuration
    (the same bounds, the same count of connections) sets its own, not waiting on the
    first run's, which its closed loop never fires."""
    limits = web.ConnectionLimits(max_connections=64, waiting_per_client=8, header_timeout=1.0)
    config = server_config(APP, limits, log_level="warning")
    for run in range(2):
        sock = bind(LOOPBACK, 0)
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        began = time.monotonic()
        while not server.started:
            assert thread.is_alive() and time.monotonic() - began < 10
            time.sleep(0.01)
        with socket.create_connection(sock.getsockname()[:2], timeout=10) as slow:
            slow.sendall(b"GET /api/status HTTP/1.1\r\n")  # and never the end
            if run == 1:
                began = time.monotonic()
                assert slow.recv(1) == b"", "not closed"
                assert time.monotonic() - began < 5, "held past its deadline"
            else:
                time.sleep(0.2)  # the timer is set; the run ends before it fires
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


# A Ctrl-C as asyncio makes the server's loop, through uvicorn's own setting of the loop's
# factory. In a process of its own: signals are the main thread's, where this process may
# hold another file's browser (sync Playwright keeps a loop running there).
_CTRL_C_AS_THE_LOOP_IS_MADE = """
import asyncio, signal
import uvicorn
from web._uvicorn import LOOPBACK, bind, run_until_stopped, server_config

made = []

def factory():
    loop = asyncio.new_event_loop()
    made.append(loop)
    signal.raise_signal(signal.SIGINT)
    return loop

async def app(scope, receive, send):
    pass

server = uvicorn.Server(server_config(app, log_level="warning", loop="__main__:factory"))
handler = signal.getsignal(signal.SIGINT)
run_until_stopped(server, bind(LOOPBACK, 0))
assert len(made) == 1 and made[0].is_closed(), made
assert server.should_exit
assert signal.getsignal(signal.SIGINT) is handler, "Ctrl-C is not Python's again"
print("stopped cleanly")
"""


@pytest.mark.processes
def test_ctrl_c_while_the_server_makes_its_loop_stops_it_cleanly() -> None:
    """A Ctrl-C before uvicorn takes the signals over, here while asyncio makes the server's
    loop, stops the server as one later does: no KeyboardInterrupt out of the making of the
    loop, which left a loop never closed (and, half made, a traceback at exit)."""
    proc = subprocess.run(
        [sys.executable, "-c", _CTRL_C_AS_THE_LOOP_IS_MADE],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(web.__file__).resolve().parent.parent,
        check=False,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 0 and proc.stdout == "stopped cleanly\n", proc
