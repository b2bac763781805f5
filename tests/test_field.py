"""The field (issue 26), pure: a round-robin that grows, one entrant at a time.

No wasm here: ``tests.test_tournament.outcome`` draws each match's result from its key,
so a field grown entrant by entrant can be compared with a round-robin of the same
entrants, result for result.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
import trio
from hypothesis import given, settings, strategies as st

import arena
from arena.cases import default_case
from arena.coordinator import run_tournament_sync
from arena.store import Origin, Store
from arena.tournament import (
    Format,
    Pairing,
    Played,
    ScheduleMismatchError,
    Scheduler,
    TournamentPlan,
    TournamentSetupError,
)
from tests._support import cli, controller, examples, proof_run
from tests.test_coordinator import InProcess
from tests.test_tournament import names, outcome, seed_lists


def grow(
    field: tuple[str, ...], seeds: tuple[int, ...], salt: int
) -> tuple[Scheduler, list[Played]]:
    """A field started with its first entrant, each later one entering once the matches
    before it are played (as a site's field does when pushes come one by one)."""
    sched = Scheduler(TournamentPlan(Format.FIELD, field[:1], seeds))
    log: list[Played] = []
    for name in field[1:]:
        sched.add_entrant(name)
        for p in list(sched.ready()):
            log.append(outcome(p, salt))
            sched.record(log[-1])
    return sched, log


def counts(sched: Scheduler) -> dict[str, tuple[int, ...]]:
    """Each entrant's counts, ratings apart: wins, losses, draws, forfeits, errors, fuel."""
    return {
        r.name: (r.wins, r.losses, r.draws, r.forfeits, r.errors, r.fuel_total, r.banked)
        for r in sched.standings().rows
    }


def test_a_newcomer_meets_each_earlier_entrant_on_every_seed_and_side() -> None:
    plan = TournamentPlan(Format.FIELD, ("a", "b", "c"), (5, 9))
    got = sorted((p.round, p.slot, p.seed, p.a, p.b) for p in plan.scheduler().ready())
    # stage k-1 is entrant k's; round = stage * 2S + 2 * seed_index + side; slot = the earlier one
    assert got == [
        (0, 0, 5, "a", "b"), (1, 0, 5, "b", "a"), (2, 0, 9, "a", "b"), (3, 0, 9, "b", "a"),
        (4, 0, 5, "a", "c"), (4, 1, 5, "b", "c"), (5, 0, 5, "c", "a"), (5, 1, 5, "c", "b"),
        (6, 0, 9, "a", "c"), (6, 1, 9, "b", "c"), (7, 0, 9, "c", "a"), (7, 1, 9, "c", "b"),
    ]  # fmt: skip
    assert plan.matches == len(got) == 3 * 2 // 2 * 4 and plan.stages == 2


@settings(max_examples=examples(40), deadline=None)
@given(field=names, seeds=seed_lists)
def test_keys_never_change_as_the_field_grows(field: list[str], seeds: list[int]) -> None:
    before: set[Pairing] = set()
    for n in range(1, len(field) + 1):
        now = set(TournamentPlan(Format.FIELD, tuple(field[:n]), tuple(seeds)).scheduler().ready())
        assert before <= now  # every match of the smaller field is there, as it was
        new = now - before
        assert {e for p in new for e in p.names} <= set(field[:n]) and all(
            field[n - 1] in p.names for p in new
        )
        assert len(new) == (n - 1) * 2 * len(seeds)
        before = now


@settings(max_examples=examples(40), deadline=None)
@given(field=names, seeds=seed_lists, salt=st.integers(0, 2**16))
def test_the_field_plays_the_matches_of_a_round_robin_and_counts_them_alike(
    field: list[str], seeds: list[int], salt: int
) -> None:
    """As a set of (seed, side A, side B), a field's matches are a round-robin's; since a
    match's result is drawn from what it is, the counts and the rank order by wins are the
    same (only the ratings differ: they take the matches in each schedule's order)."""
    grown, log = grow(tuple(field), tuple(seeds), salt)
    robin = TournamentPlan(Format.ROUND_ROBIN, tuple(field), tuple(seeds)).scheduler()
    robin_matches = list(robin.ready())
    assert sorted((p.seed, p.a, p.b) for p in robin_matches) == sorted(
        (p.pairing.seed, p.pairing.a, p.pairing.b) for p in log
    )
    by_match = {(p.pairing.seed, p.pairing.a, p.pairing.b): p for p in log}
    for p in robin_matches:  # the round-robin's match, with the field's result of it
        r = by_match[(p.seed, p.a, p.b)]
        robin.record(
            Played(p, r.winner, r.reason, r.banked, r.fuel_total, r.ticks, r.forfeits, r.error)
        )
    assert grown.finished and robin.finished
    assert counts(grown) == counts(robin)
    assert [r.name for r in grown.standings().rows] == [r.name for r in robin.standings().rows]
    assert grown.standings().matrix == robin.standings().matrix


@settings(max_examples=examples(50), deadline=None)
@given(field=names, seeds=seed_lists, salt=st.integers(0, 2**16), data=st.data())
def test_the_order_of_results_does_not_matter(
    field: list[str], seeds: list[int], salt: int, data: st.DataObject
) -> None:
    """Results recorded in any order, entrants added at any point between them (a site
    resumed from its store, a push arriving mid-way), give the very same standings,
    ratings included."""
    whole, log = grow(tuple(field), tuple(seeds), salt)
    shuffled = data.draw(st.permutations(log))
    sched = Scheduler(TournamentPlan(Format.FIELD, tuple(field[:1]), tuple(seeds)))
    present = 1
    for played in shuffled:
        need = max(field.index(n) for n in played.pairing.names) + 1
        # a result comes only once its entrants are in; others may enter early
        while present < len(field) and (present < need or data.draw(st.booleans())):
            sched.add_entrant(field[present])
            present += 1
        sched.record(played)
    for name in field[present:]:
        sched.add_entrant(name)
    assert sched.standings() == whole.standings()
    assert Scheduler(
        TournamentPlan(Format.FIELD, tuple(field), tuple(seeds)), shuffled
    ).standings() == (whole.standings())


def test_a_newcomer_is_scheduled_after_what_is_missing_without_rereading_results() -> None:
    field = tuple(f"c{i}" for i in range(6))
    sched, log = grow(field[:5], (1,), 3)
    assert sched.finished and sched.recorded == len(log) == 5 * 4
    assert sched._done == {} and sched._count == {}  # complete rounds keep no flags
    sched.add_entrant("c5")
    assert not sched.finished and sched.total == 6 * 5
    ready = list(sched.ready())
    assert len(ready) == 5 * 2 and all("c5" in p.names for p in ready)
    with pytest.raises(ScheduleMismatchError, match="recorded twice"):
        sched.record(log[0])


def test_what_a_field_refuses() -> None:
    plan = TournamentPlan(Format.FIELD, ("only",), (0,))  # a field may start with one entrant
    sched = plan.scheduler()
    assert sched.finished and sched.standings().rows[0].name == "only"
    with pytest.raises(TournamentSetupError, match="twice"):
        sched.add_entrant("only")
    with pytest.raises(TournamentSetupError, match="non-empty"):
        sched.add_entrant("")
    with pytest.raises(TournamentSetupError, match="an entrant or more"):
        TournamentPlan(Format.FIELD, (), (0,))
    robin = TournamentPlan(Format.ROUND_ROBIN, ("a", "b"), (0,)).scheduler()
    with pytest.raises(TournamentSetupError, match="only a field"):
        robin.add_entrant("c")
    assert TournamentPlan.from_json(plan.to_json()) == plan


# --------------------------------------------------------------------------- the store


SHORT_CASE = msgspec.structs.replace(
    default_case(), rules=default_case().rules.replace(width=20, height=20, max_ticks=40)
)


@pytest.fixture
def store(data_dir: Path) -> Iterator[Store]:
    with Store.open(data_dir) as opened:
        yield opened


def upload(store: Store, pages: int, name: str) -> str:
    """A stored controller (an upload's module, told apart by its memory pages): its sha256."""
    return store.add_controller(controller(pages=pages), name=name, origin=Origin.UPLOAD).sha256


def test_one_field_per_case_version_made_with_every_baseline(store: Store) -> None:
    record = arena.open_field(store, SHORT_CASE)
    assert record.format == "field" and str(record.status) == "running" and record.published
    assert [e.name for e in record.field] == [o.name for o in SHORT_CASE.opponents]
    assert "fuel-probe" in [e.name for e in record.field]  # the hidden one plays too
    assert record.seeds == SHORT_CASE.match.seeds
    assert record.options["rules"] == {"width": 20, "height": 20, "max_ticks": 40}
    assert arena.open_field(store, SHORT_CASE).id == record.id
    assert store.field_id("foray", 1) == record.id and store.field_id("foray", 2) is None
    with pytest.raises(arena.ArenaError, match="not started by hand"):
        arena.create_tournament(store, "field", list(record.field))


def test_entrants_are_appended_once_per_module_and_a_taken_name_gets_the_sha256(
    store: Store,
) -> None:
    tid = arena.open_field(store, SHORT_CASE).id
    a, b = upload(store, 3, "bot"), upload(store, 4, "bot-b")
    first = arena.enter_field(store, SHORT_CASE, "bot", a)
    assert (first.entrant.name, first.position, first.new) == ("bot", 4, True)
    again = arena.enter_field(store, SHORT_CASE, "bot", a)
    assert (again.entrant, again.position, again.new) == (first.entrant, 4, False)
    other = store.enter_field(tid, "bot", b)
    assert other.entrant.name == f"bot@{b[:8]}" and other.position == 5
    assert [e.name for e in store.field_entrants(tid, start=4)] == ["bot", f"bot@{b[:8]}"]
    robin = arena.create_tournament(store, "round-robin", list(store.tournament(tid).field[:2]))
    with pytest.raises(arena.ArenaError, match="not a field"):
        store.enter_field(robin.id, "bot", a)
    with pytest.raises(arena.NotInStoreError):
        store.enter_field(tid, "ghost", "0" * 64)


def test_a_withdrawal_is_recorded_while_the_field_runs_and_undone(store: Store) -> None:
    tid = arena.open_field(store, SHORT_CASE).id
    with pytest.raises(arena.ArenaError, match="reason"):
        store.withdraw_entrant(tid, "random", "  ")
    with pytest.raises(arena.ArenaError, match="no entrant 'nobody'"):
        store.withdraw_entrant(tid, "nobody", "why not")
    record = store.withdraw_entrant(tid, "random", "plays at random")
    assert [(x.name, x.reason) for x in record.excluded] == [("random", "plays at random")]
    assert store.withdrawn(tid) == {"random"}
    with pytest.raises(arena.ArenaError, match="already"):
        store.withdraw_entrant(tid, "random", "again")
    summary = store.field_summary(tid)
    assert (summary.entrants, summary.played, summary.total) == (3, 0, 6)
    assert store.reinstate_entrant(tid, "random").excluded == ()
    with pytest.raises(arena.ArenaError, match="not withdrawn"):
        store.reinstate_entrant(tid, "random")


@pytest.mark.processes
def test_published_runs_that_could_compete_are_found_to_enter(store: Store, tmp_path: Path) -> None:
    """A run recorded and the server killed before it entered the field: found at the next
    start. Runs that could not compete, and unpublished ones, are not."""
    module = tmp_path / "late.wasm"
    module.write_bytes(controller(pages=5))
    run = proof_run(store, module, "late", SHORT_CASE)
    sha = upload(store, 6, "broken")
    store.record_run(
        case_slug="foray", case_version=1, manifest_sha256="0" * 64, controller="broken",
        controller_sha256=sha, outcome=arena.RunOutcome.COULD_NOT_COMPETE, reason="no",
        build_log="", matches=(), published=True,
    )  # fmt: skip
    assert arena.enter_waiting_runs(store, SHORT_CASE) == []  # no field made for nothing
    assert store.field_id("foray", 1) is None
    store.publish_run(run.id)
    entered = arena.enter_waiting_runs(store, SHORT_CASE)
    assert [(e.entrant.name, e.position, e.new) for e in entered] == [("late", 4, True)]
    assert arena.enter_waiting_runs(store, SHORT_CASE) == []


# --------------------------------------------------------------------------- the coordinator


async def _play_until(store: Store, tid: int, player: InProcess, done: int) -> None:
    """``play_field`` until ``done`` matches are recorded, then stopped (as a server is)."""
    signal = arena.FieldSignal()
    async with trio.open_nursery() as nursery:

        async def idle() -> None:
            if store.tournament(tid).matches >= done:
                nursery.cancel_scope.cancel()

        nursery.start_soon(
            functools.partial(
                arena.play_field, store, tid, player, slots=2, signal=signal, on_idle=idle
            )
        )


@pytest.mark.slow
def test_a_field_plays_each_newcomer_once_and_counts_as_a_recount(store: Store) -> None:
    field = arena.open_field(store, SHORT_CASE)
    tid = field.id
    trio.run(_play_until, store, tid, InProcess(), 12)
    assert store.tournament(tid).matches == 4 * 3 // 2 * 2
    arena.enter_field(store, SHORT_CASE, "bot", upload(store, 3, "bot"))
    store.withdraw_entrant(tid, "greedy-raider", "for the test")
    player = InProcess(1)
    trio.run(_play_until, store, tid, player, 12 + 6)
    assert len(player.played) == 6  # the newcomer against each one not withdrawn, both sides
    assert all("bot" in (j.a.name, j.b.name) for j in player.played)
    assert "greedy-raider" not in {n for j in player.played for n in (j.a.name, j.b.name)}
    data = arena.field_json(store, tid)
    assert data["matches"] == {"played": 12, "pending": 0, "total": 12}
    assert [w["name"] for w in data["withdrawn"]] == ["greedy-raider"]
    assert {r["name"]: r["pending"] for r in data["standings"]} == dict.fromkeys(
        ("random", "border-soldier", "fuel-probe", "bot"), 0
    )
    # Undone: its meetings with the newcomer are played, and nothing else again.
    store.reinstate_entrant(tid, "greedy-raider")
    assert arena.field_json(store, tid)["matches"]["pending"] == 2
    player = InProcess(2)
    trio.run(_play_until, store, tid, player, 12 + 6 + 2)
    assert {(j.a.name, j.b.name) for j in player.played} == {
        ("greedy-raider", "bot"), ("bot", "greedy-raider")
    }  # fmt: skip
    keys = [m.pairing_key for m in store.tournament_matches(tid)]
    assert len(keys) == len(set(keys)) == 20
    data = arena.field_json(store, tid)
    assert data["matches"] == {"played": 20, "pending": 0, "total": 20}
    assert all(r["played"] == 8 and r["pending"] == 0 for r in data["standings"])
    assert [r["baseline"] for r in data["standings"] if r["name"] == "bot"] == [False]
    assert str(store.tournament(tid).status) == "running"  # a field never finishes


# --------------------------------------------------------------------------- the command line


@pytest.mark.slow
def test_arena_field_prints_the_standings_and_withdraws(
    capsys: pytest.CaptureFixture[str], data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Store.open(data_dir) as store:
        tid = arena.open_field(store, SHORT_CASE).id
        arena.enter_field(store, SHORT_CASE, "a-rather-long-controller-name", upload(store, 3, "x"))
        trio.run(_play_until, store, tid, InProcess(), 20)
        api = arena.field_json(store, tid)
    ran = cli(capsys, "field", "--json")
    assert ran.code == 0, ran.err
    assert ran.json() == api and ran.json()["matches"]["total"] == 20
    assert cli(capsys, "field", "--case", "foray/1", "--json").json() == api
    # Among the tournaments it is open, not running on: its standings are arena field's.
    listed = next(line for line in cli(capsys, "tournaments").out.splitlines() if " field " in line)
    assert " open " in listed and "(arena field)" in listed and "/s" not in listed, listed
    monkeypatch.setenv("COLUMNS", "80")
    table = cli(capsys, "field")
    assert table.code == 0, table.err
    lines = table.out.splitlines()
    assert all(len(line) <= 80 for line in lines), table.out
    assert "the field of foray v1" in lines[0] and "20 of 20 played, 0 pending" in lines[1]
    heads = lines[2].split()
    assert heads[-2:] == ["mu", "sigma"] and heads[:4] == ["#", "name", "played", "pending"]
    assert sum(line.split()[1] == "*" for line in lines[3:8]) == 4
    assert "a-rather-long" in table.out
    out = cli(capsys, "field", "withdraw", "random", "--reason", "plays at random")
    assert out.code == 0 and "random is withdrawn" in out.out
    assert "withdrawn: random" in out.out and "plays at random" in out.out
    data = cli(capsys, "field", "--json").json()
    assert data["entrants"] == 4 and [w["name"] for w in data["withdrawn"]] == ["random"]
    assert cli(capsys, "field", "withdraw", "random", "--undo").code == 0
    assert cli(capsys, "field", "--json").json() == api


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--case", "foray/2"), "no field of foray/2 in the store (fields: foray/1)"),
        (("--case", "foray"), "give slug/version"),
        (("withdraw", "random"), "give the reason"),
        (("withdraw", "nobody", "--reason", "x"), "no entrant 'nobody'"),
        (("withdraw", "random", "--undo"), "'random' is not withdrawn"),
        (("remove", "random"), "takes no word but withdraw NAME"),
        (("--undo",), "go with arena field withdraw NAME"),
    ],
)
def test_arena_field_refuses_by_name(
    capsys: pytest.CaptureFixture[str], data_dir: Path, args: tuple[str, ...], message: str
) -> None:
    with Store.open(data_dir) as store:
        arena.open_field(store, SHORT_CASE)
    ran = cli(capsys, "field", *args)
    assert ran.code == 2 and message in ran.err, ran.err


@pytest.mark.slow
def test_run_tournament_plays_what_a_field_misses_and_leaves_it_running(store: Store) -> None:
    """``arena tournament --resume`` of a field: its missing meetings played, the withdrawn
    entrant's left out, the standings without it, and the field never finished."""
    tid = arena.open_field(store, SHORT_CASE).id
    store.withdraw_entrant(tid, "random", "for the test")
    player = InProcess()
    run = run_tournament_sync(store, tid, player, slots=2)
    assert len(player.played) == 3 * 2  # the three others' meetings, both sides
    assert str(run.record.status) == "running"
    assert [r.name for r in run.standings.rows if r.name == "random"] == []
    assert run.standings.complete and run.standings.total == 6
