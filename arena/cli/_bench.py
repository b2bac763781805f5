"""``arena bench``."""

from __future__ import annotations

import argparse
from pathlib import Path

from arena._errors import ArenaError

__all__ = ["register"]


def cmd_bench(args: argparse.Namespace) -> int:
    from arena.bench import run_benchmarks

    before = None
    if args.before is not None:
        before = Path(args.before)
        if not (before / "arena" / "__init__.py").is_file():
            raise ArenaError(f"{before}: not a checkout of the project (no arena/__init__.py)")
    run_benchmarks(args.which, quick=args.quick, before=before)
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from arena._extensions import BENCHMARKS, extensions

    be = sub.add_parser("bench", help="print speed figures")
    # Figures of the packages above arena too (``web``: the viewer in a browser).
    choices = [
        "all",
        "sim",
        "match",
        "store",
        "tournament",
        "scale",
        "parts",
        "process",
        *extensions(BENCHMARKS),
    ]
    be.add_argument("which", nargs="?", default="all", choices=choices)
    be.add_argument("--quick", action="store_true", help="fewer repetitions")
    be.add_argument(
        "--before",
        metavar="DIR",
        help="an earlier checkout of the project: parts and process measure it too, in turns",
    )
    be.set_defaults(func=cmd_bench)
