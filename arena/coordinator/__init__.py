"""The coordinator: plays a stored tournament on an executor and keeps every result in the store.

It is the one writer of a tournament's records: ``create_tournament`` stores
the plan (format, field, seeds, the case and its rules); ``run_tournament``
plays what is missing, on any executor (this machine's worker processes, a
Ray cluster) or a caller's own pool, recording each match as it completes,
and marks the tournament finished with its standings. A tournament stopped
anyhow (Ctrl-C, a kill, a crash) resumes from the store to the same
standings. ``run_tournament`` is a trio task with a progress callback, so the
command line, the demo and the web server all drive it the same way
(docs/execution.md).
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
