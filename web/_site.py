"""The site's work, behind the routes: ``Site``, the arena the handlers call.

``Site`` owns the store (the data directory the CLI uses), the case matches
are played under, and the worker lanes (a thread with a trio loop and worker
processes: ``web._lanes``); ``web._api`` holds no business logic. It is
``SiteCore`` (``web._core``) with one mixin a room, each in a module of its
own:

- ``web._controllers``: listing and serving controllers, uploads, admission
  (in a worker, never here) and names (a name means one module: 409).
- ``web._matches``: the quick-match queue (429 past its bound, a result
  recorded exactly once, matches left pending played at the next start), and
  every match's JSON and replay.
- ``web._runs``: proof runs, and push (admitted as an upload is, every match
  played again, then recorded).
- ``web._tournaments``: tournaments started from the server (played on at the
  next start if the server stops first) and their JSON.
- ``web._profiles``: a controller's page (its runs, its record against each
  opponent, its ratings after each match) and head to head.
- ``web._field``: the field of the case (issue 26): each pushed controller that could
  compete enters it, its meetings played behind quick matches; withdrawals.

This module opens the site (``Site.open``), says how busy it is (``status``)
and bounds the event streams. Every method that touches the disk is
synchronous (handlers run them in a thread); the ones that wait for a worker
are coroutines.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import arena
from web._field import Fields
from web._lanes import Lane, WorkerLanes
from web._limits import SiteLimits, Slots
from web._matches import Matches
from web._profiles import Profiles
from web._tournaments import Tournaments

__all__ = ["Site"]

_log = logging.getLogger("web")


class Site(Matches, Fields, Tournaments, Profiles):
    """The arena behind the web: one store, one case, one set of worker lanes. See the
    module's doc."""

    def __init__(
        self, store: arena.Store, case: arena.Case, limits: SiteLimits, lanes: WorkerLanes
    ) -> None:
        """Use ``Site.open``."""
        super().__init__(store, case, limits, lanes)
        self.streams = Slots(limits.streams, "too many event streams are open")

    @classmethod
    @contextmanager
    def open(
        cls,
        root: Path | None = None,
        *,
        limits: SiteLimits | None = None,
        case: arena.Case | None = None,
    ) -> Iterator[Site]:
        """The site over the data directory ``root`` (default: ``arena.data_dir()``), running.

        Deletes the temporary files killed writes left (``Store.sweep``),
        stores the case's committed opponents (hidden ones hidden), starts the
        worker lanes and their workers, queues again the matches a previous
        server left pending and plays on the tournaments it started and left
        running. Leaving the block stops the workers; matches not finished by
        then stay pending, tournaments running, to be played at the next start.
        """
        limits = limits or SiteLimits()
        case = case or arena.default_case()
        store = arena.Store.open(root)
        try:
            for path in [*store.swept, *store.sweep()]:
                _log.info("deleted %s: a temporary file of a write that never finished", path)
            for opponent in case.opponents:
                store.add_controller(
                    opponent.read_module(),
                    name=opponent.name,
                    origin=arena.Origin.BASELINE,
                    hidden=opponent.hidden,
                )
            with WorkerLanes(
                {Lane.MATCH: limits.workers, Lane.CHECK: limits.check_workers}
            ) as lanes:
                site = cls(store, case, limits, lanes)
                site.drop_old_quick_matches()
                site._resume()
                site._resume_tournaments()
                site._resume_field()
                yield site
        finally:
            store.close()

    def status(self, *, everything: bool = True) -> dict[str, Any]:
        """The case; with ``everything`` (the console), the queue and the workers now too.

        The public side learns only the case: the queue counts unpublished quick matches."""
        c = self.case
        case = {
            "case": {
                "slug": c.slug,
                "version": c.version,
                "name": c.name,
                "difficulty": str(c.difficulty),
                "tags": list(c.tags),
                "summary": c.summary,
            }
        }
        if not everything:
            return case
        running, waiting = self.lanes.busy(Lane.MATCH)
        return {
            **case,
            "workers": self.limits.workers,
            "queue": {"capacity": self.limits.queue, "accepted": self._accepted.used},
            "running": running,
            "waiting": waiting,
        }

    def exists(self, kind: str, ident: int, *, everything: bool = True) -> bool:
        """Whether the run, match or tournament ``ident`` is stored (without ``everything``:
        and published)."""
        read: dict[
            str, Callable[[int], arena.RunRecord | arena.MatchRecord | arena.TournamentRecord]
        ] = {
            "run": self.store.run,
            "match": self.store.match,
            "tournament": self.store.tournament,
        }
        try:
            record = read[kind](ident)
        except arena.NotInStoreError:
            return False
        return everything or record.published
