"""What other packages of this distribution add to ``arena``: commands and benchmark figures.

``arena`` may not import ``web`` (the layering is sim < replays < arena < web),
yet ``arena view`` is web's command and ``arena bench web`` web's figure. So
``web`` declares entry points in pyproject.toml and ``arena`` loads them by group:
``foray_arena.commands`` (``register(subparsers)``, like the CLI's own modules),
``foray_arena.bench`` (``figures(repeat)``, printing like ``arena bench``),
``foray_arena.summary`` (``figures(size) -> {key: number}``: its part of the
one-run summary of ``arena bench``, printing as it measures; ``size`` is
``full`` or ``quick``, the keys among ``arena.bench.SUMMARY_KEYS``) and
``foray_arena.site`` (``serve_site(host, port) -> exit code``: ``arena demo``
ends by serving the site).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

__all__ = ["BENCHMARKS", "COMMANDS", "SITE", "SUMMARIES", "extensions"]

COMMANDS: Final = "foray_arena.commands"
BENCHMARKS: Final = "foray_arena.bench"
SUMMARIES: Final = "foray_arena.summary"
SITE: Final = "foray_arena.site"


def extensions(group: str) -> dict[str, EntryPoint]:
    """The entry points of ``group``, by name, in name order."""
    # importlib.metadata is slow to import (docs/benchmarks.md): only commands that
    # look it up pay.
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in sorted(entry_points(group=group), key=lambda ep: ep.name)}
