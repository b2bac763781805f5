"""``arena view REPLAY``: check one replay file, serve its viewer on loopback, open a browser."""

from __future__ import annotations

import contextlib
import threading
import webbrowser
from pathlib import Path

import arena
import replays
from web._guard import default_hosts
from web._stream import ReplayFile
from web._uvicorn import LOOPBACK, bind, serve, url_of
from web._view import view_app

__all__ = ["check_replay", "view"]


def check_replay(path: Path) -> ReplayFile:
    """Read the whole file through the bounded reader; raise ReplayError or ArenaError naming it.

    A FIFO, a device or a directory is refused at once (``arena.open_regular``),
    never waited on. The file checked is returned to serve (``view_app``): sent as it
    is while it stays the file read here.
    """
    try:
        with arena.open_regular(path, "replay") as f:
            stamp = arena.file_stamp(f)
            for _ in replays.frame_chunks(f):
                pass
            checked = stamp if arena.file_stamp(f) == stamp else None
    except OSError as exc:
        raise arena.ArenaError(f"{path}: cannot read the replay: {exc.strerror or exc}") from None
    except replays.ReplayError as exc:
        raise replays.ReplayError(f"{path}: {exc}", exc.tick) from None
    return ReplayFile(path.resolve(), checked)


def _open_browser(url: str) -> None:
    try:
        browser = webbrowser.get()
    except webbrowser.Error:
        print("no browser found here: open the address above in one", flush=True)
        return
    # In a thread: a text-mode browser would hold this one until it quits.
    threading.Thread(target=browser.open, args=(url,), daemon=True).start()


def view(path: Path, *, port: int = 0, open_browser: bool = True) -> int:
    """Serve the viewer of ``path`` on 127.0.0.1:``port`` until Ctrl-C; return the exit code."""
    app = view_app(check_replay(path), allowed_hosts=default_hosts(LOOPBACK))
    sock = bind(LOOPBACK, port)
    url = url_of(sock)
    print(f"viewing {path} at {url}  (Ctrl-C stops)", flush=True)
    if open_browser:
        _open_browser(url)
    # Until Ctrl-C, at any moment of its start too; one while the server is made, before
    # its handler, is the same clean stop.
    with contextlib.suppress(KeyboardInterrupt):
        serve(app, sock)
    print("stopped", flush=True)
    return 0
