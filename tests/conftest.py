"""Shared fixtures: real wasm modules built from C source with ziglang."""

from __future__ import annotations

import concurrent.futures
from pathlib import Path

import pytest
import wasmtime

from arena.baselines import compile_c
from tests._support import EXTRA, ZOO, Builder

ZOO_C_MODULES = ("good", "spin", "divzero", "grow")


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
