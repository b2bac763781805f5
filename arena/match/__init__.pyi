"""The names of ``arena.match``, each once; ``__init__.py`` loads them on first use."""

from ._contract import (
    ABI_VERSION as ABI_VERSION,
    ObservationError as ObservationError,
    decode_actions as decode_actions,
    decode_obs as decode_obs,
    encode_init as encode_init,
    encode_obs as encode_obs,
    encode_obs_flat as encode_obs_flat,
    encode_obs_for as encode_obs_for,
)
from ._fuel import FuelStats as FuelStats
from ._job import MatchJob as MatchJob
from ._rematch import (
    Rematch as Rematch,
    rematch as rematch,
    replay_matches as replay_matches,
)
from ._resolve import (
    load_contestant as load_contestant,
    load_map as load_map,
)
from ._result import (
    Contestant as Contestant,
    MatchResult as MatchResult,
    SideResult as SideResult,
)
from ._runner import (
    play as play,
    run_match as run_match,
)
