"""The store: records round-trip, listings page, files are checked on read, the schema migrates.

Real SQLite files in tmp_path; real matches where a replay must verify.
Faults under concurrency, read-only and full directories: test_store_faults.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import replays
import sim
from arena import ArenaError
from arena.match import Contestant, MatchResult, SideResult, run_match
from arena.store import (
    MAX_BUILD_LOG_CHARS,
    MAX_NAME_CHARS,
    MIGRATIONS,
    SCHEMA_VERSION,
    SIDE_KEYS,
    STORE_FILE,
    ControllerRecord,
    CorruptFileError,
    Entrant,
    FileCoding,
    MatchRecord,
    MatchStatus,
    NotInStoreError,
    Origin,
    Role,
    RunMatch,
    RunOutcome,
    SideRecord,
    Store,
    StoreError,
    StoreVersionError,
    TournamentStatus,
    migrate,
    name_keys,
    name_problem,
)
from arena.store._blobs import STREAM_CHUNK_BYTES, WHOLE_READ_BYTES, Blobs
from tests._support import GOLDEN_REPLAY, examples, result_between

MANIFEST = "ab" * 32


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "data") as s:
        yield s


@pytest.fixture
def two(store: Store) -> tuple[ControllerRecord, ControllerRecord]:
    return (
        store.add_controller(b"module a", name="alpha", origin=Origin.FILE),
        store.add_controller(b"module b", name="beta", origin=Origin.BASELINE),
    )


# --------------------------------------------------------------------------- opening


def test_a_new_store_is_a_wal_database_at_the_current_version(tmp_path: Path) -> None:
    root = tmp_path / "fresh" / "data"
    with Store.open(root) as store:
        assert store.path == root / STORE_FILE
    conn = sqlite3.connect(root / STORE_FILE)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == len(MIGRATIONS)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_the_default_root_is_the_data_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORAY_DATA_DIR", str(tmp_path / "elsewhere"))
    with Store.open() as store:
        assert store.root == tmp_path / "elsewhere"
        assert (tmp_path / "elsewhere" / STORE_FILE).exists()


def test_a_newer_database_is_refused_naming_the_file_and_versions(tmp_path: Path) -> None:
    Store.open(tmp_path).close()
    conn = sqlite3.connect(tmp_path / STORE_FILE)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 3}")
    conn.close()
    with pytest.raises(StoreVersionError) as err:
        Store.open(tmp_path)
    message = str(err.value)
    assert str(tmp_path / STORE_FILE) in message
    assert f"version {SCHEMA_VERSION + 3}" in message and f"arena's {SCHEMA_VERSION}" in message


def test_migrations_apply_in_order_and_a_failed_step_leaves_the_version_before(
    tmp_path: Path,
) -> None:
    path = tmp_path / "db.sqlite3"
    assert migrate(path, MIGRATIONS[:0]) == 0
    assert migrate(path) == SCHEMA_VERSION
    extra = ("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)",)
    assert migrate(path, (*MIGRATIONS, extra)) == SCHEMA_VERSION + 1
    assert migrate(path, (*MIGRATIONS, extra)) == SCHEMA_VERSION + 1  # nothing left to do
    broken = ("CREATE TABLE half (x)", "THIS IS NOT SQL")
    with pytest.raises(sqlite3.OperationalError):
        migrate(path, (*MIGRATIONS, extra, broken))
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    conn.close()
    assert "notes" in tables and "half" not in tables  # the failed step left nothing behind
    with pytest.raises(StoreVersionError):
        migrate(path, MIGRATIONS)


def test_reading_the_store_never_loads_the_sandbox(tmp_path: Path) -> None:
    code = (
        "import sys; from arena.store import Store; s = Store.open(sys.argv[1]); "
        "s.matches(); s.controllers(); s.tournaments(); s.runs(); print('wasmtime' in sys.modules)"
    )
    ran = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=True
    )
    assert ran.stdout.strip() == "False"


def test_a_file_that_is_not_a_database_is_refused_naming_it(tmp_path: Path) -> None:
    (tmp_path / STORE_FILE).write_bytes(b"this is no database, just some text" * 100)
    with pytest.raises(StoreError, match=r"not a database") as err:
        Store.open(tmp_path)
    assert str(tmp_path / STORE_FILE) in str(err.value)


def test_a_closed_store_says_so(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    store.close()
    with pytest.raises(StoreError, match="closed"):
        store.controllers()


# --------------------------------------------------------------------------- controllers


def test_controllers_are_stored_by_sha256_with_their_module_file(store: Store) -> None:
    record = store.add_controller(b"\0asm module", name="bot", origin=Origin.UPLOAD)
    assert record.sha256 == hashlib.sha256(b"\0asm module").hexdigest()
    assert (record.name, record.origin, record.hidden, record.size) == ("bot", "upload", False, 11)
    assert store.module_path(record.sha256) == store.root / "modules" / f"{record.sha256}.wasm"
    assert store.read_module_bytes(record.sha256) == b"\0asm module"
    assert store.controller(record.sha256) == record
    assert store.controller("bot") == record


def test_adding_a_controller_again_keeps_it_and_hidden_is_sticky(store: Store) -> None:
    first = store.add_controller(b"secret", name="fuel-probe", origin=Origin.BASELINE, hidden=True)
    again = store.add_controller(b"secret", name="copy", origin=Origin.UPLOAD, hidden=False)
    assert again == first  # first name and origin kept; still hidden
    public = store.add_controller(b"open", name="open", origin=Origin.FILE)
    assert store.add_controller(b"open", name="open", origin=Origin.FILE, hidden=True).hidden
    assert store.controller(public.sha256).hidden
    assert store.controllers() == []
    assert [c.name for c in store.controllers(include_hidden=True)] == ["fuel-probe", "open"]


def test_a_name_finds_the_controller_stored_last_under_it(store: Store) -> None:
    store.add_controller(b"v1", name="mybot", origin=Origin.UPLOAD)
    v2 = store.add_controller(b"v2", name="mybot", origin=Origin.UPLOAD)
    assert store.controller("mybot") == v2
    assert [c.sha256 for c in store.controllers()][-1] == v2.sha256


def test_unknown_controllers_and_bad_names_are_operator_errors(store: Store) -> None:
    with pytest.raises(NotInStoreError, match="nobody"):
        store.controller("nobody")
    with pytest.raises(ArenaError, match=r"1\.\.256"):
        store.add_controller(b"x", name="", origin=Origin.FILE)
    with pytest.raises(ArenaError, match=r"1\.\.256"):
        store.add_controller(b"x", name="n" * 257, origin=Origin.FILE)
    with pytest.raises(ValueError):
        store.add_controller(b"x", name="x", origin="stolen")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- matches


def test_a_real_match_is_stored_and_its_replay_read_back_verifies(
    store: Store, idle: bytes
) -> None:
    a = store.add_controller(idle, name="idle", origin=Origin.FILE)
    result = run_match(
        Contestant("idle", idle), Contestant("idle", idle), seed=5, config=sim.Config(max_ticks=30)
    )
    record = store.record_match(result)
    path = store.replay_path(result.replay_sha256)
    assert record.to_json(str(path)) == {"id": record.id, **result.to_json(str(path))}
    assert record.status is MatchStatus.FINISHED and record.entrants[0].sha256 == a.sha256
    assert path == store.root / "replays" / f"{result.replay_sha256}.replay"
    data = store.read_replay_bytes(result.replay_sha256)
    assert data == result.replay
    assert replays.verify_replay(data).ok
    # Kept compressed, named by the sha256 of the replay's own bytes.
    assert path.read_bytes().startswith(replays.ZSTD_MAGIC)
    assert len(path.read_bytes()) < len(result.replay)
    stored = store.stored_replay(result.replay_sha256)
    assert stored.coding is FileCoding.ZSTD and stored.body == path.read_bytes()
    assert stored.file_size == len(stored.body) and stored.content() == result.replay
    assert store.match(record.id) == record


def test_a_long_name_reads_the_same_in_the_store_and_in_its_replay(
    store: Store, idle: bytes
) -> None:
    """One name limit (``replays.MAX_NAME_CHARS``) for the store and replays: a name the store
    keeps enters the replays of its matches whole."""
    name = "long-name-" + "é" * 190
    assert len(name) == 200 <= replays.MAX_NAME_CHARS == MAX_NAME_CHARS
    stored = store.add_controller(idle, name=name, origin=Origin.FILE)
    played = Contestant(stored.name, store.read_module_bytes(stored.sha256))
    result = run_match(played, played, seed=3, config=sim.Config(max_ticks=5))
    record = store.record_match(result)
    header = replays.read_replay(store.read_replay_bytes(result.replay_sha256)).header
    assert [side.name for side in header.sides] == [name, name]
    assert [e.name for e in store.match(record.id).entrants] == [name, name]
    assert store.controller(stored.sha256).name == name
    with pytest.raises(ArenaError, match=f"1..{MAX_NAME_CHARS} characters"):
        store.add_controller(idle, name="n" * (MAX_NAME_CHARS + 1), origin=Origin.FILE)


names = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=40)
forfeits = st.none() | st.builds(
    sim.Forfeit, st.integers(0, 100_000), st.sampled_from(sim.ForfeitKind), st.text(max_size=200)
)


@settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    names=st.tuples(names, names),
    numbers=st.lists(st.integers(0, 2**53), min_size=6, max_size=6),
    forfeit=st.tuples(forfeits, forfeits),
    winner=st.sampled_from([None, 0, 1]),
    reason=st.sampled_from(sim.Reason),
    ticks=st.integers(0, 100_000),
    seed=st.integers(0, 2**32 - 1),
    replay=st.binary(max_size=300),
)
def test_any_result_reads_back_as_it_was_recorded(
    store: Store,
    two: tuple[ControllerRecord, ControllerRecord],
    names: tuple[str, str],
    numbers: list[int],
    forfeit: tuple[sim.Forfeit | None, sim.Forfeit | None],
    winner: int | None,
    reason: sim.Reason,
    ticks: int,
    seed: int,
    replay: bytes,
) -> None:
    sides = tuple(
        SideResult(
            names[i],
            two[i].sha256,
            numbers[3 * i],
            numbers[3 * i + 1],
            numbers[3 * i + 2],
            forfeit[i],
        )
        for i in range(2)
    )
    result = MatchResult(winner, reason, ticks, seed, (sides[0], sides[1]), replay)
    record = store.record_match(result)
    assert store.match(record.id) == record
    assert record.to_json("r") == {"id": record.id, **result.to_json("r")}
    assert record.result is not None
    assert record.result.sides == tuple(
        SideRecord(
            s.name,
            s.sha256,
            s.banked,
            s.fuel_total,
            s.fuel_peak,
            s.forfeit,
            {k: v for k, v in s.to_dict().items() if k not in SIDE_KEYS},
        )
        for s in sides
    )
    assert store.read_replay_bytes(result.replay_sha256) == replay


def test_a_result_pickles_with_its_replay_packed_and_the_store_keeps_the_frame(
    store: Store, two: tuple[ControllerRecord, ControllerRecord]
) -> None:
    """A result carrying its replay packed (as a local worker's do) pickles as the frame, reads
    its replay back on first use, and is stored with the frame written as it came."""
    raw = GOLDEN_REPLAY.read_bytes()
    plain = result_between(*two, replay=raw)
    packed = replays.PackedReplay.of(raw)
    carried = plain.carrying(packed)
    wire = pickle.dumps(carried, protocol=pickle.HIGHEST_PROTOCOL)
    assert len(wire) < len(raw)
    back = pickle.loads(wire)
    assert back.packed_replay == packed and back.replay_sha256 == plain.replay_sha256
    assert back == plain and back.replay == raw
    record = store.record_matches([pickle.loads(wire)])[0]
    assert record.result is not None and record.result.replay_sha256 == plain.replay_sha256
    assert store.replay_path(plain.replay_sha256).read_bytes() == packed.frame
    assert store.read_replay_bytes(plain.replay_sha256) == raw


def test_a_result_with_its_replay_spooled_reads_the_file_once_and_is_stored_from_it(
    store: Store, two: tuple[ControllerRecord, ControllerRecord], tmp_path: Path
) -> None:
    """A result whose packed replay waits in a spool file (as a local worker's arrive) knows
    its sha256 without reading it, reads it on first use and deletes it, and a pickled copy
    carries the frame itself, never the file's name; the store keeps the frame as it came."""
    raw = GOLDEN_REPLAY.read_bytes()
    plain = result_between(*two, replay=raw)
    packed = replays.PackedReplay.of(raw)

    def arrived(name: str) -> MatchResult:
        spooled = replays.SpooledReplay.write(packed, str(tmp_path / name))
        fields = (plain.winner, plain.reason, plain.ticks, plain.seed, plain.sides)
        return MatchResult.from_spool(*fields, spooled)

    first = arrived("a.zst")
    assert first.replay_sha256 == plain.replay_sha256 and (tmp_path / "a.zst").exists()
    assert first.packed_replay == packed and not (tmp_path / "a.zst").exists()
    assert first == plain and first.replay == raw

    copy = pickle.loads(pickle.dumps(arrived("b.zst")))
    assert not (tmp_path / "b.zst").exists()
    assert copy.packed_replay == packed and copy == plain

    record = store.record_matches([arrived("c.zst")])[0]
    assert record.result is not None and not (tmp_path / "c.zst").exists()
    assert store.replay_path(plain.replay_sha256).read_bytes() == packed.frame


def test_a_spool_file_that_lost_bytes_is_named(tmp_path: Path) -> None:
    raw = GOLDEN_REPLAY.read_bytes()
    spooled = replays.SpooledReplay.write(replays.PackedReplay.of(raw), str(tmp_path / "r.zst"))
    (tmp_path / "r.zst").write_bytes(b"\x28\xb5")
    with pytest.raises(
        replays.ReplayError, match=r"r\.zst: a spooled replay of [\d,]+ bytes holds 2"
    ):
        spooled.load()
    with pytest.raises(FileExistsError):
        replays.SpooledReplay.write(replays.PackedReplay.of(raw), str(tmp_path / "r.zst"))


def test_a_packed_replay_that_is_not_its_sha256_is_refused(
    store: Store, two: tuple[ControllerRecord, ControllerRecord]
) -> None:
    raw = GOLDEN_REPLAY.read_bytes()
    wrong = replays.PackedReplay("0" * 64, replays.PackedReplay.of(raw).frame)
    result = result_between(*two, replay=raw).carrying(wrong)
    with pytest.raises(StoreError, match="sha256 is not the one it carries"):
        store.record_matches([pickle.loads(pickle.dumps(result))])
    assert store.matches() == [] and not store.replay_path("0" * 64).exists()


class _SideWithMore(SideResult, frozen=True):
    """A side whose match JSON has a key beyond the design's (as fuel statistics are)."""

    def to_dict(self) -> dict[str, Any]:
        return {**SideResult.to_dict(self), "fuel_per_tick": {"mean": 12.5, "peak_tick": None}}


def test_a_sides_other_keys_of_the_match_json_are_kept(
    store: Store, two: tuple[ControllerRecord, ControllerRecord]
) -> None:
    a, b = two
    sides = (
        _SideWithMore(a.name, a.sha256, 1, 2, 3, None),
        _SideWithMore(b.name, b.sha256, 4, 5, 6, None),
    )
    result = MatchResult(None, sim.Reason.DRAW, 9, 3, sides, b"more")
    record = store.record_match(result)
    assert store.match(record.id).to_json("r") == {"id": record.id, **result.to_json("r")}
    assert record.result is not None
    assert record.result.sides[0].extra == {"fuel_per_tick": {"mean": 12.5, "peak_tick": None}}
    queued = store.queue_match(Entrant(a.name, a.sha256), Entrant(b.name, b.sha256), seed=3)
    finished = store.finish_match(queued.id, result)
    assert finished.to_json("r") == {"id": finished.id, **result.to_json("r")}


def test_a_match_needs_its_controllers_stored_first(store: Store) -> None:
    ghost = Entrant("ghost", "0" * 64)
    with pytest.raises(NotInStoreError, match="ghost"):
        store.record_match(result_between(ghost, ghost))
    assert store.matches() == []


def test_recent_matches_page_backwards_and_filter_by_controller(
    store: Store, two: tuple[ControllerRecord, ControllerRecord]
) -> None:
    a, b = two
    c = store.add_controller(b"module c", name="gamma", origin=Origin.FILE)
    ids = [store.record_match(result_between(a, b, seed=i, replay=b"r%d" % i)).id for i in range(7)]
    ids.append(store.record_match(result_between(c, b, seed=99)).id)
    page = store.matches(limit=3)
    assert [m.id for m in page] == ids[::-1][:3]
    page2 = store.matches(limit=3, before=page[-1].id)
    assert [m.id for m in page2] == ids[::-1][3:6]
    assert [m.id for m in store.matches(controller=c.sha256)] == [ids[-1]]
    assert [m.id for m in store.matches(controller=a.sha256, limit=2)] == ids[6:4:-1]
    with pytest.raises(ArenaError, match=r"1\.\.500"):
        store.matches(limit=0)
    with pytest.raises(NotInStoreError, match="match 12345"):
        store.match(12345)


def test_a_queued_match_gets_its_result_once(
    store: Store, two: tuple[ControllerRecord, ControllerRecord]
) -> None:
    a, b = two
    queued = store.queue_match(Entrant("alpha", a.sha256), Entrant("beta", b.sha256), seed=9)
    assert queued.status is MatchStatus.PENDING and queued.result is None
    assert queued.to_json()["status"] == "pending"
    with pytest.raises(ValueError, match="seed"):
        store.finish_match(queued.id, result_between(a, b, seed=10))
    with pytest.raises(ValueError, match="sides"):
        store.finish_match(queued.id, result_between(b, a, seed=9))
    done = store.finish_match(queued.id, result_between(a, b, seed=9, replay=b"queued"))
    assert done.status is MatchStatus.FINISHED and done.result is not None
    assert done.result.sides[0].banked == 7 and done.finished_at is not None
    with pytest.raises(ArenaError, match="finished already"):
        store.fail_match(queued.id, "too late")
    other = store.queue_match(Entrant("alpha", a.sha256), Entrant("beta", b.sha256), seed=9)
    failed = store.fail_match(other.id, "the worker died")
    assert (failed.status, failed.error) == (MatchStatus.ERROR, "the worker died")
    assert failed.to_json()["error"] == "the worker died"


def test_pending_matches_are_listed_oldest_first_until_settled(
    store: Store, two: tuple[ControllerRecord, ControllerRecord]
) -> None:
    a, b = two
    ea, eb = Entrant("alpha", a.sha256), Entrant("beta", b.sha256)
    first, second, third = (store.queue_match(ea, eb, seed=s) for s in (1, 2, 3))
    store.record_match(result_between(a, b, seed=4))
    assert [m.id for m in store.pending_matches()] == [first.id, second.id, third.id]
    assert [m.id for m in store.pending_matches(limit=1)] == [first.id]
    store.finish_match(second.id, result_between(a, b, seed=2))
    store.fail_match(first.id, "the worker died")
    assert [m.id for m in store.pending_matches()] == [third.id]


# --------------------------------------------------------------------------- tournaments


def test_a_tournament_keeps_its_field_seeds_options_and_standings(
    store: Store, two: tuple[ControllerRecord, ControllerRecord]
) -> None:
    a, b = two
    field = [Entrant("beta", b.sha256), Entrant("alpha", a.sha256)]
    t = store.create_tournament("round-robin", field, seeds=[3, 1], options={"jobs": 2})
    assert (t.format, t.field, t.seeds, t.options) == (
        "round-robin",
        tuple(field),
        (3, 1),
        {"jobs": 2},
    )
    assert (t.status, t.standings, t.matches, t.finished_at) == ("running", None, 0, None)
    first = store.record_match(
        result_between(a, b, seed=3, replay=b"t1"), tournament_id=t.id, pairing_key="0:3"
    )
    again = store.record_match(
        result_between(a, b, seed=3, replay=b"t1-bis"), tournament_id=t.id, pairing_key="0:3"
    )
    assert again == first  # recorded once: the first recording stands
    lost = store.record_match_error(
        Entrant("beta", b.sha256),
        Entrant("alpha", a.sha256),
        seed=1,
        error="worker died twice",
        tournament_id=t.id,
        pairing_key="1:1",
    )
    assert lost.status is MatchStatus.ERROR and lost.pairing_key == "1:1"
    assert [m.pairing_key for m in store.tournament_matches(t.id)] == ["0:3", "1:1"]
    standings = [{"rank": 1, "name": "alpha", "wins": 1}]
    done = store.finish_tournament(t.id, standings)
    assert (done.status, done.standings, done.matches) == (TournamentStatus.FINISHED, standings, 2)
    assert done.finished_at is not None
    assert store.tournament(t.id) == done
    # Read together (one transaction): the record and its matches of one moment.
    assert store.tournament_with_matches(t.id) == (done, store.tournament_matches(t.id))
    with pytest.raises(NotInStoreError, match=f"no tournament {t.id + 1}"):
        store.tournament_with_matches(t.id + 1)
    with pytest.raises(ArenaError, match="finished"):
        late = result_between(a, b, replay=b"late")
        store.record_match(late, tournament_id=t.id, pairing_key="9")
    with pytest.raises(ArenaError, match="finished already"):
        store.finish_tournament(t.id, [])


def test_results_recorded_together_are_each_a_row_of_their_own_in_order(
    store: Store, two: tuple[ControllerRecord, ControllerRecord]
) -> None:
    """A batch's results: every replay file first (one pair of identical replays, one file),
    then a row each, as ``record_match`` one by one gives them; a key recorded already keeps
    its first record."""
    a, b = two
    field = [Entrant("alpha", a.sha256), Entrant("beta", b.sha256)]
    t = store.create_tournament("round-robin", field, seeds=[0, 1, 2])
    results = [result_between(a, b, seed=s, replay=r) for s, r in ((0, b"x"), (1, b"y"), (2, b"x"))]
    records = store.record_matches(results, tournament_id=t.id, pairing_keys=["k0", "k1", "k2"])
    assert [m.pairing_key for m in records] == ["k0", "k1", "k2"]
    assert (
        [m.seed for m in records] == [0, 1, 2] == [m.seed for m in store.tournament_matches(t.id)]
    )
    assert [m.result.replay_sha256 for m in records if m.result] == [
        r.replay_sha256 for r in results
    ]
    assert all(store.read_replay_bytes(r.replay_sha256) == r.replay for r in results)
    again = store.record_matches(
        [result_between(a, b, seed=0, replay=b"z")], tournament_id=t.id, pairing_keys=["k0"]
    )
    assert again == records[:1]
    with pytest.raises(ValueError, match="2 results but 1 pairing keys"):
        store.record_matches(results[:2], tournament_id=t.id, pairing_keys=["k9"])


def test_a_row_refused_in_a_batch_keeps_the_rows_before_it_and_every_replay_file(
    store: Store, two: tuple[ControllerRecord, ControllerRecord]
) -> None:
    a, b = two
    field = [Entrant("alpha", a.sha256), Entrant("beta", b.sha256)]
    t = store.create_tournament("round-robin", field, seeds=[0, 1, 2])
    outsider = store.add_controller(b"outsider", name="c", origin=Origin.FILE)
    good, bad = result_between(a, b, replay=b"good"), result_between(a, outsider, replay=b"bad")
    with pytest.raises(ValueError, match="field"):
        store.record_matches([good, bad], tournament_id=t.id, pairing_keys=["g", "b"])
    assert [m.pairing_key for m in store.tournament_matches(t.id)] == ["g"]
    # The refused row's replay file was written with the batch's: no row points at it.
    assert store.read_replay_bytes(bad.replay_sha256) == b"bad"


def test_files_written_together_are_all_or_none_when_one_cannot_be(tmp_path: Path) -> None:
    """``atomic_write_all``: a file that cannot be written (its directory is a file) leaves no
    temporary file behind and renames none of the others into place."""
    from arena._files import atomic_write_all

    (tmp_path / "taken").write_bytes(b"a file")
    files = [(tmp_path / "ok" / "one", b"1"), (tmp_path / "taken" / "two", b"2")]
    with pytest.raises(OSError):
        atomic_write_all(files)
    assert not (tmp_path / "ok" / "one").exists()
    assert list((tmp_path / "ok").iterdir()) == []
    atomic_write_all([files[0], (tmp_path / "ok" / "three", b"3" * 100_000)])
    assert (tmp_path / "ok" / "one").read_bytes() == b"1"
    assert (tmp_path / "ok" / "three").read_bytes() == b"3" * 100_000
    assert sorted(p.name for p in (tmp_path / "ok").iterdir()) == ["one", "three"]


def test_a_failed_tournament_resumes_and_tournaments_list_newest_first(
    store: Store, two: tuple[ControllerRecord, ControllerRecord]
) -> None:
    a, b = two
    field = [Entrant("alpha", a.sha256), Entrant("beta", b.sha256)]
    ids = [store.create_tournament("swiss", field, seeds=[0]).id for _ in range(3)]
    failed = store.fail_tournament(ids[1], "interrupted")
    assert (failed.status, failed.error) == ("failed", "interrupted")
    resumed = store.resume_tournament(ids[1])
    assert (resumed.status, resumed.error, resumed.finished_at) == ("running", None, None)
    assert [t.id for t in store.tournaments()] == ids[::-1]
    assert [t.id for t in store.tournaments(limit=1, before=ids[2])] == [ids[1]]
    outsider = store.add_controller(b"outsider", name="c", origin=Origin.FILE)
    with pytest.raises(ValueError, match="field"):
        store.record_match(result_between(a, outsider), tournament_id=ids[0], pairing_key="k")
    with pytest.raises(ValueError, match="both"):
        store.record_match(result_between(a, b), tournament_id=ids[0])
    with pytest.raises(NotInStoreError):
        store.tournament(999)
    with pytest.raises(NotInStoreError):
        store.tournament_matches(999)
    with pytest.raises(NotInStoreError):
        next(store.iter_tournament_matches(999))
    with pytest.raises(ArenaError, match="twice"):
        store.create_tournament("swiss", field + field[:1], seeds=[0])
    # A pairing's key names its entrants (a JSON array): long names make long keys.
    long_key = json.dumps([0, 1, 7, "é" * 256, "b" * 256])
    recorded = store.record_match(result_between(a, b), tournament_id=ids[0], pairing_key=long_key)
    assert recorded.pairing_key == long_key and len(long_key) > 1500
    with pytest.raises(ArenaError, match="pairing key"):
        store.record_match(result_between(a, b), tournament_id=ids[0], pairing_key="k" * 4097)


# --------------------------------------------------------------------------- pruning


def _files(store: Store) -> set[str]:
    return {p.name.removesuffix(".replay") for p in (store.root / "replays").glob("*.replay")}


def _run(store: Store, me: ControllerRecord, opp: ControllerRecord, result: MatchResult) -> int:
    """A run of ``me`` with one match, ``result``, against ``opp``."""
    return store.record_run(
        case_slug="foray",
        case_version=1,
        manifest_sha256=MANIFEST,
        controller=me.name,
        controller_sha256=me.sha256,
        outcome=RunOutcome.WIN,
        matches=[RunMatch(opp.name, Role.CANONICAL, result)],
    ).id


def test_a_prune_deletes_only_quick_matches_past_every_bound_and_the_files_they_alone_used(
    store: Store, two: tuple[ControllerRecord, ControllerRecord]
) -> None:
    a, b = two
    quick = [store.record_match(result_between(a, b, seed=s, replay=b"q%d" % s)) for s in range(5)]
    # a quick match whose replay a run's match shares (identical bytes, one file)
    shared = store.record_match(result_between(a, b, seed=9, replay=b"shared"))
    run_id = _run(store, a, b, result_between(a, b, replay=b"shared"))
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

    def stored_then_pruned(datas: Sequence[bytes], *, raw: bool = False) -> list[str]:
        shas = put_all(datas, raw=raw)
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
    return store.run_matches(_run(store, a, b, r))[0]


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


# --------------------------------------------------------------------------- runs


def test_a_run_is_recorded_whole_and_found_by_case_and_module(
    store: Store, two: tuple[ControllerRecord, ControllerRecord]
) -> None:
    me, opp = two
    matches = [
        RunMatch("beta", Role.CANONICAL, result_between(me, opp, seed=1, replay=b"c")),
        RunMatch("beta", Role.EXHIBITION, result_between(opp, me, seed=2, replay=b"e", winner=1)),
    ]
    log = "step\n" * (MAX_BUILD_LOG_CHARS // 3) + "error: it broke\n"
    run = store.record_run(
        case_slug="foray",
        case_version=1,
        manifest_sha256=MANIFEST,
        controller="alpha",
        controller_sha256=me.sha256,
        outcome=RunOutcome.WIN,
        build_log=log,
        matches=matches,
    )
    assert (run.case_slug, run.case_version, run.outcome, run.matches) == ("foray", 1, "win", 2)
    stored = store.run_matches(run.id)
    assert [(m.opponent, m.role, m.run_id) for m in stored] == [
        ("beta", Role.CANONICAL, run.id),
        ("beta", Role.EXHIBITION, run.id),
    ]
    assert all(store.read_replay_bytes(m.result.replay_sha256) for m in stored if m.result)
    kept = store.build_log(run.id)
    assert kept.endswith("error: it broke\n") and len(kept) < MAX_BUILD_LOG_CHARS + 100
    assert "characters cut" in kept
    assert store.find_run("foray", 1, me.sha256) == run == store.run(run.id)
    assert store.find_run("foray", 2, me.sha256) is None
    again = store.record_run(
        case_slug="foray",
        case_version=1,
        manifest_sha256=MANIFEST,
        controller="alpha",
        controller_sha256=me.sha256,
        outcome=RunOutcome.WIN,
        matches=matches,
    )
    assert store.find_run("foray", 1, me.sha256) == again  # the latest
    assert [r.id for r in store.runs()] == [again.id, run.id]
    assert store.runs(case_slug="other") == []


def test_a_run_can_store_its_controller_in_its_own_transaction(
    store: Store, two: tuple[ControllerRecord, ControllerRecord]
) -> None:
    """A pushed run: the controller is new to this store, and comes with the run or not at all."""
    _, opp = two
    blob = b"\0asm a pushed controller"
    me = Entrant("pushed", hashlib.sha256(blob).hexdigest())
    args: dict[str, Any] = {
        "case_slug": "foray",
        "case_version": 1,
        "manifest_sha256": MANIFEST,
        "controller": "pushed",
        "controller_sha256": me.sha256,
        "outcome": RunOutcome.LOSS,
        "matches": [RunMatch("beta", Role.CANONICAL, result_between(me, opp, winner=1))],
    }
    with pytest.raises(NotInStoreError, match="'pushed'"):
        store.record_run(**args)  # without its module: the controller must be there
    with pytest.raises(ValueError, match="not the run's controller"):
        store.record_run(**args, module=b"other bytes")
    assert store.runs() == [] and me.sha256 not in {c.sha256 for c in store.controllers()}
    run = store.record_run(**args, module=blob, module_origin=Origin.UPLOAD)
    record = store.controller(me.sha256)
    assert (record.name, record.origin, record.size) == ("pushed", Origin.UPLOAD, len(blob))
    assert store.read_module_bytes(me.sha256) == blob and store.run(run.id) == run


def test_a_run_that_could_not_compete_has_its_reason_and_no_matches(store: Store) -> None:
    run = store.record_run(
        case_slug="foray",
        case_version=1,
        manifest_sha256=MANIFEST,
        controller="broken",
        controller_sha256=None,
        outcome=RunOutcome.COULD_NOT_COMPETE,
        reason="the build failed (exit 1)",
        build_log="cc: error\n",
    )
    assert (run.outcome, run.reason, run.matches, run.controller_sha256) == (
        "could-not-compete",
        "the build failed (exit 1)",
        0,
        None,
    )
    assert store.build_log(run.id) == "cc: error\n"
    assert store.run_matches(run.id) == []
    with pytest.raises(ValueError):
        store.record_run(
            case_slug="foray",
            case_version=1,
            manifest_sha256=MANIFEST,
            controller="x",
            controller_sha256=None,
            outcome=RunOutcome.WIN,
        )


def test_runs_and_settled_matches_cannot_be_changed_even_by_hand(
    store: Store, two: tuple[ControllerRecord, ControllerRecord]
) -> None:
    me, opp = two
    store.record_run(
        case_slug="foray",
        case_version=1,
        manifest_sha256=MANIFEST,
        controller="alpha",
        controller_sha256=me.sha256,
        outcome=RunOutcome.LOSS,
        matches=[RunMatch("beta", Role.CANONICAL, result_between(me, opp, winner=1))],
    )
    conn = sqlite3.connect(store.path)
    for statement in (
        "UPDATE runs SET outcome = 'win'",
        "UPDATE matches SET winner = 0",
        "UPDATE match_sides SET banked = 1000",
    ):
        with pytest.raises(sqlite3.IntegrityError, match="immutable"):
            conn.execute(statement)
    conn.close()


# --------------------------------------------------------------------------- files


@pytest.fixture
def recorded(store: Store, two: tuple[ControllerRecord, ControllerRecord]) -> MatchResult:
    result = result_between(*two, replay=os.urandom(200_000))
    store.record_match(result)
    return result


def test_a_truncated_replay_is_refused_on_every_read(store: Store, recorded: MatchResult) -> None:
    sha = recorded.replay_sha256
    path = store.replay_path(sha)
    path.write_bytes(recorded.replay[:1000])
    for read in (store.read_replay_bytes, store.stored_replay):
        with pytest.raises(CorruptFileError, match="damaged") as err:
            read(sha)
        assert str(path) in str(err.value)


def test_a_changed_byte_is_refused_before_a_stream_starts(
    store: Store, recorded: MatchResult
) -> None:
    path = store.replay_path(recorded.replay_sha256)
    data = bytearray(recorded.replay)
    data[123_456] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(CorruptFileError, match="damaged"):
        store.stored_replay(recorded.replay_sha256)


def test_a_replay_changed_while_streaming_ends_the_stream_with_an_error(
    store: Store, two: tuple[ControllerRecord, ControllerRecord]
) -> None:
    big = result_between(*two, replay=os.urandom(WHOLE_READ_BYTES + 2_000_000))
    store.record_match(big)
    stored = store.stored_replay(big.replay_sha256)
    assert stored.body is None  # over the size read whole: an open file, sent in chunks
    chunks = stored.chunks()
    first = next(chunks)
    with open(store.replay_path(big.replay_sha256), "r+b") as f:  # in place: same inode
        f.seek(len(first) + 1000)
        f.write(b"\0" * 10)
    with pytest.raises(CorruptFileError, match="changed while it was sent"):
        for _ in chunks:
            pass
    assert len(first) == STREAM_CHUNK_BYTES


def test_a_replay_is_hashed_once_then_again_only_when_its_file_changes(
    store: Store, recorded: MatchResult, monkeypatch: pytest.MonkeyPatch
) -> None:
    checks: list[str] = []
    check = Blobs._checked

    def counted(self: Blobs, path: Path, sha256: str, data: bytes) -> bytes:
        checks.append(sha256)
        return check(self, path, sha256, data)

    monkeypatch.setattr(Blobs, "_checked", counted)
    sha, path = recorded.replay_sha256, store.replay_path(recorded.replay_sha256)
    # An old mtime, so that the write below changes it whatever the clock's grain.
    os.utime(path, ns=(10**9, 10**9))
    first = store.stored_replay(sha)
    assert store.stored_replay(sha).body == first.body and len(checks) == 1
    data = bytearray(path.read_bytes())
    data[-100] ^= 1
    with open(path, "r+b") as f:  # in place, the same size: a new mtime and ctime
        f.write(data)
    with pytest.raises(CorruptFileError, match="damaged"):
        store.stored_replay(sha)
    with pytest.raises(CorruptFileError, match="damaged"):  # and still, until it is repaired
        store.stored_replay(sha)
    store.record_match(recorded)  # writes it again (a new inode)
    assert store.stored_replay(sha).content() == recorded.replay
    assert store.stored_replay(sha).content() == recorded.replay
    assert len(checks) == 4


def test_a_replay_stored_raw_before_compression_is_read_and_served_as_it_is(
    store: Store, recorded: MatchResult
) -> None:
    """A data directory from before replays were compressed: its raw files still read."""
    path = store.replay_path(recorded.replay_sha256)
    path.write_bytes(recorded.replay)
    assert store.read_replay_bytes(recorded.replay_sha256) == recorded.replay
    stored = store.stored_replay(recorded.replay_sha256)
    assert stored.coding is FileCoding.RAW and stored.body == recorded.replay
    assert stored.content() == recorded.replay
    store.record_match(recorded)  # the same replay again: the raw file holds it, kept as is
    assert path.read_bytes() == recorded.replay


def test_missing_files_are_lost_when_a_row_uses_them_else_unknown(
    store: Store, recorded: MatchResult, two: tuple[ControllerRecord, ControllerRecord]
) -> None:
    store.replay_path(recorded.replay_sha256).unlink()
    with pytest.raises(CorruptFileError, match="missing"):
        store.read_replay_bytes(recorded.replay_sha256)
    with pytest.raises(NotInStoreError):
        store.read_replay_bytes("e" * 64)
    store.module_path(two[0].sha256).unlink()
    with pytest.raises(CorruptFileError, match="missing"):
        store.read_module_bytes(two[0].sha256)
    for bad in ("../../etc/passwd", "E" * 64, "e" * 63, ""):
        with pytest.raises(NotInStoreError, match="not a sha256"):
            store.replay_path(bad)
        with pytest.raises(NotInStoreError, match="not a sha256"):
            store.read_module_bytes(bad)


def test_recording_the_same_replay_again_repairs_a_damaged_file(
    store: Store, recorded: MatchResult
) -> None:
    path = store.replay_path(recorded.replay_sha256)
    path.write_bytes(b"garbage")
    store.record_match(recorded)
    assert store.read_replay_bytes(recorded.replay_sha256) == recorded.replay


def test_the_replay_file_is_written_before_the_row(
    store: Store, two: tuple[ControllerRecord, ControllerRecord]
) -> None:
    # A plain file where the replays directory should be: the replay cannot be
    # written, so no row may point at it.
    (store.root / "replays").write_bytes(b"not a directory")
    with pytest.raises(StoreError, match="cannot write the replay file") as err:
        store.record_match(result_between(*two))
    assert str(store.root / "replays") in str(err.value)
    assert store.matches() == []


# --------------------------------------------------------------------------- threads


def test_threads_share_a_store(
    store: Store, two: tuple[ControllerRecord, ControllerRecord]
) -> None:
    a, b = two

    def record(i: int) -> int:
        return store.record_match(result_between(a, b, seed=i, replay=b"thread %d" % i)).id

    with ThreadPoolExecutor(4) as pool:
        ids = list(pool.map(record, range(40)))
    assert sorted(ids) == [m.id for m in reversed(store.matches(limit=100))]
    assert len(set(ids)) == 40


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("", "1..256 characters"),
        ("n" * (MAX_NAME_CHARS + 1), "1..256 characters"),
        ("a\nb", "U+000A) is a control character"),
        ("a\x85b", "control character"),
        ("a\ud800b", "lone surrogate"),
        ("a\u202eb", "bidirectional control"),
        ("a\u2028b", "line separator"),
        ("a\U000e0080b", "does not assign"),
        ("\u200b\u200d\ufeff", "no visible character"),
        (" \t ", "control character"),
        ("   ", "no visible character"),
    ],
)
def test_a_name_must_show_as_itself(name: str, problem: str) -> None:
    assert problem in (name_problem(name) or "")


@pytest.mark.parametrize(
    "name", ["<img src=x>", "é" * 200, "bot-2", "日本語のボット", "ボット", "a b", "Ω-bot"]
)
def test_names_of_every_script_are_names(name: str) -> None:
    assert name_problem(name) is None


def test_the_stored_controller_a_name_looks_like(store: Store, idle: bytes) -> None:
    stored = store.add_controller(idle, name="random-walker", origin=Origin.FILE)
    for alike in (
        "random-walker",
        "r\u0430ndom-walker",  # a Cyrillic a
        "random\u200b-walker",  # a zero-width space
        "Random-Walker",
        "RANDOM-WALKER",
        "\uff52andom-walker",  # a fullwidth r
        "random-wa1ker",  # a digit one for the l
        " random-walker",
    ):
        found = store.controller_like(alike)
        assert found is not None and found.sha256 == stored.sha256, alike
    for other in ("random-walkers", "random-talker", "rand0m-walker", "random walker"):
        assert store.controller_like(other) is None, other
    assert name_keys("Iron") & name_keys("lron")
    assert not name_keys("iron") & name_keys("lron")
