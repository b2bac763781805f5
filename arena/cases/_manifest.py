"""Load and validate ``test-case.toml`` (case-manifest format; docs/cases.md).

The loader checks every rule and keeps going after a problem, so one run lists
everything wrong with a case: each ``CaseError`` names the file, the table and
the key. This module holds the manifest's file and root keys (the case's
identity, its files, its place in the catalog) and puts the ``Case``
together; the adversarial tables are ``_tables.py``'s, and the reading of
TOML, table by table, ``_toml.py``'s. Values are checked by the objects that
will use them, so a case can never declare what a match could not be played
under.
"""

from __future__ import annotations

import hashlib
import math
import re
from pathlib import Path
from typing import Any, Final

from arena._errors import ArenaError
from arena._files import open_regular
from arena.cases._errors import CaseInvalidError, CaseNotFoundError, UnsupportedCaseTypeError
from arena.cases._layout import MANIFEST, version_of
from arena.cases._model import Case, CasePaths, CaseType, Difficulty, Opponent
from arena.cases._tables import AdversarialTables
from arena.cases._toml import ROOT, Report, Table, parse_toml, quote

__all__ = [
    "FORBIDDEN_TABLES",
    "MAX_MANIFEST_BYTES",
    "MAX_RUNTIME_HOURS",
    "MAX_SLUG_CHARS",
    "load_case",
]

MAX_MANIFEST_BYTES: Final = 256 * 1024
"""A manifest is a page of TOML; anything this large is not one (and is not parsed)."""
MAX_RUNTIME_HOURS: Final = 24.0
MAX_WORKSPACE_ENTRIES: Final = 1000
"""The workspace is walked to check its symlinks; a starter project is small."""
MAX_SLUG_CHARS: Final = 64
"""A slug is copied into the header of every replay of the case: kept far below the
reader's bound on a string, so no honest replay of the case is ever unreadable."""

SLUG = re.compile(r"[a-z0-9-]+")

FORBIDDEN_TABLES: Final = {
    "case": "[[case]]",
    "canvas": "[canvas]",
    "tool": "[tool]",
    "output": "[output]",
    "check": "[[check]]",
}
"""Root keys of other case types' tables, refused by name in an adversarial case."""


