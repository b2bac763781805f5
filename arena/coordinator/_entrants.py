"""Who plays and where: controllers named on a command line into the store, and the executor.

``store_contestant`` is the store's (``arena match`` records its two sides without the
coordinator); it is lent here beside ``add_contestant``, which loads and stores in one call.
"""

from __future__ import annotations

import importlib.util
import os
from typing import TYPE_CHECKING

from arena._errors import ArenaError
from arena.match import Contestant, load_contestant
from arena.store import Entrant, Store, store_contestant

if TYPE_CHECKING:
    from arena.executors import Executor

__all__ = ["EXECUTORS", "add_contestant", "make_executor", "store_contestant"]

EXECUTORS = ("local", "ray")
"""The executors ``make_executor`` knows, by name."""


def add_contestant(store: Store, spec: str) -> tuple[Contestant, Entrant]:
    """Load ``spec`` (a .wasm path or a baseline name, as ``arena match`` takes it) and store it."""
    contestant = load_contestant(spec)
    return contestant, store_contestant(store, contestant)


def make_executor(kind: str | None = None, jobs: int | None = None) -> Executor:
    """The executor ``kind`` names ("local" or "ray"); by default Ray if ``$FORAY_RAY_ADDRESS``
    is set, else this machine's worker processes. ``jobs`` is the local executor's workers
    (default: the cores), or the CPUs of a Ray started here (no address given)."""
    # The executors import trio: only a command that runs them loads it.
    from arena.executors import RAY_ADDRESS_ENV, LocalExecutor, RayExecutor, RayUnavailableError

    if kind is None:
        kind = "ray" if os.environ.get(RAY_ADDRESS_ENV) else "local"
    if kind == "local":
        return LocalExecutor(jobs)
    if kind == "ray":
        if importlib.util.find_spec("ray") is None:  # said now, before anything is stored
            raise RayUnavailableError('the Ray executor needs Ray: pip install -e ".[ray]"')
        return RayExecutor(num_cpus=jobs)
    raise ArenaError(f"executor {kind!r} is not one of {', '.join(EXECUTORS)}")
