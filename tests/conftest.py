"""Shared fixtures: real wasm modules built from C source with ziglang.

What the suite compiles is kept between runs in ``build/test-cache/`` (ignored
by git): the modules built from C, by a digest of every input of the build, and
the compiled-module cache of the sandbox, which is keyed by the module's
sha256, wasmtime's version and its config as on any machine. A test of a cold
cache makes its own. ``FORAY_TEST_CACHE=0`` starts each run from nothing.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import importlib.metadata
import multiprocessing.forkserver
import multiprocessing.util
import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import wasmtime

import arena.executors._forkserver
from arena.baselines import ZIG_FLAGS, compile_c
from tests._support import (
    EXTRA,
    ROOT,
    ZOO,
    Builder,
    HookWorkers,
    Tab,
    worker_hook,
    write_viewer_replays,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser

ZOO_C_MODULES = ("good", "spin", "divzero", "grow")

# A shell that starts the suite in the background ignores SIGINT in it, and
# children inherit that: the tests that stop a server or a tournament with
# SIGINT, as Ctrl-C would, need it back.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# pytest-xdist's workers (the fast loop runs on every core) start with COLUMNS=80
# and LINES=24 set: a CLI test must see the environment a user's pipe sees.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.pop("COLUMNS", None)
    os.environ.pop("LINES", None)

# The markers that allow a test to start worker processes (pyproject.toml).
STARTS_PROCESSES = ("processes", "ray", "server", "browser")


def _no_worker_server(*_also: str) -> bool:
    return False


@pytest.fixture(autouse=True)
def _worker_processes_are_marked(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test that starts worker processes says so, or ``--fast`` would run it unawares."""
    if any(request.node.get_closest_marker(m) for m in STARTS_PROCESSES):
        yield
        return
    spawned: list[str] = []
    real = multiprocessing.util.spawnv_passfds

    def spawn(path: bytes, args: list[str], passfds: tuple[int, ...]) -> int:
        spawned.append(" ".join(map(str, args)))
        return real(path, args, passfds)

    real_fork = multiprocessing.forkserver.ForkServer.connect_to_new_process

    def fork(server: multiprocessing.forkserver.ForkServer, fds: list[int]) -> tuple[int, int]:
        spawned.append("a worker forked from the worker server")
        return real_fork(server, fds)

    with pytest.MonkeyPatch.context() as mp:
        # A command that plays locally starts the worker server before anything else
        # (``arena tournament``): not a worker, and an unmarked test plays nothing.
        for where in (arena.executors, arena.executors._forkserver):
            mp.setattr(where, "start_worker_server", _no_worker_server)
        mp.setattr(multiprocessing.util, "spawnv_passfds", spawn)
        mp.setattr(multiprocessing.forkserver.ForkServer, "connect_to_new_process", fork)
        yield
    assert not spawned, f"this test starts worker processes: mark it processes ({spawned[0]})"


@pytest.fixture
def hooked_workers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[HookWorkers]:
    """Makes the workers this process starts from then on run a worker hook (``worker_hook``),
    until the test ends. A forked worker takes the hook from its worker server, which
    takes it as it starts: the server is stopped first, so the next one starts under the
    hook, and again after the test, so the tests after it get one without."""

    def hook(name: str, *, deaths: int = 1) -> Path:
        directory = tmp_path / "hook"
        for variable, value in worker_hook(directory, name, deaths=deaths).items():
            monkeypatch.setenv(variable, value)
        arena.executors.stop_worker_server()
        return directory

    yield hook
    arena.executors.stop_worker_server()


