"""The store under faults: concurrent writers, a held lock, a read-only or full data directory.

Every case uses real processes on a real SQLite file and ends with nothing
lost, nothing half-written and a clear ``StoreError`` (never a "database is
locked" traceback).
"""

from __future__ import annotations

import multiprocessing
import os
import resource
import signal
import sqlite3
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from arena._files import _locked_temporary
from arena.store import (
    SCHEMA_VERSION,
    STALE_TEMPORARY_SECONDS,
    STORE_FILE,
    Entrant,
    Origin,
    Store,
    StoreBusyError,
    StoreError,
)
from tests._support import cli, result_between

# Fork: the children need no pickling and start fast; each opens its own store
# (except where the test is about a store inherited across a fork).
FORK = multiprocessing.get_context("fork")
WRITERS, EACH, PAIRINGS = 4, 25, 20


def _in_child(fn: Callable[[], Any], *, unprivileged: bool = False) -> Any:
    """Run ``fn`` in a forked child and return what it returned, or its error as a string.

    With ``unprivileged``, the child first drops root to uid/gid 65534
    (nobody): root's CAP_DAC_OVERRIDE ignores permission bits, so a chmod'ed
    directory only stops a process that is not root.
    """
    out = FORK.SimpleQueue()

    def target() -> None:
        try:
            if unprivileged and os.geteuid() == 0:
                os.setgroups([])
                os.setgid(65534)
                os.setuid(65534)
            out.put(("ok", fn()))
        except BaseException as exc:
            out.put(("raised", f"{type(exc).__name__}: {exc}"))

    child = FORK.Process(target=target)
    child.start()
    child.join(120)
    assert child.exitcode == 0, f"the child died (exit {child.exitcode})"
    kind, value = out.get()
    return value if kind == "ok" else f"raised {value}"


def _seed_store(root: Path) -> tuple[Entrant, Entrant, int]:
    with Store.open(root) as store:
        a = store.add_controller(b"module a", name="alpha", origin=Origin.FILE)
        b = store.add_controller(b"module b", name="beta", origin=Origin.FILE)
        ea, eb = Entrant(a.name, a.sha256), Entrant(b.name, b.sha256)
        t = store.create_tournament("round-robin", [ea, eb], seeds=list(range(PAIRINGS)))
    return ea, eb, t.id


# --------------------------------------------------------------------------- concurrency


def test_processes_writing_one_store_at_once_lose_nothing_and_count_nothing_twice(
    tmp_path: Path,
) -> None:
    a, b, tid = _seed_store(tmp_path)
    start = FORK.Barrier(WRITERS)
    out = FORK.SimpleQueue()

    def writer(w: int) -> None:
        try:
            with Store.open(tmp_path) as store:
                start.wait()
                for i in range(EACH):
                    store.record_match(result_between(a, b, seed=i, replay=b"w%d m%d" % (w, i)))
                    # Every writer records the same pairings: each must count once.
                    same = result_between(a, b, seed=i % PAIRINGS, replay=b"pairing %d" % i)
                    store.record_match(same, tournament_id=tid, pairing_key=f"p{i % PAIRINGS}")
            out.put((w, "ok"))
        except BaseException as exc:
            out.put((w, f"{type(exc).__name__}: {exc}"))

    children = [FORK.Process(target=writer, args=(w,)) for w in range(WRITERS)]
    for child in children:
        child.start()
    for child in children:
        child.join(120)
    reports = sorted(out.get() for _ in children)
    assert reports == [(w, "ok") for w in range(WRITERS)]

    with Store.open(tmp_path) as store:
        standalone = [m for m in store.matches(limit=500) if m.tournament_id is None]
        shas = sorted(m.result.replay_sha256 for m in standalone if m.result)
        assert len(standalone) == WRITERS * EACH
        written = [b"w%d m%d" % (w, i) for w in range(WRITERS) for i in range(EACH)]
        assert shas == sorted(result_between(a, b, replay=r).replay_sha256 for r in written)
        for r in written:
            assert store.read_replay_bytes(result_between(a, b, replay=r).replay_sha256) == r
        keys = [m.pairing_key for m in store.tournament_matches(tid)]
        assert sorted(k or "" for k in keys) == sorted(f"p{i}" for i in range(PAIRINGS))
        assert store.tournament(tid).matches == PAIRINGS


