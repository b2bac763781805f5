"""The coordinator's loop: play a stored tournament's missing matches, record each as it completes.

One trio task hands matches to a player (an executor's session, or the
caller's own pool) as the scheduler makes them ready, at most ``slots`` at
once, and records each outcome in the store from a worker thread, one record
at a time, while the other matches play on. The scheduler counts a result
only once the store has it, and is rebuilt from the store on resume, so the
store is the one truth: a coordinator killed at any point loses at most the
matches in flight.
"""

from __future__ import annotations

import contextlib
import functools
import math
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import trio
from trio._core._generated_run import wait_all_tasks_blocked

import sim
from arena._errors import ArenaError, error_leaves
from arena.cases import Case
from arena.coordinator._players import MatchPlayer, one_at_a_time
from arena.coordinator._stored import (
    playable_of,
    played_of,
    standings_json,
    standings_of,
    tournament_json,
    tournament_plan,
    tournament_rules,
)
from arena.executors import (
    Executor,
    ExecutorLostError,
    JobFailed,
    MatchJob,
    Outcome,
    Session,
    WorkersUnavailableError,
)
from arena.match import Contestant, MatchResult
from arena.store import Entrant, MatchRecord, Store, TournamentRecord, TournamentStatus
from arena.tournament import Format, Pairing, Played, Scheduler, Standings

__all__ = [
    "CoordinatorStats",
    "MatchRaisedError",
    "OnProgress",
    "TournamentProgress",
    "TournamentResult",
    "TournamentStoppedError",
    "run_tournament",
    "run_tournament_sync",
]


class MatchRaisedError(RuntimeError):
    """Matches whose play raised an exception (a bug of the arena, not a controller's).

    They are not recorded: a host bug is no result, and no error a controller
    should carry. The coordinator plays every other match it can first, then
    raises this and the tournament is marked failed; once the cause is fixed,
    resuming it plays only what is missing, these matches among them.
    """

    def __init__(self, tournament_id: int, raised: list[tuple[Pairing, Exception]]) -> None:
        pairing, first = raised[0]
        # The last line says what went wrong (a Ray task's error carries its traceback first).
        lines = str(first).strip().splitlines() or [""]
        super().__init__(
            f"tournament {tournament_id}: {len(raised)} match(es) raised an exception while "
            f"played and are not recorded (a bug of the arena, not of a controller); the first, "
            f"{pairing.a!r} against {pairing.b!r} on seed {pairing.seed}: "
            f"{type(first).__name__}: {lines[-1][:300]}; every other match playable is "
            f"recorded: once the cause is fixed, arena tournament --resume {tournament_id} plays "
            "what is missing"
        )
        self.tournament_id = tournament_id
        self.raised = raised
        """Each match that raised, and what it raised."""


class TournamentStoppedError(ArenaError):
    """The executor was lost mid-tournament (``ExecutorLostError``): every match that came
    back before is recorded, the tournament is marked failed with the reason, and
    ``arena tournament --resume`` plays the rest."""

    def __init__(self, tournament_id: int, lost: ExecutorLostError, recorded: int, left: int):
        super().__init__(
            f"tournament {tournament_id} stopped: {lost.reason}; the {recorded} match(es) "
            f"played are recorded and {left} are left: once the executor is back, arena "
            f"tournament --resume {tournament_id} plays them"
        )
        self.tournament_id = tournament_id
        self.reason = lost.reason


LOST_GRACE = 5.0
"""Seconds the coordinator waits, once its executor is lost, for the matches in flight to
come back (each with its result, or the loss) before it stops without them."""


@dataclass(frozen=True, slots=True)
class TournamentProgress:
    """Where a running tournament stands: reported once at the start and after every record."""

    tournament_id: int
    done: int
    """Matches recorded, by this run and before it (a resumed tournament starts above 0)."""
    total: int
    """Matches the tournament plays in all (swiss: as far as known)."""
    playing: int
    """Matches being played now."""
    played_now: int
    """Matches this run recorded."""
    elapsed: float
    """Seconds since this run started playing."""
    leader: str
    """Who heads the standings now."""
    last: Played | None = None
    """The match just recorded (None in the first report)."""
    match_id: int | None = None
    """Its id in the store."""

    @property
    def rate(self) -> float:
        """Matches per second recorded by this run."""
        return self.played_now / self.elapsed if self.elapsed > 0 else 0.0


