"""The names of ``arena.sandbox``, each once; ``__init__.py`` loads them on first use."""

from ._admission import check_module as check_module
from ._controller import (
    Controller as Controller,
    floor_calls as floor_calls,
)
from ._engine import WASMTIME_VERSION as WASMTIME_VERSION
from ._ffi import WASMTIME_LIBRARY as WASMTIME_LIBRARY
from ._limits import (
    BUFFER_BYTES as BUFFER_BYTES,
    MAX_MODULE_BYTES as MAX_MODULE_BYTES,
    MAX_TABLES as MAX_TABLES,
    TABLE_ELEMENTS as TABLE_ELEMENTS,
    Admission as Admission,
    Fault as Fault,
    Limits as Limits,
)
from ._structural_limits import (
    STRUCTURAL_LIMITS as STRUCTURAL_LIMITS,
    StructuralLimits as StructuralLimits,
)
