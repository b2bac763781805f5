"""Pruning the store: quick matches past a date or a count, and the replay files no row uses.

A real store (SQLite and its files) each time; the matches are results the store records
as it records any (their replay bytes are never parsed by it), and real ones played through
the command line.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest

from arena import ArenaError
from arena.match import MatchResult
from arena.store import (
    ControllerRecord,
    Entrant,
    MatchRecord,
    Origin,
    Role,
    RunMatch,
    RunOutcome,
    Store,
)
from tests._support import cli, result_between

Capture = pytest.CaptureFixture[str]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "data") as s:
        yield s


@pytest.fixture
def two(store: Store) -> tuple[ControllerRecord, ControllerRecord]:
    return (
        store.add_controller(b"module a", name="alpha", origin=Origin.FILE),
        store.add_controller(b"module b", name="beta", origin=Origin.FILE),
    )


def _files(store: Store) -> set[str]:
    return {p.name.removesuffix(".replay") for p in (store.root / "replays").glob("*.replay")}


def _run(store: Store, me: ControllerRecord, opp: ControllerRecord, replay: bytes) -> int:
    return store.record_run(
        case_slug="foray",
        case_version=1,
        manifest_sha256="ab" * 32,
        controller=me.name,
        controller_sha256=me.sha256,
        outcome=RunOutcome.WIN,
        matches=[RunMatch(opp.name, Role.CANONICAL, result_between(me, opp, replay=replay))],
    ).id


def test_a_prune_deletes_only_quick_matches_past_every_bound_and_the_files_they_alone_used(
    store: Store, two: tuple[ControllerRecord, ControllerRecord]
) -> None:
    a, b = two
    quick = [store.record_match(result_between(a, b, seed=s, replay=b"q%d" % s)) for s in range(5)]
    # a quick match whose replay a run's match shares (identical bytes, one file)
    shared = store.record_match(result_between(a, b, seed=9, replay=b"shared"))
    run_id = _run(store, a, b, b"shared")
    field = [Entrant(a.name, a.sha256), Entrant(b.name, b.sha256)]
    t = store.create_tournament("round-robin", field, seeds=[0])
    in_tournament = store.record_match(
        result_between(a, b, replay=b"t"), tournament_id=t.id, pairing_key="k"
    )
    failed = store.record_match_error(*field, seed=3, error="the worker died twice")
    pending = store.queue_match(*field, seed=4)
    orphan = store._replays.put(b"left by a write that was killed before its row")
    newest = store.record_match(result_between(a, b, seed=8, replay=b"newest"))
    before = _files(store)

    dry = store.prune_matches(keep=1, dry_run=True)
    assert _files(store) == before  # nothing deleted
    doomed = [*quick, shared, failed]
    assert [m.id for m in dry.matches] == [m.id for m in doomed]  # oldest first
    gone = {m.result.replay_sha256 for m in quick if m.result} | {orphan}
    assert {sha for sha, _ in dry.replays} == gone
    sizes = {sha: store.replay_path(sha).stat().st_size for sha in gone}
    assert dict(dry.replays) == sizes and dry.replay_bytes == sum(sizes.values())
    assert dry.to_json()["replay_bytes"] == dry.replay_bytes and dry.to_json()["dry_run"]

    done = store.prune_matches(keep=1)
    assert not done.dry_run
    assert [m.id for m in done.matches] == [m.id for m in doomed]
    assert dict(done.replays) == sizes
    assert _files(store) == before - gone
    (of_run,) = store.run_matches(run_id)
    left = [m.id for m in store.matches(limit=50)]
    assert left == [newest.id, pending.id, in_tournament.id, of_run.id]
    assert shared.result is not None  # its file is the run's too: kept, and it reads
    assert store.read_replay_bytes(shared.result.replay_sha256) == b"shared"
    assert store.read_replay_bytes(in_tournament.result.replay_sha256) == b"t"  # type: ignore[union-attr]
    assert store.tournament(t.id).matches == 1
    # nothing past the bounds any more
    again = store.prune_matches(keep=1)
    assert (again.matches, again.replays) == ((), ())


def test_a_date_and_a_count_both_bound_a_prune(
    store: Store, two: tuple[ControllerRecord, ControllerRecord]
) -> None:
    a, b = two

    def record(seeds: range) -> list[MatchRecord]:
        out = [store.record_match(result_between(a, b, seed=s, replay=b"%d" % s)) for s in seeds]
        time.sleep(0.01)  # stamps have microseconds: the bound falls between the two groups
        return out

    old = record(range(3))
    cut = datetime.now(UTC)
    time.sleep(0.01)
    new = record(range(3, 6))

    def ids(pruned: Sequence[MatchRecord]) -> list[int]:
        return [m.id for m in pruned]

    assert ids(store.prune_matches(before=cut, dry_run=True).matches) == ids(old)
    # past both bounds: older than the date and beyond the newest 4
    assert ids(store.prune_matches(before=cut, keep=4, dry_run=True).matches) == ids(old[:2])
    assert ids(store.prune_matches(keep=4, dry_run=True).matches) == ids(old[:2])
    assert ids(store.prune_matches(keep=0, dry_run=True).matches) == ids(old + new)
    assert ids(store.prune_matches(keep=6, dry_run=True).matches) == []
    # a date in another zone is the same moment
    elsewhere = cut.astimezone(datetime.fromisoformat("2000-01-01T00:00+05:30").tzinfo)
    assert ids(store.prune_matches(before=elsewhere, dry_run=True).matches) == ids(old)
    assert ids(store.prune_matches(before=cut).matches) == ids(old)
    assert [m.id for m in store.matches()] == ids(new[::-1])


@pytest.mark.parametrize(
    ("bounds", "message"),
    [
        ({}, "needs a bound"),
        ({"keep": -1}, "not a count"),
        ({"before": datetime(2025, 1, 1)}, "no time zone"),  # no zone: the point
    ],
)
def test_a_prune_without_a_sound_bound_is_refused(
    store: Store, bounds: dict[str, object], message: str
) -> None:
    with pytest.raises(ArenaError, match=message):
        store.prune_matches(**bounds)  # type: ignore[arg-type]


def _prune_when_stored(store: Store, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Once ``store`` has written a batch's replay files (before its rows' transactions), a
    prune in another connection to the same data directory runs, as another process's would:
    it finds the new files used by no row. Returns the replay files it deleted, counted."""
    deleted: list[int] = []
    put_all = store._replays.put_all

    def stored_then_pruned(datas: Sequence[bytes]) -> list[str]:
        shas = put_all(datas)
        if not deleted:  # once: the write that follows, in the row's transaction, is the guard's
            with Store.open(store.root) as other:
                deleted.append(len(other.prune_matches(keep=0).replays))
        return shas

    monkeypatch.setattr(store._replays, "put_all", stored_then_pruned)
    return deleted


