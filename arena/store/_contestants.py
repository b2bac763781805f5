"""A contestant named on a command line, stored as a controller with where it came from."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.baselines import BASELINES, load_baseline
from arena.store._records import Entrant, Origin

if TYPE_CHECKING:
    from arena.match import Contestant
    from arena.store._facade import Store

__all__ = ["store_contestant"]


def store_contestant(store: Store, contestant: Contestant, *, name: str | None = None) -> Entrant:
    """Store ``contestant``'s controller and return it as an entrant.

    Its origin is ``baseline`` when it is a committed baseline's module under
    that baseline's name (a hidden baseline stays hidden), else ``file``.
    ``name`` is the name it enters under (default: the contestant's).
    """
    baseline = BASELINES.get(contestant.name)
    is_baseline = baseline is not None and contestant.blob == load_baseline(contestant.name)
    record = store.add_controller(
        contestant.blob,
        name=name or contestant.name,
        origin=Origin.BASELINE if is_baseline else Origin.FILE,
        hidden=baseline.hidden if baseline is not None and is_baseline else False,
    )
    return Entrant(name or contestant.name, record.sha256)
