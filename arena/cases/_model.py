"""A loaded case as typed records: what is played, against whom, under which limits."""

from __future__ import annotations

import hashlib
from enum import StrEnum
from pathlib import Path
from typing import Any

import msgspec

import replays
import sim
from arena._errors import ArenaError
from arena._files import open_regular
from arena.cases._errors import CaseNotFoundError
from arena.cases._roles import Role
from arena.match import Contestant, MatchJob
from arena.sandbox import MAX_MODULE_BYTES, Limits

__all__ = [
    "BuildSpec",
    "Case",
    "CasePaths",
    "CaseType",
    "ContractSpec",
    "Difficulty",
    "MatchSpec",
    "Opponent",
    "ReplaySpec",
    "Role",
    "Structure",
]


class CaseType(StrEnum):
    """The case types this arena hosts (the catalog may hold others, which are refused by name)."""

    ADVERSARIAL = "adversarial"


class Difficulty(StrEnum):
    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


class Structure(StrEnum):
    """How a field of submissions is run against each other."""

    ROUND_ROBIN = "round-robin"
    BRACKET = "bracket"


class CasePaths(msgspec.Struct, frozen=True):
    """The files a manifest names, as absolute paths inside the case directory."""

    manifest: Path
    changelog: Path
    prompt: Path
    description: Path | None = None
    workspace: Path | None = None
    """The starter project handed to an author (a directory), if the case has one."""
    map: Path | None = None
    """The case's map file; None when each match's map is generated from its seed."""


class BuildSpec(msgspec.Struct, frozen=True):
    """``[build]``: how a submission's directory becomes a module.

    The commands are shell command lines run in the submission's directory;
    ``module`` is the artifact's path relative to it (never absolute, no ``..``).
    """

    build: str
    module: str
    install: str | None = None


class ContractSpec(msgspec.Struct, frozen=True):
    """``[contract]``: the ABI version, the per-tick entry and the exports a module must have."""

    abi: int
    entry: str
    exports: tuple[str, ...]


class MatchSpec(msgspec.Struct, frozen=True):
    """``[match]``: the structure of a field, the canonical seeds and the canonical opponent."""

    structure: Structure
    seeds: tuple[int, ...]
    canonical: str


class ReplaySpec(msgspec.Struct, frozen=True):
    """``[replay]``: the replay format and the version the case names; its matches are
    recorded in ``recorded_version``."""

    format: str
    version: int

    @property
    def recorded_version(self) -> int:
        """The version the case's matches are recorded in: ``version``, or the newest that
        is it plus more records (``replays.extended_version``: 2 gives 3, which adds each
        side's memory; 1 gives 1)."""
        return replays.extended_version(self.version)


class Opponent(msgspec.Struct, frozen=True):
    """One ``[[opponent]]``: a committed module inside the case directory, checked by sha256."""

    name: str
    role: Role
    module: Path
    """Absolute path of the module file, inside the case directory."""
    sha256: str
    hidden: bool = False
    """A hidden opponent's module is never served publicly nor handed to an author."""

    def read_module(self) -> bytes:
        """The module's bytes, checked again against the manifest's sha256.

        A case is immutable once published; a file changed since the case was
        loaded is an ``ArenaError`` naming it, never silently played.
        """
        try:
            # A FIFO or a device swapped in since loading is refused at once, never waited on.
            with open_regular(self.module, f"module of opponent {self.name}") as f:
                blob = f.read(MAX_MODULE_BYTES + 1)
        except ArenaError as exc:
            raise CaseNotFoundError(str(exc)) from None
        except OSError as exc:
            raise CaseNotFoundError(
                f"{self.module}: cannot read opponent {self.name}'s module: {exc.strerror or exc}"
            ) from None
        digest = hashlib.sha256(blob).hexdigest()
        if digest != self.sha256:
            raise ArenaError(
                f"{self.module}: opponent {self.name}'s module has sha256 {digest}, "
                f"the case says {self.sha256}"
            )
        return blob

    def contestant(self) -> Contestant:
        """The opponent as a side of a match: its name and its checked module bytes."""
        return Contestant(self.name, self.read_module())


