"""The coordinator: tournaments played on executors, each match recorded once, resumed alike.

Matches are real (baselines and modules built from C, short games). Most
tests play them in this process through a ``MatchPlayer`` of the test's own
(the coordinator takes any player), a few on worker processes, one on a
local Ray started in a subprocess, and two kill a real ``arena tournament``
process.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import io
import json
import os
import pty
import random
import re
import secrets
import select
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time
import traceback
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import msgspec
import pytest
import trio

import arena
import arena.coordinator
import arena.match
import arena.tournament
import sim
from arena.cases import default_case
from arena.cli import main
from arena.coordinator import (
    MatchRaisedError,
    TournamentProgress,
    add_contestant,
    create_tournament,
    pairing_of,
    run_tournament,
    run_tournament_sync,
    tournament_plan,
    tournament_standings,
)
from arena.executors import JobFailed, LocalExecutor, MatchJob, Outcome, Session, play
from arena.store import Entrant, Origin, Store, TournamentStatus
from arena.tournament import Format, Pairing, Played, Scheduler, Standings, TournamentPlan
from tests._support import EXTRA, Builder, HookWorkers, cli, deaths_of

Capture = pytest.CaptureFixture[str]

BASELINE_FIELD = ("random", "border-soldier", "greedy-raider", "fuel-probe")
SHORT = default_case().rules.replace(max_ticks=40)


class InProcess:
    """A ``MatchPlayer`` that plays each match in this process, finishing in a shuffled order."""

    def __init__(self, seed: int = 0, fail: set[tuple[str, str, int]] | None = None) -> None:
        self.rng = random.Random(seed)
        self.fail = fail or set()
        self.played: list[MatchJob] = []

    async def play(self, job: MatchJob) -> Outcome:
        await trio.sleep(self.rng.random() / 100)  # outcomes arrive out of order
        self.played.append(job)
        if (job.a.name, job.b.name, job.seed) in self.fail:
            return JobFailed(job, "the worker died 2 time(s) playing this match: killed")
        return play(job)


class InBatches(InProcess):
    """``InProcess`` as a ``BatchPlayer`` of up to ``batch`` matches a call (keeps their sizes)."""

    def __init__(self, batch: int, seed: int = 0) -> None:
        super().__init__(seed)
        self.batch = batch
        self.sizes: list[int] = []

    async def play_batch(self, jobs: Sequence[MatchJob]) -> list[Outcome | Exception]:
        self.sizes.append(len(jobs))
        return [await self.play(job) for job in jobs]


@pytest.fixture
def store(data_dir: Path) -> Iterator[Store]:
    with Store.open(data_dir) as opened:
        yield opened


def _field(store: Store, names: tuple[str, ...] = BASELINE_FIELD) -> list[Entrant]:
    return [add_contestant(store, name)[1] for name in names]


def _sequential(plan: TournamentPlan, config: sim.Config) -> Standings:
    """The standings of the same tournament played one match at a time, round by round."""
    case = default_case()
    scheduler = Scheduler(plan)
    blobs = {name: arena.match.load_contestant(name) for name in plan.field}
    while (pairings := scheduler.next_round()) is not None:
        for p in pairings:
            job = case.match_job(blobs[p.a], blobs[p.b], seed=p.seed, config=config)
            scheduler.record(Played.from_result(p, play(job)))
    return scheduler.standings()


# --------------------------------------------------------------------------- in this process


@pytest.mark.parametrize("fmt", [f.value for f in Format if f is not Format.FIELD])
def test_every_format_ends_as_if_played_one_match_at_a_time(store: Store, fmt: str) -> None:
    record = create_tournament(store, fmt, _field(store), seeds=(0, 1), config=SHORT)
    reports: list[TournamentProgress] = []
    run = run_tournament_sync(store, record.id, InProcess(), slots=3, on_progress=reports.append)
    plan = tournament_plan(record)
    assert run.record.status is TournamentStatus.FINISHED
    assert run.standings == _sequential(plan, SHORT)
    assert run.record.standings["standings"] == run.standings.to_json()["standings"]
    matches = store.tournament_matches(record.id)
    assert len(matches) == len({m.pairing_key for m in matches}) == run.standings.total
    assert run.stats.played == len(matches) and run.stats.errors == 0
    # Read page by page (as a resume reads them), the same matches in the same order.
    for page in (1, 3, len(matches), len(matches) + 1):
        assert list(store.iter_tournament_matches(record.id, page=page)) == matches
    # Progress: a first report, then one per record, counting up to the total.
    assert [r.done for r in reports] == list(range(len(matches) + 1))
    assert reports[-1].total == run.standings.total and reports[-1].playing == 0
    assert all(0 <= r.playing <= 3 for r in reports)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", [f.value for f in Format if f is not Format.FIELD])
def test_matches_handed_out_in_batches_end_as_if_played_one_at_a_time(
    store: Store, fmt: str
) -> None:
    """A ``BatchPlayer`` gets up to its ``batch`` matches a call: every match once, the same
    standings. What is known from the start goes out in batches that shrink towards the end
    (a share of what is left for each call), down to one."""
    record = create_tournament(store, fmt, _field(store), seeds=range(4), config=SHORT)
    player = InBatches(batch=4)
    reports: list[TournamentProgress] = []
    run = run_tournament_sync(store, record.id, player, slots=2, on_progress=reports.append)
    assert run.standings == _sequential(tournament_plan(record), SHORT)
    matches = store.tournament_matches(record.id)
    assert len(matches) == len({m.pairing_key for m in matches}) == run.standings.total
    assert sum(player.sizes) == len(player.played) == len(matches)
    assert max(player.sizes) == 4 and all(r.playing <= 2 * 4 for r in reports)
    if fmt in ("round-robin", "gauntlet"):
        assert player.sizes == sorted(player.sizes, reverse=True) and player.sizes[-1] == 1


def test_one_slot_gets_full_batches_to_the_end(store: Store, busy: bytes, idle: bytes) -> None:
    """With one slot the batches do not shrink towards the end (no other call finishes
    before it): ten matches in batches of up to four go out as 4, 4, 2."""
    field = _busy_field(store, busy, idle)
    record = create_tournament(store, "round-robin", field, seeds=range(5), config=SHORT)
    player = InBatches(batch=4)
    run = run_tournament_sync(store, record.id, player, slots=1)
    assert player.sizes == [4, 4, 2] and run.standings.complete


def test_records_wait_until_a_hand_over_is_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """A record starts once every other task of the loop waits (a call's hand-over sent):
    a task that stays runnable through many scheduler passes, as a hand-over does through
    its checkpoints, is done before the wait ends, whichever order the scheduler runs them in.
    (The wait's bound is lifted: on a loaded machine the passes may take longer than it.)"""
    from arena.coordinator import _run

    monkeypatch.setattr(_run, "IDLE_WAIT", 60.0)
    _until_idle = _run._until_idle

    async def main() -> list[str]:
        order: list[str] = []

        async def hand_over() -> None:
            for _ in range(40):
                await trio.lowlevel.checkpoint()
            order.append("handed over")

        async with trio.open_nursery() as nursery:
            nursery.start_soon(hand_over)
            await trio.lowlevel.checkpoint()
            await _until_idle()
            order.append("record")
        return order

    for _ in range(5):
        assert trio.run(main) == ["handed over", "record"]


def test_a_plain_match_player_is_handed_one_match_a_call(store: Store) -> None:
    record = create_tournament(store, "round-robin", _field(store), seeds=(0,), config=SHORT)
    reports: list[TournamentProgress] = []
    run_tournament_sync(store, record.id, InProcess(), slots=2, on_progress=reports.append)
    assert max(r.playing for r in reports) == 2


def test_workers_are_kept_busy_across_round_boundaries(store: Store) -> None:
    """A round-robin round of four holds two matches; four slots play two rounds at once."""
    record = create_tournament(store, "round-robin", _field(store), seeds=(0,), config=SHORT)
    reports: list[TournamentProgress] = []
    run_tournament_sync(store, record.id, InProcess(), slots=4, on_progress=reports.append)
    assert reports[0].playing == 4 and reports[0].done == 0
    assert max(r.playing for r in reports) == 4


def test_a_match_that_could_not_be_played_is_recorded_as_an_error_and_counts_for_nothing(
    store: Store,
) -> None:
    record = create_tournament(store, "round-robin", _field(store), seeds=(0,), config=SHORT)
    failing = {("greedy-raider", "random", 0)}
    run = run_tournament_sync(store, record.id, InProcess(fail=failing), slots=2)
    assert run.stats.errors == 1 and run.record.status is TournamentStatus.FINISHED
    (error,) = [m for m in store.tournament_matches(record.id) if m.result is None]
    assert "the worker died 2 time(s)" in (error.error or "")
    assert (pairing_of(error).a, pairing_of(error).b) == ("greedy-raider", "random")
    rows = {r.name: r for r in run.standings.rows}
    assert rows["greedy-raider"].errors == rows["random"].errors == 1
    assert sum(r.matches for r in run.standings.rows) == 2 * (run.standings.total - 1)
    # Resuming a finished tournament plays nothing, and the error stays what it was.
    again = run_tournament_sync(store, record.id, InProcess(), slots=2)
    assert again.stats.played == 0 and again.standings == run.standings


def test_a_stored_match_is_read_back_as_its_pairing_and_a_bad_key_names_the_match(
    store: Store,
) -> None:
    field = _field(store, BASELINE_FIELD[:2])
    record = create_tournament(store, "gauntlet", field, seeds=(5,), config=SHORT)
    run_tournament_sync(store, record.id, InProcess(), slots=1)
    pairings = {pairing_of(m) for m in store.tournament_matches(record.id)}
    assert pairings == set(Scheduler(tournament_plan(record)).ready())
    match = store.tournament_matches(record.id)[0]
    with pytest.raises(
        arena.tournament.ScheduleMismatchError, match=f"stored match {match.id}: '0:3' is not a"
    ):
        pairing_of(msgspec.structs.replace(match, pairing_key="0:3"))
    with pytest.raises(
        arena.tournament.ScheduleMismatchError, match=f"stored match {match.id} has no pairing key"
    ):
        pairing_of(msgspec.structs.replace(match, pairing_key=None))


class StallsAfter(InProcess):
    """``InProcess`` that plays its first ``limit`` matches and never finishes another, so a
    run stopped once they are recorded has recorded exactly those, however slow the store."""

    def __init__(self, limit: int, seed: int = 0) -> None:
        super().__init__(seed)
        self.limit = limit
        self.started = 0

    async def play(self, job: MatchJob) -> Outcome:
        self.started += 1
        if self.started > self.limit:
            await trio.sleep_forever()
        return await super().play(job)


@pytest.mark.parametrize(("fmt", "stop_after"), [("round-robin", 5), ("swiss", 3), ("bracket", 6)])
def test_a_cancelled_tournament_stays_running_and_resumes_to_the_same_standings(
    store: Store, fmt: str, stop_after: int
) -> None:
    field = _field(store)
    record = create_tournament(store, fmt, field, seeds=(0, 1), config=SHORT)

    async def stopped() -> None:
        with trio.CancelScope() as scope:

            def stop(p: TournamentProgress) -> None:
                if p.done >= stop_after:
                    scope.cancel()

            player = StallsAfter(stop_after, seed=1)
            await run_tournament(store, record.id, player, slots=3, on_progress=stop)

    trio.run(stopped)
    assert store.tournament(record.id).status is TournamentStatus.RUNNING
    recorded = len(store.tournament_matches(record.id))
    assert recorded == stop_after < tournament_plan(record).matches
    player = InProcess(2)
    resumed = run_tournament_sync(store, record.id, player, slots=2)
    assert resumed.stats.played == len(player.played) == resumed.standings.matches - recorded
    fresh = create_tournament(store, fmt, field, seeds=(0, 1), config=SHORT)
    whole = run_tournament_sync(store, fresh.id, InProcess(3), slots=4)
    assert resumed.standings == whole.standings
    assert resumed.to_json()["standings"] == whole.to_json()["standings"]


def test_the_tournament_is_played_under_its_stored_case_and_rules(store: Store) -> None:
    record = create_tournament(store, "gauntlet", _field(store), seeds=(3,), config=SHORT)
    assert record.options == {
        "rounds": None,
        "shuffle": None,
        "case": {"slug": "foray", "version": default_case().version},
        "rules": {"max_ticks": 40},
    }
    player = InProcess()
    run_tournament_sync(store, record.id, player, slots=1)
    assert {job.config for job in player.played} == {SHORT}
    assert {job.case for job in player.played} == {default_case().ref}
    assert {job.seed for job in player.played} == {3}


def test_a_plan_that_cannot_be_held_stores_nothing(store: Store) -> None:
    field = _field(store, ("random", "greedy-raider"))
    with pytest.raises(
        arena.tournament.TournamentSetupError, match="format 'league' is not one of"
    ):
        create_tournament(store, "league", field)
    with pytest.raises(arena.tournament.TournamentSetupError, match="rounds is for swiss"):
        create_tournament(store, "bracket", field, rounds=2)
    assert store.tournaments() == []


def test_an_exclusion_is_refused_for_what_is_wrong_with_it_the_name_first(store: Store) -> None:
    """An unknown name is refused as one, even where excluding any entrant would leave
    fewer than two: the check that says what is wrong comes before what it would do."""
    two = create_tournament(store, "round-robin", _field(store, ("random", "greedy-raider")))
    store.finish_tournament(two.id, {})
    with pytest.raises(arena.ArenaError) as refused:
        arena.coordinator.exclude_entrant(store, two.id, "nobody", "a test")
    assert str(refused.value) == (
        f"tournament {two.id} has no entrant 'nobody' (its field: random, greedy-raider)"
    )
    with pytest.raises(arena.ArenaError, match="fewer than two entrants left"):
        arena.coordinator.exclude_entrant(store, two.id, "random", "a test")
    three = create_tournament(
        store, "bracket", _field(store, ("random", "greedy-raider", "border-soldier"))
    )
    store.finish_tournament(three.id, {})
    with pytest.raises(arena.ArenaError, match="has no entrant 'nobody'"):
        arena.coordinator.exclude_entrant(store, three.id, "nobody", "a test")
    with pytest.raises(arena.ArenaError, match="is a bracket"):
        arena.coordinator.exclude_entrant(store, three.id, "random", "a test")
    assert store.tournament(two.id).excluded == () and store.tournament(three.id).excluded == ()


def test_a_player_needs_slots_and_a_failed_tournament_runs_again(store: Store) -> None:
    record = create_tournament(store, "round-robin", _field(store, ("random", "greedy-raider")))
    with pytest.raises(ValueError, match="needs slots"):
        run_tournament_sync(store, record.id, InProcess())
    assert store.tournament(record.id).status is TournamentStatus.RUNNING
    store.fail_tournament(record.id, "the disk was full")
    run = run_tournament_sync(store, record.id, InProcess(), slots=1)
    assert run.record.status is TournamentStatus.FINISHED and run.record.error is None


# --------------------------------------------------------------------------- worker processes


def _busy_field(store: Store, busy: bytes, idle: bytes) -> list[Entrant]:
    return [
        arena.coordinator.store_contestant(store, arena.Contestant(name, blob))
        for name, blob in (("busy", busy), ("idle", idle))
    ]


def _kill_while_playing(
    store: Store, tournament_id: int, kills: int, hooked_workers: HookWorkers
) -> int:
    """Play the tournament on one relay of local workers (two calls at once, batches of
    several matches when it is long enough), whose first ``kills`` calls that play matches
    kill their worker mid-match; how many workers died."""
    hook = hooked_workers("die-given-a-match", deaths=kills)
    trio.run(run_tournament, store, tournament_id, LocalExecutor(1))
    return deaths_of(hook)


@pytest.mark.processes
def test_a_worker_killed_mid_match_costs_nothing_and_nothing_counts_twice(
    store: Store, busy: bytes, idle: bytes, hooked_workers: HookWorkers
) -> None:
    field = _busy_field(store, busy, idle)
    record = create_tournament(store, "round-robin", field, seeds=(0,), config=SHORT)
    assert _kill_while_playing(store, record.id, 1, hooked_workers) == 1
    _, standings = tournament_standings(store, record.id)
    matches = store.tournament_matches(record.id)
    assert len(matches) == len({m.pairing_key for m in matches}) == 2
    assert all(m.result is not None for m in matches) and standings.complete
    assert sum(r.matches for r in standings.rows) == 4 and not any(r.errors for r in standings.rows)
    # The match played again is the match: the same replay bytes as in this process.
    case = default_case()
    contestants = {"busy": arena.Contestant("busy", busy), "idle": arena.Contestant("idle", idle)}
    for m in matches:
        p = pairing_of(m)
        job = case.match_job(contestants[p.a], contestants[p.b], seed=p.seed, config=SHORT)
        assert m.result is not None and m.result.replay_sha256 == play(job).replay_sha256


@pytest.mark.processes
def test_a_worker_killed_mid_batch_costs_nothing_and_nothing_counts_twice(
    store: Store, busy: bytes, idle: bytes, hooked_workers: HookWorkers
) -> None:
    """Eight matches on one relay go out in batches of several: a worker killed in one loses
    none of its matches, and none is recorded twice."""
    field = _busy_field(store, busy, idle)
    record = create_tournament(store, "round-robin", field, seeds=range(4), config=SHORT)
    assert _kill_while_playing(store, record.id, 1, hooked_workers) == 1
    record, standings = tournament_standings(store, record.id)
    matches = store.tournament_matches(record.id)
    assert record.status is TournamentStatus.FINISHED and standings.complete
    assert len(matches) == len({m.pairing_key for m in matches}) == 8
    assert all(m.result is not None for m in matches)
    assert not any(r.errors for r in standings.rows)


@pytest.mark.processes
def test_a_match_whose_workers_keep_dying_is_an_error_the_tournament_survives(
    store: Store, busy: bytes, idle: bytes, hooked_workers: HookWorkers
) -> None:
    """A gauntlet of two matches on one relay: two calls of one match at once, each on a
    worker of its own. Three deaths among two matches of two attempts each, in whatever
    order they come, fail one match (its two attempts) and not the other."""
    field = _busy_field(store, busy, idle)
    record = create_tournament(store, "gauntlet", field, seeds=(0,), config=SHORT)
    assert _kill_while_playing(store, record.id, 3, hooked_workers) == 3
    record, standings = tournament_standings(store, record.id)
    assert record.status is TournamentStatus.FINISHED and standings.complete
    errors = [m for m in store.tournament_matches(record.id) if m.result is None]
    assert len(errors) == 1 and "died 2 time(s)" in (errors[0].error or "")
    assert [r.errors for r in standings.rows] == [1, 1]


class OneJobRefused:
    """Plays on a local session's workers, but gives a worker one job with seed -1, which the
    match runner refuses with an exception: a host bug in one match, raised in the worker."""

    def __init__(self, session: Session, bad: Pairing) -> None:
        self.session, self.bad = session, bad

    async def play(self, job: MatchJob) -> Outcome:
        if (job.a.name, job.b.name, job.seed) == (self.bad.a, self.bad.b, self.bad.seed):
            job = msgspec.structs.replace(job, seed=-1)
        return await self.session.play(job)


@pytest.mark.processes
@pytest.mark.parametrize(("fmt", "playable"), [("round-robin", 11), ("bracket", 3)])
def test_a_match_that_raises_in_its_worker_fails_the_tournament_once_the_rest_is_played(
    store: Store, fmt: str, playable: int
) -> None:
    """A host bug is no result and no error of the controllers: that match is not recorded.
    Every other match that does not need its result is, then the tournament fails; resumed
    (the bug fixed), it plays only what is missing."""
    record = create_tournament(store, fmt, _field(store), seeds=(0,), config=SHORT)
    plan = tournament_plan(record)
    bad = next(iter(Scheduler(plan).ready()))

    async def main() -> None:
        async with LocalExecutor(2).open_session() as session:
            player = OneJobRefused(session, bad)
            await run_tournament(store, record.id, player, slots=session.slots)

    with pytest.raises(MatchRaisedError) as raised:
        trio.run(main)
    cause = raised.value.__cause__
    assert isinstance(cause, arena.ArenaError) and "seed -1 is not" in str(cause)
    assert "run_match" in "".join(traceback.format_exception(cause))  # the worker's traceback
    assert [p for p, _ in raised.value.raised] == [bad]
    failed = store.tournament(record.id)
    assert failed.status is TournamentStatus.FAILED and failed.error is not None
    assert f"MatchRaisedError: tournament {record.id}: 1 match(es) raised" in failed.error
    assert f"{bad.a!r} against {bad.b!r} on seed 0: ArenaError: seed -1 is not" in failed.error
    matches = store.tournament_matches(record.id)
    assert len(matches) == playable and all(m.result is not None for m in matches)
    assert bad not in {pairing_of(m) for m in matches}
    player = InProcess()
    resumed = run_tournament_sync(store, record.id, player, slots=2)
    assert resumed.record.status is TournamentStatus.FINISHED and resumed.record.error is None
    assert (player.played[0].a.name, player.played[0].b.name) == (bad.a, bad.b)
    assert resumed.stats.played == plan.matches - playable
    assert resumed.standings == _sequential(plan, SHORT)


# --------------------------------------------------------------------------- the command line

ENTRANTS = ("random", "greedy-raider", "border-soldier")


def _played_from_match_json(pairing: Pairing, data: dict[str, Any]) -> Played:
    sides = data["sides"]
    kinds = tuple(
        None if s["forfeit"] is None else sim.ForfeitKind(s["forfeit"]["kind"]) for s in sides
    )
    return Played(
        pairing,
        winner=data["winner"],
        reason=sim.Reason(data["reason"]),
        banked=(sides[0]["banked"], sides[1]["banked"]),
        fuel_total=(sides[0]["fuel_total"], sides[1]["fuel_total"]),
        ticks=data["ticks"],
        forfeits=(kinds[0], kinds[1]),
    )


@pytest.mark.processes
def test_standings_agree_with_the_same_matches_played_one_by_one_with_arena_match(
    capsys: Capture, data_dir: Path, build_c: Builder, tmp_path: Path
) -> None:
    busy = tmp_path / "busy.wasm"
    busy.write_bytes(build_c(EXTRA / "busy.c"))
    entrants = (*ENTRANTS[:2], str(busy))
    args = ("--format", "round-robin", "--seeds", "2", "--max-ticks", "40", "--jobs", "2")
    out = cli(capsys, "tournament", *args, "--json", *entrants)
    assert out.code == 0, out.err
    report = out.json()
    assert {"id", "format", "matches", "standings"} <= report.keys()
    assert (report["format"], report["matches"], report["status"]) == (
        "round-robin",
        12,
        "finished",
    )
    for row in report["standings"]:
        assert {"rank", "name", "wins", "losses", "draws", "forfeits", "fuel_total"} <= row.keys()
        assert row["rating"].keys() == {"mu", "sigma", "ordinal"}
    with Store.open(data_dir) as store:
        record = store.tournament(report["id"])
        stored = {pairing_of(m): m for m in store.tournament_matches(record.id)}
        origins = {c.name: (c.origin, c.hidden) for c in store.controllers(include_hidden=True)}
    assert origins == {
        "random": (Origin.BASELINE, False),
        "greedy-raider": (Origin.BASELINE, False),
        "busy": (Origin.FILE, False),
    }
    paths = {"random": "random", "greedy-raider": "greedy-raider", "busy": str(busy)}
    played = []
    for pairing, match in stored.items():
        one = cli(
            capsys, "match", paths[pairing.a], paths[pairing.b], "--seed", str(pairing.seed),
            "--max-ticks", "40", "--json",
        )  # fmt: skip
        assert one.code == 0, one.err
        data = one.json()
        assert match.result is not None and data["replay_sha256"] == match.result.replay_sha256
        assert data["replay"] == str(data_dir / "replays" / f"{data['replay_sha256']}.replay")
        played.append(_played_from_match_json(pairing, data))
    plan = TournamentPlan(Format.ROUND_ROBIN, ("random", "greedy-raider", "busy"), (0, 1))
    standings = Scheduler(plan, played).standings().to_json()
    assert report["standings"] == standings["standings"]
    # arena standings prints the same; arena tournaments lists it.
    again = cli(capsys, "standings", str(report["id"]), "--json")
    assert again.code == 0 and again.json() == report
    listing = cli(capsys, "tournaments", "--json").json()["tournaments"]
    assert [(t["id"], t["status"], t["matches"], t["planned"]) for t in listing] == [
        (report["id"], "finished", 12, 12)
    ]
    assert listing[0]["leader"] == report["standings"][0]["name"]


def test_arena_match_records_its_match(capsys: Capture, data_dir: Path, tmp_path: Path) -> None:
    replay = tmp_path / "m.replay"
    args = ("fuel-probe", "random", "--max-ticks", "30", "--replay", str(replay), "--json")
    out = cli(capsys, "match", *args)
    assert out.code == 0, out.err
    data = out.json()
    assert data["replay"] == str(replay) and replay.is_file()
    with Store.open(data_dir) as store:
        match = store.match(data["id"])
        assert match.to_json(str(replay)) == data
        assert store.read_replay_bytes(data["replay_sha256"]) == replay.read_bytes()
        assert store.controller("fuel-probe").hidden  # a hidden baseline stays hidden
        assert store.controller("random").origin is Origin.BASELINE


@pytest.mark.processes
def test_the_commands_print_tables(capsys: Capture) -> None:
    args = ("--format", "gauntlet", "--max-ticks", "30", "--jobs", "1", *ENTRANTS)
    out = cli(capsys, "tournament", *args)
    assert out.code == 0, out.err
    assert "tournament 1: gauntlet, 3 entrants" in out.out and "finished, 4/4 matches" in out.out
    assert "random, the entrant, against each opponent" in out.out
    listed = cli(capsys, "tournaments")
    assert listed.code == 0 and "gauntlet" in listed.out and "4/4" in listed.out
    shown = cli(capsys, "standings", "1")
    assert shown.code == 0 and shown.out == out.out
    ranked = cli(capsys, "tournament", "--format", "round-robin", *args[2:])
    assert ranked.code == 0 and "row vs column" in ranked.out
    # Two entrants make a grid narrower than its title, which still takes one line.
    pair = cli(capsys, "tournament", "--format", "round-robin", *args[2:-1])
    assert pair.code == 0 and "row vs column: wins-losses(-draws)" in pair.out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--resume", "7"), "no tournament 7 in the store"),
        (("--format", "league", "random", "greedy-raider"), "format 'league' is not one of"),
        (("--format", "round-robin", "random"), "two entrants or more"),
        (("--format", "round-robin", "random", "random"), "'random' is in the field twice"),
        (("--format", "gauntlet", "no-such-bot", "random"), "neither a .wasm file nor a baseline"),
    ],
)
def test_operator_errors_exit_2(capsys: Capture, args: tuple[str, ...], message: str) -> None:
    out = cli(capsys, "tournament", *args)
    assert out.code == 2 and message in out.err, out.err