Writer = Callable[[Store, ControllerRecord, ControllerRecord, MatchResult], MatchRecord]


def _quick(store: Store, a: ControllerRecord, b: ControllerRecord, r: MatchResult) -> MatchRecord:
    return store.record_match(r)


def _queued(store: Store, a: ControllerRecord, b: ControllerRecord, r: MatchResult) -> MatchRecord:
    queued = store.queue_match(Entrant(a.name, a.sha256), Entrant(b.name, b.sha256), seed=r.seed)
    return store.finish_match(queued.id, r)


def _of_run(store: Store, a: ControllerRecord, b: ControllerRecord, r: MatchResult) -> MatchRecord:
    run = store.record_run(
        case_slug="foray",
        case_version=1,
        manifest_sha256="ab" * 32,
        controller=a.name,
        controller_sha256=a.sha256,
        outcome=RunOutcome.WIN,
        matches=[RunMatch(b.name, Role.CANONICAL, r)],
    )
    return store.run_matches(run.id)[0]


@pytest.mark.parametrize("write", [_quick, _queued, _of_run], ids=["quick", "queued", "run"])
def test_a_replay_pruned_between_its_file_and_its_row_is_written_again(
    store: Store,
    two: tuple[ControllerRecord, ControllerRecord],
    monkeypatch: pytest.MonkeyPatch,
    write: Writer,
) -> None:
    """A row never points at a missing file, whatever a prune in another process does."""
    a, b = two
    deleted = _prune_when_stored(store, monkeypatch)
    record = write(store, a, b, result_between(a, b, replay=b"played while pruning"))
    assert deleted == [1]  # the prune did find the file unused, and deleted it
    assert record.result is not None
    assert store.read_replay_bytes(record.result.replay_sha256) == b"played while pruning"


