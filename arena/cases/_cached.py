"""A catalog case kept loaded between processes, for ``arena match``.

Loading a case reads its TOML manifest and checks every table, file and
opponent module: about a fifth of a one-off match's own start-up (docs/benchmarks.md,
Start-up). ``arena match`` plays under the default case's rules and limits, so the
case it loads is kept, encoded, in the disk cache (``$FORAY_CACHE_DIR``, else
``cache/`` in the data directory, as the compiled modules are), and the next
process decodes it instead of loading it again.

An entry is used only while nothing that made it has changed. Its name holds a
digest of every entry of the case directory (path, type, size, modification time,
as Python's own bytecode cache judges a source file), of the code that loads and
checks a case, and of this format; a change to any of them names another entry,
and the case is loaded and checked afresh. The bytes are a magic string, a
BLAKE2b-256 digest of the entry's name and payload, then the payload (msgspec's
MessagePack of the ``Case``): a damaged entry is deleted and never trusted. The
commands that judge a case (``arena case check``, ``arena prove``) always load it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import sys
from pathlib import Path
from typing import Final

import msgspec

import replays
import sim
from arena._files import atomic_write
from arena.cases._model import Case
from arena.match import load_map
from arena.sandbox import Limits

__all__ = ["cached_case"]

MAGIC: Final = b"FORAYCS1"
"""The first bytes of an entry (this format's version is its last character)."""
_DIGEST_BYTES: Final = 32

# The modules besides arena.cases' own whose code decides what a loaded case holds or
# refuses: the rules, the maps, the sandbox's limits, the replay versions.
_DEPENDS_ON: Final = (sim.Config, sim.GameMap, Limits, load_map, replays.extended_version)


def _stamps(folder: str, rel: str, out: list[str], *, suffix: str = "") -> None:
    """One line per entry of ``folder`` whose name ends in ``suffix``, by name; without a
    suffix, the sub-directories' entries too (links are not followed)."""
    with os.scandir(folder) as it:
        entries = sorted((e for e in it if e.name.endswith(suffix)), key=lambda e: e.name)
    for e in entries:
        st = e.stat(follow_symlinks=False)
        out.append(f"{rel}{e.name}\0{stat.S_IFMT(st.st_mode)}\0{st.st_size}\0{st.st_mtime_ns}")
        if not suffix and stat.S_ISDIR(st.st_mode):
            _stamps(e.path, f"{rel}{e.name}/", out)


def case_key(directory: Path) -> str:
    """The digest naming ``directory``'s entry: its files, the loading code, this format."""
    lines = [MAGIC.decode(), str(directory)]
    _stamps(os.path.dirname(__file__), "", lines, suffix=".py")  # arena.cases' own code
    for obj in _DEPENDS_ON:
        path = sys.modules[obj.__module__].__file__ or ""
        st = os.stat(path)
        lines.append(f"{path}\0{st.st_size}\0{st.st_mtime_ns}")
    _stamps(str(directory), "/", lines)
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def _encode(value: object) -> object:
    if isinstance(value, Path):
        return str(value)
    raise NotImplementedError(f"cannot encode {type(value).__name__}")


def _decode(kind: type, value: object) -> object:
    if kind is Path and isinstance(value, str):
        return Path(value)
    raise NotImplementedError(f"cannot decode {kind.__name__}")


def _digest(name: str, payload: bytes | memoryview) -> bytes:
    h = hashlib.blake2b(name.encode(), digest_size=_DIGEST_BYTES)
    h.update(payload)
    return h.digest()


def _read(entry: Path) -> Case | None:
    """The case an intact entry holds; None if there is none (a damaged one is deleted)."""
    try:
        data = entry.read_bytes()
    except OSError:
        return None
    head = len(MAGIC) + _DIGEST_BYTES
    payload = memoryview(data)[head:]
    if data[: len(MAGIC)] == MAGIC and data[len(MAGIC) : head] == _digest(entry.name, payload):
        try:
            return msgspec.msgpack.decode(payload, type=Case, dec_hook=_decode)
        except (msgspec.MsgspecError, ValueError, TypeError):
            pass  # written by a build whose records differ: loaded again below
    with contextlib.suppress(OSError):
        entry.unlink()
    return None


def _write(cache: Path, entry: Path, case: Case) -> None:
    """Keep ``case`` in ``entry`` and drop the directory's older entries; best effort."""
    payload = msgspec.msgpack.encode(case, enc_hook=_encode)
    prefix = entry.name.split("-", 1)[0]
    with contextlib.suppress(OSError):
        atomic_write(entry, MAGIC + _digest(entry.name, payload) + payload)
        for old in cache.iterdir():
            if old.name.startswith(f"{prefix}-") and old.name != entry.name:
                old.unlink(missing_ok=True)


def cached_case(directory: Path, cache: Path) -> Case:
    """The case in ``directory``, from its entry in ``cache`` while that is current, else
    loaded and checked (``load_case``, whose errors it raises) and kept there."""
    directory = directory.resolve()
    where = hashlib.sha256(os.fsencode(directory)).hexdigest()[:16]
    entry = cache / f"{where}-{case_key(directory)}.case"
    case = _read(entry)
    if case is not None:
        return case
    # Only a miss reads TOML: the manifest's modules and tomllib load here.
    from arena.cases._manifest import load_case

    case = load_case(directory)
    _write(cache, entry, case)
    return case
