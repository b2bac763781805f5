"""``arena demo``: the embedded default job. Plays the committed baselines against
each other, writes each replay atomically under the data directory and checks it
by re-simulation."""

from __future__ import annotations

import itertools

import replays
from arena._baselines import BASELINES, load_baseline
from arena._files import atomic_write, data_dir
from arena._match import Contestant, run_match

__all__ = ["run_demo"]


def run_demo(seed: int = 0) -> int:
    """Play every ordered pair of distinct baselines once; return a process exit code."""
    field = [Contestant(name, load_baseline(name)) for name in BASELINES]
    out = data_dir() / "replays"
    wins = {c.name: 0 for c in field}
    failures = 0
    print(f"demo: {len(field)} baselines, every pairing both ways, seed {seed}")
    for a, b in itertools.permutations(field, 2):
        result = run_match(a, b, seed=seed)
        path = out / f"{result.replay_sha256}.replay"
        atomic_write(path, result.replay)
        report = replays.verify_replay(result.replay)
        failures += not report.ok
        verdict = "draw" if result.winner is None else f"{result.sides[result.winner].name} wins"
        if result.winner is not None:
            wins[result.sides[result.winner].name] += 1
        banked = "-".join(str(s.banked) for s in result.sides)
        print(
            f"  {a.name:>14} vs {b.name:<14} {verdict:<22} {result.reason:<7} "
            f"banked {banked:<9} {'verified' if report.ok else 'VERIFY FAILED'}"
        )
    print("wins: " + ", ".join(f"{n} {w}" for n, w in sorted(wins.items(), key=lambda kv: -kv[1])))
    print(f"replays: {out}")
    return 1 if failures else 0
