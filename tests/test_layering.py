"""The layering of the design, read from the code's own imports.

Packages: sim < replays < arena < web. Inside ``arena``, each sub-package has
one job: only ``sandbox`` touches wasmtime, only ``match`` and ``executors``
(and ``bench``, which times them) play matches, ``tournament`` stays pure,
``store`` keeps results without playing them. A module whose name starts with
``_`` is private to the package that holds it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests._support import ROOT

PACKAGES = ("sim", "replays", "arena", "web")
# package -> the project packages it may import
ALLOWED = {
    "sim": set(),
    "replays": {"sim"},
    "arena": {"sim", "replays"},
    "web": {"arena", "replays"},
}
# Who may import the names that play a match (the runner, or a controller).
MATCH_PLAYERS = ("arena.match", "arena.executors", "arena.bench")
PLAYING_NAMES = {"run_match", "Controller"}


@dataclass(frozen=True)
class Import:
    """One import statement's target, as seen from the module that makes it."""

    source: Path
    importer: str  # dotted name of the importing module
    module: str  # dotted name of the imported module
    names: tuple[str, ...]  # the names taken with ``from module import ...``
    line: int

    def where(self) -> str:
        return f"{self.source.relative_to(ROOT)}:{self.line}"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports() -> list[Import]:
    found: list[Import] = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            importer = _module_name(path)
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    found += [Import(path, importer, a.name, (), node.lineno) for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    names = tuple(a.name for a in node.names)
                    found.append(Import(path, importer, node.module, names, node.lineno))
    return found


IMPORTS = _imports()


def test_the_scan_sees_the_project() -> None:
    """The other tests here would pass on an empty list: make sure they have work to do."""
    importers = {imp.importer.split(".")[0] for imp in IMPORTS}
    assert {"sim", "replays", "arena", "web"} <= importers
    assert any(imp.module == "wasmtime" for imp in IMPORTS)
    assert any(imp.importer.startswith("arena.cli") for imp in IMPORTS)


@pytest.mark.parametrize("package", PACKAGES)
def test_packages_import_only_what_the_layering_allows(package: str) -> None:
    bad = [
        f"{imp.where()} imports {imp.module}"
        for imp in IMPORTS
        if imp.importer.split(".")[0] == package
        and (top := imp.module.split(".")[0]) in ALLOWED
        and top != package
        and top not in ALLOWED[package]
    ]
    assert not bad, "\n".join(bad)


def _private_owner(module: str) -> str | None:
    """The package a private module belongs to, or None if ``module`` is public."""
    parts = module.split(".")
    for i, part in enumerate(parts):
        if part.startswith("_"):
            return ".".join(parts[:i])
    return None


def test_no_module_imports_another_packages_private_modules() -> None:
    bad = []
    for imp in IMPORTS:
        owner = _private_owner(imp.module)
        if owner is None or imp.module.split(".")[0] not in PACKAGES:
            continue
        inside = imp.importer == owner or imp.importer.startswith(owner + ".")
        if not inside:
            bad.append(f"{imp.where()}: {imp.importer} imports {imp.module}")
    assert not bad, "\n".join(bad)


def test_web_uses_only_the_arena_facade() -> None:
    """``web`` takes arena's names from ``arena`` itself, never from a sub-package."""
    web_imports = [imp for imp in IMPORTS if imp.importer.split(".")[0] == "web"]
    assert any(imp.module == "arena" for imp in web_imports)
    bad = [
        f"{imp.where()} imports {imp.module}"
        for imp in web_imports
        if imp.module.startswith("arena.")
    ]
    assert not bad, "\n".join(bad)


def test_arena_finds_the_commands_of_web_without_importing_it() -> None:
    """``arena view`` is web's: arena loads it through an entry point (arena/_extensions.py)."""
    from importlib.metadata import entry_points

    for group, target in (
        ("foray_arena.commands", "web:register_commands"),
        ("foray_arena.bench", "web:bench_figures"),
        ("foray_arena.summary", "web:summary_figures"),
        ("foray_arena.site", "web:serve_site"),
    ):
        assert [ep.value for ep in entry_points(group=group)] == [target]


def test_private_names_are_not_imported_across_packages() -> None:
    bad = [
        f"{imp.where()} takes {name} from {imp.module}"
        for imp in IMPORTS
        for name in imp.names
        if name.startswith("_")
        and not name.startswith("__")
        and imp.module.split(".")[0] in PACKAGES
        and not imp.importer.startswith(imp.module.split(".")[0] + ".")
    ]
    assert not bad, "\n".join(bad)


def test_only_the_sandbox_imports_wasmtime() -> None:
    bad = [
        f"{imp.where()} imports {imp.module}"
        for imp in IMPORTS
        if imp.module.split(".")[0] == "wasmtime" and not imp.importer.startswith("arena.sandbox")
    ]
    assert not bad, "\n".join(bad)


def test_only_match_and_executors_play_matches() -> None:
    bad = [
        f"{imp.where()} takes {name} from {imp.module}"
        for imp in IMPORTS
        for name in imp.names
        if name in PLAYING_NAMES
        and imp.module.startswith("arena")
        and not imp.importer.startswith(MATCH_PLAYERS)
        and not imp.importer.startswith("arena.sandbox")
        and imp.importer != "arena"  # the facade re-exports them
    ]
    assert not bad, "\n".join(bad)


def test_the_tournament_imports_no_sandbox_and_does_no_io() -> None:
    impure = ("arena.sandbox", "arena.match", "arena.executors", "arena.store", "wasmtime")
    io_modules = ("os", "io", "pathlib", "sqlite3", "subprocess", "socket", "shutil")
    bad = [
        f"{imp.where()} imports {imp.module}"
        for imp in IMPORTS
        if imp.importer.startswith("arena.tournament")
        and (imp.module.startswith(impure) or imp.module.split(".")[0] in io_modules)
    ]
    assert not bad, "\n".join(bad)


def test_the_store_plays_no_match() -> None:
    """The store keeps results; it may name arena.match's types, never the sandbox or executors."""
    forbidden = ("arena.sandbox", "arena.executors", "arena.tournament", "wasmtime")
    bad = [
        f"{imp.where()} imports {imp.module}"
        for imp in IMPORTS
        if imp.importer.startswith("arena.store") and imp.module.startswith(forbidden)
    ]
    assert not bad, "\n".join(bad)
    assert any(imp.importer.startswith("arena.store") for imp in IMPORTS)


def test_every_package_names_its_api() -> None:
    import importlib

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
