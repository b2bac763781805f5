"""The compiled-module caches: on disk by default, shared, validated, and both bounded."""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import cast

import pytest

import arena
import arena.sandbox
from arena.baselines import load_baseline
from arena.sandbox import _engine, _ffi
from tests._support import EXTRA, Builder, cli

Compiles = list[int]


@pytest.fixture
def compiles(monkeypatch: pytest.MonkeyPatch) -> Compiles:
    """The sizes of the modules compiled from now on (the compile itself still runs)."""
    calls: Compiles = []
    real = _engine._compile_out_of_process

    def counting(blob: bytes, limits: arena.sandbox.Limits) -> bytes | str:
        calls.append(len(blob))
        return real(blob, limits)

    monkeypatch.setattr(_engine, "_compile_out_of_process", counting)
    return calls


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv("FORAY_CACHE_DIR", str(root))
    return root


def fresh(build_c: Builder, n: int) -> bytes:
    """The idle module with a custom section: a sha256 no other test has compiled."""
    name = f"cache-test-{n}".encode()
    section = bytes([len(name)]) + name
    return build_c(EXTRA / "idle.c") + b"\0" + bytes([len(section)]) + section


def admitted(blob: bytes) -> None:
    """Load ``blob`` as a new process would: through the disk cache, not this process's."""
    _engine.forget_module(hashlib.sha256(blob).hexdigest())
    assert arena.check_module(blob).admissible


def entry(root: Path, blob: bytes) -> Path:
    (path,) = root.glob(f"{hashlib.sha256(blob).hexdigest()}-*.cwasm")
    return path


def test_the_disk_cache_is_on_by_default_in_the_data_directory(
    build_c: Builder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compiles: Compiles
) -> None:
    monkeypatch.delenv("FORAY_CACHE_DIR")
    monkeypatch.setenv("FORAY_DATA_DIR", str(tmp_path / "data"))
    blob = fresh(build_c, 1)
    admitted(blob)
    root = tmp_path / "data" / "cache"
    path = entry(root, blob)
    assert path == _engine.DiskCache(root, 1).path(hashlib.sha256(blob).hexdigest())
    assert f"-wasmtime{arena.sandbox.WASMTIME_VERSION}-" in path.name
    admitted(blob)  # as a second process would: from disk
    assert compiles == [len(blob)]


def test_the_disk_cache_can_be_turned_off(
    build_c: Builder, cache_dir: Path, monkeypatch: pytest.MonkeyPatch, compiles: Compiles
) -> None:
    monkeypatch.setenv("FORAY_CACHE_BYTES", "0")
    blob = fresh(build_c, 2)
    admitted(blob)
    admitted(blob)
    assert compiles == [len(blob), len(blob)]
    assert not cache_dir.exists()


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # truncated
        lambda data: data[:-1] + bytes([data[-1] ^ 1]),  # one bit of the code
        lambda data: data[:20] + bytes([data[20] ^ 1]) + data[21:],  # one bit of the digest
        lambda data: b"junk",
        lambda data: b"",
    ],
    ids=["truncated", "code-bit", "digest-bit", "junk", "empty"],
)
def test_a_damaged_entry_is_compiled_again_never_trusted(
    build_c: Builder, cache_dir: Path, compiles: Compiles, damage: Callable[[bytes], bytes]
) -> None:
    blob = fresh(build_c, 3)
    admitted(blob)
    path = entry(cache_dir, blob)
    good = path.read_bytes()
    path.write_bytes(damage(good))
    admitted(blob)
    assert compiles == [len(blob), len(blob)]
    assert path.read_bytes() == good  # rewritten whole


def test_an_entry_under_another_modules_name_is_not_trusted(
    build_c: Builder, cache_dir: Path, compiles: Compiles
) -> None:
    a, b = fresh(build_c, 4), fresh(build_c, 5)
    admitted(a)
    admitted(b)
    entry(cache_dir, b).write_bytes(entry(cache_dir, a).read_bytes())
    admitted(b)
    assert compiles == [len(a), len(b), len(b)]


