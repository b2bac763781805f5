"""Run one build command and end everything it started: ``python _reaper.py COMMAND``.

A build is the author's code. Killing its process group at the end (or at the
limit) misses a process that left the group (``setsid``, a daemon's double
fork). So each command runs under this small supervisor, which makes itself
the *child subreaper* of everything below it (Linux ``prctl``): a descendant
whose parent exits is re-parented here, not to init, so the supervisor can
find every one of them (``/proc``), kill it and reap it. It does so when the
command ends, and when it is told to stop (SIGTERM: the build's time limit).

It runs as a script (by path), imports nothing of the arena, and exits as the
command did: the same status, or the same signal.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import time

_PR_SET_CHILD_SUBREAPER = 36
_STOPPED = 124
"""The exit status when stopped by SIGTERM before the command ended (the parent's limit)."""
_SWEEP_SECONDS = 10.0
"""A bound on the sweep: a fork bomb may refill the list; what is left then is left."""


class _Stop(Exception):
    """SIGTERM arrived: the build's time is up."""


def _raise_stop(signum: int, frame: object) -> None:
    raise _Stop


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``, zombies included (from ``/proc``)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # The name (in parentheses) may hold spaces: the fields follow its last ")".
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 1 and int(fields[1]) == pid:
            found.append(int(entry))
    return found


def _reap() -> None:
    """Collect every child that has ended (subreaped orphans end up here too)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _sweep(group: int) -> None:
    """Kill the command's group, then every descendant left, until none is."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal.SIGKILL)
    me = os.getpid()
    deadline = time.monotonic() + _SWEEP_SECONDS
    while time.monotonic() < deadline:
        _reap()
        left = _children(me)
        if not left:
            return
        for pid in left:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)


def main(command: str) -> int:
    """Run ``command`` (``sh -c``), end all it started; its exit status (or -signal)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    signal.signal(signal.SIGTERM, _raise_stop)
    proc = None
    try:
        proc = subprocess.Popen(command, shell=True, start_new_session=True)
        code = proc.wait()
    except _Stop:
        code = _STOPPED
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the sweep runs to its end
    if proc is not None:
        _sweep(proc.pid)
    return code


if __name__ == "__main__":
    status = main(sys.argv[1])
    if status < 0:  # killed by a signal: end the same way, so the parent sees it
        with contextlib.suppress(OSError, ValueError):  # SIGKILL and SIGSTOP keep theirs
            signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
    sys.exit(status if status >= 0 else 1)
