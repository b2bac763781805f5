"""The coordinator: plays a stored tournament on an executor and keeps every result in the store.

It is the one writer of a tournament's records: ``create_tournament`` stores
the plan (format, field, seeds, the case and its rules); ``run_tournament``
plays what is missing, on any executor (this machine's worker processes, a
Ray cluster) or a caller's own pool, recording each match as it completes,
and marks the tournament finished with its standings. A tournament stopped
anyhow (Ctrl-C, a kill, a crash) resumes from the store to the same
standings. ``run_tournament`` is a trio task with a progress callback, so the
command line, the demo and the web server all drive it the same way
(docs/execution.md).
"""

from typing import TYPE_CHECKING

from arena._lazy import lazy_names
from arena.coordinator._entrants import EXECUTORS, add_contestant, make_executor, store_contestant
from arena.coordinator._stored import (
    create_tournament,
    pairing_of,
    played_of,
    standings_json,
    tournament_json,
    tournament_plan,
    tournament_rules,
    tournament_standings,
)

if TYPE_CHECKING:
    from arena.coordinator._run import (
        BatchPlayer,
        CoordinatorStats,
        MatchPlayer,
        MatchRaisedError,
        OnProgress,
        TournamentProgress,
        TournamentResult,
        run_tournament,
        run_tournament_sync,
    )

# Playing loads on first use: it imports trio, which recording one match does not need.
_LAZY = dict.fromkeys(
    (
        "BatchPlayer",
        "CoordinatorStats",
        "MatchPlayer",
        "MatchRaisedError",
        "OnProgress",
        "TournamentProgress",
        "TournamentResult",
        "run_tournament",
        "run_tournament_sync",
    ),
    "arena.coordinator._run",
)

__all__ = [
    "EXECUTORS",
    "BatchPlayer",
    "CoordinatorStats",
    "MatchPlayer",
    "MatchRaisedError",
    "OnProgress",
    "TournamentProgress",
    "TournamentResult",
    "add_contestant",
    "create_tournament",
    "make_executor",
    "pairing_of",
    "played_of",
    "run_tournament",
    "run_tournament_sync",
    "standings_json",
    "store_contestant",
    "tournament_json",
    "tournament_plan",
    "tournament_rules",
    "tournament_standings",
]

__getattr__, __dir__ = lazy_names(__name__, _LAZY, globals(), __all__)
