"""The names of ``replays._native``, each once; ``__init__.py`` loads them on first use."""

from ._load import (
    SOURCES as SOURCES,
    frames_of as frames_of,
    load as load,
)