OnProgress = Callable[[TournamentProgress], None]
"""A progress callback: called in the coordinator's trio task, so it must return quickly."""


@dataclass(frozen=True, slots=True)
class CoordinatorStats:
    """What one call of ``run_tournament`` did, and what the store cost it."""

    played: int
    """Matches this run recorded (errors included)."""
    errors: int
    """Of which, matches the arena could not play (recorded as errors)."""
    wall: float
    """Seconds from the first match handed out to the last one recorded."""
    store_wall: float
    """Seconds spent recording, in the recording thread (while other matches play)."""
    store_cpu: float
    """CPU seconds the recording thread spent on them."""


@dataclass(frozen=True, slots=True)
class TournamentResult:
    """The outcome of ``run_tournament``: the tournament as stored now, and its standings."""

    record: TournamentRecord
    standings: Standings
    stats: CoordinatorStats

    def to_json(self) -> dict[str, Any]:
        """The JSON of ``arena tournament`` (``tournament_json``)."""
        return tournament_json(self.record, self.standings)


@dataclass(frozen=True, slots=True)
class _Tournament:
    """A stored tournament loaded to be played: its scheduler and what each match needs."""

    record: TournamentRecord
    scheduler: Scheduler
    case: Case
    config: sim.Config
    contestants: dict[str, Contestant]
    entrants: dict[str, Entrant]

    def job(self, pairing: Pairing) -> MatchJob:
        a, b = self.contestants[pairing.a], self.contestants[pairing.b]
        return self.case.match_job(a, b, seed=pairing.seed, config=self.config)


def _load(store: Store, tournament_id: int) -> _Tournament:
    """Read a tournament, its results and its modules (a failed one is made running again)."""
    record = store.tournament(tournament_id)
    if record.status is TournamentStatus.FAILED:
        record = store.resume_tournament(tournament_id)
    plan = tournament_plan(record)
    case, config = tournament_rules(record)
    # Page by page: a resume holds the scheduler's counts, never every stored match at once.
    # A field's withdrawn entrants' meetings are settled without being played (Scheduler).
    out = [x.name for x in record.excluded] if plan.format is Format.FIELD else []
    played = map(played_of, store.iter_tournament_matches(tournament_id))
    scheduler = Scheduler(plan, played, out)
    contestants, entrants = {}, {}
    if not scheduler.finished or plan.format is Format.FIELD:  # a field takes newcomers
        for e in record.field:
            contestants[e.name] = Contestant(e.name, store.read_module_bytes(e.sha256))
            entrants[e.name] = e
    return _Tournament(record, scheduler, case, config, contestants, entrants)


@contextmanager
def _as_one_error() -> Iterator[None]:
    """A nursery's group of errors raised as one: Ctrl-C if it is in there, else a lone error.

    Trio wraps whatever a nursery raises in a group; callers catch by type
    (``KeyboardInterrupt``, the arena's operator errors), so one error is raised
    as itself: several calls finding that no worker starts are one such error.
    """
    try:
        yield
    except BaseExceptionGroup as group:
        leaves = list(error_leaves(group))
        interrupts = [e for e in leaves if isinstance(e, KeyboardInterrupt)]
        if interrupts or len(leaves) == 1:
            raise (interrupts or leaves)[0] from None
        if all(isinstance(e, WorkersUnavailableError) for e in leaves):
            raise leaves[0] from None
        raise


def _record(
    store: Store, t: _Tournament, arrived: list[tuple[Pairing, Outcome]]
) -> tuple[list[MatchRecord], float, float]:
    """Record outcomes that arrived together (in a worker thread), in order: the results'
    replay files written together first, then a transaction for each row. Returns the
    records with the wall and CPU time they took."""
    wall, cpu = time.perf_counter(), time.thread_time()
    tid = t.record.id
    played = [(p, o) for p, o in arrived if isinstance(o, MatchResult)]
    recorded = iter(
        store.record_matches(
            [o for _, o in played], tournament_id=tid, pairing_keys=[p.key for p, _ in played]
        )
    )
    records = [
        store.record_match_error(
            t.entrants[pairing.a],
            t.entrants[pairing.b],
            seed=pairing.seed,
            error=outcome.reason,
            tournament_id=tid,
            pairing_key=pairing.key,
        )
        if isinstance(outcome, JobFailed)
        else next(recorded)
        for pairing, outcome in arrived
    ]
    return records, time.perf_counter() - wall, time.thread_time() - cpu


