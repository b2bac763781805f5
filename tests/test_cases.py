"""Case manifests (case-manifest format, docs/cases.md): the loader, one test per rule.

Each broken manifest is the committed Foray case copied into a temporary
catalog with one thing changed, so every test breaks exactly the rule it names.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import msgspec
import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings, strategies as st

import arena
import arena.match
import arena.sandbox
import replays
import sim
from arena import cases
from arena.baselines import BASELINES, BASELINES_DIR, ZIG_BUILD_FLAGS, compile_c, compile_zig
from arena.cases import Case, CaseError, CaseInvalidError, Role, _cached
from tests._support import ROOT, cli, examples

Capture = pytest.CaptureFixture[str]

FORAY = cases.CATALOG_DIR / "adversarial" / "medium" / "foray" / "1"
LAYOUT = ("adversarial", "medium", "foray", "1")
Doc = dict[str, Any]


def foray_doc() -> Doc:
    return tomllib.loads((FORAY / cases.MANIFEST).read_text(encoding="utf-8"))


MakeCase = Callable[..., Path]
"""The ``make_case`` fixture: (root, change=None, *, layout=LAYOUT) -> a case directory."""


def rewrite(path: Path, data: bytes) -> None:
    """Replace a file of a made case: its files are hard links to the pristine copy."""
    path.unlink()
    path.write_bytes(data)


@pytest.fixture(scope="session")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One copy of the Foray case that every made case links its files to (links are cheap)."""
    base = tmp_path_factory.mktemp("pristine") / "foray"
    shutil.copytree(FORAY, base)
    yield base
    for path in sorted(base.rglob("*")):
        if path.is_file():
            original = FORAY / path.relative_to(base)
            assert path.read_bytes() == original.read_bytes(), f"a test wrote {path} in place"


@pytest.fixture
def make_case(pristine: Path) -> MakeCase:
    def make(
        root: Path,
        change: Callable[[Doc], object] | None = None,
        *,
        layout: tuple[str, ...] = LAYOUT,
    ) -> Path:
        """A copy of the Foray case under ``root/cases``, its manifest changed by ``change``."""
        directory = root.joinpath("cases", *layout)
        shutil.copytree(pristine, directory, copy_function=os.link)
        if change is not None:
            doc = foray_doc()
            change(doc)
            rewrite(directory / cases.MANIFEST, tomli_w.dumps(doc).encode())
        return directory

    return make


def errors_of(directory: Path) -> tuple[CaseError, ...]:
    with pytest.raises(CaseInvalidError) as info:
        cases.load_case(directory)
    assert info.value.errors, "an invalid case carries its errors"
    return info.value.errors


def assert_error(directory: Path, table: str, key: str, *words: str) -> CaseError:
    """The case is invalid with an error about ``[table] key`` whose message has ``words``."""
    errors = errors_of(directory)
    found = [e for e in errors if e.table == table and e.key == key]
    assert found, f"no error about [{table}] {key} in:\n" + "\n".join(map(str, errors))
    message = found[0].message
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"
    assert found[0].file == str(directory / cases.MANIFEST)
    return found[0]


def delete(table: str, key: str) -> Callable[[Doc], object]:
    return lambda doc: (doc[table] if table else doc).pop(key)


def put(table: str, key: str, value: object) -> Callable[[Doc], object]:
    return lambda doc: (doc[table] if table else doc).__setitem__(key, value)


def put_opponent(index: int, key: str, value: object) -> Callable[[Doc], object]:
    return lambda doc: doc["opponent"][index].__setitem__(key, value)


# --------------------------------------------------------------------------- the Foray case


def test_the_foray_case_loads() -> None:
    case = cases.load_case(FORAY)
    assert (case.slug, case.version, case.name) == ("foray", 1, "Foray")
    assert case.type is cases.CaseType.ADVERSARIAL and case.difficulty is cases.Difficulty.MEDIUM
    assert case.ref == replays.CaseRef("foray", 1)
    assert case.directory == FORAY.resolve() and not case.experimental
    data = (FORAY / cases.MANIFEST).read_bytes()
    assert case.manifest_sha256 == hashlib.sha256(data).hexdigest()
    assert case.match.seeds == (0,) and case.match.structure is cases.Structure.ROUND_ROBIN
    assert case.game_map is None and case.map_for(7) == sim.generate_map(7, 32, 32)
    assert case.contract.exports == cases.REQUIRED_EXPORTS and case.contract.abi == 1
    assert case.build.module == "controller.wasm" and case.build.build == "sh build.sh"
    assert case.paths.workspace == FORAY.resolve() / "workspace"
    assert case.paths.prompt.read_text(encoding="utf-8").startswith("# Write a Foray controller")
    assert case.max_runtime_hours == 1.0 and case.max_runtime_seconds == 3600.0


def test_the_foray_opponents_have_their_roles() -> None:
    case = cases.load_case(FORAY)
    roles = {o.name: (o.role, o.hidden) for o in case.opponents}
    assert roles == {
        "border-soldier": (Role.CANONICAL, False),
        "greedy-raider": (Role.EVIDENCE, False),
        "fuel-probe": (Role.EVIDENCE, True),
        "random": (Role.EXHIBITION, False),
    }
    assert case.canonical.name == case.match.canonical == "border-soldier"
    assert [o.name for o in case.opponents_with(Role.EVIDENCE)] == ["greedy-raider", "fuel-probe"]
    assert Role.EVIDENCE.scored and Role.CANONICAL.scored and not Role.EXHIBITION.scored
    with pytest.raises(arena.ArenaError, match="no opponent 'nobody'"):
        case.opponent("nobody")


def test_the_default_cases_opponents_are_the_committed_baselines() -> None:
    case = cases.default_case()
    for opponent in case.opponents:
        committed = BASELINES[opponent.name].wasm.read_bytes()
        assert opponent.read_module() == committed, f"{opponent.name} drifted from its baseline"
        assert opponent.contestant() == arena.Contestant(opponent.name, committed)
        assert opponent.sha256 == hashlib.sha256(committed).hexdigest()
        assert opponent.hidden == BASELINES[opponent.name].hidden


@pytest.mark.parametrize(
    ("copy", "original"),
    [
        ("workspace/foray.h", BASELINES_DIR / "foray.h"),
        ("workspace/controller.c", BASELINES_DIR / "template.c"),
        ("workspace/zig/foray.zig", BASELINES_DIR / "foray.zig"),
        ("workspace/zig/controller.zig", BASELINES_DIR / "template.zig"),
    ],
)
def test_the_default_cases_workspace_never_drifts(copy: str, original: Path) -> None:
    directory = cases.default_case().directory
    assert (directory / copy).read_bytes() == original.read_bytes(), (
        f"{copy} differs from {original.name}: a published case is never edited, so a change"
        " goes into a new case version (docs/cases.md)"
    )


PUBLISHED = ROOT / "tests" / "golden" / "published-cases.sha256"
"""Every file of every published case version, with its sha256 (``sha256sum``'s format)."""


