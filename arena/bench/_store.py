"""Store figures for ``arena bench store``: what recording a match costs, and the common reads."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from arena.baselines import build_extra
from arena.match import Contestant, MatchResult, run_match
from arena.store import Entrant, Origin, Store

__all__ = ["store_figures"]


def _per_call_us(
    fn: Callable[[int], object], calls: int, repeat: int, start: int = 0
) -> tuple[float, float]:
    """Best mean wall and CPU time of ``fn(i)`` over ``repeat`` runs of ``calls`` calls, in us.

    The CPU time is this process's own work; the wall time adds the waits
    (fsync, and on a shared machine, other processes).
    """
    wall, cpu = float("inf"), float("inf")
    for r in range(repeat):
        base = start + r * calls
        w0, c0 = time.perf_counter(), time.process_time()
        for i in range(calls):
            fn(base + i)
        wall = min(wall, (time.perf_counter() - w0) / calls)
        cpu = min(cpu, (time.process_time() - c0) / calls)
    return wall * 1e6, cpu * 1e6


def _variant(result: MatchResult, i: int) -> MatchResult:
    """The same result with a replay of the same size but new bytes (so a new file)."""
    replay = result.replay[:-8] + i.to_bytes(8, "big")
    r = result
    return MatchResult(r.winner, r.reason, r.ticks, r.seed, r.sides, replay)


def store_figures(repeat: int, calls: int = 200, idle: bytes | None = None) -> None:
    """Print the store's cost per match recorded and of the reads the web and the CLI make.

    A real 400-tick replay (``idle`` against itself, built if not given); a
    fresh store in a temporary directory (the system's temp files' file system).
    """
    idle = idle or build_extra("idle")
    result = run_match(Contestant("idle-a", idle), Contestant("idle-b", idle), seed=1)
    with (
        tempfile.TemporaryDirectory(prefix="arena-bench-store-") as tmp,
        Store.open(Path(tmp)) as store,
    ):
        c = store.add_controller(idle, name="idle", origin=Origin.BASELINE)
        field = [Entrant("idle", c.sha256)]
        tournament = store.create_tournament("round-robin", field, seeds=[1])
        store.record_match(result)  # the replay file exists from here on
        rows = [
            (
                "record a match (its replay already stored)",
                _per_call_us(lambda i: store.record_match(result), calls, repeat),
            ),
            (
                "record a tournament match (pairing key)",
                _per_call_us(
                    lambda i: store.record_match(
                        result, tournament_id=tournament.id, pairing_key=str(i)
                    ),
                    calls,
                    repeat,
                ),
            ),
            (
                "record a match with a new replay file",
                _per_call_us(lambda i: store.record_match(_variant(result, i)), calls, repeat),
            ),
            ("read a match by id", _per_call_us(lambda i: store.match(1 + i % 100), calls, repeat)),
            (
                "list 50 recent matches",
                _per_call_us(lambda i: store.matches(limit=50), calls // 4, repeat),
            ),
            (
                "read a replay back (sha256 checked)",
                _per_call_us(
                    lambda i: store.read_replay_bytes(result.replay_sha256), calls, repeat
                ),
            ),
        ]
    print(
        f"store (SQLite WAL, one transaction per record; a {len(result.replay):,}-byte "
        f"replay of {result.ticks} ticks; best of runs):"
    )
    for label, (wall, cpu) in rows:
        print(f"  {label:<44} {wall:>7,.0f} us  ({cpu:>6,.0f} us CPU)")
    print("  (a new replay file is written atomically and fsynced before its row)")
