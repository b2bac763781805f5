"""Building a submission and proof runs (issue 11): arena new, build, prove, runs.

End to end once on the Foray case itself (C), once on a short copy of it
(Zig); everything else on the short copy, whose matches last 30 ticks.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import re
import shutil
import time
import tomllib
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import msgpack
import pytest
import tomli_w
import wasmtime

import arena
import arena.store
import replays
import web
from arena import cases, proving
from arena.baselines import BASELINES_DIR, assemblyscript_project, compile_assemblyscript, compile_c
from arena.cases import Case, RunOutcome
from arena.executors import Executor, JobFailed, MatchJob, Outcome, Session
from arena.proving import Build, BuildStatus, Lang
from arena.store import NotInStoreError, Origin, Store
from tests._support import BOTS, ZOO, Builder, InProcess, cli, worker_pids

Capture = pytest.CaptureFixture[str]
FORAY = cases.CATALOG_DIR / "adversarial" / "medium" / "foray" / "1"
# Each with the case's brief for the author (the manifest's ``prompt``).
C_FILES = ("README.md", "build.sh", "controller.c", "foray.h", "prompt.md", "rules.md")
ZIG_FILES = ("README.md", "build.sh", "controller.zig", "foray.zig", "prompt.md", "rules.md")
AS_FILES = (
    "README.md",
    "build.sh",
    "controller.ts",
    "foray.ts",
    "package-lock.json",
    "package.json",
    "prompt.md",
    "rules.md",
)
RUN_KEYS = {"run", "case", "controller", "outcome", "matches"}
"""The design's keys of ``arena prove --json``; the extras are listed in docs/cases.md."""
RUN_EXTRAS = {"reason", "build_log", "created_at"}
MATCH_KEYS = {"opponent", "role", "result", "scored", "outcome", "replay_status"}
HANG = """\
sh -c 'sleep 300 & echo $! > grandchild.pid; wait' &
echo $$ > leader.pid
sleep 300
"""


class _BrokenSession(Session):
    slots = 1

    async def play(self, job: MatchJob) -> Outcome:
        return JobFailed(job, "the worker died 2 time(s): SIGKILL")


class Broken(Executor):
    """An executor whose workers always die: every job comes back as JobFailed."""

    @asynccontextmanager
    async def open_session(self) -> AsyncIterator[Session]:
        yield _BrokenSession()


MakeCase = Callable[..., Case]


