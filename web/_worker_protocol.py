"""The workers' protocol: the messages a worker and the site exchange, their bounds, and parsing.

A worker (``arena worker``) opens a WebSocket to the site
(``/api/workers/connect?name=NAME``, its worker token in ``Authorization``)
and the two exchange small JSON text messages, each an object with a
``type``, and one kind of binary message, a module (docs/web.md, "Workers"):

- worker to site: ``hello`` (first, within ``HELLO_SECONDS``: its local runs),
  ``runs`` (its local runs again, when they changed), ``missing`` (a module it
  was asked for and cannot give, with the reason), and a module: a binary
  message of the requested sha256's 32 bytes, then the module's bytes;
- site to worker: ``welcome`` (the hello was taken: the bounds), ``fetch`` (a
  module by sha256).

Everything a worker sends is parsed here, bounded before it is decoded, and
refused with ``ProtocolViolation`` (the close code and the reason the site
closes the connection with). This module does no I/O: both ends use it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from enum import IntEnum
from typing import Any, Final

import arena

__all__ = [
    "DIGEST_BYTES",
    "HELLO_SECONDS",
    "MAX_RUNS",
    "MAX_TEXT_BYTES",
    "CloseCode",
    "Hello",
    "LocalRun",
    "Missing",
    "ProtocolViolation",
    "Runs",
    "digest_of",
    "fetch_message",
    "local_runs",
    "module_message",
    "parse_module",
    "parse_text",
    "welcome_message",
]

MAX_RUNS: Final = 1000
"""The most local runs a worker may offer (its newest; ``arena worker`` sends no more)."""
MAX_TEXT_BYTES: Final = 1024 * 1024
"""The largest text message a worker may send (a hello of ``MAX_RUNS`` runs fits)."""
DIGEST_BYTES: Final = 32
"""A module message starts with the requested module's sha256, as 32 bytes."""
HELLO_SECONDS: Final = 10.0
"""How long the site waits for a worker's hello after the connection opens."""
_MAX_SHORT: Final = 64
"""The longest outcome, case slug or moment a run may carry."""


class CloseCode(IntEnum):
    """Why the site closes a worker's connection (WebSocket close codes 4000 + an HTTP status)."""

    MALFORMED = 4400
    """A message that is not one of the protocol's (the reason names what is wrong)."""
    TIMEOUT = 4408
    """No hello in time."""
    TOO_LARGE = 4413
    """A message over its bound: too many runs, a text or a module too large."""
    REVOKED = 4401
    """The worker's token was revoked while it was connected."""


class ProtocolViolation(Exception):
    """A worker's message the site refuses: the connection is closed with ``code`` and the
    message (a WebSocket close reason: at most 123 bytes)."""

    def __init__(self, code: CloseCode, reason: str) -> None:
        super().__init__(_short(reason))
        self.code = code
        self.reason = _short(reason)


def _short(reason: str) -> str:
    data = reason.encode("utf-8")[:123]
    return data.decode("utf-8", errors="ignore")


@dataclass(frozen=True, slots=True)
class LocalRun:
    """A local run a worker offers: a proof run of its own data directory whose build made a
    module (``controller_sha256``), as the site lists it."""

    run: int
    """The run's id in the worker's own store."""
    controller: str
    sha256: str
    outcome: str
    case: str
    version: int
    created_at: str

    def to_json(self) -> dict[str, Any]:
        return {
            "run": self.run,
            "controller": self.controller,
            "sha256": self.sha256,
            "outcome": self.outcome,
            "case": self.case,
            "version": self.version,
            "created_at": self.created_at,
        }


@dataclass(frozen=True, slots=True)
class Hello:
    """A worker's first message: its local runs."""

    runs: tuple[LocalRun, ...]


@dataclass(frozen=True, slots=True)
class Runs:
    """A worker's local runs, again (they changed)."""

    runs: tuple[LocalRun, ...]


@dataclass(frozen=True, slots=True)
class Missing:
    """A module the worker was asked for and cannot give."""

    sha256: str
    reason: str


