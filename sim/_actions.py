"""The closed vocabularies of the rules, and the contract's action rules (rules §3, §5, §9).

Every enumeration the game speaks is defined here once: ops, directions, unit
kinds, the result reasons and the forfeit kinds. Records seen by controllers
are named tuples, so a unit's fields read by name.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from enum import IntEnum, StrEnum
from typing import NamedTuple

__all__ = [
    "ARG_RANGE",
    "ATTACK",
    "DEPOSIT",
    "DIRECTION_DELTAS",
    "EAST",
    "HERE",
    "MAX_NOTE_BYTES",
    "MINE",
    "MOVE",
    "NOOP",
    "NORTH",
    "SOLDIER",
    "SOUTH",
    "SPAWN",
    "WEST",
    "WORKER",
    "Direction",
    "ForfeitKind",
    "Op",
    "OreRecord",
    "Reason",
    "Record",
    "UnitKind",
    "UnitRecord",
    "validate_actions",
]


class Op(IntEnum):
    """An action's op code (rules §5)."""

    NOOP = 0
    MOVE = 1
    ATTACK = 2
    MINE = 3
    DEPOSIT = 4
    SPAWN = 5


class Direction(IntEnum):
    """A direction in a side's own view (rules §3); HERE is no step."""

    HERE = 0
    NORTH = 1
    EAST = 2
    SOUTH = 3
    WEST = 4


class UnitKind(IntEnum):
    """A unit's kind (rules §4)."""

    WORKER = 1
    SOLDIER = 2


class Reason(StrEnum):
    """Why a match ended the way it did (rules §7)."""

    FORFEIT = "forfeit"
    SWEEP = "sweep"
    SCORE = "score"
    FUEL = "fuel"
    DRAW = "draw"


class ForfeitKind(StrEnum):
    """What a controller did to forfeit (rules §8). TIMEOUT is the one non-deterministic kind."""

    INIT = "init"
    FUEL = "fuel"
    MEMORY = "memory"
    TRAP = "trap"
    INVALID_ACTION = "invalid_action"
    TIMEOUT = "timeout"


NOOP, MOVE, ATTACK, MINE, DEPOSIT, SPAWN = Op
HERE, NORTH, EAST, SOUTH, WEST = Direction
WORKER, SOLDIER = UnitKind

DIRECTION_DELTAS: tuple[tuple[int, int], ...] = ((0, 0), (0, -1), (1, 0), (0, 1), (-1, 0))
"""(dx, dy) of each direction, indexed by its number: HERE, NORTH (y-1), EAST, SOUTH, WEST."""

# Per side, each of its directions in absolute terms: side 1's view is turned
# 180 degrees, so its NORTH is absolute SOUTH (rules §3).
_TURN = ((0, 1, 2, 3, 4), (0, 3, 4, 1, 2))

# The vocabulary as plain ints for the hot paths: comparisons of two exact ints
# take the interpreter's fast path, comparisons with an IntEnum member do not.
_MOVE, _ATTACK, _MINE, _DEPOSIT, _SPAWN = map(int, (MOVE, ATTACK, MINE, DEPOSIT, SPAWN))
_WORKER, _SOLDIER = int(WORKER), int(SOLDIER)

Record = tuple[int, int, int]
"""One action record as submitted: (unit_id, op, arg); unit id 0 is the colony."""


class UnitRecord(NamedTuple):
    """A unit as a view shows it: compares equal to the tuple (id, kind, x, y, hp, carry)."""

    id: int
    kind: int
    x: int
    y: int
    hp: int
    carry: int


class OreRecord(NamedTuple):
    """A cell holding ore as a view shows it: (x, y, amount)."""

    x: int
    y: int
    amount: int


ARG_RANGE: tuple[tuple[int, int], ...] = ((0, 0), (1, 4), (1, 4), (0, 4), (0, 0), (1, 2))
"""Inclusive argument range of each op."""

MAX_NOTE_BYTES = 256
"""The longest debug note a controller may return from ``foray_note`` (rules §9.9); a note
is never part of the game, but the sandbox and the replay reader share this bound."""


# The args each op accepts: for a unit (any op but SPAWN) and for the colony
# (id 0: NOOP or SPAWN). One dict and one set lookup judge a record's op and arg.
_UNIT_ARGS: dict[int, frozenset[int]] = {
    op: frozenset(range(low, high + 1)) for op, (low, high) in enumerate(ARG_RANGE) if op != SPAWN
}
_COLONY_ARGS: dict[int, frozenset[int]] = {
    op: frozenset(range(ARG_RANGE[op][0], ARG_RANGE[op][1] + 1)) for op in (NOOP, SPAWN)
}


def validate_actions(
    n: int, records: Sequence[Record], roster: Collection[int], max_units: int
) -> str | None:
    """Check a reply against rules §9; return None or what broke which rule.

    ``roster`` is the ids of the side's units alive at the start of the tick (the
    ones its view showed). ``records`` are the first ``n`` records when ``n`` is
    in range (the caller reads nothing otherwise). The text of a fault is built
    only for the record at fault: the common case is a valid reply.
    """
    if n < 0 or n > max_units + 1:
        return f"action count n = {n} is outside 0..{max_units + 1} (max_units + 1)"
    seen: set[int] = set()
    for uid, op, arg in records:
        if uid:
            allowed = _UNIT_ARGS.get(op)
            if uid not in roster:
                return _broken_rule(records, roster)
        else:
            allowed = _COLONY_ARGS.get(op)
        if allowed is None or arg not in allowed or uid in seen:
            return _broken_rule(records, roster)
        seen.add(uid)
    return None


def _broken_rule(records: Sequence[Record], roster: Collection[int]) -> str:
    """The first rule broken, checked in the documented order, naming the record."""
    seen: dict[int, int] = {}
    for i, (uid, op, arg) in enumerate(records):
        where = f"record {i} (unit {uid}, op {op}, arg {arg})"
        if uid != 0 and uid not in roster:
            return f"{where}: unit id {uid} is not one of the side's units alive at the tick start"
        if uid in seen:
            return f"{where}: unit id {uid} repeats record {seen[uid]}"
        seen[uid] = i
        if not 0 <= op <= SPAWN:
            return f"{where}: op {op} is outside 0..5"
        if uid == 0 and op not in (NOOP, SPAWN):
            return f"{where}: the colony (id 0) takes only SPAWN or NOOP, not {Op(op).name}"
        if uid != 0 and op == SPAWN:
            return f"{where}: SPAWN is for the colony (id 0), not unit {uid}"
        low, high = ARG_RANGE[op]
        if not low <= arg <= high:
            return f"{where}: {Op(op).name} takes an arg in {low}..{high}, got {arg}"
    raise AssertionError("validate_actions found a fault that _broken_rule did not")