@pytest.fixture
def short_case(tmp_path: Path) -> MakeCase:
    """A copy of the Foray case in a catalog of its own: 30 ticks a match, ``change`` applied."""

    def make(change: Callable[[dict[str, Any]], object] | None = None) -> Case:
        root = tmp_path / "catalog"
        directory = root / "adversarial" / "medium" / "foray" / "1"
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(FORAY, directory)
        doc = tomllib.loads((FORAY / cases.MANIFEST).read_text(encoding="utf-8"))
        doc["simulation"]["max_ticks"] = 30
        if change is not None:
            change(doc)
        (directory / cases.MANIFEST).write_text(tomli_w.dumps(doc), encoding="utf-8")
        return cases.find_case("foray", catalog=root)

    return make


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store.open(tmp_path / "data")


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The data directory of the CLI's store, for this test alone."""
    path = tmp_path / "data"
    monkeypatch.setenv("FORAY_DATA_DIR", str(path))
    return path


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie (init may reap late)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def gone(pid: int, within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def imports_module() -> bytes:
    """A module that imports a host function: not admissible."""
    return bytes(wasmtime.wat2wasm((ZOO / "imports.wat").read_text()))


# --------------------------------------------------------------------------- vocabularies


def test_the_shared_vocabularies_are_defined_once() -> None:
    assert arena.store.Role is arena.cases.Role
    assert arena.store.RunOutcome is arena.cases.RunOutcome is arena.RunOutcome
    assert [r.scored for r in arena.cases.Role] == [True, True, False]


@pytest.mark.parametrize(
    ("outcomes", "judged"),
    [
        ("W", "win"),
        ("L", "loss"),
        ("D", "draw"),
        ("", "draw"),
        ("WL", "draw"),
        ("WWL", "win"),
        ("LDD", "loss"),
        ("WDL", "draw"),
    ],
)
def test_the_canonical_matches_score_the_run(outcomes: str, judged: str) -> None:
    words = {"W": RunOutcome.WIN, "L": RunOutcome.LOSS, "D": RunOutcome.DRAW}
    assert proving.score_run(words[o] for o in outcomes) is RunOutcome(judged)


def test_a_match_outcome_is_from_the_controllers_side() -> None:
    assert proving.match_outcome(0, 0) is RunOutcome.WIN
    assert proving.match_outcome(1, 0) is RunOutcome.LOSS
    assert proving.match_outcome(0, 1) is RunOutcome.LOSS
    assert proving.match_outcome(None, 1) is RunOutcome.DRAW
    with pytest.raises(ValueError, match="could-not-compete"):
        proving.score_run([RunOutcome.COULD_NOT_COMPETE])


# --------------------------------------------------------------------------- arena new


def test_new_lays_out_the_c_project(tmp_path: Path) -> None:
    case = cases.default_case()
    project = proving.new_project(tmp_path / "a" / "bot", case)
    assert project.lang is Lang.C and project.files == C_FILES
    assert sorted(p.name for p in project.directory.iterdir()) == list(C_FILES)
    for name in C_FILES:
        source = FORAY / name if name == "prompt.md" else FORAY / "workspace" / name
        assert (project.directory / name).read_bytes() == source.read_bytes()


def test_new_lays_out_the_zig_project(tmp_path: Path) -> None:
    project = proving.new_project(tmp_path / "bot", cases.default_case(), lang=Lang.ZIG)
    assert project.files == ZIG_FILES
    assert sorted(p.name for p in project.directory.iterdir()) == list(ZIG_FILES)
    zig = FORAY / "workspace" / "zig"
    for name in ("README.md", "build.sh", "controller.zig", "foray.zig"):
        assert (project.directory / name).read_bytes() == (zig / name).read_bytes()
    rules = FORAY / "workspace" / "rules.md"
    assert (project.directory / "rules.md").read_bytes() == rules.read_bytes()


def test_new_lays_out_the_arenas_assemblyscript_project(tmp_path: Path) -> None:
    """Foray v1's workspace has no assemblyscript/ folder (a published version gains none):
    the project is the arena's own, with the case's rules."""
    case = cases.default_case()
    assert case.paths.workspace is not None
    assert not (case.paths.workspace / "assemblyscript").exists()
    assert proving.languages(case) == (Lang.C, Lang.ZIG, Lang.ASSEMBLYSCRIPT)
    project = proving.new_project(tmp_path / "bot", case, lang=Lang.ASSEMBLYSCRIPT)
    assert project.files == AS_FILES and project.lang.label == "AssemblyScript"
    assert sorted(p.name for p in project.directory.iterdir()) == list(AS_FILES)
    for name, source in assemblyscript_project().items():
        assert (project.directory / name).read_bytes() == source.read_bytes()
    rules = FORAY / "workspace" / "rules.md"
    assert (project.directory / "rules.md").read_bytes() == rules.read_bytes()


def test_a_cases_own_assemblyscript_folder_comes_first(
    tmp_path: Path, short_case: MakeCase
) -> None:
    case = short_case()
    assert case.paths.workspace is not None
    (case.paths.workspace / "assemblyscript").mkdir()
    (case.paths.workspace / "assemblyscript" / "controller.ts").write_text("// the case's")
    project = proving.new_project(tmp_path / "bot", case, lang=Lang.ASSEMBLYSCRIPT)
    assert project.files == ("README.md", "controller.ts", "prompt.md", "rules.md")
    assert (project.directory / "controller.ts").read_text() == "// the case's"
    c = proving.new_project(tmp_path / "c", case)
    assert not any(name.startswith("assemblyscript") for name in c.files)


def test_the_arenas_project_fits_only_a_case_it_builds_for(short_case: MakeCase) -> None:
    other_module = short_case(lambda doc: doc["build"].__setitem__("module", "out/bot.wasm"))
    assert Lang.ASSEMBLYSCRIPT not in proving.languages(other_module)
    other_build = short_case(lambda doc: doc["build"].__setitem__("build", "make"))
    assert Lang.ASSEMBLYSCRIPT not in proving.languages(other_build)


def test_new_takes_only_a_new_or_empty_directory(
    tmp_path: Path, capsys: Capture, data: Path
) -> None:
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "mine.c").write_text("int x;")
    (tmp_path / "file").write_text("")
    for target, words in (("full", "not empty (1 entry)"), ("file", "it is a file")):
        ran = cli(capsys, "new", str(tmp_path / target))
        assert ran.code == 2 and words in ran.err, ran.err
    assert (tmp_path / "full" / "mine.c").read_text() == "int x;"
    (tmp_path / "empty").mkdir()
    ran = cli(capsys, "new", str(tmp_path / "empty"), "--lang", "zig")
    assert ran.code == 0 and "a Zig controller project for case foray v1" in ran.out
    assert cli(capsys, "new", str(tmp_path / "x"), "--lang", "rust").code == 2


def test_case_names_a_slug_or_a_slug_and_version(
    tmp_path: Path, capsys: Capture, data: Path
) -> None:
    ran = cli(capsys, "new", str(tmp_path / "one"), "--case", "foray/1")
    assert ran.code == 0 and "case foray v1" in ran.out, ran.err
    # "¹" is a digit to str.isdigit, not to int(): still the operator's error, no traceback.
    for bad in ("foray/one", "foray/\u00b9", "foray/-1"):
        ran = cli(capsys, "new", str(tmp_path / "two"), "--case", bad)
        assert ran.code == 2 and "give SLUG or SLUG/VERSION" in ran.err, (bad, ran.err)
    ran = cli(capsys, "new", str(tmp_path / "two"), "--case", "nobody")
    assert ran.code == 2 and "nobody" in ran.err, ran.err
    assert not (tmp_path / "two").exists()


def test_new_names_the_languages_a_case_has(tmp_path: Path, short_case: MakeCase) -> None:
    case = short_case()
    assert case.paths.workspace is not None
    shutil.rmtree(case.paths.workspace / "zig")
    assert proving.languages(case) == (Lang.C, Lang.ASSEMBLYSCRIPT)
    with pytest.raises(
        arena.ArenaError, match=r"no zig workspace \(languages: c, assemblyscript\)"
    ):
        proving.new_project(tmp_path / "bot", case, lang=Lang.ZIG)
    assert not (tmp_path / "bot").exists()


