"""Compile controllers to wasm32 core modules: C and Zig with the pip-installable
``ziglang``, AssemblyScript with the ``asc`` pinned in ``baselines/assemblyscript/``.

The flags make builds reproducible: ``--strip-all`` (C) and ``-fstrip`` (Zig) drop
the name and producers sections (which embed the output path), so the same
source gives the same bytes wherever it is built. Zig keeps a wasm module's
exports only with ``-rdynamic``. ``asc`` writes no such sections unless asked.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from arena.baselines._registry import BASELINES_DIR

__all__ = [
    "ASC_FLAGS",
    "ASSEMBLYSCRIPT_DIR",
    "ZIG_BUILD_FLAGS",
    "ZIG_FLAGS",
    "BuildError",
    "assemblyscript_project",
    "compile_assemblyscript",
    "compile_c",
    "compile_zig",
    "pinned_asc",
]

ASSEMBLYSCRIPT_DIR: Path = BASELINES_DIR / "assemblyscript"
"""The AssemblyScript project's own files, and where ``./scripts/setup.sh`` installs the
compiler its ``package-lock.json`` pins (``npm ci``: ``node_modules/``, ignored by git)."""

ZIG_FLAGS: tuple[str, ...] = (
    "-target",
    "wasm32-freestanding",
    "-O2",
    "-nostdlib",
    "-fno-stack-protector",
    "-Wall",
    "-Werror",
    "-Wl,--no-entry",
    "-Wl,--strip-all",
)


ZIG_BUILD_FLAGS: tuple[str, ...] = (
    "-target",
    "wasm32-freestanding",
    "-O",
    "ReleaseSmall",
    "-fno-entry",
    "-rdynamic",
    "-fstrip",
)
"""``zig build-exe`` flags for a controller written in Zig (rules §9.10)."""


ASC_FLAGS: tuple[str, ...] = (
    "-O3",
    "--noAssert",
    "--runtime",
    "stub",
    "--use",
    "abort=",
    "--noColors",
)
"""``asc`` flags for a controller written in AssemblyScript (docs/controllers.md): optimised
for speed (fuel); ``assert`` compiled out, as in a release build; the stub runtime (a bump
allocator that never frees, and no garbage collector to import or call); and ``abort``
aliased to nothing, so a failed check (an index out of range, a ``throw``) traps instead
of importing ``env.abort``, which would make the module inadmissible (rules §8.2)."""


class BuildError(RuntimeError):
    """A source did not compile; the message carries the compiler's output."""


