"""The names of ``web.bench``, each once; ``__init__.py`` loads them on first use."""

from ._background import BackgroundServer as BackgroundServer
from ._browser import (
    CHROMIUM_ARGS as CHROMIUM_ARGS,
    chromium_missing as chromium_missing,
    chromium_path as chromium_path,
    launch_chromium as launch_chromium,
)
from ._endpoints import endpoint_figures as endpoint_figures
from ._figures import (
    bench_figures as bench_figures,
    summary_figures as summary_figures,
)
from ._hostile import (
    EventStreams as EventStreams,
    SlowClients as SlowClients,
    loopback_source as loopback_source,
)
from ._hostile_figures import hostile_figures as hostile_figures
from ._load import (
    LISTINGS as LISTINGS,
    LOAD_TOKEN as LOAD_TOKEN,
    Answer as Answer,
    LoadRun as LoadRun,
    Request as Request,
    RequestKind as RequestKind,
    SeededMatch as SeededMatch,
    Timing as Timing,
    drive as drive,
    get_json as get_json,
    mixed_requests as mixed_requests,
    seed_store as seed_store,
    wait_settled as wait_settled,
)
from ._process import (
    Memory as Memory,
    ServerProcess as ServerProcess,
)
from ._viewer import (
    ViewerRun as ViewerRun,
    bench_replay as bench_replay,
    measure_viewer as measure_viewer,
    viewer_figures as viewer_figures,
)
