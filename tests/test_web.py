"""The web app of ``arena view`` (Starlette TestClient), the command itself, and the vendored files.

Every route and every error: the page, the replay stream (whole, refused, cut
off half-way), the static files; the command's refusals and a real server it
starts and stops.
"""

from __future__ import annotations

import io
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import httpx
import msgpack
import pytest
from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.testclient import TestClient

import replays
import web
from tests._support import ROOT, cli, play_scripted
from web._local import check_replay

STATIC = ROOT / "web" / "static"


@pytest.fixture(scope="module")
def replay_bytes() -> bytes:
    return play_scripted(4, max_ticks=45).data


@pytest.fixture
def replay_file(tmp_path: Path, replay_bytes: bytes) -> Path:
    path = tmp_path / "match.replay"
    path.write_bytes(replay_bytes)
    return path


def client(path: Path) -> TestClient:
    return TestClient(web.view_app(path))


def objects(data: bytes) -> list[object]:
    return list(msgpack.Unpacker(io.BytesIO(data), raw=False))


# --------------------------------------------------------------------------- routes


def test_the_page_holds_a_viewer_of_the_replay(replay_file: Path) -> None:
    r = client(replay_file).get("/", params={"tick": "12"})
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in r.headers["content-security-policy"]
    assert 'data-replay-url="/replay"' in r.text
    # The page's bundle (web/build.sh), and everything the first drawing needs asked for at
    # once: the replay, the bundle and the chunks it imports.
    assert '<script type="module" src="/static/dist/view.js">' in r.text
    assert '<link rel="preload" href="/replay" as="fetch" crossorigin="anonymous">' in r.text
    preloads = re.findall(r'<link rel="modulepreload" href="/static/([^"]+)">', r.text)
    assert preloads[0] == "dist/view.js" and len(preloads) >= 2
    assert all(re.fullmatch(r"dist/chunk-[0-9A-Z]+\.js", m) for m in preloads[1:]), preloads
    assert "charts" not in r.text  # loaded once the first frame is drawn
    assert "<title>match.replay · Foray Arena</title>" in r.text


def test_the_page_escapes_the_file_name(tmp_path: Path, replay_bytes: bytes) -> None:
    path = tmp_path / "<b>&.replay"
    path.write_bytes(replay_bytes)
    text = client(path).get("/").text
    assert "&lt;b&gt;&amp;.replay" in text
    assert "<b>" not in text


def test_the_replay_streams_as_msgpack(replay_file: Path, replay_bytes: bytes) -> None:
    r = client(replay_file).get("/replay")
    assert r.status_code == 200
    assert r.headers["content-type"] == replays.MEDIA_TYPE
    assert r.headers["cache-control"] == "no-cache"
    assert r.content == replay_bytes


def _sent_whole(r: Any) -> bool:
    """Whether the answer was one body (it has a length), not a stream through the reader."""
    return "content-length" in r.headers


def test_a_checked_replay_is_sent_as_it_is_in_one_body(
    replay_file: Path, replay_bytes: bytes
) -> None:
    app = TestClient(web.view_app(check_replay(replay_file)))
    r = app.get("/replay")
    assert r.status_code == 200 and r.headers["content-type"] == replays.MEDIA_TYPE
    assert _sent_whole(r) and int(r.headers["content-length"]) == len(replay_bytes)
    assert r.content == replay_bytes


def test_a_compressed_replay_is_sent_as_its_own_bytes(tmp_path: Path, replay_bytes: bytes) -> None:
    path = tmp_path / "packed.replay"
    path.write_bytes(replays.compress_replay(replay_bytes))
    for app in (client(path), TestClient(web.view_app(check_replay(path)))):
        assert app.get("/replay").content == replay_bytes


