"""The layering of the design, read from the code's own imports: what the layer order cannot say.

The order itself (sim < replays < arena < web, and arena's sub-packages in
layers) is configuration: pyproject.toml's ``[tool.importlinter]`` contracts,
which ``scripts/test.sh`` runs with ``lint-imports``. Here, the rest. Inside
``arena``, each sub-package has one job: only ``sandbox`` touches wasmtime
(and only its ``_ffi`` module ctypes and wasmtime's private names), only
``match`` and ``executors`` (and ``bench``, which times them) play matches
(anyone else is on a list, with why), ``tournament`` stays pure (no sandbox,
no match, no I/O), ``store`` keeps results without playing them.

Privacy: a module or a name whose own name starts with ``_`` (dunders aside)
is private to the package that holds it, and usable from that package and
every package below it. So ``arena/sandbox/_engine.py`` is private to
``arena.sandbox`` (``arena.cli`` may not import it, nor take ``_engine`` from
``arena.sandbox``), ``arena/_errors.py`` is private to ``arena`` and open to
all its sub-packages, and a ``_name`` of ``arena/cli/_prove.py`` is private to
``arena.cli``.

What the scan sees: every ``import`` and ``from ... import`` (relative ones
resolved), wherever it stands; every attribute read through a module alias
(``import arena`` then ``arena.match.run_match``), as if its first name were
imported; and the imports of each package's ``__init__.pyi``, the one list of
the names it lends and loads on first use (``lazy_loader.attach_stub``), as
if imported by the package. Subprocess tests check the same
for what an import really loads, transitively.
"""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pytest

from arena.cases import default_case
from arena.coordinator import add_contestant, create_tournament, run_tournament_sync
from arena.store import RunOutcome, Store
from tests._support import GOLDEN_REPLAY, ROOT, InProcess

PACKAGES = ("sim", "replays", "arena", "web")
# The names that play a match: the runner, a rematch, an executor's in-process job, a controller.
PLAYING_NAMES = {
    "run_match",
    "rematch",
    "replay_matches",
    "play",
    "play_batch",
    "play_batch_timed",
    "Controller",
}
# Who may use them: their homes, the bench (which times them) and the facade (which re-exports).
MATCH_PLAYERS = ("arena.match", "arena.executors", "arena.sandbox", "arena.bench")
# Anyone else who plays, and why. A new caller fails until it is added here with its reason.
ALSO_PLAYING = {
    ("arena.cli._match", "play"): "`arena match` plays its one match as a worker would (a job)",
    ("arena.cli._replay", "replay_matches"): "`arena replay verify --modules` plays it again",
    ("arena.coordinator._desk", "replay_matches"): (
        "`arena tournament verify --modules` plays each stored match again, in its process"
    ),
    ("web._matches", "play"): "the site's quick-match queue hands arena.play to its workers",
    ("arena.proving._pushed", "rematch"): (
        "recheck_match plays a pushed run's match again (in the site's worker processes)"
    ),
    ("web.bench._figures", "play"): "the viewer benchmark needs one replay to load",
    ("web.bench._viewer", "play"): "the viewer's cold-load benchmark plays its 2,000-tick replay",
    ("web.bench._load", "play"): "the load driver seeds its store with one match",
    ("web.bench._endpoints", "play"): "the endpoints benchmark serves one 2,000-tick match",
}
# The only modules that may import ctypes, and why.
CTYPES_USERS = {
    "arena.sandbox._ffi": "wasmtime's C API, the library wasmtime-py ships, in one place",
    "arena.proving._reaper": "libc's prctl (child subreaper) in the build supervisor script",
}
# The only modules that import by name (importlib.import_module, __import__), and why.
DYNAMIC_IMPORTERS = {
    "arena.cli._main": (
        "the named command's group, a module of arena.cli itself (the top layer), so a command"
        " loads only its own group (tests/test_startup.py checks the list of groups)"
    ),
}


