"""The names of ``arena.tournament``, each once; ``__init__.py`` loads them on first use."""

from ._exclude import standings_without as standings_without
from ._gauntlet import (
    GauntletLoss as GauntletLoss,
    gauntlet_losses as gauntlet_losses,
)
from ._history import (
    RatedMatch as RatedMatch,
    rating_history as rating_history,
)
from ._plan import TournamentPlan as TournamentPlan
from ._records import (
    Format as Format,
    Pairing as Pairing,
    Played as Played,
    ResultLike as ResultLike,
    ScheduleMismatchError as ScheduleMismatchError,
    SideLike as SideLike,
    TournamentSetupError as TournamentSetupError,
)
from ._schedule import Scheduler as Scheduler
from ._seeds import (
    SEEDS_FORM as SEEDS_FORM,
    parse_seeds as parse_seeds,
)
from ._standings import (
    GauntletRow as GauntletRow,
    GauntletSide as GauntletSide,
    Rating as Rating,
    StandingRow as StandingRow,
    Standings as Standings,
    WinMatrix as WinMatrix,
)
