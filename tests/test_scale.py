"""Scaling out: a swiss of distinct controllers on a real local Ray gives what the local
executor gives, and each module reaches Ray's object store once, never inside a task."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import sim
from arena.baselines import numbered_module
from arena.bench import numbered_field
from arena.coordinator import (
    create_tournament,
    run_tournament_sync,
    standings_json,
    store_contestant,
    tournament_standings,
)
from arena.executors import LocalExecutor
from arena.match import Contestant, load_contestant, run_match
from arena.store import Store

pytestmark = [pytest.mark.ray, pytest.mark.processes]

FIELD = 8
PAD = 64 * 1024  # every module is larger than anything a task may carry by value
RULES = sim.Config(max_ticks=40)

_RAY_DRIVER = """
import json, sys
from pathlib import Path
from arena.bench import drive_on_ray
print(json.dumps(drive_on_ray(Path(sys.argv[1]), int(sys.argv[2]), 2)))
"""


def _swiss(root: Path, field: list[Contestant]) -> int:
    """The test's swiss, stored under ``root`` (nothing played yet)."""
    with Store.open(root) as store:
        entrants = [store_contestant(store, c) for c in field]
        record = create_tournament(store, "swiss", entrants, rounds=3, config=RULES)
        return record.id


def _played(root: Path, tournament_id: int) -> tuple[dict[str, object], dict[str, str]]:
    """A stored tournament's standings, and each match's replay sha256 by pairing key."""
    with Store.open(root) as store:
        _, standings = tournament_standings(store, tournament_id)
        replays = {
            m.pairing_key or "": m.result.replay_sha256
            for m in store.tournament_matches(tournament_id)
            if m.result is not None
        }
    return standings_json(standings), replays


def test_a_numbered_module_is_another_controller_that_plays_the_same() -> None:
    random = load_contestant("random")
    copy = Contestant("random-07", numbered_module(random.blob, 7, pad=100))
    other = Contestant("random-08", numbered_module(random.blob, 8))
    assert len({random.sha256, copy.sha256, other.sha256}) == 3
    opponent = load_contestant("border-soldier")
    plain, numbered = (run_match(c, opponent, seed=3, config=RULES) for c in (random, copy))
    assert numbered.sides[0].forfeit is None
    assert (numbered.winner, numbered.reason, numbered.ticks) == (
        plain.winner,
        plain.reason,
        plain.ticks,
    )
    assert [(s.banked, s.fuel_total) for s in numbered.sides] == [
        (s.banked, s.fuel_total) for s in plain.sides
    ]


def test_a_swiss_on_ray_matches_the_local_executor_and_ships_each_module_once(
    tmp_path: Path,
) -> None:
    """The same stored swiss played twice: on 2 local workers here, and on a local Ray
    whose driver is a child process (no process plays wasm after ``ray.init``)."""
    field = numbered_field(FIELD, pad=PAD)
    local_id = _swiss(tmp_path / "local", field)
    ray_id = _swiss(tmp_path / "ray", field)
    env = {k: v for k, v in os.environ.items() if k != "FORAY_RAY_ADDRESS"}
    proc = subprocess.run(
        [sys.executable, "-c", _RAY_DRIVER, str(tmp_path / "ray"), str(ray_id)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    sent = json.loads(proc.stdout.strip().splitlines()[-1])
    with Store.open(tmp_path / "local") as store:
        run_tournament_sync(store, local_id, LocalExecutor(2))

    local_standings, local_replays = _played(tmp_path / "local", local_id)
    ray_standings, ray_replays = _played(tmp_path / "ray", ray_id)
    assert ray_standings == local_standings
    assert ray_replays == local_replays
    matches = 3 * (FIELD // 2) * 2  # rounds x meetings x both sides, one seed
    assert sent["matches"] == len(ray_replays) == matches and sent["errors"] == 0
    # One put per distinct module, however many matches each plays (3 rounds x 2 sides).
    assert sent["puts"] == FIELD
    assert sent["put_bytes"] == sum(len(c.blob) for c in field)
    # Every task went with two references and a job that cannot hold a module's bytes.
    assert sent["tasks"] == matches
    assert 0 < sent["task_bytes"] / sent["tasks"] < 4096 < PAD
