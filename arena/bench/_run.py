"""``arena bench``: which figures to print, the machine they come from, and the one-run summary."""

from __future__ import annotations

import contextlib
import datetime
import enum
import inspect
import json
import os
import platform
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from arena._errors import ArenaError
from arena.sandbox import WASMTIME_VERSION

__all__ = ["SUMMARY_KEYS", "Size", "machine", "run_benchmarks", "summary"]


class Size(enum.StrEnum):
    """How much work a benchmark run does."""

    FULL = "full"
    """The figures to keep: best of three runs, full-length runs."""
    QUICK = "quick"
    """``--quick``: one run of each, shorter tournaments and fewer requests."""


SUMMARY_KEYS: Final = (
    "sim_ticks_per_s",
    "match_ticks_per_s",
    "host_overhead_us",
    "replay_bytes_per_tick",
    "tournament_matches_per_s",
    "server_stream_requests_per_s",
    "server_stream_p50_ms",
    "server_stream_p99_ms",
    "server_list_requests_per_s",
    "server_list_p50_ms",
    "server_list_p99_ms",
    "server_rss_mib",
)
"""The figures of the one-run summary (``arena bench --json``), documented in
docs/benchmarks.md. ``tournament_matches_per_s`` is an object (``"1"``, ``"N"``,
``"workers"``); the others are numbers. The ``server_*`` ones come from ``web``
(the ``foray_arena.summary`` entry point)."""


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


def run_benchmarks(
    which: str | None = None,
    *,
    quick: bool = False,
    before: Path | None = None,
    as_json: bool = False,
    size: Size | None = None,
    entrants: int | None = None,
    made_up: int | None = None,
) -> None:
    """Print the one-run summary (``which`` None), or the detailed figures for ``which``: all,
    sim, match, store, tournament, parts, process, startup, or a figure another package adds.

    ``before`` is an earlier checkout of the project: ``parts`` and ``process``
    then measure it too, in turns with this tree, and print both side by side, as do
    the figures of another package whose function takes ``before`` (``web-endpoints``).
    ``as_json`` (the summary only) prints the summary as one JSON object on
    stdout, everything else on stderr. ``size`` overrides ``quick``. ``entrants`` and
    ``made_up`` size ``field``'s played and made-up fields (``field_figures``).
    """
    size = size or (Size.QUICK if quick else Size.FULL)
    if which is None:
        if not as_json:
            summary(size)
            return
        with _stdout_to_stderr():
            result = summary(size)
        sys.stdout.write(json.dumps(result, indent=2) + "\n")
        sys.stdout.flush()
        return
    if as_json:
        raise ArenaError("--json goes with the one-run summary (arena bench without a figure)")
    _detailed(which, size, before, entrants=entrants, made_up=made_up)


def _detailed(
    which: str,
    size: Size,
    before: Path | None,
    *,
    entrants: int | None = None,
    made_up: int | None = None,
) -> None:
    from arena._extensions import BENCHMARKS, extensions
    from arena.bench._compare import Tree, parts_figures, process_figures, this_tree
    from arena.bench._match import match_figures, replay_size_figures
    from arena.bench._sim import sim_figures
    from arena.bench._store import store_figures
    from arena.bench._tournament import tournament_figures

    repeat = 3 if size is Size.FULL else 1
    print(f"machine: {machine()}")
    if which in ("all", "sim"):
        sim_figures(repeat)
    if which in ("all", "match"):
        match_figures(repeat)
        replay_size_figures(repeat)
    if which in ("all", "store"):
        store_figures(repeat)
    if which in ("all", "tournament"):
        tournament_figures(repeat)
    if which == "scale":  # minutes on a local Ray: only when asked for (docs/scaling.md)
        from arena.bench._scale import scale_figures

        scale_figures(repeat)
    if which == "field":  # minutes of play, then a made-up field: only when asked for
        from arena.bench._field import field_figures

        field_figures(repeat, entrants=entrants, made_up=made_up)
    for name, entry in extensions(BENCHMARKS).items():
        if which in ("all", name):
            figures = entry.load()
            if before is not None and "before" in inspect.signature(figures).parameters:
                figures(repeat, before=before)  # that tree measured too, in turns
            else:
                figures(repeat)
    trees = [this_tree()]
    if before is not None:
        trees = [Tree("before", before.resolve()), Tree("after", trees[0].root)]
    if which in ("all", "parts"):
        parts_figures(trees, rounds=repeat, repeat=5 if size is Size.FULL else 3)
    if which in ("all", "process"):
        process_figures(trees, rounds=7 if size is Size.FULL else 3)
    if which in ("all", "startup"):
        from arena.bench._startup import startup_figures

        startup_figures(rounds=11 if size is Size.FULL else 5)


