"""Compile C and Zig controllers to wasm32 core modules with the pip-installable ``ziglang``.

The flags make builds reproducible: ``--strip-all`` (C) and ``-fstrip`` (Zig) drop
the name and producers sections (which embed the output path), so the same
source gives the same bytes wherever it is built. Zig keeps a wasm module's
exports only with ``-rdynamic``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["ZIG_BUILD_FLAGS", "ZIG_FLAGS", "BuildError", "compile_c", "compile_zig"]

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
