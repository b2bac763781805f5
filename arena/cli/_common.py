"""What every command shares: JSON output, argument types, terminal-safe text."""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from rich.console import Console

__all__ = [
    "at_least",
    "count",
    "emit_json",
    "import_msgspec",
    "loading",
    "port",
    "positive",
    "shown",
    "stdout_console",
    "u32",
]

UNWRAPPED_WIDTH: Final = 1000
"""Columns of output that is not a terminal when ``$COLUMNS`` is unset: a row is never wrapped."""


@contextmanager
def loading() -> Iterator[None]:
    """Import a command's modules without the garbage collector, then freeze what they made.

    Importing makes objects by the thousand (classes, functions, ctypes prototypes), and
    each collection on the way walks everything loaded so far, though modules live as long
    as the process. Frozen, they are left out of every later collection; the command's own
    objects are collected as usual (docs/decisions.md, Speed).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def import_msgspec() -> None:
    """Import msgspec as it falls back without ``typing_extensions``: the same on Python 3.11+.

    msgspec takes ``get_type_hints``, ``Required`` and ``NotRequired`` from
    ``typing_extensions`` where it is installed, else from ``typing``; importing
    ``typing_extensions`` loads inspect (with dis, tokenize, linecache), a good part of a
    one-off command's start-up. From Python 3.11 those three names of
    ``typing_extensions`` are ``typing``'s, or call it unchanged with ``include_extras=True``
    (msgspec's only call), so msgspec reads every type as it would (docs/decisions.md,
    Speed). ``typing_extensions`` is hidden only while msgspec imports; later imports of it
    work as usual. Nothing to do once either is loaded.
    """
    if "msgspec" in sys.modules or "typing_extensions" in sys.modules:
        return
    sys.modules["typing_extensions"] = None  # type: ignore[assignment]  # import refused
    try:
        import msgspec  # noqa: F401
    finally:
        if "typing_extensions" in sys.modules and sys.modules["typing_extensions"] is None:
            del sys.modules["typing_extensions"]


def stdout_console(**options: Any) -> Console:
    """Rich's console on stdout, as wide as where the text goes.

    A terminal's own width; ``$COLUMNS`` when it is set (rich reads it); and
    for a pipe or a file without it, wide enough that no table row wraps
    (rich would assume 80 columns).
    """
    from rich.console import Console

    out = Console(**options)
    if not out.is_terminal and not os.environ.get("COLUMNS") and "width" not in options:
        out = Console(width=UNWRAPPED_WIDTH, **options)
    return out


def shown(text: object) -> str:
    """``text`` as a terminal may show it: every character that is not printable escaped.

    Names, details and paths come from module authors and operators: control
    characters (an escape sequence, a carriage return, a bidirectional
    override) and undecodable bytes of a file name are shown as ``\\x1b``,
    ``\\u202e``, ``\\udcff``, never sent to the terminal.
    """
    text = str(text)
    if text.isprintable():
        return text
    return "".join(
        c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text
    )


def emit_json(obj: dict[str, Any]) -> None:
    """Print one JSON document on stdout (the stable ``--json`` interface)."""
    import json

    sys.stdout.write(json.dumps(obj, indent=2) + "\n")


def _at_least(text: str, least: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"{text} is not {what}")
    return value


def positive(text: str) -> int:
    """An argparse type: an integer >= 1."""
    return _at_least(text, 1, "a positive integer")


def count(text: str) -> int:
    """An argparse type: an integer >= 0."""
    return _at_least(text, 0, "a count (0 or more)")


def at_least(least: int) -> Callable[[str], int]:
    """An argparse type: an integer >= ``least``."""
    return lambda text: _at_least(text, least, f"{least} or more")


def port(text: str) -> int:
    """An argparse type: a TCP port, 0..65535 (0: any free one)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text} is not a port number (0..65535)")
    return value


def u32(text: str) -> int:
    """An argparse type: an unsigned 32-bit integer (decimal, or 0x hex)."""
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if not 0 <= value < 1 << 32:
        raise argparse.ArgumentTypeError(f"{text} is not an unsigned 32-bit integer")
    return value
