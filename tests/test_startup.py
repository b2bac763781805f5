"""Start-up: a command loads only what it uses.

A one-off ``arena match`` imports the match path and nothing else: nothing of
the builds, the proving, the coordinator, the tournament, the executors, nor
of the store beyond what records its match (docs/decisions.md, Speed). Every
module of the project the match path loads is listed below; one that joins
without being listed fails the test by name, and so does one listed that no
longer loads (the list stays exact). ``arena bench startup`` gives the time.
"""

from __future__ import annotations

import argparse
import gc
import json
import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli import _common, _main, build_parser
from tests._support import ROOT

PROJECT = ("arena", "sim", "replays", "web")

MATCH_PATH = {
    # the command line: its entry point, and the match command's group
    "arena",
    "arena._errors",
    "arena._extensions",
    "arena._files",
    "arena.cli",
    "arena.cli._common",
    "arena.cli._main",
    "arena.cli._match",
    # the rules, and writing the replay
    "sim",
    "sim._actions",
    "sim._checksum",
    "sim._config",
    "sim._game",
    "sim._mapgen",
    "sim._maps",
    "sim._native",
    "sim._native._load",
    "sim._observer",
    "sim._rules",
    "sim._state",
    "sim._units",
    "replays",
    "replays._errors",
    "replays._format",
    "replays._limits",
    "replays._native",
    "replays._native._load",
    "replays._recorder",
    # the store tells a replay packed in a worker from bytes (its class); the one-off
    # match's replay is stored raw, so zstandard is not loaded (docs/storage.md)
    "replays._compressed",
    # the default case: its rules, limits and identity, kept loaded in the disk cache (its
    # manifest's reader, _manifest, _tables, _toml and tomllib, loads only when the case or
    # the code that loads it has changed since: a test below)
    "arena.cases",
    "arena.cases._cached",
    "arena.cases._catalog",
    "arena.cases._errors",
    "arena.cases._layout",
    "arena.cases._model",
    "arena.cases._roles",
    # a baseline by name (its committed module; nothing is built)
    "arena.baselines",
    "arena.baselines._registry",
    # playing: the contract, the runner, the sandbox
    "arena.match",
    "arena.match._contract",
    "arena.match._fuel",
    "arena.match._job",
    "arena.match._resolve",
    "arena.match._result",
    "arena.match._runner",
    "arena.sandbox",
    "arena.sandbox._admission",
    "arena.sandbox._compile_worker",
    "arena.sandbox._controller",
    "arena.sandbox._engine",
    "arena.sandbox._features",
    "arena.sandbox._ffi",
    "arena.sandbox._limits",
    "arena.sandbox._native",
    "arena.sandbox._native._load",
    "arena.sandbox._opcode_cost",
    "arena.sandbox._structural_limits",
    "arena.sandbox._structure",
    "arena.sandbox._toolchains",
    "arena.sandbox._trap_codes",
    # recording: the store's controllers and matches (``Store`` is one class over every
    # table's mixin, so the other tables' modules load with it)
    "arena.store",
    "arena.store._blobs",
    "arena.store._contestants",
    "arena.store._controllers",
    "arena.store._db",
    "arena.store._errors",
    "arena.store._facade",
    "arena.store._fields",
    "arena.store._held",
    "arena.store._match_rows",
    "arena.store._matches",
    "arena.store._names",
    "arena.store._prune",
    "arena.store._published",
    "arena.store._records",
    "arena.store._runs",
    "arena.store._schema",
    "arena.store._store",
    "arena.store._tokens",
    "arena.store._tournaments",
}
"""Every module of the project that a recorded one-off match loads."""

NATIVE = {"sim._native._core", "arena.sandbox._native._call", "replays._native._frames"}
"""The native parts, loaded where they were built (setup says when they could not be)."""

THIRD_PARTY = {"lazy_loader", "msgpack", "msgspec"}
"""The installed packages it loads (besides the interpreter's site machinery): not
``typing_extensions``, which msgspec would load where it is installed (``import_msgspec``),
nor wasmtime-py, whose library ``arena.sandbox._ffi`` loads without its Python."""

NEVER = (
    "multiprocessing",
    "concurrent",
    "tempfile",
    "shutil",
    "importlib.metadata",
    "asyncio",
    "tomllib",
    "random",
    "inspect",
    "dataclasses",
)
"""Standard modules a one-off match has no use for (subprocess compiles a module the
cache does not hold; tomllib reads a case the cache does not hold; random times the
store's waits on a busy lock; inspect came with ``typing_extensions`` and dataclasses,
whose records the match path makes msgspec Structs or plain classes)."""

# arena ARGV[2:], then the modules the process held before it and holds after it, as JSON
# in ARGV[1].
_LISTED = (
    "import json, sys; start = list(sys.modules); from arena.cli import main;"
    " code = main(sys.argv[2:]); open(sys.argv[1], 'w').write(json.dumps("
    "{'start': start, 'end': list(sys.modules)})); sys.exit(code)"
)


def _top(module: str) -> str:
    return module.split(".")[0]


