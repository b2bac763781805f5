"""A gauntlet's losses, worst seeds first: the matches its author looks at first.

The standings count; this lists. It reads each result once, from wherever the
caller has them (a store's matches, or results played and not recorded), and
keeps only the entrant's losses.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import sim
from arena.tournament._plan import TournamentPlan
from arena.tournament._records import Format, Played

__all__ = ["GauntletLoss", "gauntlet_losses"]


@dataclass(frozen=True, slots=True)
class GauntletLoss:
    """A match the gauntlet's entrant lost. Per-side values are (entrant, opponent)."""

    seed: int
    opponent: str
    side: int
    """The entrant's side: 0 (A) or 1 (B)."""
    reason: sim.Reason
    """Why the match ended (rules §7)."""
    forfeit: sim.ForfeitKind | None
    """The entrant's forfeit, when that is how it lost."""
    banked: tuple[int, int]
    seed_losses: int
    """The entrant's losses on this seed, against every opponent and on both sides."""
    match_id: int | None = None
    """The match in the store (None when it was not recorded)."""
    replay: str | None = None
    """Its replay file (None when it was not recorded)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "opponent": self.opponent,
            "side": "AB"[self.side],
            "reason": str(self.reason),
            "forfeit": None if self.forfeit is None else str(self.forfeit),
            "banked": list(self.banked),
            "seed_losses": self.seed_losses,
            "match": self.match_id,
            "replay": self.replay,
        }


def gauntlet_losses(
    plan: TournamentPlan, results: Iterable[tuple[Played, int | None, str | None]]
) -> list[GauntletLoss]:
    """The entrant's losses among ``results`` (each with its match id and replay file, or
    None): the seeds it lost most on first, then by seed, opponent (seeded order) and side.

    ``ValueError`` for a plan that is not a gauntlet.
    """
    if plan.format is not Format.GAUNTLET:
        raise ValueError(f"a {plan.format} tournament has no gauntlet losses")
    entrant = plan.order[0]
    position = {name: i for i, name in enumerate(plan.order)}
    lost: list[GauntletLoss] = []
    for played, match_id, replay in results:
        side = played.pairing.names.index(entrant)
        if played.reason is None or played.winner != 1 - side:  # an error, a win or a draw
            continue
        lost.append(
            GauntletLoss(
                seed=played.pairing.seed,
                opponent=played.pairing.names[1 - side],
                side=side,
                reason=played.reason,
                forfeit=played.forfeits[side],
                banked=(played.banked[side], played.banked[1 - side]),
                seed_losses=0,
                match_id=match_id,
                replay=replay,
            )
        )
    per_seed = Counter(loss.seed for loss in lost)
    losses = [dataclasses.replace(loss, seed_losses=per_seed[loss.seed]) for loss in lost]
    return sorted(losses, key=lambda x: (-x.seed_losses, x.seed, position[x.opponent], x.side))
