"""The old home of ``web._lanes``, kept for ``web._site``'s import until that module is split."""

from web._lanes import Lane, WorkerLanes as Coordinator

__all__ = ["Coordinator", "Lane"]