def _listed_match(args: list[str], out: Path) -> tuple[set[str], set[str]]:
    """The modules a one-off ``arena ARGS`` held before it ran (the interpreter's site's: a
    distribution's ``sitecustomize``, the editable install's finder) and at its end (it must
    succeed and record)."""
    ran = subprocess.run(
        [sys.executable, "-c", _LISTED, str(out), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    assert "replay:" in ran.stdout  # recorded in the store
    listed = json.loads(out.read_text(encoding="utf-8"))
    return set(listed["start"]), set(listed["end"])


@pytest.mark.processes  # an arena command in a process of its own
def test_a_one_off_match_loads_only_the_listed_modules(
    idle: bytes, data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = tmp_path / "idle.wasm"
    module.write_bytes(idle)
    out = tmp_path / "modules.json"
    args = ["match", str(module), str(module), "--max-ticks", "1"]
    # As an operator's second match runs: the module compiled and the case kept loaded by
    # the first (their own disk cache, so the first misses both).
    monkeypatch.setenv("FORAY_CACHE_DIR", str(tmp_path / "cache"))
    _, first = _listed_match(args, out)
    at_start, loaded = _listed_match(args, out)
    # A case the cache does not hold is read from its manifest (and then kept).
    assert {"arena.cases._manifest", "tomllib"} <= first
    project = {m for m in loaded if _top(m) in PROJECT}
    joined = sorted(project - MATCH_PATH - NATIVE)
    assert not joined, f"modules joined the match path without being listed: {', '.join(joined)}"
    gone = sorted(MATCH_PATH - project)
    assert not gone, f"listed modules the match path no longer loads: {', '.join(gone)}"
    installed = {
        _top(m)
        for m in loaded - at_start
        if _top(m) not in sys.stdlib_module_names
        and _top(m) not in PROJECT
        and not m.startswith("_")  # Cython's runtime
        and m != "cython_runtime"
    }
    assert installed == THIRD_PARTY, f"installed packages loaded: {sorted(installed)}"
    unused = sorted(m for m in loaded if m.startswith(NEVER))
    assert not unused, f"a one-off match loads {', '.join(unused)}"


# In a fresh process: msgspec imported as a command imports it (ARGV[2] "command": without
# typing_extensions, which stays importable after) or as usual ("usual": with it), then a
# case decoded and encoded again; ARGV[1] holds the case as the disk cache writes it.
_DECODED_AGAIN = """
import sys, typing
import_as = sys.argv[2]
if import_as == "command":
    from arena.cli._common import import_msgspec
    import_msgspec()
    assert "typing_extensions" not in sys.modules
else:
    import typing_extensions
import msgspec, msgspec._utils
expected = typing.get_type_hints if import_as == "command" else typing_extensions.get_type_hints
assert msgspec._utils._get_type_hints is expected
from arena.cases import Case
from arena.cases._cached import _decode, _encode
payload = open(sys.argv[1], "rb").read()
case = msgspec.msgpack.decode(payload, type=Case, dec_hook=_decode)
assert type(case) is Case
sys.stdout.buffer.write(msgspec.msgpack.encode(case, enc_hook=_encode))
import typing_extensions
"""


@pytest.mark.processes  # msgspec imported afresh
def test_msgspec_without_typing_extensions_reads_the_records_alike(tmp_path: Path) -> None:
    """``import_msgspec`` hides ``typing_extensions`` while msgspec imports (msgspec's
    fallback to ``typing``): a case, the records' largest tree (enums, unions, tuples,
    nested Structs), decodes and encodes to the same bytes either way."""
    import msgspec

    import arena
    from arena.cases._cached import _encode

    payload = msgspec.msgpack.encode(arena.default_case(), enc_hook=_encode)
    (tmp_path / "case.msgpack").write_bytes(payload)
    for import_as in ("command", "usual"):
        ran = subprocess.run(
            [sys.executable, "-c", _DECODED_AGAIN, str(tmp_path / "case.msgpack"), import_as],
            capture_output=True,
            timeout=60,
            check=False,
        )
        assert ran.returncode == 0, ran.stderr.decode()
        assert ran.stdout == payload, import_as


def test_a_command_loads_its_modules_without_the_collector_and_freezes_them() -> None:
    """``loading``: no collection while a command imports, what it made frozen after, and
    the collector as it was before (on again, or still off)."""
    for was_on in (True, False):
        (gc.enable if was_on else gc.disable)()
        try:
            with _common.loading():
                assert not gc.isenabled()
                made: list[list[object]] = [[] for _ in range(10)]  # tracked by the collector
            assert gc.isenabled() is was_on
            assert gc.get_freeze_count() >= len(made)
        finally:
            gc.unfreeze()
            gc.enable()


def test_each_command_is_registered_by_its_group() -> None:
    """The command line imports one group for the named command (``_GROUP_OF``): it must
    be the group that registers it, and ``_GROUPS`` must hold every group."""
    groups = {
        path.stem
        for path in (ROOT / "arena" / "cli").glob("_*.py")
        if "\ndef register(" in path.read_text(encoding="utf-8")
    }
    assert set(_main._GROUPS) == groups
    assert set(_main._GROUP_OF.values()) == groups
    for command in _main._GROUP_OF:
        parser = build_parser(command)
        (sub,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        assert command in sub.choices, f"{command}'s group does not register it"


def test_the_whole_parser_has_every_command() -> None:
    parser = build_parser()
    (sub,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert set(_main._GROUP_OF) <= set(sub.choices)
