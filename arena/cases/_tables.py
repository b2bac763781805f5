"""The tables of an adversarial case (``[build]``, ``[contract]``, ``[sandbox]``,
``[simulation]``, ``[[opponent]]``, ``[match]``, ``[replay]``): each one's rules.

Each reader takes its table (None when the table is missing or not a table:
reported already), reports every problem and returns the typed spec, or None
when the table has an error. Values are checked by the objects that will use
them: ``sim.Config`` for the rules, ``arena.Limits`` for the sandbox, the map
parser for a map file.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path, PurePosixPath
from typing import Final

import replays
import sim
from arena._errors import ArenaError
from arena._files import open_regular
from arena.cases._model import (
    BuildSpec,
    ContractSpec,
    MatchSpec,
    Opponent,
    ReplaySpec,
    Role,
    Structure,
)
from arena.cases._toml import Report, Table, kind_of, quote
from arena.match import ABI_VERSION, load_map
from arena.sandbox import MAX_MODULE_BYTES, Limits

__all__ = [
    "ENTRY",
    "MAX_SEEDS",
    "OPTIONAL_EXPORTS",
    "REPLAY_VERSIONS",
    "REQUIRED_EXPORTS",
    "AdversarialTables",
]

REQUIRED_EXPORTS: Final = ("memory", "foray_buffer", "foray_init", "foray_tick")
"""The exports every module of ABI version 1 must have (rules §9.2)."""
OPTIONAL_EXPORTS: Final = ("foray_note",)
"""The other exports ABI version 1 defines (rules §9.9)."""
ENTRY: Final = "foray_tick"
"""The export ABI version 1 calls once per tick."""
REPLAY_VERSIONS: Final = replays.SUPPORTED_VERSIONS
"""The replay format versions this arena writes (and so can record a case's matches in)."""
MAX_SEEDS: Final = 100
"""A run plays every opponent on every canonical seed: the count is bounded."""
SHA256 = re.compile(r"[0-9a-f]{64}")

# [sandbox] key -> (the Limits field it sets, the factor from the key's unit to the field's).
SANDBOX_KEYS: Final[dict[str, tuple[str, float]]] = {
    "fuel_per_tick": ("fuel_per_tick", 1),
    "init_fuel": ("init_fuel", 1),
    "max_memory_bytes": ("max_memory_bytes", 1),
    "tick_wall_ms": ("tick_timeout", 0.001),
    "init_wall_ms": ("init_timeout", 0.001),
}
RULES_KEYS = sim.Config.__struct_fields__
NS_PER_FUEL: Final = 22
"""The fuel-bounded worst case of a guest's work, ns per fuel unit (rules §8.7)."""
BACKSTOP_MARGIN: Final = 5
"""How far above that worst case a wall-clock backstop must sit: "well above" (rules §8.7)."""


class AdversarialTables:
    """The readers of an adversarial case's tables, over one manifest's report.

    ``[match]`` is read after every ``[[opponent]]``: its ``canonical`` names
    one of them, and exactly one has that role.
    """

    def __init__(self, report: Report, root_dir: Path) -> None:
        self.report = report
        self.root_dir = root_dir
        """The case directory (resolved): the paths a table names stay in it."""
        self.roles: list[tuple[int, str | None, Role | None]] = []
        """(index, name, role) of every [[opponent]], even one with other errors."""

    def build(self, t: Table | None) -> BuildSpec | None:
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
                    f"{quote(module)} must be a file path relative to the submission, without '..'",
                )
                module = None
        t.finish()
        if build is None or module is None:
            return None
        return BuildSpec(build=build, module=module, install=install)

    def contract(self, t: Table | None) -> ContractSpec | None:
        if t is None:
            return None
        abi = t.integer("abi")
        if abi is not None and abi != ABI_VERSION:
            t.error("abi", f"ABI version {abi} is not supported (this arena speaks {ABI_VERSION})")
            abi = None
        entry = t.string("entry")
        if entry is not None and entry != ENTRY:
            t.error("entry", f"{quote(entry)}: ABI {ABI_VERSION} calls {ENTRY} once per tick")
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
                        f"{quote(export)} is not an export of ABI {ABI_VERSION} "
                        f"({', '.join(allowed)})",
                    )
                elif export in exports[:i]:
                    t.error(f"exports[{i}]", f"{export} is listed twice")
        t.finish()
        if abi is None or entry is None or exports is None or not t.clean:
            return None
        return ContractSpec(abi=abi, entry=entry, exports=tuple(exports))

    def sandbox(self, t: Table | None) -> Limits | None:
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
                if factor == 1:
                    t.error(key, f"{value:_} is outside what the sandbox accepts: {exc}")
                else:  # said in the key's own unit, not the field's seconds
                    high = replays.LIMIT_RANGES[field_name][2] / factor
                    t.error(
                        key,
                        f"must be a whole number of milliseconds in (0, {high:_.0f}],"
                        f" got {value:_}",
                    )
                continue
            values[field_name] = converted
        compile_keys = ("compile_timeout", "compile_timeout_ms", "compile_memory_bytes")
        for wall, fuel in (("tick_wall_ms", "fuel_per_tick"), ("init_wall_ms", "init_fuel")):
            self._backstop_above_fuel(t, values, wall, fuel)
        t.finish(hint=dict.fromkeys(compile_keys, ": the compile bounds are the arena's"))
        if len(values) != len(SANDBOX_KEYS):
            return None
        # The compile bounds protect the host and stay the arena's (docs/cases.md).
        return Limits(**values)  # type: ignore[arg-type]

    @staticmethod
    def _backstop_above_fuel(
        t: Table, values: dict[str, int | float], wall: str, fuel: str
    ) -> None:
        """The wall-clock backstop ``wall`` must sit well above what ``fuel`` can take at the
        fuel-bounded worst case (rules §8.7), or running out of fuel, a deterministic verdict,
        would be recorded as the non-deterministic ``timeout``."""
        field_name = SANDBOX_KEYS[wall][0]
        if field_name not in values or fuel not in values:
            return
        worst_ms = values[fuel] * NS_PER_FUEL / 1e6
        least_ms = BACKSTOP_MARGIN * worst_ms
        if values[field_name] * 1000 < least_ms:
            t.error(
                wall,
                f"{values[field_name] * 1000:_.0f} ms is not well above what {fuel}"
                f" {values[fuel]:_} can take ({NS_PER_FUEL} ns a unit at worst,"
                f" {worst_ms:_.0f} ms): it must be at least {BACKSTOP_MARGIN} times that,"
                f" {least_ms:_.0f} ms (rules §8.7)",
            )
            del values[field_name]

    def simulation(
        self, t: Table | None
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

    def game_map(self, t: Table, values: dict[str, int]) -> tuple[sim.GameMap | None, Path | None]:
        """``map``: ``"generated"`` (None, None), or a map file that parses (map, path)."""
        value = t.string("map")
        if value is None or value == "generated":
            return None, None
        path = t.path("map", value, self.root_dir, kind="file")
        if path is None:
            return None, None
        try:
            game_map = load_map(path)
        except (ArenaError, sim.MapError) as exc:
            t.error("map", f"{quote(value)} is not a valid map: {exc}")
            return None, None
        size = (values.get("width"), values.get("height"))
        if None not in size and (game_map.width, game_map.height) != size:
            t.error(
                "map",
                f"{quote(value)} is {game_map.width}x{game_map.height}, but width and height "
                f"say {size[0]}x{size[1]}",
            )
            return None, None
        return game_map, path

    def opponents(self, root: Table) -> list[Opponent | None]:
        """Every ``[[opponent]]`` (None for one with errors), in manifest order."""
        value = root.get("opponent", required=False)
        if value is None:
            root.error("opponent", "missing: an adversarial case needs at least one [[opponent]]")
            return []
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            what = kind_of(value)
            root.error("opponent", f"must be an array of tables ([[opponent]]), got {what}")
            return []
        if not value:
            root.error("opponent", "an adversarial case needs at least one [[opponent]]")
        found: list[Opponent | None] = []
        seen: dict[str, int] = {}
        for i, entry in enumerate(value):
            t = Table(self.report, f"opponent[{i}]", entry)
            name = t.string("name")
            if name is not None and len(name) > replays.MAX_NAME_CHARS:
                # The name is a side's name in every replay of its matches: never cut there.
                t.error(
                    "name",
                    f"{quote(name)} is {len(name)} characters, over {replays.MAX_NAME_CHARS}"
                    " (the most a replay records of a side's name)",
                )
                name = None
            if name is not None:
                if name in seen:
                    t.error("name", f"{name!r} is also the name of opponent[{seen[name]}]")
                seen.setdefault(name, i)
            role = t.one_of("role", Role, tuple(Role))
            module = t.path("module", t.string("module"), self.root_dir, kind="file")
            sha256 = t.string("sha256")
            if sha256 is not None and not SHA256.fullmatch(sha256):
                t.error("sha256", f"{quote(sha256)} must be 64 lowercase hex digits")
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

    def check_module(self, t: Table, module: Path, sha256: str) -> None:
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

    def match(self, t: Table | None) -> MatchSpec | None:
        if t is None:
            self.check_roles(None, None)
            return None
        structure = t.one_of("structure", Structure, tuple(Structure))
        seeds = t.array("seeds", int, "integers")
        if seeds is not None:
            if not 1 <= len(seeds) <= MAX_SEEDS:
                t.error("seeds", f"must hold 1 to {MAX_SEEDS} seeds, got {len(seeds)}")
                seeds = None
            else:  # every bad seed is reported, not only the first
                bad = False
                for i, seed in enumerate(seeds):
                    if not 0 <= seed < 1 << 32:
                        t.error(f"seeds[{i}]", f"{seed} is not an unsigned 32-bit integer")
                        bad = True
                    elif seed in seeds[:i]:
                        t.error(f"seeds[{i}]", f"seed {seed} is listed twice")
                        bad = True
                if bad:
                    seeds = None
        canonical = t.string("canonical")
        if "opponent" in t.data:
            t.known.add("opponent")
            t.error("opponent", "opponents are [[opponent]] tables at the root, not in [match]")
        t.finish()
        self.check_roles(t, canonical)
        if structure is None or seeds is None or canonical is None or not t.clean:
            return None
        return MatchSpec(structure=structure, seeds=tuple(seeds), canonical=canonical)

    def check_roles(self, t: Table | None, canonical: str | None) -> None:
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

    def replay(self, t: Table | None) -> ReplaySpec | None:
        if t is None:
            return None
        fmt = t.string("format")
        if fmt is not None and fmt != replays.FORMAT:
            t.error("format", f"{quote(fmt)} is not this arena's replay format ({replays.FORMAT})")
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
