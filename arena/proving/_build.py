"""Building a submission: the case's ``[build]`` commands under a time limit, then the gate.

A submission is a directory (a copy of the case's workspace, changed by its
author). Its commands are the author's code: they run as the operator, in
their own process group, and the whole group is killed at the limit and when
the command ends, so nothing a build started outlives it (docs/cases.md).
Whatever goes wrong is a ``Build`` with its status, reason and log, never an
exception: a failed build is an outcome of the submission.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import selectors
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Final

from arena._errors import ArenaError
from arena._files import read_regular
from arena.baselines import BuildError, pinned_asc
from arena.cases import Case
from arena.sandbox import MAX_MODULE_BYTES

__all__ = [
    "MAX_LOG_BYTES",
    "Build",
    "BuildStatus",
    "build_submission",
    "gate_module",
    "run_commands",
]

MAX_LOG_BYTES: Final = 64 * 1024
"""The most of a build's output kept: its end (where a build says what went wrong)."""
_REAPER: Final = Path(__file__).with_name("_reaper.py")
"""The supervisor each build command runs under (run as a script)."""
_POLL: Final = 0.05
"""Seconds between looks at a running command: short beside any build, so a command's end
is seen soon after it comes, and long enough that the looks cost nothing."""
_GRACE: Final = 2.0
"""Seconds to wait for the output's end once the command has ended or been told to stop
(the reaper sweeping what it started); past them, the reaper's group is killed."""


class BuildStatus(StrEnum):
    """How a submission's build ended."""

    OK = "ok"
    """Built, and the module is admissible."""
    FAILED = "failed"
    """A command failed, or the module is missing, unreadable or not admissible."""
    TIMED_OUT = "timed-out"
    """The commands did not finish within the limit; their process group was killed."""


@dataclass(frozen=True, slots=True)
class Build:
    """A submission made ready to play, or why it cannot be: built (for a directory) and gated.

    ``sha256`` is set whenever the module was read, admissible or not (a run
    of an inadmissible module records it); ``blob`` only when the build is ok.
    """

    directory: Path | None
    """The submission's directory; None for a module file proved as it is."""
    status: BuildStatus
    reason: str | None
    """Why it is not ok (None when it is)."""
    log: str
    """The commands' output (stdout and stderr), its last ``MAX_LOG_BYTES``; "" if none ran."""
    module: Path
    """Where the module is (or should have been)."""
    sha256: str | None
    seconds: float
    """Wall-clock seconds the commands took (metadata, never part of a result)."""
    blob: bytes | None = field(default=None, repr=False)

    @property
    def ok(self) -> bool:
        return self.status is BuildStatus.OK

    def to_json(self) -> dict[str, Any]:
        """The build as ``arena build --json`` prints it."""
        return {
            "ok": self.ok,
            "status": str(self.status),
            "reason": self.reason,
            "directory": None if self.directory is None else str(self.directory),
            "module": str(self.module),
            "sha256": self.sha256,
            "seconds": round(self.seconds, 3),
            "log": self.log,
        }


class _Log:
    """A command's output as it comes: the last ``limit`` bytes, and how many were dropped."""

    def __init__(self, limit: int = MAX_LOG_BYTES) -> None:
        self.limit = limit
        self.data = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        self.data += chunk
        extra = len(self.data) - self.limit
        if extra > 0:
            del self.data[:extra]
            self.dropped += extra

    def text(self) -> str:
        text = self.data.decode("utf-8", "replace")
        if self.dropped:
            text = f"[... {self.dropped:,} bytes of output cut]\n{text}"
        return text


def _exited(pid: int) -> bool:
    """Whether the child ``pid`` has ended, without reaping it.

    An unreaped child keeps its pid, and so its process group's id, from being
    reused: the group can still be killed safely after its leader ended.
    """
    return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None


