"""The names of ``arena.cli``, each once; ``__init__.py`` loads them on first use."""

from ._common import shown as shown
from ._main import (
    build_parser as build_parser,
    main as main,
)
