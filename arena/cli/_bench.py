"""``arena bench``: the one-run summary, or one detailed figure."""

from __future__ import annotations

import argparse
from pathlib import Path

from arena._errors import ArenaError
from arena.cli._common import at_least

__all__ = ["register"]


def cmd_bench(args: argparse.Namespace) -> int:
    from arena.bench import Size, run_benchmarks

    before = None
    if args.before is not None:
        before = Path(args.before)
        if not (before / "arena" / "__init__.py").is_file():
            raise ArenaError(f"{before}: not a checkout of the project (no arena/__init__.py)")
    size = Size.QUICK if args.quick else Size.FULL
    if (args.entrants is not None or args.made_up is not None) and args.which != "field":
        raise ArenaError("--entrants and --made-up go with arena bench field")
    run_benchmarks(
        args.which,
        before=before,
        as_json=args.json,
        size=size,
        entrants=args.entrants,
        made_up=args.made_up,
    )
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from arena._extensions import BENCHMARKS, extensions

    be = sub.add_parser(
        "bench",
        help="print speed figures",
        description=(
            "Without a figure's name: the one-run summary (simulator, whole matches, host "
            "overhead, replay size, tournament on 1 and N workers, the server's replay "
            "stream). With one: that figure in detail; 'all' is every detailed figure."
        ),
    )
    # Figures of the packages above arena too (``web``: the viewer in a browser, the site).
    choices = [
        "all",
        "sim",
        "match",
        "store",
        "tournament",
        "scale",
        "field",
        "parts",
        "process",
        "startup",
        *extensions(BENCHMARKS),
    ]
    be.add_argument("which", nargs="?", default=None, choices=choices)
    be.add_argument("--quick", action="store_true", help="fewer repetitions, shorter runs")
    be.add_argument(
        "--json",
        action="store_true",
        help="the summary as one JSON object on stdout (progress on stderr)",
    )
    be.add_argument(
        "--before",
        metavar="DIR",
        help=(
            "an earlier checkout of the project: parts, process and web-endpoints measure"
            " it too, in turns"
        ),
    )
    be.add_argument(
        "--entrants",
        type=at_least(2),
        metavar="N",
        help="field: the played field's entrants (default 16, --quick 8; the issue's figure is 64)",
    )
    be.add_argument(
        "--made-up",
        type=at_least(16),
        metavar="N",
        help="field: the made-up field's entrants at its last step (default 250, --quick 100; "
        "the issue's figure is 1000, most of an hour)",
    )
    be.set_defaults(func=cmd_bench)
