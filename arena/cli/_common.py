"""What every command shares: JSON output, argument types, terminal-safe text."""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["emit_json", "positive", "u32"]


def emit_json(obj: dict[str, Any]) -> None:
    """Print one JSON document on stdout (the stable ``--json`` interface)."""
    import json

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