def test_processes_opening_a_new_store_at_once_migrate_it_once(tmp_path: Path) -> None:
    root = tmp_path / "new"
    start = FORK.Barrier(WRITERS)

    def opener() -> str:
        start.wait()
        with Store.open(root) as store:
            store.add_controller(b"same module", name="same", origin=Origin.UPLOAD)
            return "ok"

    out = FORK.SimpleQueue()
    children = [FORK.Process(target=lambda: out.put(_guarded(opener))) for _ in range(WRITERS)]
    for child in children:
        child.start()
    for child in children:
        child.join(120)
    assert [out.get() for _ in children] == ["ok"] * WRITERS
    conn = sqlite3.connect(root / STORE_FILE)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("SELECT count(*) FROM controllers").fetchone()[0] == 1
    conn.close()


def _guarded(fn: Callable[[], str]) -> str:
    try:
        return fn()
    except BaseException as exc:
        return f"{type(exc).__name__}: {exc}"


def test_a_store_inherited_across_a_fork_opens_its_own_connection(tmp_path: Path) -> None:
    a, b, _ = _seed_store(tmp_path)
    with Store.open(tmp_path) as store:
        before = store.record_match(result_between(a, b, replay=b"parent")).id
        child = _in_child(lambda: store.record_match(result_between(a, b, replay=b"child")).id)
        after = store.record_match(result_between(a, b, replay=b"parent again")).id
        assert [m.id for m in store.matches()] == [after, child, before]


@pytest.mark.slow
def test_a_lock_held_past_the_busy_timeout_is_a_clear_error_and_reads_go_on(
    tmp_path: Path,
) -> None:
    a, b, _ = _seed_store(tmp_path)
    holder = sqlite3.connect(tmp_path / STORE_FILE, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with Store.open(tmp_path, busy_timeout=0.3) as store:
            with pytest.raises(StoreBusyError) as err:
                store.record_match(result_between(a, b))
            assert str(tmp_path / STORE_FILE) in str(err.value)
            assert "locked by another process" in str(err.value)
            assert store.matches() == []  # WAL: readers are not blocked by the writer
            holder.execute("ROLLBACK")
            assert store.record_match(result_between(a, b)).id == 1
    finally:
        holder.close()


@pytest.mark.slow
def test_a_writer_waits_for_a_lock_another_process_holds_for_a_while(tmp_path: Path) -> None:
    a, b, _ = _seed_store(tmp_path)
    locked = FORK.Event()
    out = FORK.SimpleQueue()

    def hold() -> None:
        conn = sqlite3.connect(tmp_path / STORE_FILE, isolation_level=None)
        conn.execute("BEGIN IMMEDIATE")
        locked.set()
        signal.alarm(5)  # never outlive the test
        time.sleep(0.5)
        out.put(datetime.now(UTC))  # before the commit: the writer cannot have begun
        conn.execute("COMMIT")
        conn.close()

    child = FORK.Process(target=hold)
    child.start()
    assert locked.wait(30)
    with Store.open(tmp_path, busy_timeout=30) as store:
        record = store.record_match(result_between(a, b))
    child.join(30)
    assert child.exitcode == 0
    assert record.status == "finished"
    # The record's transaction ran after the lock was released (an order, not a speed).
    assert record.created_at > out.get()


# --------------------------------------------------------------------------- read-only


def test_a_read_only_data_directory_is_a_clear_error_naming_the_file(shared_dir: Path) -> None:
    root = shared_dir / "data"
    _seed_store(root)
    for path in root.rglob("*"):
        path.chmod(0o555 if path.is_dir() else 0o444)
    root.chmod(0o555)

    def use() -> tuple[bool, str]:
        writable = os.access(root, os.W_OK)  # the setup works only if this is False
        try:
            Store.open(root).close()
        except StoreError as exc:
            return writable, str(exc)
        return writable, "opened"

    writable, message = _in_child(use, unprivileged=True)
    assert not writable
    assert str(root / STORE_FILE) in message and "read-only" in message


def test_a_data_directory_that_cannot_be_made_is_a_clear_error(shared_dir: Path) -> None:
    shared_dir.chmod(0o555)
    message = _in_child(lambda: str(Store.open(shared_dir / "data")), unprivileged=True)
    assert message.startswith("raised StoreError: cannot use the data directory")
    assert str(shared_dir / "data") in message


def test_a_read_only_replays_directory_stops_the_record_before_its_row(shared_dir: Path) -> None:
    root = shared_dir / "data"
    a, b, _ = _seed_store(root)
    for path in (root, *root.rglob("*")):
        path.chmod(0o777 if path.is_dir() else 0o666)  # the store itself stays writable
    (root / "replays").mkdir(mode=0o555)
    (root / "replays").chmod(0o555)

    def record() -> str:
        with Store.open(root) as store:
            try:
                store.record_match(result_between(a, b))
            except StoreError as exc:
                return f"{exc} | rows: {len(store.matches())}"
            return "recorded"

    message = _in_child(record, unprivileged=True)
    assert f"cannot write the replay file {root / 'replays'}" in message
    assert message.endswith("| rows: 0")


def test_a_data_directory_that_is_a_file_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "data").write_text("not a directory")
    with pytest.raises(StoreError, match="cannot use the data directory") as err:
        Store.open(tmp_path / "data")
    assert str(tmp_path / "data") in str(err.value)


