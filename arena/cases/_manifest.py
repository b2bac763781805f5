"""Load and validate ``test-case.toml`` (case-manifest format; docs/cases.md).

The loader checks every rule and keeps going after a problem, so one run lists
everything wrong with a case: each ``CaseError`` names the file, the table and
the key. Values are checked by the objects that will use them (``sim.Config``
for the rules, ``arena.Limits`` for the sandbox, the map parser for a map
file), so a case can never declare what a match could not be played under.
"""

from __future__ import annotations

import hashlib
import math
import re
import tomllib
from collections.abc import Callable
from dataclasses import fields
from datetime import date, datetime, time
from pathlib import Path, PurePosixPath
from typing import Any, Final, TypeVar

import replays
import sim
from arena._errors import ArenaError
from arena._files import open_regular
from arena.cases._errors import (
    CaseError,
    CaseInvalidError,
    CaseNotFoundError,
    UnsupportedCaseTypeError,
)
from arena.cases._model import (
    BuildSpec,
    Case,
    CasePaths,
    CaseType,
    ContractSpec,
    Difficulty,
    MatchSpec,
    Opponent,
    ReplaySpec,
    Role,
    Structure,
)
from arena.match import ABI_VERSION, load_map
from arena.sandbox import MAX_MODULE_BYTES, Limits

__all__ = [
    "ENTRY",
    "FORBIDDEN_TABLES",
    "MANIFEST",
    "MAX_MANIFEST_BYTES",
    "MAX_RUNTIME_HOURS",
    "MAX_SEEDS",
    "MAX_SLUG_CHARS",
    "OPTIONAL_EXPORTS",
    "REPLAY_VERSIONS",
    "REQUIRED_EXPORTS",
    "load_case",
    "version_of",
]

MANIFEST: Final = "test-case.toml"
MAX_MANIFEST_BYTES: Final = 256 * 1024
"""A manifest is a page of TOML; anything this large is not one (and is not parsed)."""
MAX_SEEDS: Final = 100
"""A run plays every opponent on every canonical seed: the count is bounded."""
MAX_RUNTIME_HOURS: Final = 24.0
MAX_WORKSPACE_ENTRIES: Final = 1000
"""The workspace is walked to check its symlinks; a starter project is small."""

REQUIRED_EXPORTS: Final = ("memory", "foray_buffer", "foray_init", "foray_tick")
"""The exports every module of ABI version 1 must have (rules §9.2)."""
OPTIONAL_EXPORTS: Final = ("foray_note",)
"""The other exports ABI version 1 defines (rules §9.9)."""
ENTRY: Final = "foray_tick"
"""The export ABI version 1 calls once per tick."""
REPLAY_VERSIONS: Final = replays.SUPPORTED_VERSIONS
"""The replay format versions this arena writes (and so can record a case's matches in)."""
MAX_SLUG_CHARS: Final = 64
"""A slug is copied into the header of every replay of the case: kept far below the
reader's bound on a string, so no honest replay of the case is ever unreadable."""

SLUG = re.compile(r"[a-z0-9-]+")
VERSION_DIR = re.compile(r"[1-9][0-9]{0,8}")
SHA256 = re.compile(r"[0-9a-f]{64}")

ROOT: Final = ""
ROOT_REQUIRED = ("slug", "name", "type", "difficulty", "tags", "changelog", "prompt")
ROOT_OPTIONAL = (
    "experimental",
    "summary",
    "description",
    "max_runtime_hours",
    "workspace",
    "init",
)
ADVERSARIAL_TABLES = ("build", "contract", "sandbox", "simulation", "match", "opponent", "replay")
FORBIDDEN_TABLES: Final = {
    "case": "[[case]]",
    "canvas": "[canvas]",
    "tool": "[tool]",
    "output": "[output]",
    "check": "[[check]]",
}
"""Root keys of other case types' tables, refused by name in an adversarial case."""

# [sandbox] key -> (the Limits field it sets, the factor from the key's unit to the field's).
SANDBOX_KEYS: Final[dict[str, tuple[str, float]]] = {
    "fuel_per_tick": ("fuel_per_tick", 1),
    "init_fuel": ("init_fuel", 1),
    "max_memory_bytes": ("max_memory_bytes", 1),
    "tick_wall_ms": ("tick_timeout", 0.001),
    "init_wall_ms": ("init_timeout", 0.001),
}
RULES_KEYS = tuple(f.name for f in fields(sim.Config))

T = TypeVar("T")


def version_of(directory: Path) -> int | None:
    """The case version a directory's name gives (``1``, ``2``, ...), or None if it is not one."""
    return int(directory.name) if VERSION_DIR.fullmatch(directory.name) else None


