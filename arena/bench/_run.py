"""``arena bench``: which figures to print, and the machine they come from."""

from __future__ import annotations

import os
import platform
from pathlib import Path

from arena.sandbox import WASMTIME_VERSION

__all__ = ["machine", "run_benchmarks"]


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown cpu"


def machine() -> str:
    """One line naming the CPU, cores, Python and wasmtime."""
    return (
        f"{_cpu_model()}, {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, wasmtime {WASMTIME_VERSION}"
    )


def run_benchmarks(which: str = "all", *, quick: bool = False, before: Path | None = None) -> None:
    """Print the figures for ``which``: all, sim, match, store, tournament, parts, process, or
    a figure another package adds.

    ``before`` is an earlier checkout of the project: ``parts`` and ``process``
    then measure it too, in turns with this tree, and print both side by side.
    """
    from arena._extensions import BENCHMARKS, extensions
    from arena.bench._compare import Tree, parts_figures, process_figures, this_tree
    from arena.bench._match import match_figures
    from arena.bench._sim import sim_figures
    from arena.bench._store import store_figures
    from arena.bench._tournament import tournament_figures

    repeat = 1 if quick else 3
    print(f"machine: {machine()}")
    if which in ("all", "sim"):
        sim_figures(repeat)
    if which in ("all", "match"):
        match_figures(repeat)
    if which in ("all", "store"):
        store_figures(repeat)
    if which in ("all", "tournament"):
        tournament_figures(repeat)
    if which == "scale":  # minutes on a local Ray: only when asked for (docs/scaling.md)
        from arena.bench._scale import scale_figures

        scale_figures(repeat)
    for name, entry in extensions(BENCHMARKS).items():
        if which in ("all", name):
            entry.load()(repeat)
    trees = [this_tree()]
    if before is not None:
        trees = [Tree("before", before.resolve()), Tree("after", trees[0].root)]
    if which in ("all", "parts"):
        parts_figures(trees, rounds=repeat, repeat=3 if quick else 5)
    if which in ("all", "process"):
        process_figures(trees, rounds=3 if quick else 7)