@pytest.mark.processes
def test_without_format_a_tournament_takes_the_cases_structure(capsys: Capture) -> None:
    """The case's [match] structure says how it runs a field of submissions."""
    structure = str(arena.default_case().match.structure)
    out = cli(capsys, "tournament", "--max-ticks", "5", "--json", "random", "greedy-raider")
    assert out.code == 0, out.err
    assert out.json()["format"] == structure == "round-robin"


# Rich draws the bar as it goes: erase the line, draw it again (an escape, then text).
_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_BAR = re.compile(
    r"tournament (?P<id>\d+) [━╺╸ ]*(?P<done>\d+)/(?P<total>\d+) "
    r"(?:(?P<rate>\d+\.\d) matches/s )?(?P<left>\d+:\d\d:\d\d|-:--:--) "
    r"leader: (?P<leader>\S+)$"
)


def _on_a_terminal(data_dir: Path, *args: str) -> tuple[int, bytes, str]:
    """``arena ARGS`` with a pseudo-terminal of 160 columns as its stdin and stdout (stderr
    apart): the exit code, everything the terminal received, and stderr."""
    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 160, 0, 0))
    # What would make rich decide for itself, whatever the terminal, is left out.
    forcing = ("FORCE_COLOR", "NO_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "COLUMNS", "LINES")
    env = {k: v for k, v in os.environ.items() if k not in forcing}
    env.update(FORAY_DATA_DIR=str(data_dir), TERM="xterm-256color")
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "arena", *args],
            stdin=terminal,
            stdout=terminal,
            stderr=err,
            env=env,
            start_new_session=True,
        )
        os.close(terminal)
        received = bytearray()
        deadline = time.monotonic() + 120
        try:
            while time.monotonic() < deadline:
                if select.select([controller], [], [], 1.0)[0]:
                    try:
                        chunk = os.read(controller, 65536)
                    except OSError:  # EIO: every process holding the terminal has closed it
                        break
                    if not chunk:
                        break
                    received += chunk
            code = proc.wait(timeout=60)
        finally:
            os.close(controller)
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        err.seek(0)
        return code, bytes(received), err.read().decode()


