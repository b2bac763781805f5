"""The names of ``arena.baselines``, each once; ``__init__.py`` loads them on first use."""

from ._build import (
    ASC_FLAGS as ASC_FLAGS,
    ASSEMBLYSCRIPT_DIR as ASSEMBLYSCRIPT_DIR,
    ZIG_BUILD_FLAGS as ZIG_BUILD_FLAGS,
    ZIG_FLAGS as ZIG_FLAGS,
    BuildError as BuildError,
    assemblyscript_project as assemblyscript_project,
    compile_assemblyscript as compile_assemblyscript,
    compile_c as compile_c,
    compile_zig as compile_zig,
    pinned_asc as pinned_asc,
)
from ._registry import (
    BASELINES as BASELINES,
    BASELINES_DIR as BASELINES_DIR,
    Baseline as Baseline,
    baseline_path as baseline_path,
    build_baselines as build_baselines,
    build_extra as build_extra,
    check_baselines as check_baselines,
    load_baseline as load_baseline,
)
from ._variant import numbered_module as numbered_module