def test_published_case_versions_are_never_edited() -> None:
    """A published version is never edited: each of its files keeps the bytes it was
    published with, none is added or removed (a new version is added to the list once)."""
    pinned = {}
    for line in PUBLISHED.read_text().splitlines():
        digest, path = line.split("  ", 1)
        pinned[path] = digest
    published = {c.directory for c in cases.scan_catalog().visible()}  # experimental: not yet
    present = {
        f.relative_to(ROOT).as_posix(): hashlib.sha256(f.read_bytes()).hexdigest()
        for directory in published
        for f in directory.rglob("*")
        if f.is_file() and "__pycache__" not in f.parts
    }
    assert present == pinned, (
        "a published case version changed: add a new version instead (docs/cases.md), and"
        f" list its files in {PUBLISHED.name}"
    )


def test_the_workspace_builds_as_the_baselines_are_built(tmp_path: Path) -> None:
    case = cases.default_case()
    assert case.paths.workspace is not None
    work = tmp_path / "submission"
    shutil.copytree(case.paths.workspace, work)
    env = {**os.environ, "PYTHON": sys.executable}
    proc = subprocess.run(
        case.build.build, shell=True, cwd=work, env=env, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    built = (work / case.build.module).read_bytes()
    # The flags are arena.baselines.ZIG_FLAGS: the same source gives compile_c's bytes.
    source = case.paths.workspace / "controller.c"
    reference = compile_c([source], tmp_path / "ref.wasm", include=[case.paths.workspace])
    assert built == reference
    assert arena.check_module(built).admissible


def test_the_zig_workspace_builds_as_compile_zig_builds(tmp_path: Path) -> None:
    """The workspace's zig/ project: its build.sh uses ZIG_BUILD_FLAGS (-rdynamic included)."""
    case = cases.default_case()
    assert case.paths.workspace is not None
    work = tmp_path / "submission"
    shutil.copytree(case.paths.workspace / "zig", work)
    script = (work / "build.sh").read_text(encoding="utf-8")
    assert " ".join(ZIG_BUILD_FLAGS) in script and "-rdynamic" in ZIG_BUILD_FLAGS
    env = {**os.environ, "PYTHON": sys.executable}
    proc = subprocess.run(
        case.build.build, shell=True, cwd=work, env=env, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    built = (work / case.build.module).read_bytes()
    assert built == compile_zig(BASELINES_DIR / "template.zig", tmp_path / "ref.wasm")
    assert arena.check_module(built).admissible


def test_the_foray_case_spells_out_the_defaults() -> None:
    case = cases.default_case()
    assert case.rules == sim.Config()
    assert case.limits == arena.sandbox.Limits()
    doc = foray_doc()
    assert set(doc["simulation"]) == {*sim.Config().to_dict(), "map"}, "every constant, explicitly"
    assert doc["sandbox"]["tick_wall_ms"] == arena.sandbox.Limits().tick_timeout * 1000


def test_the_default_case_is_the_newest_published_foray() -> None:
    case = cases.default_case()
    assert (case.slug, case.version) == (cases.DEFAULT_SLUG, 1)
    assert cases.find_case("foray", 1) == case


def test_the_catalog_lists_the_foray_case() -> None:
    catalog = cases.scan_catalog()
    assert not catalog.problems, [str(p) for p in catalog.problems]
    assert [(c.slug, c.version) for c in catalog.cases] == [("foray", 1)]


# --------------------------------------------------------------------------- the catalog


def test_find_case_takes_the_newest_version_that_is_not_experimental(
    tmp_path: Path, make_case: MakeCase
) -> None:
    make_case(tmp_path)
    make_case(tmp_path, layout=("adversarial", "medium", "foray", "2"))
    make_case(
        tmp_path, put("", "experimental", True), layout=("adversarial", "medium", "foray", "3")
    )
    catalog = tmp_path / "cases"
    assert cases.find_case("foray", catalog=catalog).version == 2
    assert cases.find_case("foray", 3, catalog=catalog).experimental
    assert cases.default_case(catalog).version == 2
    listed = cases.scan_catalog(catalog)
    assert [c.version for c in listed.cases] == [1, 2, 3]
    assert [c.version for c in listed.visible()] == [1, 2]
    assert [c.version for c in listed.visible(include_experimental=True)] == [1, 2, 3]


def test_find_case_names_what_the_catalog_has(tmp_path: Path, make_case: MakeCase) -> None:
    make_case(tmp_path)
    catalog = tmp_path / "cases"
    with pytest.raises(cases.CaseNotFoundError, match=r"no case 'nope'.*cases: foray"):
        cases.find_case("nope", catalog=catalog)
    with pytest.raises(cases.CaseNotFoundError, match=r"no version 9 \(versions: 1\)"):
        cases.find_case("foray", 9, catalog=catalog)
    with pytest.raises(cases.CaseNotFoundError, match="no case catalog"):
        cases.find_case("foray", catalog=tmp_path / "missing")


# --------------------------------------------------------------------------- kept loaded


def _entries(cache: Path) -> list[Path]:
    return sorted(cache.glob("*.case"))


def test_the_default_case_is_taken_from_the_cache_while_nothing_changed(
    tmp_path: Path, make_case: MakeCase
) -> None:
    make_case(tmp_path)
    catalog, cache = tmp_path / "cases", tmp_path / "cache"
    first = cases.default_case(catalog, cache=cache)
    assert first == cases.default_case(catalog)  # the case as loading it gives
    (entry,) = _entries(cache)
    # An entry holding another name shows that the next call reads the entry, not the TOML.
    _cached._write(cache, entry, msgspec.structs.replace(first, name="from the cache"))
    assert cases.default_case(catalog, cache=cache).name == "from the cache"
    assert _entries(cache) == [entry]


@pytest.mark.parametrize("change", ["manifest", "opponent module", "new file"])
def test_a_changed_case_is_loaded_and_checked_afresh(
    tmp_path: Path, make_case: MakeCase, change: str
) -> None:
    directory = make_case(tmp_path)
    catalog, cache = tmp_path / "cases", tmp_path / "cache"
    cached = cases.default_case(catalog, cache=cache)
    (old,) = _entries(cache)
    if change == "manifest":
        doc = foray_doc()
        doc["name"] = "Foray, renamed"
        rewrite(directory / cases.MANIFEST, tomli_w.dumps(doc).encode())
        assert cases.default_case(catalog, cache=cache).name == "Foray, renamed"
    elif change == "opponent module":  # the manifest's sha256 no longer matches
        module = cached.opponents[0].module
        rewrite(module, module.read_bytes() + b"\0")
        with pytest.raises(CaseInvalidError, match="sha256"):
            cases.default_case(catalog, cache=cache)
        return
    else:
        (directory / "notes.md").write_text("a file the case does not name\n", encoding="utf-8")
        assert cases.default_case(catalog, cache=cache) == cases.default_case(catalog)
    (new,) = _entries(cache)  # the directory's older entry is gone
    assert new != old


def test_a_damaged_entry_is_never_trusted(tmp_path: Path, make_case: MakeCase) -> None:
    make_case(tmp_path)
    catalog, cache = tmp_path / "cases", tmp_path / "cache"
    case = cases.default_case(catalog, cache=cache)
    (entry,) = _entries(cache)
    whole = entry.read_bytes()
    for damaged in (whole[:-1], whole[:-1] + bytes([whole[-1] ^ 1]), b"", whole[:20]):
        entry.write_bytes(damaged)
        assert cases.default_case(catalog, cache=cache) == case
        assert entry.read_bytes() == whole  # loaded again and kept again


def test_the_catalog_reports_broken_cases_and_unhosted_types(
    tmp_path: Path, make_case: MakeCase
) -> None:
    make_case(tmp_path)
    make_case(tmp_path, put("", "slug", "Bad"), layout=("adversarial", "easy", "bad", "1"))
    make_case(tmp_path, put("", "type", "performance"), layout=("performance", "easy", "perf", "1"))
    (tmp_path / "cases" / "adversarial" / "hard" / "empty" / "1").mkdir(parents=True)
    (tmp_path / "cases" / "adversarial" / "hard" / "other" / "v1").mkdir(parents=True)
    catalog = cases.scan_catalog(tmp_path / "cases")
    assert [c.slug for c in catalog.cases] == ["foray"]
    kinds = sorted(type(p).__name__ for p in catalog.problems)
    assert kinds == [
        "CaseInvalidError",
        "CaseInvalidError",
        "CaseNotFoundError",
        "UnsupportedCaseTypeError",
    ]
    assert any("not a version directory" in str(p) for p in catalog.problems)


# --------------------------------------------------------------------------- the root keys


@pytest.mark.parametrize(
    "key", ["slug", "name", "type", "difficulty", "tags", "changelog", "prompt"]
)
def test_each_required_root_key_is_required(tmp_path: Path, key: str, make_case: MakeCase) -> None:
    assert_error(make_case(tmp_path, delete("", key)), "", key, "missing")


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("slug", 3, ("must be a string",)),
        ("name", ["Foray"], ("must be a string", "array")),
        ("name", "  ", ("empty",)),
        ("type", True, ("must be a string", "boolean")),
        ("tags", "rts", ("array of strings",)),
        ("changelog", 1, ("must be a string",)),
        ("experimental", "yes", ("boolean",)),
        ("summary", 5, ("must be a string",)),
        ("init", [], ("must be a string",)),
        ("max_runtime_hours", 0, ("hours",)),
        ("max_runtime_hours", -1.5, ("hours",)),
        ("max_runtime_hours", 25, ("hours",)),
        ("max_runtime_hours", float("nan"), ("hours",)),
        ("max_runtime_hours", True, ("hours",)),
    ],
)
def test_root_keys_have_their_types(
    tmp_path: Path, key: str, value: object, words: str, make_case: MakeCase
) -> None:
    assert_error(make_case(tmp_path, put("", key, value)), "", key, *words)