def test_new_runs_the_cases_init_command(tmp_path: Path, short_case: MakeCase) -> None:
    case = short_case(lambda doc: doc.__setitem__("init", "echo ready > initialized; echo done"))
    project = proving.new_project(tmp_path / "bot", case)
    assert (project.directory / "initialized").read_text() == "ready\n"
    assert "done" in project.init_log
    failing = short_case(lambda doc: doc.__setitem__("init", "echo broken > half; exit 3"))
    with pytest.raises(arena.ArenaError, match=r"init command .* exited with status 3"):
        proving.new_project(tmp_path / "other", failing)
    # Nothing half laid out is left: the directory as it was, so the command can run again.
    assert not (tmp_path / "other").exists()
    (tmp_path / "empty").mkdir()
    with pytest.raises(arena.ArenaError, match=r"exited with status 3"):
        proving.new_project(tmp_path / "empty", failing)
    assert list((tmp_path / "empty").iterdir()) == []


# --------------------------------------------------------------------------- end to end


@pytest.mark.processes
def test_new_build_prove_end_to_end_in_c(tmp_path: Path, capsys: Capture, data: Path) -> None:
    """The Foray case itself: four opponents, 400 ticks, the local executor."""
    bot = tmp_path / "bot"
    assert cli(capsys, "new", str(bot)).code == 0
    ran = cli(capsys, "build", str(bot), "--json")
    assert ran.code == 0, ran.out
    built = ran.json()
    reference = compile_c([BASELINES_DIR / "template.c"], tmp_path / "ref.wasm", include=[bot])
    assert built["ok"] and built["status"] == "ok" and built["reason"] is None
    assert built["sha256"] == hashlib.sha256(reference).hexdigest()

    ran = cli(capsys, "prove", str(bot), "--json")
    assert ran.code == 0, ran.err
    proof = ran.json()
    assert set(proof) == RUN_KEYS | RUN_EXTRAS | {"found"}
    case = cases.default_case()
    assert proof["case"] == {"slug": "foray", "version": 1, "manifest_sha256": case.manifest_sha256}
    assert proof["controller"] == {"name": "bot", "sha256": built["sha256"]}
    # The template loses to the canonical opponent (docs/cases.md: the case is medium).
    assert proof["outcome"] == "loss" and proof["reason"] is None and not proof["found"]
    assert [(m["opponent"], m["role"], m["scored"]) for m in proof["matches"]] == [
        (o.name, str(o.role), o.role.scored) for o in case.opponents
    ]
    for m in proof["matches"]:
        assert set(m) == MATCH_KEYS
        result = m["result"]
        assert result["sides"][0]["sha256"] == built["sha256"]
        assert result["sides"][1]["name"] == m["opponent"]
        replay = Path(result["replay"])
        assert replay.parent == data / "replays"
        # The file the report names is the replay's own msgpack stream (not compressed).
        stored = replay.read_bytes()
        assert not replays.is_compressed(stored)
        assert hashlib.sha256(stored).hexdigest() == result["replay_sha256"]
        assert len(list(msgpack.Unpacker(io.BytesIO(stored)))) == result["ticks"] + 2
        side_a_won = {0: "win", 1: "loss", None: "draw"}[result["winner"]]
        assert m["outcome"] == side_a_won
    assert proof["matches"][0]["outcome"] == "loss"
    assert "modules" not in ran.out  # no module's path, the hidden opponent's least of all

    with Store.open(data) as store:
        assert store.controller("fuel-probe").hidden
        assert store.controller(built["sha256"]).origin is Origin.RUN
        assert len(store.runs()) == 1

    again = cli(capsys, "prove", str(bot), "--json")
    assert again.code == 0 and again.json() == {**proof, "found": True}
    shown = cli(capsys, "runs", "show", str(proof["run"]), "--json")
    assert shown.code == 0 and shown.json() == {k: v for k, v in proof.items() if k != "found"}
    listed = cli(capsys, "runs", "--json").json()["runs"]
    assert [(r["run"], r["outcome"], r["matches"]) for r in listed] == [(proof["run"], "loss", 4)]

    text = cli(capsys, "runs", "show", str(proof["run"]))
    assert f"run {proof['run']}: foray v1, controller bot" in text.out and ": loss" in text.out
    for o in case.opponents:
        assert o.name in text.out
    canonical = proof["matches"][0]["result"]["sides"]
    assert "exhibition (unscored)" in text.out
    assert "fuel (yours)" in text.out and f"{canonical[1]['fuel_total']:,}" in text.out
    for m in proof["matches"]:
        assert m["result"]["replay"] in text.out
    with Store.open(data) as store:
        assert len(store.runs()) == 1


@pytest.mark.processes
def test_new_build_prove_end_to_end_in_zig(
    tmp_path: Path, capsys: Capture, data: Path, short_case: MakeCase
) -> None:
    """A Zig project on the short copy of the case (the build's bytes: tests/test_cases.py)."""
    where = ("--catalog", str(short_case().directory.parents[3]))
    bot = tmp_path / "zigbot"
    assert cli(capsys, "new", str(bot), "--lang", "zig", *where).code == 0
    ran = cli(capsys, "build", str(bot), *where)
    assert ran.code == 0 and "built controller.wasm" in ran.out and "admissible" in ran.out
    sha = hashlib.sha256((bot / "controller.wasm").read_bytes()).hexdigest()

    ran = cli(capsys, "prove", str(bot), "--json", "--jobs", "2", *where)
    assert ran.code == 0, ran.err
    proof = ran.json()
    assert proof["controller"] == {"name": "zigbot", "sha256": sha}
    assert proof["outcome"] in ("win", "loss", "draw") and len(proof["matches"]) == 4
    assert all(m["result"]["ticks"] <= 30 for m in proof["matches"])
    assert all(m["result"]["sides"][0]["forfeit"] is None for m in proof["matches"])


