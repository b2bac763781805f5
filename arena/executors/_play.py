"""Playing jobs in this process (``play``, ``arena.match``'s, and batches of it): the whole
of what a worker does.

Importing this module loads the match runner and with it the sandbox's engine.
A command playing one match in its own process (``arena match``) plays it with
``arena.match.play`` and imports nothing of the executors.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import os
import pickle
import queue
import threading
import time
import traceback
from collections.abc import Sequence

import replays
from arena.match import MatchJob, MatchResult, play

__all__ = ["play", "play_batch", "play_batch_timed", "worker_ready", "worker_started"]


def play_batch(jobs: Sequence[MatchJob]) -> list[MatchResult | Exception]:
    """``play`` each job in turn, in one call: how a local worker takes several matches for
    one round trip to the coordinator. What a match raises (a bug of the host) is returned
    in its place, the worker's traceback in its notes, and the rest play on."""
    return play_batch_timed(jobs)[0]


def play_batch_timed(
    jobs: Sequence[MatchJob],
) -> tuple[list[MatchResult | Exception], list[tuple[float, float]]]:
    """``play_batch``, and when each match began and ended on the system's monotonic clock
    (the same in every process): how ``arena bench tournament`` times matches inside a
    worker, which imports nothing for it that a match does not.

    Each result but the last comes back carrying its replay packed
    (``MatchResult.carrying``): a thread compresses and hashes each replay while
    the next match plays (both let the match's thread run), so a batch's results
    cross the pipe at a third to a half of their bytes and the coordinator's
    store does not compress them. The last match has no next one to hide its
    packing behind: its replay crosses as it is, and the batch waits for none.
    """
    outcomes: list[MatchResult | Exception] = []
    spans: list[tuple[float, float]] = []
    packer = _Packer() if len(jobs) > 1 else None
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
            outcomes[index] = played.carrying(packed)
    return outcomes, spans


class _Packer:
    """A thread that packs replays (``replays.PackedReplay.of``) in the order given."""

    def __init__(self) -> None:
        self._todo: queue.SimpleQueue[tuple[int, bytes] | None] = queue.SimpleQueue()
        self._done: list[tuple[int, replays.PackedReplay]] = []
        self._thread = threading.Thread(target=self._run, name="replay packer", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while (item := self._todo.get()) is not None:
            # A replay that fails to pack (out of memory) crosses as its bytes.
            with contextlib.suppress(Exception):
                self._done.append((item[0], replays.PackedReplay.of(item[1])))

    def pack(self, index: int, raw: bytes) -> None:
        self._todo.put((index, raw))

    def finish(self) -> list[tuple[int, replays.PackedReplay]]:
        """The replays given and packed, once the last is (by index)."""
        self._todo.put(None)
        self._thread.join()
        return self._done


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