@pytest.mark.processes
def test_on_a_terminal_a_progress_bar_shows_the_tournament_as_it_plays(
    capsys: Capture, data_dir: Path
) -> None:
    # Long enough to be drawn while it plays, however quick the matches (the native core).
    args = ("--format", "round-robin", "--seeds", "16", "--max-ticks", "400", "--jobs", "1")
    code, received, err = _on_a_terminal(data_dir, "tournament", *args, *BASELINE_FIELD)
    assert code == 0, err
    shown = _ESCAPE.sub("", received.decode())
    bars = [m for line in re.split(r"[\r\n]+", shown) if (m := _BAR.search(line.rstrip()))]
    assert bars, shown[-2000:]
    done = [int(m["done"]) for m in bars]
    total = 16 * 12
    assert done == sorted(done) and {int(m["total"]) for m in bars} == {total}
    # Drawn while it played: matches done of the total, a rate, the time left, the leader.
    playing = [
        m for m in bars if 0 < int(m["done"]) < total and m["rate"] and m["left"] != "-:--:--"
    ]
    assert playing, [m.group(0) for m in bars]
    assert all(m["leader"] in BASELINE_FIELD for m in bars)
    last = bars[-1]
    assert (last["done"], last["left"]) == (str(total), "0:00:00") and float(last["rate"]) > 0
    standings = cli(capsys, "standings", last["id"], "--json").json()["standings"]
    assert last["leader"] == standings[0]["name"]  # the leader at the end is the winner
    assert "row vs column" in shown  # then the tables


