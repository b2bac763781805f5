"""``arena bench field`` (issue 26, scale): it runs and prints its figures, and what it
leans on holds: a newcomer's matches as the scheduler makes them, and scheduling one that
reads no recorded match (counted in SQLite's steps, not timed)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec
import pytest
import trio

from arena.bench import FIELD_KEYS, MadeUpPlayer, field_figures, newcomer_pairings
from arena.bench._field import _a_real_replay, _Filler
from arena.bench._field_players import _Idle, _newcomer, _run_field
from arena.bench._scale import numbered_field
from arena.cases import Case, default_case
from arena.coordinator import FieldSignal
from arena.executors import MatchJob, Outcome
from arena.store import Store
from arena.tournament import Format, Scheduler, TournamentPlan


def test_a_newcomers_pairings_are_the_schedulers() -> None:
    names = tuple(f"e{i}" for i in range(6))
    seeds = (7, 3)
    sched = Scheduler(TournamentPlan(Format.FIELD, names[:1], seeds))
    for k in range(1, len(names)):
        sched.add_entrant(names[k])
        ready = list(sched.ready())
        assert sorted(ready, key=lambda p: p.key) == sorted(
            newcomer_pairings(k, names, seeds), key=lambda p: p.key
        )
        for p in ready:
            sched.record(MadeUpPlayer.played(p))


@pytest.mark.processes
@pytest.mark.slow
def test_the_field_bench_runs_and_prints_its_figures(
    capsys: pytest.CaptureFixture[str], data_dir: Path
) -> None:
    """A tiny run: 5 played entrants on one worker, matches cut at 10 ticks; a made-up field
    of 8 then 16 entrants, on 2 and 4 seeds, with one entrant withdrawn (figures printed,
    never judged)."""
    figures = field_figures(1, entrants=5, made_up=16, max_ticks=10, jobs=1)
    assert list(figures) == list(FIELD_KEYS)
    assert figures["played_matches"] == 5 * 4 and figures["made_up_entrants"] == 16
    out = capsys.readouterr().out
    assert "20 matches in" in out and "scheduling a newcomer" in out
    assert "coordinator RSS" in out and "bytes/match" in out and "replays as stored" in out
    assert "from 8 to 16 entrants" in out and "at 8 entrants, 4 seeds against 1" in out
    assert "one entrant withdrawn, its later meetings never played: from 8 to 16" in out


class _Counting(MadeUpPlayer):
    """``MadeUpPlayer`` that notes SQLite's steps so far when its first call since ``mark``
    comes in (the newcomer's first meeting handed out)."""

    def __init__(self, replay: bytes, steps: list[int]) -> None:
        super().__init__(replay)
        self._steps = steps
        self.at_first: int | None = None

    def mark(self) -> None:
        super().mark()
        self.at_first = None

    async def play_batch(self, jobs: Sequence[MatchJob]) -> list[Outcome | Exception]:
        if self.at_first is None:
            self.at_first = self._steps[0]
        return await super().play_batch(jobs)


def _steps_to_schedule(
    root: Path, case: Case, entrants: int, replay: bytes, steps: list[int]
) -> tuple[int, int]:
    """A field of ``entrants`` with every meeting recorded: SQLite steps (``steps[0]``, in
    tens) from a newcomer's entering to its first meeting handed out; the matches recorded."""
    player = _Counting(replay, steps)
    pool = iter(numbered_field(entrants + 1))
    out: list[int] = []
    with Store.open(root) as store:
        filler = _Filler(store, case, player)
        filler.grow(pool, entrants)
        matches = store.tournament(filler.tid).matches

        async def body(signal: FieldSignal, idle: _Idle) -> None:
            await trio.sleep(0.05)  # the coordinator's threads are up
            before = steps[0]
            await _newcomer(store, case, next(pool), player, signal, idle)
            assert player.at_first is not None
            out.append(player.at_first - before)

        trio.run(_run_field, store, filler.tid, player, 2, body)
    return out[0], matches


@pytest.mark.slow
def test_scheduling_a_newcomer_reads_no_recorded_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same entrants with 16 times the matches recorded (16 seeds against 1): entering
    a newcomer and handing out its first meeting costs SQLite about the same steps."""
    steps = [0]
    real_connect = sqlite3.connect

    def counting(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn: sqlite3.Connection = real_connect(*args, **kwargs)

        def tick() -> int:
            steps[0] += 1
            return 0

        conn.set_progress_handler(tick, 10)
        return conn

    monkeypatch.setattr(sqlite3, "connect", counting)
    replay = _a_real_replay()
    base = default_case()
    few, more = (
        msgspec.structs.replace(
            base, match=msgspec.structs.replace(base.match, seeds=tuple(range(s)))
        )
        for s in (1, 16)
    )
    steps_few, matches_few = _steps_to_schedule(tmp_path / "few", few, 12, replay, steps)
    steps_more, matches_more = _steps_to_schedule(tmp_path / "more", more, 12, replay, steps)
    assert matches_more == 16 * matches_few == 16 * 12 * 11
    assert steps_more < 1.5 * steps_few + 20, (steps_few, steps_more)