@pytest.mark.processes
def test_new_build_prove_end_to_end_in_assemblyscript(
    tmp_path: Path, capsys: Capture, data: Path, short_case: MakeCase
) -> None:
    """The arena's AssemblyScript project: built with the arena's compiler ($ASC), proved."""
    where = ("--catalog", str(short_case().directory.parents[3]))
    bot = tmp_path / "asbot"
    ran = cli(capsys, "new", str(bot), "--lang", "assemblyscript", *where)
    assert ran.code == 0, ran.err
    assert "an AssemblyScript controller project for case foray v1" in ran.out
    ran = cli(capsys, "build", str(bot), *where)
    assert ran.code == 0 and "built controller.wasm" in ran.out and "admissible" in ran.out
    assert not (bot / "node_modules").exists()  # the arena's compiler, not an npm install
    built = (bot / "controller.wasm").read_bytes()
    assert built == compile_assemblyscript(bot / "controller.ts", tmp_path / "ref.wasm")

    ran = cli(capsys, "prove", str(bot), "--json", "--jobs", "2", *where)
    assert ran.code == 0, ran.err
    proof = ran.json()
    assert proof["controller"] == {"name": "asbot", "sha256": hashlib.sha256(built).hexdigest()}
    assert all(m["result"]["sides"][0]["forfeit"] is None for m in proof["matches"])


# --------------------------------------------------------------------------- builds that fail


def test_a_failed_build_could_not_compete(
    tmp_path: Path, capsys: Capture, data: Path, short_case: MakeCase
) -> None:
    case = short_case()
    bot = tmp_path / "bot"
    proving.new_project(bot, case)
    with (bot / "controller.c").open("a") as f:
        f.write("\nthis is not C;\n")
    build = proving.build_submission(bot, case)
    assert build.status is BuildStatus.FAILED and build.sha256 is None and build.blob is None
    assert build.reason == "the build command (sh build.sh) exited with status 1"
    assert "$ sh build.sh" in build.log and "error" in build.log

    where = ("--catalog", str(case.directory.parents[3]))
    ran = cli(capsys, "prove", str(bot), "--json", *where)
    assert ran.code == 1
    run = ran.json()
    assert set(run) == RUN_KEYS | RUN_EXTRAS | {"found"}
    assert run["outcome"] == "could-not-compete" and run["reason"] == build.reason
    assert run["matches"] == [] and run["controller"] == {"name": "bot", "sha256": None}
    assert "this is not C" in run["build_log"]
    # A failed build has no module to find a run by: proving again records again.
    assert cli(capsys, "prove", str(bot), *where).code == 1
    text = cli(capsys, "runs", "show", str(run["run"]))
    assert "could-not-compete" in text.out and "exited with status 1" in text.out
    assert "this is not C" in text.err  # the end of the build log
    with Store.open(data) as store:
        assert [r.outcome for r in store.runs()] == [RunOutcome.COULD_NOT_COMPETE] * 2
        assert store.build_log(run["run"]) == run["build_log"]


INSTALLED = """\
#include "installed.h"
#ifndef INSTALLED
#error the install command did not run
#endif
"""


def test_the_install_command_runs_before_the_build(tmp_path: Path, short_case: MakeCase) -> None:
    """``[build] install`` makes a header the controller includes: the build sees its work."""
    install = "echo '#define INSTALLED 1' > installed.h; echo fetched"
    case = short_case(lambda doc: doc["build"].__setitem__("install", install))
    bot = tmp_path / "bot"
    proving.new_project(bot, case)
    source = bot / "controller.c"
    source.write_text(INSTALLED + source.read_text())
    build = proving.build_submission(bot, case)
    assert build.ok, build.log
    assert build.log.index(f"$ {install}\nfetched\n") < build.log.index("$ sh build.sh")
    # Without the install the same submission does not build: the header is its doing.
    (bot / "installed.h").unlink()
    bare = proving.build_submission(bot, short_case())
    assert bare.status is BuildStatus.FAILED and "installed.h" in bare.log


def test_a_failed_install_could_not_compete_and_the_build_never_ran(
    tmp_path: Path, store: Store, short_case: MakeCase
) -> None:
    install = "echo no network; exit 7"
    case = short_case(lambda doc: doc["build"].__setitem__("install", install))
    bot = tmp_path / "bot"
    proving.new_project(bot, case)
    (bot / "build.sh").write_text("touch build-ran\n" + (bot / "build.sh").read_text())
    build = proving.build_submission(bot, case)
    assert build.status is BuildStatus.FAILED and build.sha256 is None
    assert build.reason == f"the install command ({install}) exited with status 7"
    assert "no network" in build.log and "$ sh build.sh" not in build.log
    assert not (bot / "build-ran").exists()

    proof = proving.prove(bot, case, store=store, executor=Broken())  # nothing is played
    assert proof.run.outcome is RunOutcome.COULD_NOT_COMPETE and not proof.report.matches
    assert proof.run.reason == build.reason
    assert store.build_log(proof.run.id) == proof.report.build_log
    assert "no network" in proof.report.build_log and not (bot / "build-ran").exists()


