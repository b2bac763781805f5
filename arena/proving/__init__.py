"""Proving: the workflow of a submission to a case, from a new project to a recorded run.

``new_project`` lays out a controller project from a case's workspace;
``build_submission`` builds it under the case's time limit and gates its
module (a ``Build``: ok, failed or timed out, with the reason and the log);
``prove`` plays it in every match of a run of the case and records the run in
the store (a ``Proof``; ``run_report`` reads a stored run back). A run pushed
from another arena is checked against the same definition of a run
(``check_pushed_run``, ``recheck_match``) before it is recorded.

What a valid run is lives in one place: the matches it plays
(``planned_matches``) and how they decide its outcome (``run_outcome``). The
case format itself (manifests, the catalog) is ``arena.cases``, below this
package, the executors and the store.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
