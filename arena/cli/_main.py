"""The ``arena`` command line: a parser per command group, and the one error boundary.

JSON output (``--json``) is a stable interface. Operator errors (the project's
own error types: a file that cannot be read, a bad value, a broken map) exit 2
with a message; anything else is a bug and shows its traceback.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import importlib
import os
import sys
from collections.abc import Sequence
from types import ModuleType

import replays
import sim
from arena._errors import ArenaError
from arena._extensions import COMMANDS, extensions
from arena.cli._common import import_msgspec, loading, shown

__all__ = ["build_parser", "main", "operator_errors"]


def operator_errors() -> tuple[type[Exception], ...]:
    """What the operator or a file got wrong: exit 2 with the message, no traceback.

    A function, not a constant: naming sim's and the replays' errors loads their modules
    (and msgspec with them), which ``main`` does among the command's imports, without the
    garbage collector (``loading``), not as this module is imported.
    """
    return (ArenaError, sim.ConfigError, sim.MapError, replays.ReplayError)


# The command group (a module of arena.cli) that registers each command: a
# command line names one command, and only its group's module is imported and
# its parser built. A group imports what its commands use when they run, so
# `arena match` loads neither the other commands' code nor their imports, and
# argparse looks up a translation for fewer help strings.
_GROUP_OF = {
    "map": "_map",
    "check": "_match",
    "match": "_match",
    "prune": "_prune",
    "replay": "_replay",
    "baselines": "_baselines",
    "case": "_cases",
    "cases": "_cases",
    "new": "_prove",
    "build": "_prove",
    "prove": "_prove",
    "runs": "_prove",
    "tournament": "_tournament",
    "tournaments": "_tournament",
    "standings": "_tournament",
    "field": "_field",
    "demo": "_demo",
    "bench": "_bench",
}
_GROUPS = (
    "_map",
    "_match",
    "_prune",
    "_replay",
    "_tournament",
    "_field",
    "_baselines",
    "_cases",
    "_prove",
    "_demo",
    "_bench",
)
"""Every group, in the order of ``arena --help``."""


def _group(name: str) -> ModuleType:
    """The command group module ``arena.cli.<name>`` (one of ``_GROUPS``)."""
    return importlib.import_module(f"arena.cli.{name}")


# The words after ``arena tournament`` that are the desk's commands (``_desk.COMMANDS``),
# kept here so that no other command imports the desk.
_DESK = ("matches", "verify", "rerun", "exclude", "include")


class _Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose help formatter takes the terminal width from ``os``:
    argparse's own way imports shutil (and with it bz2 and lzma) for every command."""

    def _get_formatter(self) -> argparse.HelpFormatter:
        return argparse.HelpFormatter(prog=self.prog, width=_columns() - 2)


def _columns() -> int:
    """The terminal's width as ``shutil.get_terminal_size`` reads it: $COLUMNS, else the
    terminal of stdout, else 80."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    stdout = sys.__stdout__
    if columns <= 0 and stdout is not None:
        try:
            columns = os.get_terminal_size(stdout.fileno()).columns
        except (ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser: every command, or only the group of ``command``."""
    p = _Parser(prog="arena", description="Foray Arena: matches of wasm controllers")
    sub = p.add_subparsers(dest="command", required=True)
    group = _GROUP_OF.get(command or "")
    if group is not None:
        _group(group).register(sub)
        return p
    for name in _GROUPS:
        _group(name).register(sub)
    # Commands of the packages above arena (``arena view`` is web's).
    for entry in extensions(COMMANDS).values():
        entry.load()(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``arena`` console script."""
    # The process ends when the command does: the interpreter's last garbage collections
    # would walk everything the command loaded, for memory the kernel frees anyway (as a
    # worker skips them, docs/benchmarks.md). Objects made after the freeze are still
    # collected, and files and the store are closed by the command itself.
    atexit.unregister(gc.freeze)
    atexit.register(gc.freeze)
    argv = sys.argv[1:] if argv is None else list(argv)
    with loading():
        import_msgspec()  # before anything else loads it
        errors = operator_errors()
        if argv[:1] == ["tournament"] and argv[1:2] and argv[1] in _DESK:
            # ``arena tournament matches ID`` and the like: the desk's own parser (``arena
            # tournament`` itself takes entrants as its words).
            from arena.cli import _desk

            parser = _desk.build_parser(_Parser)
            argv = argv[1:]
        else:
            # The first word names the command (the parser itself takes no options but -h).
            parser = build_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
    except errors as exc:
        # Line by line: a case's errors come one to a line (anything else unprintable is
        # escaped, as always).
        print("error: " + "\n".join(map(shown, str(exc).split("\n"))), file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (``arena ... | head``): not an error of ours.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return code
