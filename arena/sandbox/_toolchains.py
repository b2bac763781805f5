"""Imports by toolchain: why a module imports something, and how its author builds without.

A controller imports nothing (rules §8.2, check 6), and the imports a module
has usually come from its toolchain's runtime or standard library, each with
names of its own: AssemblyScript's ``env.abort``, Emscripten's
``env.emscripten_*``, WASI's ``wasi_snapshot_preview1.*``. A refusal names the
toolchain they point to and that toolchain's fix (docs/controllers.md, "When
`arena check` refuses your module"). WASI imports come from several standard
libraries, so the module's ``producers`` custom section (the languages and
tools that made it, when the build kept it) tells Rust from TinyGo from C.
No wasmtime here: the section reader refuses imports before compiling.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Final

import msgspec

__all__ = ["Imports", "Toolchain", "imports_reason", "producers_toolchain"]

_NAMED: Final = 3  # imports named in a refusal; the rest are counted
_NAMES_CHARS: Final = 300  # of the named imports together (rules §8.2: foreign text)


class Toolchain(StrEnum):
    """A toolchain whose usual imports a refusal recognises."""

    ASSEMBLYSCRIPT = "AssemblyScript"
    C = "C"
    EMSCRIPTEN = "Emscripten"
    RUST = "Rust"
    TINYGO = "TinyGo"


_HINTS: Final = {
    Toolchain.ASSEMBLYSCRIPT: (
        "in AssemblyScript, build with asc --runtime stub --use abort=, and call neither"
        " trace(), Math.random() (env.seed: seed a generator from INIT's seed) nor Date"
    ),
    Toolchain.C: (
        "in C, build with zig cc -target wasm32-freestanding -nostdlib -Wl,--no-entry, and"
        " call no libc function"
    ),
    Toolchain.EMSCRIPTEN: (
        "with Emscripten, build a standalone module (emcc --no-entry -sSTANDALONE_WASM,"
        " without -sALLOW_MEMORY_GROWTH), and call no printf, time or file function"
    ),
    Toolchain.RUST: (
        "in Rust, build with cargo build --release --target wasm32-unknown-unknown (not"
        " wasm32-wasip1), without wasm-bindgen, and use no std I/O (println!, std::fs,"
        " std::time)"
    ),
    Toolchain.TINYGO: (
        "in Go, build with TinyGo: tinygo build -target=wasm-unknown -scheduler=none"
        " -gc=leaking -panic=trap -no-debug, and use no fmt, os or time"
    ),
}
_WASI_HINT: Final = (
    "WASI imports come from a standard library: in Rust, build for wasm32-unknown-unknown"
    " with no std I/O; in Go, tinygo -target=wasm-unknown; in C, zig cc -target"
    " wasm32-freestanding -nostdlib"
)
_DEFAULT_HINT: Final = (
    "a function the module calls but does not define becomes an import (a libc or WASI"
    " call, an undefined extern); in C, build with zig cc -target wasm32-freestanding"
    " -nostdlib -Wl,--no-entry"
)

_ASSEMBLYSCRIPT_NAMES: Final = frozenset({"abort", "trace", "seed", "Date.now"})
_EMSCRIPTEN_PREFIXES: Final = ("emscripten_", "_emscripten_", "__syscall_")
_WASM_BINDGEN_MODULES: Final = frozenset(
    {"__wbindgen_placeholder__", "__wbindgen_externref_xform__", "wbg"}
)
# Tool and language names of the producers section (lowercased), the most telling first:
# Emscripten's and Rust's modules name clang too (their C parts).
_PRODUCERS: Final = (
    (Toolchain.EMSCRIPTEN, frozenset({"emscripten"})),
    (Toolchain.RUST, frozenset({"rust", "rustc"})),
    (Toolchain.TINYGO, frozenset({"tinygo", "go"})),
    (Toolchain.C, frozenset({"c", "c++", "c89", "c99", "c11", "c17", "c23", "clang"})),
)


def _toolchain_of(module: str, name: str) -> Toolchain | None:
    """The toolchain one import's names point to, if any."""
    if module == "env":
        if name.startswith(_EMSCRIPTEN_PREFIXES) or (name[:1] == "_" and name.endswith("_js")):
            return Toolchain.EMSCRIPTEN
        if name in _ASSEMBLYSCRIPT_NAMES:
            return Toolchain.ASSEMBLYSCRIPT
    if module in _WASM_BINDGEN_MODULES:
        return Toolchain.RUST
    if module == "gojs":
        return Toolchain.TINYGO
    return None


class Imports(msgspec.Struct):
    """A module's imports as a refusal tells of them: the first few names, the count, and
    what the names point to."""

    names: list[str] = msgspec.field(default_factory=list)
    """The first three imports, as "module.name"."""
    total: int = 0
    toolchains: set[Toolchain] = msgspec.field(default_factory=set)
    wasi: bool = False
    """Whether any import is WASI's (module ``wasi_snapshot_preview1`` or ``wasi_unstable``)."""

    def add(self, module: str, name: str) -> None:
        """Count one import (its names as read, cut or not)."""
        self.total += 1
        if len(self.names) < _NAMED:
            self.names.append(f"{module}.{name}")
        toolchain = _toolchain_of(module, name)
        if toolchain is not None:
            self.toolchains.add(toolchain)
        self.wasi = self.wasi or module.startswith("wasi_")


def producers_toolchain(names: Iterable[str]) -> Toolchain | None:
    """The toolchain the producers section's tool and language names point to, if any."""
    lowered = {n.lower() for n in names}
    return next((t for t, known in _PRODUCERS if lowered & known), None)


def imports_reason(imports: Imports, producers: Toolchain | None = None) -> str:
    """Why a module with imports is refused: the first few by name, and what to do.

    The imports' own names decide the toolchain (Emscripten's first: its
    modules import WASI's names too; then AssemblyScript's, wasm-bindgen's,
    Go's), else the producers section's (``producers``); WASI imports from
    neither get every WASI toolchain's fix, anything else the C one.
    """
    shown = ", ".join(imports.names)
    if len(shown) > _NAMES_CHARS:
        shown = shown[: _NAMES_CHARS - 1] + "…"
    if imports.total == 1:
        what = f"import {shown} is not allowed"
    else:
        more = imports.total - len(imports.names)
        and_more = f" and {more:,} more" if more else ""
        what = f"{imports.total:,} imports are not allowed ({shown}{and_more})"
    order = (Toolchain.EMSCRIPTEN, Toolchain.ASSEMBLYSCRIPT, Toolchain.RUST, Toolchain.TINYGO)
    toolchain = next((t for t in order if t in imports.toolchains), producers)
    if toolchain is not None:
        hint = _HINTS[toolchain]
    else:
        hint = _WASI_HINT if imports.wasi else _DEFAULT_HINT
    return f"{what}: a controller may import nothing; {hint} (see docs/controllers.md)"