# --------------------------------------------------------------------------- full


def test_a_full_data_directory_is_a_clear_error_and_leaves_nothing_half_written(
    tmp_path: Path,
) -> None:
    # A full disk without privileges: RLIMIT_FSIZE makes the kernel refuse to
    # grow any file past the limit (EFBIG, the signal ignored), which reaches
    # the store exactly where ENOSPC would: a short or failed write, in the
    # replay file or in SQLite's WAL.
    a, b, _ = _seed_store(tmp_path)
    limit = 96 * 1024

    def fill() -> tuple[str, str, int]:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        _, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        with Store.open(tmp_path) as store:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
            try:
                # Random: replays are stored compressed, and these bytes do not shrink.
                store.record_match(result_between(a, b, replay=os.urandom(2 * limit)))
                replay_error = "recorded"
            except StoreError as exc:
                replay_error = str(exc)
            recorded = 0
            try:
                for i in range(10_000):  # the WAL grows by a few KiB per match
                    store.record_match(result_between(a, b, replay=b"small %d" % i))
                    recorded += 1
                db_error = "never full"
            except StoreError as exc:
                db_error = str(exc)
            resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))
            store.record_match(result_between(a, b, replay=b"after"))  # works again
            return replay_error, db_error, recorded

    replay_error, db_error, recorded = _in_child(fill)
    assert replay_error.startswith("cannot write the replay file")
    assert str(tmp_path / "replays") in replay_error
    assert f"the store {tmp_path / STORE_FILE} failed while recording a match" in db_error
    with Store.open(tmp_path) as store:
        kept = store.matches(limit=500)
        assert len(kept) == recorded + 1  # each match whole or not at all; the big one not
        for m in kept:
            assert m.result is not None
            assert store.read_replay_bytes(m.result.replay_sha256)


# --------------------------------------------------------------------------- killed writes


def _half_written(staging: Path, out: Any) -> None:
    """In a child: begin writing a replay as ``atomic_write_all`` does (its temporary file
    created and locked in ``staging``, half its bytes written), say where, and wait to be
    killed mid-write."""
    fd, tmp = _locked_temporary(staging / f".{'c' * 64}.replay")
    os.write(fd, b"half a replay")
    out.put(str(tmp))
    time.sleep(600)


@pytest.mark.processes
def test_opening_the_store_sweeps_killed_writes_never_a_live_one(tmp_path: Path) -> None:
    """Every command opens the store, and opening it deletes the temporary files that writes
    left when their process died, whatever their age; never one a live process is still
    writing (it holds the file locked until it is renamed), however old."""
    root = tmp_path / "data"
    with Store.open(root) as store:
        assert store.swept == []
    staging = root / "replays" / ".tmp"
    staging.mkdir(parents=True)
    out = FORK.SimpleQueue()
    writer = FORK.Process(target=_half_written, args=(staging, out))
    writer.start()
    try:
        live = Path(out.get())
        long_ago = time.time() - 10 * STALE_TEMPORARY_SECONDS
        os.utime(live, (long_ago, long_ago))
        with Store.open(root) as store:
            assert store.swept == [] and live.exists()  # its writer lives: left alone
    finally:
        assert writer.pid is not None
        os.kill(writer.pid, signal.SIGKILL)
        writer.join(10)
    with Store.open(root) as store:
        assert store.swept == [live] and not live.exists()  # its writer died: swept


def test_every_command_sweeps_what_killed_writes_left(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A temporary file nobody holds (its writer killed) in ``replays/.tmp`` or
    ``modules/.tmp`` is gone after any command that opens the store, not only ``arena
    serve``; files that are not a write's temporary files are never touched."""
    with Store.open(data_dir):
        pass
    left = [
        data_dir / "replays" / ".tmp" / f".{'a' * 64}.replay.0123456789ab",
        data_dir / "modules" / ".tmp" / f".{'b' * 64}.wasm.ba9876543210",
    ]
    other = data_dir / "replays" / ".tmp" / "notes.txt"
    for path in (*left, other):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"half a file")
    ran = cli(capsys, "runs", "--json")
    assert ran.code == 0, ran.err
    assert [p.exists() for p in left] == [False, False] and other.exists()