_PROVED_HERE: Final = frozenset({arena.Origin.RUN, arena.Origin.FILE})
"""The origins of a module proved on this machine: built from a directory, or a module file."""


def local_runs(store: arena.Store, *, most: int = MAX_RUNS) -> list[LocalRun]:
    """The local runs of ``store``: its proof runs of a module proved here, from a directory it
    built (origin ``run``) or from a module file (origin ``file``), newest first, one per
    module, at most ``most``. Not a published run (a pushed one is published as it is
    recorded; the same module proved here too is listed by its unpublished run) nor a
    baseline's (a committed opponent, listed as one)."""
    origins = {c.sha256: c.origin for c in store.controllers(include_hidden=True)}
    found: list[LocalRun] = []
    seen: set[str] = set()
    before: int | None = None
    while len(found) < most:
        page = store.runs(limit=500, before=before)
        if not page:
            break
        for r in page:
            sha = r.controller_sha256
            if r.published or sha is None or sha in seen or origins.get(sha) not in _PROVED_HERE:
                continue
            seen.add(sha)
            found.append(
                LocalRun(
                    run=r.id,
                    controller=r.controller,
                    sha256=sha,
                    outcome=str(r.outcome),
                    case=r.case_slug,
                    version=r.case_version,
                    created_at=r.created_at.isoformat(),
                )
            )
            if len(found) == most:
                break
        before = page[-1].id
    return found


# ============================================================================ site to worker


def welcome_message(name: str) -> str:
    """The site's answer to a hello it took: the worker's name and the bounds."""
    return _dump(
        {
            "type": "welcome",
            "name": name,
            "max_runs": MAX_RUNS,
            "max_module_bytes": arena.MAX_MODULE_BYTES,
        }
    )


def fetch_message(sha256: str) -> str:
    """The site asks for a module by sha256."""
    return _dump({"type": "fetch", "sha256": sha256})


def _dump(data: dict[str, Any]) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


# ============================================================================ worker to site


def module_message(sha256: str, blob: bytes) -> bytes:
    """A worker's answer to ``fetch``: the requested sha256's 32 bytes, then the module."""
    return bytes.fromhex(sha256) + blob


def parse_module(data: bytes) -> tuple[str, bytes]:
    """(the sha256 the worker answers for, in hex; the bytes it sent). Their sha256 is not
    checked here: the site compares it with the one it asked for."""
    if len(data) < DIGEST_BYTES:
        raise ProtocolViolation(
            CloseCode.MALFORMED, f"a module message of {len(data)} bytes has no sha256"
        )
    size = len(data) - DIGEST_BYTES
    if size > arena.MAX_MODULE_BYTES:
        raise ProtocolViolation(
            CloseCode.TOO_LARGE,
            f"a module of {size:,} bytes, over the {arena.MAX_MODULE_BYTES:,}-byte limit",
        )
    return data[:DIGEST_BYTES].hex(), data[DIGEST_BYTES:]


