"""``arena replay verify``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import replays
from arena.cli import _inspect
from arena.cli._common import emit_json, shown

__all__ = ["register"]


def cmd_verify(args: argparse.Namespace) -> int:
    from arena._files import open_regular, read_regular

    path = Path(args.file)
    if args.modules:
        from arena.match import load_contestant, replay_matches

        a, b = (load_contestant(spec) for spec in args.modules)
        # The whole file, bounded by the reader's own size limit (one byte more
        # is read so that the reader refuses an oversized file by size).
        data = read_regular(path, replays.DEFAULT_LIMITS.max_bytes, "replay")
        report = replay_matches(data, a.blob, b.blob)
        how = "played again from the modules, byte for byte the same"
    else:
        # Streamed: the reader bounds the file's size and every length in it.
        with open_regular(path, "replay") as f:
            report = replays.verify_replay(f)
        how = "re-simulated"
    if args.json:
        emit_json(report.to_json())
    elif report.ok:
        print(f"{shown(path)}: ok, {report.ticks} ticks {how}")
    else:
        print(f"{shown(path)}: FAILED: {shown(report.detail)}", file=sys.stderr)
    return 0 if report.ok else 1


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    r = sub.add_parser("replay", help="replay files").add_subparsers(
        dest="replay_command", required=True
    )
    v = r.add_parser(
        "verify",
        help="re-simulate a replay and check it (with --modules: play it again and compare)",
    )
    v.add_argument("file")
    v.add_argument(
        "--modules",
        nargs=2,
        metavar=("A", "B"),
        help="side A's and side B's modules (.wasm paths or baseline names): play the"
        " match again and require the same replay bytes",
    )
    v.add_argument("--json", action="store_true")
    v.set_defaults(func=cmd_verify)
    _inspect.register(r)
