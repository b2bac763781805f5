"""The names of ``arena``, each once; ``__init__.py`` loads them on first use."""

from ._errors import (
    ArenaError as ArenaError,
    UnknownControllerError as UnknownControllerError,
)
from ._files import (
    FileStamp as FileStamp,
    data_dir as data_dir,
    file_stamp as file_stamp,
    open_regular as open_regular,
    read_unchanged as read_unchanged,
)
from .baselines import (
    load_baseline as load_baseline,
    numbered_module as numbered_module,
)
from .cases import (
    Case as Case,
    default_case as default_case,
)
from .cli import shown as shown
from .coordinator import (
    FieldSignal as FieldSignal,
    FieldStandings as FieldStandings,
    MatchPlayer as MatchPlayer,
    TournamentProgress as TournamentProgress,
    create_tournament as create_tournament,
    enter_field as enter_field,
    enter_waiting_runs as enter_waiting_runs,
    exclude_entrant as exclude_entrant,
    field_json as field_json,
    field_standings as field_standings,
    find_field as find_field,
    make_executor as make_executor,
    match_ratings as match_ratings,
    match_rows as match_rows,
    matches_csv as matches_csv,
    open_field as open_field,
    pending_matches as pending_matches,
    play_field as play_field,
    played_of as played_of,
    run_tournament as run_tournament,
    standings_csv as standings_csv,
    standings_of as standings_of,
    started_by_server as started_by_server,
    tournament_json as tournament_json,
    tournament_plan as tournament_plan,
    tournament_standings as tournament_standings,
    tournament_timing as tournament_timing,
)
from .executors import (
    JobFailed as JobFailed,
    MatchJob as MatchJob,
    WorkerDied as WorkerDied,
    WorkerPool as WorkerPool,
    WorkersUnavailableError as WorkersUnavailableError,
    default_jobs as default_jobs,
    open_worker_pool as open_worker_pool,
    play as play,
)
from .match import (
    Contestant as Contestant,
    MatchResult as MatchResult,
    Rematch as Rematch,
)
from .proving import (
    PushCheck as PushCheck,
    check_pushed_run as check_pushed_run,
    find_pushed_run as find_pushed_run,
    recheck_match as recheck_match,
    record_pushed_run as record_pushed_run,
    run_json as run_json,
    run_report as run_report,
    stored_as_of as stored_as_of,
)
from .sandbox import (
    MAX_MODULE_BYTES as MAX_MODULE_BYTES,
    Admission as Admission,
    check_module as check_module,
)
from .store import (
    ControllerRecord as ControllerRecord,
    CorruptFileError as CorruptFileError,
    Entrant as Entrant,
    FieldEntry as FieldEntry,
    FieldSummary as FieldSummary,
    FileCoding as FileCoding,
    HeldModuleError as HeldModuleError,
    MatchRecord as MatchRecord,
    MatchStatus as MatchStatus,
    NotInStoreError as NotInStoreError,
    Origin as Origin,
    RunMatch as RunMatch,
    RunOutcome as RunOutcome,
    RunRecord as RunRecord,
    Store as Store,
    StoreBusyError as StoreBusyError,
    StoredReplay as StoredReplay,
    StoreError as StoreError,
    TokenRecord as TokenRecord,
    TokenRole as TokenRole,
    TournamentRecord as TournamentRecord,
    name_problem as name_problem,
)
from .tournament import (
    SEEDS_FORM as SEEDS_FORM,
    TournamentPlan as TournamentPlan,
    parse_seeds as parse_seeds,
)
