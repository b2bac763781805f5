"""``arena bench field``'s players: a made-up result at once, a timed session, the field's
coordinator run until a step is done, one newcomer entered and timed."""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import trio

import sim
from arena.cases import Case
from arena.coordinator import FieldSignal, MatchPlayer, enter_field, play_field
from arena.executors import MatchJob, Outcome, Session
from arena.match import Contestant, MatchResult, SideResult
from arena.store import Origin, Store
from arena.tournament import Pairing, Played

__all__ = ["MadeUpPlayer"]


class _Timed:
    """A ``BatchPlayer`` around a session: keeps when the first call since ``mark`` came in."""

    def __init__(self, session: Session) -> None:
        self._session = session
        self.batch = session.batch
        self.first: float | None = None

    def mark(self) -> None:
        self.first = None

    async def play(self, job: MatchJob) -> Outcome:
        if self.first is None:
            self.first = time.perf_counter()
        return await self._session.play(job)

    async def play_batch(self, jobs: Sequence[MatchJob]) -> Sequence[Outcome | Exception]:
        if self.first is None:
            self.first = time.perf_counter()
        return await self._session.play_batch(jobs)


class MadeUpPlayer:
    """A ``BatchPlayer`` that plays nothing: each match's result is made up at once (side A
    wins on even rounds, B on odd ones), all with the same real ``replay``. Keeps when the
    first call since ``mark`` came in, and how many matches it made up."""

    batch = 64

    def __init__(self, replay: bytes) -> None:
        self._replay = replay
        self._sha: dict[str, str] = {}
        self.first: float | None = None
        self.made = 0

    def mark(self) -> None:
        self.first = None

    def _sha256(self, c: Contestant) -> str:
        found = self._sha.get(c.name)
        if found is None:
            found = self._sha[c.name] = c.sha256
        return found

    @staticmethod
    def played(pairing: Pairing) -> Played:
        """What a scheduler counts of a made-up result of ``pairing`` (as ``result`` makes)."""
        winner = pairing.round % 2
        return Played(pairing, winner, sim.Reason.SCORE, (10, 5), (90_000, 80_000), 400)

    def result(self, job: MatchJob, winner: int) -> MatchResult:
        a, b = (
            SideResult(c.name, self._sha256(c), 10 - 5 * i, 90_000 - 10_000 * i, 900, None)
            for i, c in enumerate((job.a, job.b))
        )
        return MatchResult(winner, sim.Reason.SCORE, 400, job.seed, (a, b), self._replay)

    async def play(self, job: MatchJob) -> Outcome:
        (outcome,) = await self.play_batch([job])
        assert not isinstance(outcome, Exception)
        return outcome

    async def play_batch(self, jobs: Sequence[MatchJob]) -> list[Outcome | Exception]:
        if self.first is None:
            self.first = time.perf_counter()
        await trio.lowlevel.checkpoint()
        self.made += len(jobs)
        return [self.result(job, (job.seed + i) % 2) for i, job in enumerate(jobs)]


class _Idle:
    """``play_field``'s ``on_idle``: an event set each time the field has nothing to play."""

    def __init__(self) -> None:
        self.event = trio.Event()

    async def __call__(self) -> None:
        self.event.set()

    async def wait(self) -> None:
        await self.event.wait()
        self.event = trio.Event()


async def _run_field(
    store: Store,
    tid: int,
    player: MatchPlayer,
    slots: int,
    body: Callable[[FieldSignal, _Idle], Awaitable[None]],
) -> None:
    """``play_field`` in a nursery until ``body`` (given the signal and the idle event,
    called once the field is first idle) returns; then stopped, as a server stops."""
    signal, idle = FieldSignal(), _Idle()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(
            functools.partial(
                play_field, store, tid, player, slots=slots, signal=signal, on_idle=idle
            )
        )
        await idle.wait()
        await body(signal, idle)
        nursery.cancel_scope.cancel()


@dataclass(frozen=True, slots=True)
class _Step:
    """One newcomer of the played field."""

    entrants: int
    """Entrants once it is in."""
    matches: int
    """Its meetings' matches."""
    enter: float
    """Seconds to enter it in the store (``enter_field``)."""
    schedule: float
    """Seconds from the start of its entering to its first meeting handed to a worker."""
    wall: float
    """Seconds from the start of its entering to its last meeting recorded."""
    rss: int
    """The coordinator's resident bytes once its meetings are recorded."""


async def _newcomer(
    store: Store,
    case: Case,
    c: Contestant,
    player: _Timed | MadeUpPlayer,
    signal: FieldSignal,
    idle: _Idle,
) -> tuple[float, float, float]:
    """Enter ``c`` (stored first) as a site does, wake the field and wait until its meetings
    are recorded: seconds to enter it, to its first meeting handed out, to the end."""
    stored = await trio.to_thread.run_sync(
        lambda: store.add_controller(c.blob, name=c.name, origin=Origin.UPLOAD)
    )
    player.mark()
    start = time.perf_counter()
    await trio.to_thread.run_sync(enter_field, store, case, c.name, stored.sha256)
    entered = time.perf_counter()
    signal.poke()
    await idle.wait()
    end = time.perf_counter()
    first = end if player.first is None else player.first
    return entered - start, first - start, end - start
