"""Actions, directions and the contract's action rules (spec sections 3, 5 and 9)."""

from __future__ import annotations

from collections.abc import Collection, Sequence

__all__ = [
    "ATTACK",
    "DEPOSIT",
    "EAST",
    "HERE",
    "MINE",
    "MOVE",
    "NOOP",
    "NORTH",
    "SOLDIER",
    "SOUTH",
    "SPAWN",
    "WEST",
    "WORKER",
    "Record",
    "validate_actions",
]

# Ops.
NOOP, MOVE, ATTACK, MINE, DEPOSIT, SPAWN = range(6)
# Directions, in the controller's own frame.
HERE, NORTH, EAST, SOUTH, WEST = range(5)
# Unit kinds.
WORKER, SOLDIER = 1, 2

Record = tuple[int, int, int]
"""One action record as submitted: (unit_id, op, arg); unit id 0 is the colony."""

OP_NAMES = ("NOOP", "MOVE", "ATTACK", "MINE", "DEPOSIT", "SPAWN")
# Inclusive argument range of each op.
ARG_RANGE: tuple[tuple[int, int], ...] = ((0, 0), (1, 4), (1, 4), (0, 4), (0, 0), (1, 2))


def validate_actions(
    n: int, records: Sequence[Record], roster: Collection[int], max_units: int
) -> str | None:
    """Check a reply against spec section 9; return None or what broke which rule.

    ``roster`` is the ids of the side's units alive at the start of the tick (the
    ones its observation showed). ``records`` are the first ``n`` records when
    ``n`` is in range (the caller reads nothing otherwise).
    """
    if n < 0 or n > max_units + 1:
        return f"action count n = {n} is outside 0..{max_units + 1} (max_units + 1)"
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
            return f"{where}: the colony (id 0) takes only SPAWN or NOOP, not {OP_NAMES[op]}"
        if uid != 0 and op == SPAWN:
            return f"{where}: SPAWN is for the colony (id 0), not unit {uid}"
        low, high = ARG_RANGE[op]
        if not low <= arg <= high:
            return f"{where}: {OP_NAMES[op]} takes an arg in {low}..{high}, got {arg}"
    return None