def test_concurrent_loads_compile_once(
    build_c: Builder, cache_dir: Path, compiles: Compiles
) -> None:
    """Two loaders (threads here, processes in a pool) wait for one compile."""
    blob = fresh(build_c, 6)
    sha = hashlib.sha256(blob).hexdigest()
    go = threading.Barrier(2)
    errors: list[BaseException] = []

    def load() -> None:
        try:
            go.wait()
            module = _engine.load_module(blob, sha, arena.sandbox.Limits())
            assert isinstance(module, _ffi.Module)
        except BaseException as exc:  # reported below
            errors.append(exc)

    _engine.forget_module(sha)
    threads = [threading.Thread(target=load) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert compiles == [len(blob)]


def test_the_disk_cache_keeps_the_most_recently_used_within_its_bound(
    build_c: Builder, cache_dir: Path, monkeypatch: pytest.MonkeyPatch, compiles: Compiles
) -> None:
    a, b, c = (fresh(build_c, n) for n in (7, 8, 9))
    admitted(a)
    size = entry(cache_dir, a).stat().st_size
    # Room for two entries: a third evicts the least recently used.
    monkeypatch.setenv("FORAY_CACHE_BYTES", str(2 * size + size // 2))
    admitted(b)
    os.utime(entry(cache_dir, a), (1, 1))  # long unused...
    os.utime(entry(cache_dir, b), (2, 2))
    admitted(a)  # ...until now: loading it touches it
    admitted(c)
    kept = {p.name[:64] for p in cache_dir.glob("*.cwasm")}
    assert kept == {hashlib.sha256(m).hexdigest() for m in (a, c)}
    assert not list(cache_dir.glob(f"{hashlib.sha256(b).hexdigest()}-*"))  # its lock too
    assert compiles == [len(a), len(b), len(c)]


def test_the_memory_cache_is_bounded_by_count_and_bytes() -> None:
    modules = {name: cast(_ffi.Module, object()) for name in "abcd"}
    cache = _engine._MemoryCache(max_modules=3, max_bytes=100)
    for name in "abc":
        cache.put(name, modules[name], 10)
    assert cache.get("a") is modules["a"]  # now the most recently used
    cache.put("d", modules["d"], 10)
    assert [cache.get(n) is not None for n in "abcd"] == [True, False, True, True]
    cache.put("big", modules["a"], 95)  # over the byte bound: only the newest stays
    assert len(cache) == 1 and cache.bytes == 95
    cache.put("huge", modules["b"], 1000)  # alone over the bound, but about to be used
    assert len(cache) == 1 and cache.get("huge") is modules["b"]
    cache.forget("huge")
    assert len(cache) == 0 and cache.bytes == 0


@pytest.mark.parametrize("bound", ["2G", "-1", "1e9", " 12", "１２"])
def test_a_bad_cache_bound_is_the_operators_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, bound: str
) -> None:
    """Not a crash, nor "not admissible" (exit 1): exit 2, naming the variable and value."""
    monkeypatch.setenv("FORAY_CACHE_BYTES", bound)
    with pytest.raises(arena.ArenaError, match="FORAY_CACHE_BYTES"):
        _engine.disk_cache()
    _engine.forget_module(hashlib.sha256(load_baseline("random")).hexdigest())
    out = cli(capsys, "check", "random")
    assert (out.code, out.out) == (2, "")
    assert out.err == (
        f"error: FORAY_CACHE_BYTES={bound!r}: must be a whole number of bytes, such as"
        f" {_engine.DISK_CACHE_BYTES} (0 turns the disk cache of compiled modules off)\n"
    )


def test_a_cache_directory_that_cannot_be_used_only_costs_compiles(
    build_c: Builder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compiles: Compiles
) -> None:
    """A file where the directory should be: nothing cached, nothing refused."""
    (tmp_path / "file").write_bytes(b"")
    monkeypatch.setenv("FORAY_CACHE_DIR", str(tmp_path / "file"))
    blob = fresh(build_c, 10)
    admitted(blob)
    admitted(blob)
    assert compiles == [len(blob), len(blob)]