@pytest.mark.slow
def test_a_hanging_build_is_killed_with_its_whole_process_group(
    tmp_path: Path, capsys: Capture, data: Path, short_case: MakeCase
) -> None:
    case = short_case()
    bot = tmp_path / "bot"
    proving.new_project(bot, case)
    (bot / "build.sh").write_text(HANG)
    ran = cli(capsys, "prove", str(bot), "--timeout", "2", "--json")
    assert ran.code == 1
    run = ran.json()
    assert run["outcome"] == "could-not-compete"
    assert "did not finish within the limit of 2 s" in run["reason"]
    assert "process group was killed" in run["reason"]
    assert "[killed after" in run["build_log"]
    for pid_file in ("leader.pid", "grandchild.pid"):
        pid = int((bot / pid_file).read_text())
        assert gone(pid), f"{pid_file}: process {pid} outlived the build"


def test_a_build_leaves_nothing_running_behind(tmp_path: Path, short_case: MakeCase) -> None:
    """A command that ends with a background process still running: the group is ended too."""
    case = short_case()
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "build.sh").write_text("sleep 300 &\necho $! > sleeper.pid\necho started\n")
    build = proving.build_submission(bot, case, timeout=60)
    assert build.status is BuildStatus.FAILED
    assert build.reason == "the build made no controller.wasm"
    assert "started" in build.log and build.seconds < 60
    assert gone(int((bot / "sleeper.pid").read_text()))


# A process that leaves the build's process group (a new session) and outlives the command.
ESCAPE = "setsid sh -c 'echo $$ > escaped.pid; exec sleep 300' > /dev/null 2>&1 &\n"


@pytest.mark.slow
def test_a_process_that_left_the_group_is_ended_with_the_build(
    tmp_path: Path, short_case: MakeCase
) -> None:
    case = short_case()
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "build.sh").write_text(ESCAPE + "sleep 0.5\necho built\n")
    build = proving.build_submission(bot, case, timeout=60)
    assert build.status is BuildStatus.FAILED and "built" in build.log
    assert gone(int((bot / "escaped.pid").read_text()))


@pytest.mark.slow
def test_a_process_that_left_the_group_is_ended_at_the_limit(
    tmp_path: Path, short_case: MakeCase
) -> None:
    case = short_case()
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "build.sh").write_text(ESCAPE + "sleep 300\n")
    build = proving.build_submission(bot, case, timeout=1)
    assert build.status is BuildStatus.TIMED_OUT
    assert gone(int((bot / "escaped.pid").read_text()))


@pytest.mark.slow
def test_the_build_time_limit_is_the_cases_or_sooner(tmp_path: Path, short_case: MakeCase) -> None:
    case = short_case(lambda doc: doc.__setitem__("max_runtime_hours", 1 / 3600))
    assert case.max_runtime_seconds == pytest.approx(1.0)
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "build.sh").write_text("sleep 300\n")
    build = proving.build_submission(bot, case, timeout=600)
    assert build.status is BuildStatus.TIMED_OUT and "limit of 1 s" in (build.reason or "")
    with pytest.raises(arena.ArenaError, match="positive"):
        proving.build_submission(bot, case, timeout=0)


@pytest.mark.parametrize(
    ("script", "status", "reason"),
    [
        ("true", "failed", "the build made no controller.wasm"),
        ("mkdir controller.wasm", "failed", "is a directory, not a regular file"),
        ("exit 4", "failed", "the build command (sh build.sh) exited with status 4"),
        ("kill -9 $PPID", "failed", "(sh build.sh) was killed by SIGKILL"),
        ("printf '\\0asm' > controller.wasm", "failed", "controller.wasm is not admissible"),
    ],
)
def test_what_a_build_can_get_wrong(
    tmp_path: Path, short_case: MakeCase, script: str, status: str, reason: str
) -> None:
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "build.sh").write_text(script + "\n")
    build = proving.build_submission(bot, short_case())
    assert build.status == status and not build.ok
    assert reason in (build.reason or ""), build.reason
    assert build.to_json()["status"] == status and build.to_json()["ok"] is False


def test_a_build_log_keeps_its_end(tmp_path: Path, short_case: MakeCase) -> None:
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "build.sh").write_text("yes x | head -c 200000\necho the-end\nexit 1\n")
    build = proving.build_submission(bot, short_case())
    assert build.status is BuildStatus.FAILED
    assert build.log.startswith("[... ") and "bytes of output cut]" in build.log
    assert build.log.rstrip().endswith("the-end")
    assert len(build.log.encode()) <= proving.MAX_LOG_BYTES + 100


def test_arena_build_exits_1_with_the_reason(tmp_path: Path, capsys: Capture, data: Path) -> None:
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "build.sh").write_text("echo compiling; echo 'bot.c:1: error: no' >&2; exit 1\n")
    ran = cli(capsys, "build", str(bot))
    assert ran.code == 1
    assert "build failed: the build command (sh build.sh) exited with status 1" in ran.out
    assert "compiling" in ran.err and "bot.c:1: error: no" in ran.err
    assert cli(capsys, "build", str(tmp_path / "nowhere")).code == 2
    assert cli(capsys, "build", str(bot), "--timeout", "-1").code == 2