@dataclass(frozen=True)
class Import:
    """One use of a module, as seen from the module that makes it.

    ``names`` are the names taken from ``module``: those of ``from module
    import ...``, an attribute path read off an alias (``("Store.open",)``),
    or the names a package's stub (``__init__.pyi``) takes from ``module``.
    """

    source: Path
    importer: str  # dotted name of the importing module
    module: str  # dotted name of the imported module
    names: tuple[str, ...]
    line: int
    how: Literal["import", "from", "attribute", "lazy"]

    def where(self) -> str:
        return f"{self.source.relative_to(ROOT)}:{self.line}"

    def targets(self) -> list[str]:
        """The dotted names used: the module itself, or each name taken from it."""
        return [f"{self.module}.{name}" for name in self.names] or [self.module]

    def first_names(self) -> set[str]:
        """The names taken from the module itself (``Store`` of ``Store.open``)."""
        return {name.split(".")[0] for name in self.names}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _project_path(module: str) -> Path | None:
    """The file of a project module or package, or None if ``module`` is no project module."""
    base = ROOT.joinpath(*module.split("."))
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    return None


def _is_package(module: str) -> bool:
    path = _project_path(module)
    return path is not None and path.name == "__init__.py"


def _absolute(importer: str, source: Path, node: ast.ImportFrom) -> str:
    """The module a ``from`` import names, a relative one resolved against ``importer``."""
    if node.level == 0:
        assert node.module is not None
        return node.module
    init = source.name in ("__init__.py", "__init__.pyi")
    package = importer.split(".") if init else importer.split(".")[:-1]
    if node.level - 1 >= len(package):
        raise AssertionError(f"{source}:{node.lineno}: a relative import beyond the top level")
    base = package[: len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _split(dotted: str) -> tuple[str, tuple[str, ...]]:
    """A dotted name as (the longest module prefix, the rest as one name or nothing).

    Outside the project only the top-level package is known to be a module.
    """
    parts = dotted.split(".")
    if _project_path(parts[0]) is None:
        cut = 1
    else:
        cut = max(i for i in range(1, len(parts) + 1) if _project_path(".".join(parts[:i])))
    rest = ".".join(parts[cut:])
    return ".".join(parts[:cut]), (rest,) if rest else ()


def _attribute_chain(node: ast.Attribute) -> tuple[str, list[str]] | None:
    """``a.b.c`` as ("a", ["b", "c"]), or None when it is not rooted at a plain name."""
    parts: list[str] = []
    value: ast.expr = node
    while isinstance(value, ast.Attribute):
        parts.append(value.attr)
        value = value.value
    return (value.id, parts[::-1]) if isinstance(value, ast.Name) else None


def _stub_table(package: str) -> dict[str, str]:
    """The names a package's stub lends, each to the module it is taken from."""
    stub = ROOT.joinpath(*package.split("."), "__init__.pyi")
    return {name: imp.module for imp in _scan(stub) for name in imp.names if imp.how == "lazy"}


def _scan(path: Path) -> Iterator[Import]:
    importer = _module_name(path)
    stub = path.suffix == ".pyi"  # a package's one list of names, loaded on first use
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    aliases: dict[str, str] = {}  # a name bound by an import -> the dotted name it stands for
    attributes: list[ast.Attribute] = []  # read after the walk, once every alias is known
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            attributes.append(node)
        elif isinstance(node, ast.Import):
            for a in node.names:
                yield Import(path, importer, a.name, (), node.lineno, "import")
                if a.asname:
                    aliases[a.asname] = a.name
                else:
                    top = a.name.split(".")[0]
                    aliases[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            module = _absolute(importer, path, node)
            names = tuple(a.name for a in node.names)
            yield Import(path, importer, module, names, node.lineno, "lazy" if stub else "from")
            for a in node.names:
                aliases[a.asname or a.name] = f"{module}.{a.name}"
    inner = {id(n.value) for n in attributes}
    for node in attributes:
        if id(node) in inner:
            continue
        chain = _attribute_chain(node)
        if chain is None or chain[0] not in aliases:
            continue
        module, names = _split(".".join([aliases[chain[0]], *chain[1]]))
        if names:
            yield Import(path, importer, module, names, node.lineno, "attribute")


def _imports() -> list[Import]:
    return [
        imp
        for package in PACKAGES
        for path in sorted([*(ROOT / package).rglob("*.py"), *(ROOT / package).rglob("*.pyi")])
        for imp in _scan(path)
    ]


IMPORTS = _imports()


def _top(module: str) -> str:
    return module.split(".")[0]


def _inside(importer: str, package: str) -> bool:
    return importer == package or importer.startswith(package + ".")


def test_the_scan_sees_the_project() -> None:
    """The other tests here would pass on an empty list: make sure they have work to do."""
    importers = {_top(imp.importer) for imp in IMPORTS}
    assert {"sim", "replays", "arena", "web"} <= importers
    assert any(imp.module == "wasmtime" for imp in IMPORTS)
    assert any(imp.importer.startswith("arena.cli") for imp in IMPORTS)
    # web's `arena.play(...)` is seen through its alias, and arena's stub is read
    seen = {(imp.importer, imp.module, imp.names, imp.how) for imp in IMPORTS}
    assert ("web._matches", "arena", ("play",), "attribute") in seen
    assert any(
        (imp.importer, imp.module, imp.how) == ("arena", "arena.store", "lazy")
        and "Store" in imp.names
        for imp in IMPORTS
    )


def _private_owner(dotted: str) -> str | None:
    """The package a private module or name belongs to, or None if ``dotted`` is public.

    That is the package holding the first ``_`` part: ``arena.sandbox`` for
    ``arena.sandbox._engine.x``, ``arena.cli`` for ``arena.cli._prove._print``
    and for ``arena.cli.main._helper`` (a public module's private name).
    """
    parts = dotted.split(".")
    for i, part in enumerate(parts):
        if part.startswith("_") and not (part.startswith("__") and part.endswith("__")):
            holder = ".".join(parts[:i])
            while holder and not _is_package(holder):
                holder = holder.rpartition(".")[0]
            return holder
    return None


def test_private_modules_and_names_stay_in_their_package() -> None:
    bad = [
        f"{imp.where()}: {imp.importer} uses {target} (private to {owner})"
        for imp in IMPORTS
        if _top(imp.module) in PACKAGES
        for target in imp.targets()
        if (owner := _private_owner(target)) is not None and not _inside(imp.importer, owner)
    ]
    assert not bad, "\n".join(bad)


def test_relative_imports_are_resolved() -> None:
    """A relative import (none exist today) is resolved against its module: every rule sees it."""
    path = ROOT / "arena" / "match" / "_runner.py"
    tree = ast.parse("from . import _fuel\nfrom ..sandbox import Limits\nfrom .. import shown")
    found = [
        _absolute("arena.match._runner", path, n)
        for n in tree.body
        if isinstance(n, ast.ImportFrom)
    ]
    assert found == ["arena.match", "arena.sandbox", "arena"]
    init = ROOT / "arena" / "match" / "__init__.py"
    (node,) = ast.parse("from ._fuel import FuelStats").body
    assert isinstance(node, ast.ImportFrom)
    assert _absolute("arena.match", init, node) == "arena.match._fuel"


def test_web_uses_only_the_arena_facade() -> None:
    """``web`` takes arena's names from ``arena`` itself, never from a sub-package."""
    web_imports = [imp for imp in IMPORTS if _top(imp.importer) == "web"]
    assert any(imp.module == "arena" for imp in web_imports)
    bad = [
        f"{imp.where()} uses {imp.module}" for imp in web_imports if imp.module.startswith("arena.")
    ]
    assert not bad, "\n".join(bad)


def test_arena_finds_the_commands_of_web_without_importing_it() -> None:
    """``arena view`` is web's: arena loads it through an entry point (arena/_extensions.py)."""
    from importlib.metadata import entry_points

    for group, targets in (
        ("foray_arena.commands", ["web:register_commands"]),
        (
            "foray_arena.bench",
            [
                "web.bench:bench_figures",
                "web.bench:endpoint_figures",
                "web.bench:hostile_figures",
                "web.bench:viewer_figures",
            ],
        ),
        ("foray_arena.summary", ["web.bench:summary_figures"]),
        ("foray_arena.site", ["web:serve_site"]),
    ):
        assert sorted(ep.value for ep in entry_points(group=group)) == targets


def test_only_the_sandbox_imports_wasmtime() -> None:
    bad = [
        f"{imp.where()} uses {imp.module}"
        for imp in IMPORTS
        if _top(imp.module) == "wasmtime" and not _inside(imp.importer, "arena.sandbox")
    ]
    assert not bad, "\n".join(bad)


def _wasmtime_private_attributes() -> set[str]:
    """The private attribute names of wasmtime's objects (``Store._context``, ``Func._func``)."""
    import wasmtime

    engine = wasmtime.Engine()
    store = wasmtime.Store(engine)
    module = wasmtime.Module(engine, '(module (memory (export "m") 1) (func (export "f")))')
    instance = wasmtime.Instance(store, module, [])
    exports = instance.exports(store)
    objects: list[object] = [engine, store, module, instance, exports["m"], exports["f"]]
    names = {a for o in objects for a in vars(o)}
    names |= {a for n in wasmtime.__all__ for a in dir(getattr(wasmtime, n))}
    return {a for a in names if a.startswith("_") and not a.startswith("__")}


def test_only_the_ffi_module_uses_ctypes_or_wasmtimes_private_names() -> None:
    """arena/sandbox/_ffi.py holds every ctypes and private wasmtime-py name the sandbox uses,
    so a wasmtime upgrade is checked in one file."""
    ffi = "arena.sandbox._ffi"
    bad = [
        f"{imp.where()} imports {imp.module}"
        for imp in IMPORTS
        if imp.how in ("import", "from")
        and _top(imp.module) in ("ctypes", "_ctypes")
        and imp.importer not in CTYPES_USERS
    ]
    bad += [
        f"{imp.where()} uses {target}"
        for imp in IMPORTS
        if imp.importer != ffi
        for target in imp.targets()
        if _top(target) == "wasmtime" and any(p.startswith("_") for p in target.split("."))
    ]
    private = _wasmtime_private_attributes()
    assert "_context" in private and "_func" in private
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if _module_name(path) == ffi:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            bad += [
                f"{path.relative_to(ROOT)}:{n.lineno} reads .{n.attr} (a wasmtime-py private name)"
                for n in ast.walk(tree)
                if isinstance(n, ast.Attribute)
                and n.attr in private
                and not (isinstance(n.value, ast.Name) and n.value.id in ("self", "cls"))
            ]
    assert not bad, "\n".join(bad)


def test_only_match_and_executors_play_matches() -> None:
    used: set[tuple[str, str]] = set()
    bad = []
    for imp in IMPORTS:
        if _top(imp.module) != "arena" or imp.importer == "arena":  # the facade re-exports them
            continue
        for name in imp.first_names() & PLAYING_NAMES:
            if any(_inside(imp.importer, player) for player in MATCH_PLAYERS):
                continue
            if (imp.importer, name) in ALSO_PLAYING:
                used.add((imp.importer, name))
            else:
                bad.append(f"{imp.where()} takes {name} from {imp.module}")
    assert not bad, "\n".join(bad)
    assert used == set(ALSO_PLAYING), f"no longer playing: {set(ALSO_PLAYING) - used}"


def test_dynamic_imports_are_read_by_the_scan() -> None:
    """A module imported by name (``importlib.import_module``) escapes the scan: only the
    modules listed import by name (the packages' lazy loading is lazy_loader's, from the stubs
    the scan reads)."""
    callers = set()
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for n in ast.walk(tree):
                if (isinstance(n, ast.Attribute) and n.attr == "import_module") or (
                    isinstance(n, ast.Name) and n.id == "__import__"
                ):
                    callers.add(_module_name(path))
    assert callers == set(DYNAMIC_IMPORTERS)


LOADER = "__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)"


@pytest.mark.parametrize(
    "package",
    sorted({_module_name(p) for top in PACKAGES for p in (ROOT / top).rglob("__init__.py")}),
)
def test_each_package_names_its_exports_once_in_its_stub(package: str) -> None:
    """``__init__.py`` holds its docstring and the loader; ``__init__.pyi`` the one list."""
    import lazy_loader

    init = ROOT.joinpath(*package.split("."), "__init__.py")
    body = ast.parse(init.read_text(encoding="utf-8")).body
    code = [ast.unparse(n) for n in body if not isinstance(n, ast.Expr)]
    assert code == ["import lazy_loader", LOADER], f"{init}: only the docstring and the loader"
    table = _stub_table(package)
    module = importlib.import_module(package)
    assert sorted(module.__all__) == sorted(table)
    for name, source in table.items():
        assert getattr(module, name) is getattr(importlib.import_module(source), name)
    assert lazy_loader.__name__ == "lazy_loader"


IO_MODULES = ("os", "io", "pathlib", "sqlite3", "subprocess", "socket", "shutil", "tempfile")
IO_CALLS = {"open", "input", "print", "__import__"}
IO_METHODS = {"open", "read_text", "write_text", "read_bytes", "write_bytes"}


def test_the_tournament_imports_no_sandbox_and_does_no_io() -> None:
    impure = ("arena.sandbox", "arena.match", "arena.executors", "arena.store", "wasmtime")
    bad = [
        f"{imp.where()} imports {imp.module}"
        for imp in IMPORTS
        if _inside(imp.importer, "arena.tournament")
        and (imp.module.startswith(impure) or _top(imp.module) in IO_MODULES)
    ]
    for path in sorted((ROOT / "arena" / "tournament").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        bad += [
            f"{path.relative_to(ROOT)}:{n.lineno} calls {ast.unparse(n.func)}()"
            for n in ast.walk(tree)
            if isinstance(n, ast.Call)
            and (
                (isinstance(n.func, ast.Name) and n.func.id in IO_CALLS)
                or (isinstance(n.func, ast.Attribute) and n.func.attr in IO_METHODS)
            )
        ]
    assert not bad, "\n".join(bad)


def test_the_store_plays_no_match() -> None:
    """The store keeps results; it may name arena.match's types, never the sandbox or executors."""
    forbidden = ("arena.sandbox", "arena.executors", "arena.tournament", "wasmtime")
    bad = [
        f"{imp.where()} imports {imp.module}"
        for imp in IMPORTS
        if _inside(imp.importer, "arena.store") and imp.module.startswith(forbidden)
    ]
    assert not bad, "\n".join(bad)
    assert any(_inside(imp.importer, "arena.store") for imp in IMPORTS)


ENGINE = ("wasmtime", "arena.sandbox._ffi", "arena.sandbox._engine")
"""What loading the engine loads: wasmtime-py (which the host never imports), the host's
binding of wasmtime's library, the engine."""


def _loaded_after(code: str, watched: tuple[str, ...]) -> list[str]:
    """Those of ``watched`` that a fresh interpreter holds (they or a sub-module) after
    running ``code``."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    ran = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False
    )
    assert ran.returncode == 0, ran.stderr
    loaded = json.loads(ran.stdout.splitlines()[-1])
    assert isinstance(loaded, list)
    return [w for w in watched if any(_inside(str(m), w) for m in loaded)]


@pytest.mark.parametrize(
    ("code", "forbidden"),
    [
        # the tournament is pure: no sandbox, no match, no store, no workers, transitively
        (
            "import arena.tournament",
            (
                "wasmtime",
                "arena.sandbox",
                "arena.match",
                "arena.executors",
                "arena.store",
                "arena.coordinator",
                "trio",
                "sqlite3",
                "web",
            ),
        ),
        # the rules import nothing of the project's and no dependency
        (
            "import sim",
            ("replays", "arena", "web", "networkx", "wasmtime", "msgpack", "trio", "openskill"),
        ),
        # reading and verifying replays needs only sim and msgpack
        (
            "import replays; replays.read_replay; replays.verify_replay; replays.iter_states\n"
            "replays.iter_ticks",
            ("arena", "web", "wasmtime", "networkx", "trio", "openskill"),
        ),
        # the product's web is no test harness: its names leave the bench room out
        (
            "import web\nfor name in web.__all__: getattr(web, name)",
            ("web.bench", "playwright"),
        ),
    ],
    ids=["tournament", "sim", "replays", "web"],
)
def test_what_an_import_loads_transitively(code: str, forbidden: tuple[str, ...]) -> None:
    loaded = _loaded_after(code, forbidden)
    assert not loaded, f"{code!r} loads {', '.join(loaded)}"


@pytest.fixture
def stored(data_dir: Path) -> Path:
    """The test's data directory with a finished tournament (id 1) and a proof run (id 1)."""
    case = default_case()
    with Store.open(data_dir) as store:
        field = [add_contestant(store, name)[1] for name in ("random", "greedy-raider")]
        short = case.rules.replace(max_ticks=20)
        record = create_tournament(store, "round-robin", field, case=case, config=short)
        run_tournament_sync(store, record.id, InProcess())
        store.record_run(
            case_slug=case.slug,
            case_version=case.version or 1,
            manifest_sha256=case.manifest_sha256,
            controller="unbuilt",
            controller_sha256=None,
            outcome=RunOutcome.COULD_NOT_COMPETE,
            reason="the build failed",
        )
    return data_dir


FORAY_CASE = ROOT / "cases" / "adversarial" / "medium" / "foray" / "1"


@pytest.mark.parametrize(
    "args",
    [
        ("map", "generate", "--seed", "1"),
        ("map", "check", str(ROOT / "tests" / "maps" / "tiny.txt")),
        ("replay", "verify", str(GOLDEN_REPLAY)),
        ("replay", "show", str(GOLDEN_REPLAY)),
        ("replay", "show", str(GOLDEN_REPLAY), "--tick", "3", "--side", "B"),
        ("replay", "show", str(GOLDEN_REPLAY), "--timeline"),
        ("replay", "fuel", str(GOLDEN_REPLAY)),
        ("tournaments",),
        ("standings", "1"),
        ("cases", "--all"),
        ("case", "check", str(FORAY_CASE)),
        ("runs",),
        ("runs", "show", "1"),
        ("new", "{tmp}/project"),
        ("prune", "--keep", "1", "--dry-run"),
    ],
    ids=lambda args: " ".join(a for a in args if not a.startswith(("/", "{"))),
)
def test_commands_that_play_nothing_never_import_wasmtime(
    args: tuple[str, ...], stored: Path, tmp_path: Path
) -> None:
    """No command that plays nothing loads the engine (docs/decisions.md, "The house"): here
    over a data directory with a tournament and a run of the test's own."""
    argv = [a.format(tmp=tmp_path) for a in args]
    code = f"from arena.cli import main\nassert main({argv!r}) == 0"
    loaded = _loaded_after(code, ENGINE)
    assert not loaded, f"arena {' '.join(args)} loads {', '.join(loaded)}"


def test_a_command_that_compiles_loads_the_engine_without_wasmtime_py() -> None:
    """What the test above watches for is seen when it happens: ``arena check`` loads the
    engine, wasmtime's library through ``_ffi``; wasmtime-py's Python only in the compile
    worker's own process (docs/decisions.md, "The engine's library without wasmtime-py")."""
    module = ROOT / "baselines" / "random.wasm"
    code = f"from arena.cli import main\nassert main(['check', {str(module)!r}]) == 0"
    assert _loaded_after(code, ENGINE) == ["arena.sandbox._ffi", "arena.sandbox._engine"]


@pytest.mark.parametrize(
    ("code", "forbidden"),
    [
        # the limits, the records of a match, the codec and maps are read without the engine
        (
            "import arena.sandbox, arena.match\n"
            "arena.sandbox.Limits(); arena.sandbox.STRUCTURAL_LIMITS; arena.match.Contestant\n"
            "arena.match.MatchResult; arena.match.encode_obs; arena.match.load_map",
            (*ENGINE, "arena.match._runner"),
        ),
        # a job is built and kept without the engine or the executors' trio
        (
            "import arena.executors\narena.executors.MatchJob; arena.executors.JobFailed",
            (*ENGINE, "trio", "trio_parallel"),
        ),
        # the Ray executor shares the executors' interface, not the local executor's workers
        (
            "import arena.executors\narena.executors.RayExecutor",
            ("trio_parallel", "arena.executors._local"),
        ),
    ],
    ids=["limits and records", "a job", "the Ray executor"],
)
def test_what_a_name_loads(code: str, forbidden: tuple[str, ...]) -> None:
    loaded = _loaded_after(code, forbidden)
    assert not loaded, f"{code!r} loads {', '.join(loaded)}"


def test_every_package_names_its_api() -> None:
    packages = [
        _module_name(init.parent / "__init__.py")
        for package in PACKAGES
        for init in sorted((ROOT / package).rglob("__init__.py"))
    ]
    assert "arena.sandbox" in packages and "arena.match" in packages
    for name in packages:
        module = importlib.import_module(name)
        exported = getattr(module, "__all__", None)
        assert exported is not None, f"{name} has no __all__"
        assert exported, f"{name}'s __all__ is empty"
        for attr in exported:
            assert hasattr(module, attr), f"{name}.{attr} is in __all__ but missing"
