"""What can go wrong with the store, named after the fault: all are operator errors (exit 2)."""

from __future__ import annotations

from arena._errors import ArenaError

__all__ = [
    "CorruptFileError",
    "HeldModuleError",
    "NotInStoreError",
    "StoreBusyError",
    "StoreError",
    "StoreVersionError",
]


class StoreError(ArenaError):
    """The store cannot be used: its directory is read-only or full, or its file is damaged.

    The message names the path and what the operating system or SQLite said.
    """


class StoreBusyError(StoreError):
    """Other processes held the store's write lock for longer than the busy timeout."""


class StoreVersionError(StoreError):
    """The database was written by a newer arena (its schema version is above this code's)."""


class CorruptFileError(StoreError):
    """A replay or module file is missing, truncated or changed: its sha256 is not its name."""


class NotInStoreError(ArenaError):
    """A match, tournament, run, controller or file that the store does not hold."""


class HeldModuleError(ArenaError):
    """A quick match or a tournament that plays a worker's local run (its module held for
    review only) cannot be published: the run is published by pushing it."""
