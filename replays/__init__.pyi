"""The names of ``replays``, each once; ``__init__.py`` loads them on first use."""

from ._compressed import (
    MAX_WINDOW_BYTES as MAX_WINDOW_BYTES,
    STORED_LEVEL as STORED_LEVEL,
    ZSTD_MAGIC as ZSTD_MAGIC,
    PackedReplay as PackedReplay,
    SpooledReplay as SpooledReplay,
    compress_replay as compress_replay,
    decompress_replay as decompress_replay,
    is_compressed as is_compressed,
    iter_decompressed as iter_decompressed,
)
from ._errors import ReplayError as ReplayError
from ._events import (
    AppliedTick as AppliedTick,
    EventKind as EventKind,
    UnitEvent as UnitEvent,
    iter_ticks as iter_ticks,
)
from ._format import (
    FORMAT as FORMAT,
    KEYFRAME_INTERVAL as KEYFRAME_INTERVAL,
    LIMIT_RANGES as LIMIT_RANGES,
    MEDIA_TYPE as MEDIA_TYPE,
    MEMORY_VERSION as MEMORY_VERSION,
    SUPPORTED_VERSIONS as SUPPORTED_VERSIONS,
    VERSION as VERSION,
    CaseRef as CaseRef,
    DeltaFrame as DeltaFrame,
    Events as Events,
    ForfeitFrame as ForfeitFrame,
    Frame as Frame,
    Header as Header,
    KeyFrame as KeyFrame,
    Memory as Memory,
    Note as Note,
    Notes as Notes,
    Result as Result,
    ResultSide as ResultSide,
    SideInfo as SideInfo,
    checksum_version as checksum_version,
    extended_version as extended_version,
)
from ._limits import (
    DEFAULT_LIMITS as DEFAULT_LIMITS,
    MAX_DETAIL_CHARS as MAX_DETAIL_CHARS,
    MAX_NAME_CHARS as MAX_NAME_CHARS,
    ReplayLimits as ReplayLimits,
    clip as clip,
)
from ._memory import memory_series as memory_series
from ._reader import (
    Replay as Replay,
    frame_chunks as frame_chunks,
    iter_replay as iter_replay,
    read_replay as read_replay,
)
from ._recorder import (
    CoreRecorder as CoreRecorder,
    Recorder as Recorder,
)
from ._states import (
    FrameState as FrameState,
    iter_games as iter_games,
    iter_states as iter_states,
)
from ._verify import (
    VerifyReport as VerifyReport,
    verify_replay as verify_replay,
)
