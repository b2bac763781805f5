"""The names of ``arena.bench``, each once; ``__init__.py`` loads them on first use."""

from ._field import (
    FIELD_KEYS as FIELD_KEYS,
    MadeUpPoint as MadeUpPoint,
    field_figures as field_figures,
    made_up_field as made_up_field,
    newcomer_pairings as newcomer_pairings,
)
from ._field_players import MadeUpPlayer as MadeUpPlayer
from ._match import host_overhead_us as host_overhead_us
from ._parts import (
    PART_NAMES as PART_NAMES,
    measure_parts as measure_parts,
)
from ._run import (
    SUMMARY_KEYS as SUMMARY_KEYS,
    Size as Size,
    machine as machine,
    run_benchmarks as run_benchmarks,
)
from ._scale import (
    drive_on_ray as drive_on_ray,
    numbered_field as numbered_field,
)
from ._store import store_figures as store_figures
from ._strength import (
    ECONOMY as ECONOMY,
    FuelTally as FuelTally,
    Tally as Tally,
    default_field as default_field,
    play_all as play_all,
    render_markdown as render_markdown,
)
from ._tournament import (
    JUDGED_SCALING as JUDGED_SCALING,
    scaling_verdict as scaling_verdict,
    tournament_figures as tournament_figures,
)
