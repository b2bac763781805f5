"""``arena check`` and ``arena match``."""

from __future__ import annotations

import argparse
from pathlib import Path

from arena.cli._common import emit_json, loading, shown, u32

__all__ = ["register"]

_TINY = 256
"""Bytes below which a module with a missing export probably lost them all at link time."""


# The commands import what they use when they run: wasmtime is the largest import of
# all, and `arena check` needs none of the store.


def cmd_check(args: argparse.Namespace) -> int:
    from arena.match import load_contestant
    from arena.sandbox import check_module

    contestant = load_contestant(args.module)
    admission = check_module(contestant.blob)
    reason = admission.reason
    if reason is not None and "missing export" in reason and len(contestant.blob) < _TINY:
        # The usual cause: a linker that dropped every export (rules §9.10).
        reason += (
            f" (the module is only {len(contestant.blob)} bytes: did the build keep your"
            " exports? Zig needs -rdynamic, clang --export=NAME or -Wl,--export-dynamic)"
        )
    if args.json:
        emit_json(
            {"admissible": admission.admissible, "sha256": admission.sha256, "reason": reason}
        )
    elif admission.admissible:
        print(f"{shown(contestant.name)}: admissible (sha256 {admission.sha256})")
    else:
        print(f"{shown(contestant.name)}: not admissible: {shown(reason)}")
    return 0 if admission.admissible else 1


def cmd_match(args: argparse.Namespace) -> int:
    # The match path: nothing of the executors, the coordinator or the builds
    # (tests/test_startup.py lists every module it loads).
    with loading():
        from arena._files import cache_dir, check_directory, check_output, data_dir, write_output
        from arena.cases import default_case
        from arena.match import load_contestant, load_map, play
        from arena.store import Store, store_contestant

    a, b = load_contestant(args.a), load_contestant(args.b)
    # The rules and limits are the Foray case's; the replay names the case they came
    # from (its header records every constant, overrides included). The loaded case is
    # kept in the disk cache, beside the compiled modules: the next match skips its TOML.
    case = default_case(cache=cache_dir() / "cases")
    config = case.rules
    if args.max_ticks is not None:
        config = config.replace(max_ticks=args.max_ticks)
    game_map = load_map(Path(args.map)) if args.map else None
    # Where the replay goes, and the store, are checked before the match is played.
    if args.replay:
        check_output(Path(args.replay), "replay")
    elif not args.no_record:
        check_directory(data_dir() / "replays", "replay")
    job = case.match_job(a, b, seed=args.seed, config=config, game_map=game_map)
    replay_path = Path(args.replay) if args.replay else None
    if args.no_record:  # played and printed; only --replay is written
        result = play(job)
        data = {"id": None, **result.to_json(str(replay_path or ""))}
    else:
        with Store.open() as store:
            result = play(job)
            # The match is recorded (its replay in the store's files, by sha256) under the
            # names it was played under; a --replay file is written too. The stored file is
            # the replay's own bytes, not compressed: the JSON names it (docs/storage.md).
            for contestant, side in zip((a, b), result.sides, strict=True):
                store_contestant(store, contestant, name=side.name)
            record = store.record_match(result, raw_replay=True)
            replay_path = replay_path or store.replay_path(result.replay_sha256)
        data = record.to_json(str(replay_path))
    if args.replay:
        write_output(Path(args.replay), result.replay, "replay")
    if args.json:
        emit_json(data)
        return 0
    winner = "draw" if result.winner is None else f"{result.sides[result.winner].name} wins"
    print(f"{shown(winner)} ({result.reason}) after {result.ticks} ticks, seed {result.seed}")
    for i, side in enumerate(result.sides):
        line = (
            f"  {'AB'[i]} {shown(side.name)}: banked {side.banked}, fuel {side.fuel_total:,} "
            f"(peak {side.fuel_peak:,})"
        )
        if side.forfeit:
            f = side.forfeit
            line += f", forfeit {f.kind} at tick {f.tick}: {shown(f.detail)}"
        print(line)
    if replay_path is None:
        print("  replay: not kept (--no-record; --replay PATH writes it)")
    else:
        print(f"  replay: {shown(replay_path)}")
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
    m.add_argument(
        "--no-record",
        action="store_true",
        help="store nothing (no match, no replay in the data directory); --replay still writes",
    )
    m.add_argument("--json", action="store_true")
    m.set_defaults(func=cmd_match)
