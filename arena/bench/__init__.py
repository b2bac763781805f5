"""Measurements: the speed figures of ``arena bench`` and the strength tables of the baselines.

Figures are printed, never asserted in tests; docs/benchmarks.md and
docs/baselines.md keep them with the machine they came from.
"""

from arena.bench._match import MatchFigures, host_overhead_us, match_figures
from arena.bench._parts import PART_NAMES
from arena.bench._parts import measure as measure_parts
from arena.bench._run import SUMMARY_KEYS, Size, machine, run_benchmarks, summary
from arena.bench._scale import drive_on_ray, numbered_field, scale_figures
from arena.bench._sim import observe_us, sim_figures, sim_ticks_per_second
from arena.bench._store import store_figures
from arena.bench._strength import (
    ECONOMY,
    FuelTally,
    Tally,
    default_field,
    entrants,
    play_all,
    render_markdown,
)
from arena.bench._tournament import TournamentFigures, machine_scaling, tournament_figures

__all__ = [
    "ECONOMY",
    "PART_NAMES",
    "SUMMARY_KEYS",
    "FuelTally",
    "MatchFigures",
    "Size",
    "Tally",
    "TournamentFigures",
    "default_field",
    "drive_on_ray",
    "entrants",
    "host_overhead_us",
    "machine",
    "machine_scaling",
    "match_figures",
    "measure_parts",
    "numbered_field",
    "observe_us",
    "play_all",
    "render_markdown",
    "run_benchmarks",
    "scale_figures",
    "sim_figures",
    "sim_ticks_per_second",
    "store_figures",
    "summary",
    "tournament_figures",
]