def test_a_replay_is_streamed_through_the_reader_until_it_has_been_read_whole(
    replay_file: Path, replay_bytes: bytes
) -> None:
    app = client(replay_file)
    first, second = app.get("/replay"), app.get("/replay")
    assert not _sent_whole(first) and _sent_whole(second)
    assert first.content == second.content == replay_bytes


def test_a_replay_changed_since_its_check_goes_through_the_reader_again(
    replay_file: Path, replay_bytes: bytes
) -> None:
    """A file rewritten after ``arena view`` checked it is read object by object again: a bad
    one ends with the error object, every time; a good one is sent whole once read whole."""
    app = TestClient(web.view_app(check_replay(replay_file)))
    cut = len(replay_bytes) * 2 // 3
    replay_file.write_bytes(replay_bytes[:cut])
    for _ in range(2):
        r = app.get("/replay")
        assert not _sent_whole(r)
        last = objects(r.content)[-1]
        assert isinstance(last, dict) and last["type"] == "error"
    other = play_scripted(5, max_ticks=30).data
    replay_file.write_bytes(other)
    first, second = app.get("/replay"), app.get("/replay")
    assert not _sent_whole(first) and _sent_whole(second)
    assert first.content == second.content == other


def test_a_file_that_is_not_a_replay_is_refused_with_the_readers_message(tmp_path: Path) -> None:
    path = tmp_path / "notes.replay"
    path.write_bytes(msgpack.packb({"type": "header", "format": "foray-replay", "version": 9}))
    r = client(path).get("/replay")
    assert r.status_code == 422
    assert r.headers["content-type"].startswith("text/plain")
    assert r.text == (
        "notes.replay: header: field 'version': format version 9 is not supported (only 1, 2, 3)"
    )