def test_a_tag_must_be_a_string(tmp_path: Path, make_case: MakeCase) -> None:
    assert_error(make_case(tmp_path, put("", "tags", ["ok", 2])), "", "tags[1]", "string")


@pytest.mark.parametrize("slug", ["Foray", "foray_1", "fo ray", "foray!", ""])
def test_the_slug_is_lowercase_letters_digits_and_dashes(
    tmp_path: Path, slug: str, make_case: MakeCase
) -> None:
    directory = make_case(tmp_path, put("", "slug", slug), layout=("x",))
    assert_error(directory, "", "slug")


def test_the_slug_is_bounded(tmp_path: Path, make_case: MakeCase) -> None:
    """Every replay of the case records its slug: a long one would make them all unreadable."""
    longest = "f" * 64
    assert cases.load_case(make_case(tmp_path / "ok", put("", "slug", longest), layout=("x",)))
    directory = make_case(tmp_path / "long", put("", "slug", longest + "f"), layout=("x",))
    assert_error(directory, "", "slug", "65 characters, over 64")


@pytest.mark.parametrize("case_type", ["performance", "optimisation"])
def test_a_type_the_arena_does_not_host_is_named(
    tmp_path: Path, case_type: str, make_case: MakeCase
) -> None:
    directory = make_case(tmp_path, put("", "type", case_type), layout=("x",))
    with pytest.raises(cases.UnsupportedCaseTypeError) as info:
        cases.load_case(directory)
    assert info.value.case_type == case_type
    assert f"case type {case_type!r} is not hosted" in str(info.value)
    assert "adversarial" in str(info.value)


def test_an_unhosted_type_still_gets_its_root_keys_checked(
    tmp_path: Path, make_case: MakeCase
) -> None:
    directory = make_case(
        tmp_path, lambda d: d.update(type="performance", slug="BAD"), layout=("x",)
    )
    with pytest.raises(cases.UnsupportedCaseTypeError) as info:
        cases.load_case(directory)
    assert {(e.table, e.key) for e in info.value.errors} == {("", "type"), ("", "slug")}


def test_the_difficulty_is_easy_medium_or_hard(tmp_path: Path, make_case: MakeCase) -> None:
    directory = make_case(tmp_path, put("", "difficulty", "extreme"), layout=("x",))
    assert_error(directory, "", "difficulty", "easy, medium, hard")


@pytest.mark.parametrize(
    ("layout", "key"),
    [
        (("adversarial", "hard", "foray", "1"), "difficulty"),
        (("adversarial", "medium", "other", "1"), "slug"),
        (("performance", "medium", "foray", "1"), "type"),
    ],
)
def test_the_catalog_directories_must_agree(
    tmp_path: Path, layout: tuple[str, ...], key: str, make_case: MakeCase
) -> None:
    assert_error(make_case(tmp_path, layout=layout), "", key, "does not match the directory")


def test_the_version_is_the_directory_name(tmp_path: Path, make_case: MakeCase) -> None:
    case = cases.load_case(make_case(tmp_path, layout=("adversarial", "medium", "foray", "12")))
    assert case.version == 12 and case.label == "foray v12"
    assert cases.version_of(Path("01")) is None and cases.version_of(Path("v1")) is None


def test_a_case_outside_the_catalog_has_no_version(tmp_path: Path, make_case: MakeCase) -> None:
    case = cases.load_case(make_case(tmp_path, layout=("my-case",)))
    assert case.version is None and case.label == "foray"
    with pytest.raises(arena.ArenaError, match="no version"):
        _ = case.ref


def test_optional_root_keys_have_defaults(tmp_path: Path, make_case: MakeCase) -> None:
    def strip(doc: Doc) -> None:
        for key in ("experimental", "summary", "max_runtime_hours", "workspace"):
            doc.pop(key)

    case = cases.load_case(make_case(tmp_path, strip))
    assert not case.experimental and case.summary is None and case.init is None
    assert case.max_runtime_hours == 1.0 and case.paths.workspace is None
    assert case.paths.description is None


def test_optional_root_keys_are_read(tmp_path: Path, make_case: MakeCase) -> None:
    def extra(doc: Doc) -> None:
        doc.update(description="changelog.md", init="true", max_runtime_hours=0.5)

    case = cases.load_case(make_case(tmp_path, extra))
    assert case.init == "true" and case.max_runtime_hours == 0.5
    assert case.paths.description == case.directory / "changelog.md"


