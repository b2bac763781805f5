"""``arena replay fuel``: each side's fuel per tick, and its memory over time, against the caps.

Fuel is in every frame; memory in the frames of format version 3, read with
``replays.memory_series`` (a replay of an older version says it has none). Both
are charted on the terminal with block characters, each column the peak of its
ticks, scaled to the cap (docs/decisions.md says why no plotting library).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import replays
from arena.cli._common import emit_json, shown

__all__ = ["memory_text", "report_fuel"]

_SIDES = "AB"
_BARS = " ▁▂▃▄▅▆▇█"
_PAGE = 65_536
"""A wasm page: memory grows by whole pages."""


def _chart(values: Sequence[int], cap: int, width: int = 80, height: int = 8) -> list[str]:
    """A bar chart of ``values`` scaled to ``cap``: each column the peak of its ticks."""
    columns = min(width, len(values)) or 1
    peaks = [
        max(values[i * len(values) // columns : (i + 1) * len(values) // columns] or [0])
        for i in range(columns)
    ]
    rows = []
    for level in range(height, 0, -1):
        line = ""
        for peak in peaks:
            eighths = round(8 * height * min(peak, cap) / cap) - 8 * (level - 1)
            line += _BARS[max(0, min(8, eighths))]
        rows.append(line)
    return rows


def _cap(limits: Any, name: str, fallback: int) -> int:
    """The header's limit ``name`` when it is a positive int, else ``fallback``."""
    cap = limits.get(name)
    return cap if isinstance(cap, int) and cap > 0 else max(1, fallback)


def memory_text(size: int, cap: int) -> str:
    """``1,179,648 bytes (18 pages, 1.8% of the cap)``."""
    pages = f"{size // _PAGE:,} pages" if size % _PAGE == 0 else f"{size / _PAGE:,.2f} pages"
    return f"{size:,} bytes ({pages}, {100 * size / cap:.1f}% of the cap)"


def _memory(series: Sequence[int], cap: int) -> dict[str, Any]:
    """One side's memory over the ticks: its sizes, where it started and peaked, and each
    tick it grew in (the size after, and by how much)."""
    peak = max(series, default=0)
    return {
        "cap": cap,
        "per_tick": list(series),
        "start": series[0] if series else 0,
        "peak": peak,
        "peak_tick": series.index(peak) if series else None,
        "share_of_cap": round(peak / cap, 4),
        "grew": [
            {"tick": t, "bytes": series[t], "by": series[t] - series[t - 1]}
            for t in range(1, len(series))
            if series[t] != series[t - 1]
        ],
    }


def report_fuel(replay: replays.Replay, sides: Sequence[int], top: int, as_json: bool) -> int:
    """Print ``sides``' fuel and memory (``top`` ticks of each listed), or their JSON."""
    from arena.match import FuelStats

    limits = replay.header.limits
    cap = _cap(limits, "fuel_per_tick", max((max(f.fuel) for f in replay.frames), default=1))
    memory = replays.memory_series(replay)
    memory_cap = (
        None
        if memory is None
        else _cap(limits, "max_memory_bytes", max(max(m, default=0) for m in memory))
    )
    out: list[dict[str, Any]] = []
    for s in sides:
        fuel = [frame.fuel[s] for frame in replay.frames]
        closest = sorted(range(len(fuel)), key=lambda t: (-fuel[t], t))[:top]
        out.append(
            {
                "side": _SIDES[s],
                "name": replay.header.sides[s].name,
                "cap": cap,
                "per_tick": fuel,
                "stats": FuelStats.of(fuel).to_dict(),
                "closest_to_cap": [
                    {"tick": t, "fuel": fuel[t], "share_of_cap": round(fuel[t] / cap, 4)}
                    for t in closest
                ],
                "memory": None
                if memory is None or memory_cap is None
                else _memory(memory[s], memory_cap),
            }
        )
    if as_json:
        emit_json({"sides": out})
        return 0
    for side in out:
        _print_fuel(side, cap)
        _print_memory(side["memory"], top, replay.header.version)
    return 0


def _print_fuel(side: dict[str, Any], cap: int) -> None:
    st = side["stats"]
    print(
        f"side {side['side']} ({shown(side['name'])}): fuel per tick against the cap"
        f" {cap:,} (top line); mean {st['mean']:,.0f}, median {st['median']:,.0f},"
        f" p90 {st['p90']:,}, peak {st['peak']:,} at tick {st['peak_tick']}"
    )
    for row in _chart(side["per_tick"], cap):
        print(f"  |{row}")
    print(f"  +{'-' * min(80, len(side['per_tick']))} ticks 0..{len(side['per_tick']) - 1}")
    if 0 < st["peak"] < cap // 4:
        print(f"  the same, scaled to the peak {st['peak']:,}:")
        for row in _chart(side["per_tick"], st["peak"], height=4):
            print(f"  |{row}")
    print("  closest to the cap:")
    for c in side["closest_to_cap"]:
        print(f"    tick {c['tick']:>5}: {c['fuel']:>12,} ({100 * c['share_of_cap']:.1f}%)")


def _print_memory(memory: dict[str, Any] | None, top: int, version: int) -> None:
    if memory is None:
        print(
            f"  memory: not recorded (format version {version};"
            f" version {replays.MEMORY_VERSION} records it)"
        )
        return
    cap, sizes, grew = memory["cap"], memory["per_tick"], memory["grew"]
    print(
        f"  memory against max_memory_bytes {cap:,} (top line): {memory['start']:,} bytes"
        f" at tick 0, peak {memory_text(memory['peak'], cap)} at tick {memory['peak_tick']};"
        f" grew in {len(grew)} tick{'' if len(grew) == 1 else 's'}"
    )
    if not sizes:
        return
    for row in _chart(sizes, cap, height=4):
        print(f"  |{row}")
    print(f"  +{'-' * min(80, len(sizes))} ticks 0..{len(sizes) - 1}")
    if grew:
        shown_grew = grew[-top:] if top > 0 else []
        print(f"  the last {len(shown_grew)} tick(s) it grew in:")
        for g in shown_grew:
            print(f"    tick {g['tick']:>5}: +{g['by']:,} to {memory_text(g['bytes'], cap)}")
