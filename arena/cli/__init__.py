"""The ``arena`` command line, one module per command group."""

from arena.cli._common import shown
from arena.cli._main import OPERATOR_ERRORS, build_parser, main

__all__ = ["OPERATOR_ERRORS", "build_parser", "main", "shown"]