def compile_c(
    sources: Sequence[Path],
    output: Path,
    *,
    include: Sequence[Path] = (),
    extra_flags: Sequence[str] = (),
    timeout: float = 120.0,
) -> bytes:
    """Compile ``sources`` into the wasm module ``output`` and return its bytes."""
    import subprocess  # not at import: a match that only loads baselines never builds one

    cmd = [sys.executable, "-m", "ziglang", "cc", *ZIG_FLAGS]
    for inc in include:
        cmd += ["-I", str(inc)]
    cmd += [*extra_flags, "-o", str(output), *map(str, sources)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    if proc.returncode != 0:
        names = ", ".join(Path(s).name for s in sources)
        raise BuildError(f"compiling {names} failed:\n{proc.stderr.strip()}")
    return output.read_bytes()


def compile_zig(source: Path, output: Path, *, timeout: float = 300.0) -> bytes:
    """Compile the Zig controller ``source`` into the wasm module ``output``; return its bytes.

    ``source`` imports its SDK (``foray.zig``) by a path relative to itself. The
    compiler's local cache goes beside the output, not into the current directory.
    """
    import subprocess

    output = output.resolve()
    cmd = [
        sys.executable,
        "-m",
        "ziglang",
        "build-exe",
        str(Path(source).resolve()),
        *ZIG_BUILD_FLAGS,
        "--name",
        output.stem,
        "--cache-dir",
        str(output.parent / ".zig-cache"),
    ]
    proc = subprocess.run(
        cmd, capture_output=True, text=True, timeout=timeout, check=False, cwd=output.parent
    )
    if proc.returncode != 0:
        raise BuildError(f"compiling {Path(source).name} failed:\n{proc.stderr.strip()}")
    built = output.parent / f"{output.stem}.wasm"
    if built != output:
        built.replace(output)
    return output.read_bytes()


def pinned_asc() -> Path:
    """The pinned AssemblyScript compiler's ``asc.js`` (run it with ``node``).

    Raises ``BuildError``, naming ``./scripts/setup.sh``, when it is not installed
    in ``ASSEMBLYSCRIPT_DIR`` or another version is.
    """
    package = ASSEMBLYSCRIPT_DIR / "node_modules" / "assemblyscript"
    lock = json.loads((ASSEMBLYSCRIPT_DIR / "package-lock.json").read_text(encoding="utf-8"))
    pinned: str = lock["packages"]["node_modules/assemblyscript"]["version"]
    try:
        installed = json.loads((package / "package.json").read_text(encoding="utf-8"))["version"]
    except (OSError, ValueError, KeyError):
        installed = None
    if installed != pinned:
        found = "is not installed" if installed is None else f"is {installed}"
        raise BuildError(
            f"the AssemblyScript compiler {found}, and {ASSEMBLYSCRIPT_DIR.name}/package-lock.json"
            f" pins {pinned}: run ./scripts/setup.sh (npm ci in baselines/assemblyscript)"
        )
    return package / "bin" / "asc.js"


def compile_assemblyscript(source: Path, output: Path, *, timeout: float = 300.0) -> bytes:
    """Compile the AssemblyScript controller ``source`` into the wasm module ``output``.

    ``source`` is the entry file (it exports ``foray_buffer``, ``foray_init`` and
    ``foray_tick``) and imports its SDK (``foray.ts``) by a path relative to itself.
    The compiler is the one ``baselines/assemblyscript/package-lock.json`` pins, with
    ``ASC_FLAGS``; it runs in an empty directory, because ``asc`` applies any
    ``asconfig.json`` it finds in its working directory.
    """
    import subprocess

    node = shutil.which("node")
    if node is None:
        raise BuildError(
            "AssemblyScript needs Node.js (20 or newer) with npm, and node is not on PATH:"
            " install them, then run ./scripts/setup.sh"
        )
    asc = pinned_asc()
    with tempfile.TemporaryDirectory(prefix="foray-asc-") as empty:
        cmd = [
            node,
            str(asc),
            str(Path(source).resolve()),
            "-o",
            str(Path(output).resolve()),
            *ASC_FLAGS,
        ]
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout, check=False, cwd=empty
        )
    if proc.returncode != 0:
        log = "\n".join(part.strip() for part in (proc.stdout, proc.stderr) if part.strip())
        raise BuildError(f"compiling {Path(source).name} failed:\n{log}")
    return Path(output).read_bytes()


def assemblyscript_project() -> dict[str, Path]:
    """The files of a controller project in AssemblyScript: name in the project -> its source.

    The SDK and the template (as ``controller.ts``) from ``baselines/``, and from
    ``baselines/assemblyscript/`` the README, ``build.sh`` and the ``package.json`` and
    ``package-lock.json`` that pin the compiler. ``arena new --lang assemblyscript``
    lays them out (docs/decisions.md).
    """
    return {
        "README.md": ASSEMBLYSCRIPT_DIR / "README.md",
        "build.sh": ASSEMBLYSCRIPT_DIR / "build.sh",
        "controller.ts": BASELINES_DIR / "template.ts",
        "foray.ts": BASELINES_DIR / "foray.ts",
        "package-lock.json": ASSEMBLYSCRIPT_DIR / "package-lock.json",
        "package.json": ASSEMBLYSCRIPT_DIR / "package.json",
    }
