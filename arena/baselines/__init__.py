"""The committed baseline controllers and their reproducible build (rules §10).

The baselines are C files under the repository's ``baselines/`` folder, built
against ``baselines/foray.h`` with the pip-installable ``ziglang``; the built
modules are committed beside them and a rebuild reproduces them byte for byte.
The SDKs for authors (``foray.h`` for C, ``foray.zig`` for Zig) and their
templates live there too.
"""

from arena.baselines._build import ZIG_BUILD_FLAGS, ZIG_FLAGS, BuildError, compile_c, compile_zig
from arena.baselines._registry import (
    BASELINES,
    BASELINES_DIR,
    Baseline,
    baseline_path,
    build_baselines,
    build_extra,
    check_baselines,
    load_baseline,
)
from arena.baselines._variant import numbered_module

__all__ = [
    "BASELINES",
    "BASELINES_DIR",
    "ZIG_BUILD_FLAGS",
    "ZIG_FLAGS",
    "Baseline",
    "BuildError",
    "baseline_path",
    "build_baselines",
    "build_extra",
    "check_baselines",
    "compile_c",
    "compile_zig",
    "load_baseline",
    "numbered_module",
]
