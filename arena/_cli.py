"""The ``arena`` command line. JSON output (``--json``) is a stable interface."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import sim
from arena._errors import ArenaError
from arena._files import atomic_write, data_dir
from arena._resolve import load_contestant, load_map

__all__ = ["main"]


def _emit(obj: dict[str, Any]) -> None:
    print(json.dumps(obj, indent=2))


def cmd_map_generate(args: argparse.Namespace) -> int:
    m = sim.generate_map(args.seed, args.width, args.height)
    sys.stdout.write(sim.format_map(m))
    return 0


def cmd_map_check(args: argparse.Namespace) -> int:
    path = Path(args.file)
    try:
        m = load_map(path)
    except ArenaError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"{path}: ok, {m.width}x{m.height}")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from arena._sandbox import check_module

    contestant = load_contestant(args.module)
    admission = check_module(contestant.blob)
    if args.json:
        _emit(
            {
                "admissible": admission.admissible,
                "sha256": admission.sha256,
                "reason": admission.reason,
            }
        )
    elif admission.admissible:
        print(f"{contestant.name}: admissible (sha256 {admission.sha256})")
    else:
        print(f"{contestant.name}: not admissible: {admission.reason}")
    return 0 if admission.admissible else 1


def cmd_match(args: argparse.Namespace) -> int:
    from arena._match import run_match

    a, b = load_contestant(args.a), load_contestant(args.b)
    config = sim.Config()
    if args.max_ticks is not None:
        config = config.replace(max_ticks=args.max_ticks)
    game_map = load_map(Path(args.map)) if args.map else None
    result = run_match(a, b, seed=args.seed, config=config, game_map=game_map)
    replay_path = (
        Path(args.replay)
        if args.replay
        else data_dir() / "replays" / f"{result.replay_sha256}.replay"
    )
    atomic_write(replay_path, result.replay)
    if args.json:
        _emit(result.to_json(str(replay_path)))
        return 0
    winner = "draw" if result.winner is None else f"{result.sides[result.winner].name} wins"
    print(f"{winner} ({result.reason}) after {result.ticks} ticks, seed {result.seed}")
    for i, side in enumerate(result.sides):
        line = (
            f"  {'AB'[i]} {side.name}: banked {side.banked}, fuel {side.fuel_total:,} "
            f"(peak {side.fuel_peak:,})"
        )
        if side.forfeit:
            f = side.forfeit
            line += f", forfeit {f.kind} at tick {f.tick}: {f.detail}"
        print(line)
    print(f"  replay: {replay_path}")
    return 0


def cmd_replay_verify(args: argparse.Namespace) -> int:
    import replays

    path = Path(args.file)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ArenaError(f"{path}: cannot read the replay: {exc}") from None
    report = replays.verify_replay(data)
    if args.json:
        _emit({"ok": report.ok, "ticks": report.ticks, "mismatch_tick": report.mismatch_tick})
    elif report.ok:
        print(f"{path}: ok, {report.ticks} ticks re-simulated")
    else:
        print(f"{path}: FAILED: {report.detail}", file=sys.stderr)
    return 0 if report.ok else 1


def cmd_baselines_build(args: argparse.Namespace) -> int:
    from arena import _baselines

    if args.check:
        differ = _baselines.check_baselines()
        if differ:
            print(f"differ from a rebuild: {', '.join(differ)}", file=sys.stderr)
            return 1
        print("all baselines match a rebuild from source")
        return 0
    built = _baselines.build_baselines(_baselines.BASELINES_DIR)
    for name, blob in built.items():
        print(f"built {name}: {len(blob)} bytes")
    return 0


def cmd_baselines_strength(args: argparse.Namespace) -> int:
    from arena import _strength

    names = args.names or _strength.default_field()
    tallies, fuel = _strength.play_all(names, args.seeds, jobs=args.jobs)
    table = _strength.render_markdown(names, tallies, fuel, args.seeds)
    print(table, end="")
    forfeits = [f for st in fuel.values() for f in st.forfeits]
    for f in forfeits:
        print(f"forfeit: {f}", file=sys.stderr)
    return 1 if forfeits else 0


def cmd_demo(args: argparse.Namespace) -> int:
    from arena._demo import run_demo

    return run_demo(args.seed)


def cmd_bench(args: argparse.Namespace) -> int:
    from arena._bench import run_benchmarks

    run_benchmarks(args.which, quick=args.quick)
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="arena", description="Foray Arena: matches of wasm controllers"
    )
    sub = p.add_subparsers(dest="command", required=True)

    mp = sub.add_parser("map", help="generate or check maps").add_subparsers(
        dest="map_command", required=True
    )
    g = mp.add_parser("generate", help="print a generated map file")
    g.add_argument("--seed", type=_u32, default=0)
    g.add_argument("--width", type=int, default=32)
    g.add_argument("--height", type=int, default=32)
    g.set_defaults(func=cmd_map_generate)
    c = mp.add_parser("check", help="validate a map file (exit 1 with the error)")
    c.add_argument("file")
    c.set_defaults(func=cmd_map_check)

    ck = sub.add_parser("check", help="is a module admissible?")
    ck.add_argument("module", help=".wasm path or baseline name")
    ck.add_argument("--json", action="store_true")
    ck.set_defaults(func=cmd_check)

    m = sub.add_parser("match", help="play one match")
    m.add_argument("a", help="side A: .wasm path or baseline name")
    m.add_argument("b", help="side B: .wasm path or baseline name")
    m.add_argument("--seed", type=_u32, default=0)
    m.add_argument("--map", help="a map file (decides the size)")
    m.add_argument("--max-ticks", type=int)
    m.add_argument("--replay", help="where to write the replay")
    m.add_argument("--json", action="store_true")
    m.set_defaults(func=cmd_match)

    r = sub.add_parser("replay", help="replay files").add_subparsers(
        dest="replay_command", required=True
    )
    v = r.add_parser("verify", help="re-simulate a replay and compare every checksum")
    v.add_argument("file")
    v.add_argument("--json", action="store_true")
    v.set_defaults(func=cmd_replay_verify)

    bl = sub.add_parser("baselines", help="the committed baselines").add_subparsers(
        dest="baselines_command", required=True
    )
    bb = bl.add_parser("build", help="rebuild the baselines from source")
    bb.add_argument(
        "--check", action="store_true", help="compare a rebuild with the committed modules"
    )
    bb.set_defaults(func=cmd_baselines_build)

    d = sub.add_parser("demo", help="the default job: the baselines play each other")
    d.add_argument("--seed", type=_u32, default=0)
    d.set_defaults(func=cmd_demo)

    bs = bl.add_parser("strength", help="win rates and fuel of the baselines, as Markdown")
    bs.add_argument("names", nargs="*", help="entrants (default: the baselines and economy)")
    bs.add_argument("--seeds", type=int, default=20)
    bs.add_argument("--jobs", type=int, default=2)
    bs.set_defaults(func=cmd_baselines_strength)

    be = sub.add_parser("bench", help="print speed figures")
    be.add_argument("which", nargs="?", default="all", choices=["all", "sim", "match"])
    be.add_argument("--quick", action="store_true", help="fewer repetitions")
    be.set_defaults(func=cmd_bench)
    return p


def _u32(text: str) -> int:
    value = int(text, 0)
    if not 0 <= value < 1 << 32:
        raise argparse.ArgumentTypeError(f"{text} is not an unsigned 32-bit integer")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``arena`` console script."""
    args = build_parser().parse_args(argv)
    try:
        code: int = args.func(args)
    except (ArenaError, sim.ConfigError, sim.MapError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (``arena ... | head``): not an error of ours.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return code


if __name__ == "__main__":
    sys.exit(main())
