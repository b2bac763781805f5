"""Checking a run pushed from another arena (``arena push``), without trusting it.

A pushed run is a claim: its case, its controller's module, its outcome and
per match the opponent, the role, the result and the replay. It stands only
if it is a run of this arena's copy of the case (``check_pushed_run``: every
planned match once, each opponent in its role), if every match played again
from the pushed module and this arena's own copy of the opponent writes the
very same replay (``recheck_match``, in a worker process), and if its outcome
is its canonical matches' (``PushCheck.results``). Anything else is a
``RunRefusedError`` naming the match and what differs: the pusher's fault.

Reading the claim off the wire (``web``'s push bundle), admitting the module
and handing the rechecks to worker processes are the caller's.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import replays
from arena._errors import ArenaError
from arena.cases import Case, Role, RunOutcome
from arena.proving._run import planned_matches, run_outcome
from arena.store import Origin, RunMatch, RunRecord, Store

if TYPE_CHECKING:
    from arena.match import Rematch

__all__ = [
    "ClaimedMatch",
    "ClaimedRun",
    "PushCheck",
    "Recheck",
    "RunRefusedError",
    "check_pushed_run",
    "claimed_result",
    "find_pushed_run",
    "recheck_match",
    "record_pushed_run",
]

_COMPETED = tuple(str(o) for o in RunOutcome if o is not RunOutcome.COULD_NOT_COMPETE)


class RunRefusedError(ArenaError):
    """A pushed run that is not a valid run of the case: the pusher's fault, with the reason."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(f"refused: {reason}")


class ClaimedMatch(Protocol):
    """One match of a pushed run, as the pusher claims it."""

    @property
    def opponent(self) -> str: ...
    @property
    def role(self) -> str: ...
    @property
    def result(self) -> Mapping[str, Any]:
        """The match JSON the run recorded (``arena match --json``'s keys, without "replay")."""

    @property
    def replay(self) -> bytes: ...


class ClaimedRun(Protocol):
    """A pushed run, as the pusher claims it (``web``'s push bundle is one)."""

    @property
    def case_slug(self) -> str: ...
    @property
    def case_version(self) -> int: ...
    @property
    def manifest_sha256(self) -> str: ...
    @property
    def controller(self) -> str: ...
    @property
    def module(self) -> bytes: ...
    @property
    def module_sha256(self) -> str: ...
    @property
    def outcome(self) -> str: ...
    @property
    def reason(self) -> str | None: ...
    @property
    def build_log(self) -> str: ...
    @property
    def matches(self) -> Sequence[ClaimedMatch]: ...


def claimed_result(result: Mapping[str, Any]) -> dict[str, Any]:
    """A match JSON without what differs between stores: its id and where its replay is."""
    return {k: v for k, v in result.items() if k not in ("id", "replay")}


@dataclass(frozen=True, slots=True)
class Recheck:
    """One pushed match to play again (``recheck_match``): everything a worker needs."""

    case: Case
    replay: bytes
    controller: bytes
    """The pushed module."""
    opponent: bytes
    """This arena's own copy of the case's opponent."""
    controller_name: str
    """The run's name for its controller: the replay's side of the pushed module has it."""
    opponent_name: str
    """The case's name for the opponent: the replay's other side has it."""


def _refused(detail: str) -> Rematch:
    from arena.match import Rematch  # the engine: loaded only where a match is played again

    return Rematch(replays.VerifyReport(False, 0, None, detail), None)


def recheck_match(recheck: Recheck) -> Rematch:
    """In a worker process: may ``recheck.replay`` stand as a match of a run of the case?

    Its header must name the case and one of its seeds, and hold the case's
    rules, limits and map (so a run cannot be played on easier terms), and
    its sides must be the run's controller and the opponent, by name and
    sha256 (a listing shows the header's names); then the match is played
    again from the pushed module and the opponent, on the sides the header
    gives them, and must write the very same bytes.
    """
    from arena.match import rematch  # the engine: loaded only where a match is played again

    case = recheck.case
    try:
        header = next(replays.iter_replay(recheck.replay))
    except replays.ReplayError as exc:
        return _refused(f"not a replay: {exc}")
    assert isinstance(header, replays.Header)
    if header.case != case.ref:
        played = "no case" if header.case is None else f"{header.case.slug}/{header.case.version}"
        return _refused(f"header: played under {played}, not case {case.slug}/{case.version}")
    if header.seed not in case.match.seeds:
        return _refused(f"header: seed {header.seed} is not one of the case's seeds")
    if header.config != case.rules:
        return _refused("header: the rules constants are not the case's")
    if dict(header.limits) != case.limits.to_dict():
        return _refused("header: the sandbox limits are not the case's")
    if header.game_map != case.map_for(header.seed):
        return _refused("header: the map is not the case's map for its seed")
    mine = (recheck.controller_name, hashlib.sha256(recheck.controller).hexdigest())
    theirs = (recheck.opponent_name, hashlib.sha256(recheck.opponent).hexdigest())
    sides = [(s.name, s.sha256) for s in header.sides]
    if sides == [mine, theirs]:
        return rematch(recheck.replay, recheck.controller, recheck.opponent)
    if sides == [theirs, mine]:
        return rematch(recheck.replay, recheck.opponent, recheck.controller)
    shown = ", ".join(f"{s} {n!r} ({h[:12]})" for s, (n, h) in zip("AB", sides, strict=True))
    return _refused(
        f"header: its sides are {shown}; a match of this run is {mine[0]!r} ({mine[1][:12]})"
        f" against {theirs[0]!r} ({theirs[1][:12]})"
    )