# --------------------------------------------------------------------------- paths


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("changelog", "nope.md", ("does not exist",)),
        ("prompt", "workspace", ("not a file",)),
        ("workspace", "prompt.md", ("not a directory",)),
        ("workspace", ".", ("not inside the case directory",)),
        ("description", "missing.md", ("does not exist",)),
        ("prompt", "/etc/hostname", ("relative",)),
        ("prompt", "../1/prompt.md", ("'..'",)),
        ("changelog", "workspace/../../../x", ("'..'",)),
        ("prompt", "bad\0name", ("NUL",)),
    ],
)
def test_paths_exist_and_stay_in_the_case(
    tmp_path: Path, key: str, value: str, words: str, make_case: MakeCase
) -> None:
    assert_error(make_case(tmp_path, put("", key, value)), "", key, *words)


def test_a_symlink_out_of_the_case_is_refused(tmp_path: Path, make_case: MakeCase) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("not in the case\n")
    directory = make_case(tmp_path, put("", "prompt", "linked.md"))
    (directory / "linked.md").symlink_to(outside)
    assert_error(directory, "", "prompt", "not inside the case directory")


def test_a_symlink_inside_the_case_is_followed(tmp_path: Path, make_case: MakeCase) -> None:
    directory = make_case(tmp_path, put("", "prompt", "linked.md"))
    (directory / "linked.md").symlink_to(directory / "prompt.md")
    assert cases.load_case(directory).paths.prompt == (directory / "prompt.md").resolve()


def test_the_workspace_may_not_link_out_of_the_case(tmp_path: Path, make_case: MakeCase) -> None:
    directory = make_case(tmp_path)
    (directory / "workspace" / "secret").symlink_to(tmp_path)
    assert_error(directory, "", "workspace", "secret", "outside the case directory")


def test_the_workspace_may_not_hold_a_hidden_opponent(tmp_path: Path, make_case: MakeCase) -> None:
    directory = make_case(tmp_path)
    (directory / "workspace" / "probe.wasm").symlink_to(directory / "opponents" / "fuel_probe.wasm")
    assert_error(directory, "", "workspace", "probe.wasm", "hidden opponent")


# --------------------------------------------------------------------------- tables


@pytest.mark.parametrize(
    "table", ["build", "contract", "sandbox", "simulation", "match", "opponent", "replay"]
)
def test_each_adversarial_table_is_required(
    tmp_path: Path, table: str, make_case: MakeCase
) -> None:
    assert_error(make_case(tmp_path, delete("", table)), "", table, "missing")


def test_a_table_must_be_a_table(tmp_path: Path, make_case: MakeCase) -> None:
    assert_error(make_case(tmp_path, put("", "build", "make")), "", "build", "must be a table")


@pytest.mark.parametrize(
    ("key", "value", "shown"),
    [
        ("case", [{"input": "x"}], "[[case]]"),
        ("canvas", {"width": 3}, "[canvas]"),
        ("tool", {"name": "x"}, "[tool]"),
        ("output", {"kind": "x"}, "[output]"),
        ("check", [{"run": "x"}], "[[check]]"),
    ],
)
def test_the_tables_of_other_case_types_are_forbidden(
    tmp_path: Path, key: str, value: object, shown: str, make_case: MakeCase
) -> None:
    assert_error(make_case(tmp_path, put("", key, value)), "", key, shown, "forbidden")


@pytest.mark.parametrize(
    "table", ["", "build", "contract", "sandbox", "simulation", "match", "replay"]
)
def test_unknown_keys_are_errors_in_every_table(
    tmp_path: Path, table: str, make_case: MakeCase
) -> None:
    assert_error(make_case(tmp_path, put(table, "colour", "blue")), table, "colour", "unknown")


def test_unknown_keys_are_errors_in_an_opponent(tmp_path: Path, make_case: MakeCase) -> None:
    directory = make_case(tmp_path, put_opponent(2, "weight", 3))
    assert_error(directory, "opponent[2]", "weight", "unknown")


def test_every_error_is_reported_at_once(tmp_path: Path, make_case: MakeCase) -> None:
    def break_three(doc: Doc) -> None:
        doc["slug"] = "Not A Slug"
        doc["sandbox"]["fuel_per_tick"] = 0
        doc["opponent"][1]["role"] = "referee"
        doc["replay"]["version"] = 99

    errors = errors_of(make_case(tmp_path, break_three))
    assert {(e.table, e.key) for e in errors} == {
        ("", "slug"),
        ("sandbox", "fuel_per_tick"),
        ("opponent[1]", "role"),
        ("replay", "version"),
    }


def test_an_error_names_the_file_the_table_and_the_key(tmp_path: Path, make_case: MakeCase) -> None:
    error = assert_error(
        make_case(tmp_path, put("sandbox", "init_fuel", 0)), "sandbox", "init_fuel"
    )
    assert str(error).startswith(f"{error.file}: [sandbox] init_fuel: ")
    root = CaseError("m.toml", "", "slug", "bad")
    assert str(root) == "m.toml: [root] slug: bad"
    assert root.to_dict() == {"file": "m.toml", "table": "", "key": "slug", "message": "bad"}


# --------------------------------------------------------------------------- [build]


def test_build_needs_a_build_command_and_a_module(tmp_path: Path, make_case: MakeCase) -> None:
    assert_error(make_case(tmp_path, delete("build", "build")), "build", "build", "missing")


def test_build_install_is_optional_and_read(tmp_path: Path, make_case: MakeCase) -> None:
    case = cases.load_case(make_case(tmp_path, put("build", "install", "make deps")))
    assert case.build.install == "make deps"


@pytest.mark.parametrize("module", ["/abs/bot.wasm", "../bot.wasm", "out/", ".", ""])
def test_the_build_module_stays_in_the_submission(
    tmp_path: Path, module: str, make_case: MakeCase
) -> None:
    assert_error(make_case(tmp_path, put("build", "module", module)), "build", "module")


# --------------------------------------------------------------------------- [contract]


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("abi", 2, ("ABI version 2 is not supported",)),
        ("abi", "1", ("integer",)),
        ("entry", "main", ("foray_tick",)),
        ("exports", ["memory", "foray_buffer", "foray_init"], ("must contain foray_tick",)),
    ],
)
def test_the_contract_is_abi_1(
    tmp_path: Path, key: str, value: object, words: str, make_case: MakeCase
) -> None:
    assert_error(make_case(tmp_path, put("contract", key, value)), "contract", key, *words)


def test_the_contract_exports_are_the_abis_own(tmp_path: Path, make_case: MakeCase) -> None:
    exports = [*cases.REQUIRED_EXPORTS, "foray_note", "_start", "memory"]
    directory = make_case(tmp_path, put("contract", "exports", exports))
    errors = errors_of(directory)
    assert {e.key for e in errors} == {"exports[5]", "exports[6]"}
    exports = [*cases.REQUIRED_EXPORTS, "foray_note"]
    case = cases.load_case(make_case(tmp_path / "ok", put("contract", "exports", exports)))
    assert case.contract.exports[-1] == "foray_note"


# --------------------------------------------------------------------------- [sandbox]