def parse_text(text: str) -> Hello | Runs | Missing:
    """A worker's text message, checked whole; ``ProtocolViolation`` naming what is wrong."""
    if len(text) > MAX_TEXT_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_TEXT_BYTES:
        raise ProtocolViolation(
            CloseCode.TOO_LARGE, f"a text message over {MAX_TEXT_BYTES:,} bytes"
        )
    try:
        data = json.loads(text)
    except RecursionError:
        raise ProtocolViolation(CloseCode.MALFORMED, "JSON nested too deeply") from None
    except ValueError as exc:
        raise ProtocolViolation(CloseCode.MALFORMED, f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ProtocolViolation(CloseCode.MALFORMED, "a message must be a JSON object")
    kind = data.get("type")
    if kind in ("hello", "runs"):
        _keys(data, {"type", "runs"}, kind)
        runs = _runs(data["runs"])
        return Hello(runs) if kind == "hello" else Runs(runs)
    if kind == "missing":
        _keys(data, {"type", "sha256", "reason"}, kind)
        return Missing(_sha256(data["sha256"], "sha256"), _text(data["reason"], "reason", 1000))
    raise ProtocolViolation(
        CloseCode.MALFORMED, f"unknown message type {_shown(kind)} (hello, runs, missing)"
    )


def _keys(data: dict[str, Any], keys: set[str], kind: str) -> None:
    if set(data) != keys:
        odd = sorted(set(data) ^ keys)[0]
        raise ProtocolViolation(CloseCode.MALFORMED, f"{kind}: missing or unknown key {odd!r}")


def _runs(value: object) -> tuple[LocalRun, ...]:
    if not isinstance(value, list):
        raise ProtocolViolation(CloseCode.MALFORMED, "runs: a list")
    if len(value) > MAX_RUNS:
        raise ProtocolViolation(
            CloseCode.TOO_LARGE, f"{len(value):,} runs, over the {MAX_RUNS:,} a worker may offer"
        )
    runs = tuple(_run(item, i) for i, item in enumerate(value))
    if len({r.sha256 for r in runs}) != len(runs):
        raise ProtocolViolation(CloseCode.MALFORMED, "runs: a module offered twice")
    return runs


_RUN_KEYS: Final = frozenset(
    {"run", "controller", "sha256", "outcome", "case", "version", "created_at"}
)


def _run(item: object, i: int) -> LocalRun:
    where = f"runs[{i}]"
    if not isinstance(item, dict) or set(item) != _RUN_KEYS:
        raise ProtocolViolation(
            CloseCode.MALFORMED, f"{where}: an object with {', '.join(sorted(_RUN_KEYS))}"
        )
    run, version = item["run"], item["version"]
    if type(run) is not int or not 1 <= run < 1 << 62:
        raise ProtocolViolation(CloseCode.MALFORMED, f"{where}.run: a positive integer")
    if type(version) is not int or not 0 <= version < 1 << 31:
        raise ProtocolViolation(CloseCode.MALFORMED, f"{where}.version: an integer")
    created_at = _text(item["created_at"], f"{where}.created_at", _MAX_SHORT)
    try:
        datetime.fromisoformat(created_at)
    except ValueError:
        raise ProtocolViolation(
            CloseCode.MALFORMED, f"{where}.created_at: an ISO 8601 moment"
        ) from None
    return LocalRun(
        run=run,
        controller=_name(item["controller"], f"{where}.controller"),
        sha256=_sha256(item["sha256"], f"{where}.sha256"),
        outcome=_name(item["outcome"], f"{where}.outcome", _MAX_SHORT),
        case=_name(item["case"], f"{where}.case", _MAX_SHORT),
        version=version,
        created_at=created_at,
    )


def _name(value: object, where: str, most: int | None = None) -> str:
    if not isinstance(value, str):
        raise ProtocolViolation(CloseCode.MALFORMED, f"{where}: a string")
    problem = arena.name_problem(value)
    if problem is None and most is not None and len(value) > most:
        problem = f"over {most} characters"
    if problem is not None:
        raise ProtocolViolation(CloseCode.MALFORMED, f"{where}: {problem}")
    return value


def _text(value: object, where: str, most: int) -> str:
    if not isinstance(value, str) or not 1 <= len(value) <= most:
        raise ProtocolViolation(CloseCode.MALFORMED, f"{where}: a string of 1..{most} characters")
    if not value.isprintable():
        raise ProtocolViolation(CloseCode.MALFORMED, f"{where}: a control character")
    return value


def _sha256(value: object, where: str) -> str:
    if (
        not isinstance(value, str)
        or len(value) != 64
        or not all(c in "0123456789abcdef" for c in value)
    ):
        raise ProtocolViolation(CloseCode.MALFORMED, f"{where}: 64 lowercase hex digits")
    return value


def _shown(value: object) -> str:
    return repr(value)[:40] if isinstance(value, str) else type(value).__name__


def digest_of(blob: bytes) -> str:
    """The sha256 of ``blob``, in hex."""
    return hashlib.sha256(blob).hexdigest()