IDLE_WAIT = 0.005
"""The longest a record waits for the coordinator's other tasks (``_until_idle``)."""


async def _until_idle() -> None:
    """Wait until every other task of this trio loop is blocked, for at most ``IDLE_WAIT`` s.

    The recording thread holds the GIL through much of its work. Started while
    a call's task still hands its worker the next batch, it slows that
    hand-over (the trio thread waits for the GIL at each of its steps), the
    worker idle meanwhile; so the records wait until the hand-over is out and
    its task waits on the worker. The bound keeps a busy loop (a server's)
    from holding records back for long.

    The scheduler itself says when no task is runnable (``trio.testing``'s
    function, imported from where it lives: ``trio.testing`` imports pytest).
    Counting the run queue from this task is not enough: a task that runs
    later in the same scheduler batch is in no queue, so about half the
    hand-overs met a record thread started under them.
    """
    with trio.move_on_after(IDLE_WAIT):
        await wait_all_tasks_blocked()


async def _play(
    store: Store,
    t: _Tournament,
    player: MatchPlayer,
    slots: int,
    on_progress: OnProgress | None,
    playable: Callable[[Pairing], bool] | None = None,
) -> CoordinatorStats:
    """Play every missing match of ``t``: at most ``slots`` calls at once, each recorded once.

    ``playable`` (a field's: not a withdrawn entrant's meeting) leaves out the matches it
    refuses; the tournament is then not expected to finish."""
    sched = t.scheduler
    batcher = one_at_a_time(player)
    # Round-robin and gauntlet know every match from the start: one pass over ready()
    # hands them all out. A bracket's or a swiss's results decide what comes next, so
    # ready() is asked again after each record.
    dynamic = sched.plan.format in (Format.BRACKET, Format.SWISS)
    # Pairings as themselves, not their keys: a key is a JSON text, and computing it three
    # times a match on the way out to a worker was most of the coordinator's time there.
    handed: set[Pairing] = set()  # handed out and not yet recorded
    raised: list[tuple[Pairing, Exception]] = []  # plays that raised: held back, never recorded
    held: set[Pairing] = set()  # those, not handed out again in this run
    calls = playing = 0  # calls to the player under way; the matches they carry
    pending: Iterator[Pairing] | None = None
    exhausted = False
    played = errors = 0
    store_wall = store_cpu = 0.0
    lost: ExecutorLostError | None = None  # the executor is gone: record what came, then stop
    lost_deadline = math.inf
    outcomes_send, outcomes_recv = trio.open_memory_channel[tuple[Pairing, Outcome | Exception]](
        math.inf
    )
    start = time.perf_counter()

    def report(last: Played | None = None, match_id: int | None = None) -> None:
        if on_progress is not None:
            on_progress(
                TournamentProgress(
                    t.record.id,
                    done=sched.recorded,
                    total=sched.total,
                    playing=playing,
                    played_now=played,
                    elapsed=time.perf_counter() - start,
                    leader=sched.leader,
                    last=last,
                    match_id=match_id,
                )
            )

    with _as_one_error():
        async with trio.open_nursery() as nursery:

            def next_ready() -> Pairing | None:
                nonlocal pending, exhausted
                while not exhausted:
                    if pending is None:
                        pending = sched.ready()
                    pairing = next(pending, None)
                    if pairing is None:
                        pending, exhausted = None, True
                    elif (
                        pairing not in handed
                        and pairing not in held
                        and (playable is None or playable(pairing))
                    ):
                        return pairing
                return None

            def take() -> list[Pairing]:
                """The next ready matches to hand out in one call, if a call is free (it takes
                it): as many as the player's batch while much is left, fewer towards the end
                (a share of what is left for each call), one at the last. With one slot the
                batches need not shrink: there is no other call to finish long before it."""
                nonlocal calls, playing
                if calls >= slots or lost is not None:
                    return []
                left = sched.total - sched.recorded - len(handed)
                share = left if slots == 1 else left // (2 * slots)
                size = max(1, min(batcher.batch, share))
                batch: list[Pairing] = []
                while len(batch) < size and (pairing := next_ready()) is not None:
                    handed.add(pairing)
                    batch.append(pairing)
                if batch:
                    calls += 1
                    playing += len(batch)
                return batch

            def fill() -> None:
                """Hand out ready matches until every call is busy (workers never wait on us)."""
                while batch := take():
                    nursery.start_soon(play_on, batch)

            async def play_on(first: list[Pairing]) -> None:
                nonlocal calls, playing
                # A call's task plays on: its next batch goes out at once, with no new task
                # to schedule first (a worker waits between calls for what runs here).
                batch = first
                while batch:
                    outcomes: Sequence[Outcome | Exception]
                    try:
                        outcomes = await batcher.play_batch([t.job(p) for p in batch])
                    except WorkersUnavailableError:
                        raise  # no match can be played: the run stops, nothing recorded
                    except Exception as exc:  # a host bug in this call: the others play on
                        outcomes = [exc] * len(batch)
                    calls -= 1
                    playing -= len(batch)
                    for pairing, outcome in zip(batch, outcomes, strict=True):
                        outcomes_send.send_nowait((pairing, outcome))
                    batch = take()

            fill()
            report()
            while handed:
                # Everything that has arrived is recorded together (a batch's results).
                arrived: list[tuple[Pairing, Outcome | Exception]] = []
                with trio.move_on_at(lost_deadline):
                    arrived.append(await outcomes_recv.receive())
                if not arrived:
                    break  # lost: what is still out will not come back
                while True:
                    try:
                        arrived.append(outcomes_recv.receive_nowait())
                    except trio.WouldBlock:
                        break
                outcomes: list[tuple[Pairing, Outcome]] = []
                for pairing, outcome in arrived:
                    if isinstance(outcome, ExecutorLostError):
                        handed.discard(pairing)
                        if lost is None:
                            lost, lost_deadline = outcome, trio.current_time() + LOST_GRACE
                    elif isinstance(outcome, Exception):
                        handed.discard(pairing)
                        held.add(pairing)
                        raised.append((pairing, outcome))
                    else:
                        outcomes.append((pairing, outcome))
                if not outcomes:
                    fill()
                    continue
                # The store writes the replay files (fsynced) and the rows in a thread, so the
                # workers play on meanwhile; a record under way completes even on cancel.
                await _until_idle()
                matches, wall, cpu = await trio.to_thread.run_sync(
                    _record, store, t, outcomes, abandon_on_cancel=False
                )
                store_wall += wall
                store_cpu += cpu
                for n, ((pairing, _), match) in enumerate(zip(outcomes, matches, strict=True)):
                    # What the store holds is what counts (a pairing recorded first by another
                    # coordinator keeps that record).
                    result = played_of(match)
                    sched.record(result)
                    handed.discard(pairing)
                    played += 1
                    errors += result.error is not None
                    if n == len(outcomes) - 1:
                        if dynamic:
                            pending, exhausted = None, False
                        fill()
                    report(result, match.id)
            nursery.cancel_scope.cancel()  # what is left in flight (after a loss)
    if lost is not None:
        left = sched.total - sched.recorded
        raise TournamentStoppedError(t.record.id, lost, sched.recorded, left) from lost
    if raised:
        raise MatchRaisedError(t.record.id, raised) from raised[0][1]
    if not sched.finished and playable is None:
        raise RuntimeError(f"tournament {t.record.id}: nothing left to play, yet not finished")
    return CoordinatorStats(played, errors, time.perf_counter() - start, store_wall, store_cpu)


