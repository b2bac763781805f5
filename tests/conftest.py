"""Shared fixtures: real wasm modules built from C source with ziglang."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.baselines import compile_c
from tests._support import EXTRA, Builder


@pytest.fixture(scope="session", autouse=True)
def module_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One compiled-module disk cache for the session, never the repository's data directory."""
    root = tmp_path_factory.mktemp("module-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FORAY_CACHE_DIR", str(root))
        mp.delenv("FORAY_CACHE_BYTES", raising=False)
        yield root


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
