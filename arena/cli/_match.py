"""``arena check`` and ``arena match``."""

from __future__ import annotations

import argparse
from pathlib import Path

from arena.cli._common import emit_json, u32

__all__ = ["register"]


# The commands import the sandbox when they run: the parser is built for every
# command, and wasmtime is the largest import of all.


def cmd_check(args: argparse.Namespace) -> int:
    from arena.match import load_contestant
    from arena.sandbox import check_module

    contestant = load_contestant(args.module)
    admission = check_module(contestant.blob)
    if args.json:
        emit_json(
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
    from arena._files import atomic_write, data_dir
    from arena.cases import default_case
    from arena.executors import MatchJob, play
    from arena.match import load_contestant, load_map

    a, b = load_contestant(args.a), load_contestant(args.b)
    # The rules and limits are the Foray case's; the replay names the case they came
    # from (its header records every constant, overrides included).
    case = default_case()
    config = case.rules
    if args.max_ticks is not None:
        config = config.replace(max_ticks=args.max_ticks)
    game_map = load_map(Path(args.map)) if args.map else None
    result = play(MatchJob.for_case(case, a, b, seed=args.seed, config=config, game_map=game_map))
    replay_path = (
        Path(args.replay)
        if args.replay
        else data_dir() / "replays" / f"{result.replay_sha256}.replay"
    )
    atomic_write(replay_path, result.replay)
    if args.json:
        emit_json(result.to_json(str(replay_path)))
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


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    ck = sub.add_parser("check", help="is a module admissible?")
    ck.add_argument("module", help=".wasm path or baseline name")
    ck.add_argument("--json", action="store_true")
    ck.set_defaults(func=cmd_check)

    m = sub.add_parser("match", help="play one match")
    m.add_argument("a", help="side A: .wasm path or baseline name")
    m.add_argument("b", help="side B: .wasm path or baseline name")
    m.add_argument("--seed", type=u32, default=0)
    m.add_argument("--map", help="a map file (decides the size)")
    m.add_argument("--max-ticks", type=int)
    m.add_argument("--replay", help="where to write the replay")
    m.add_argument("--json", action="store_true")
    m.set_defaults(func=cmd_match)
