"""What plays a coordinator's matches: ``MatchPlayer`` (one at a time) and ``BatchPlayer``
(several in one call, as an executor's ``Session`` plays them)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from arena.executors import MatchJob, Outcome, WorkersUnavailableError

__all__ = ["BatchPlayer", "MatchPlayer", "one_at_a_time"]


class MatchPlayer(Protocol):
    """What plays a match for the coordinator: an executor's ``Session``, or a caller's pool.

    ``play`` must not raise for a match the arena could not play: that is a
    ``JobFailed`` outcome (recorded as the match's error). An exception from
    ``play`` is a bug of the host: the match is held back, not recorded, and
    the tournament fails once everything else is played (``MatchRaisedError``).
    ``WorkersUnavailableError`` (no worker can start) stops the run at once,
    nothing recorded for the matches in flight, the tournament left running.
    """

    async def play(self, job: MatchJob) -> Outcome: ...


@runtime_checkable
class BatchPlayer(MatchPlayer, Protocol):
    """A ``MatchPlayer`` that gains from several matches in one call (an executor's ``Session``).

    The coordinator hands it up to ``batch`` matches at a time, fewer as the
    tournament nears its end (so no worker finishes a batch long after the
    others ran dry). ``play_batch`` gives their outcomes in order, what a
    match's play raised in its place.
    """

    batch: int

    async def play_batch(self, jobs: Sequence[MatchJob]) -> Sequence[Outcome | Exception]: ...


class _OneAtATime:
    """A plain ``MatchPlayer`` as a ``BatchPlayer`` of batches of one."""

    batch = 1

    def __init__(self, player: MatchPlayer) -> None:
        self._player = player

    async def play(self, job: MatchJob) -> Outcome:
        return await self._player.play(job)

    async def play_batch(self, jobs: Sequence[MatchJob]) -> list[Outcome | Exception]:
        (job,) = jobs
        try:
            return [await self._player.play(job)]
        except WorkersUnavailableError:
            raise
        except Exception as exc:
            return [exc]


def one_at_a_time(player: MatchPlayer) -> BatchPlayer:
    """``player`` as a ``BatchPlayer``: itself if it is one, else batches of one."""
    return player if isinstance(player, BatchPlayer) else _OneAtATime(player)