# --------------------------------------------------------------------------- modules


def test_a_module_with_imports_could_not_compete(
    tmp_path: Path, capsys: Capture, data: Path
) -> None:
    module = tmp_path / "importer.wasm"
    module.write_bytes(imports_module())
    sha = hashlib.sha256(module.read_bytes()).hexdigest()
    ran = cli(capsys, "prove", str(module), "--json")
    assert ran.code == 1
    run = ran.json()
    assert run["outcome"] == "could-not-compete" and run["matches"] == []
    assert run["controller"] == {"name": "importer", "sha256": sha}
    assert "importer.wasm is not admissible" in run["reason"] and "import" in run["reason"]
    with Store.open(data) as store, pytest.raises(NotInStoreError):
        store.controller(sha)  # an inadmissible module is not stored
    # The same module again: its run is found, not recorded again.
    again = cli(capsys, "prove", str(module), "--json")
    assert again.code == 1 and again.json() == {**run, "found": True}
    text = cli(capsys, "prove", str(module))
    assert f"found run {run['run']}" in text.out and "not admissible" in text.out


def test_a_built_module_with_imports_could_not_compete(
    tmp_path: Path, store: Store, short_case: MakeCase
) -> None:
    bot = tmp_path / "bot"
    bot.mkdir()
    (tmp_path / "importer.wasm").write_bytes(imports_module())
    (bot / "build.sh").write_text(f"cp {tmp_path / 'importer.wasm'} controller.wasm\n")
    proof = proving.prove(bot, short_case(), store=store, executor=InProcess())
    assert proof.run.outcome is RunOutcome.COULD_NOT_COMPETE and not proof.report.matches
    assert "controller.wasm is not admissible" in (proof.run.reason or "")
    assert proof.run.controller_sha256 == proof.build.sha256 is not None


def test_prove_a_module_file(tmp_path: Path, store: Store, short_case: MakeCase) -> None:
    """A .wasm proved as it is: stored with origin file; every opponent on every seed."""
    case = short_case(lambda doc: doc["match"].__setitem__("seeds", [3, 4]))
    module = tmp_path / "raider.wasm"
    module.write_bytes(arena.load_baseline("greedy-raider"))
    proof = proving.prove(module, case, store=store, executor=InProcess())
    assert isinstance(proof.build, Build) and proof.build.log == ""
    assert store.controller(proof.run.controller_sha256 or "").origin is Origin.FILE
    assert [(m.opponent, m.record.seed) for m in proof.report.matches] == [
        (o.name, seed) for o in case.opponents for seed in (3, 4)
    ]
    canonical = [m.outcome for m in proof.report.matches if m.role is cases.Role.CANONICAL]
    assert proof.run.outcome is proving.score_run(o for o in canonical if o is not None)
    assert all(m.side == 0 and m.replay is not None for m in proof.report.matches)

    found = proving.prove(module, case, store=store, executor=Broken())  # nothing is played
    assert found.found and found.report == proof.report
    again = proving.prove(module, case, store=store, again=True, executor=InProcess())
    assert not again.found and again.run.id != proof.run.id
    # Determinism: the same module on the same case plays the same replays.
    assert [m.record.result for m in again.report.matches] == [
        m.record.result for m in proof.report.matches
    ]
    assert [r.id for r in store.runs()] == [again.run.id, proof.run.id]


def test_a_run_under_another_manifest_of_the_version_is_not_found(
    tmp_path: Path, store: Store, short_case: MakeCase
) -> None:
    """A copy of the case version edited is another case: its run is not this one's."""
    module = tmp_path / "raider.wasm"
    module.write_bytes(arena.load_baseline("greedy-raider"))
    first = proving.prove(module, short_case(), store=store, executor=InProcess())
    edited = short_case(lambda doc: doc["simulation"].__setitem__("max_ticks", 20))
    assert edited.version == 1 and edited.manifest_sha256 != first.run.manifest_sha256
    proof = proving.prove(module, edited, store=store, executor=InProcess())
    assert not proof.found and proof.run.manifest_sha256 == edited.manifest_sha256
    ticks = [m.record.result.ticks for m in proof.report.matches if m.record.result]
    assert len(ticks) == len(proof.report.matches) and max(ticks) <= 20
    # Under its own manifest, each is found again.
    again = proving.prove(module, edited, store=store, executor=Broken())
    assert again.found and again.run.id == proof.run.id


def test_runs_show_labels_both_sides_banked_and_fuel(
    tmp_path: Path, capsys: Capture, data: Path, short_case: MakeCase
) -> None:
    """Each row: the controller's banked and fuel ("yours"), then the opponent's, whichever
    side each played; as the site's run page labels them."""
    module = tmp_path / "raider.wasm"
    module.write_bytes(arena.load_baseline("greedy-raider"))
    with Store.open(data) as store:
        proof = proving.prove(module, short_case(), store=store, executor=InProcess())
    text = cli(capsys, "runs", "show", str(proof.run.id))
    assert text.code == 0, text.err
    heads = ("banked (yours)", "banked (opponent)", "fuel (yours)", "fuel (opponent)")
    header = next(line for line in text.out.splitlines() if "opponent " in line)
    assert [header.index(h) for h in heads] == sorted(header.index(h) for h in heads)
    for m in proof.report.matches:
        assert m.record.result is not None
        mine, theirs = m.record.result.sides[m.side], m.record.result.sides[1 - m.side]
        row = next(line for line in text.out.splitlines() if line.startswith(f"{m.opponent} "))
        cells = (
            rf"\b{mine.banked}\s+{theirs.banked}\s+{mine.fuel_total:,}\s+{theirs.fuel_total:,}\s"
        )
        assert re.search(r"\bA\s+\d+\s+(win|loss|draw)\s", row), row
        assert re.search(cells, row), (row, mine, theirs)


