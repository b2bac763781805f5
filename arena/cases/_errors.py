"""What can be wrong with a case: one record per problem, and the errors that carry them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec

from arena._errors import ArenaError

__all__ = ["CaseError", "CaseInvalidError", "CaseNotFoundError", "UnsupportedCaseTypeError"]


class CaseError(msgspec.Struct, frozen=True):
    """One problem of a case: the file, the table and the key it is about, and what is wrong.

    ``table`` is ``""`` for the root keys (shown as ``[root]``), ``"opponent[1]"``
    for the second ``[[opponent]]``; ``key`` is ``""`` when the problem is the
    table or the file as a whole (a TOML syntax error names neither).
    """

    file: str
    table: str
    key: str
    message: str

    def __str__(self) -> str:
        if not self.table and not self.key:
            return f"{self.file}: {self.message}"
        where = f"[{self.table or 'root'}]"
        if self.key:
            where += f" {self.key}"
        return f"{self.file}: {where}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        """The error as ``arena case check --json`` prints it."""
        return {"file": self.file, "table": self.table, "key": self.key, "message": self.message}


class CaseInvalidError(ArenaError):
    """A case directory breaks rules of the manifest format: every problem found, not the first."""

    def __init__(self, directory: Path, errors: Sequence[CaseError]) -> None:
        self.directory = directory
        self.errors: tuple[CaseError, ...] = tuple(errors)
        count = len(self.errors)
        lines = "\n".join(f"  {e}" for e in self.errors)
        super().__init__(
            f"{directory}: not a valid case ({count} error{'s' if count != 1 else ''}):\n{lines}"
        )


class UnsupportedCaseTypeError(CaseInvalidError):
    """A case of a type this arena does not host (``performance``, say): named, not guessed."""

    def __init__(self, directory: Path, case_type: str, errors: Sequence[CaseError]) -> None:
        self.case_type = case_type
        super().__init__(directory, errors)


class CaseNotFoundError(ArenaError):
    """No case where one was asked for: a missing directory or manifest, an unknown slug."""
