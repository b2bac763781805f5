"""``arena serve`` in a process of its own, for the load test and the site's figures.

``ServerProcess`` starts ``python -m arena serve`` on a free port of
127.0.0.1 over a data directory, with a token, reads its address from what it
prints, drains its output (a full pipe would stop it), reads its memory from
``/proc`` and stops it with SIGINT, as Ctrl-C would. The fault tests also use
it to kill a server, or to start one that must not serve.
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from web.bench._load import LOAD_TOKEN

__all__ = ["Memory", "ServerProcess"]


@dataclass(frozen=True, slots=True)
class Memory:
    """Memory of the server's process (``/proc/<pid>/status``), in KiB."""

    rss_kib: int
    """VmRSS: resident now."""
    hwm_kib: int
    """VmHWM: the most resident so far."""
    workers_rss_kib: int
    """VmRSS of its child processes (the workers) together, now."""


def _status_kib(pid: int, *keys: str) -> dict[str, int]:
    found = dict.fromkeys(keys, 0)
    with contextlib.suppress(OSError), open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in found:
                found[key] = int(value.split()[0])
    return found


def _children(pid: int) -> Iterator[int]:
    for entry in Path("/proc").glob("[0-9]*"):
        with contextlib.suppress(OSError, IndexError):
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                yield int(entry.name)


@dataclass
class _Output:
    lines: list[str] = field(default_factory=list)
    ready: queue.SimpleQueue[str | None] = field(default_factory=queue.SimpleQueue)


class ServerProcess:
    """``python -m arena serve`` over the data directory ``root``, on a free port of 127.0.0.1,
    in a process group of its own.

    As a context manager: entering starts it and returns once it prints its
    address (``url``); leaving stops it if it still runs (SIGINT, then SIGKILL
    if it does not stop). ``start`` alone launches it without waiting, for a
    server expected not to serve (``exited``). ``popen`` goes to ``Popen``
    (a ``preexec_fn`` that sets a limit, say); ``options`` to ``arena serve``, after
    ``--no-field`` (the site alone, no field playing beside what is measured).
    ``stdout`` and ``stderr`` hold what it printed; its pipes are read as they
    come, never left full.
    """

    def __init__(
        self,
        root: Path,
        *,
        jobs: int = 1,
        queue: int | None = None,
        token: str = LOAD_TOKEN,
        start_timeout: float = 60.0,
        options: Sequence[str] = (),
        **popen: Any,
    ) -> None:
        self.root = root
        self.token = token
        self._args = ["--jobs", str(jobs)] + ([] if queue is None else ["--queue", str(queue)])
        # The site alone: the field's matches, played from the start, would share its workers.
        self._args += ["--no-field", *options]
        self._start_timeout = start_timeout
        self._popen = popen
        self._out, self._err = _Output(), _Output()
        self._readers: list[threading.Thread] = []
        self._proc: subprocess.Popen[str] | None = None
        self.url = ""

    @property
    def pid(self) -> int:
        """The server's process id."""
        assert self._proc is not None
        return self._proc.pid

    @property
    def port(self) -> int:
        """The port it serves on (once ``url`` is known)."""
        return int(self.url.rstrip("/").rsplit(":", 1)[1])

    @property
    def stdout(self) -> str:
        """What the server printed on stdout so far (its address, its access log)."""
        return "".join(self._out.lines)

    @property
    def stderr(self) -> str:
        """What the server printed on stderr so far."""
        return "".join(self._err.lines)

    def memory(self) -> Memory:
        """The server's memory now (zeros once it is gone)."""
        own = _status_kib(self.pid, "VmRSS", "VmHWM")
        workers = sum(_status_kib(c, "VmRSS")["VmRSS"] for c in _children(self.pid))
        return Memory(own["VmRSS"], own["VmHWM"], workers)

    def start(self) -> ServerProcess:
        """Launch the server (once); returns at once."""
        if self._proc is not None:
            return self
        env = {**os.environ, "FORAY_DATA_DIR": str(self.root), "ARENA_TOKEN": self.token}
        command = [sys.executable, "-m", "arena", "serve", "--host", "127.0.0.1", "--port", "0"]
        self._proc = subprocess.Popen(
            [*command, *self._args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            env=env,
            start_new_session=True,
            **self._popen,
        )
        for stream, out in ((self._proc.stdout, self._out), (self._proc.stderr, self._err)):
            reader = threading.Thread(target=_drain, args=(stream, out), daemon=True)
            reader.start()
            self._readers.append(reader)
        return self

    def serving(self) -> str:
        """Start it if need be and wait until it prints its address: ``url`` (ends in "/").

        ``RuntimeError`` if it exits first, or prints none within ``start_timeout``.
        """
        if self.url:
            return self.url
        self.start()
        assert self._proc is not None
        deadline = time.monotonic() + self._start_timeout
        while True:
            try:
                line = self._out.ready.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise RuntimeError(
                    f"arena serve printed no address within {self._start_timeout:.0f} s"
                ) from None
            if line is None:
                self._proc.wait(timeout=10)
                raise RuntimeError(
                    f"arena serve exited ({self._proc.returncode}) before serving: "
                    f"{self.stderr.strip()[-500:]}"
                )
            if line.startswith("serving ") and " at http://" in line:
                self.url = line.split(" at ", 1)[1].split()[0]
                return self.url

    def exited(self, timeout: float = 60.0) -> int:
        """Wait for the server to exit on its own (it must, within ``timeout``); its exit code."""
        assert self._proc is not None
        try:
            return self._proc.wait(timeout=timeout)
        finally:
            self._end()

    def kill(self) -> None:
        """SIGKILL the server, as an OOM killer or a power cut would; its workers go too."""
        assert self._proc is not None
        if self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait(timeout=10)
        self._end()

    def stop(self, timeout: float = 30.0) -> int:
        """SIGINT (Ctrl-C), then wait for the server to exit; its exit code.

        Kills it and raises ``RuntimeError`` if it has not exited within ``timeout``.
        """
        assert self._proc is not None
        if self._proc.poll() is None:
            self._proc.send_signal(signal.SIGINT)
        try:
            code = self._proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise RuntimeError(
                f"arena serve did not stop within {timeout:.0f} s of SIGINT"
            ) from None
        self._end()
        return code

    def _end(self) -> None:
        """Once the server is gone: whatever is left of its group (orphaned workers) goes too,
        and its pipes are read to their end."""
        assert self._proc is not None
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._proc.pid, signal.SIGKILL)
        for reader in self._readers:
            reader.join(timeout=10)

    def __enter__(self) -> ServerProcess:
        try:
            self.serving()
        except BaseException:
            if self._proc is not None:
                self.kill()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._proc is not None and self._proc.poll() is None:
            try:
                self.stop()
            finally:
                self.kill()
        elif self._proc is not None:
            self._end()


def _drain(stream: Any, out: _Output) -> None:
    """Keep what a pipe says (a pipe left full would stop the server); None at its end."""
    for line in stream:
        out.lines.append(line)
        out.ready.put(line)
    out.ready.put(None)