def test_runs_show_marks_a_replay_that_is_missing_or_damaged(
    tmp_path: Path, capsys: Capture, data: Path, short_case: MakeCase
) -> None:
    """Each match's ``replay_status``: ``ok`` while its replay file is there and whole,
    ``missing`` once it is deleted, ``damaged`` once its bytes no longer hash to its name;
    in the JSON and in the table, and beside the replay's path."""
    module = tmp_path / "raider.wasm"
    module.write_bytes(arena.load_baseline("greedy-raider"))
    with Store.open(data) as store:
        proof = proving.prove(module, short_case(), store=store, executor=InProcess())
    shown = cli(capsys, "runs", "show", str(proof.run.id), "--json").json()
    assert [m["replay_status"] for m in shown["matches"]] == ["ok"] * len(shown["matches"])
    assert len(shown["matches"]) >= 2
    missing, damaged = (Path(m["result"]["replay"]) for m in shown["matches"][:2])
    missing.unlink()
    damaged.write_bytes(damaged.read_bytes()[:-1])
    shown = cli(capsys, "runs", "show", str(proof.run.id), "--json").json()
    statuses = [m["replay_status"] for m in shown["matches"]]
    assert statuses[:2] == ["missing", "damaged"] and set(statuses[2:]) <= {"ok"}
    text = cli(capsys, "runs", "show", str(proof.run.id))
    assert text.code == 0, text.err
    header = next(line for line in text.out.splitlines() if "opponent " in line)
    assert header.rstrip().endswith("replay")
    rows = [
        line.rstrip()
        for line in text.out.splitlines()
        if line.endswith(("ok", "missing", "damaged"))
    ]
    assert [row.rsplit(None, 1)[1] for row in rows][:2] == ["missing", "damaged"], text.out
    assert f"{missing} (missing)" in text.out and f"{damaged} (damaged)" in text.out


def test_a_module_that_is_not_there_is_the_operators_error(
    tmp_path: Path, capsys: Capture, data: Path
) -> None:
    ran = cli(capsys, "prove", str(tmp_path / "missing.wasm"))
    assert ran.code == 2 and "no submission there" in ran.err
    assert cli(capsys, "runs", "show", "7").code == 2
    assert cli(capsys, "runs").out.startswith("no runs yet")


def test_a_run_the_arena_could_not_play_is_not_recorded(
    tmp_path: Path, store: Store, short_case: MakeCase
) -> None:
    module = tmp_path / "random.wasm"
    module.write_bytes(arena.load_baseline("random"))
    with pytest.raises(proving.RunNotPlayedError, match=r"4 match.*nothing is recorded.*SIGKILL"):
        proving.prove(module, short_case(), store=store, executor=Broken())
    assert store.runs() == []


def test_a_run_past_the_cases_time_limit_is_not_recorded(
    tmp_path: Path, store: Store, short_case: MakeCase
) -> None:
    """``max_runtime_hours`` caps the whole run: once it is past, no other match starts. It
    passes while the module is gated or during the first match (each takes longer than
    0.0036 s), so at most that match is played."""
    case = short_case(lambda doc: doc.__setitem__("max_runtime_hours", 1e-6))
    module = tmp_path / "random.wasm"
    module.write_bytes(arena.load_baseline("random"))
    with pytest.raises(
        proving.RunNotPlayedError,
        match=r"did not finish within its limit of 0\.0036 s \(the case's max_runtime_hours"
        r" = 1e-06\): [01] of 4 matches played, nothing is recorded",
    ):
        proving.prove(module, case, store=store, executor=InProcess())
    assert store.runs() == [] and store.matches() == []


@pytest.mark.processes
def test_prove_timeout_caps_the_whole_run_and_kills_its_workers(
    tmp_path: Path, capsys: Capture, data: Path, build_c: Builder
) -> None:
    """The Foray case (four 400-tick matches) with a module that spends 4.6M of its 5M fuel
    a tick, on the local executor: 0.3 s is far too short (a match alone takes 0.4 s or
    more), and nothing is left running."""
    module = tmp_path / "slow.wasm"
    module.write_bytes(build_c(BOTS / "acts_and_notes.c", "TICK_SPIN=420000"))
    start = time.monotonic()
    ran = cli(capsys, "prove", str(module), "--timeout", "0.3", "--jobs", "2")
    elapsed = time.monotonic() - start
    assert ran.code == 2, ran.out
    assert "did not finish within its limit of 0.3 s (the timeout asked for)" in ran.err
    assert "of 4 matches played, nothing is recorded" in ran.err
    assert elapsed < 20
    assert worker_pids() == []  # the matches under way were cancelled with their workers
    with Store.open(data) as store:
        assert store.runs() == [] and store.matches() == []
    assert cli(capsys, "runs").out.startswith("no runs yet")


