"""The commands ``web`` adds to ``arena`` (found through the ``foray_arena.commands`` entry point).

``arena`` may not import ``web`` (the layering is sim < replays < arena < web), so
``web`` registers its commands into arena's parser. Heavy imports wait for the
command to run: the parser is built for every command.
"""

from __future__ import annotations

import argparse

__all__ = ["register_commands"]


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text} is not a port number (0..65535)")
    return value


def cmd_view(args: argparse.Namespace) -> int:
    from pathlib import Path

    from web._local import view

    return view(Path(args.replay), port=args.port, open_browser=not args.no_open)


def register_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``arena view`` to arena's command parser."""
    v = sub.add_parser(
        "view", help="watch a replay file in the browser (served on 127.0.0.1, no store or token)"
    )
    v.add_argument("replay", help="a replay file")
    v.add_argument("--port", type=_port, default=0, help="port on 127.0.0.1 (default: a free one)")
    v.add_argument(
        "--no-open", action="store_true", help="print the address but do not open a browser"
    )
    v.set_defaults(func=cmd_view)
