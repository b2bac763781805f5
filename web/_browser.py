"""Headless Chromium for the browser tests and the benchmark: Debian's, never a download."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Playwright

__all__ = ["CHROMIUM_ARGS", "chromium_path", "launch_chromium"]

CHROMIUM_ARGS: Final = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
)


def chromium_path() -> str:
    """``$FORAY_CHROMIUM``, or Debian's ``/usr/bin/chromium`` (``.ci/run`` installs it)."""
    return os.environ.get("FORAY_CHROMIUM", "/usr/bin/chromium")


def launch_chromium(playwright: Playwright) -> Browser:
    """Launch the system's Chromium, headless, with Playwright (the dev extra)."""
    return playwright.chromium.launch(
        executable_path=chromium_path(), args=list(CHROMIUM_ARGS), headless=True
    )
