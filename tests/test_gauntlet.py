"""A gauntlet as an author runs it: its summary (by opponent and side, forfeits, the losses by
seed with the command that shows each), stored or played with ``--no-record``.

Real matches (baselines, short games). The tests of the coordinator's own play the
tournament in this process (``tests._support.InProcess``); those of the command line on
worker processes.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from arena.cases import default_case
from arena.coordinator import (
    add_contestant,
    create_tournament,
    play_unrecorded,
    run_tournament_sync,
    tournament_losses,
)
from arena.match import load_contestant
from arena.store import Store
from arena.tournament import Format, TournamentPlan, gauntlet_losses
from tests._support import InProcess, cli

Capture = pytest.CaptureFixture[str]

# greedy-raider loses to fuel-probe on seed 2 (both sides) in 100 ticks, and beats the others
FIELD = ("greedy-raider", "random", "border-soldier", "fuel-probe")
RULES = default_case().rules.replace(max_ticks=100)
SEEDS = (0, 1, 2)


def test_a_gauntlet_played_unrecorded_ends_as_a_stored_one_and_stores_nothing(
    data_dir: Path,
) -> None:
    plan = TournamentPlan(Format.GAUNTLET, FIELD, SEEDS)
    contestants = [load_contestant(name) for name in FIELD]
    done = play_unrecorded(plan, contestants, InProcess(), config=RULES)
    assert not (data_dir / "arena.sqlite3").exists() and not (data_dir / "replays").exists()
    assert len(done.played) == plan.matches and done.standings.complete
    with Store.open(data_dir) as store:
        field = [add_contestant(store, name)[1] for name in FIELD]
        record = create_tournament(store, "gauntlet", field, seeds=SEEDS, config=RULES)
        stored = run_tournament_sync(store, record.id, InProcess())
        losses = tournament_losses(store, stored.record)
        replays = {
            m.id: m.result.replay_sha256 for m in store.tournament_matches(record.id) if m.result
        }
        for loss in losses:
            assert loss.match_id is not None and loss.replay is not None
            assert loss.replay == str(store.replay_path(replays[loss.match_id]))
            assert Path(loss.replay).is_file()
    assert done.standings.to_json() == stored.standings.to_json()
    unrecorded = gauntlet_losses(plan, ((p, None, None) for p in done.played))
    assert [(x.seed, x.opponent, x.side, x.reason) for x in unrecorded] == [
        (x.seed, x.opponent, x.side, x.reason) for x in losses
    ]
    assert losses, "the field is chosen so that the entrant loses some"
    # what the summary says, from the standings
    rows = done.standings.gauntlet
    assert rows[0].opponent == "fuel-probe"  # the hardest first
    # every entrant ranked by wins, as in any format; the entrant is named apart
    assert done.standings.entrant == "greedy-raider"
    assert [r.rank for r in done.standings.rows] == [1, 2, 3, 4]
    wins = [r.wins for r in done.standings.rows]
    assert wins == sorted(wins, reverse=True)


def test_the_losses_of_a_round_robin_are_none_of_a_gauntlets(data_dir: Path) -> None:
    with Store.open(data_dir) as store:
        field = [add_contestant(store, name)[1] for name in FIELD[:2]]
        record = create_tournament(store, "round-robin", field, config=RULES)
        assert tournament_losses(store, record) == []


def test_no_record_cannot_be_resumed(capsys: Capture) -> None:
    out = cli(capsys, "tournament", "--resume", "1", "--no-record")
    assert out.code == 2 and "cannot be resumed" in out.err, out.err


ARGS = ("--format", "gauntlet", "--seeds", "3", "--max-ticks", "100", "--jobs", "1", *FIELD)


@pytest.mark.processes
def test_arena_tournament_gauntlet_summarises_for_the_entrant(capsys: Capture) -> None:
    out = cli(capsys, "tournament", *ARGS)
    assert out.code == 0, out.err
    lines = out.out.splitlines()
    assert "greedy-raider: 16 wins, 2 losses, 0 draws; forfeits: none" in out.out
    assert "row vs column" not in out.out  # the opponents are not ranked against each other
    table = [line for line in lines if "fuel-probe" in line and "-" in line]
    # against fuel-probe, as A and as B, and in all
    assert any(all(cell in line for cell in ("2-1-0", "4-2-0")) for line in table), table
    shows = [
        line.split("arena replay show ", 1)[1] for line in lines if "arena replay show" in line
    ]
    assert len(shows) == 2 and all(Path(shlex.split(s)[0]).is_file() for s in shows)
    data = cli(capsys, "standings", "1", "--json").json()
    assert data["entrant"] == "greedy-raider" and data["format"] == "gauntlet"
    assert [r["rank"] for r in data["standings"]] == [1, 2, 3, 4]
    assert [(x["seed"], x["opponent"], x["side"]) for x in data["losses"]] == [
        (2, "fuel-probe", "A"),
        (2, "fuel-probe", "B"),
    ]
    assert all(Path(x["replay"]).is_file() and x["match"] for x in data["losses"])
    against = data["gauntlet"][0]
    assert against["opponent"] == "fuel-probe" and against["as_a"]["losses"] == 1
    assert cli(capsys, "standings", "1").out == out.out  # the same summary, from the store


@pytest.mark.processes
def test_arena_tournament_no_record_prints_the_summary_and_stores_nothing(
    capsys: Capture, data_dir: Path
) -> None:
    out = cli(capsys, "tournament", "--no-record", *ARGS)
    assert out.code == 0, out.err
    assert "tournament (not recorded): gauntlet" in out.out
    assert "greedy-raider: 16 wins, 2 losses" in out.out
    assert not (data_dir / "arena.sqlite3").exists() and not (data_dir / "replays").exists()
    # below the table, one line each: its number, then the command
    again = [shlex.split(line)[1:] for line in out.out.splitlines() if "arena match" in line]
    assert [line.split()[0] for line in out.out.splitlines() if "arena match" in line] == ["1", "2"]
    assert again == [
        [
            "arena",
            "match",
            a,
            b,
            "--seed",
            "2",
            "--max-ticks",
            "100",
            "--no-record",
            "--replay",
            f"seed2-{side}.replay",
        ]
        for a, b, side in (
            ("greedy-raider", "fuel-probe", "A"),
            ("fuel-probe", "greedy-raider", "B"),
        )
    ]
    # the command given plays the very loss again
    shown = cli(capsys, *again[1][1:-2], "--json")
    assert (
        json.loads(shown.out)["winner"] == 0
        and json.loads(shown.out)["sides"][1]["name"] == "greedy-raider"
    )
    data = cli(capsys, "tournament", "--no-record", "--json", *ARGS).json()
    assert data["id"] is None and data["status"] == "finished" and data["matches"] == 18
    assert [x["match"] for x in data["losses"]] == [None, None]
    assert not (data_dir / "arena.sqlite3").exists()