def _kind(value: object) -> str:
    """How TOML calls a value's type, for messages."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a float"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, datetime | date | time):
        return "a date or time"
    return type(value).__name__


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class _Report:
    """The errors found so far in one manifest."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.errors: list[CaseError] = []

    def error(self, table: str, key: str, message: str) -> None:
        self.errors.append(CaseError(self.file, table, key, message))


class _Table:
    """One table of the manifest: typed reads that report what is wrong, then unknown keys."""

    def __init__(self, report: _Report, name: str, data: dict[str, Any]) -> None:
        self.report = report
        self.name = name
        self.data = data
        self.known: set[str] = set()
        self.start = len(report.errors)

    def error(self, key: str, message: str) -> None:
        self.report.error(self.name, key, message)

    @property
    def clean(self) -> bool:
        """No error was reported about this table since it was opened."""
        return not any(e.table == self.name for e in self.report.errors[self.start :])

    def get(self, key: str, required: bool) -> Any:
        self.known.add(key)
        if key not in self.data:
            if required:
                self.error(key, "missing (required)")
            return None
        return self.data[key]

    def typed(self, key: str, kind: type[T], what: str, *, required: bool = True) -> T | None:
        """The value of ``key`` if it has type ``kind`` (booleans are never integers)."""
        value = self.get(key, required)
        if value is None:
            return None
        if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
            return value
        self.error(key, f"must be {what}, got {_kind(value)} ({_show(value)})")
        return None

    def string(self, key: str, *, required: bool = True, nonempty: bool = True) -> str | None:
        value = self.typed(key, str, "a string", required=required)
        if value is not None and nonempty and not value.strip():
            self.error(key, "must not be empty")
            return None
        return value

    def integer(self, key: str, *, required: bool = True) -> int | None:
        return self.typed(key, int, "an integer", required=required)

    def boolean(self, key: str, default: bool) -> bool:
        value = self.typed(key, bool, "a boolean (true or false)", required=False)
        return default if value is None else value

    def array(self, key: str, item: type[T], what: str) -> list[T] | None:
        """An array whose every element has type ``item``; each bad element is reported."""
        value = self.typed(key, list, f"an array of {what}")
        if value is None:
            return None
        good: list[T] = []
        for i, element in enumerate(value):
            if isinstance(element, item) and not (item is int and isinstance(element, bool)):
                good.append(element)
            else:
                self.error(f"{key}[{i}]", f"must be {what[:-1]}, got {_kind(element)}")
        return good if len(good) == len(value) else None

    def one_of(self, key: str, enum: Callable[[str], T], choices: tuple[str, ...]) -> T | None:
        value = self.string(key)
        if value is None:
            return None
        if value not in choices:
            self.error(key, f"must be one of {', '.join(choices)}; got {_show(value)}")
            return None
        return enum(value)

    def finish(self, *, hint: dict[str, str] | None = None) -> None:
        """Report every key nobody read: unknown keys are errors."""
        for key in self.data:
            if key not in self.known:
                extra = (hint or {}).get(key, "")
                self.error(key, f"unknown key{extra}")


