"""The names of ``sim._native``, each once; ``__init__.py`` loads them on first use."""

from ._load import (
    SOURCES as SOURCES,
    NativeCore as NativeCore,
    NativeLoader as NativeLoader,
    NativeSide as NativeSide,
    load as load,
    native_core as native_core,
    native_source_hash as native_source_hash,
    native_unavailable as native_unavailable,
    state_of as state_of,
)
