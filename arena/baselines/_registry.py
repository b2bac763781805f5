"""The committed baseline controllers: their names, sources, modules and rebuild.

The four baselines are C files under ``baselines/`` (next to the ``arena``
package) built against ``baselines/foray.h``; the built modules are committed
beside them, and a rebuild from source must reproduce them byte for byte.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from arena._errors import UnknownControllerError

__all__ = [
    "BASELINES",
    "BASELINES_DIR",
    "Baseline",
    "baseline_path",
    "build_baselines",
    "build_extra",
    "check_baselines",
    "load_baseline",
]


BASELINES_DIR: Path = Path(__file__).resolve().parents[2] / "baselines"
"""The committed baselines' sources and modules (and the headers controllers build with).

Here, not with the compilers (``_build.py``): a match loads a baseline by name
and builds nothing."""


class Baseline(msgspec.Struct, frozen=True):
    """One committed opponent: ``source`` and ``wasm`` are paths under BASELINES_DIR."""

    name: str
    source: Path
    wasm: Path
    hidden: bool
    summary: str


def _baseline(name: str, stem: str, *, hidden: bool, summary: str) -> Baseline:
    return Baseline(
        name=name,
        source=BASELINES_DIR / f"{stem}.c",
        wasm=BASELINES_DIR / f"{stem}.wasm",
        hidden=hidden,
        summary=summary,
    )


BASELINES: dict[str, Baseline] = {
    b.name: b
    for b in (
        _baseline(
            "random",
            "random",
            hidden=False,
            summary="seeded random legal actions; an exhibition opponent",
        ),
        _baseline(
            "border-soldier",
            "border_soldier",
            hidden=False,
            summary="mines its own half and holds soldiers on a line at the map's middle; "
            "the canonical opponent",
        ),
        _baseline(
            "greedy-raider",
            "greedy_raider",
            hidden=False,
            summary="mines the nearest ore anywhere and sends soldiers at the nearest visible "
            "enemy worker, then at the enemy colony",
        ),
        _baseline(
            "fuel-probe",
            "fuel_probe",
            hidden=True,
            summary="the hidden, stronger reference: sound economy, defence, focus fire and a "
            "timed attack, on little fuel",
        ),
    )
}


def _get(name: str) -> Baseline:
    try:
        return BASELINES[name]
    except KeyError:
        known = ", ".join(sorted(BASELINES))
        raise UnknownControllerError(
            f"unknown baseline {name!r}; known baselines: {known}"
        ) from None


def baseline_path(name: str) -> Path:
    """The committed module of baseline ``name`` (UnknownControllerError naming the known ones)."""
    return _get(name).wasm


def load_baseline(name: str) -> bytes:
    """The bytes of baseline ``name``'s committed module."""
    return baseline_path(name).read_bytes()


def build_baselines(out_dir: Path) -> dict[str, bytes]:
    """Compile every baseline from source into ``out_dir``; return name -> module bytes."""
    from arena.baselines._build import compile_c

    out_dir.mkdir(parents=True, exist_ok=True)
    built: dict[str, bytes] = {}
    for name, b in BASELINES.items():
        built[name] = compile_c([b.source], out_dir / b.wasm.name, include=[BASELINES_DIR])
    return built


def check_baselines() -> list[str]:
    """Rebuild into a temporary directory; the names whose committed module differs."""
    import tempfile  # not at import: loading a baseline builds nothing

    with tempfile.TemporaryDirectory(prefix="foray-baselines-") as tmp:
        built = build_baselines(Path(tmp))
    stale = []
    for name, data in built.items():
        wasm = BASELINES[name].wasm
        if not wasm.is_file() or wasm.read_bytes() != data:
            stale.append(name)
    return stale


def build_extra(name: str) -> bytes:
    """Build ``baselines/extra/NAME.c`` (sparring and benchmark bots, not baselines)."""
    source = BASELINES_DIR / "extra" / f"{name}.c"
    if not source.is_file():
        raise UnknownControllerError(f"no extra bot {name!r} ({source.name} does not exist)")
    import tempfile

    from arena.baselines._build import compile_c

    with tempfile.TemporaryDirectory() as tmp:
        return compile_c([source], Path(tmp) / f"{name}.wasm", include=[BASELINES_DIR])