@pytest.mark.parametrize(
    "key", ["fuel_per_tick", "init_fuel", "max_memory_bytes", "tick_wall_ms", "init_wall_ms"]
)
def test_each_sandbox_limit_is_required(tmp_path: Path, key: str, make_case: MakeCase) -> None:
    assert_error(make_case(tmp_path, delete("sandbox", key)), "sandbox", key, "missing")


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("fuel_per_tick", 0),
        ("fuel_per_tick", 10**13 + 1),
        ("init_fuel", -5),
        ("max_memory_bytes", 1024),
        ("max_memory_bytes", 2**31 + 1),
        ("tick_wall_ms", 0),
        ("tick_wall_ms", 3_600_001),
        ("init_wall_ms", -1),
        ("tick_wall_ms", 2.5),
        ("fuel_per_tick", True),
    ],
)
def test_sandbox_limits_are_within_what_the_sandbox_accepts(
    tmp_path: Path, key: str, value: object, make_case: MakeCase
) -> None:
    assert_error(make_case(tmp_path, put("sandbox", key, value)), "sandbox", key)


def test_sandbox_milliseconds_become_the_limits_seconds(
    tmp_path: Path, make_case: MakeCase
) -> None:
    def change(doc: Doc) -> None:
        doc["sandbox"].update(tick_wall_ms=1_500, init_wall_ms=3_600_000, fuel_per_tick=7)

    limits = cases.load_case(make_case(tmp_path, change)).limits
    assert (limits.tick_timeout, limits.init_timeout, limits.fuel_per_tick) == (1.5, 3600.0, 7)
    # The compile bounds are the arena's own.
    assert limits.compile_timeout == arena.sandbox.Limits().compile_timeout


def test_a_milliseconds_key_is_refused_in_milliseconds(tmp_path: Path, make_case: MakeCase) -> None:
    error = assert_error(
        make_case(tmp_path, put("sandbox", "init_wall_ms", -5)), "sandbox", "init_wall_ms"
    )
    assert error.message == "must be a whole number of milliseconds in (0, 3_600_000], got -5"


@pytest.mark.parametrize(
    ("wall", "fuel", "fuel_value", "least_ms"),
    [
        ("tick_wall_ms", "fuel_per_tick", 10**10, 1_100_000),
        ("init_wall_ms", "init_fuel", 10**9, 110_000),
    ],
)
def test_a_backstop_must_sit_well_above_what_its_fuel_can_take(
    tmp_path: Path, make_case: MakeCase, wall: str, fuel: str, fuel_value: int, least_ms: int
) -> None:
    """rules §8.7: 22 ns a fuel unit at worst, and the backstop at least five times that, or
    running out of fuel (deterministic) could be recorded as a timeout."""

    def change(doc: Doc) -> None:
        doc["sandbox"].update({fuel: fuel_value, wall: least_ms - 1})

    assert_error(make_case(tmp_path / "under", change), "sandbox", wall, fuel, f"{least_ms:_} ms")

    def enough(doc: Doc) -> None:
        doc["sandbox"].update({fuel: fuel_value, wall: least_ms})

    limits = cases.load_case(make_case(tmp_path / "at", enough)).limits
    assert getattr(limits, fuel) == fuel_value


def test_a_case_cannot_set_the_compile_bounds(tmp_path: Path, make_case: MakeCase) -> None:
    directory = make_case(tmp_path, put("sandbox", "compile_timeout", 60))
    assert_error(directory, "sandbox", "compile_timeout", "unknown", "compile bounds")


# --------------------------------------------------------------------------- [simulation]


@pytest.mark.parametrize("key", [*sim.Config().to_dict(), "map"])
def test_every_rules_constant_is_spelled_out(tmp_path: Path, key: str, make_case: MakeCase) -> None:
    assert_error(make_case(tmp_path, delete("simulation", key)), "simulation", key, "missing")


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("width", 7),
        ("height", 65),
        ("max_ticks", 0),
        ("start_workers", 5),
        ("max_units", 65),
        ("soldier_attack", -1),
        ("unit_vision", 65),
        ("worker_cost", True),
        ("colony_hp", 6.0),
    ],
)
def test_rules_constants_are_within_the_configs_bounds(
    tmp_path: Path, key: str, value: object, make_case: MakeCase
) -> None:
    assert_error(make_case(tmp_path, put("simulation", key, value)), "simulation", key)


def test_start_workers_may_not_exceed_max_units(tmp_path: Path, make_case: MakeCase) -> None:
    directory = make_case(tmp_path, put("simulation", "max_units", 2))
    assert_error(directory, "simulation", "start_workers", "exceeds max_units = 2")
    # Checked even when another constant is broken too.
    directory = make_case(tmp_path / "more", lambda d: d["simulation"].update(max_units=2, width=3))
    keys = {e.key for e in errors_of(directory)}
    assert keys == {"start_workers", "width"}


def test_a_map_file_in_the_case_is_the_map(tmp_path: Path, make_case: MakeCase) -> None:
    game_map = sim.generate_map(5, 16, 12)

    def change(doc: Doc) -> None:
        doc["simulation"].update(map="maps/arena.map", width=16, height=12)

    directory = make_case(tmp_path, change)
    (directory / "maps").mkdir()
    (directory / "maps" / "arena.map").write_text(sim.format_map(game_map))
    case = cases.load_case(directory)
    assert case.game_map == game_map and case.map_for(99) == game_map
    assert case.to_json()["map"] == "maps/arena.map"


def test_a_map_file_must_parse_and_fit_the_size(tmp_path: Path, make_case: MakeCase) -> None:
    directory = make_case(tmp_path, put("simulation", "map", "maps/arena.map"))
    (directory / "maps").mkdir()
    (directory / "maps" / "arena.map").write_text(sim.format_map(sim.generate_map(5, 16, 12)))
    assert_error(directory, "simulation", "map", "16x12", "32x32")
    (directory / "maps" / "arena.map").write_text("A..\n..B\n")
    assert_error(directory, "simulation", "map", "not a valid map")


def test_a_missing_map_file_is_an_error(tmp_path: Path, make_case: MakeCase) -> None:
    directory = make_case(tmp_path, put("simulation", "map", "nowhere.map"))
    assert_error(directory, "simulation", "map", "does not exist")


# --------------------------------------------------------------------------- [match]


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("structure", "swiss", ("round-robin, bracket",)),
        ("seeds", [], ("1 to 100",)),
        ("seeds", list(range(101)), ("1 to 100",)),
        ("seeds", 0, ("array of integers",)),
        ("canonical", "nobody", ("no [[opponent]] is named 'nobody'",)),
        ("canonical", "random", ("role is exhibition",)),
    ],
)
def test_match_values(
    tmp_path: Path, key: str, value: object, words: str, make_case: MakeCase
) -> None:
    assert_error(make_case(tmp_path, put("match", key, value)), "match", key, *words)


@pytest.mark.parametrize(
    ("seeds", "key"), [([1, -1], "seeds[1]"), ([2**32], "seeds[0]"), ([4, 4], "seeds[1]")]
)
def test_seeds_are_distinct_unsigned_32_bit(
    tmp_path: Path, seeds: list[int], key: str, make_case: MakeCase
) -> None:
    assert_error(make_case(tmp_path, put("match", "seeds", seeds)), "match", key)


def test_every_bad_seed_is_reported(tmp_path: Path, make_case: MakeCase) -> None:
    errors = errors_of(make_case(tmp_path, put("match", "seeds", [0, -1, -2, 0, 2**32])))
    keys = [e.key for e in errors if e.table == "match"]
    assert keys == ["seeds[1]", "seeds[2]", "seeds[3]", "seeds[4]"]


