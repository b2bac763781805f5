"""The operator's desk over a stored tournament: export, verify, rerun (the CLI and the API).

The tournaments are real (baselines, short games) and played in this process
through a player of the test's own, except where a command plays on workers.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

import sim
from arena._errors import ArenaError
from arena.cases import default_case
from arena.cli._standings import duration, print_ranking
from arena.coordinator import (
    add_contestant,
    create_tournament,
    pending_matches,
    rerun_tournament,
    run_tournament_sync,
    tournament_standings,
    tournament_timing,
)
from arena.executors import MatchJob, Outcome, play
from arena.store import Entrant, Origin, Store, TournamentRecord
from arena.tournament import (
    Format,
    Played,
    Scheduler,
    Standings,
    TournamentPlan,
    TournamentSetupError,
    parse_seeds,
)
from tests._support import cli

Capture = pytest.CaptureFixture[str]

FIELD = ("random", "greedy-raider", "border-soldier")
SHORT = default_case().rules.replace(max_ticks=30)


class Here:
    """Plays each match in this process."""

    async def play(self, job: MatchJob) -> Outcome:
        return play(job)


@pytest.fixture
def store(data_dir: Path) -> Iterator[Store]:
    with Store.open(data_dir) as opened:
        yield opened


def played(
    store: Store, fmt: str = "round-robin", names: tuple[str, ...] = FIELD
) -> TournamentRecord:
    field = [add_contestant(store, name)[1] for name in names]
    record = create_tournament(store, fmt, field, seeds=(0,), config=SHORT)
    return run_tournament_sync(store, record.id, Here(), slots=2).record


def test_matches_export_every_match_as_csv_and_json(capsys: Capture, store: Store) -> None:
    record = played(store)
    matches = store.tournament_matches(record.id)
    as_json = cli(capsys, "tournament", "matches", str(record.id), "--json")
    assert as_json.code == 0, as_json.err
    rows = as_json.json()["matches"]
    assert [r["id"] for r in rows] == [m.id for m in matches] and len(rows) == 6
    for row, m in zip(rows, matches, strict=True):
        assert m.result is not None
        assert row["replay_sha256"] == m.result.replay_sha256
        assert row["replay"] == str(store.replay_path(m.result.replay_sha256))
        assert Path(row["replay"]).is_file()
        assert (row["a"], row["b"], row["seed"]) == (m.entrants[0].name, m.entrants[1].name, 0)
        assert row["ticks"] == m.result.ticks and row["reason"] == str(m.result.reason)
        assert row["banked_a"] == m.result.sides[0].banked
        assert row["fuel_b"] == m.result.sides[1].fuel_total
        winner = m.result.winner
        assert row["winner"] == (None if winner is None else m.entrants[winner].name)
        assert 1 <= row["round"] <= 3
    as_csv = cli(capsys, "tournament", "matches", str(record.id), "--csv")
    assert as_csv.code == 0, as_csv.err
    table = list(csv.DictReader(io.StringIO(as_csv.out)))
    assert [int(r["id"]) for r in table] == [r["id"] for r in rows]
    assert {"round", "seed", "a", "b", "winner", "reason", "ticks", "banked_a", "fuel_a",
            "forfeit_a", "replay", "replay_sha256"} <= table[0].keys()  # fmt: skip
    assert all(r["replay_sha256"] == j["replay_sha256"] for r, j in zip(table, rows, strict=True))
    shown = cli(capsys, "tournament", "matches", str(record.id))
    assert shown.code == 0 and "6 matches recorded" in shown.out


def test_standings_export_as_csv_with_played_and_pending(capsys: Capture, store: Store) -> None:
    record = played(store)
    _, standings = tournament_standings(store, record.id)
    out = cli(capsys, "standings", str(record.id), "--csv")
    assert out.code == 0, out.err
    table = list(csv.DictReader(io.StringIO(out.out)))
    assert [r["name"] for r in table] == [r.name for r in standings.rows]
    for line, row in zip(table, standings.rows, strict=True):
        assert int(line["wins"]) == row.wins and int(line["played"]) == row.matches == 4
        assert line["pending"] == "0" and float(line["rating_mu"]) == row.rating.mu


def test_a_live_round_robin_counts_what_each_entrant_has_still_to_play(
    capsys: Capture, store: Store
) -> None:
    field = [add_contestant(store, name)[1] for name in FIELD]
    record = create_tournament(store, "round-robin", field, seeds=(0, 1), config=SHORT)
    out = cli(capsys, "standings", str(record.id), "--csv")
    table = list(csv.DictReader(io.StringIO(out.out)))
    assert [(r["played"], r["pending"]) for r in table] == [("0", "8")] * 3


def test_an_unknown_tournament_is_an_operator_error(capsys: Capture) -> None:
    for command in ("matches", "verify", "rerun"):
        out = cli(capsys, "tournament", command, "7")
        assert out.code == 2 and "no tournament 7 in the store" in out.err, (command, out.err)


def test_verify_checks_every_replay_and_names_a_damaged_one(capsys: Capture, store: Store) -> None:
    record = played(store, names=FIELD[:2])
    ok = cli(capsys, "tournament", "verify", str(record.id))
    assert ok.code == 0 and "ok, 2 replays re-simulated" in ok.out, ok.err
    victim = store.tournament_matches(record.id)[1]
    assert victim.result is not None
    path = store.replay_path(victim.result.replay_sha256)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.chmod(0o644)
    path.write_bytes(bytes(data))
    bad = cli(capsys, "tournament", "verify", str(record.id))
    assert bad.code == 1
    assert f"match {victim.id} " in bad.err and "1 of 2 replays FAILED" in bad.err
    report = cli(capsys, "tournament", "verify", str(record.id), "--json")
    assert report.code == 1
    (failure,) = report.json()["failures"]
    assert failure["match"] == victim.id and failure["detail"]


def test_verify_with_modules_plays_every_match_again(capsys: Capture, store: Store) -> None:
    record = played(store, names=FIELD[:2])
    out = cli(capsys, "tournament", "verify", str(record.id), "--modules")
    assert out.code == 0 and "ok, 2 replays played again from the stored modules" in out.out


def test_the_desk_commands_are_the_ones_main_routes() -> None:
    from arena.cli import _desk, _main

    assert _main._DESK == _desk.COMMANDS


@pytest.mark.parametrize(
    "fmt",
    [
        "round-robin",
        *(pytest.param(f, marks=pytest.mark.slow) for f in ("swiss", "bracket", "gauntlet")),
    ],
)
def test_a_rerun_is_the_same_tournament_with_the_same_standings(store: Store, fmt: str) -> None:
    first = played(store, fmt)
    again = rerun_tournament(store, first)
    assert again.id != first.id
    assert (again.format, again.field, again.seeds, again.options) == (
        first.format,
        first.field,
        first.seeds,
        first.options,
    )
    rerun = run_tournament_sync(store, again.id, Here(), slots=2)
    assert rerun.standings == tournament_standings(store, first.id)[1]
    firsts = {m.pairing_key: m.result for m in store.tournament_matches(first.id)}
    seconds = {m.pairing_key: m.result for m in store.tournament_matches(again.id)}
    assert seconds == firsts  # every match the same, its replay byte for byte


def test_a_rerun_leaves_out_the_entrants_excluded(store: Store) -> None:
    first = played(store, "swiss")
    again = rerun_tournament(store, first, ["greedy-raider"])
    assert [e.name for e in again.field] == ["random", "border-soldier"]
    assert again.options["rounds"] == 1  # two entrants hold one swiss round, not the first's two
    with pytest.raises(ArenaError, match="no entrant 'nobody' to exclude"):
        rerun_tournament(store, first, ["nobody"])


@pytest.mark.processes
def test_arena_tournament_rerun_gives_the_first_standings(capsys: Capture, store: Store) -> None:
    first = played(store)
    out = cli(capsys, "tournament", "rerun", str(first.id), "--jobs", "1", "--json")
    assert out.code == 0, out.err
    data = out.json()
    assert data["rerun_of"] == first.id and data["id"] != first.id
    assert data["standings"] == tournament_standings(store, first.id)[1].to_json()["standings"]
    table = cli(capsys, "tournament", "rerun", str(first.id), "--exclude", "random", "--jobs", "1")
    assert table.code == 0 and f"a rerun of tournament {first.id}" in table.out
    assert "2 entrants" in table.out


@pytest.mark.parametrize(
    ("text", "seeds"),
    [
        ("0 1 2", (0, 1, 2)),
        ("0,1,2", (0, 1, 2)),
        ("0, 1,  2", (0, 1, 2)),
        ("0-15", tuple(range(16))),
        ("7 - 9, 2", (7, 8, 9, 2)),
        ("4294967295", (4294967295,)),
    ],
)
def test_seeds_are_read_as_a_person_types_them(text: str, seeds: tuple[int, ...]) -> None:
    assert parse_seeds(text, 16) == seeds


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("0-999999999", "makes 1000000000 seeds or more, and a tournament here takes at most 16"),
        ("0-16", "makes 17 seeds or more"),
        ("", "no seed given: give seeds separated by spaces or commas, and ranges: 0 1 2"),
        ("0 x", "'x' is not a seed nor a range"),
        ("-1", "'-1' is not a seed nor a range"),
        ("5-3", "the range 5-3 runs backwards (give 3-5)"),
        ("1 0-2", "1 is given twice"),
        ("4294967296", "4294967296 is not an unsigned 32-bit integer"),
    ],
)
def test_seeds_that_cannot_be_read_are_refused_by_name(text: str, message: str) -> None:
    with pytest.raises(TournamentSetupError) as caught:
        parse_seeds(text, 16)
    assert message in str(caught.value)


def test_only_ascii_digits_are_seeds() -> None:
    with pytest.raises(TournamentSetupError, match="is not a seed nor a range"):
        parse_seeds("\u0663", 16)  # an Arabic-Indic three, which int() would take


def test_the_listing_and_the_standings_say_when_it_ran_and_how_fast(
    capsys: Capture, store: Store
) -> None:
    record = played(store)
    listing = cli(capsys, "tournaments", "--json").json()["tournaments"]
    (row,) = listing
    assert row["finished_at"] is not None and row["seconds"] > 0
    assert row["matches_per_second"] == pytest.approx(6 / row["seconds"], rel=0.05)
    table = cli(capsys, "tournaments").out
    assert "took" in table and "rate" in table and f"{row['matches_per_second']:,.1f}/s" in table
    shown = cli(capsys, "standings", str(record.id)).out
    assert re.search(r"started \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC, finished \d\d:\d\d:\d\d: "
                     r"took \d+\.\ds, [\d,]+\.\d matches/s", shown), shown  # fmt: skip
    data = cli(capsys, "standings", str(record.id), "--json").json()
    assert (data["seconds"], data["matches_per_second"]) == (
        row["seconds"],
        row["matches_per_second"],
    )


def test_a_running_tournament_counts_its_time_so_far(capsys: Capture, store: Store) -> None:
    field = [add_contestant(store, name)[1] for name in FIELD]
    record = create_tournament(store, "round-robin", field, seeds=(0,), config=SHORT)
    later = record.created_at + timedelta(seconds=90)
    timing = tournament_timing(record, now=later)
    assert (timing.seconds, timing.rate, timing.finished) == (90.0, 0.0, None)
    assert ", running for " in cli(capsys, "standings", str(record.id)).out


@pytest.mark.parametrize(
    ("seconds", "shown"), [(0.44, "0.4s"), (12.34, "12.3s"), (68.9, "1m08s"), (7530, "2h05m")]
)
def test_durations_read_as_a_person_reads_them(seconds: float, shown: str) -> None:
    assert duration(seconds) == shown


def _sixteen(seeds: int, played_share: float = 1.0) -> Standings:
    """The standings of a round-robin of sixteen long-named entrants, all or part played."""
    names = tuple(f"controller-number-{i:02d}-of-a-new-user" for i in range(16))
    scheduler = Scheduler(TournamentPlan(Format.ROUND_ROBIN, names, tuple(range(seeds))))
    pairings = list(scheduler.ready())
    for p in pairings[: int(len(pairings) * played_share)]:
        winner = hash(p.key) % 2
        scheduler.record(Played(p, winner=winner, reason=sim.Reason.SCORE, ticks=100))
    return scheduler.standings()


def _printed(width: int, standings: Standings, **options: Any) -> list[str]:
    out = io.StringIO()
    console = Console(file=out, width=width, color_system=None)
    print_ranking(console, "a title", standings, **options)
    return out.getvalue().splitlines()


def test_standings_read_at_80_columns_and_point_to_the_wide_matrix() -> None:
    standings = _sixteen(seeds=16)
    lines = _printed(80, standings, wide="arena standings 3 --matrix")
    assert max(map(len, lines)) <= 80
    # Every count and every rating whole on one line: no cell cut, none wrapped; the
    # names as long as the rest leaves them, the heads abbreviated with a legend.
    row = re.compile(r" *\d+  controller-number-\d\d-of-a-new-us\S* +\d+ +\d+ +\d+ +0 +0 +0 +"
                     r"\d+\.\d +\d+\.\d")  # fmt: skip
    assert sum(1 for line in lines if row.fullmatch(line)) == 16, lines
    head = next(line for line in lines if " name " in line).split()
    assert head[-2:] == ["mu", "sigma"], lines  # two columns, labelled as everywhere
    assert "(pl: played, W: wins, L: losses, D: draws, ff: forfeits)" in lines
    assert "the win matrix (16 x 16) is 169 columns wide: arena standings 3 --matrix" in lines
    assert not any("row vs column" in line for line in lines)
    # --matrix: drawn at the width it needs, every cell whole.
    wide = _printed(80, standings, matrix=True)
    grid = [line for line in wide[wide.index(next(x for x in wide if "row vs column" in x)) :]]
    assert max(map(len, grid)) > 80 and not any("…" in line for line in grid)
    assert sum(1 for line in grid if re.match(r"│ \d+ controller-number", line)) == 16
    # On a wide terminal the matrix fits, and is drawn without asking.
    assert any("row vs column" in line for line in _printed(240, standings))
    assert not any("row vs column" in line for line in _printed(240, standings, matrix=False))


def test_a_live_round_robin_shows_played_and_pending_beside_the_wins() -> None:
    standings = _sixteen(seeds=2, played_share=0.25)
    plan = TournamentPlan(Format.ROUND_ROBIN, tuple(r.name for r in standings.rows), (0, 1))
    pending = pending_matches(plan, standings)
    assert all(p is not None and p > 0 for p in pending)
    lines = _printed(80, standings, pending=pending)
    heads = next(line for line in lines if "played" in line)
    assert heads.index("played") < heads.index("pending") < heads.index("wins")
    assert max(map(len, lines)) <= 80
    for row, p in zip(standings.rows, pending, strict=True):
        assert row.matches + row.errors + (p or 0) == 15 * 4


def test_an_excluded_entrant_leaves_the_standings_recomputed_and_comes_back(
    capsys: Capture, store: Store
) -> None:
    record = played(
        store, "round-robin", ("random", "greedy-raider", "border-soldier", "fuel-probe")
    )
    whole = tournament_standings(store, record.id)[1]
    out = cli(
        capsys, "tournament", "exclude", str(record.id), "greedy-raider", "--reason", "copied"
    )
    assert out.code == 0, out.err
    assert "excluded: greedy-raider (copied;" in out.out
    assert "undo: arena tournament include 1 greedy-raider" in out.out
    again, without = tournament_standings(store, record.id)
    assert [x.name for x in again.excluded] == ["greedy-raider"]
    assert {r.name for r in without.rows} == {"random", "border-soldier", "fuel-probe"}
    assert without.matches == without.total == 6 and without.complete
    # The same as a round-robin of the three, played alone: counts from their own matches.
    for row in without.rows:
        before = whole.row(row.name)
        versus = whole.matrix.wins(row.name, "greedy-raider")
        assert row.wins == before.wins - versus
        assert row.matches == 4
    data = cli(capsys, "standings", str(record.id), "--json").json()
    assert data["excluded"][0]["name"] == "greedy-raider"
    assert data["excluded"][0]["reason"] == "copied"
    assert cli(capsys, "tournaments", "--json").json()["tournaments"][0]["leader"] != (
        "greedy-raider"
    )
    twice = cli(capsys, "tournament", "exclude", "1", "greedy-raider", "--reason", "again")
    assert twice.code == 2 and "excluded from tournament 1 already" in twice.err
    back = cli(capsys, "tournament", "include", str(record.id), "greedy-raider")
    assert back.code == 0, back.err
    assert tournament_standings(store, record.id)[1] == whole
    undo = cli(capsys, "tournament", "exclude", "1", "random", "--reason", "x")
    assert undo.code == 0
    assert cli(capsys, "tournament", "exclude", "1", "random", "--undo").code == 0
    assert tournament_standings(store, record.id)[1] == whole


@pytest.mark.parametrize(
    ("fmt", "name", "args", "message"),
    [
        ("bracket", "random", ("--reason", "x"), "arena tournament rerun 1 --exclude random"),
        ("gauntlet", "random", ("--reason", "x"), "the entrant of gauntlet 1"),
        ("round-robin", "nobody", ("--reason", "x"), "has no entrant 'nobody'"),
        ("round-robin", "random", (), "--reason TEXT"),
        ("round-robin", "random", ("--reason", "  "), "give the reason"),
    ],
)
def test_exclusions_that_cannot_be_are_refused_by_name(
    capsys: Capture, store: Store, fmt: str, name: str, args: tuple[str, ...], message: str
) -> None:
    played(store, fmt, FIELD[:2] if fmt == "bracket" else FIELD)
    out = cli(capsys, "tournament", "exclude", "1", name, *args)
    assert out.code == 2 and message in out.err, out.err


def test_a_running_tournament_keeps_its_field(capsys: Capture, store: Store) -> None:
    field = [add_contestant(store, name)[1] for name in FIELD]
    create_tournament(store, "round-robin", field, seeds=(0,), config=SHORT)
    out = cli(capsys, "tournament", "exclude", "1", "random", "--reason", "x")
    assert out.code == 2 and "is running" in out.err


def test_a_module_known_by_two_names_shows_both(store: Store) -> None:
    from web._controllers import controller_json

    first = store.add_controller(b"\0asm\1\0\0\0", name="zigbot", origin=Origin.UPLOAD)
    other = add_contestant(store, "random")[1]
    store.create_tournament(
        "round-robin", [Entrant("zigbot-proved", first.sha256), other], seeds=[0]
    )
    assert store.other_names() == {first.sha256: ("zigbot-proved",)}
    shown = controller_json(first, store.other_names()[first.sha256])
    assert (shown["name"], shown["also"]) == ("zigbot", ["zigbot-proved"])
