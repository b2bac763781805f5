"""Compile C controllers to wasm32 core modules with the pip-installable ``ziglang``.

The flags make builds reproducible: ``--strip-all`` drops the name and producers
sections (which embed the output path), so the same source gives the same bytes
wherever it is built.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["ZIG_FLAGS", "BuildError", "compile_c"]

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


class BuildError(RuntimeError):
    """A C source did not compile; the message carries the compiler's output."""


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
