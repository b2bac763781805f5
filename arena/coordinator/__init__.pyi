"""The names of ``arena.coordinator``, each once; ``__init__.py`` loads them on first use."""

from ._desk import (
    STANDINGS_COLUMNS as STANDINGS_COLUMNS,
    MatchRow as MatchRow,
    match_rows as match_rows,
    matches_csv as matches_csv,
    pending_matches as pending_matches,
    rerun_tournament as rerun_tournament,
    standings_csv as standings_csv,
    verify_match as verify_match,
)
from ._entrants import (
    add_contestant as add_contestant,
    make_executor as make_executor,
    store_contestant as store_contestant,
)
from ._field import (
    FieldSignal as FieldSignal,
    FieldStandings as FieldStandings,
    enter_field as enter_field,
    enter_waiting_runs as enter_waiting_runs,
    field_json as field_json,
    field_standings as field_standings,
    find_field as find_field,
    open_field as open_field,
    play_field as play_field,
)
from ._players import BatchPlayer as BatchPlayer, MatchPlayer as MatchPlayer
from ._ratings import match_ratings as match_ratings
from ._run import (
    CoordinatorStats as CoordinatorStats,
    MatchRaisedError as MatchRaisedError,
    OnProgress as OnProgress,
    TournamentProgress as TournamentProgress,
    TournamentResult as TournamentResult,
    TournamentStoppedError as TournamentStoppedError,
    run_tournament as run_tournament,
    run_tournament_sync as run_tournament_sync,
)
from ._stored import (
    Timing as Timing,
    create_tournament as create_tournament,
    exclude_entrant as exclude_entrant,
    pairing_of as pairing_of,
    playable_of as playable_of,
    played_of as played_of,
    standings_json as standings_json,
    standings_of as standings_of,
    started_by_server as started_by_server,
    tournament_json as tournament_json,
    tournament_losses as tournament_losses,
    tournament_plan as tournament_plan,
    tournament_rules as tournament_rules,
    tournament_standings as tournament_standings,
    tournament_timing as tournament_timing,
)
from ._unrecorded import (
    UnrecordedTournament as UnrecordedTournament,
    play_unrecorded as play_unrecorded,
)
