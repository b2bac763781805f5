"""``arena replay verify``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import replays
from arena._errors import ArenaError
from arena.cli import _inspect
from arena.cli._common import emit_json

__all__ = ["register"]


def cmd_verify(args: argparse.Namespace) -> int:
    path = Path(args.file)
    try:
        # Streamed: the reader bounds the file's size and every length in it.
        with path.open("rb") as f:
            report = replays.verify_replay(f)
    except OSError as exc:
        raise ArenaError(f"{path}: cannot read the replay: {exc.strerror or exc}") from None
    if args.json:
        emit_json(report.to_json())
    elif report.ok:
        print(f"{path}: ok, {report.ticks} ticks re-simulated")
    else:
        print(f"{path}: FAILED: {report.detail}", file=sys.stderr)
    return 0 if report.ok else 1


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    r = sub.add_parser("replay", help="replay files").add_subparsers(
        dest="replay_command", required=True
    )
    v = r.add_parser("verify", help="re-simulate a replay and compare every checksum")
    v.add_argument("file")
    v.add_argument("--json", action="store_true")
    v.set_defaults(func=cmd_verify)
    _inspect.register(r)
