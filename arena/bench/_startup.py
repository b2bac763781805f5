"""``arena bench startup``: a one-off ``arena match`` as a whole process, beside its floor.

The match is ``arena match idle.wasm idle.wasm --max-ticks 1`` (as ``arena
bench process`` plays it), recorded in a data directory of its own whose
disk cache is warm (the compiled module, the loaded case): what is left is
start-up, imports and the match's fixed work. Its floor is what such a
process cannot avoid: starting Python and importing wasmtime (``python -c
"import wasmtime"``, a process of its own), plus the match's own work (the
engine, the compiled module read from the disk cache, one tick, the store's
transaction, the output), timed inside a child that has already imported
every module the match path loads.
The ratio of the whole to the floor is what the arena's own imports and
start-up add. The floor is the issue's (issue 27), kept so the figures stay
comparable; the host no longer imports wasmtime-py, only wasmtime's library
through its own binding (docs/decisions.md, "The engine's library without
wasmtime-py"), so the whole may now sit below it. The floor of that design
is printed beside it: starting Python and loading wasmtime's library alone
(``ctypes.CDLL``), plus the same work. Each figure is the median over
rounds, the commands taken in turn in each round (whole process, wasmtime,
the library, the work, ``python -c pass``), in milliseconds of wall time.

The children that list the match's modules and time its work alone run
``arena.cli.main`` from a few lines of their own (``_LISTED``, ``_WORK``), so
they load nothing a one-off match does not.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from arena.baselines import build_extra
from arena.bench._compare import Tree, this_tree
from arena.sandbox import WASMTIME_LIBRARY

__all__ = ["startup_figures"]

# arena ARGV[2:], then the modules the process holds (in import order) as JSON in ARGV[1].
_LISTED = (
    "import json, sys; from arena.cli import main; code = main(sys.argv[2:]);"
    " open(sys.argv[1], 'w').write(json.dumps(list(sys.modules))); sys.exit(code)"
)
# The modules listed in ARGV[1] imported, then arena ARGV[3:] timed alone (ms to ARGV[2]).
_WORK = """
import importlib, json, sys, time
for name in json.load(open(sys.argv[1])):
    try:
        importlib.import_module(name)
    except ImportError:  # made at run time (a Cython runtime's), not a file
        pass
from arena.cli import main
start = time.perf_counter()
code = main(sys.argv[3:])
ms = (time.perf_counter() - start) * 1e3
open(sys.argv[2], "w").write(json.dumps({"ms": ms}))
sys.exit(code)
"""
_PROJECT = ("arena", "sim", "replays", "web")


def _timed(cmd: Sequence[str], env: dict[str, str], cwd: str) -> float:
    """Wall time of ``cmd`` as a process, in milliseconds (it must succeed)."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    elapsed = (time.perf_counter() - start) * 1e3
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stderr}")
    return elapsed


def startup_figures(rounds: int, tree: Tree | None = None) -> dict[str, float]:
    """Print the one-off match's whole-process time beside its floor; return the figures."""
    tree = tree or this_tree()
    with tempfile.TemporaryDirectory(prefix="foray-bench-") as tmp:
        idle = Path(tmp) / "idle.wasm"
        idle.write_bytes(build_extra("idle"))
        args = ["match", str(idle), str(idle), "--max-ticks", "1"]
        env = dict(os.environ, PYTHONPATH=str(tree.root), FORAY_DATA_DIR=str(Path(tmp) / "data"))
        # Measure as an operator runs: the module cache in the data directory, and
        # Python's own bytecode cache.
        for name in ("FORAY_CACHE_DIR", "FORAY_CACHE_BYTES", "PYTHONDONTWRITEBYTECODE"):
            env.pop(name, None)
        modules_file = str(Path(tmp) / "modules.json")
        work_file = str(Path(tmp) / "work.json")
        # The first run compiles the module into the cache and keeps the case loaded there
        # (arena.cases._cached); the second lists what a match loads once they are.
        for _ in range(2):
            _timed([sys.executable, "-c", _LISTED, modules_file, *args], env, tmp)
        loaded: list[str] = json.loads(Path(modules_file).read_text(encoding="utf-8"))
        commands = {
            "whole": [sys.executable, "-m", "arena", *args],
            "wasmtime": [sys.executable, "-c", "import wasmtime"],
            "library": [sys.executable, "-c", f"import ctypes; ctypes.CDLL({WASMTIME_LIBRARY!r})"],
            "work": [sys.executable, "-c", _WORK, modules_file, work_file, *args],
            "python": [sys.executable, "-c", "pass"],
        }
        runs: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(rounds):
            for name, cmd in commands.items():
                elapsed = _timed(cmd, env, tmp)
                if name == "work":  # the child's own timing of the match, not its process
                    elapsed = json.loads(Path(work_file).read_text(encoding="utf-8"))["ms"]
                runs[name].append(elapsed)
    median = {name: statistics.median(values) for name, values in runs.items()}
    floor = median["wasmtime"] + median["work"]
    library_floor = median["library"] + median["work"]
    project = [m for m in loaded if m.split(".")[0] in _PROJECT]
    print(
        "a one-off `arena match idle idle --max-ticks 1` (warm disk cache: the module, the"
        " case; recorded), whole process, against its floor (ms of wall time, median of"
        f" {rounds} rounds taken in turn):"
    )
    rows = [
        ("whole process", median["whole"]),
        ('floor: python -c "import wasmtime"', median["wasmtime"]),
        ("floor: the match's own work", median["work"]),
        ("floor", floor),
        ("whole / floor", median["whole"] / floor),
        ("wasmtime's library alone (ctypes.CDLL)", median["library"]),
        ("floor of the library alone", library_floor),
        ("whole / floor of the library alone", median["whole"] / library_floor),
        ("python -c pass (for scale)", median["python"]),
    ]
    for name, value in rows:
        digits = 2 if "/" in name else 1
        print(f"    {name:<40}{value:>10,.{digits}f}")
    print(
        f"    modules in the process after the match: {len(loaded)} (the project's: {len(project)})"
    )
    return {
        **median,
        "floor": floor,
        "ratio": median["whole"] / floor,
        "library_floor": library_floor,
        "library_ratio": median["whole"] / library_floor,
    }