def _finish(store: Store, t: _Tournament, standings: Standings) -> TournamentRecord:
    record = store.tournament(t.record.id)
    if record.status is TournamentStatus.RUNNING and t.scheduler.plan.format is not Format.FIELD:
        record = store.finish_tournament(t.record.id, standings_json(standings))
    return record


async def run_tournament(
    store: Store,
    tournament_id: int,
    executor: Executor | MatchPlayer,
    *,
    slots: int | None = None,
    on_progress: OnProgress | None = None,
) -> TournamentResult:
    """Play a stored tournament's missing matches and finish it; return it with its standings.

    Call it in a trio task. ``executor`` is an ``arena.executors.Executor``
    (a session is opened for the call, and ``slots`` defaults to the
    session's) or any ``MatchPlayer`` that is already running, such as a server's
    worker pool (then ``slots``, the matches played at once, is required).

    Every outcome is recorded in ``store`` as it completes (a ``JobFailed`` as
    the match's error, counted as nothing), then the tournament is marked
    finished with its standings. A tournament with matches recorded already
    (stopped by Ctrl-C, a kill, a crash) plays only what is missing and ends
    with the same standings as an uninterrupted run; a finished one is
    returned as it is; a failed one runs again. ``on_progress`` is called in
    this task at the start and after every record (keep it quick).

    A match whose play raises (a bug of the host, not a ``JobFailed``) is
    held back unrecorded while every other match that can be played is; then
    ``MatchRaisedError`` is raised. Cancelled (Ctrl-C), the matches in flight
    are stopped and the tournament stays running in the store, to be resumed;
    likewise ``WorkersUnavailableError`` (the executor's workers cannot start:
    nothing is recorded for the matches it could not play).
    Any other error, ``MatchRaisedError`` included, marks it failed, with the
    error, before it propagates (resuming it runs it again).
    """
    if not isinstance(executor, Executor) and (slots is None or slots < 1):
        raise ValueError("a MatchPlayer needs slots: how many matches it plays at once")
    stats = CoordinatorStats(0, 0, 0.0, 0.0, 0.0)
    async with contextlib.AsyncExitStack() as stack:
        player: Executor | MatchPlayer = executor
        status = (await trio.to_thread.run_sync(store.tournament, tournament_id)).status
        if isinstance(player, Executor) and status is not TournamentStatus.FINISHED:
            # The session opens first: its workers start while the plan is read and built.
            async with _failing(store, tournament_id):
                player = await stack.enter_async_context(player.open_session())
        t = await trio.to_thread.run_sync(_load, store, tournament_id)
        if not t.scheduler.finished:
            async with _failing(store, tournament_id):
                if isinstance(player, Executor):
                    player = await stack.enter_async_context(player.open_session())
                if isinstance(player, Session):
                    slots = slots or player.slots
                assert slots is not None
                stats = await _play(store, t, player, slots, on_progress, playable_of(t.record))
    standings = t.scheduler.standings()
    record = await trio.to_thread.run_sync(_finish, store, t, standings)
    if record.format == str(Format.FIELD):  # its withdrawn entrants left out: a recount
        matches = store.iter_tournament_matches(record.id)
        standings = await trio.to_thread.run_sync(standings_of, record, matches)
    return TournamentResult(record, standings, stats)


@contextlib.asynccontextmanager
async def _failing(store: Store, tournament_id: int) -> AsyncIterator[None]:
    """Any error but a cancellation marks the tournament failed, with the error, and goes on;
    but workers that cannot start are the executor's failure, not the tournament's: it stays
    running, for ``--resume``."""
    try:
        yield
    except WorkersUnavailableError:
        raise
    except Exception as exc:
        reason = f"{type(exc).__name__}: {exc}"
        try:
            await trio.to_thread.run_sync(store.fail_tournament, tournament_id, reason)
        except Exception as also:  # the store itself may be what failed
            exc.add_note(f"marking tournament {tournament_id} failed did not work: {also}")
        raise


def run_tournament_sync(
    store: Store,
    tournament_id: int,
    executor: Executor | MatchPlayer,
    *,
    slots: int | None = None,
    on_progress: OnProgress | None = None,
) -> TournamentResult:
    """``run_tournament`` in a trio loop of its own (for callers that are not trio tasks).

    Ctrl-C raises ``KeyboardInterrupt`` here, the tournament still running in the store.
    """
    return trio.run(
        functools.partial(
            run_tournament, store, tournament_id, executor, slots=slots, on_progress=on_progress
        )
    )
