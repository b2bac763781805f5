"""The store's closed vocabularies (StrEnums, their values are the database's) and its records.

``Role`` and ``RunOutcome`` are the case's (``arena.cases``), kept here as runs
record them.

Every record is frozen: what a query returns is a snapshot, never a live row.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final

import msgspec

import sim
from arena._errors import ArenaError
from arena.cases import Role, RunOutcome

if TYPE_CHECKING:
    # Only for annotations: importing arena.match at run time loads wasmtime,
    # which a store reader (a listing, the web) never needs.
    from arena.match import MatchResult

__all__ = [
    "SIDE_KEYS",
    "ControllerRecord",
    "Entrant",
    "Exclusion",
    "MatchRecord",
    "MatchStatus",
    "Origin",
    "ReplayStatus",
    "ResultRecord",
    "Role",
    "RunMatch",
    "RunOutcome",
    "RunRecord",
    "SideRecord",
    "TokenRecord",
    "TokenRole",
    "TournamentRecord",
    "TournamentStatus",
]


class Origin(StrEnum):
    """Where a controller came from."""

    BASELINE = "baseline"
    """A committed baseline (or a case's committed opponent)."""
    FILE = "file"
    """A module file named on the command line."""
    UPLOAD = "upload"
    """Uploaded to the server (or pushed with a run)."""
    RUN = "run"
    """Built from source by a proof run."""


class TokenRole(StrEnum):
    """What a token of the site may do (docs/web.md, "Tokens")."""

    CONSOLE = "console"
    """Everything the console does: every record, uploads, quick matches, tournaments,
    publishing (and pushing)."""
    WORKER = "worker"
    """Register the one worker its name names, and answer for it: nothing else."""
    PUSH = "push"
    """Push runs: nothing else."""


class MatchStatus(StrEnum):
    """Where a match stands. Only a pending match may change; the others are final."""

    PENDING = "pending"
    """Queued (the server's quick matches): an id, no result yet."""
    FINISHED = "finished"
    """Played: the result and the replay are stored."""
    ERROR = "error"
    """Could not be played (e.g. its worker died twice): the reason is stored, no replay."""


class ReplayStatus(StrEnum):
    """What a finished match's replay file is on disk now (``Store.replay_status``)."""

    OK = "ok"
    """There, and its bytes hash to its name: the replay that was recorded."""
    MISSING = "missing"
    """Not there (deleted by hand, or lost with the disk)."""
    DAMAGED = "damaged"
    """There, but its bytes do not hash to its name (truncated or changed on disk)."""


class TournamentStatus(StrEnum):
    """Where a tournament stands."""

    RUNNING = "running"
    FINISHED = "finished"
    FAILED = "failed"


class Entrant(msgspec.Struct, frozen=True):
    """A controller as it takes part in a match or a tournament: its name there and its sha256."""

    name: str
    sha256: str


class ControllerRecord(msgspec.Struct, frozen=True):
    """A stored controller; its module is the file ``modules/<sha256>.wasm``."""

    sha256: str
    name: str
    """The name it was first stored under (a match keeps the name it was played under)."""
    origin: Origin
    hidden: bool
    """Never to be listed or served publicly (a case's hidden opponent); the web enforces it."""
    size: int
    """The module's size in bytes."""
    created_at: datetime


SIDE_KEYS: Final = ("name", "sha256", "banked", "fuel_total", "fuel_peak", "forfeit")
"""The design's keys of a side in the match JSON; the store keeps each in a column."""


class SideRecord(msgspec.Struct, frozen=True):
    """One side of a stored result (the design's keys of ``sides``)."""

    name: str
    sha256: str
    banked: int
    fuel_total: int
    fuel_peak: int
    forfeit: sim.Forfeit | None
    extra: Mapping[str, Any] = msgspec.field(default_factory=dict)
    """The side's other keys of the match JSON (``SideResult.to_dict()`` beyond
    ``SIDE_KEYS``, e.g. fuel statistics), kept as they were recorded."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "sha256": self.sha256,
            "banked": self.banked,
            "fuel_total": self.fuel_total,
            "fuel_peak": self.fuel_peak,
            "forfeit": self.forfeit.to_dict() if self.forfeit else None,
            **self.extra,
        }


class ResultRecord(msgspec.Struct, frozen=True):
    """A played match's stored result; the replay is ``replays/<replay_sha256>.replay``."""

    winner: int | None
    """The winning side's index (0 = A, 1 = B), or None for a draw."""
    reason: sim.Reason
    ticks: int
    replay_sha256: str
    sides: tuple[SideRecord, SideRecord]


class MatchRecord(msgspec.Struct, frozen=True):
    """A stored match: who played, on which seed, and where it stands.

    A match stands alone (a quick match), or belongs to a tournament (with
    the pairing's key, unique in that tournament) or to a run (with the
    opponent's name and role).
    """

    id: int
    status: MatchStatus
    seed: int
    entrants: tuple[Entrant, Entrant]
    """Side A and side B, as they were entered (a result's sides carry the same sha256s)."""
    result: ResultRecord | None
    """Set when ``status`` is finished."""
    error: str | None
    """Why it could not be played, when ``status`` is error."""
    created_at: datetime
    finished_at: datetime | None
    tournament_id: int | None = None
    pairing_key: str | None = None
    run_id: int | None = None
    opponent: str | None = None
    role: Role | None = None
    published: bool = False
    """Whether the public site shows it: a quick match published, or a match of a published
    run or tournament."""

    def to_json(self, replay: str = "") -> dict[str, Any]:
        """The JSON of the match: ``"id"`` and the design's keys of ``arena match --json``.

        A finished match gives exactly ``MatchResult.to_json(replay)`` plus
        ``"id"``; a pending one or one in error gives ``"id"``, ``"status"``,
        ``"seed"``, the sides' names and sha256s, and ``"error"``.
        """
        if self.result is None:
            return {
                "id": self.id,
                "status": str(self.status),
                "seed": self.seed,
                "sides": [{"name": e.name, "sha256": e.sha256} for e in self.entrants],
                "error": self.error,
            }
        r = self.result
        return {
            "id": self.id,
            "winner": r.winner,
            "reason": str(r.reason),
            "ticks": r.ticks,
            "seed": self.seed,
            "replay": replay,
            "replay_sha256": r.replay_sha256,
            "sides": [s.to_dict() for s in r.sides],
        }


class Exclusion(msgspec.Struct, frozen=True):
    """An entrant left out of a tournament's standings by its operator, and why."""

    name: str
    reason: str
    created_at: datetime

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "reason": self.reason, "at": self.created_at.isoformat()}


