"""Build the native core (``sim/_native``), its frame encoder (``replays/_native``) and the
controller's tick call (``arena/sandbox/_native``) with gcc.

Run by ``./scripts/setup.sh``; safe to run again (a build that is up to date is
kept; ``--force`` builds it again; ``-v`` says what was done). Each extension
carries the hash of the sources it was built from, and its loader refuses a
build the sources have moved on from, so a stale build never plays. Where gcc
or Python's headers are missing, or a build fails, this says so in one line
and exits 0: matches then run on the pure Python rules, which give the same
bytes (docs/decisions.md, "The native core").
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORE_DIR = ROOT / "sim" / "_native"


def _extensions() -> list[tuple[str, Path, tuple[str, ...]]]:
    """Each extension: its name, its directory, and the sources its build carries the hash
    of (each loader's ``SOURCES``, read from this checkout)."""
    sys.path.insert(0, str(ROOT))
    from arena.sandbox import _native as call
    from replays import _native as frames
    from sim import _native as core

    return [
        ("_core", CORE_DIR, core.SOURCES),
        ("_frames", ROOT / "replays" / "_native", frames.SOURCES),
        ("_call", ROOT / "arena" / "sandbox" / "_native", call.SOURCES),
    ]


def source_hash(paths: list[Path]) -> str:
    """The hash a build of ``paths`` carries, as the loaders compute it."""
    from sim._native import native_source_hash

    return native_source_hash(paths)


# -fwrapv as CPython itself is built: signed overflow wraps, as the digest's arithmetic expects.
FLAGS = ["-O2", "-fPIC", "-shared", "-std=gnu11", "-fwrapv", "-Wall", "-Wextra"]
FLAGS += ["-Wno-unused-parameter", "-Wno-missing-field-initializers"]  # CPython's own idioms


def _built_from(target: Path) -> str | None:
    """The "source hash:layout" a built extension was built from, read from its bytes
    (``FORAY_BUILD=`` in core.h), without loading it."""
    try:
        data = target.read_bytes()
    except OSError:
        return None
    marker = b"FORAY_BUILD="
    at = data.find(marker)
    return None if at < 0 else data[at + len(marker) : at + len(marker) + 33].decode("latin-1")


def _build(name: str, directory: Path, sources: tuple[str, ...], layout: str) -> str:
    """Compile one extension unless its build is up to date; return what was done."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    target = directory / f"{name}{suffix}"
    # Every C file among the sources, compiled and linked into the one extension.
    c_files = [str(directory / source) for source in sources if source.endswith(".c")]
    digest = source_hash([directory / source for source in sources])
    if _built_from(target) == f"{digest}:{layout}" and "--force" not in sys.argv[1:]:
        return f"{target.relative_to(ROOT)} is up to date"
    compiler = os.environ.get("CC", "gcc")
    if shutil.which(compiler) is None:
        raise RuntimeError(f"no C compiler ({compiler})")
    include = sysconfig.get_paths()["include"]
    if not (Path(include) / "Python.h").is_file():
        raise RuntimeError(f"Python's headers are missing ({include}/Python.h)")
    with tempfile.TemporaryDirectory(dir=directory, prefix=".build-") as tmp:
        out = Path(tmp) / target.name
        cmd = [
            compiler,
            *FLAGS,
            f"-I{include}",
            f"-I{CORE_DIR}",
            f'-DFC_SOURCE_HASH="{digest}"',
            f'-DFC_LAYOUT="{layout}"',
            *c_files,
            "-o",
            str(out),
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            errors = [line for line in proc.stderr.splitlines() if "error" in line]
            first = errors[0] if errors else f"{compiler} exited with {proc.returncode}"
            raise RuntimeError(f"{name}: {first}\n{' '.join(cmd)}\n{proc.stderr}")
        if proc.stderr.strip() and "-v" in sys.argv[1:]:
            print(proc.stderr, file=sys.stderr)
        # Renamed into place whole: a process loading it meanwhile sees the old or the new.
        out.replace(target)
    return f"built {target.relative_to(ROOT)}"


def main() -> int:
    layout = source_hash([CORE_DIR / "core.h"])
    try:
        done = [_build(*extension, layout) for extension in _extensions()]
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
        first = str(exc).splitlines()[0]
        print(
            f"setup: the native core was not built ({first}); matches run on the pure"
            " Python rules, which give the same bytes",
            file=sys.stderr,
        )
        if "-v" in sys.argv[1:]:
            print(exc, file=sys.stderr)
        return 0
    if "-v" in sys.argv[1:]:
        print("\n".join(done))
    return 0


if __name__ == "__main__":
    sys.exit(main())
