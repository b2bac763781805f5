"""Hidden means hidden from the submitter (docs/baselines.md, "Who sees what").

What a submitter is handed is a case's workspace, as ``arena new`` lays it out in each of
its languages. None of it may hold a hidden opponent: not its module (whole, or inside
another file), not its source, not a file named after it, not the arena's description of
how it plays. Its name, role and one-line summary are the case's to give (the prompt and
the rules name it). The operator's repository holds all of it, on purpose.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.baselines import BASELINES, BASELINES_DIR
from arena.cases import Case, Opponent, scan_catalog
from arena.proving import languages, new_project
from tests._support import ROOT

CASES = [c for c in scan_catalog().cases if c.paths.workspace is not None]
SOURCE_LINE = 24
"""Characters from which a line of a hidden opponent's source counts as its own."""
DESCRIPTION_PART = 30
"""Characters from which a clause of its description in docs/baselines.md counts."""


@dataclass(frozen=True)
class Marks:
    """What gives a hidden opponent away."""

    name: str
    module: bytes
    file_names: frozenset[str]
    """Its name as a file's stem, in the usual spellings, and its module's stem."""
    source_lines: frozenset[str]
    """The lines of its source that no public file holds (its code and its comments)."""
    description: tuple[str, ...]
    """The clauses of the arena's description of how it plays."""


def _public_lines() -> set[str]:
    """Every line of the baselines' other sources and SDKs: shared, so no mark."""
    lines: set[str] = set()
    hidden_sources = {b.source for b in BASELINES.values() if b.hidden}
    for path in BASELINES_DIR.rglob("*"):
        if "node_modules" in path.parts:  # the pinned compiler's own files
            continue
        if path.suffix in (".c", ".h", ".zig", ".ts") and path not in hidden_sources:
            lines.update(line.strip() for line in path.read_text(encoding="utf-8").splitlines())
    return lines


def _description(name: str) -> tuple[str, ...]:
    """The clauses of ``name``'s row in docs/baselines.md's table of opponents."""
    text = (ROOT / "docs" / "baselines.md").read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith(f"| `{name}` |"))
    cell = row.split("|")[2]
    return tuple(
        part.strip() for part in re.split(r"[.;:()]", cell) if len(part.strip()) >= DESCRIPTION_PART
    )


def marks(opponent: Opponent) -> Marks:
    spellings = {opponent.name, opponent.name.replace("-", "_"), opponent.name.replace("-", "")}
    source: frozenset[str] = frozenset()
    description: tuple[str, ...] = ()
    baseline = BASELINES.get(opponent.name)
    if baseline is not None and baseline.wasm.read_bytes() == opponent.read_module():
        public = _public_lines()
        source = frozenset(
            line
            for raw in baseline.source.read_text(encoding="utf-8").splitlines()
            if len(line := raw.strip()) >= SOURCE_LINE and line not in public
        )
        description = _description(opponent.name)
        spellings.add(baseline.source.stem)
    return Marks(
        opponent.name,
        opponent.read_module(),
        frozenset({*(s.lower() for s in spellings), opponent.module.stem.lower()}),
        source,
        description,
    )


def handed(case: Case, tmp_path: Path) -> dict[str, dict[str, bytes]]:
    """What a submitter gets, by where it comes from: the workspace, and each ``arena new``."""
    assert case.paths.workspace is not None
    workspace = case.paths.workspace
    out = {
        "workspace": {
            p.relative_to(workspace).as_posix(): p.read_bytes()
            for p in workspace.rglob("*")
            if p.is_file()
        }
    }
    for lang in languages(case):
        project = new_project(tmp_path / f"{case.slug}-{case.version}-{lang}", case, lang=lang)
        out[f"arena new --lang {lang}"] = {
            name: (project.directory / name).read_bytes() for name in project.files
        }
    return out


def leaks(files: dict[str, bytes], m: Marks) -> list[str]:
    """Each way ``files`` give ``m``'s opponent away, naming the file."""
    found = []
    for name, data in files.items():
        parts = {Path(part).stem.lower() for part in Path(name).parts}
        if parts & m.file_names:
            found.append(f"{name}: named after {m.name}")
        if m.module in data:
            found.append(f"{name}: holds {m.name}'s module")
        text = data.decode("utf-8", "replace")
        lines = {line.strip() for line in text.splitlines()}
        if copied := sorted(lines & m.source_lines):
            found.append(f"{name}: holds {len(copied)} line(s) of {m.name}'s source: {copied[0]!r}")
        flat = " ".join(text.split())
        if described := [d for d in m.description if " ".join(d.split()) in flat]:
            found.append(f"{name}: describes how {m.name} plays: {described[0]!r}")
    return found


def _hidden(case: Case) -> list[Opponent]:
    return [o for o in case.opponents if o.hidden]


def test_the_foray_case_has_a_hidden_opponent_the_checks_know_well() -> None:
    """The checks below are not empty: the Foray case hides fuel-probe, whose module, source
    and description the arena holds."""
    foray = next(c for c in CASES if c.slug == "foray")
    (probe,) = _hidden(foray)
    m = marks(probe)
    assert probe.name == "fuel-probe" and {"fuel-probe", "fuel_probe"} <= m.file_names
    assert len(m.source_lines) > 100 and len(m.description) > 5 and len(m.module) > 1000


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.slug}-{c.version}")
def test_what_a_submitter_is_handed_holds_no_hidden_opponent(case: Case, tmp_path: Path) -> None:
    hidden = [marks(o) for o in _hidden(case)]
    for where, files in handed(case, tmp_path).items():
        assert files, where
        found = [leak for m in hidden for leak in leaks(files, m)]
        assert not found, f"{where}: " + "; ".join(found)


@pytest.mark.parametrize(
    "plant",
    ["module", "module inside", "named", "source", "description"],
)
def test_each_kind_of_leak_is_caught(plant: str, tmp_path: Path) -> None:
    """The check above, shown failing: a workspace copy with one leak planted."""
    foray = next(c for c in CASES if c.slug == "foray")
    (probe,) = _hidden(foray)
    m = marks(probe)
    assert foray.paths.workspace is not None
    copy = tmp_path / "workspace"
    shutil.copytree(foray.paths.workspace, copy)
    baseline = BASELINES[probe.name]
    match plant:
        case "module":
            (copy / "opponent.wasm").write_bytes(m.module)
        case "module inside":
            (copy / "notes.bin").write_bytes(b"\0" * 7 + m.module + b"\0")
        case "named":
            (copy / "zig" / "Fuel_Probe.md").write_text("strategy notes\n")
        case "source":
            (copy / "helpers.c").write_text(baseline.source.read_text()[5000:9000])
        case "description":
            row = next(
                line
                for line in (ROOT / "docs" / "baselines.md").read_text().splitlines()
                if line.startswith(f"| `{probe.name}` |")
            )
            (copy / "README.md").write_text(f"# Tips\n\nThe hidden one: {row.split('|')[2]}\n")
    files = {p.relative_to(copy).as_posix(): p.read_bytes() for p in copy.rglob("*") if p.is_file()}
    assert leaks(files, m), plant