def _test_cache(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """``build/test-cache/NAME``, kept between runs, or a new directory each run."""
    if os.environ.get("FORAY_TEST_CACHE") == "0":
        return tmp_path_factory.mktemp(name)
    path = ROOT / "build" / "test-cache" / name
    path.mkdir(parents=True, exist_ok=True)
    return path


# Every file a test's C source can include, for the build cache's key.
HEADERS = sorted([*(ROOT / "baselines").rglob("*.h"), *(ROOT / "tests").rglob("*.h")])


def _build_key(source: Path, defines: tuple[str, ...]) -> str:
    digest = hashlib.sha256()
    for part in (importlib.metadata.version("ziglang"), *ZIG_FLAGS, "--", *defines, "--"):
        digest.update(part.encode() + b"\0")
    for path in (source, *HEADERS):
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


@pytest.fixture(scope="session", autouse=True)
def module_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The compiled-module disk cache of the suite, never the repository's data directory."""
    root = _test_cache(tmp_path_factory, "modules")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FORAY_CACHE_DIR", str(root))
        mp.delenv("FORAY_CACHE_BYTES", raising=False)
        yield root


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test has a data directory of its own (``arena match`` records in the store)."""
    path = tmp_path / "data"
    monkeypatch.setenv("FORAY_DATA_DIR", str(path))
    return path


@pytest.fixture(scope="session")
def build_c(tmp_path_factory: pytest.TempPathFactory) -> Builder:
    """Compile a C file (with -D defines) and return the module bytes; built once, then kept."""
    out_dir = _test_cache(tmp_path_factory, "wasm")
    cache: dict[tuple[Path, tuple[str, ...]], bytes] = {}

    def build(source: Path, *defines: str) -> bytes:
        key = (source, defines)
        if key not in cache:
            out = out_dir / f"{source.stem}-{_build_key(source, defines)[:32]}.wasm"
            if out.is_file():
                cache[key] = out.read_bytes()
            else:
                # Built beside its place and renamed into it: a concurrent run reads all or none.
                part = out.with_name(f"{out.name}.{os.getpid()}.part")
                cache[key] = compile_c([source], part, extra_flags=[f"-D{d}" for d in defines])
                part.replace(out)
        return cache[key]

    return build


@pytest.fixture(scope="session")
def idle(build_c: Builder) -> bytes:
    return build_c(EXTRA / "idle.c")


@pytest.fixture(scope="session")
def busy(build_c: Builder) -> bytes:
    return build_c(EXTRA / "busy.c")


@pytest.fixture(scope="session")
def zoo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """Every zoo module, by name, built from source."""
    out = tmp_path_factory.mktemp("zoo")

    def build(name: str) -> bytes:
        return compile_c([ZOO / f"{name}.c"], out / f"{name}.wasm", include=[ZOO])

    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        built = dict(zip(ZOO_C_MODULES, pool.map(build, ZOO_C_MODULES), strict=True))
    for wat in sorted(ZOO.glob("*.wat")):
        built[wat.stem] = bytes(wasmtime.wat2wasm(wat.read_text()))
    return built


# --------------------------------------------------------------------------- the web


@pytest.fixture(scope="session")
def replay_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Replay files for the viewer's tests, by name (tests._support.write_viewer_replays)."""
    return write_viewer_replays(tmp_path_factory.mktemp("replays"))


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """One headless Chromium (Debian's) for the whole session."""
    from playwright.sync_api import sync_playwright

    from web import bench

    missing = bench.chromium_missing()
    if missing is not None:
        pytest.skip(missing)
    with sync_playwright() as p:
        chromium = bench.launch_chromium(p)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def viewers(replay_files: dict[str, Path]) -> Iterator[dict[str, str]]:
    """``arena view``'s app of each replay file, served by uvicorn on 127.0.0.1: name -> url."""
    import web
    from web import bench

    with ExitStack() as stack:
        yield {
            name: stack.enter_context(bench.BackgroundServer(web.view_app(path))).url
            for name, path in replay_files.items()
        }


@pytest.fixture
def tab(browser: Browser) -> Iterator[Tab]:
    """A fresh page; the test fails if the page logged an error it did not expect."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    opened = Tab(context.new_page())
    yield opened
    context.close()
    unexpected = [e for e in opened.errors if not any(x in e for x in opened.expected_errors)]
    assert not unexpected, f"errors on the page: {unexpected}"


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A directory an unprivileged child can reach (pytest's tmp_path is private to root).

    tempfile's own directory (/tmp or $TMPDIR) is world-traversable; the new
    directory is opened to others so that a chmod inside it is what decides.
    """
    top = Path(tempfile.mkdtemp(prefix="foray-shared-"))
    top.chmod(0o755)
    try:
        yield top
    finally:
        for path in (top, *top.rglob("*")):
            if path.is_dir():
                path.chmod(0o755)
        shutil.rmtree(top)
