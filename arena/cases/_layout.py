"""Where a case lives: its manifest's file name and its version directories."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

__all__ = ["MANIFEST", "version_of"]

MANIFEST: Final = "test-case.toml"
VERSION_DIR = re.compile(r"[1-9][0-9]{0,8}")


def version_of(directory: Path) -> int | None:
    """The case version a directory's name gives (``1``, ``2``, ...), or None if it is not one."""
    return int(directory.name) if VERSION_DIR.fullmatch(directory.name) else None
