"""What a field's coordinator, resume and standings cost grows with its entrants, not with the
matches recorded (issue 26, scale): counted in SQLite's steps and in objects held, never
timed. The same entrants with many more matches recorded (more seeds) cost the same."""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.bench import MadeUpPlayer
from arena.bench._field import _a_real_replay, _Filler
from arena.bench._scale import numbered_field
from arena.cases import Case, default_case
from arena.store import Store


@pytest.fixture(scope="module")
def replay() -> bytes:
    return _a_real_replay()


@pytest.fixture
def steps(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """SQLite's virtual machine steps (in tens) on every connection opened from now on."""
    counted = [0]
    real_connect = sqlite3.connect

    def counting(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn: sqlite3.Connection = real_connect(*args, **kwargs)

        def tick() -> int:
            counted[0] += 1
            return 0

        conn.set_progress_handler(tick, 10)
        return conn

    monkeypatch.setattr(sqlite3, "connect", counting)
    return counted


def _case(seeds: int) -> Case:
    base = default_case()
    return dataclasses.replace(base, match=dataclasses.replace(base.match, seeds=tuple(range(seeds))))


def _field(root: Path, seeds: int, entrants: int, replay: bytes) -> tuple[Store, _Filler]:
    """A stored field of ``entrants`` on ``seeds`` seeds, every meeting recorded (made up)."""
    store = Store.open(root)
    filler = _Filler(store, _case(seeds), MadeUpPlayer(replay))
    filler.grow(iter(numbered_field(entrants)), entrants)
    return store, filler


def _first_page_steps(store: Store, tid: int, steps: list[int]) -> int:
    before = steps[0]
    pages: Iterator[Any] = store.iter_tournament_matches(tid, page=8)
    assert len([next(pages) for _ in range(8)]) == 8
    return steps[0] - before


@pytest.mark.slow
def test_a_page_of_a_tournaments_matches_costs_its_own_rows(
    tmp_path: Path, steps: list[int], replay: bytes
) -> None:
    """The first page of a field's matches (a resume's, a recount's) with 32 times the
    matches recorded: about the same SQLite steps (before an index in id order, every later
    match was read and sorted for each page)."""
    counted = []
    for seeds in (1, 32):
        store, filler = _field(tmp_path / str(seeds), seeds, 8, replay)
        with store:
            assert store.tournament(filler.tid).matches == 56 * seeds
            counted.append(_first_page_steps(store, filler.tid, steps))
    few, more = counted
    assert more < 1.5 * few + 20, (few, more)