def test_several_canonical_seeds_are_kept_in_order(tmp_path: Path, make_case: MakeCase) -> None:
    case = cases.load_case(make_case(tmp_path, put("match", "seeds", [9, 2**32 - 1, 0])))
    assert case.match.seeds == (9, 2**32 - 1, 0)


def test_bracket_is_a_structure(tmp_path: Path, make_case: MakeCase) -> None:
    case = cases.load_case(make_case(tmp_path, put("match", "structure", "bracket")))
    assert case.match.structure is cases.Structure.BRACKET


def test_opponents_belong_at_the_root_not_in_match(tmp_path: Path, make_case: MakeCase) -> None:
    def nest(doc: Doc) -> None:
        doc["match"]["opponent"] = doc.pop("opponent")

    errors = errors_of(make_case(tmp_path, nest))
    assert {(e.table, e.key) for e in errors} >= {("match", "opponent"), ("", "opponent")}


# --------------------------------------------------------------------------- [[opponent]]


def test_exactly_one_opponent_is_canonical(tmp_path: Path, make_case: MakeCase) -> None:
    directory = make_case(tmp_path, put_opponent(0, "role", "evidence"))
    assert_error(directory, "opponent", "role", "no opponent has role canonical")
    directory = make_case(tmp_path / "two", put_opponent(3, "role", "canonical"))
    assert_error(directory, "opponent[3]", "role", "second canonical", "'border-soldier'")


def test_the_canonical_opponent_is_the_one_match_names(tmp_path: Path, make_case: MakeCase) -> None:
    def swap(doc: Doc) -> None:
        doc["opponent"][0]["role"] = "evidence"
        doc["opponent"][1]["role"] = "canonical"

    assert_error(make_case(tmp_path, swap), "match", "canonical", "'border-soldier'", "evidence")


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("role", "referee", ("canonical, evidence, exhibition",)),
        ("module", "opponents/none.wasm", ("does not exist",)),
        ("module", "/bin/true", ("relative",)),
        ("sha256", "0" * 64, ("does not match", "greedy_raider.wasm")),
        ("sha256", "ABC", ("64 lowercase hex",)),
        ("hidden", "no", ("boolean",)),
        ("name", "", ("empty",)),
        ("name", "border-soldier", ("also the name of opponent[0]",)),
    ],
)
def test_opponent_values(
    tmp_path: Path, key: str, value: object, words: str, make_case: MakeCase
) -> None:
    directory = make_case(tmp_path, put_opponent(1, key, value))
    assert_error(directory, "opponent[1]", key, *words)


def test_an_opponent_name_fits_a_replay_uncut(tmp_path: Path, make_case: MakeCase) -> None:
    """An opponent's name is a side's name in its replays, which keep at most MAX_NAME_CHARS."""
    most = replays.MAX_NAME_CHARS
    case = cases.load_case(make_case(tmp_path / "ok", put_opponent(3, "name", "r" * most)))
    assert case.opponents[3].name == "r" * most
    directory = make_case(tmp_path / "long", put_opponent(3, "name", "r" * (most + 1)))
    assert_error(directory, "opponent[3]", "name", f"{most + 1} characters, over {most}")


@pytest.mark.parametrize("key", ["name", "role", "module", "sha256"])
def test_opponent_keys_are_required(tmp_path: Path, key: str, make_case: MakeCase) -> None:
    directory = make_case(tmp_path, lambda doc: doc["opponent"][2].pop(key))
    assert_error(directory, "opponent[2]", key, "missing")


def test_hidden_defaults_to_false(tmp_path: Path, make_case: MakeCase) -> None:
    case = cases.load_case(make_case(tmp_path, lambda doc: doc["opponent"][2].pop("hidden")))
    assert not case.opponent("fuel-probe").hidden


def test_at_least_one_opponent(tmp_path: Path, make_case: MakeCase) -> None:
    assert_error(make_case(tmp_path, put("", "opponent", [])), "", "opponent", "at least one")


def test_opponent_must_be_an_array_of_tables(tmp_path: Path, make_case: MakeCase) -> None:
    directory = make_case(tmp_path, put("", "opponent", {"name": "x"}))
    assert_error(directory, "", "opponent", "array of tables")


def test_an_opponent_module_linked_out_of_the_case_is_refused(
    tmp_path: Path, make_case: MakeCase
) -> None:
    directory = make_case(tmp_path, put_opponent(3, "module", "opponents/elsewhere.wasm"))
    (directory / "opponents" / "elsewhere.wasm").symlink_to(BASELINES["random"].wasm)
    assert_error(directory, "opponent[3]", "module", "not inside the case directory")


def test_an_opponent_module_over_the_size_cap_is_refused(
    tmp_path: Path, make_case: MakeCase
) -> None:
    directory = make_case(tmp_path)
    rewrite(directory / "opponents" / "random.wasm", b"\0" * (arena.MAX_MODULE_BYTES + 1))
    assert_error(directory, "opponent[3]", "module", "larger than")


def test_a_module_changed_after_loading_is_not_played(tmp_path: Path, make_case: MakeCase) -> None:
    directory = make_case(tmp_path)
    case = cases.load_case(directory)
    rewrite(directory / "opponents" / "random.wasm", b"\0asm\1\0\0\0")
    with pytest.raises(arena.ArenaError, match="the case says"):
        case.opponent("random").read_module()