@contextlib.contextmanager
def _stdout_to_stderr() -> Iterator[None]:
    """Send what is printed to stderr meanwhile, this process's and its children's (fd 1)."""
    sys.stdout.flush()
    try:
        saved = os.dup(1)
        os.dup2(2, 1)
    except OSError:  # no file descriptor 1: Python's stream alone
        saved = -1
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        sys.stderr.flush()
        if saved >= 0:
            os.dup2(saved, 1)
            os.close(saved)


def _load_average() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def summary(size: Size = Size.FULL) -> dict[str, Any]:
    """Measure and print the one-run summary; return it as ``arena bench --json`` prints it.

    Each figure comes from the detailed figure's own function (which prints
    its lines as it measures): the simulator (48 units a side), whole matches
    (busy against busy under the default rules: ticks/s and replay bytes per
    tick; the host's time per call of an idle module), the tournament through
    the coordinator on 1 and N workers, and the site's figures from the
    packages that add some (``web``: the replay stream and listings of a real
    ``arena serve``).
    """
    from arena._extensions import SUMMARIES, extensions
    from arena.bench._match import match_figures
    from arena.bench._sim import sim_figures
    from arena.bench._tournament import tournament_figures

    repeat = 3 if size is Size.FULL else 1
    start = time.perf_counter()
    load_before = _load_average()
    print(f"machine: {machine()}")
    print(f"the one-run summary ({size.value}); load average {load_before}")
    sims = sim_figures(repeat)
    matches = match_figures(repeat)
    tournament = tournament_figures(repeat, detail=False)
    result: dict[str, Any] = {
        "sim_ticks_per_s": sims[48],
        "match_ticks_per_s": matches.ticks_per_s["busy"],
        "host_overhead_us": matches.host_overhead_us["idle"],
        "replay_bytes_per_tick": matches.replay_bytes_per_tick["busy"],
        "tournament_matches_per_s": {
            "1": tournament.one_per_s,
            "N": tournament.many_per_s,
            "workers": tournament.workers,
        },
    }
    for name, entry in extensions(SUMMARIES).items():
        figures = entry.load()(size.value)
        unknown = sorted(set(figures) - set(SUMMARY_KEYS))
        if unknown:
            raise RuntimeError(f"the summary figures of {name} name unknown keys: {unknown}")
        result.update(figures)
    result = {key: result[key] for key in SUMMARY_KEYS if key in result}
    missing = [key for key in SUMMARY_KEYS if key not in result]
    result["machine"] = machine()
    result["date"] = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    result["load_average"] = _load_average()
    result["size"] = size.value
    result["seconds"] = round(time.perf_counter() - start, 1)
    _print_summary(result, missing)
    return result


def _print_summary(result: dict[str, Any], missing: list[str]) -> None:
    t = result["tournament_matches_per_s"]
    rows = [
        ("simulator, 48 units a side", f"{result['sim_ticks_per_s']:,.0f} ticks/s"),
        ("whole match, busy vs busy", f"{result['match_ticks_per_s']:,.0f} ticks/s"),
        ("host overhead per controller call", f"{result['host_overhead_us']:.1f} us"),
        ("replay, busy vs busy", f"{result['replay_bytes_per_tick']:.0f} bytes/tick"),
        ("tournament, 1 worker", f"{t['1']:.1f} matches/s"),
        (f"tournament, {t['workers']} workers", f"{t['N']:.1f} matches/s"),
    ]
    if "server_stream_requests_per_s" in result:
        rows += [
            (
                "server, replay stream",
                f"{result['server_stream_requests_per_s']:,.0f} requests/s, "
                f"p99 {result['server_stream_p99_ms']:.1f} ms",
            ),
            (
                "server, listings",
                f"{result['server_list_requests_per_s']:,.0f} requests/s, "
                f"p99 {result['server_list_p99_ms']:.1f} ms",
            ),
        ]
    print(
        f"summary ({result['date']}, {result['seconds']:.0f} s, load average "
        f"{result['load_average']}):"
    )
    for label, value in rows:
        print(f"  {label:<36} {value}")
    if missing:
        print(f"  not measured: {', '.join(missing)} (the web package's figures: not installed)")
