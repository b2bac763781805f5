"""The AssemblyScript SDK (``baselines/foray.ts``): its pinned compiler, the recipe, the
template and a bot written with it, built for real with ``asc`` under Node.js.

The emitters' refusals are tested beside foray.h's, in test_baselines.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
import wasmtime

import arena
import replays
import sim
from arena.baselines import (
    ASC_FLAGS,
    ASSEMBLYSCRIPT_DIR,
    BASELINES_DIR,
    BuildError,
    assemblyscript_project,
    compile_assemblyscript,
    compile_c,
    pinned_asc,
)
from arena.match import encode_init, encode_obs_for, run_match
from arena.sandbox import Limits
from tests._support import BOTS

TEMPLATE = BASELINES_DIR / "template.ts"
ECONOMY = BOTS / "economy.ts"

# The template's module as the pinned compiler builds it. A new digest follows a change
# to template.ts or foray.ts; otherwise a different one means the compiler is not the
# one package-lock.json pins, and builds are no longer the same on every machine.
TEMPLATE_SHA256 = "cf8557c7c5b61508fce8bf26021eeb69969a033b83fdb82f0c9ef60c2a785b1f"


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    return compile_assemblyscript(TEMPLATE, tmp_path_factory.mktemp("as") / "template.wasm")


@pytest.fixture(scope="module")
def economy(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    return compile_assemblyscript(ECONOMY, tmp_path_factory.mktemp("as") / "economy.wasm")


def _source_bot(directory: Path, body: str) -> Path:
    """A bot in ``directory`` beside a copy of the SDK: ``body`` defines botInit and botTick."""
    shutil.copyfile(BASELINES_DIR / "foray.ts", directory / "foray.ts")
    exports = (
        "export function foray_buffer(): i32 { return foray.buffer(); }\n"
        "export function foray_init(len: i32): i32 { return foray.init(len, botInit); }\n"
        "export function foray_tick(len: i32): i32 { return foray.tick(len, botTick); }\n"
    )
    source = directory / "bot.ts"
    source.write_text(f'import * as foray from "./foray";\n{body}\n{exports}', encoding="utf-8")
    return source


# ------------------------------------------------------------------ the compiler and the recipe


def test_the_compiler_is_pinned_exactly() -> None:
    package = json.loads((ASSEMBLYSCRIPT_DIR / "package.json").read_text(encoding="utf-8"))
    lock = json.loads((ASSEMBLYSCRIPT_DIR / "package-lock.json").read_text(encoding="utf-8"))
    wanted = package["devDependencies"]["assemblyscript"]
    assert wanted[0].isdigit() and wanted.count(".") == 2, "an exact version, not a range"
    assert lock["packages"]["node_modules/assemblyscript"]["version"] == wanted
    assert lock["packages"][""]["devDependencies"] == package["devDependencies"]
    installed = pinned_asc()  # ./scripts/setup.sh installed exactly that version
    assert installed.is_file() and installed.is_relative_to(ASSEMBLYSCRIPT_DIR)


def test_a_missing_node_is_a_build_error_naming_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(BuildError, match=r"Node\.js .* install them, then run ./scripts/setup.sh"):
        compile_assemblyscript(TEMPLATE, tmp_path / "t.wasm")


def test_a_compiler_not_installed_is_a_build_error_naming_setup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copyfile(ASSEMBLYSCRIPT_DIR / "package-lock.json", tmp_path / "package-lock.json")
    monkeypatch.setattr("arena.baselines._build.ASSEMBLYSCRIPT_DIR", tmp_path)
    with pytest.raises(BuildError, match=r"is not installed, .* run ./scripts/setup.sh"):
        compile_assemblyscript(TEMPLATE, tmp_path / "t.wasm")
    other = tmp_path / "node_modules" / "assemblyscript"
    other.mkdir(parents=True)
    (other / "package.json").write_text('{"version": "0.1.0"}')
    with pytest.raises(BuildError, match=r"compiler is 0\.1\.0, .* pins 0\."):
        pinned_asc()


@pytest.mark.slow
def test_a_compile_error_is_a_build_error_with_the_compilers_words(tmp_path: Path) -> None:
    source = _source_bot(tmp_path, "function botInit(g: foray.Init): void { nope(); }")
    with pytest.raises(BuildError, match=r"compiling bot\.ts failed:\n(.|\n)*nope"):
        compile_assemblyscript(source, tmp_path / "bot.wasm")


@pytest.mark.slow
def test_builds_are_byte_reproducible(template: bytes, tmp_path: Path) -> None:
    # Elsewhere, deeper, under another name: the module embeds no path.
    elsewhere = tmp_path / "some" / "other" / "place"
    elsewhere.mkdir(parents=True)
    for name in ("foray.ts", "template.ts"):
        shutil.copyfile(BASELINES_DIR / name, elsewhere / name)
    again = compile_assemblyscript(elsewhere / "template.ts", tmp_path / "again.wasm")
    assert again == template
    assert hashlib.sha256(template).hexdigest() == TEMPLATE_SHA256, (
        "the template's module changed: after an edit of template.ts or foray.ts update"
        " TEMPLATE_SHA256; otherwise the compiler is not the pinned one (./scripts/setup.sh)"
    )


@pytest.mark.slow
def test_the_recipe_gives_an_admissible_module_without_imports(template: bytes) -> None:
    admission = arena.check_module(template)
    assert admission.admissible, admission.reason
    module = wasmtime.Module(wasmtime.Engine(), template)
    assert module.imports == []
    exports = {e.name: e.type for e in module.exports}
    assert set(exports) == {"memory", "foray_buffer", "foray_init", "foray_tick"}
    assert isinstance(exports["memory"], wasmtime.MemoryType)


@pytest.mark.slow
def test_a_failed_check_traps_instead_of_importing_abort(tmp_path: Path) -> None:
    """``--use abort=``: an index out of range is a trap (a forfeit), not an env.abort import."""
    body = (
        "function botInit(g: foray.Init): void {}\n"
        "function botTick(obs: foray.Obs, acts: foray.Actions): void {\n"
        "  if (obs.tick == 3) acts.deposit(obs.own(obs.nOwn));\n"
        "}"
    )
    module = compile_assemblyscript(_source_bot(tmp_path, body), tmp_path / "bot.wasm")
    assert arena.check_module(module).admissible
    random = arena.Contestant("random", arena.load_baseline("random"))
    result = run_match(arena.Contestant("bot", module), random, seed=1)
    forfeit = result.sides[0].forfeit
    assert forfeit is not None and forfeit.kind is sim.ForfeitKind.TRAP and forfeit.tick == 3


# ------------------------------------------------------------------ the template and a bot


@pytest.mark.slow
def test_the_template_plays_the_c_templates_moves(template: bytes, tmp_path: Path) -> None:
    """foray.ts decodes and encodes the ABI exactly as foray.h does: same bot, same moves."""
    c = compile_c([BASELINES_DIR / "template.c"], tmp_path / "c.wasm", include=[BASELINES_DIR])
    for opponent, seed in (("random", 5), ("greedy-raider", 2)):
        other = arena.Contestant(opponent, arena.load_baseline(opponent))
        played = [
            run_match(arena.Contestant(name, blob), other, seed=seed)
            for name, blob in (("as", template), ("c", c))
        ]
        frames = [replays.read_replay(r.replay).frames for r in played]
        assert all(r.sides[0].forfeit is None for r in played)
        assert [f.actions for f in frames[0]] == [f.actions for f in frames[1]]
        assert played[0].sides[0].banked == played[1].sides[0].banked > 0


@pytest.mark.slow
def test_a_bot_written_with_the_sdk_plays_and_notes(economy: bytes) -> None:
    assert arena.check_module(economy).admissible
    for opponent in ("random", "border-soldier"):
        other = arena.Contestant(opponent, arena.load_baseline(opponent))
        result = run_match(arena.Contestant("economy", economy), other, seed=1)
        assert result.sides[0].forfeit is None and result.sides[0].banked > 0
        replay = replays.read_replay(result.replay)
        assert replay.ticks == sim.Config().max_ticks
        assert replays.verify_replay(result.replay).ok
        for game, frame in replays.iter_games(replay):
            kinds = [u.kind for u in game.observe(0).own]
            workers, soldiers = kinds.count(sim.WORKER), kinds.count(sim.SOLDIER)
            # Built by say, sayMore and sayInt (a negative number and a non-ASCII character).
            expected = f"workers {workers}, soldiers {soldiers} \u00b7 {-frame.tick}"
            assert frame.notes == (expected, None)
    assert result.sides[0].banked > 0


@pytest.mark.slow
def test_the_sdk_allocates_nothing_during_a_tick(economy: bytes) -> None:
    """The stub runtime never frees: memory after init stays the size it is, tick after tick."""
    random = arena.Contestant("random", arena.load_baseline("random"))
    played = run_match(arena.Contestant("economy", economy), random, seed=3)
    replay = replays.read_replay(played.replay)
    engine = wasmtime.Engine(wasmtime.Config())
    store = wasmtime.Store(engine)
    exports = wasmtime.Instance(store, wasmtime.Module(engine, economy), []).exports(store)
    memory, buffer, init, tick = (
        exports[k] for k in ("memory", "foray_buffer", "foray_init", "foray_tick")
    )
    assert isinstance(memory, wasmtime.Memory)
    assert isinstance(buffer, wasmtime.Func) and isinstance(init, wasmtime.Func)
    assert isinstance(tick, wasmtime.Func)
    at = buffer(store)
    limits = Limits()
    sizes = []
    for game, frame in replays.iter_games(replay):
        if frame.tick == 0:
            message = encode_init(
                game,
                0,
                seed=replay.header.seed,
                fuel_per_tick=limits.fuel_per_tick,
                max_memory_bytes=limits.max_memory_bytes,
            )
            memory.write(store, message, at)
            assert init(store, len(message)) == 0
            sizes.append(memory.data_len(store))
        last_fuel = replay.frames[frame.tick - 1].fuel[0] if frame.tick else 0
        message = encode_obs_for(game, 0, last_fuel)
        memory.write(store, message, at)
        n = tick(store, len(message))
        records = memory.read(store, at, at + 12 * n)
        assert list(struct.iter_unpack("<3i", records)) == list(frame.actions[0])
        sizes.append(memory.data_len(store))
    assert len(sizes) == replay.ticks + 1 and len(set(sizes)) == 1, sizes


# ------------------------------------------------------------------ the project for authors


@pytest.mark.slow
def test_the_project_builds_as_compile_assemblyscript_builds(
    template: bytes, tmp_path: Path
) -> None:
    """``assemblyscript_project()`` laid out builds with its build.sh (ASC_FLAGS), either
    with its own node_modules (here the arena's, linked) or with ``$ASC``, and makes the
    template's moves. (The bytes depend on the files' names, not only their contents:
    the compiler orders functions by names made of them.)"""
    project = tmp_path / "mybot"
    project.mkdir()
    for name, source in assemblyscript_project().items():
        shutil.copyfile(source, project / name)
    script = (project / "build.sh").read_text(encoding="utf-8")
    assert " ".join(ASC_FLAGS) in script and "npm ci --ignore-scripts" in script
    installed = ASSEMBLYSCRIPT_DIR / "node_modules"
    asc = installed / "assemblyscript" / "bin" / "asc.js"
    assert asc.is_file(), "the pinned compiler is not installed: run ./scripts/setup.sh"

    def build(env: dict[str, str]) -> bytes:
        (project / "controller.wasm").unlink(missing_ok=True)
        proc = subprocess.run(
            ["sh", "build.sh"], cwd=project, env=env, capture_output=True, text=True, check=False
        )
        assert proc.returncode == 0, proc.stderr
        return (project / "controller.wasm").read_bytes()

    env = {k: v for k, v in os.environ.items() if k != "ASC"}
    built = build({**env, "ASC": str(asc)})
    assert built == compile_assemblyscript(project / "controller.ts", tmp_path / "ref.wasm")
    (project / "node_modules").symlink_to(installed, target_is_directory=True)
    assert build(env) == built
    random = arena.Contestant("random", arena.load_baseline("random"))
    played = [
        run_match(arena.Contestant(name, blob), random, seed=5, config=sim.Config(max_ticks=60))
        for name, blob in (("project", built), ("template", template))
    ]
    frames = [replays.read_replay(r.replay).frames for r in played]
    assert [f.actions for f in frames[0]] == [f.actions for f in frames[1]]
