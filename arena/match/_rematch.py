"""Verify a replay by playing its match again from the modules (``arena replay verify --modules``).

The self-contained check (``replays.verify_replay``) proves the game from the
recorded actions. Playing the match again from the two modules, with the
header's seed, rules constants, map, limits, case and format version, and
requiring the very same replay bytes proves the rest: the actions, the
forfeits, every fuel figure and the result. The settings themselves are taken
from the header, so the case and the side names (labels beside the hashes) are
written again as recorded, not proved. A match that ended in a ``timeout``
forfeit depends on the wall clock and may not play the same again.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import replays
from arena.match._result import Contestant, MatchResult
from arena.match._runner import run_match
from arena.sandbox import WASMTIME_VERSION, Limits

__all__ = ["Rematch", "rematch", "replay_matches"]


@dataclass(frozen=True, slots=True)
class Rematch:
    """A replay checked by playing its match again (``rematch``)."""

    report: replays.VerifyReport
    """As ``replay_matches`` gives it: ``ok`` only for the very same bytes."""
    result: MatchResult | None
    """The match played again, when it was (None if the replay was refused first).

    When ``report.ok``, its replay is the replay checked, byte for byte: a
    caller may record this result as the replay's."""


def replay_matches(replay: bytes, blob_a: bytes, blob_b: bytes) -> replays.VerifyReport:
    """Play the match of ``replay`` again from side A's and side B's module bytes.

    ``ok`` only if the replay passes the self-contained check and the match
    played again writes byte for byte the same replay. Otherwise ``detail`` says
    what differs, and ``mismatch_tick`` is the first frame that differs (None for
    the header or the result); ``ticks`` counts the frames that agreed.
    """
    return rematch(replay, blob_a, blob_b).report


def rematch(replay: bytes, blob_a: bytes, blob_b: bytes) -> Rematch:
    """``replay_matches``, keeping the match played again (a server records it: web push)."""
    report = replays.verify_replay(replay)
    if not report.ok:
        return Rematch(report, None)
    recorded = replays.read_replay(replay)
    header = recorded.header
    for side, blob in zip("AB", (blob_a, blob_b), strict=True):
        info = header.sides["AB".index(side)]
        sha = hashlib.sha256(blob).hexdigest()
        if sha != info.sha256:
            return Rematch(
                _refused(
                    f"side {side}: the module given has sha256 {sha}, the replay's side {side}"
                    f" ({info.name!r}) has {info.sha256}"
                ),
                None,
            )
    if header.wasmtime != WASMTIME_VERSION:
        return Rematch(
            _refused(
                f"header: the replay was played with wasmtime {header.wasmtime!r}, this arena"
                f" runs {WASMTIME_VERSION} (fuel depends on it)"
            ),
            None,
        )
    limits = Limits.from_dict(header.limits)  # in range: the self-contained check said so
    again = run_match(
        Contestant(header.sides[0].name, blob_a),
        Contestant(header.sides[1].name, blob_b),
        seed=header.seed,
        config=header.config,
        limits=limits,
        game_map=header.game_map,
        case=header.case,
        replay_version=header.version,  # a version-1 file is played again as version 1
    )
    if again.replay == replay:
        return Rematch(replays.VerifyReport(True, again.ticks, None, None), again)
    return Rematch(_first_difference(replay, again.replay), again)


def _refused(detail: str) -> replays.VerifyReport:
    return replays.VerifyReport(False, 0, None, detail)


def _first_difference(recorded: bytes, again: bytes) -> replays.VerifyReport:
    """Where two replays (both well formed) first differ, object by object."""
    ours, theirs = replays.read_replay(recorded), replays.read_replay(again)
    if ours.header != theirs.header:
        where = _field(ours.header.to_wire(), theirs.header.to_wire())
        return _refused(f"header: field {where} differs from the match played again")
    agreed = 0
    for frame, other in zip(ours.frames, theirs.frames, strict=False):
        if frame != other:
            t = frame.tick
            return replays.VerifyReport(
                False, agreed, t, f"frame of tick {t}: differs from the match played again"
            )
        agreed += 1
    if len(ours.frames) != len(theirs.frames):
        return replays.VerifyReport(
            False,
            agreed,
            agreed,
            f"result: the match played again ends after {len(theirs.frames)} ticks,"
            f" the replay after {len(ours.frames)}",
        )
    where = _field(ours.result.to_wire(), theirs.result.to_wire())
    return replays.VerifyReport(
        False, agreed, None, f"result: field {where} differs from the match played again"
    )


def _field(ours: object, theirs: object, path: str = "") -> str:
    """The path of the first field where two wire objects differ, as ``'sides[0].banked'``."""
    if isinstance(ours, dict) and isinstance(theirs, dict) and ours.keys() == theirs.keys():
        for key in ours:
            if ours[key] != theirs[key]:
                return _field(ours[key], theirs[key], f"{path}.{key}" if path else str(key))
    if isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            if a != b:
                return _field(a, b, f"{path}[{i}]")
    return repr(path)
