"""``arena baselines build|strength``."""

from __future__ import annotations

import argparse
import sys

from arena.cli._common import positive

__all__ = ["register"]


def cmd_build(args: argparse.Namespace) -> int:
    from arena import baselines

    if args.check:
        differ = baselines.check_baselines()
        if differ:
            print(f"differ from a rebuild: {', '.join(differ)}", file=sys.stderr)
            return 1
        print("all baselines match a rebuild from source")
        return 0
    built = baselines.build_baselines(baselines.BASELINES_DIR)
    for name, blob in built.items():
        print(f"built {name}: {len(blob)} bytes")
    return 0


def cmd_strength(args: argparse.Namespace) -> int:
    from arena import bench

    names = args.names or bench.default_field()
    tallies, fuel = bench.play_all(names, args.seeds, jobs=args.jobs)
    print(bench.render_markdown(names, tallies, fuel, args.seeds), end="")
    forfeits = [f for st in fuel.values() for f in st.forfeits]
    for f in forfeits:
        print(f"forfeit: {f}", file=sys.stderr)
    return 1 if forfeits else 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    bl = sub.add_parser("baselines", help="the committed baselines").add_subparsers(
        dest="baselines_command", required=True
    )
    bb = bl.add_parser("build", help="rebuild the baselines from source")
    bb.add_argument(
        "--check", action="store_true", help="compare a rebuild with the committed modules"
    )
    bb.set_defaults(func=cmd_build)
    bs = bl.add_parser("strength", help="win rates and fuel of the baselines, as Markdown")
    bs.add_argument("names", nargs="*", help="entrants (default: the baselines and economy)")
    bs.add_argument("--seeds", type=positive, default=20)
    bs.add_argument("--jobs", type=positive, default=2)
    bs.set_defaults(func=cmd_strength)
