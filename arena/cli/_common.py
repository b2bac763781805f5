"""What every command shares: JSON output, argument types, terminal-safe text."""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Any

__all__ = ["emit_json", "positive", "printable", "u32"]

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` safe for a terminal: control characters (escape sequences) shown as \\xNN."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def emit_json(obj: dict[str, Any]) -> None:
    """Print one JSON document on stdout (the stable ``--json`` interface)."""
    sys.stdout.write(json.dumps(obj, indent=2) + "\n")


def positive(text: str) -> int:
    """An argparse type: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive integer")
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
