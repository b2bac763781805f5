"""Headless Chromium for the browser tests and the benchmark: Debian's, never a download.

``chromium_missing`` says why Chromium cannot be used, in one line, or
nothing: ``scripts/setup.sh`` prints it after trying apt, and the browser
tests are skipped with that same line as their reason.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Playwright

__all__ = ["CHROMIUM_ARGS", "chromium_missing", "chromium_path", "launch_chromium"]

CHROMIUM_ARGS: Final = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
)


def chromium_path() -> str:
    """``$FORAY_CHROMIUM``, or Debian's ``/usr/bin/chromium`` (``scripts/setup.sh`` installs it)."""
    return os.environ.get("FORAY_CHROMIUM", "/usr/bin/chromium")


def chromium_missing() -> str | None:
    """Why the browser cannot be launched, in one line that says how to mend it; None if it can."""
    path = chromium_path()
    if os.path.isfile(path) and os.access(path, os.X_OK):
        return None
    if "FORAY_CHROMIUM" in os.environ:
        return f"$FORAY_CHROMIUM ({path}) is not an executable file: point it at a Chromium"
    return (
        f"Debian's chromium is not installed ({path}): install it as root with "
        "`apt-get install chromium` (or set $FORAY_CHROMIUM), then the browser tests run"
    )


def launch_chromium(playwright: Playwright) -> Browser:
    """Launch the system's Chromium, headless, with Playwright (the dev extra)."""
    return playwright.chromium.launch(
        executable_path=chromium_path(), args=list(CHROMIUM_ARGS), headless=True
    )