# --------------------------------------------------------------------------- the command line


def _match(capsys: Capture, seed: int, *more: str) -> dict[str, object]:
    out = cli(
        capsys,
        "match",
        "random",
        "greedy-raider",
        "--seed",
        str(seed),
        "--max-ticks",
        "20",
        "--json",
        *more,
    )
    assert out.code == 0, out.err
    data: dict[str, object] = out.json()
    return data


def test_arena_prune_lists_then_deletes_quick_matches_and_their_replays(
    capsys: Capture, data_dir: Path
) -> None:
    played = [_match(capsys, seed) for seed in range(3)]
    replays = data_dir / "replays"
    assert len(list(replays.glob("*.replay"))) == 3
    dry = cli(capsys, "prune", "--keep", "1", "--dry-run")
    assert dry.code == 0, dry.err
    assert "would delete 2 quick matches (beyond the newest 1) and 2 replay files" in dry.out
    assert "nothing was deleted" in dry.out and len(list(replays.glob("*.replay"))) == 3
    listed = dry.out.splitlines()
    assert any(line.split()[:1] == [str(played[0]["id"])] for line in listed)
    data = cli(capsys, "prune", "--keep", "1", "--json").json()
    assert [m["id"] for m in data["matches"]] == [played[0]["id"], played[1]["id"]]
    assert data["replay_bytes"] == sum(r["bytes"] for r in data["replays"]) > 0
    assert not data["dry_run"]
    left = [p.name for p in replays.glob("*.replay")]
    assert left == [f"{played[2]['replay_sha256']}.replay"]
    with Store.open(data_dir) as store:
        assert [m.id for m in store.matches()] == [played[2]["id"]]
    later = cli(capsys, "prune", "--before", "2000-01-01")
    assert later.code == 0 and "deleted 0 quick matches" in later.out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "give --before DATE, --keep N or both"),
        (("--keep", "-1"), "is not a count"),
        (("--before", "yesterday"), "is not a date"),
    ],
)
def test_arena_prune_refuses_what_it_cannot_bound(
    capsys: Capture, args: tuple[str, ...], message: str
) -> None:
    out = cli(capsys, "prune", *args)
    assert out.code == 2 and message in out.err, out.err


def test_arena_match_no_record_stores_nothing(
    capsys: Capture, data_dir: Path, tmp_path: Path
) -> None:
    printed = cli(capsys, "match", "random", "greedy-raider", "--max-ticks", "20", "--no-record")
    assert printed.code == 0, printed.err
    assert "replay: not kept (--no-record" in printed.out
    replay = tmp_path / "kept.replay"
    data = _match(capsys, 0, "--no-record", "--replay", str(replay))
    assert data["id"] is None and data["replay"] == str(replay) and replay.is_file()
    recorded = _match(capsys, 0)  # the same match, recorded: the same JSON but its id
    assert {**recorded, "id": None, "replay": str(replay)} == data
    with Store.open(data_dir) as store:
        assert [m.id for m in store.matches()] == [recorded["id"]]
    assert len(list((data_dir / "replays").glob("*"))) == 1