def bounded(*args: str) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` in a process of its own, killed (and the test failed) after 60 s.

    A FIFO opened for reading waits for a writer: opened so in this process, it
    would hang the test run instead of failing it.
    """
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=60, check=False, cwd=ROOT
    )


@pytest.mark.processes
def test_a_fifo_as_the_manifest_is_refused_at_once(tmp_path: Path, make_case: MakeCase) -> None:
    directory = make_case(tmp_path)
    manifest = directory / cases.MANIFEST
    manifest.unlink()
    os.mkfifo(manifest)
    ran = bounded("-m", "arena", "case", "check", str(directory))
    assert ran.returncode == 2, ran.stdout + ran.stderr
    assert f"{manifest}: the manifest is a FIFO, not a regular file" in ran.stderr
    # A directory in its place is refused the same way.
    manifest.unlink()
    manifest.mkdir()
    with pytest.raises(cases.CaseNotFoundError, match="the manifest is a directory"):
        cases.load_case(directory)


@pytest.mark.processes
def test_a_fifo_as_an_opponent_module_is_refused_at_once(
    tmp_path: Path, make_case: MakeCase
) -> None:
    directory = make_case(tmp_path)
    module = directory / "opponents" / "random.wasm"
    # Swapped in after the case was loaded, when the module is read to be played.
    script = (
        "import os, sys\n"
        "from arena import cases\n"
        "case = cases.load_case(sys.argv[1])\n"
        "os.unlink(sys.argv[2])\n"
        "os.mkfifo(sys.argv[2])\n"
        "case.opponent('random').read_module()\n"
    )
    ran = bounded("-c", script, str(directory), str(module))
    assert ran.returncode == 1 and "CaseNotFoundError" in ran.stderr, ran.stderr
    assert f"{module}: the module of opponent random is a FIFO, not a regular file" in ran.stderr
    # Already there when the case is checked: refused as not a file.
    ran = bounded("-m", "arena", "case", "check", str(directory))
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "[opponent[3]] module: 'opponents/random.wasm' is not a file" in ran.stdout


# --------------------------------------------------------------------------- [replay]


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [("format", "json-lines", ("foray-replay",)), ("version", 4, ("not supported",))],
)
def test_the_replay_format_is_supported(
    tmp_path: Path, key: str, value: object, words: str, make_case: MakeCase
) -> None:
    assert_error(make_case(tmp_path, put("replay", key, value)), "replay", key, *words)


def test_the_foray_case_names_replay_version_2_and_records_3() -> None:
    """Version 3 is version 2 with each side's memory: a case that names 2 records in 3;
    one that names 1 (whose checksums differ) in 1."""
    spec = cases.load_case(FORAY).replay
    assert spec == cases.ReplaySpec("foray-replay", 2) and spec.recorded_version == 3
    assert cases.REPLAY_VERSIONS == replays.SUPPORTED_VERSIONS == (1, 2, 3)
    recorded = {v: cases.ReplaySpec("foray-replay", v).recorded_version for v in (1, 2, 3)}
    assert recorded == {1: 1, 2: 3, 3: 3}


@pytest.mark.processes
def test_a_case_of_replay_version_1_records_its_matches_in_version_1(
    capsys: Capture, tmp_path: Path, make_case: MakeCase
) -> None:
    """``[replay] version`` selects the format the case's matches are written in."""
    directory = make_case(tmp_path, put("replay", "version", 1))
    out = cli(capsys, "case", "check", str(directory))
    assert out.code == 0, out.out + out.err
    assert cases.load_case(directory).replay.version == 1
    # A proof plays every opponent under the case (as tournaments, match and demo do).
    module = str(BASELINES["random"].wasm)
    catalog = str(tmp_path / "cases")
    out = cli(capsys, "prove", module, "--catalog", catalog, "--jobs", "1", "--json")
    assert out.code == 0, out.err
    matches = out.json()["matches"]
    assert len(matches) == 4
    for match in matches:
        header = replays.read_replay(Path(match["result"]["replay"]).read_bytes()).header
        assert (header.version, header.case) == (1, replays.CaseRef("foray", 1))
    canonical = matches[0]
    assert canonical["opponent"] == "border-soldier"
    path = canonical["result"]["replay"]
    ticks = canonical["result"]["ticks"]
    want = {"ok": True, "ticks": ticks, "mismatch_tick": None}
    out = cli(capsys, "replay", "verify", path, "--json")
    assert (out.code, out.json()) == (0, want)
    opponent = str(directory / "opponents" / "border_soldier.wasm")
    out = cli(capsys, "replay", "verify", path, "--modules", module, opponent, "--json")
    assert (out.code, out.json()) == (0, want), out.err


# --------------------------------------------------------------------------- the file itself


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b'slug = "foray"\nslug = "again"\n', "not valid TOML"),
        (b"name = [[[[\n", "not valid TOML"),
        (b"\xff\xfe not text", "not UTF-8"),
        (b"x = " + b"9" * 5000 + b"\n", "not valid TOML"),
        (b"x = " + b"[" * 5000 + b"]" * 5000 + b"\n", "not valid TOML"),
        (b"# " + b"x" * cases.MAX_MANIFEST_BYTES, "larger than"),
    ],
)
def test_a_manifest_that_is_not_toml_is_one_clear_error(
    tmp_path: Path, content: bytes, words: str, make_case: MakeCase
) -> None:
    directory = make_case(tmp_path)
    rewrite(directory / cases.MANIFEST, content)
    errors = errors_of(directory)
    assert len(errors) == 1 and words in errors[0].message
    assert str(errors[0]).startswith(str(directory / cases.MANIFEST) + ": ")


def test_a_missing_directory_or_manifest_is_not_found(tmp_path: Path) -> None:
    with pytest.raises(cases.CaseNotFoundError, match="no such case directory"):
        cases.load_case(tmp_path / "nowhere")
    with pytest.raises(cases.CaseNotFoundError, match=r"no test-case\.toml"):
        cases.load_case(tmp_path)


# --------------------------------------------------------------------------- the command line


def test_case_check_accepts_the_foray_case(capsys: Capture) -> None:
    out = cli(capsys, "case", "check", str(FORAY))
    assert out.code == 0, out.out + out.err
    assert "ok: foray v1, adversarial medium, 4 opponents" in out.out
    out = cli(capsys, "case", "check", str(FORAY), "--json")
    report = out.json()
    assert out.code == 0 and report["ok"] and report["errors"] == []
    assert report["case"]["slug"] == "foray" and report["case"]["version"] == 1
    assert report["case"]["manifest_sha256"] == cases.load_case(FORAY).manifest_sha256
    assert [o["role"] for o in report["case"]["opponents"]] == [
        "canonical",
        "evidence",
        "evidence",
        "exhibition",
    ]


def test_another_command_prints_a_cases_errors_one_to_a_line(
    capsys: Capture, tmp_path: Path, make_case: MakeCase, idle: bytes
) -> None:
    def break_two(doc: Doc) -> None:
        doc["simulation"]["max_ticks"] = 0
        doc["opponent"][3]["sha256"] = "f" * 64

    directory = make_case(tmp_path, break_two)
    module = tmp_path / "idle.wasm"
    module.write_bytes(idle)
    out = cli(capsys, "prove", str(module), "--catalog", str(tmp_path / "cases"))
    assert out.code == 2
    lines = out.err.splitlines()
    assert lines[0] == f"error: {directory}: not a valid case (2 errors):"
    assert lines[1].startswith(f"  {directory / cases.MANIFEST}: [simulation] max_ticks: ")
    assert lines[2].startswith(f"  {directory / cases.MANIFEST}: [opponent[3]] sha256: ")
    assert "\\n" not in out.err


def test_case_check_lists_every_error(capsys: Capture, tmp_path: Path, make_case: MakeCase) -> None:
    def break_three(doc: Doc) -> None:
        doc["tags"] = "rts"
        doc["simulation"]["max_ticks"] = 0
        doc["opponent"][3]["sha256"] = "f" * 64

    directory = make_case(tmp_path, break_three)
    manifest = directory / cases.MANIFEST
    out = cli(capsys, "case", "check", str(directory))
    assert out.code == 1
    lines = out.out.splitlines()
    assert lines[0] == f"{manifest}: [root] tags: must be an array of strings, got a string ('rts')"
    assert lines[1].startswith(f"{manifest}: [simulation] max_ticks: ")
    assert lines[2].startswith(f"{manifest}: [opponent[3]] sha256: does not match")
    assert lines[3] == f"{directory}: not a valid case: 3 errors"
    report = cli(capsys, "case", "check", str(directory), "--json").json()
    assert not report["ok"] and report["case"] is None
    assert [(e["table"], e["key"]) for e in report["errors"]] == [
        ("", "tags"),
        ("simulation", "max_ticks"),
        ("opponent[3]", "sha256"),
    ]
    assert all(e["file"] == str(manifest) for e in report["errors"])


def test_case_check_names_an_unhosted_type(
    capsys: Capture, tmp_path: Path, make_case: MakeCase
) -> None:
    directory = make_case(tmp_path, put("", "type", "performance"), layout=("x",))
    out = cli(capsys, "case", "check", str(directory))
    assert out.code == 1 and "case type 'performance' is not hosted" in out.out


def test_case_check_of_no_case_is_an_operator_error(capsys: Capture, tmp_path: Path) -> None:
    out = cli(capsys, "case", "check", str(tmp_path / "nowhere"))
    assert out.code == 2 and out.err.startswith("error: ") and "nowhere" in out.err
    out = cli(capsys, "case", "check", str(tmp_path))
    assert out.code == 2 and "no test-case.toml" in out.err


def test_cases_lists_the_catalog(capsys: Capture) -> None:
    out = cli(capsys, "cases")
    assert out.code == 0, out.err
    header, *rows = out.out.splitlines()
    assert header.split() == ["type", "difficulty", "slug", "version", "name"]
    assert [r.split() for r in rows] == [["adversarial", "medium", "foray", "1", "Foray"]]
    listing = cli(capsys, "cases", "--json").json()
    assert [(c["slug"], c["version"]) for c in listing["cases"]] == [("foray", 1)]
    assert listing["problems"] == []


def test_cases_hides_experimental_cases_unless_all(
    capsys: Capture, tmp_path: Path, make_case: MakeCase
) -> None:
    make_case(tmp_path)
    make_case(
        tmp_path, put("", "experimental", True), layout=("adversarial", "medium", "foray", "2")
    )
    catalog = str(tmp_path / "cases")
    out = cli(capsys, "cases", "--catalog", catalog)
    assert out.code == 0 and len(out.out.splitlines()) == 2
    out = cli(capsys, "cases", "--catalog", catalog, "--all")
    assert out.out.splitlines()[-1].split()[3:] == ["2", "Foray", "(experimental)"]
    listing = cli(capsys, "cases", "--catalog", catalog, "--all", "--json").json()
    assert [c["experimental"] for c in listing["cases"]] == [False, True]


def test_cases_reports_broken_cases_and_skips_unhosted_types(
    capsys: Capture, tmp_path: Path, make_case: MakeCase
) -> None:
    make_case(tmp_path)
    make_case(tmp_path, put("", "type", "performance"), layout=("performance", "easy", "perf", "1"))
    catalog = str(tmp_path / "cases")
    out = cli(capsys, "cases", "--catalog", catalog)
    assert out.code == 0 and "type 'performance' is not hosted here" in out.err
    make_case(tmp_path, put("", "name", ""), layout=("adversarial", "easy", "broken", "1"))
    out = cli(capsys, "cases", "--catalog", catalog)
    assert out.code == 1 and "[root] name: must not be empty" in out.err
    listing = cli(capsys, "cases", "--catalog", catalog, "--json").json()
    assert [p["unsupported_type"] for p in listing["problems"]] == [None, "performance"]


def test_a_case_builds_the_job_of_a_match_under_it(idle: bytes) -> None:
    """``Case.match_job``: the case's rules, limits, map, identity and replay version; the
    rules and map given replace the case's."""
    case = cases.default_case()
    a, b = arena.Contestant("a", idle), arena.Contestant("b", idle)
    job = case.match_job(a, b, seed=7)
    assert job == arena.MatchJob(
        a,
        b,
        seed=7,
        config=case.rules,
        limits=case.limits,
        game_map=case.game_map,
        case=case.ref,
        replay_version=3,
    )
    short, small = case.rules.replace(max_ticks=3), sim.generate_map(1, 24, 24)
    job = case.match_job(a, b, config=short, game_map=small)
    assert (job.config, job.game_map, job.limits, job.case) == (short, small, case.limits, case.ref)


def test_match_plays_under_the_foray_case_and_records_it(capsys: Capture, tmp_path: Path) -> None:
    path = tmp_path / "m.replay"
    out = cli(capsys, "match", "random", "random", "--max-ticks", "3", "--replay", str(path))
    assert out.code == 0, out.err
    header = replays.read_replay(path.read_bytes()).header
    case = cases.default_case()
    assert header.case == case.ref == replays.CaseRef("foray", 1)
    assert header.version == case.replay.recorded_version == replays.VERSION == 3
    assert header.config == case.rules.replace(max_ticks=3)
    assert dict(header.limits) == case.limits.to_dict()


def test_run_match_without_a_case_records_none(idle: bytes) -> None:
    result = arena.match.run_match(
        arena.Contestant("a", idle), arena.Contestant("b", idle), config=sim.Config(max_ticks=2)
    )
    assert replays.read_replay(result.replay).header.case is None


# --------------------------------------------------------------------------- properties

TOML_SCALARS = (
    st.booleans()
    | st.integers()
    | st.integers(min_value=-(2**64), max_value=2**64)
    | st.floats()
    | st.text(max_size=20)
    | st.sampled_from(["generated", "foray", "canonical", "opponents/random.wasm", "1", "."])
)
TOML_VALUES = st.recursive(
    TOML_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("hypothesis").joinpath("cases", *LAYOUT)
    shutil.copytree(FORAY, directory)
    return directory


def _outcome(directory: Path) -> Case | CaseInvalidError:
    """A case or a clear error: any other exception fails the test."""
    try:
        return cases.load_case(directory)
    except CaseInvalidError as exc:
        assert exc.errors and all(str(e).startswith(e.file + ": ") for e in exc.errors)
        return exc


@settings(
    max_examples=examples(50),
    deadline=timedelta(seconds=10),  # a hang guard, not a speed figure
    suppress_health_check=[HealthCheck.too_slow],
)
@given(data=st.data())
def test_mutated_manifests_give_a_case_or_a_clear_error(scratch: Path, data: st.DataObject) -> None:
    doc = foray_doc()
    for _ in range(data.draw(st.integers(0, 4), label="changes")):
        tables = [doc, *(v for v in doc.values() if isinstance(v, dict))]
        # An earlier change may have made "opponent" a scalar: only a list holds tables.
        opponents = doc.get("opponent")
        if isinstance(opponents, list):
            tables += [o for o in opponents if isinstance(o, dict)]
        table = data.draw(st.sampled_from(tables))
        keys = sorted(table)
        action = data.draw(st.sampled_from(["delete", "replace", "add"]))
        if action == "add" or not keys:
            table[data.draw(st.text(min_size=1, max_size=10), label="new key")] = data.draw(
                TOML_VALUES
            )
        elif action == "delete":
            table.pop(data.draw(st.sampled_from(keys)))
        else:
            table[data.draw(st.sampled_from(keys))] = data.draw(TOML_VALUES, label="value")
    (scratch / cases.MANIFEST).write_text(tomli_w.dumps(doc), encoding="utf-8")
    outcome = _outcome(scratch)
    if isinstance(outcome, Case):
        assert outcome.slug and outcome.opponents and outcome.canonical.role is Role.CANONICAL


@settings(max_examples=examples(100), deadline=timedelta(seconds=10))
@given(content=st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_random_bytes_give_a_clear_error(scratch: Path, content: bytes) -> None:
    (scratch / cases.MANIFEST).write_bytes(content)
    assert isinstance(_outcome(scratch), CaseInvalidError)
