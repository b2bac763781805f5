"""``arena bench parts`` and ``arena bench process``: this tree's figures, and an earlier one's.

Both run their measurements in child processes, one per tree and round,
taking turns (before, after, before, after...), and keep each figure's least
value over the rounds: a shared machine's noise only ever adds time. The
earlier tree (``--before DIR``) is any checkout of the project, for instance
``git worktree add ../before main``; its children run with it first on
``sys.path``, so they measure its code with this tree's interpreter and
packages.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.baselines import build_extra, load_baseline
from arena.bench._parts import PART_NAMES

__all__ = ["Tree", "parts_figures", "process_figures", "this_tree"]

SCENARIOS = ("idle", "border-soldier")
"""The matches whose ticks are taken apart: each controller against itself, 32x32, seed 1."""

_PARTS_SCRIPT = Path(__file__).with_name("_parts.py")
# Puts a tree first on sys.path, then runs a script file as __main__ with the rest of argv.
_BOOT = (
    "import runpy, sys; sys.path.insert(0, sys.argv[1]); script = sys.argv[2];"
    " sys.argv = [script, *sys.argv[3:]]; runpy.run_path(script, run_name='__main__')"
)


@dataclass(frozen=True, slots=True)
class Tree:
    """A checkout of the project whose code a child process measures."""

    label: str
    root: Path


def this_tree() -> Tree:
    """The tree this code runs from."""
    return Tree("now", Path(__file__).resolve().parents[2])


def _env(tree: Tree, **extra: str) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(tree.root), **extra)
    # Measure as an operator runs: with the compiled-module cache where it
    # belongs by default, and Python's own bytecode cache.
    for name in ("FORAY_CACHE_DIR", "FORAY_CACHE_BYTES", "PYTHONDONTWRITEBYTECODE"):
        env.pop(name, None)
    return env


def _rounds(trees: list[Tree], rounds: int, run: Callable[[Tree], dict[str, Any]]) -> list[Any]:
    """Each tree's figures: the least of each number over ``rounds`` turns."""
    best: list[Any] = [None] * len(trees)
    for _ in range(rounds):
        for i, tree in enumerate(trees):
            best[i] = _least(best[i], run(tree))
    return best


def _host_us(figures: dict[str, Any]) -> float:
    """The host's time a tick: the least whole tick less the least wasm time (each the least
    over the rounds). The least of each round's own difference is not that: it takes the
    round whose wasm time the machine slowed, below nothing when the wasm is most of the
    tick (border-soldier's on the native core)."""
    return float(figures["tick_us"] - figures["wasm_us"])


def _least(a: Any, b: Any) -> Any:
    if a is None:
        return b
    if isinstance(b, dict):
        return {k: _least(a.get(k), v) for k, v in b.items()}
    if isinstance(b, float | int) and not isinstance(b, bool):
        return min(a, b)
    return b


