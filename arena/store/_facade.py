"""``Store``: the arena's records in one SQLite file; replays and modules as files by sha256.

``Store`` is ``Core`` (the data directory, ``_store.py``) with one mixin a
table; each table's module owns its SQL, its rows and its methods. The
methods are ``Store``'s: callers never see the tables apart.
"""

from __future__ import annotations

from arena.store._controllers import Controllers
from arena.store._fields import Fields
from arena.store._matches import Matches
from arena.store._prune import Pruning
from arena.store._published import Publishing
from arena.store._tokens import Tokens

__all__ = ["Store"]


class Store(Controllers, Matches, Fields, Publishing, Pruning, Tokens):
    """The arena's storage in one data directory: ``arena.sqlite3``, ``replays/``, ``modules/``.

    Open it with ``Store.open``. Every method is one transaction; it may be
    called from any thread (each thread gets its own connection) and from
    several processes at once. Writes wait for a busy lock up to
    ``busy_timeout`` seconds, then raise ``StoreBusyError``. A data directory
    that is read-only, full or damaged raises ``StoreError`` naming the path.
    """
