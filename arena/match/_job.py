"""What a match depends on, as one record (``MatchJob``).

Kept apart from the runner: a job is built, stored and sent to a worker
without the sandbox's engine; ``play`` (``_runner.py``) plays one in this
process.
"""

from __future__ import annotations

import msgspec

import replays
import sim
from arena.match._result import Contestant
from arena.sandbox import Limits

__all__ = ["MatchJob"]


class MatchJob(msgspec.Struct, frozen=True):
    """Everything one match depends on; the same job always gives the same replay bytes.

    A case builds the job of a match played under it (``Case.match_job``): its
    rules, limits, map, identity and replay version.
    """

    a: Contestant
    b: Contestant
    seed: int = 0
    config: sim.Config | None = None
    limits: Limits | None = None
    game_map: sim.GameMap | None = None
    case: replays.CaseRef | None = None
    replay_version: int = replays.VERSION
    """The replay format version written (the one a case records in)."""
