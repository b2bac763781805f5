"""The names of ``arena.sandbox._native``, each once; ``__init__.py`` loads them on first use."""

from ._load import (
    SOURCES as SOURCES,
    load as load,
)