class _Loader:
    """One pass over one case directory, collecting every error."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.root_dir = directory.resolve()
        self.manifest = directory / MANIFEST
        self.report = _Report(str(self.manifest))
        self.roles: list[tuple[int, str | None, Role | None]] = []
        """(index, name, role) of every [[opponent]], even one with other errors."""

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
        if len(data) > MAX_MANIFEST_BYTES:
            self.report.error(ROOT, "", f"larger than {MAX_MANIFEST_BYTES} bytes: not a manifest")
            return data, None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.report.error(ROOT, "", f"not UTF-8 text (byte {exc.start})")
            return data, None
        try:
            return data, tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            self.report.error(ROOT, "", f"not valid TOML: {exc}")
        except (ValueError, RecursionError) as exc:
            # tomllib lets a few value errors through (an integer with more digits than
            # Python converts, arrays nested past the recursion limit).
            self.report.error(ROOT, "", f"not valid TOML: {type(exc).__name__}: {exc}")
        return data, None

    def path(self, table: _Table, key: str, value: str | None, *, kind: str) -> Path | None:
        """A path the manifest names: relative, no ``..``, existing, inside the case directory.

        ``kind`` is ``file`` or ``directory``. The path is resolved with its
        symlinks, so a link that leads out of the case directory is refused.
        """
        if value is None:
            return None
        if "\0" in value:
            table.error(key, "a path may not contain a NUL character")
            return None
        pure = PurePosixPath(value)
        if pure.is_absolute() or "\\" in value or (len(value) > 1 and value[1] == ":"):
            table.error(key, f"{_show(value)} must be a path relative to the case directory")
            return None
        if ".." in pure.parts:
            table.error(key, f"{_show(value)} may not contain '..': paths stay in the case")
            return None
        try:
            resolved = (self.root_dir / pure).resolve(strict=True)
        except (OSError, RuntimeError, ValueError) as exc:
            reason = "does not exist" if isinstance(exc, FileNotFoundError) else f"({exc})"
            table.error(key, f"{_show(value)} {reason}")
            return None
        if resolved == self.root_dir or not resolved.is_relative_to(self.root_dir):
            table.error(
                key, f"{_show(value)} leads to {resolved}, which is not inside the case directory"
            )
            return None
        ok = resolved.is_file() if kind == "file" else resolved.is_dir()
        if not ok:
            table.error(key, f"{_show(value)} is not a {kind}")
            return None
        return resolved

    # ------------------------------------------------------------------ the document

    def load(self) -> Case:
        data, doc = self.read()
        manifest_sha256 = hashlib.sha256(data).hexdigest()
        if doc is None:
            raise CaseInvalidError(self.directory, self.report.errors)
        root = _Table(self.report, ROOT, doc)

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
            root.error("slug", f"{_show(slug)} must match [a-z0-9-]+")
            slug = None
        elif slug is not None and len(slug) > MAX_SLUG_CHARS:
            root.error(
                "slug",
                f"{_show(slug)} is {len(slug)} characters, over {MAX_SLUG_CHARS}"
                " (every replay of the case records it)",
            )
            slug = None
        name = root.string("name")
        difficulty = root.one_of("difficulty", Difficulty, tuple(Difficulty))
        tags = root.array("tags", str, "strings")
        changelog = self.path(root, "changelog", root.string("changelog"), kind="file")
        prompt = self.path(root, "prompt", root.string("prompt"), kind="file")
        experimental = root.boolean("experimental", False)
        summary = root.string("summary", required=False)
        description = self.path(
            root, "description", root.string("description", required=False), kind="file"
        )
        max_runtime_hours = self.runtime(root)
        workspace = self.path(
            root, "workspace", root.string("workspace", required=False), kind="directory"
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
        build = self.build(self.table(root, "build"))
        contract = self.contract(self.table(root, "contract"))
        limits = self.sandbox(self.table(root, "sandbox"))
        rules, game_map, map_path = self.simulation(self.table(root, "simulation"))
        opponents = self.opponents(root)
        match = self.match(self.table(root, "match"))
        replay = self.replay(self.table(root, "replay"))
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

    def table(self, root: _Table, key: str) -> _Table | None:
        if key not in root.data:
            root.known.add(key)
            root.error(key, f"missing: an adversarial case needs the table [{key}]")
            return None
        value = root.typed(key, dict, f"a table ([{key}])")
        return None if value is None else _Table(self.report, key, value)

    def runtime(self, root: _Table) -> float:
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
                f"must be a number of hours in (0, {MAX_RUNTIME_HOURS:g}], got {_show(value)}",
            )
            return 1.0
        return float(value)

    def layout(
        self,
        root: _Table,
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
                    key, f"{_show(str(value))} does not match the directory {folder!r} ({where})"
                )

    # ------------------------------------------------------------------ the tables

    def build(self, t: _Table | None) -> BuildSpec | None:
        if t is None:
            return None
        install = t.string("install", required=False)
        build = t.string("build")
        module = t.string("module")
        if module is not None:
            pure = PurePosixPath(module)
            if (
                pure.is_absolute()
                or ".." in pure.parts
                or "\\" in module
                or "\0" in module
                or module.endswith("/")
                or pure.name in ("", ".")
            ):
                t.error(
                    "module",
                    f"{_show(module)} must be a file path relative to the submission, without '..'",
                )
                module = None
        t.finish()
        if build is None or module is None:
            return None
        return BuildSpec(build=build, module=module, install=install)

    def contract(self, t: _Table | None) -> ContractSpec | None:
        if t is None:
            return None
        abi = t.integer("abi")
        if abi is not None and abi != ABI_VERSION:
            t.error("abi", f"ABI version {abi} is not supported (this arena speaks {ABI_VERSION})")
            abi = None
        entry = t.string("entry")
        if entry is not None and entry != ENTRY:
            t.error("entry", f"{_show(entry)}: ABI {ABI_VERSION} calls {ENTRY} once per tick")
            entry = None
        exports = t.array("exports", str, "strings")
        if exports is not None:
            missing = [e for e in REQUIRED_EXPORTS if e not in exports]
            if missing:
                t.error("exports", f"must contain {', '.join(missing)} (rules §9.2)")
            allowed = REQUIRED_EXPORTS + OPTIONAL_EXPORTS
            for i, export in enumerate(exports):
                if export not in allowed:
                    t.error(
                        f"exports[{i}]",
                        f"{_show(export)} is not an export of ABI {ABI_VERSION} "
                        f"({', '.join(allowed)})",
                    )
                elif export in exports[:i]:
                    t.error(f"exports[{i}]", f"{export} is listed twice")
        t.finish()
        if abi is None or entry is None or exports is None or not t.clean:
            return None
        return ContractSpec(abi=abi, entry=entry, exports=tuple(exports))

    def sandbox(self, t: _Table | None) -> Limits | None:
        if t is None:
            return None
        values: dict[str, int | float] = {}
        for key, (field_name, factor) in SANDBOX_KEYS.items():
            value = t.integer(key)
            if value is None:
                continue
            converted = value * factor if factor != 1 else value
            try:
                Limits(**{field_name: converted})  # type: ignore[arg-type]
            except ValueError as exc:
                t.error(key, f"{value:_} is outside what the sandbox accepts: {exc}")
                continue
            values[field_name] = converted
        compile_keys = ("compile_timeout", "compile_timeout_ms", "compile_memory_bytes")
        t.finish(hint=dict.fromkeys(compile_keys, ": the compile bounds are the arena's"))
        if len(values) != len(SANDBOX_KEYS):
            return None
        # The compile bounds protect the host and stay the arena's (docs/cases.md).
        return Limits(**values)  # type: ignore[arg-type]

    def simulation(
        self, t: _Table | None
    ) -> tuple[sim.Config | None, sim.GameMap | None, Path | None]:
        if t is None:
            return None, None, None
        values: dict[str, int] = {}
        for key in RULES_KEYS:
            value = t.integer(key)
            if value is None:
                continue
            # Alone, against defaults that cannot object (start_workers 0 fits any max_units).
            alone = {"start_workers": 0} if key != "start_workers" else {}
            try:
                sim.Config.from_mapping({**alone, key: value})
            except sim.ConfigError as exc:
                t.error(key, str(exc).removeprefix("config: "))
                continue
            values[key] = value
        # The one rule across constants, checked as soon as both sides of it are known.
        pair: dict[str, int] = {k: values[k] for k in ("start_workers", "max_units") if k in values}
        if len(pair) == 2:
            try:
                sim.Config.from_mapping(pair)
            except sim.ConfigError as exc:
                t.error("start_workers", str(exc).removeprefix("config: "))
        rules: sim.Config | None = None
        if len(values) == len(RULES_KEYS) and t.clean:
            rules = sim.Config.from_mapping(values)
        game_map, map_path = self.game_map(t, values)
        t.finish()
        return rules, game_map, map_path

    def game_map(self, t: _Table, values: dict[str, int]) -> tuple[sim.GameMap | None, Path | None]:
        """``map``: ``"generated"`` (None, None), or a map file that parses (map, path)."""
        value = t.string("map")
        if value is None or value == "generated":
            return None, None
        path = self.path(t, "map", value, kind="file")
        if path is None:
            return None, None
        try:
            game_map = load_map(path)
        except (ArenaError, sim.MapError) as exc:
            t.error("map", f"{_show(value)} is not a valid map: {exc}")
            return None, None
        size = (values.get("width"), values.get("height"))
        if None not in size and (game_map.width, game_map.height) != size:
            t.error(
                "map",
                f"{_show(value)} is {game_map.width}x{game_map.height}, but width and height "
                f"say {size[0]}x{size[1]}",
            )
            return None, None
        return game_map, path

    def opponents(self, root: _Table) -> list[Opponent | None]:
        """Every ``[[opponent]]`` (None for one with errors), in manifest order."""
        value = root.get("opponent", required=False)
        if value is None:
            root.error("opponent", "missing: an adversarial case needs at least one [[opponent]]")
            return []
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            root.error("opponent", f"must be an array of tables ([[opponent]]), got {_kind(value)}")
            return []
        if not value:
            root.error("opponent", "an adversarial case needs at least one [[opponent]]")
        found: list[Opponent | None] = []
        seen: dict[str, int] = {}
        for i, entry in enumerate(value):
            t = _Table(self.report, f"opponent[{i}]", entry)
            name = t.string("name")
            if name is not None and len(name) > replays.MAX_NAME_CHARS:
                # The name is a side's name in every replay of its matches: never cut there.
                t.error(
                    "name",
                    f"{_show(name)} is {len(name)} characters, over {replays.MAX_NAME_CHARS}"
                    " (the most a replay records of a side's name)",
                )
                name = None
            if name is not None:
                if name in seen:
                    t.error("name", f"{name!r} is also the name of opponent[{seen[name]}]")
                seen.setdefault(name, i)
            role = t.one_of("role", Role, tuple(Role))
            module = self.path(t, "module", t.string("module"), kind="file")
            sha256 = t.string("sha256")
            if sha256 is not None and not SHA256.fullmatch(sha256):
                t.error("sha256", f"{_show(sha256)} must be 64 lowercase hex digits")
                sha256 = None
            if module is not None and sha256 is not None:
                self.check_module(t, module, sha256)
            hidden = t.boolean("hidden", False)
            t.finish()
            self.roles.append((i, name, role))
            if t.clean and name and role and module and sha256:
                found.append(Opponent(name, role, module, sha256, hidden))
            else:
                found.append(None)
        return found

    def check_module(self, t: _Table, module: Path, sha256: str) -> None:
        try:
            with open_regular(module, "module") as f:
                blob = f.read(MAX_MODULE_BYTES + 1)
        except ArenaError as exc:
            t.error("module", str(exc))
            return
        except OSError as exc:
            t.error("module", f"cannot read {module.name}: {exc.strerror or exc}")
            return
        if len(blob) > MAX_MODULE_BYTES:
            t.error("module", f"{module.name} is larger than {MAX_MODULE_BYTES} bytes")
            return
        digest = hashlib.sha256(blob).hexdigest()
        if digest != sha256:
            t.error("sha256", f"does not match the module {module.name}, whose sha256 is {digest}")

    def match(self, t: _Table | None) -> MatchSpec | None:
        if t is None:
            self.check_roles(None, None)
            return None
        structure = t.one_of("structure", Structure, tuple(Structure))
        seeds = t.array("seeds", int, "integers")
        if seeds is not None:
            if not 1 <= len(seeds) <= MAX_SEEDS:
                t.error("seeds", f"must hold 1 to {MAX_SEEDS} seeds, got {len(seeds)}")
                seeds = None
            else:
                for i, seed in enumerate(seeds):
                    if not 0 <= seed < 1 << 32:
                        t.error(f"seeds[{i}]", f"{seed} is not an unsigned 32-bit integer")
                        seeds = None
                    elif seed in seeds[:i]:
                        t.error(f"seeds[{i}]", f"seed {seed} is listed twice")
                        seeds = None
                    if seeds is None:
                        break
        canonical = t.string("canonical")
        if "opponent" in t.data:
            t.known.add("opponent")
            t.error("opponent", "opponents are [[opponent]] tables at the root, not in [match]")
        t.finish()
        self.check_roles(t, canonical)
        if structure is None or seeds is None or canonical is None or not t.clean:
            return None
        return MatchSpec(structure=structure, seeds=tuple(seeds), canonical=canonical)

    def check_roles(self, t: _Table | None, canonical: str | None) -> None:
        """Exactly one opponent is canonical, and it is the one ``[match]`` names."""
        holders = [(i, name) for i, name, role in self.roles if role is Role.CANONICAL]
        if self.roles and all(role is not None for _, _, role in self.roles) and not holders:
            message = "no opponent has role canonical (exactly one must)"
            self.report.error("opponent", "role", message)
        for i, name in holders[1:]:
            self.report.error(
                f"opponent[{i}]",
                "role",
                f"{name!r} is a second canonical opponent ({holders[0][1]!r} is the first)",
            )
        if t is None or canonical is None:
            return
        roles = {name: role for _, name, role in self.roles if name is not None}
        if canonical not in roles:
            t.error("canonical", f"no [[opponent]] is named {canonical!r}")
        elif roles[canonical] not in (Role.CANONICAL, None):
            t.error(
                "canonical",
                f"names {canonical!r}, whose role is {roles[canonical]}, not canonical",
            )

    def replay(self, t: _Table | None) -> ReplaySpec | None:
        if t is None:
            return None
        fmt = t.string("format")
        if fmt is not None and fmt != replays.FORMAT:
            t.error("format", f"{_show(fmt)} is not this arena's replay format ({replays.FORMAT})")
            fmt = None
        version = t.integer("version")
        if version is not None and version not in REPLAY_VERSIONS:
            supported = ", ".join(map(str, REPLAY_VERSIONS))
            t.error("version", f"replay version {version} is not supported ({supported})")
            version = None
        t.finish()
        if fmt is None or version is None:
            return None
        return ReplaySpec(format=fmt, version=version)

    def check_workspace(
        self, root: _Table, workspace: Path, opponents: list[Opponent | None]
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