class _Loader:
    """One pass over one case directory, collecting every error."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.root_dir = directory.resolve()
        self.manifest = directory / MANIFEST
        self.report = Report(str(self.manifest))
        self.tables = AdversarialTables(self.report, self.root_dir)

    # ------------------------------------------------------------------ files

    def read(self) -> tuple[bytes, dict[str, Any] | None]:
        """The manifest's bytes and its TOML document (None, with the error, if it is not TOML)."""
        if not self.directory.is_dir():
            what = "not a directory" if self.directory.exists() else "no such case directory"
            raise CaseNotFoundError(f"{self.directory}: {what}")
        try:
            # A FIFO, a device or a directory is refused at once, never waited on.
            with open_regular(self.manifest, "manifest") as f:
                data = f.read(MAX_MANIFEST_BYTES + 1)
        except ArenaError as exc:
            if not self.manifest.exists() and not self.manifest.is_symlink():
                raise CaseNotFoundError(
                    f"{self.directory}: not a case directory (no {MANIFEST})"
                ) from None
            raise CaseNotFoundError(str(exc)) from None
        except OSError as exc:
            reason = exc.strerror or exc
            raise CaseNotFoundError(f"{self.manifest}: cannot read: {reason}") from None
        return data, parse_toml(data, self.report, limit=MAX_MANIFEST_BYTES, what="manifest")

    # ------------------------------------------------------------------ the document

    def load(self) -> Case:
        data, doc = self.read()
        manifest_sha256 = hashlib.sha256(data).hexdigest()
        if doc is None:
            raise CaseInvalidError(self.directory, self.report.errors)
        root = Table(self.report, ROOT, doc)

        case_type = root.string("type")
        unsupported = case_type is not None and case_type not in tuple(CaseType)
        if unsupported:
            root.error(
                "type",
                f"case type {case_type!r} is not hosted by this arena "
                f"(it hosts: {', '.join(CaseType)}); its tables are not checked",
            )

        slug = root.string("slug")
        if slug is not None and not SLUG.fullmatch(slug):
            root.error("slug", f"{quote(slug)} must match [a-z0-9-]+")
            slug = None
        elif slug is not None and len(slug) > MAX_SLUG_CHARS:
            root.error(
                "slug",
                f"{quote(slug)} is {len(slug)} characters, over {MAX_SLUG_CHARS}"
                " (every replay of the case records it)",
            )
            slug = None
        name = root.string("name")
        difficulty = root.one_of("difficulty", Difficulty, tuple(Difficulty))
        tags = root.array("tags", str, "strings")
        changelog = root.path("changelog", root.string("changelog"), self.root_dir, kind="file")
        prompt = root.path("prompt", root.string("prompt"), self.root_dir, kind="file")
        experimental = root.boolean("experimental", False)
        summary = root.string("summary", required=False)
        description = root.path(
            "description", root.string("description", required=False), self.root_dir, kind="file"
        )
        max_runtime_hours = self.runtime(root)
        workspace = root.path(
            "workspace", root.string("workspace", required=False), self.root_dir, kind="directory"
        )
        init = root.string("init", required=False)
        version = version_of(self.root_dir)
        self.layout(root, case_type, difficulty, slug)

        if unsupported:
            assert case_type is not None
            raise UnsupportedCaseTypeError(self.directory, case_type, self.report.errors)

        for key, table_name in FORBIDDEN_TABLES.items():
            root.known.add(key)
            if key in doc:
                root.error(
                    key,
                    f"{table_name} is forbidden in an adversarial case "
                    "(it belongs to other case types)",
                )
        build = self.tables.build(self.table(root, "build"))
        contract = self.tables.contract(self.table(root, "contract"))
        limits = self.tables.sandbox(self.table(root, "sandbox"))
        rules, game_map, map_path = self.tables.simulation(self.table(root, "simulation"))
        opponents = self.tables.opponents(root)
        match = self.tables.match(self.table(root, "match"))
        replay = self.tables.replay(self.table(root, "replay"))
        if workspace is not None:
            self.check_workspace(root, workspace, opponents)
        root.finish()

        if self.report.errors:
            raise CaseInvalidError(self.directory, self.report.errors)
        # Every value below was checked: an error would have been reported above.
        assert slug and name and difficulty and tags is not None and changelog and prompt
        assert build and contract and limits and rules and match and replay
        return Case(
            slug=slug,
            name=name,
            type=CaseType.ADVERSARIAL,
            difficulty=difficulty,
            tags=tuple(tags),
            version=version,
            directory=self.root_dir,
            manifest_sha256=manifest_sha256,
            paths=CasePaths(
                manifest=self.root_dir / MANIFEST,
                changelog=changelog,
                prompt=prompt,
                description=description,
                workspace=workspace,
                map=map_path,
            ),
            build=build,
            contract=contract,
            limits=limits,
            rules=rules,
            game_map=game_map,
            match=match,
            opponents=tuple(o for o in opponents if o is not None),
            replay=replay,
            experimental=experimental,
            summary=summary,
            max_runtime_hours=max_runtime_hours,
            init=init,
        )

    def table(self, root: Table, key: str) -> Table | None:
        if key not in root.data:
            root.known.add(key)
            root.error(key, f"missing: an adversarial case needs the table [{key}]")
            return None
        value = root.typed(key, dict, f"a table ([{key}])")
        return None if value is None else Table(self.report, key, value)

    def runtime(self, root: Table) -> float:
        value = root.get("max_runtime_hours", required=False)
        if value is None:
            return 1.0
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
            or not 0 < value <= MAX_RUNTIME_HOURS
        ):
            root.error(
                "max_runtime_hours",
                f"must be a number of hours in (0, {MAX_RUNTIME_HOURS:g}], got {quote(value)}",
            )
            return 1.0
        return float(value)

    def layout(
        self,
        root: Table,
        case_type: str | None,
        difficulty: Difficulty | None,
        slug: str | None,
    ) -> None:
        """In the catalog layout (the directory is named as a version), its parents must agree."""
        if version_of(self.root_dir) is None:
            return
        slug_dir = self.root_dir.parent
        difficulty_dir = slug_dir.parent
        type_dir = difficulty_dir.parent
        where = "cases/<type>/<difficulty>/<slug>/<version>/"
        for key, value, folder in (
            ("type", case_type, type_dir.name),
            ("difficulty", difficulty, difficulty_dir.name),
            ("slug", slug, slug_dir.name),
        ):
            if value is not None and value != folder:
                root.error(
                    key, f"{quote(str(value))} does not match the directory {folder!r} ({where})"
                )

    # ------------------------------------------------------------------ the workspace

    def check_workspace(
        self, root: Table, workspace: Path, opponents: list[Opponent | None]
    ) -> None:
        """What is handed to authors stays in the case and holds no hidden opponent."""
        hidden = {o.module for o in opponents if o is not None and o.hidden}
        for count, entry in enumerate(sorted(workspace.rglob("*"))):
            if count >= MAX_WORKSPACE_ENTRIES:
                root.error("workspace", f"holds more than {MAX_WORKSPACE_ENTRIES} entries")
                return
            rel = entry.relative_to(workspace).as_posix()
            try:
                target = entry.resolve(strict=True)
            except (OSError, RuntimeError) as exc:
                root.error("workspace", f"{rel}: a broken link ({exc})")
                continue
            if not target.is_relative_to(self.root_dir):
                root.error("workspace", f"{rel} leads to {target}, outside the case directory")
            elif target in hidden:
                root.error("workspace", f"{rel} is a hidden opponent's module")


def load_case(directory: Path | str) -> Case:
    """Load and validate the case in ``directory`` (the folder holding ``test-case.toml``).

    Raises ``CaseNotFoundError`` when there is no such directory or manifest,
    ``UnsupportedCaseTypeError`` for a case type this arena does not host, and
    ``CaseInvalidError`` carrying every ``CaseError`` found otherwise. The
    case's version is its directory's name when that is a version number
    (``cases/<type>/<difficulty>/<slug>/<version>/``, whose folder names must
    then agree with the manifest); elsewhere the case has no version.
    """
    return _Loader(Path(directory)).load()