class TournamentRecord(msgspec.Struct, frozen=True):
    """A stored tournament. The store keeps its format, options and standings as given.

    The format's values and the standings' shape belong to ``arena.tournament``;
    the store only keeps them (standings as JSON, written once, when it finishes).
    """

    id: int
    format: str
    field: tuple[Entrant, ...]
    """The entrants in seeded order."""
    seeds: tuple[int, ...]
    options: dict[str, Any]
    status: TournamentStatus
    standings: Any
    """The JSON the coordinator stored when the tournament finished, else None."""
    error: str | None
    """Why it failed, when ``status`` is failed."""
    matches: int
    """How many of its matches are recorded (finished or error)."""
    created_at: datetime
    finished_at: datetime | None
    published: bool = False
    """Whether the public site shows it (an operator published it)."""
    excluded: tuple[Exclusion, ...] = ()
    """The entrants left out of its standings, in the field's order (``arena tournament
    exclude``); its matches stay as they were recorded."""

    def check_excludable(self, name: str) -> None:
        """Raise ``ArenaError`` unless ``name`` is an entrant of the field not excluded yet."""
        if name not in [e.name for e in self.field]:
            raise ArenaError(
                f"tournament {self.id} has no entrant {name!r} "
                f"(its field: {', '.join(e.name for e in self.field)})"
            )
        if name in [x.name for x in self.excluded]:
            raise ArenaError(f"{name!r} is excluded from tournament {self.id} already")


class RunRecord(msgspec.Struct, frozen=True):
    """A stored proof run (immutable). Its build log is ``Store.build_log(id)``."""

    id: int
    case_slug: str
    case_version: int
    manifest_sha256: str
    controller: str
    """The submission's name."""
    controller_sha256: str | None
    """The submission's module, or None when the build produced none."""
    outcome: RunOutcome
    reason: str | None
    """Why it could not compete (or any other note of the outcome)."""
    matches: int
    created_at: datetime
    published: bool = False
    """Whether the public site shows it (pushed to this server, or published by its
    operator)."""


class RunMatch(msgspec.Struct, frozen=True):
    """One match of a run, to record: the opponent's name, its role, and the result."""

    opponent: str
    role: Role
    result: MatchResult

    def __repr__(self) -> str:
        # The result (and its replay) stays out of the repr.
        return f"RunMatch(opponent={self.opponent!r}, role={self.role!r})"


class TokenRecord(msgspec.Struct, frozen=True):
    """A token of the site as stored: never the token itself, only its digest."""

    id: int
    name: str
    """A label (a worker token's: the worker it answers for), held by one live token."""
    role: TokenRole
    digest: str
    """The sha256 of the token's text, in hex."""
    created_at: datetime
    revoked_at: datetime | None
    """When it was revoked (then it opens nothing), or None."""

    def to_json(self) -> dict[str, Any]:
        """{"id", "name", "role", "created_at", "revoked_at"}: never the digest."""
        return {
            "id": self.id,
            "name": self.name,
            "role": str(self.role),
            "created_at": self.created_at.isoformat(),
            "revoked_at": None if self.revoked_at is None else self.revoked_at.isoformat(),
        }
