"""``arena bench``."""

from __future__ import annotations

import argparse

__all__ = ["register"]


def cmd_bench(args: argparse.Namespace) -> int:
    from arena.bench import run_benchmarks

    run_benchmarks(args.which, quick=args.quick)
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from arena._extensions import BENCHMARKS, extensions

    be = sub.add_parser("bench", help="print speed figures")
    # Figures of the packages above arena too (``web``: the viewer in a browser).
    choices = ["all", "sim", "match", "store", "tournament", *extensions(BENCHMARKS)]
    be.add_argument("which", nargs="?", default="all", choices=choices)
    be.add_argument("--quick", action="store_true", help="fewer repetitions")
    be.set_defaults(func=cmd_bench)