@pytest.mark.processes
def test_on_a_terminal_json_is_all_that_stdout_gets(capsys: Capture, data_dir: Path) -> None:
    args = ("--format", "gauntlet", "--max-ticks", "30", "--jobs", "1", "--json", *ENTRANTS)
    code, received, err = _on_a_terminal(data_dir, "tournament", *args)
    assert code == 0, err
    assert b"\x1b" not in received  # no bar, no cursor hidden and shown again
    data = json.loads(received.decode())  # the whole of it (the terminal's \r\n is whitespace)
    assert data == cli(capsys, "standings", str(data["id"]), "--json").json()


RESUMED = ("random", "border-soldier", "greedy-raider")
RESUMED_ARGS = ("--format", "bracket", "--seeds", "2", "--shuffle", "7", "--max-ticks", "30")


def _created_as_by_resumed_args(store: Store) -> int:
    """The tournament ``arena tournament RESUMED_ARGS RESUMED`` creates, stored, nothing played."""
    field = _field(store, RESUMED)
    rules = default_case().rules.replace(max_ticks=30)
    return create_tournament(store, "bracket", field, seeds=(0, 1), shuffle=7, config=rules).id


@pytest.mark.processes
def test_resume_takes_the_arguments_that_created_the_tournament(
    capsys: Capture, data_dir: Path
) -> None:
    """The design's ``arena tournament --format ... [--resume ID] ... A B C``: a user may
    repeat the command that created the tournament; what matches what is stored goes on."""
    with Store.open(data_dir) as store:
        tid = _created_as_by_resumed_args(store)
    args = ("--resume", str(tid), "--jobs", "1", "--json")
    out = cli(capsys, "tournament", *RESUMED_ARGS, *args, *RESUMED)
    assert out.code == 0, out.err
    data = out.json()
    assert (data["id"], data["status"], data["format"]) == (tid, "finished", "bracket")
    assert data["matches"] == data["total"] == 8 and data["seeds"] == [0, 1]
    with Store.open(data_dir) as store:
        assert [t.id for t in store.tournaments()] == [tid]  # no second tournament
        matches = store.tournament_matches(tid)
        assert {m.result.ticks for m in matches if m.result is not None} <= set(range(31))
    # Some of them, or none, as well: the rest is as stored (the field included).
    again = cli(capsys, "tournament", "--format", "bracket", "--seeds", "2", *args)
    assert again.code == 0 and again.json() == data, again.err


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"--format": "swiss"}, "--format swiss (created as bracket)"),
        ({"--seeds": "3"}, "--seeds 3 (created with --seeds 2)"),
        ({"--shuffle": "8"}, "--shuffle 8 (created with 7)"),
        ({"--max-ticks": "31"}, "--max-ticks 31 (created with 30)"),
        ({"--rounds": "2"}, "--rounds 2 (created with none)"),
        (
            {"field": ("random", "greedy-raider", "border-soldier")},
            "the entrants random, greedy-raider, border-soldier (created with random, "
            "border-soldier, greedy-raider, in that order)",
        ),
        ({"field": ("random", "border-soldier")}, "the entrants random, border-soldier ("),
        ({"field": "a file named random.wasm"}, "the module of random (not the one the"),
    ],
)
def test_resume_refuses_arguments_that_differ_from_the_tournament(
    capsys: Capture, data_dir: Path, tmp_path: Path, idle: bytes, change: dict[str, Any],
    message: str,
) -> None:  # fmt: skip
    with Store.open(data_dir) as store:
        tid = _created_as_by_resumed_args(store)
    options = dict(zip(RESUMED_ARGS[::2], RESUMED_ARGS[1::2], strict=True))
    options.update({k: v for k, v in change.items() if k != "field"})
    field = change.get("field", RESUMED)
    if field == "a file named random.wasm":  # the same name, another module
        (tmp_path / "random.wasm").write_bytes(idle)
        field = (str(tmp_path / "random.wasm"), *RESUMED[1:])
    args = [x for pair in options.items() for x in pair]
    out = cli(capsys, "tournament", *args, "--resume", str(tid), *field)
    assert out.code == 2, out.err
    assert f"--resume plays tournament {tid} as it was created, and these differ: " in out.err
    assert message in out.err and "give them as they were, or leave them out" in out.err
    with Store.open(data_dir) as store:
        assert store.tournament(tid).matches == 0 and len(store.tournaments()) == 1
        stored = {c.sha256 for c in store.controllers(include_hidden=True)}
    assert hashlib.sha256(idle).hexdigest() not in stored  # refused before storing anything


