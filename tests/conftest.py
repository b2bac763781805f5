"""Shared fixtures: real wasm modules built from C source with ziglang."""

from __future__ import annotations

import concurrent.futures
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import wasmtime

from arena.baselines import compile_c
from tests._support import EXTRA, ZOO, Builder, Tab, write_viewer_replays

if TYPE_CHECKING:
    from playwright.sync_api import Browser

ZOO_C_MODULES = ("good", "spin", "divzero", "grow")


@pytest.fixture(scope="session", autouse=True)
def module_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One compiled-module disk cache for the session, never the repository's data directory."""
    root = tmp_path_factory.mktemp("module-cache")
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
    """Compile a C file (with -D defines) once per session and return the module bytes."""
    out_dir = tmp_path_factory.mktemp("wasm")
    cache: dict[tuple[Path, tuple[str, ...]], bytes] = {}

    def build(source: Path, *defines: str) -> bytes:
        key = (source, defines)
        if key not in cache:
            out = out_dir / f"{source.stem}-{len(cache)}.wasm"
            cache[key] = compile_c([source], out, extra_flags=[f"-D{d}" for d in defines])
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

    import web

    with sync_playwright() as p:
        chromium = web.launch_chromium(p)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def viewers(replay_files: dict[str, Path]) -> Iterator[dict[str, str]]:
    """``arena view``'s app of each replay file, served by uvicorn on 127.0.0.1: name -> url."""
    import web

    with ExitStack() as stack:
        yield {
            name: stack.enter_context(web.BackgroundServer(web.view_app(path))).url
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
