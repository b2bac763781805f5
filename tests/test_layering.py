"""The package layering of the design: sim < replays < arena < web."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# package -> the project packages it may import
ALLOWED = {
    "sim": set(),
    "replays": {"sim"},
    "arena": {"sim", "replays"},
    "web": {"arena", "replays"},
}


def _imports(path: Path) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, node.lineno))
    return found


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_packages_import_only_what_the_layering_allows(package: str) -> None:
    bad = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for module, line in _imports(path):
            top = module.split(".")[0]
            if top in ALLOWED and top != package and top not in ALLOWED[package]:
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    assert not bad, "\n".join(bad)


def test_web_uses_only_arenas_public_names() -> None:
    bad = []
    for path in sorted((ROOT / "web").rglob("*.py")):
        for module, line in _imports(path):
            parts = module.split(".")
            if parts[0] == "arena" and any(p.startswith("_") for p in parts[1:]):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    assert not bad, "\n".join(bad)


def test_every_package_names_its_api() -> None:
    import arena
    import replays
    import sim

    for module in (sim, arena, replays):
        assert module.__all__, module.__name__
        for name in module.__all__:
            assert hasattr(module, name), f"{module.__name__}.{name}"
