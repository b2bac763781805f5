"""The ``arena`` command line: a parser per command group, and the one error boundary.

JSON output (``--json``) is a stable interface. Operator errors (the project's
own error types: a file that cannot be read, a bad value, a broken map) exit 2
with a message; anything else is a bug and shows its traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

import replays
import sim
from arena._errors import ArenaError
from arena._extensions import COMMANDS, extensions
from arena.cli import _baselines, _bench, _cases, _demo, _map, _match, _replay, _tournament
from arena.cli._common import shown

__all__ = ["OPERATOR_ERRORS", "build_parser", "main"]

OPERATOR_ERRORS: tuple[type[Exception], ...] = (
    ArenaError,
    sim.ConfigError,
    sim.MapError,
    replays.ReplayError,
)
"""What the operator or a file got wrong: exit 2 with the message, no traceback."""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="arena", description="Foray Arena: matches of wasm controllers"
    )
    sub = p.add_subparsers(dest="command", required=True)
    for group in (_map, _match, _replay, _tournament, _baselines, _cases, _demo, _bench):
        group.register(sub)
    # Commands of the packages above arena (``arena view`` is web's).
    for entry in extensions(COMMANDS).values():
        entry.load()(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``arena`` console script."""
    args = build_parser().parse_args(argv)
    try:
        code: int = args.func(args)
    except OPERATOR_ERRORS as exc:
        print(f"error: {shown(exc)}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (``arena ... | head``): not an error of ours.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return code
