"""The native frame encoder: a tick's replay frame as msgpack bytes, from the native core.

``_frames.c`` is a second implementation of ``replays._recorder.FrameEncoder``
packed by msgpack, for a match played on the native core (``sim.native_core``);
the Python encoder stays the reference. Built with the core by
``scripts/build_native.py``, never on import; ``load`` refuses a build the
sources have moved on from (and the extension itself one built against another
version of the core's header).
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import sim
from replays._format import KEYFRAME_INTERVAL

__all__ = ["SOURCES", "frames_of", "load"]

SOURCES = ("_frames.c",)
"""The files the module is built from, in this directory (with sim's core.h)."""


def _import() -> ModuleType:
    from replays._native import _frames

    return _frames


load = sim.NativeLoader(_import, Path(__file__).resolve().parent, SOURCES)
"""The extension's module, or None (tried once per process)."""


def frames_of(core: Any, version: int) -> Any | None:
    """A native frame encoder of replay format ``version`` for ``core``'s match, or None."""
    module = load()
    return None if module is None else module.Frames(core, version, KEYFRAME_INTERVAL)