def _kill_group(pgid: int) -> None:
    # Nobody left is fine (a group of zombies may answer EPERM on some systems).
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _run(command: str, cwd: Path, env: dict[str, str], deadline: float, log: _Log) -> int | None:
    """Run one shell command under the reaper (``_reaper.py``); its exit status, or None if
    timed out.

    The output is read as it comes (a build that writes a lot never blocks on
    a full pipe). When the command ends, the reaper kills everything it
    started, its process group and any process that left it (``setsid``);
    at the deadline it is told to (SIGTERM), and its own group is killed
    with SIGKILL in any case.
    """
    proc = subprocess.Popen(
        [sys.executable, "-I", str(_REAPER), command],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    assert proc.stdout is not None
    timed_out = False
    try:
        fd = proc.stdout.fileno()
        os.set_blocking(fd, False)
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            open_pipe = True
            grace_end: float | None = None  # set once the group is killed
            while True:
                now = time.monotonic()
                if grace_end is None:
                    ended = _exited(proc.pid)
                    timed_out = not ended and now >= deadline
                    if timed_out:
                        # The reaper ends the command and all it started, then itself.
                        with contextlib.suppress(ProcessLookupError):
                            proc.send_signal(signal.SIGTERM)
                    if ended or timed_out:
                        grace_end = now + _GRACE
                if grace_end is not None and (not open_pipe or now >= grace_end):
                    # The output has ended, or a process that left the group
                    # holds the pipe open: its output is not waited for.
                    break
                wait = min(_POLL, max(0.0, (grace_end or deadline) - now))
                if not open_pipe:
                    time.sleep(wait)
                    continue
                for _key, _events in selector.select(wait):
                    chunk = os.read(fd, 65536)
                    if chunk:
                        log.add(chunk)
                    else:
                        selector.unregister(fd)
                        open_pipe = False
    finally:
        # The reaper is done by now, or past its grace (or we are interrupted): its group goes.
        _kill_group(proc.pid)
        proc.stdout.close()
        proc.wait()
    return None if timed_out else proc.returncode


def _status_text(code: int) -> str:
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"was killed by {name}"
    return f"exited with status {code}"


def build_env() -> dict[str, str]:
    """The environment of a build: the operator's, with ``PYTHON`` the arena's own interpreter
    and ``ASC`` its own AssemblyScript compiler (when installed).

    The Foray case's build scripts run ``$PYTHON -m ziglang``: the arena's
    interpreter has the pinned ``ziglang``, so a proof run builds with the
    compiler the arena was tested with, whatever ``python3`` is on the PATH. An
    AssemblyScript project's ``build.sh`` runs ``$ASC`` when it is set, and
    otherwise installs the compiler its lockfile pins (the arena's) with npm.
    """
    env = {**os.environ, "PYTHON": sys.executable}
    # Not installed here: build.sh installs its own (the same version) with npm.
    with contextlib.suppress(BuildError):
        env["ASC"] = str(pinned_asc())
    return env


@dataclass(frozen=True, slots=True)
class CommandsRun:
    """What ``run_commands`` did: the first failure (None if every command succeeded)."""

    status: BuildStatus
    reason: str | None
    log: str
    seconds: float


def run_commands(commands: list[tuple[str, str]], directory: Path, *, limit: float) -> CommandsRun:
    """Run ``(what, command)`` pairs in ``directory`` one after the other, within ``limit`` seconds.

    Stops at the first command that fails. The log holds every command's
    output, each after a ``$ command`` line.
    """
    if limit <= 0:
        raise ArenaError(f"a build's time limit must be positive, not {limit}")
    log = _Log()
    start = time.monotonic()
    deadline = start + limit
    env = build_env()
    for what, command in commands:
        log.add(f"$ {command}\n".encode())
        code = _run(command, directory, env, deadline, log)
        seconds = time.monotonic() - start
        if code is None:
            reason = (
                f"the {what} command did not finish within the limit of {limit:g} s"
                " (its process group was killed)"
            )
            log.add(f"[killed after {seconds:.1f} s: the limit is {limit:g} s]\n".encode())
            return CommandsRun(BuildStatus.TIMED_OUT, reason, log.text(), seconds)
        if code != 0:
            reason = f"the {what} command ({command}) {_status_text(code)}"
            return CommandsRun(BuildStatus.FAILED, reason, log.text(), seconds)
    return CommandsRun(BuildStatus.OK, None, log.text(), time.monotonic() - start)


def _limit(case: Case, timeout: float | None) -> float:
    """The time limit of a build: the case's ``max_runtime_hours``, or ``timeout`` if sooner."""
    if timeout is not None and timeout <= 0:
        raise ArenaError(f"--timeout must be a positive number of seconds, not {timeout:g}")
    cap = case.max_runtime_seconds
    return cap if timeout is None else min(cap, timeout)


def _gated(
    directory: Path | None, module: Path, blob: bytes, case: Case, log: str, seconds: float
) -> Build:
    """The build of a module's bytes once gated: admissible under the case's limits, or why
    not."""
    from arena.sandbox import check_module  # the engine: loaded only to gate a module

    sha256 = hashlib.sha256(blob).hexdigest()
    admission = check_module(blob, case.limits)
    if not admission.admissible:
        reason = f"{module.name} is not admissible: {admission.reason}"
        return Build(directory, BuildStatus.FAILED, reason, log, module, sha256, seconds)
    return Build(directory, BuildStatus.OK, None, log, module, sha256, seconds, blob)


def build_submission(directory: Path, case: Case, *, timeout: float | None = None) -> Build:
    """Build the submission in ``directory`` as ``case`` says, and gate the module it makes.

    Runs ``[build] install`` (if the case has one) then ``[build] build`` in
    ``directory`` within the case's ``max_runtime_hours`` (or ``timeout``
    seconds, if that is sooner), then reads the module ``[build] module``
    names: it must exist, be a regular file and be admissible under the case's
    limits. A directory that is not there is an ``ArenaError`` (the operator's
    mistake); everything else that goes wrong is the returned ``Build``'s
    status and reason.
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise ArenaError(f"{directory}: no submission directory there")
    limit = _limit(case, timeout)
    module = directory / case.build.module
    commands = [("build", case.build.build)]
    if case.build.install is not None:
        commands.insert(0, ("install", case.build.install))
    ran = run_commands(commands, directory, limit=limit)
    if ran.status is not BuildStatus.OK:
        return Build(directory, ran.status, ran.reason, ran.log, module, None, ran.seconds)
    if not os.path.lexists(module):
        reason = f"the build made no {case.build.module}"
        return Build(directory, BuildStatus.FAILED, reason, ran.log, module, None, ran.seconds)
    try:
        blob = read_regular(module, MAX_MODULE_BYTES, "module")
    except ArenaError as exc:
        return Build(directory, BuildStatus.FAILED, str(exc), ran.log, module, None, ran.seconds)
    return _gated(directory, module, blob, case, ran.log, ran.seconds)


def gate_module(path: Path, case: Case) -> Build:
    """A module file proved as it is: read it and gate it (no command runs).

    A path that is not a readable regular file is an ``ArenaError`` (the
    operator's mistake, like ``arena check``); a module that is not admissible
    is a failed ``Build`` with the reason.
    """
    path = Path(path)
    blob = read_regular(path, MAX_MODULE_BYTES, "module")
    return _gated(None, path, blob, case, "", 0.0)