def _tournament_process(data_dir: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "FORAY_DATA_DIR": str(data_dir)}
    return subprocess.Popen(
        [sys.executable, "-m", "arena", "tournament", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its workers in its process group, like a terminal's job
    )


def _wait_for_matches(data_dir: Path, proc: subprocess.Popen[str], at_least: int) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if (data_dir / "arena.sqlite3").exists():
            with Store.open(data_dir) as store:
                if store.tournaments() and store.tournaments()[0].matches >= at_least:
                    return
        time.sleep(0.02)
    raise AssertionError(f"no {at_least} matches recorded: {proc.communicate()[1][-2000:]}")


# Long enough that a stop after the first results lands while matches remain, however
# quick the matches (the native core plays these in a few milliseconds each).
KILLED_ARGS = ("--format", "round-robin", "--seeds", "8", "--max-ticks", "200", "--jobs", "1")
KILLED_MATCHES = 96


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The JSON of the tournament the kill tests stop, played without a stop."""
    with pytest.MonkeyPatch.context() as mp, contextlib.redirect_stdout(io.StringIO()) as out:
        mp.setenv("FORAY_DATA_DIR", str(tmp_path_factory.mktemp("data")))
        assert main(["tournament", *KILLED_ARGS, "--json", *BASELINE_FIELD]) == 0
    data: dict[str, Any] = json.loads(out.getvalue())
    return data


@pytest.mark.processes
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT], ids=["SIGKILL", "SIGINT"])
def test_a_stopped_arena_tournament_resumes_to_the_same_standings(
    capsys: Capture, data_dir: Path, uninterrupted: dict[str, Any], sig: signal.Signals
) -> None:
    proc = _tournament_process(data_dir, *KILLED_ARGS, "--json", *BASELINE_FIELD)
    _wait_for_matches(data_dir, proc, 2)
    os.killpg(proc.pid, sig)  # the whole job, workers too, as a terminal's Ctrl-C does
    out, err = proc.communicate(timeout=60)
    with Store.open(data_dir) as store:
        (record,) = store.tournaments()
    assert record.status is TournamentStatus.RUNNING
    assert 2 <= record.matches < KILLED_MATCHES
    if sig is signal.SIGINT:
        assert proc.returncode == 130 and out == ""
        assert f"play what is missing with: arena tournament --resume {record.id}" in err
    else:
        assert proc.returncode == -signal.SIGKILL
    resumed = cli(capsys, "tournament", "--resume", str(record.id), "--json")
    assert resumed.code == 0, resumed.err
    data = resumed.json()
    assert data["matches"] == KILLED_MATCHES
    assert data["standings"] == uninterrupted["standings"]
    with Store.open(data_dir) as store:
        matches = store.tournament_matches(record.id)
    assert len(matches) == len({m.pairing_key for m in matches}) == KILLED_MATCHES


# --------------------------------------------------------------------------- Ray

RAY_ARGS = ("--format", "round-robin", "--max-ticks", "40", "--json", *ENTRANTS)


@pytest.mark.ray
@pytest.mark.processes
def test_ray_gives_the_standings_of_the_local_executor(capsys: Capture, tmp_path: Path) -> None:
    """A local Ray, started by the ``arena tournament`` process the test starts.

    No process plays wasm after ``ray.init`` (Ray's crash handlers would take
    wasmtime's): the Ray driver is the coordinator in its own process, which
    plays nothing itself.
    """
    env = {**os.environ, "FORAY_DATA_DIR": str(tmp_path / "ray-data")}
    env.pop("FORAY_RAY_ADDRESS", None)
    proc = subprocess.run(
        [sys.executable, "-m", "arena", "tournament", "--executor", "ray", *RAY_ARGS],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    on_ray = json.loads(proc.stdout)  # only the JSON on stdout
    local = cli(capsys, "tournament", "--executor", "local", "--jobs", "2", *RAY_ARGS)
    assert local.code == 0, local.err
    assert on_ray["standings"] == local.json()["standings"] and on_ray["matches"] == 6
    with Store.open(tmp_path / "ray-data") as ray_store:
        ray_replays = {
            m.result.replay_sha256 for m in ray_store.tournament_matches(1) if m.result is not None
        }
    with Store.open() as store:
        local_replays = {
            m.result.replay_sha256 for m in store.tournament_matches(1) if m.result is not None
        }
    assert ray_replays == local_replays and len(ray_replays) == 6


# Python as a default install (no Ray extra) sees it: every finder of modules as it is,
# except that none finds ray. Then the arena's command line, as ``python -m arena``.
_WITHOUT_RAY = """
import importlib.util, runpy, sys

class WithoutRay:
    def __init__(self, finder):
        self.finder = finder
    def find_spec(self, name, path=None, target=None):
        if name == "ray" or name.startswith("ray."):
            return None
        return self.finder.find_spec(name, path, target)
    def __getattr__(self, name):
        return getattr(self.finder, name)

sys.meta_path[:] = [WithoutRay(finder) for finder in sys.meta_path]
assert importlib.util.find_spec("ray") is None and "ray" not in sys.modules
try:
    import ray
except ModuleNotFoundError:
    pass
else:
    raise SystemExit("ray can still be imported")
sys.argv[0] = "arena"
runpy.run_module("arena", run_name="__main__", alter_sys=True)
"""


@pytest.mark.ray
@pytest.mark.parametrize("how", ["--executor ray", "FORAY_RAY_ADDRESS"])
def test_without_ray_the_ray_executor_is_refused_before_anything_is_stored(
    data_dir: Path, how: str
) -> None:
    env = {**os.environ, "FORAY_DATA_DIR": str(data_dir)}
    env.pop("FORAY_RAY_ADDRESS", None)
    args = ["tournament", "--format", "round-robin", "--max-ticks", "20", *ENTRANTS]
    if how == "FORAY_RAY_ADDRESS":
        env["FORAY_RAY_ADDRESS"] = "127.0.0.1:6379"  # never reached
    else:
        args[1:1] = ["--executor", "ray"]
    proc = subprocess.run(
        [sys.executable, "-c", _WITHOUT_RAY, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    assert proc.stderr == 'error: the Ray executor needs Ray: pip install -e ".[ray]"\n'
    if (data_dir / "arena.sqlite3").exists():
        with Store.open(data_dir) as store:
            assert store.tournaments() == [] and store.controllers(include_hidden=True) == []
    # The same Python plays it locally: what it refused was Ray alone.
    local = subprocess.run(
        [sys.executable, "-c", _WITHOUT_RAY, *args, "--executor", "local", "--jobs", "1", "--json"],
        env={**env, "FORAY_RAY_ADDRESS": ""},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert local.returncode == 0, local.stderr
    assert json.loads(local.stdout)["matches"] == 6


# A Ray cluster of its own: a driver that started it keeps it up until its stdin closes,
# then says how many drivers (jobs) it served.
_CLUSTER = """
import sys, ray
from ray._private.state import state
ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
print(ray.get_runtime_context().gcs_address, flush=True)
sys.stdin.read()
print(len(state.job_table()), flush=True)
ray.shutdown()
"""


@pytest.mark.ray
@pytest.mark.processes
def test_the_cluster_foray_ray_address_names_plays_the_tournament(
    capsys: Capture, tmp_path: Path
) -> None:
    """``$FORAY_RAY_ADDRESS`` alone (no ``--executor``) sends the matches to that cluster.

    The cluster runs with Ray's token authentication (the default from Ray 2.59), so the
    arena's driver needs the cluster's token as Ray reads it: ``$RAY_AUTH_TOKEN``.
    """
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(16)}
    cluster = subprocess.Popen(
        [sys.executable, "-c", _CLUSTER],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert cluster.stdout is not None
        address = cluster.stdout.readline().strip()
        assert address, "the cluster did not start"
        proc = subprocess.run(
            [sys.executable, "-m", "arena", "tournament", *RAY_ARGS],
            env={**env, "FORAY_RAY_ADDRESS": address, "FORAY_DATA_DIR": str(tmp_path / "d")},
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        jobs, _ = cluster.communicate("", timeout=120)
    finally:
        if cluster.poll() is None:
            cluster.kill()
            cluster.wait(timeout=30)
    assert proc.returncode == 0, proc.stderr[-3000:]
    # Two drivers on that cluster: the one that started it and the arena's (no Ray of its own).
    assert int(jobs.split()[-1]) == 2
    local = cli(capsys, "tournament", "--executor", "local", "--jobs", "2", *RAY_ARGS)
    assert json.loads(proc.stdout)["standings"] == local.json()["standings"]


def _child_named(pid: int, name: str) -> int | None:
    """The pid of a child of process ``pid`` whose command is ``name`` or begins its command
    line (from /proc)."""
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            with contextlib.suppress(OSError):
                comm = Path(f"/proc/{child}/comm").read_text().strip()
                line = Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")[0]
                if name in (comm, line.decode(errors="replace")[: len(name)]):
                    return int(child)
    return None


def _recorded(data: Path) -> int:
    """Matches in the store of ``data`` now (read-only: the arena writes it meanwhile)."""
    import sqlite3

    path = data / "arena.sqlite3"
    if not path.exists():
        return 0
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            return int(db.execute("SELECT count(*) FROM matches").fetchone()[0])
    except sqlite3.OperationalError:  # not made yet
        return 0


LOST_ARGS = ("--format", "round-robin", "--seeds", "100", "--max-ticks", "60", *ENTRANTS)


@pytest.mark.ray
@pytest.mark.processes
@pytest.mark.slow
@pytest.mark.parametrize("what", ["raylet", "gcs_server"])
def test_a_lost_ray_node_stops_the_tournament_with_what_was_played_recorded(
    capsys: Capture, tmp_path: Path, what: str
) -> None:
    """The local Ray's raylet (or GCS) killed mid-tournament: the driver notices within
    seconds (Ray's own would wait a minute for the GCS, then end the process), records
    every match that came back, marks the tournament failed with the reason and exits 2;
    ``--resume`` plays the rest, to the standings of a run never stopped."""
    data = tmp_path / "ray-data"
    env = {**os.environ, "FORAY_DATA_DIR": str(data)}
    env.pop("FORAY_RAY_ADDRESS", None)
    on_ray = ["tournament", "--executor", "ray", "--jobs", "2", *LOST_ARGS, "--json"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", *on_ray],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 240
        while _recorded(data) < 3 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        victim = _child_named(proc.pid, what)
        assert victim is not None and proc.poll() is None, f"no {what} to kill"
        os.kill(victim, signal.SIGKILL)
        killed = time.monotonic()
        out, err = proc.communicate(timeout=60)
        noticed = time.monotonic() - killed
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
    # (Ray itself prints the raylet's death on stdout; no JSON is printed.)
    assert proc.returncode == 2 and '"standings"' not in out, err[-3000:]
    # Well within Ray's own minute (the watch checks every second).
    assert noticed < 30, noticed
    (line,) = [x for x in err.splitlines() if x.startswith("error: ")]
    # The reason: the process's port refusing connections, mostly; a GCS killed mid-answer
    # may first go unanswered.
    assert line.startswith("error: tournament 1 stopped: the Ray cluster was lost: the ")
    assert "gone" in line or "did not answer within 10 s" in line, line
    assert "arena tournament --resume 1 plays them" in line
    with Store.open(data) as store:
        record = store.tournament(1)
        recorded = len(store.tournament_matches(1))
    assert record.status is TournamentStatus.FAILED and record.error is not None
    assert "RayNodeLostError" not in record.error and "the Ray cluster was lost" in record.error
    assert f"the {recorded} match(es) played are recorded" in line and 3 <= recorded < 600
    # The rest, here on local workers (the executor is the run's own, never stored).
    resumed = subprocess.run(
        [
            sys.executable,
            "-m",
            "arena",
            "tournament",
            "--resume",
            "1",
            "--executor",
            "local",
            "--json",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    local = cli(capsys, "tournament", "--executor", "local", "--jobs", "2", *LOST_ARGS, "--json")
    assert json.loads(resumed.stdout)["standings"] == local.json()["standings"]
    assert json.loads(resumed.stdout)["matches"] == 600


@pytest.mark.ray
@pytest.mark.processes
@pytest.mark.slow
def test_a_lost_ray_node_stops_an_unrecorded_tournament_with_the_reason(tmp_path: Path) -> None:
    """``--no-record`` has nothing to keep, but says what stopped it the same way (exit 2)."""
    env = {**os.environ, "FORAY_DATA_DIR": str(tmp_path / "d")}
    env.pop("FORAY_RAY_ADDRESS", None)
    args = ["tournament", "--executor", "ray", "--jobs", "2", "--no-record", *LOST_ARGS]
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 240
        raylet = None
        while raylet is None and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
            raylet = _child_named(proc.pid, "raylet")
        assert raylet is not None, "no raylet to kill"
        # Its workers playing: a grandchild of the command named for the task.
        while proc.poll() is None and time.monotonic() < deadline:
            if _child_named(raylet, "ray::_play_by_reference") is not None:
                break
            time.sleep(0.1)
        os.kill(raylet, signal.SIGKILL)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
    assert proc.returncode == 2, err[-3000:]
    (line,) = [x for x in err.splitlines() if x.startswith("error: ")]
    assert line.startswith("error: the Ray cluster was lost: the driver's raylet at "), line


# --------------------------------------------------------------------------- the benchmark


@pytest.mark.processes
@pytest.mark.slow
def test_the_tournament_bench_runs(capsys: Capture) -> None:
    """A smoke test: short matches, one seed, no Ray (figures are printed, never asserted)."""
    from arena.bench import tournament_figures

    tournament_figures(1, seeds=(1, 1), ray=False, loop_seconds=0.02, max_ticks=10)
    out = capsys.readouterr().out
    assert "12 matches" in out and "coordinator and store, 1 local worker" in out
    assert "beside the machine's own" in out and "time not spent inside matches" in out
    assert "of the loop's scaling" in out or "cannot be judged" in out
    assert "load average (1, 5, 15 minutes)" in out
    assert "store per match (1 worker)" in out and "Ray" in out and "left out" in out


def test_the_speed_up_is_judged_only_where_the_machine_itself_scales() -> None:
    """The tournament's speed-up is printed beside the machine's own scaling, as a share of
    it only when the machine's loop reached ``JUDGED_SCALING`` of perfect (1.3x at 2)."""
    from arena.bench import JUDGED_SCALING, scaling_verdict

    assert JUDGED_SCALING == 0.65
    busy = scaling_verdict(1.10, 1.06, 1.04, 2)
    assert busy.startswith("speed-up at 2 workers: 1.10x, beside the machine's own 1.06x")
    assert "cannot be judged, the machine's own loop scaled under 1.30x" in busy
    assert "%" not in busy.replace("65%", "")
    quiet = scaling_verdict(1.85, 1.95, 1.90, 2)
    assert "95% of the loop's scaling (goal: >= 90%), 97% of the matches' own" in quiet
    assert "cannot be judged" in scaling_verdict(3.0, 2.5, 2.5, 4)  # under 2.60x at 4
    assert "cannot be judged" in scaling_verdict(1.9, float("nan"), 1.9, 2)
