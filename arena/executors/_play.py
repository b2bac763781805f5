"""Playing jobs in this process (``play``, ``arena.match``'s, and batches of it): the whole
of what a worker does.

Importing this module loads the match runner and with it the sandbox's engine.
A command playing one match in its own process (``arena match``) plays it with
``arena.match.play`` and imports nothing of the executors.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import gc
import itertools
import os
import pickle
import queue
import shutil
import tempfile
import threading
import time
import traceback
import weakref
from collections.abc import Iterator, Sequence
from typing import cast

import replays
import sim
from arena.match import MatchJob, MatchResult, SideResult, play

__all__ = [
    "open_spool",
    "play",
    "play_batch",
    "play_batch_timed",
    "play_in_turn",
    "settle_spool",
    "worker_ready",
    "worker_started",
]


def play_batch(
    jobs: Sequence[MatchJob], spool: str | None = None, turn: str | None = None
) -> list[MatchResult | Exception]:
    """``play`` each job in turn, in one call: how a local worker takes several matches for
    one round trip to the coordinator. What a match raises (a bug of the host) is returned
    in its place, the worker's traceback in its notes, and the rest play on. ``spool`` is
    the pool's spool directory, ``turn`` the relay's turn (``play_batch_timed``)."""
    return play_batch_timed(jobs, spool, turn)[0]


def play_in_turn(job: MatchJob, turn: str | None) -> MatchResult:
    """``play`` one job once its relay's ``turn`` is this worker's (``play_batch_timed``)."""
    with _turn(turn):
        return play(job)


@contextlib.contextmanager
def _turn(path: str | None) -> Iterator[None]:
    """Hold a relay's turn, the lock on the file ``path``, for the block; None: no relay.

    A relay is one core's worth of play shared by two workers (``WorkerPool``): one
    plays while the other's results go back to the coordinator and its next batch
    comes out, then waits here for the first to finish, so the core never waits for
    the round trip. The kernel hands the lock over as the holder closes the file, or
    dies. A turn that cannot be taken (its spool gone) is played without: a relay
    only saves time, it guards nothing.
    """
    fd = -1
    if path is not None:
        with contextlib.suppress(OSError):
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield
    finally:
        if fd >= 0:
            os.close(fd)


def play_batch_timed(
    jobs: Sequence[MatchJob], spool: str | None = None, turn: str | None = None
) -> tuple[list[MatchResult | Exception], list[tuple[float, float]]]:
    """``play_batch``, and when each match began and ended on the system's monotonic clock
    (the same in every process): how ``arena bench tournament`` times matches inside a
    worker, which imports nothing for it that a match does not.

    Each result but the last comes back with its replay packed: a thread
    compresses and hashes each replay while the next match plays (both let the
    match's thread run), so the coordinator's store does not compress them. With
    a ``spool`` directory the thread also writes each packed replay to a file
    there, and the result crosses the pipe without it (``replays.SpooledReplay``):
    the coordinator reads the file when its store records the match, so the
    round trip between two calls no longer carries a batch of replays. Without
    one (or if a file cannot be written) the packed replay crosses itself. The
    last match has no next one to hide its packing behind: its replay crosses
    as it is, and the batch waits for none.

    With a ``turn`` (a relay's, ``_turn``) the matches play once this worker holds
    it, and it is handed on as the last match ends, before the replays' last
    packing and the trip back.
    """
    outcomes: list[MatchResult | Exception] = []
    spans: list[tuple[float, float]] = []
    packer = _Packer(spool) if len(jobs) > 1 else None
    with _turn(turn):
        for index, job in enumerate(jobs):
            began = time.monotonic()
            try:
                result = play(job)
            except Exception as exc:  # a host bug in this match: the batch plays on
                outcomes.append(_portable(exc))
            else:
                outcomes.append(result)
                if packer is not None and index < len(jobs) - 1:
                    packer.pack(index, result.replay)
            spans.append((began, time.monotonic()))
    if packer is not None:
        for index, packed in packer.finish():
            played = outcomes[index]
            assert isinstance(played, MatchResult)
            if isinstance(packed, replays.SpooledReplay):
                # It is a MatchResult once it arrives: pickled, it unpickles as one.
                outcomes[index] = cast(MatchResult, _Spooled(played, packed))
            else:
                outcomes[index] = played.carrying(packed)
    return outcomes, spans


class _Spooled:
    """A worker's result on its way to the coordinator, its replay in a spool file: pickled,
    it is the result's fields and the file, and it arrives as a ``MatchResult``
    (``MatchResult.from_spool``) that reads the file when its replay is first wanted."""

    __slots__ = ("result", "spooled")

    def __init__(self, result: MatchResult, spooled: replays.SpooledReplay) -> None:
        self.result = result
        self.spooled = spooled

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        r = self.result
        return _arrived, (r.winner, r.reason, r.ticks, r.seed, r.sides, self.spooled)


_WAITING: dict[str, weakref.WeakValueDictionary[int, MatchResult]] = {}
"""Results that arrived in this process with their replay in a spool file, by the spool's
directory, each under a number of its own (not in a set: a result's hash is its replay's,
which would read the file): what ``settle_spool`` reads before the directory goes."""
_ARRIVALS = itertools.count()


def _arrived(
    winner: int | None,
    reason: sim.Reason,
    ticks: int,
    seed: int,
    sides: tuple[SideResult, SideResult],
    spooled: replays.SpooledReplay,
) -> MatchResult:
    """A spooled result unpickled in the coordinator (``_Spooled.__reduce__``)."""
    result = MatchResult.from_spool(winner, reason, ticks, seed, sides, spooled)
    waiting = _WAITING.get(spool := os.path.dirname(spooled.path))
    if waiting is None:
        waiting = _WAITING[spool] = weakref.WeakValueDictionary()
    waiting[next(_ARRIVALS)] = result
    return result


_SPOOL_PREFIX = "arena-spool-"


def open_spool() -> str:
    """A new spool directory for a worker pool's packed replays (``settle_spool`` ends it),
    named after this process. Those of processes that are gone (killed before they could
    end theirs) are deleted first, so a killed tournament leaves nothing behind for long."""
    top = tempfile.gettempdir()
    with contextlib.suppress(OSError):
        for entry in os.scandir(top):
            pid = entry.name.removeprefix(_SPOOL_PREFIX).partition("-")[0]
            if entry.name.startswith(_SPOOL_PREFIX) and pid.isdigit() and not _alive(int(pid)):
                shutil.rmtree(entry.path, ignore_errors=True)
    return tempfile.mkdtemp(prefix=f"{_SPOOL_PREFIX}{os.getpid()}-", dir=top)


def _alive(pid: int) -> bool:
    """Whether a process ``pid`` exists (one of another user's counts: it is not ours to
    judge)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def settle_spool(spool: str) -> None:
    """End a spool directory: every result still alive whose replay waits there reads it
    now (so none loses its replay with the directory), then the directory and what is left
    in it (replays of results dropped unread, or of a batch whose worker died) are deleted."""
    waiting = _WAITING.pop(spool, None)
    for result in list(waiting.values()) if waiting is not None else ():
        # A file already gone (the directory removed by hand) leaves that result without
        # its replay, which it says when asked; the others are read and the spool ends.
        with contextlib.suppress(OSError, replays.ReplayError):
            result.packed_replay  # noqa: B018 (read for its effect)
    shutil.rmtree(spool, ignore_errors=True)


_Packed = replays.PackedReplay | replays.SpooledReplay


class _Packer:
    """A thread that packs replays (``replays.PackedReplay.of``) in the order given, and
    leaves each in a file of ``spool`` if there is one."""

    def __init__(self, spool: str | None) -> None:
        self._spool = spool
        self._todo: queue.SimpleQueue[tuple[int, bytes] | None] = queue.SimpleQueue()
        self._done: list[tuple[int, _Packed]] = []
        self._thread = threading.Thread(target=self._run, name="replay packer", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while (item := self._todo.get()) is not None:
            # A replay that fails to pack (out of memory) crosses as its bytes.
            with contextlib.suppress(Exception):
                packed = replays.PackedReplay.of(item[1])
                self._done.append((item[0], self._spooled(packed)))

    def _spooled(self, packed: replays.PackedReplay) -> _Packed:
        """``packed`` left in the spool; itself if there is none or the file cannot be written
        (the disk full, the spool gone with its pool)."""
        if self._spool is None:
            return packed
        path = os.path.join(self._spool, f"{os.getpid()}-{next(_NAMES)}.zst")
        try:
            return replays.SpooledReplay.write(packed, path)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(path)
            return packed

    def pack(self, index: int, raw: bytes) -> None:
        self._todo.put((index, raw))

    def finish(self) -> list[tuple[int, _Packed]]:
        """The replays given and packed, once the last is (by index)."""
        self._todo.put(None)
        self._thread.join()
        return self._done


_NAMES = itertools.count()
"""Each spool file's number in this process (with the pid, a name no other file has)."""


def _portable(exc: Exception) -> Exception:
    """``exc`` as it can cross back to the coordinator: pickled with its traceback as a note
    (a pickled exception loses its own), or, if it does not pickle, a ``RuntimeError`` that
    says what it was."""
    where = "".join(traceback.format_exception(exc))
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        exc = RuntimeError(f"{type(exc).__name__}: {exc}")
    exc.add_note(f"raised in the worker:\n{where}")
    return exc


def worker_started() -> None:
    """What a local worker process does as it starts (trio-parallel's ``init``).

    Unpickling this function loads the match code (this module), so a worker is
    ready for its first match once it is up. At exit it skips the interpreter's
    last garbage collections: over everything the match code loaded they delay a
    tournament's end (docs/benchmarks.md), for memory the kernel frees anyway.
    ``gc.freeze`` takes every object out of their reach; reference counting still
    releases each one as its module is cleared, and the exit code is the worker's own.
    """
    atexit.register(gc.freeze)


def worker_ready() -> int:
    """A call that does nothing but answer (the worker's pid): how a local session starts
    its workers ahead of the first match, and how the pool checks, after a worker died,
    that a fresh one starts at all."""
    return os.getpid()
