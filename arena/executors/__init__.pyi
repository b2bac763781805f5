"""The names of ``arena.executors``, each once; ``__init__.py`` loads them on first use."""

from ._abc import (
    Executor as Executor,
    ExecutorLostError as ExecutorLostError,
    OnOutcome as OnOutcome,
    Session as Session,
    WorkersUnavailableError as WorkersUnavailableError,
)
from ._forkserver import (
    start_worker_server as start_worker_server,
    stop_worker_server as stop_worker_server,
)
from ._job import (
    JobFailed as JobFailed,
    MatchJob as MatchJob,
    Outcome as Outcome,
    default_jobs as default_jobs,
)
from ._local import (
    LocalExecutor as LocalExecutor,
    WorkerDied as WorkerDied,
    WorkerPool as WorkerPool,
    open_worker_pool as open_worker_pool,
)
from ._play import (
    play as play,
    play_batch_timed as play_batch_timed,
)
from ._ray import (
    RAY_ADDRESS_ENV as RAY_ADDRESS_ENV,
    RayExecutor as RayExecutor,
    RayNodeLostError as RayNodeLostError,
    RayStats as RayStats,
    RayUnavailableError as RayUnavailableError,
)
