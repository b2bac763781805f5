"""``new_project``: lay out a controller project from a case's workspace.

A workspace's top level is the project in C (the default language); a
sub-directory named after another language (``zig/``) holds that language's
project. A project in another language is that folder's files plus the
workspace's top-level documents (``*.md``: the README, the rules) that the
folder does not replace. Either way the project builds as it stands with the
case's ``[build]`` commands. For AssemblyScript, a workspace without the folder
gets the arena's own project (``arena.baselines.assemblyscript_project``) in its
place, when the case is one it builds for: a published version gains no folder
(docs/decisions.md).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from arena._errors import ArenaError
from arena.baselines import assemblyscript_project
from arena.cases import Case
from arena.match import ABI_VERSION
from arena.proving._build import BuildStatus, run_commands

__all__ = ["Lang", "Project", "new_project"]


class Lang(StrEnum):
    """The languages a case's workspace may hold a project in (``arena new --lang``)."""

    C = "c"
    """The workspace's top level."""
    ZIG = "zig"
    """The workspace's ``zig/`` folder."""
    ASSEMBLYSCRIPT = "assemblyscript"
    """The workspace's ``assemblyscript/`` folder, else the arena's own project."""

    @property
    def label(self) -> str:
        """The language's name for people: ``C``, ``Zig``, ``AssemblyScript``."""
        return {"c": "C", "zig": "Zig", "assemblyscript": "AssemblyScript"}[self.value]


DEFAULT_LANG = Lang.C
"""The language of the workspace's top level."""


@dataclass(frozen=True, slots=True)
class Project:
    """A project laid out by ``new_project``: where, in which language, which files."""

    directory: Path
    lang: Lang
    case: str
    """The case's label (``foray v1``)."""
    files: tuple[str, ...]
    """The files written, relative to ``directory``, sorted."""
    init_log: str = ""
    """The output of the case's ``init`` command, if it has one."""


def _arena_project(case: Case, lang: Lang) -> dict[str, Path] | None:
    """The arena's own project in ``lang`` (name -> file), if it has one that fits ``case``:
    the SDK's ABI, and a build that is ``sh build.sh`` leaving ``controller.wasm``."""
    if lang is not Lang.ASSEMBLYSCRIPT or case.contract.abi != ABI_VERSION:
        return None
    if case.build.build != "sh build.sh" or case.build.module != "controller.wasm":
        return None
    return assemblyscript_project()


def languages(case: Case) -> tuple[Lang, ...]:
    """The languages ``case``'s workspace holds a project in, or the arena brings one for
    (none without a workspace)."""
    workspace = case.paths.workspace
    if workspace is None:
        return ()
    return tuple(
        lang
        for lang in Lang
        if lang is DEFAULT_LANG
        or (workspace / lang.value).is_dir()
        or _arena_project(case, lang) is not None
    )


def _sources(case: Case, lang: Lang) -> dict[str, Path]:
    """What to copy: each file of the project, relative name -> its file in the workspace."""
    workspace = case.paths.workspace
    offered = languages(case)
    if workspace is None or lang not in offered:
        have = ", ".join(offered) or "none"
        raise ArenaError(f"case {case.label} has no {lang} workspace (languages: {have})")
    others = {other.value for other in Lang if other is not DEFAULT_LANG}
    top = {
        p.relative_to(workspace).as_posix(): p
        for p in sorted(workspace.rglob("*"))
        if p.is_file() and p.relative_to(workspace).parts[0] not in others
    }
    # The brief handed to the author (the manifest's ``prompt``) goes with every project.
    brief = {case.paths.prompt.name: case.paths.prompt}
    if lang is DEFAULT_LANG:
        return brief | top
    folder = workspace / lang.value
    files = {name: path for name, path in top.items() if "/" not in name and name.endswith(".md")}
    if folder.is_dir():
        files.update(
            (p.relative_to(folder).as_posix(), p) for p in sorted(folder.rglob("*")) if p.is_file()
        )
    else:
        files.update(_arena_project(case, lang) or {})
    return brief | files


def _check_target(directory: Path) -> None:
    """``directory`` must not exist, or be an empty directory."""
    try:
        entries = os.listdir(directory)
    except FileNotFoundError:
        return
    except NotADirectoryError:
        raise ArenaError(f"{directory}: it is a file; give a new or empty directory") from None
    except OSError as exc:
        raise ArenaError(f"{directory}: cannot use it: {exc.strerror or exc}") from None
    if entries:
        raise ArenaError(
            f"{directory}: not empty ({len(entries)} entr{'y' if len(entries) == 1 else 'ies'});"
            " give a new or empty directory"
        )


def new_project(directory: Path, case: Case, *, lang: Lang = DEFAULT_LANG) -> Project:
    """Lay out a controller project for ``case`` in ``directory``, in ``lang``.

    ``directory`` must not exist or be empty (else ``ArenaError``); it is
    created with its parents. The files are copies of the case's workspace
    (symbolic links inside the case are followed). If the case has an
    ``init`` command, it runs once in the new project, within the case's
    ``max_runtime_hours``; its failure is an ``ArenaError`` with its output, and the
    directory is left as it was found (absent, or empty), so the command can run again.
    """
    directory = Path(directory)
    sources = _sources(case, Lang(lang))
    _check_target(directory)
    existed = directory.is_dir()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for name, source in sources.items():
            target = directory / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
            shutil.copymode(source, target)
    except OSError as exc:
        raise ArenaError(f"{directory}: cannot write the project: {exc.strerror or exc}") from None
    init_log = ""
    if case.init is not None:
        ran = run_commands([("init", case.init)], directory, limit=case.max_runtime_seconds)
        if ran.status is not BuildStatus.OK:
            _empty(directory, remove=not existed)
            raise ArenaError(f"{directory}: {ran.reason}:\n{ran.log}")
        init_log = ran.log
    return Project(directory, Lang(lang), case.label, tuple(sorted(sources)), init_log)


def _empty(directory: Path, *, remove: bool) -> None:
    """Take back a project whose init failed: ``directory`` removed (``remove``: this call
    made it) or emptied (it was an empty directory given), whatever the init left there."""
    if remove:
        shutil.rmtree(directory, ignore_errors=True)
        return
    for entry in list(directory.iterdir()):
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