def parts_figures(trees: list[Tree], *, rounds: int, repeat: int) -> None:
    """Print the per-part and whole-match host figures of each tree, side by side."""
    with tempfile.TemporaryDirectory(prefix="foray-bench-") as tmp:
        idle = Path(tmp) / "idle.wasm"
        idle.write_bytes(build_extra("idle"))
        soldier = Path(tmp) / "border-soldier.wasm"
        soldier.write_bytes(load_baseline("border-soldier"))
        modules = {"idle": idle, "border-soldier": soldier}
        args = [str(repeat), str(idle), *(f"{name}={modules[name]}" for name in SCENARIOS)]

        def run(tree: Tree) -> dict[str, Any]:
            cmd = [sys.executable, "-c", _BOOT, str(tree.root), str(_PARTS_SCRIPT), *args]
            # The module cache of this run only: the trees' artifacts differ by config.
            env = _env(tree, FORAY_CACHE_DIR=str(Path(tmp) / f"cache-{tree.label}"))
            proc = subprocess.run(cmd, env=env, cwd=tmp, capture_output=True, text=True)
            if proc.returncode != 0:
                raise RuntimeError(f"the {tree.label} tree's measurement failed:\n{proc.stderr}")
            figures: dict[str, Any] = json.loads(proc.stdout)
            return figures

        results = _rounds(trees, rounds, run)
    # A column per tree and tick loop: each tree on the pure rules, and on the native core
    # where it has one.
    columns: list[tuple[str, dict[str, Any], str | None]] = []
    for tree, r in zip(trees, results, strict=True):
        label = "pure" if len(trees) == 1 else tree.label
        columns.append((label, r, None))
        if r.get("native"):
            columns.append(("native" if len(trees) == 1 else f"{tree.label}+C", r, "native"))
    labels = [label for label, _, _ in columns]

    def figures(r: dict[str, Any], loop: str | None, name: str) -> dict[str, Any]:
        scenario: dict[str, Any] = r["scenarios"][name]
        return scenario if loop is None else {**scenario, **scenario[loop]}

    print(
        "per tick, both sides, 32x32, seed 1, 400 ticks (microseconds of CPU time;"
        f" each tick's least over {repeat} passes, least over {rounds} rounds):"
    )
    for name in SCENARIOS:
        print(f"  {name} x2")
        each = [figures(r, loop, name) for _, r, loop in columns]
        rows: list[tuple[str, list[float | None]]] = [
            (part, [f["parts"][part] for f in each]) for part in PART_NAMES
        ]
        rows.append(("sum of the parts", [sum(f["parts"].values()) for f in each]))
        rows.append(("whole match, per tick", [f["tick_us"] for f in each]))
        rows.append(("  of which the controllers' wasm", [f["wasm_us"] for f in each]))
        rows.append(("host time per tick", [_host_us(f) for f in each]))
        # The floor is the machine's and the module's: the latest tree's measurement.
        floor = next((f["floor_us"] for f in reversed(each) if f.get("floor_us")), None)
        if floor is not None:
            host_floor = max(floor - each[-1]["wasm_us"], 1e-9)
            rows.append(("floor: the calls alone, per tick", [floor] * len(each)))
            rows.append(("  whole tick / floor", [f["tick_us"] / floor for f in each]))
            rows.append(
                ("  host / the floor's host part", [_host_us(f) / host_floor for f in each])
            )
        _table(rows, labels)
    print("  checksum alone, at tick 0")
    _table(
        [
            (
                size,
                [
                    r[f"{loop}_checksum_us" if loop else "checksum_us"][size]
                    for _, r, loop in columns
                ],
            )
            for size in ("32x32", "64x64")
        ],
        labels,
    )
    print(
        "the replay check (verify_replay) of each match's replay, ticks per second (best of"
        f" {repeat}); its floor: the recorded actions stepped and checksummed, nothing read"
    )
    for name in SCENARIOS:
        rates = [
            r["scenarios"][name].get("verify", {}).get(loop or "pure") for _, r, loop in columns
        ]
        _table(
            [
                (f"{name}: verify", [None if v is None else v["verify"] for v in rates]),
                (f"{name}: its floor", [None if v is None else v["floor"] for v in rates]),
            ],
            labels,
            digits=0,
        )


def process_figures(trees: list[Tree], *, rounds: int) -> None:
    """Print the whole-process time of a one-off ``arena match`` of two idle modules.

    Cold: a fresh data directory (no compiled-module cache). Warm: the same
    directory again. Python's bytecode cache is warm (a first run writes it).
    """
    with tempfile.TemporaryDirectory(prefix="foray-bench-") as tmp:
        idle = Path(tmp) / "idle.wasm"
        idle.write_bytes(build_extra("idle"))
        cmd = [sys.executable, "-m", "arena", "match", str(idle), str(idle), "--max-ticks", "1"]

        def timed(env: dict[str, str]) -> float:
            t0 = time.perf_counter()
            proc = subprocess.run(cmd, env=env, cwd=tmp, capture_output=True, text=True)
            elapsed = time.perf_counter() - t0
            if proc.returncode != 0:
                raise RuntimeError(f"arena match failed:\n{proc.stderr}")
            return elapsed * 1e3

        def run(tree: Tree) -> dict[str, Any]:
            data = Path(tmp) / f"data-{tree.label}"
            env = _env(tree, FORAY_DATA_DIR=str(data))
            cold = timed(env)
            warm = timed(env)
            shutil.rmtree(data)
            return {"cold": cold, "warm": warm}

        for tree in trees:  # bytecode written, files in the page cache
            run(tree)
        results = _rounds(trees, rounds, run)
    print(
        f"one-off `arena match idle idle --max-ticks 1`, whole process (ms of wall time,"
        f" least over {rounds} rounds):"
    )
    _table([(k, [r[k] for r in results]) for k in ("cold", "warm")], [t.label for t in trees])


def _table(
    rows: Sequence[tuple[str, Sequence[float | None]]], labels: list[str], digits: int = 1
) -> None:
    """Rows of figures, a column a label, and the last column's ratio to the first's."""
    width = 10 if digits else 11
    ratio = f"{labels[-1]}/{labels[0]}" if len(labels) > 1 else ""
    head = "".join(f"{label:>{width}}" for label in labels)
    print(f"    {'':<34}{head}{ratio:>16}")
    for name, values in rows:
        line = "".join(
            f"{'-':>{width}}" if v is None else f"{v:>{width},.{digits}f}" for v in values
        )
        first, last = values[0], values[-1]
        if len(values) > 1 and first and last is not None:
            line += f"{last / first:>16.2f}"
        print(f"    {name:<34}{line}")