def test_a_case_outside_the_catalog_cannot_record_a_run(
    tmp_path: Path, store: Store, short_case: MakeCase
) -> None:
    loose = tmp_path / "loose"
    shutil.copytree(short_case().directory, loose)
    module = tmp_path / "random.wasm"
    module.write_bytes(arena.load_baseline("random"))
    with pytest.raises(arena.ArenaError, match="has no version"):
        proving.prove(module, cases.load_case(loose), store=store)


# --------------------------------------------------------------------------- a pushed run

Pushed = web.Bundle


@pytest.fixture
def proved(tmp_path: Path, store: Store, short_case: MakeCase) -> tuple[Case, Pushed]:
    """A proof run of greedy-raider on two seeds, as ``arena push`` sends it (a
    ``proving.ClaimedRun``)."""
    case = short_case(lambda doc: doc["match"].__setitem__("seeds", [3, 4]))
    module = tmp_path / "raider.wasm"
    module.write_bytes(arena.load_baseline("greedy-raider"))
    proof = proving.prove(module, case, store=store, executor=InProcess())
    return case, web.bundle_of(store, proof.run.id)


def test_a_pushed_run_is_checked_by_the_definition_of_a_run_that_proving_uses(
    tmp_path: Path, store: Store, proved: tuple[Case, Pushed]
) -> None:
    case, pushed = proved
    check = proving.check_pushed_run(case, pushed)
    planned = proving.planned_matches(case)
    assert [(m.opponent, m.result["seed"]) for m in pushed.matches] == [
        (o.name, seed) for o, seed in planned
    ]
    matches = check.results([proving.recheck_match(r) for r in check.rechecks])
    assert [m.result.replay for m in matches] == [m.replay for m in pushed.matches]
    assert str(proving.run_outcome(pushed.module_sha256, matches)) == pushed.outcome
    # Where it was proved, it is that run; elsewhere it is recorded once, as it was.
    (here,) = store.runs()
    assert proving.find_pushed_run(store, pushed) == here
    with Store.open(tmp_path / "server") as server:
        assert proving.find_pushed_run(server, pushed) is None
        for o in case.opponents:  # as a server stores them when it starts
            server.add_controller(o.read_module(), name=o.name, origin=Origin.BASELINE)
        recorded = proving.record_pushed_run(server, pushed, matches)
        assert proving.find_pushed_run(server, pushed) == recorded
        there = proving.run_report(server, recorded.id)
    mine = proving.run_report(store, here.id)
    assert (there.run.outcome, there.build_log) == (here.outcome, mine.build_log)
    assert [(m.opponent, m.role, m.side, m.outcome, m.record.result) for m in there.matches] == [
        (m.opponent, m.role, m.side, m.outcome, m.record.result) for m in mine.matches
    ]


def _forged(pushed: Pushed, index: int, **changes: Any) -> Pushed:
    matches = list(pushed.matches)
    matches[index] = dataclasses.replace(matches[index], **changes)
    return dataclasses.replace(pushed, matches=tuple(matches))


@pytest.mark.parametrize(
    ("forge", "message"),
    [
        (lambda p: dataclasses.replace(p, case_version=2), "this server plays foray/1"),
        (lambda p: dataclasses.replace(p, manifest_sha256="0" * 64), "the run's manifest"),
        (lambda p: dataclasses.replace(p, outcome="could-not-compete"), "a run to push competed"),
        (lambda p: dataclasses.replace(p, matches=p.matches[1:]), "7 matches of the 8 expected"),
        (lambda p: _forged(p, 0, opponent="nobody"), "'nobody' is not an opponent of the case"),
        (lambda p: _forged(p, 0, role="evidence"), "is canonical in the case, not evidence"),
    ],
)
def test_a_pushed_run_not_shaped_as_a_run_of_the_case_is_refused_before_any_replay(
    proved: tuple[Case, Pushed], forge: Callable[[Pushed], Pushed], message: str
) -> None:
    case, pushed = proved
    with pytest.raises(proving.RunRefusedError, match=f"^refused: .*{message}"):
        proving.check_pushed_run(case, forge(pushed))


def test_a_pushed_match_or_outcome_that_does_not_play_again_is_refused(
    proved: tuple[Case, Pushed],
) -> None:
    case, pushed = proved
    other = pushed.matches[1].replay
    swapped = proving.check_pushed_run(case, _forged(pushed, 0, replay=other))
    with pytest.raises(proving.RunRefusedError, match=r"^refused: match 0 \(against"):
        swapped.results([proving.recheck_match(r) for r in swapped.rechecks])
    result = {**pushed.matches[2].result, "ticks": 1}
    fibbed = proving.check_pushed_run(case, _forged(pushed, 2, result=result))
    with pytest.raises(proving.RunRefusedError, match=r"differs from the match .* \(keys ticks\)"):
        fibbed.results([proving.recheck_match(r) for r in fibbed.rechecks])
    forged = "win" if pushed.outcome != "win" else "loss"
    boasted = proving.check_pushed_run(case, dataclasses.replace(pushed, outcome=forged))
    with pytest.raises(proving.RunRefusedError, match=f"the run says {forged}; its canonical"):
        boasted.results([proving.recheck_match(r) for r in boasted.rechecks])
