"""One match as a pure function: (config, map or seed, two modules) -> (result, replay bytes)."""

from __future__ import annotations

import dataclasses
import hashlib
import io
from dataclasses import dataclass, field
from typing import Any

import sim
from arena._contract import decode_actions, encode_init, encode_obs
from arena._sandbox import WASMTIME_VERSION, Controller, Fault, Limits
from replays._format import FrameEncoder, ReplayWriter

__all__ = ["Contestant", "Forfeit", "MatchResult", "SideResult", "run_match"]


@dataclass(frozen=True, slots=True)
class Contestant:
    """A controller entering a match: a display name and its module bytes."""

    name: str
    blob: bytes = field(repr=False)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.blob).hexdigest()


@dataclass(frozen=True, slots=True)
class Forfeit:
    """A guest's fault, as an outcome: when, what kind (spec section 8) and why."""

    tick: int
    kind: str  # init | fuel | memory | trap | invalid_action | timeout
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {"tick": self.tick, "kind": self.kind, "detail": self.detail}


@dataclass(frozen=True, slots=True)
class SideResult:
    name: str
    sha256: str
    banked: int
    fuel_total: int
    fuel_peak: int
    forfeit: Forfeit | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "sha256": self.sha256,
            "banked": self.banked,
            "fuel_total": self.fuel_total,
            "fuel_peak": self.fuel_peak,
            "forfeit": self.forfeit.to_dict() if self.forfeit else None,
        }


@dataclass(frozen=True, slots=True)
class MatchResult:
    """The outcome of a match, with the replay it was recorded in."""

    winner: int | None
    reason: str
    ticks: int
    seed: int
    sides: tuple[SideResult, SideResult]
    replay: bytes = field(repr=False)

    @property
    def replay_sha256(self) -> str:
        return hashlib.sha256(self.replay).hexdigest()

    def to_json(self, replay_path: str = "") -> dict[str, Any]:
        """The stable JSON of ``arena match --json`` (keys fixed by the design)."""
        return {
            "winner": self.winner,
            "reason": self.reason,
            "ticks": self.ticks,
            "seed": self.seed,
            "replay": replay_path,
            "replay_sha256": self.replay_sha256,
            "sides": [s.to_dict() for s in self.sides],
        }


def run_match(
    a: Contestant,
    b: Contestant,
    *,
    seed: int = 0,
    config: sim.Config | None = None,
    limits: Limits | None = None,
    game_map: sim.GameMap | None = None,
    case: dict[str, Any] | None = None,
) -> MatchResult:
    """Play ``a`` (side 0) against ``b`` (side 1) and record the replay.

    Deterministic: the same arguments give the same result and replay bytes,
    unless the wall-clock backstop fires (forfeit kind ``timeout``).
    """
    if not 0 <= seed < 1 << 32:
        raise ValueError(f"seed {seed} is not an unsigned 32-bit integer")
    config = config or sim.Config()
    limits = limits or Limits()
    if game_map is None:
        game_map = sim.generate_map(seed, config.width, config.height)
    elif (game_map.width, game_map.height) != (config.width, config.height):
        # The map file decides the size.
        config = config.replace(width=game_map.width, height=game_map.height)
    game = sim.Game(game_map, config)
    contestants = (a, b)
    out = io.BytesIO()
    writer = ReplayWriter(out)
    writer.header(_header(game, contestants, seed, limits, case))

    ctrls = (Controller(a.blob, limits), Controller(b.blob, limits))
    forfeits: list[Forfeit | None] = [None, None]
    for s, ctrl in enumerate(ctrls):
        message = encode_init(
            game,
            s,
            seed=seed,
            fuel_per_tick=limits.fuel_per_tick,
            max_memory_bytes=limits.max_memory_bytes,
        )
        fault = ctrl.init(message)
        if fault is not None:
            # "init", or "timeout" when the wall-clock backstop fired during init.
            forfeits[s] = Forfeit(0, fault.kind, fault.detail)

    outcome: sim.Outcome | None = None
    ticks = 0
    if any(forfeits):
        outcome = _forfeit_outcome(forfeits)
    max_records = config.max_units + 1
    frames = FrameEncoder(game)
    while outcome is None:
        tick = game.tick
        submitted: list[list[sim.Record]] = [[], []]
        for s, ctrl in enumerate(ctrls):
            reply = ctrl.tick(encode_obs(game.observe(s), ctrl.last_fuel), max_records)
            if isinstance(reply, Fault):
                forfeits[s] = Forfeit(tick, reply.kind, reply.detail)
                continue
            n, raw = reply
            records = decode_actions(raw)
            submitted[s] = records
            broken = sim.validate_actions(n, records, game.roster(s), config.max_units)
            if broken is not None:
                forfeits[s] = Forfeit(tick, "invalid_action", broken)
        fuel = [ctrl.last_fuel for ctrl in ctrls]
        ticks = tick + 1
        if any(forfeits):
            writer.frame(frames.forfeit(game, tick, submitted, fuel))
            outcome = _forfeit_outcome(forfeits)
            break
        events = game.step(submitted)
        writer.frame(frames.applied(game, tick, submitted, fuel, events))
        outcome = game.outcome((ctrls[0].fuel_total, ctrls[1].fuel_total))

    sides = tuple(
        SideResult(
            name=c.name,
            sha256=c.sha256,
            banked=game.sides[s].banked,
            fuel_total=ctrls[s].fuel_total,
            fuel_peak=ctrls[s].fuel_peak,
            forfeit=forfeits[s],
        )
        for s, c in enumerate(contestants)
    )
    writer.result(
        {
            "winner": outcome.winner,
            "reason": outcome.reason,
            "ticks": ticks,
            "sides": [
                {k: v for k, v in side.to_dict().items() if k not in ("name", "sha256")}
                for side in sides
            ],
        }
    )
    return MatchResult(
        winner=outcome.winner,
        reason=outcome.reason,
        ticks=ticks,
        seed=seed,
        sides=(sides[0], sides[1]),
        replay=out.getvalue(),
    )


def _forfeit_outcome(forfeits: list[Forfeit | None]) -> sim.Outcome:
    return sim.forfeit_outcome((forfeits[0] is not None, forfeits[1] is not None))


def _header(
    game: sim.Game,
    contestants: tuple[Contestant, Contestant],
    seed: int,
    limits: Limits,
    case: dict[str, Any] | None,
) -> dict[str, Any]:
    m = game.map
    return {
        "rules_version": sim.RULES_VERSION,
        "generator_version": sim.GENERATOR_VERSION,
        "wasmtime": WASMTIME_VERSION,
        "case": case,
        "seed": seed,
        "config": game.config.to_dict(),
        "limits": dataclasses.asdict(limits),
        "map": {
            "width": m.width,
            "height": m.height,
            "rock": bytes(m.rock),
            "ore": list(m.ore),
            "colonies": [list(c) for c in m.colonies],
        },
        "sides": [{"name": c.name, "sha256": c.sha256} for c in contestants],
    }
