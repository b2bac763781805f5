"""The worker server: where local workers come from (``start_worker_server``).

A local worker is forked from a server process (``multiprocessing``'s
forkserver) that has imported trio-parallel's worker module and the match
code once, so a new worker is ready in the time of a fork instead of
starting Python and importing all of it again. The server is a fresh
interpreter started from nothing but those imports: it has no threads, no
store, no open files of the coordinator's, and no wasmtime engine (the match
code makes its engine on first use, in the worker), so a worker forked from
it holds no more than a spawned one did. Where the platform has no forkserver
(not POSIX), workers are spawned as before.

Importing this module loads nothing but ``multiprocessing``: a command can start
the server before its own imports, so the two overlap (``arena tournament`` does).
"""

from __future__ import annotations

import functools
import multiprocessing
import os
from collections.abc import Callable
from typing import Any

__all__ = ["FORKSERVER", "WorkerInit", "start_worker_server", "stop_worker_server"]

FORKSERVER = "forkserver" in multiprocessing.get_all_start_methods()
"""Whether workers are forked from a worker server here (POSIX); else each is spawned."""

PRELOAD = ("logging", "runpy", "pkgutil", "_trio_parallel_workers", "arena.executors._play")
"""What the server imports once for every worker: what multiprocessing's start of a worker
imports (``logging``, as trio-parallel asked for multiprocessing's logger; ``runpy`` and
``pkgutil``, to run the program's main script again as ``__mp_main__``), trio-parallel's
worker loop, and the match code (``arena.executors._play``: the match runner, the sandbox,
replays)."""

_also: list[str] = []


def start_worker_server(*also: str) -> bool:
    """Start the worker server if it is not up (and again if it died); True if there is one.

    Returns at once: the server imports the match code in its own process while the
    caller goes on, and the first worker waits for it only if it is still importing.
    Each call checks the server is alive, so calling it before each pool is cheap.

    ``also`` names more modules for the server to import, kept for any later start:
    those the program's main script imports (each worker runs it again, as a spawned
    worker did, and finds them loaded), which the server cannot know.
    """
    if not FORKSERVER:
        return False
    from multiprocessing import forkserver

    _also.extend(name for name in also if name not in _also)
    forkserver.set_forkserver_preload([*PRELOAD, *_also])
    forkserver.ensure_running()
    return True


def stop_worker_server() -> None:
    """Stop the worker server of this process, if one is up, once every worker it forked has
    ended (each holds the pipe whose closing ends the server): call it with no pool open.

    For a benchmark that times a worker server's start, and a test that needs one
    started afresh; ``start_worker_server`` starts a new one."""
    if not FORKSERVER:
        return
    from multiprocessing import forkserver

    forkserver._forkserver._stop()  # type: ignore[attr-defined]  # no public way to stop it


class WorkerInit:
    """A worker's ``init`` for trio-parallel that carries this process's environment.

    A forked worker inherits the server's environment, as it was when the server
    started; a spawned worker got the coordinator's as it was when the worker
    started. Pickled as each worker starts (trio-parallel pickles ``init`` then),
    this takes the coordinator's environment of that moment along, and the worker
    sets it before it plays anything (``$FORAY_CACHE_DIR`` and the like are read
    when used), so both kinds of worker see the same.
    """

    def __init__(self, then: Callable[[], None]) -> None:
        self.then = then

    def __reduce__(self) -> tuple[Any, ...]:
        return (functools.partial, (_set_environment, dict(os.environ), self.then))

    def __call__(self) -> None:
        self.then()


def _set_environment(environment: dict[str, str], then: Callable[[], None]) -> None:
    """In the worker: make ``environment`` this process's own, then ``then()``."""
    if os.environ != environment:
        os.environ.clear()
        os.environ.update(environment)
    then()
