"""Executors: where matches run. A match is a pure function of a ``MatchJob``.

``play`` runs one job in this process; ``LocalExecutor`` runs many on this
machine's worker processes. Only what a ``MatchJob`` and a ``MatchResult``
carry crosses a process boundary.
"""

from arena.executors._local import LocalExecutor, MatchJob, play

__all__ = ["LocalExecutor", "MatchJob", "play"]
