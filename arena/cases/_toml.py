"""Reading a TOML document whose every problem is reported: typed reads, table by table.

``parse_toml`` turns a file's bytes into a document, or reports why it is not
one; a ``Table`` reads its keys by type (booleans are never integers, each
bad element of an array is named), reports what is wrong and carries on, and
at its end reports every key nobody read. Each problem is a ``CaseError`` of
the ``Report`` of the one file: the manifest's rules (``_manifest.py``,
``_tables.py``) read through it and never stop at the first.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from datetime import date, datetime, time
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar

from arena.cases._errors import CaseError

__all__ = ["ROOT", "Report", "Table", "kind_of", "parse_toml", "quote"]

ROOT = ""
"""The table name of the keys before the first table (shown as ``[root]``)."""

T = TypeVar("T")


def kind_of(value: object) -> str:
    """How TOML calls a value's type, for messages."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a float"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, datetime | date | time):
        return "a date or time"
    return type(value).__name__


def quote(value: object) -> str:
    """A value as a message quotes it: its repr, cut short."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class Report:
    """The errors found so far in one file."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.errors: list[CaseError] = []

    def error(self, table: str, key: str, message: str) -> None:
        self.errors.append(CaseError(self.file, table, key, message))


class Table:
    """One table of a document: typed reads that report what is wrong, then unknown keys."""

    def __init__(self, report: Report, name: str, data: dict[str, Any]) -> None:
        self.report = report
        self.name = name
        self.data = data
        self.known: set[str] = set()
        self.start = len(report.errors)

    def error(self, key: str, message: str) -> None:
        self.report.error(self.name, key, message)

    @property
    def clean(self) -> bool:
        """No error was reported about this table since it was opened."""
        return not any(e.table == self.name for e in self.report.errors[self.start :])

    def get(self, key: str, required: bool) -> Any:
        self.known.add(key)
        if key not in self.data:
            if required:
                self.error(key, "missing (required)")
            return None
        return self.data[key]

    def typed(self, key: str, kind: type[T], what: str, *, required: bool = True) -> T | None:
        """The value of ``key`` if it has type ``kind`` (booleans are never integers)."""
        value = self.get(key, required)
        if value is None:
            return None
        if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
            return value
        self.error(key, f"must be {what}, got {kind_of(value)} ({quote(value)})")
        return None

    def string(self, key: str, *, required: bool = True, nonempty: bool = True) -> str | None:
        value = self.typed(key, str, "a string", required=required)
        if value is not None and nonempty and not value.strip():
            self.error(key, "must not be empty")
            return None
        return value

    def integer(self, key: str, *, required: bool = True) -> int | None:
        return self.typed(key, int, "an integer", required=required)

    def boolean(self, key: str, default: bool) -> bool:
        value = self.typed(key, bool, "a boolean (true or false)", required=False)
        return default if value is None else value

    def array(self, key: str, item: type[T], what: str) -> list[T] | None:
        """An array whose every element has type ``item``; each bad element is reported."""
        value = self.typed(key, list, f"an array of {what}")
        if value is None:
            return None
        good: list[T] = []
        for i, element in enumerate(value):
            if isinstance(element, item) and not (item is int and isinstance(element, bool)):
                good.append(element)
            else:
                self.error(f"{key}[{i}]", f"must be {what[:-1]}, got {kind_of(element)}")
        return good if len(good) == len(value) else None

    def one_of(self, key: str, enum: Callable[[str], T], choices: tuple[str, ...]) -> T | None:
        value = self.string(key)
        if value is None:
            return None
        if value not in choices:
            self.error(key, f"must be one of {', '.join(choices)}; got {quote(value)}")
            return None
        return enum(value)

    def path(self, key: str, value: str | None, root: Path, *, kind: str) -> Path | None:
        """``value``, read from ``key``, as a path inside the case directory ``root``
        (resolved): relative, no ``..``, existing.

        ``kind`` is ``file`` or ``directory``. The path is resolved with its
        symlinks, so a link that leads out of the case directory is refused.
        """
        if value is None:
            return None
        if "\0" in value:
            self.error(key, "a path may not contain a NUL character")
            return None
        pure = PurePosixPath(value)
        if pure.is_absolute() or "\\" in value or (len(value) > 1 and value[1] == ":"):
            self.error(key, f"{quote(value)} must be a path relative to the case directory")
            return None
        if ".." in pure.parts:
            self.error(key, f"{quote(value)} may not contain '..': paths stay in the case")
            return None
        try:
            resolved = (root / pure).resolve(strict=True)
        except (OSError, RuntimeError, ValueError) as exc:
            reason = "does not exist" if isinstance(exc, FileNotFoundError) else f"({exc})"
            self.error(key, f"{quote(value)} {reason}")
            return None
        if resolved == root or not resolved.is_relative_to(root):
            self.error(
                key,
                f"{quote(value)} leads to {resolved}, which is not inside the case directory",
            )
            return None
        ok = resolved.is_file() if kind == "file" else resolved.is_dir()
        if not ok:
            self.error(key, f"{quote(value)} is not a {kind}")
            return None
        return resolved

    def finish(self, *, hint: dict[str, str] | None = None) -> None:
        """Report every key nobody read: unknown keys are errors."""
        for key in self.data:
            if key not in self.known:
                extra = (hint or {}).get(key, "")
                self.error(key, f"unknown key{extra}")


def parse_toml(data: bytes, report: Report, *, limit: int, what: str) -> dict[str, Any] | None:
    """The TOML document of a file's bytes, or None with the reason in ``report``: more than
    ``limit`` bytes (not ``what``, and not parsed), not UTF-8, not TOML."""
    if len(data) > limit:
        report.error(ROOT, "", f"larger than {limit} bytes: not a {what}")
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        report.error(ROOT, "", f"not UTF-8 text (byte {exc.start})")
        return None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        report.error(ROOT, "", f"not valid TOML: {exc}")
    except (ValueError, RecursionError) as exc:
        # tomllib lets a few value errors through (an integer with more digits than
        # Python converts, arrays nested past the recursion limit).
        report.error(ROOT, "", f"not valid TOML: {type(exc).__name__}: {exc}")
    return None
