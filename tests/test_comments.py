"""Comments and docstrings say why, never how much: measured figures go stale.

Timings and measured sizes belong in docs/benchmarks.md, where each is dated
with its run; the code's comments point there. The scan reads every comment
(tokenize) and every string that stands as a statement (docstrings, attribute
docstrings) of the packages below.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests._support import ROOT

# Parts of the tree whose figures have moved to docs/benchmarks.md (issue 23); the rest of
# the tree joins as its own move.
SCANNED = (
    "arena/sandbox",
    "arena/match",
    "arena/executors",
    "arena/cli",
    "arena/bench",
    "arena/baselines",
    "arena/coordinator",
    "arena/tournament",
    "arena/*.py",
    "web",
)
# A time in ms/us/ns (a range too), "tens of milliseconds", "about a millisecond", and
# "about N" of seconds, bytes, a share or a factor.
FIGURE = re.compile(
    r"\d(?:[\d.,]*\d)?(?:\s?(?:-|to)\s?\d[\d.,]*)?\s?"
    r"(?:ms|us|µs|ns|milliseconds?|microseconds?)\b"
    r"|\b(?:tens|hundreds) of (?:milli|micro)seconds"
    r"|\babout an? (?:milli|micro)second"
    r"|\babout \d[\d.,]*\s?(?:s|seconds?|MB|KB|GB|MiB|KiB|%|x)(?!\w)"
)


def _files() -> list[Path]:
    files: list[Path] = []
    for part in SCANNED:
        files += sorted(ROOT.glob(part) if part.endswith(".py") else (ROOT / part).rglob("*.py"))
    return files


def _texts(path: Path) -> Iterator[tuple[int, str]]:
    """Each comment and each string statement of ``path``, with its line."""
    source = path.read_text(encoding="utf-8")
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    for node in ast.walk(ast.parse(source, filename=str(path))):
        value = node.value if isinstance(node, ast.Expr) else None
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            yield value.lineno, value.value


@pytest.mark.parametrize(
    "text",
    [
        "# a round trip, about 0.85 ms here",
        "costs 18-47 us a call",
        "costs tens of milliseconds to import",
        "costs about a millisecond per 16 KB",
        "maps about 70 MB",
        "about 20 ms of a tournament's end",
    ],
)
def test_the_scan_sees_a_figure(text: str) -> None:
    assert FIGURE.search(text)


@pytest.mark.parametrize(
    "text",
    ["rules §8.4", "workers idle for ``idle_timeout`` seconds", "0x7F", "a 32-bit integer"],
)
def test_the_scan_lets_words_be(text: str) -> None:
    assert not FIGURE.search(text)


def test_no_figures_in_comments_or_docstrings() -> None:
    files = _files()
    assert len(files) > 50 and ROOT / "arena" / "executors" / "_local.py" in files
    found = [
        f"{path.relative_to(ROOT)}:{line}: {match.group(0)!r}"
        for path in files
        for line, text in _texts(path)
        for match in FIGURE.finditer(text)
    ]
    assert not found, "figures belong in docs/benchmarks.md:\n" + "\n".join(found)