@dataclass(frozen=True, slots=True)
class PushCheck:
    """A pushed run that has the shape of a run of the case, and the matches to play again."""

    case: Case
    run: ClaimedRun
    rechecks: tuple[Recheck, ...]
    """One per pushed match, in the run's order: hand each to ``recheck_match``."""

    def results(self, rematches: Sequence[Rematch]) -> list[RunMatch]:
        """The run's matches as played again (``rematches``, in the order of ``rechecks``),
        to record.

        ``RunRefusedError`` for a match that did not play again to the same
        bytes or whose claimed result is not the one played again, and for an
        outcome that is not its canonical matches'.
        """
        matches = []
        for i, (m, again) in enumerate(zip(self.run.matches, rematches, strict=True)):
            where = f"match {i} (against {m.opponent})"
            if not again.report.ok or again.result is None:
                raise RunRefusedError(f"{where}: {again.report.detail}")
            claimed, played = claimed_result(m.result), claimed_result(again.result.to_json())
            if claimed != played:
                differs = sorted(
                    k for k in played.keys() | claimed.keys() if claimed.get(k) != played.get(k)
                )
                raise RunRefusedError(
                    f"{where}: the result pushed differs from the match played again"
                    f" (keys {', '.join(differs)})"
                )
            matches.append(RunMatch(m.opponent, Role(m.role), again.result))
        outcome = str(run_outcome(self.run.module_sha256, matches))
        if outcome != self.run.outcome:
            raise RunRefusedError(
                f"the run says {self.run.outcome}; its canonical match(es) against"
                f" {self.case.match.canonical} played again make it a {outcome}"
            )
        return matches


def check_pushed_run(case: Case, run: ClaimedRun) -> PushCheck:
    """Check that ``run`` has the shape of a run of ``case`` (this arena's copy): what can be
    checked without playing. Its matches are then played again (``PushCheck.rechecks``).

    ``RunRefusedError`` for a run of another case, version or manifest, one
    that did not compete, and one whose matches are not every planned match
    once (``planned_matches``), each opponent in its role.
    """
    if (run.case_slug, run.case_version) != (case.slug, case.version):
        raise RunRefusedError(
            f"the run is of case {run.case_slug}/{run.case_version};"
            f" this server plays {case.slug}/{case.version}"
        )
    if run.manifest_sha256 != case.manifest_sha256:
        raise RunRefusedError(
            f"the run's manifest has sha256 {run.manifest_sha256}; this server's"
            f" copy of {case.slug}/{case.version} has {case.manifest_sha256}"
        )
    if run.outcome not in _COMPETED:
        raise RunRefusedError(f"outcome {run.outcome!r}: a run to push competed")
    opponents = {o.name: o for o in case.opponents}
    expected = sorted((o.name, seed) for o, seed in planned_matches(case))
    seen = []
    rechecks = []
    for i, m in enumerate(run.matches):
        opponent = opponents.get(m.opponent)
        if opponent is None:
            raise RunRefusedError(f"match {i}: {m.opponent!r} is not an opponent of the case")
        if m.role != str(opponent.role):
            raise RunRefusedError(
                f"match {i}: {m.opponent} is {opponent.role} in the case, not {m.role}"
            )
        seen.append((m.opponent, m.result.get("seed")))
        rechecks.append(
            Recheck(case, m.replay, run.module, opponent.read_module(), run.controller, m.opponent)
        )
    if sorted(seen, key=repr) != sorted(expected, key=repr):
        raise RunRefusedError(
            "a run plays every opponent of the case on every seed once;"
            f" this one has {len(seen)} matches of the {len(expected)} expected"
        )
    return PushCheck(case, run, tuple(rechecks))


def find_pushed_run(store: Store, run: ClaimedRun) -> RunRecord | None:
    """The stored run that ``run`` is already, if any: pushing a run twice records it once."""
    found = store.find_run(run.case_slug, run.case_version, run.module_sha256, run.manifest_sha256)
    if found is None or str(found.outcome) != run.outcome:
        return None
    stored = [
        (m.opponent, str(m.role), claimed_result(m.to_json())) for m in store.run_matches(found.id)
    ]
    pushed = [(m.opponent, m.role, claimed_result(m.result)) for m in run.matches]
    # The results name their replays by sha256: the bytes pushed must be those.
    same = stored == pushed and all(
        hashlib.sha256(m.replay).hexdigest() == m.result.get("replay_sha256") for m in run.matches
    )
    return found if same else None


def record_pushed_run(store: Store, run: ClaimedRun, matches: Sequence[RunMatch]) -> RunRecord:
    """Record a pushed run checked whole (``PushCheck.results`` gave ``matches``).

    Its controller is stored in the run's own transaction (origin ``upload``):
    a push cut off leaves neither. A pushed run is published as it is recorded.
    The case's opponents must be stored already (a server stores them as it
    starts).
    """
    return store.record_run(
        case_slug=run.case_slug,
        case_version=run.case_version,
        manifest_sha256=run.manifest_sha256,
        controller=run.controller,
        controller_sha256=run.module_sha256,
        outcome=RunOutcome(run.outcome),
        reason=run.reason,
        build_log=run.build_log,
        matches=matches,
        module=run.module,
        module_origin=Origin.UPLOAD,
        published=True,
    )
