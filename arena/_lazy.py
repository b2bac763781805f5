"""Names a package loads on first use (PEP 562), so importing it stays cheap."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(
    package: str, table: Mapping[str, str], namespace: dict[str, Any], exported: list[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A package's ``__getattr__`` and ``__dir__``: each name in ``table`` is imported from the
    module it maps to on first use and kept in ``namespace`` (the package's ``globals()``)."""

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return list(exported)

    return __getattr__, __dir__
