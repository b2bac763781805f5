"""Which of my units died where, and what did my spawns cost: a replay read with ``replays``.

    python docs/examples/replay_summary.py REPLAY [--side A|B]

An example of the analysis API (docs/replays.md, "Reading a replay in
Python"): ``read_replay`` for the file, ``iter_ticks`` for each applied tick's
state and events (side, unit, cell), the frames for fuel and notes. It needs
only the ``replays`` and ``sim`` packages. Cells are absolute (side A's view).
"""

from __future__ import annotations

import argparse
from collections import Counter

import replays
import sim

KINDS: dict[int, str] = {sim.WORKER: "worker", sim.SOLDIER: "soldier"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("replay")
    parser.add_argument("--side", choices=["A", "B"], default="A")
    args = parser.parse_args()
    me = "AB".index(args.side)
    foe = "BA"[me]

    with open(args.replay, "rb") as f:
        replay = replays.read_replay(f)
    header, result = replay.header, replay.result
    winner = "a draw" if result.winner is None else f"side {'AB'[result.winner]} won"
    print(
        f"{header.sides[me].name} as side {args.side}, seed {header.seed}:"
        f" {winner} ({result.reason}) after {result.ticks} ticks"
    )

    spawned: Counter[str] = Counter()
    spent: Counter[str] = Counter()
    mined = 0
    most_units = (0, 0)  # (units, tick)
    for tick in replays.iter_ticks(replay):
        most_units = max(most_units, (len(tick.state.units[me]), -tick.tick))
        for event in tick.events:
            if event.side != me:
                continue
            kind = KINDS[event.unit_kind]
            if event.kind is replays.EventKind.SPAWN:
                spawned[kind] += 1
                spent[kind] += event.amount
            elif event.kind is replays.EventKind.MINE:
                mined += event.amount
            elif event.kind is replays.EventKind.DEATH:
                killers = ", ".join(f"{foe}#{uid}" for uid in event.by)
                dropped = f", dropped {event.amount} ore" if event.amount else ""
                print(
                    f"  tick {event.tick:>3}: {kind} {event.unit} died at"
                    f" ({event.x}, {event.y}), killed by {killers}{dropped}"
                )

    for kind in KINDS.values():
        if spawned[kind]:
            print(f"spawned {spawned[kind]} {kind}s for {spent[kind]} energy")
    units, at = most_units
    print(
        f"at most {units} units (tick {-at}); mined {mined} ore, banked {result.sides[me].banked}"
    )
    fuel = [frame.fuel[me] for frame in replay.frames]
    if fuel:
        peak = max(fuel)
        print(f"fuel: {sum(fuel):,} over the ticks, peak {peak:,} at tick {fuel.index(peak)}")
    # A note is the text of foray_note (rules §9.9), or the length of one it dropped.
    notes = [n for f in replay.frames if f.notes is not None for n in [f.notes[me]]]
    said = [n for n in notes if isinstance(n, str) and n]
    print(f"notes: {len(said)}" + (f", the last {said[-1]!r}" if said else ""))


if __name__ == "__main__":
    main()
