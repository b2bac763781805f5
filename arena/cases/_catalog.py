"""The case catalog: ``cases/<type>/<difficulty>/<slug>/<version>/`` next to the package."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Final

import msgspec

from arena._errors import ArenaError
from arena.cases._errors import CaseError, CaseInvalidError, CaseNotFoundError
from arena.cases._layout import MANIFEST, version_of
from arena.cases._model import Case, Difficulty

__all__ = ["CATALOG_DIR", "DEFAULT_SLUG", "Catalog", "default_case", "find_case", "scan_catalog"]

CATALOG_DIR: Final[Path] = Path(__file__).resolve().parents[2] / "cases"
"""The repository's catalog (like ``arena.baselines.BASELINES_DIR``)."""
DEFAULT_SLUG: Final = "foray"
"""The case whose rules and limits ``arena match`` plays under."""

_DIFFICULTY_ORDER = {d.value: i for i, d in enumerate(Difficulty)}


class Catalog(msgspec.Struct, frozen=True):
    """Every case directory of a catalog: the cases that load, and what is wrong with the rest.

    ``problems`` holds a ``CaseInvalidError`` per broken case (an
    ``UnsupportedCaseTypeError`` for a type this arena does not host) and a
    ``CaseNotFoundError`` per version directory without a manifest.
    """

    root: Path
    cases: tuple[Case, ...]
    """Sorted by type, difficulty (easy first), slug and version."""
    problems: tuple[ArenaError, ...]

    def visible(self, *, include_experimental: bool = False) -> tuple[Case, ...]:
        """The cases a listing shows: experimental ones only when asked for."""
        return tuple(c for c in self.cases if include_experimental or not c.experimental)


def _dirs(folder: Path) -> Iterator[Path]:
    """The sub-directories of ``folder`` that are not hidden, by name."""
    return (p for p in sorted(folder.iterdir()) if p.is_dir() and not p.name.startswith("."))


def _version_dirs(root: Path) -> Iterator[Path]:
    if not root.is_dir():
        raise CaseNotFoundError(f"{root}: no case catalog there")
    for type_dir in _dirs(root):
        for difficulty_dir in _dirs(type_dir):
            for slug_dir in _dirs(difficulty_dir):
                yield from _dirs(slug_dir)


def _sort_key(case: Case) -> tuple[str, int, str, int]:
    return (case.type, _DIFFICULTY_ORDER[case.difficulty], case.slug, case.version or 0)


def _layout_error(directory: Path, message: str) -> CaseInvalidError:
    return CaseInvalidError(directory, [CaseError(str(directory), "", "", message)])


def _load_case(directory: Path) -> Case:
    # The manifest's reader (and tomllib) loads when a case is read, not with the catalog:
    # ``arena match`` usually finds its case in the disk cache (``_cached.py``).
    from arena.cases._manifest import load_case

    return load_case(directory)


def scan_catalog(root: Path | None = None) -> Catalog:
    """Load every case of the catalog at ``root`` (default: the repository's ``cases/``)."""
    root = root or CATALOG_DIR
    cases: list[Case] = []
    problems: list[ArenaError] = []
    homes: dict[str, Path] = {}
    for directory in _version_dirs(root):
        slug_dir = directory.parent
        other = homes.setdefault(slug_dir.name, slug_dir)
        if other != slug_dir:
            message = f"slug {slug_dir.name!r} is also in {other}: a slug names one case"
            problems.append(_layout_error(directory, message))
            continue
        if version_of(directory) is None:
            message = f"{directory.name!r} is not a version directory (1, 2, ...)"
            problems.append(_layout_error(directory, message))
            continue
        try:
            cases.append(_load_case(directory))
        except (CaseInvalidError, CaseNotFoundError) as exc:
            problems.append(exc)
    return Catalog(root, tuple(sorted(cases, key=_sort_key)), tuple(problems))


def find_case(slug: str, version: int | None = None, *, catalog: Path | None = None) -> Case:
    """The case ``slug``: ``version``, or else its newest version that is not experimental.

    ``CaseNotFoundError`` names the known slugs (or versions) when there is no
    such case; a case that does not load raises its ``CaseInvalidError``.
    """
    return _find(slug, version, catalog or CATALOG_DIR, _load_case)


def _find(slug: str, version: int | None, root: Path, load_case: Callable[[Path], Case]) -> Case:
    by_slug: dict[str, list[Path]] = {}
    for directory in _version_dirs(root):
        if version_of(directory) is not None and (directory / MANIFEST).is_file():
            by_slug.setdefault(directory.parent.name, []).append(directory)
    found = by_slug.get(slug)
    if not found:
        known = ", ".join(sorted(by_slug)) or "none"
        raise CaseNotFoundError(f"no case {slug!r} in the catalog {root} (cases: {known})")
    found.sort(key=lambda d: version_of(d) or 0, reverse=True)
    if version is not None:
        for directory in found:
            if version_of(directory) == version:
                return load_case(directory)
        known = ", ".join(str(version_of(d)) for d in reversed(found))
        raise CaseNotFoundError(f"case {slug!r} has no version {version} (versions: {known})")
    for directory in found:
        case = load_case(directory)
        if not case.experimental:
            return case
    raise CaseNotFoundError(
        f"case {slug!r} has only experimental versions: name the version to use one"
    )


def default_case(catalog: Path | None = None, *, cache: Path | None = None) -> Case:
    """The Foray case (its newest published version): the rules and limits of ``arena match``.

    With ``cache`` (a directory), the loaded case is kept there and taken from there
    while neither the case's files nor the code that loads it have changed
    (``_cached.py``): ``arena match`` skips reading its TOML. Without it, it is loaded.
    """
    if cache is None:
        return find_case(DEFAULT_SLUG, catalog=catalog)
    from arena.cases._cached import cached_case

    return _find(DEFAULT_SLUG, None, catalog or CATALOG_DIR, lambda d: cached_case(d, cache))