@pytest.mark.parametrize("data", [b"", b"\xc1", b"plain text, not msgpack"])
def test_bytes_that_are_no_replay_at_all_are_refused(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "junk.replay"
    path.write_bytes(data)
    r = client(path).get("/replay")
    assert r.status_code == 422
    assert r.text.startswith("junk.replay: ")


def test_a_bad_first_frame_is_refused_before_anything_is_sent(
    tmp_path: Path, replay_bytes: bytes
) -> None:
    header, first, *_ = objects(replay_bytes)
    assert isinstance(first, dict)
    path = tmp_path / "bad.replay"
    path.write_bytes(msgpack.packb(header) + msgpack.packb({**first, "t": 7}))
    r = client(path).get("/replay")
    assert r.status_code == 422
    assert "frame of tick 0: field 't': expected tick 0" in r.text


def test_a_replay_that_goes_bad_half_way_ends_with_an_error_object(
    tmp_path: Path, replay_bytes: bytes
) -> None:
    """A 200 has gone out by then: the stream's last object says what was wrong."""
    cut = len(replay_bytes) * 2 // 3
    path = tmp_path / "cut.replay"
    path.write_bytes(replay_bytes[:cut])
    r = client(path).get("/replay")
    assert r.status_code == 200
    *good, last = objects(r.content)
    with pytest.raises(replays.ReplayError) as refused:
        replays.read_replay(replay_bytes[:cut])
    assert last == {"type": "error", "detail": f"cut.replay: {refused.value}"}
    sent = b"".join(msgpack.packb(o) for o in good)
    assert replay_bytes.startswith(sent) and len(good) > 2


def test_a_file_gone_since_the_start_is_404(tmp_path: Path, replay_file: Path) -> None:
    app = client(replay_file)
    replay_file.unlink()
    r = app.get("/replay")
    assert r.status_code == 404
    assert r.text == "match.replay: cannot read the replay: No such file or directory"


def test_a_fifo_swapped_in_for_the_replay_is_404_at_once(replay_file: Path) -> None:
    app = client(replay_file)
    replay_file.unlink()
    os.mkfifo(replay_file)
    answers: list[Any] = []
    asking = threading.Thread(target=lambda: answers.append(app.get("/replay")), daemon=True)
    asking.start()
    asking.join(timeout=20)
    if asking.is_alive():  # it waits for a writer: be one, so that the test ends
        with replay_file.open("wb"):
            pass
        asking.join(timeout=20)
        pytest.fail("the server opened the FIFO and waited on it")
    assert answers[0].status_code == 404
    assert answers[0].text == "match.replay: the replay is a FIFO, not a regular file"


def test_static_files_are_served_with_javascript_types(replay_file: Path) -> None:
    app = client(replay_file)
    for path in (
        "/static/viewer.js",
        "/static/view.js",
        "/static/vendor/msgpack/index.mjs",
        "/static/vendor/msgpack/utils/int.mjs",
        "/static/vendor/uplot/uPlot.esm.js",
    ):
        r = app.get(path)
        assert r.status_code == 200, path
        assert r.headers["content-type"].startswith("text/javascript"), path
    assert app.get("/static/viewer.css").headers["content-type"].startswith("text/css")
    assert app.get("/static/favicon.svg").headers["content-type"].startswith("image/svg+xml")


def test_static_files_are_served_from_memory_as_they_are_on_disk(replay_file: Path) -> None:
    app = client(replay_file)
    files = [p for p in STATIC.rglob("*") if p.is_file()]
    assert len(files) > 20
    for path in files:
        r = app.get(f"/static/{path.relative_to(STATIC).as_posix()}")
        assert r.status_code == 200 and r.content == path.read_bytes(), path
    r = app.get("/static/viewer.js")
    assert r.headers["etag"] and r.headers["last-modified"]
    again = app.get("/static/viewer.js", headers={"If-None-Match": r.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    head = app.head("/static/viewer.js")
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-length"] == str(len(r.content))
    posted = app.post("/static/viewer.js")
    assert posted.status_code == 405 and posted.headers["allow"] == "GET, HEAD"


def test_a_static_file_edited_since_the_start_is_served_as_it_is_now(tmp_path: Path) -> None:
    (tmp_path / "a.js").write_text("export const a = 1;\n")
    app = TestClient(Starlette(routes=[Mount("/static", web.MemoryStaticFiles(tmp_path))]))
    first = app.get("/static/a.js")
    assert first.text == "export const a = 1;\n"
    (tmp_path / "a.js").write_text("export const a = 22;\n")
    now = app.get("/static/a.js")
    assert now.text == "export const a = 22;\n" and now.headers["etag"] != first.headers["etag"]
    (tmp_path / "b.js").write_text("new\n")  # the set of files is the one found at the start
    assert app.get("/static/b.js").status_code == 404
    (tmp_path / "a.js").unlink()
    assert app.get("/static/a.js").status_code == 404


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/static/missing.js", 404),
        ("GET", "/static/../pyproject.toml", 404),
        ("GET", "/nothing-here", 404),
        ("POST", "/", 405),
        ("POST", "/replay", 405),
        ("DELETE", "/replay", 405),
    ],
)
def test_other_requests_get_4xx(replay_file: Path, method: str, path: str, status: int) -> None:
    assert client(replay_file).request(method, path).status_code == status


# --------------------------------------------------------------------------- arena view


def test_arena_view_refuses_a_file_that_is_not_a_replay(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "bad.replay"
    path.write_bytes(b"\x93\x01\x02\x03")
    ran = cli(capsys, "view", str(path), "--no-open")
    assert ran.code == 2
    assert ran.err.startswith(f"error: {path}: ")
    assert ran.out == ""


def test_arena_view_refuses_a_replay_that_breaks_half_way(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, replay_bytes: bytes
) -> None:
    path = tmp_path / "cut.replay"
    path.write_bytes(replay_bytes[: len(replay_bytes) // 2])
    ran = cli(capsys, "view", str(path), "--no-open")
    assert ran.code == 2
    assert ran.err.startswith(f"error: {path}: truncated: ")


def test_arena_view_refuses_a_missing_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "nope.replay"
    ran = cli(capsys, "view", str(path), "--no-open")
    assert ran.code == 2
    assert ran.err == f"error: {path}: cannot read the replay: No such file or directory\n"


@pytest.mark.processes
def test_arena_view_refuses_a_fifo_at_once(tmp_path: Path) -> None:
    """In a process of its own, with a timeout: a FIFO opened for reading would wait forever."""
    fifo = tmp_path / "pipe.replay"
    os.mkfifo(fifo)
    ran = subprocess.run(
        [sys.executable, "-m", "arena", "view", str(fifo), "--no-open"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert ran.returncode == 2 and ran.stdout == ""
    assert ran.stderr == f"error: {fifo}: the replay is a FIFO, not a regular file\n"


@pytest.mark.parametrize(("path", "kind"), [(".", "a directory"), ("/dev/null", "a device")])
def test_arena_view_refuses_what_is_not_a_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, path: str, kind: str
) -> None:
    where = tmp_path if path == "." else Path(path)
    ran = cli(capsys, "view", str(where), "--no-open")
    assert ran.code == 2
    assert ran.err == f"error: {where}: the replay is {kind}, not a regular file\n"


@pytest.mark.server
def test_arena_view_refuses_a_port_in_use(
    capsys: pytest.CaptureFixture[str], replay_file: Path
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        ran = cli(capsys, "view", str(replay_file), "--no-open", "--port", str(port))
    assert ran.code == 2
    assert ran.err.startswith(f"error: cannot listen on 127.0.0.1:{port}: ")


@pytest.mark.parametrize("port", ["-1", "65536", "http"])
def test_arena_view_takes_only_port_numbers(
    capsys: pytest.CaptureFixture[str], replay_file: Path, port: str
) -> None:
    ran = cli(capsys, "view", str(replay_file), "--port", port)
    assert ran.code == 2
    assert "--port" in ran.err


@pytest.mark.processes
def test_arena_view_serves_the_replay_until_interrupted(
    replay_file: Path, replay_bytes: bytes
) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "view", str(replay_file), "--no-open"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith(f"viewing {replay_file} at http://127.0.0.1:")
        url = line.split(" at ")[1].split()[0]
        page = httpx.get(url, timeout=10)
        assert page.status_code == 200 and 'data-replay-url="/replay"' in page.text
        assert httpx.get(url + "replay", timeout=10).content == replay_bytes
        assert httpx.get(url + "static/viewer.js", timeout=10).status_code == 200
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert out == "stopped\n"


# --------------------------------------------------------------------------- how arena finds web


def test_arena_has_the_command_and_the_figures_of_web(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """They come through entry points (tests/test_layering.py checks which)."""
    ran = cli(capsys, "view", "--help")
    assert ran.code == 0 and "--no-open" in ran.out
    ran = cli(capsys, "bench", "--help")
    assert ran.code == 0 and "web" in ran.out


def test_building_the_parser_does_not_import_starlette() -> None:
    """web's commands are registered for every command: the server waits until one runs."""
    code = (
        "import sys; from arena.cli import build_parser; build_parser(); "
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('starlette', 'uvicorn', 'playwright'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", "import json; " + code],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert json.loads(out) == []


# --------------------------------------------------------------------------- vendored libraries


def test_the_vendored_libraries_are_those_the_lock_file_pins() -> None:
    lock = json.loads((ROOT / "web" / "package-lock.json").read_text())["packages"]
    pinned = json.loads((ROOT / "web" / "package.json").read_text())["dependencies"]
    lines = (STATIC / "vendor" / "VERSIONS").read_text().splitlines()
    recorded = {line.split()[0]: line.split()[1:] for line in lines}
    assert set(recorded) == set(pinned) == {"@msgpack/msgpack", "uplot"}
    for name, version in pinned.items():
        entry = lock[f"node_modules/{name}"]
        assert entry["version"] == version
        assert recorded[name] == [version, entry["license"], entry["integrity"]]
    for path in (
        "msgpack/LICENSE",
        "msgpack/index.mjs",
        "msgpack/decodeAsync.mjs",
        "uplot/LICENSE",
        "uplot/uPlot.esm.js",
        "uplot/uPlot.min.css",
    ):
        assert (STATIC / "vendor" / path).stat().st_size > 0, path


def test_the_bundler_is_pinned_exactly() -> None:
    package = json.loads((ROOT / "web" / "package.json").read_text())
    lock = json.loads((ROOT / "web" / "package-lock.json").read_text())["packages"]
    wanted = package["devDependencies"]["esbuild"]
    assert wanted[0].isdigit() and wanted.count(".") == 2, "an exact version, not a range"
    assert lock["node_modules/esbuild"]["version"] == wanted
    assert lock[""]["devDependencies"] == package["devDependencies"]


def _files(directory: Path) -> dict[str, bytes]:
    files = (p for p in directory.rglob("*") if p.is_file())
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in files}


@pytest.mark.slow
def test_the_pages_bundles_are_up_to_date_with_their_sources(tmp_path: Path) -> None:
    """static/dist/ is what web/build.sh makes of static/ as it is: a module a page imports,
    changed without building again, fails here (run web/build.sh and commit static/dist/)."""
    esbuild = ROOT / "web" / "node_modules" / ".bin" / "esbuild"
    assert esbuild.exists(), f"{esbuild} is missing: ./scripts/setup.sh installs it (npm ci)"
    out = tmp_path / "dist"
    subprocess.run([ROOT / "web" / "build.sh", out], check=True, capture_output=True, timeout=120)
    built, committed = _files(out), _files(STATIC / "dist")
    stale = sorted(set(built) ^ set(committed)) + sorted(
        name for name in set(built) & set(committed) if built[name] != committed[name]
    )
    assert not stale, f"web/static/dist/ is not what web/build.sh builds now: {stale}"


def test_each_page_loads_its_bundle_and_preloads_its_chunks() -> None:
    """Every page's script is a bundle under static/dist/ and its chunks are preloaded; the
    charts' chunk is not among them. (That the list misses nothing the page loads is the
    browser's to say: tests/test_viewer.py and tests/test_site_browser.py.)"""
    from web._pages import SITE_PAGES, first_draw_modules, page_script

    for page in ("view", *SITE_PAGES):
        modules = first_draw_modules(page_script(page))
        assert modules[0] == f"dist/{page}.js", page
        assert all((STATIC / m).is_file() and m.startswith("dist/") for m in modules), modules
        assert not any("charts" in m for m in modules), modules


def _setup_chromium_check() -> str:
    """The Python code ``scripts/setup.sh`` runs to say why Chromium cannot be used."""
    found = re.search(
        r"missing=\$\(\.venv/bin/python -c '([^']+)'\)", (ROOT / "scripts/setup.sh").read_text()
    )
    assert found, "scripts/setup.sh no longer says why Chromium cannot be used"
    return found.group(1)


@pytest.mark.processes
def test_without_chromium_the_browser_tests_are_skipped_with_the_setup_line(
    tmp_path: Path,
) -> None:
    """No Chromium: setup's one line says what to install, and is the browser tests' skip reason."""
    env = {**os.environ, "FORAY_CHROMIUM": str(tmp_path / "no-chromium")}
    env.pop("FORAY_FAST_TESTS", None)
    said = subprocess.run(
        [sys.executable, "-c", _setup_chromium_check()],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert said and "\n" not in said and str(tmp_path / "no-chromium") in said
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
         "tests/test_viewer.py::test_the_page_draws_the_map"],
        env=env, capture_output=True, text=True, check=False, cwd=ROOT,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 skipped" in run.stdout and "error" not in run.stdout.lower(), run.stdout
    assert said in " ".join(run.stdout.split()), run.stdout