class Case(msgspec.Struct, frozen=True):
    """A loaded, validated adversarial case (one version of it).

    ``rules`` and ``limits`` are what every match of the case is played under;
    ``game_map`` is the case's fixed map, or None when each match generates its
    map from its seed (``map = "generated"``).
    """

    slug: str
    name: str
    type: CaseType
    difficulty: Difficulty
    tags: tuple[str, ...]
    version: int | None
    """The version directory's number; None for a case checked outside the catalog layout."""
    directory: Path
    """The case directory, resolved."""
    manifest_sha256: str
    """The sha256 of ``test-case.toml``'s bytes: what a run records with slug and version."""
    paths: CasePaths
    build: BuildSpec
    contract: ContractSpec
    limits: Limits
    rules: sim.Config
    game_map: sim.GameMap | None
    match: MatchSpec
    opponents: tuple[Opponent, ...]
    replay: ReplaySpec
    experimental: bool = False
    summary: str | None = None
    max_runtime_hours: float = 1.0
    init: str | None = None
    """A command run once in a fresh submission directory after the workspace is laid out."""

    def __repr__(self) -> str:
        # Every field but the map, whose rock and ore are a cell each.
        shown = (f"{n}={getattr(self, n)!r}" for n in self.__struct_fields__ if n != "game_map")
        return f"Case({', '.join(shown)})"

    @property
    def ref(self) -> replays.CaseRef:
        """The identity a replay header records. Only a case of the catalog has one."""
        if self.version is None:
            raise ArenaError(
                f"{self.directory}: a case outside the catalog layout "
                "(cases/<type>/<difficulty>/<slug>/<version>/) has no version"
            )
        return replays.CaseRef(self.slug, self.version)

    @property
    def label(self) -> str:
        """``slug`` and version, for people: ``foray v1``."""
        return self.slug if self.version is None else f"{self.slug} v{self.version}"

    @property
    def max_runtime_seconds(self) -> float:
        return self.max_runtime_hours * 3600.0

    @property
    def canonical(self) -> Opponent:
        """The one opponent whose match decides a run."""
        return self.opponent(self.match.canonical)

    def opponent(self, name: str) -> Opponent:
        """The opponent called ``name`` (an ``ArenaError`` naming the known ones if none is)."""
        for opponent in self.opponents:
            if opponent.name == name:
                return opponent
        known = ", ".join(o.name for o in self.opponents)
        raise ArenaError(f"case {self.label} has no opponent {name!r} (opponents: {known})")

    def opponents_with(self, role: Role) -> tuple[Opponent, ...]:
        """The opponents of one role, in manifest order."""
        return tuple(o for o in self.opponents if o.role is role)

    def map_for(self, seed: int) -> sim.GameMap:
        """The map of a match on ``seed``: the case's own map, or the one generated from it."""
        if self.game_map is not None:
            return self.game_map
        return sim.generate_map(seed, self.rules.width, self.rules.height)

    def match_job(
        self,
        a: Contestant,
        b: Contestant,
        *,
        seed: int = 0,
        config: sim.Config | None = None,
        game_map: sim.GameMap | None = None,
    ) -> MatchJob:
        """A match under this case's rules, limits and map, recorded with the case's identity.

        The replay is written in the case's ``replay.recorded_version``.
        ``config`` and ``game_map`` replace the case's (``arena match --max-ticks``,
        ``--map``); the replay header records the constants actually played.
        """
        return MatchJob(
            a,
            b,
            seed=seed,
            config=self.rules if config is None else config,
            limits=self.limits,
            game_map=self.game_map if game_map is None else game_map,
            case=self.ref,
            replay_version=self.replay.recorded_version,
        )

    def to_json(self) -> dict[str, Any]:
        """The case as ``arena case check --json`` and ``arena cases --json`` print it."""
        return {
            "slug": self.slug,
            "name": self.name,
            "type": str(self.type),
            "difficulty": str(self.difficulty),
            "version": self.version,
            "tags": list(self.tags),
            "experimental": self.experimental,
            "summary": self.summary,
            "directory": str(self.directory),
            "manifest_sha256": self.manifest_sha256,
            "max_runtime_hours": self.max_runtime_hours,
            "map": (
                "generated"
                if self.paths.map is None
                else self.paths.map.relative_to(self.directory).as_posix()
            ),
            "seeds": list(self.match.seeds),
            "structure": str(self.match.structure),
            "canonical": self.match.canonical,
            "opponents": [
                {
                    "name": o.name,
                    "role": str(o.role),
                    "hidden": o.hidden,
                    "sha256": o.sha256,
                }
                for o in self.opponents
            ],
        }
