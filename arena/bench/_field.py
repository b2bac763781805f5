"""``arena bench field``: the field (issue 26) at scale, played and made up.

**Played.** A field of real entrants in a fresh store: the default case's
committed opponents (the field is made with them), then numbered copies of
the baselines (``numbered_field``: distinct sha256s that play as their
baseline), entered one at a time as a site enters pushes, and played by the
real coordinator (``play_field``) on local worker processes. For each
newcomer: the time to enter it, to hand its first meeting to a worker (its
scheduling), to play its meetings; the coordinator's resident memory (this
process: the workers are others) as the field grows.

**Made up.** Entrants and results made up without playing, recorded straight
into a real SQLite store (rows of its tables, many a transaction; one real
replay file, stored by the store, shared by every row), in steps: at each
step every meeting of the field is recorded, a fresh coordinator
(``play_field`` with a player that makes each result up at once) resumes the
field from the store, then ``NEWCOMERS`` more controllers enter one by one.
The time to enter one and to schedule its first meeting (medians), and the
memory the coordinator holds (traced, in a second resume), are printed
against the entrants and the matches recorded. The steps grow the field
(matches grow with its square), then, at the first step's entrants, the
seeds (matches grow, entrants do not): a figure that follows the matches
recorded grows in the second series too. Last, the first two steps again
with one entrant withdrawn from the start, its later meetings never played.
"""

from __future__ import annotations

import datetime
import itertools
import math
import sqlite3
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import msgspec
import trio

from arena.bench._field_players import MadeUpPlayer, _Idle, _newcomer, _run_field, _Step, _Timed
from arena.bench._scale import _peak_rss_bytes, _rss_bytes, numbered_field
from arena.bench._tournament import _module_cache
from arena.cases import Case, default_case
from arena.coordinator import FieldSignal, enter_field, open_field
from arena.executors import LocalExecutor, MatchJob, default_jobs
from arena.match import Contestant, MatchResult, run_match
from arena.store import Origin, Store
from arena.tournament import Pairing

__all__ = [
    "FIELD_KEYS",
    "MadeUpPoint",
    "field_figures",
    "made_up_field",
    "newcomer_pairings",
]

PLAYED_ENTRANTS: Final = 64
"""The played field the issue asks for (``--entrants 64``: about 4,000 full matches)."""
DEFAULT_PLAYED: Final = 16
"""The played field of a default run: minutes on two cores (``--quick``: 8)."""
MADE_UP_ENTRANTS: Final = 250
"""The made-up field of a default run, small since a resume of the whole field reads every
match (``--quick``: 100). The issue's figure is ``--made-up 1000``: long (docs/benchmarks.md)."""

FIELD_KEYS: Final = (
    "played_entrants",
    "played_matches",
    "played_wall_s",
    "played_ms_per_match",
    "played_schedule_ms_first",
    "played_schedule_ms_last",
    "played_schedule_ms_median",
    "played_rss_start_bytes",
    "played_rss_end_bytes",
    "played_rss_peak_bytes",
    "played_ticks_per_match",
    "played_replay_bytes_per_match",
    "made_up_entrants",
    "made_up_matches",
    "made_up_enter_ms",
    "made_up_schedule_ms",
    "made_up_resume_s",
    "made_up_coordinator_bytes",
    "made_up_schedule_ms_per_entrant",
    "made_up_coordinator_bytes_per_entrant",
)
"""The figures ``field_figures`` returns (docs/benchmarks.md, "The field")."""


# --------------------------------------------------------------------------- played


@dataclass(frozen=True, slots=True)
class _Played:
    """The played field in all."""

    steps: list[_Step]
    wall: float
    matches: int
    rss_start: int
    ticks: int
    """Ticks of every match recorded."""
    replay_bytes: int
    """Bytes of their replay files as stored (compressed)."""


def _played(case: Case, entrants: int, jobs: int) -> _Played:
    """The played field, entrant by entrant."""
    newcomers = numbered_field(max(0, entrants - len(case.opponents)))
    steps: list[_Step] = []
    executor = LocalExecutor(jobs)

    async def main(store: Store) -> float:
        tid = open_field(store, case).id
        start = time.perf_counter()
        async with executor.open_session() as session:
            player = _Timed(session)

            async def body(signal: FieldSignal, idle: _Idle) -> None:
                n = len(case.opponents)
                steps.append(
                    _Step(n, store.tournament(tid).matches, 0.0, math.nan, 0.0, _rss_bytes())
                )
                for c in newcomers:
                    enter, schedule, wall = await _newcomer(store, case, c, player, signal, idle)
                    n += 1
                    matches = 2 * len(case.match.seeds) * (n - 1)
                    steps.append(_Step(n, matches, enter, schedule, wall, _rss_bytes()))

            await _run_field(store, tid, player, session.slots, body)
        return time.perf_counter() - start

    rss_start = _rss_bytes()
    with (
        _module_cache(),
        tempfile.TemporaryDirectory(prefix="arena-bench-field-") as tmp,
        Store.open(Path(tmp)) as store,
    ):
        wall = trio.run(main, store)
        tid = store.field_id(*_version(case)) or 0
        ticks = replay_bytes = matches = 0
        for m in store.iter_tournament_matches(tid):
            matches += 1
            if m.result is not None:
                ticks += m.result.ticks
                replay_bytes += store.replay_path(m.result.replay_sha256).stat().st_size
    return _Played(steps, wall, matches, rss_start, ticks, replay_bytes)


def _version(case: Case) -> tuple[str, int]:
    return case.ref.slug, int(case.ref.version)


# --------------------------------------------------------------------------- made up


@dataclass(frozen=True, slots=True)
class MadeUpPoint:
    """The made-up field at one step: what one more entrant cost the coordinator."""

    entrants: int
    """Entrants before the newcomer."""
    seeds: int
    withdrawn: bool
    """Whether one entrant (the second baseline) was withdrawn from the start, its later
    meetings never played."""
    matches: int
    """Matches recorded before the newcomer (every meeting of the field, but the withdrawn
    entrant's)."""
    resume: float
    """Seconds a fresh coordinator took to rebuild the field from the store (reads every match)."""
    enter: float
    """Seconds to enter a newcomer (``enter_field``; the median of ``NEWCOMERS``)."""
    schedule: float
    """Seconds from the start of its entering to its first meeting handed to the player
    (the median)."""
    meetings: float
    """Seconds from the start of its entering to its meetings' made-up results recorded
    (the median)."""
    coordinator_bytes: int
    """Bytes the resumed coordinator holds once idle (tracemalloc, a second resume)."""


def _made_up_results(
    player: MadeUpPlayer, contestants: dict[str, Contestant], pairings: list[Pairing]
) -> list[MatchResult]:
    return [
        player.result(
            MatchJob(contestants[p.a], contestants[p.b], seed=p.seed), (p.round + p.slot) % 2
        )
        for p in pairings
    ]


def newcomer_pairings(position: int, names: Sequence[str], seeds: Sequence[int]) -> list[Pairing]:
    """The matches of the entrant at ``position`` (``names[position]``) with each earlier
    one, as a field schedules them: stage ``position - 1``, slot ``j`` for entrant ``j``,
    round ``stage x 2S + 2 x seed index + side``, the earlier entrant side A on side 0."""
    stage, per = position - 1, 2 * len(seeds)
    me = names[position]
    return [
        Pairing(
            stage * per + 2 * i + side, j, *((names[j], me) if side == 0 else (me, names[j])), seed
        )
        for i, seed in enumerate(seeds)
        for side in (0, 1)
        for j in range(position)
    ]


_MATCH_ROW: Final = (
    "INSERT INTO matches (status, seed, winner, reason, ticks, replay_sha256, tournament_id,"
    " pairing_key, created_at, finished_at) VALUES ('finished', ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
"""A finished tournament match's row, as the store writes one (no forfeit, no error)."""
_SIDE_ROW: Final = (
    "INSERT INTO match_sides (match_id, side, name, sha256, banked, fuel_total, fuel_peak)"
    " VALUES (?, ?, ?, ?, ?, ?, ?)"
)
"""One side's row of it."""


class _Filler:
    """Grows a stored field with made-up results of every meeting, straight into the store
    (no coordinator)."""

    def __init__(self, store: Store, case: Case, player: MadeUpPlayer) -> None:
        self.store, self.case, self.player = store, case, player
        self.withdrawn: set[str] = set()
        record = open_field(store, case)
        self.tid, self.seeds = record.id, record.seeds
        self.names = [e.name for e in record.field]
        self.contestants = {
            e.name: Contestant(e.name, store.read_module_bytes(e.sha256)) for e in record.field
        }
        pairings = [p for k in range(1, len(self.names)) for p in self._pairings(k)]
        # The replay's file, stored once as the store stores any; every made-up row points at it.
        first = store.record_matches(
            _made_up_results(player, self.contestants, pairings[:1]),
            tournament_id=self.tid,
            pairing_keys=[pairings[0].key],
        )
        assert first[0].result is not None
        self.replay_sha256 = first[0].result.replay_sha256
        self._record(pairings[1:])

    def _pairings(self, position: int) -> list[Pairing]:
        return newcomer_pairings(position, self.names, self.seeds)

    def withdraw(self, name: str) -> None:
        """Withdraw ``name`` (its meetings from now on are not recorded)."""
        self.store.withdraw_entrant(self.tid, name, "arena bench field")
        self.withdrawn.add(name)

    def _record(self, pairings: list[Pairing]) -> None:
        """The pairings' made-up results as rows of the store's tables (``_MATCH_ROW``,
        ``_SIDE_ROW``), many a transaction: ``Store.record_matches`` takes one a row."""
        out = self.withdrawn
        pairings = [p for p in pairings if p.a not in out and p.b not in out]
        results = _made_up_results(self.player, self.contestants, pairings)
        now = datetime.datetime.now(datetime.UTC).isoformat(timespec="microseconds")
        with closing(sqlite3.connect(self.store.path)) as conn, conn:  # one transaction
            for p, r in zip(pairings, results, strict=True):
                row = (r.winner, str(r.reason), r.ticks, self.replay_sha256, self.tid, p.key)
                cur = conn.execute(_MATCH_ROW, (p.seed, *row, now, now))
                conn.executemany(
                    _SIDE_ROW,
                    [
                        (cur.lastrowid, i, x.name, x.sha256, x.banked, x.fuel_total, x.fuel_peak)
                        for i, x in enumerate(r.sides)
                    ],
                )

    def entered(self, c: Contestant) -> None:
        """``c`` was entered, and its meetings recorded, by a coordinator: follow it."""
        self.contestants[c.name] = c
        self.names.append(c.name)

    def grow(self, contestants: Iterator[Contestant], entrants: int) -> None:
        """Enter newcomers until the field holds ``entrants``, each meeting recorded."""
        while len(self.names) < entrants:
            c = next(contestants)
            stored = self.store.add_controller(c.blob, name=c.name, origin=Origin.UPLOAD)
            entry = enter_field(self.store, self.case, c.name, stored.sha256)
            self.entered(Contestant(entry.entrant.name, c.blob))
            self._record(self._pairings(len(self.names) - 1))


NEWCOMERS: Final = 5
"""Newcomers timed at each step of the made-up field, one after another (the medians)."""


def _measure(
    store: Store, case: Case, tid: int, player: MadeUpPlayer, cs: Sequence[Contestant]
) -> tuple[float, float, float, float, int]:
    """A fresh coordinator resumes the field; then each of ``cs`` enters in turn. Resume
    seconds, the medians of enter, schedule and meetings seconds; then the bytes a second
    fresh coordinator holds, traced."""
    resumed: list[float] = []
    each: list[tuple[float, float, float]] = []

    async def timed() -> None:
        start = time.perf_counter()

        async def body(signal: FieldSignal, idle: _Idle) -> None:
            resumed.append(time.perf_counter() - start)
            for c in cs:
                each.append(await _newcomer(store, case, c, player, signal, idle))

        await _run_field(store, tid, player, 2, body)

    trio.run(timed)
    held = 0

    async def traced() -> None:
        nonlocal held

        async def body(signal: FieldSignal, idle: _Idle) -> None:
            nonlocal held
            held = tracemalloc.get_traced_memory()[0]

        await _run_field(store, tid, player, 2, body)

    with _tracing():
        before = tracemalloc.get_traced_memory()[0]
        trio.run(traced)
    enter, schedule, meetings = (statistics.median(x) for x in zip(*each, strict=True))
    return resumed[0], enter, schedule, meetings, held - before


@contextmanager
def _tracing() -> Iterator[None]:
    tracemalloc.start()
    try:
        yield
    finally:
        tracemalloc.stop()


def made_up_field(
    sizes: Sequence[int],
    seeds: Sequence[int],
    *,
    withdrawn: int = 0,
    replay: bytes | None = None,
) -> list[MadeUpPoint]:
    """The made-up field measured at each of ``sizes`` entrants (one seed, one store grown
    step by step), then at ``sizes[0]`` entrants on each of ``seeds`` seed counts (a store
    each), then at the first ``withdrawn`` sizes with the second baseline withdrawn from the
    start (a store). Each point: every meeting recorded (but the withdrawn one's), a
    coordinator resumed, one newcomer."""
    replay = replay or _a_real_replay()
    player = MadeUpPlayer(replay)
    base = default_case()
    points: list[MadeUpPoint] = []
    runs = [(1, list(sizes), False)] + [(s, [sizes[0]], False) for s in seeds if s != 1]
    if withdrawn:
        runs.append((1, list(sizes[:withdrawn]), True))
    for n_seeds, steps, withdraw in runs:
        case = msgspec.structs.replace(
            base, match=msgspec.structs.replace(base.match, seeds=tuple(range(n_seeds)))
        )
        pool = iter(numbered_field(max(steps) + NEWCOMERS * len(steps)))
        with (
            tempfile.TemporaryDirectory(prefix="arena-bench-field-made-up-") as tmp,
            Store.open(Path(tmp)) as store,
        ):
            filler = _Filler(store, case, player)
            if withdraw:
                filler.withdraw(filler.names[1])
            for size in steps:
                filler.grow(pool, size)
                matches = store.tournament(filler.tid).matches
                cs = list(itertools.islice(pool, NEWCOMERS))
                resume, enter, schedule, meetings, held = _measure(
                    store, case, filler.tid, player, cs
                )
                for c in cs:
                    filler.entered(c)
                points.append(
                    MadeUpPoint(
                        size, n_seeds, withdraw, matches, resume, enter, schedule, meetings, held
                    )
                )
    return points


def _a_real_replay() -> bytes:
    """A real replay shared by every made-up row: two baselines under the default rules, cut
    at 40 ticks (the store checks a replay file it holds already against the bytes each
    record brings; a short one keeps that out of the figures)."""
    a, b = numbered_field(2)
    return run_match(a, b, seed=0, config=default_case().rules.replace(max_ticks=40)).replay


# --------------------------------------------------------------------------- printed


def _mib(n: float) -> str:
    return f"{n / 2**20:.1f} MiB"


def _played_case(seeds: int, max_ticks: int | None) -> Case:
    case = default_case()
    match = msgspec.structs.replace(case.match, seeds=tuple(range(seeds)))
    rules = case.rules if max_ticks is None else case.rules.replace(max_ticks=max_ticks)
    return msgspec.structs.replace(case, match=match, rules=rules)


def field_figures(
    repeat: int,
    *,
    entrants: int | None = None,
    made_up: int | None = None,
    seeds: int = 1,
    max_ticks: int | None = None,
    jobs: int | None = None,
) -> dict[str, float]:
    """Print the figures and return them (``FIELD_KEYS``). ``repeat`` 1 (``--quick``): a
    smaller played field and made-up field. ``entrants``: the played field (default
    ``DEFAULT_PLAYED``, 8 quick; 64 is the issue's); ``made_up``: the made-up field's last
    step (default ``MADE_UP_ENTRANTS``, 100 quick), measured at an eighth, a quarter, a half
    and all of it, then at an eighth on 2 and 4 seeds, then at the first two with one
    entrant withdrawn. ``seeds``: the played field's seeds (the default case has 1);
    ``max_ticks`` shortens its matches and ``jobs`` sets its workers (default: the cores),
    for a smoke test."""
    n_played = entrants or (DEFAULT_PLAYED if repeat > 1 else 8)
    big = made_up or (MADE_UP_ENTRANTS if repeat > 1 else 100)
    jobs = jobs or default_jobs()
    case = _played_case(seeds, max_ticks)
    figures: dict[str, float] = {}
    print(
        f"field: {n_played} real entrants (the default case's {len(case.opponents)} committed "
        f"opponents, then numbered copies of the baselines), entered one at a time in a fresh "
        f"store and played by the coordinator (play_field) on {jobs} local worker(s), "
        f"{seeds} seed(s), both sides, "
        f"{'full matches' if max_ticks is None else f'matches cut at {max_ticks} ticks'}:"
    )
    run = _played(case, n_played, jobs)
    steps, wall, matches, rss_start = run.steps, run.wall, run.matches, run.rss_start
    played = [s for s in steps if s.matches and not math.isnan(s.schedule)]
    print(
        f"  {'entrants':>8} {'matches':>8} {'enter ms':>9} {'schedule ms':>12} "
        f"{'ms/match':>9} {'coordinator RSS':>16}"
    )
    marks = {s.entrants for s in steps if s.entrants & (s.entrants - 1) == 0}
    for s in steps:
        if s in played and (s.entrants in marks or s is steps[-1]):
            print(
                f"  {s.entrants:>8} {s.matches:>8} {s.enter * 1e3:>9.1f} "
                f"{s.schedule * 1e3:>12.1f} {s.wall / s.matches * 1e3:>9.1f} {_mib(s.rss):>16}"
            )
    played_matches = sum(s.matches for s in played)
    played_wall = sum(s.wall for s in played)
    figures |= {
        "played_entrants": n_played,
        "played_matches": matches,
        "played_wall_s": wall,
        "played_ms_per_match": played_wall / max(1, played_matches) * 1e3,
        "played_schedule_ms_first": played[0].schedule * 1e3 if played else math.nan,
        "played_schedule_ms_last": played[-1].schedule * 1e3 if played else math.nan,
        "played_schedule_ms_median": (
            statistics.median(s.schedule for s in played) * 1e3 if played else math.nan
        ),
        "played_rss_start_bytes": rss_start,
        "played_rss_end_bytes": steps[-1].rss,
        "played_rss_peak_bytes": max(_peak_rss_bytes(), *(s.rss for s in steps)),
        "played_ticks_per_match": run.ticks / max(1, matches),
        "played_replay_bytes_per_match": run.replay_bytes / max(1, matches),
    }
    print(
        f"  {matches} matches in {wall:.1f} s ({matches / wall:.1f} matches/s, workers' start "
        f"included); per match, newcomers' meetings: "
        f"{figures['played_ms_per_match']:.1f} ms of wall time; scheduling a newcomer (entered, "
        f"read by the coordinator, its first meeting out): "
        f"{figures['played_schedule_ms_first']:.1f} ms at {played[0].entrants if played else 0} "
        f"entrants, {figures['played_schedule_ms_last']:.1f} ms at {n_played}, median "
        f"{figures['played_schedule_ms_median']:.1f} ms; the "
        f"coordinator's RSS {_mib(rss_start)} before, {_mib(steps[-1].rss)} at the end (peak "
        f"{_mib(figures['played_rss_peak_bytes'])}: the bench's process)"
    )
    print(
        f"  replays as stored: {figures['played_replay_bytes_per_match']:,.0f} bytes a match, "
        f"{figures['played_ticks_per_match']:.0f} ticks a match, "
        f"{run.replay_bytes / max(1, run.ticks):.1f} bytes a tick"
    )
    sizes = [max(8, big // 8), max(8, big // 4), max(8, big // 2), big]
    print(
        "field, made up: entrants and results made up (no play), recorded straight into a "
        "real store (rows of its tables, many a transaction), every "
        "meeting recorded; at each step a fresh coordinator resumes the field, then "
        f"{NEWCOMERS} more controllers enter one by one, each one's meetings made up and "
        "recorded by the coordinator (the medians):"
    )
    points = made_up_field(sorted(set(sizes)), (1, 2, 4), withdrawn=2)
    print(
        f"  {'entrants':>8} {'seeds':>5} {'withdrawn':>9} {'matches':>9} {'resume s':>9} "
        f"{'enter ms':>9} "
        f"{'schedule ms':>12} {'meetings s':>11} {'coordinator':>12} {'bytes/entrant':>14} "
        f"{'bytes/match':>12}"
    )
    for p in points:
        print(
            f"  {p.entrants:>8} {p.seeds:>5} {'one' if p.withdrawn else '-':>9} "
            f"{p.matches:>9,} {p.resume:>9.2f} "
            f"{p.enter * 1e3:>9.1f} {p.schedule * 1e3:>12.1f} {p.meetings:>11.2f} "
            f"{_mib(p.coordinator_bytes):>12} {p.coordinator_bytes / p.entrants:>14,.0f} "
            f"{p.coordinator_bytes / max(1, p.matches):>12,.1f}"
        )
    last = next(p for p in reversed(points) if p.seeds == 1 and not p.withdrawn)
    first = points[0]
    more_seeds = [p for p in points if p.entrants == first.entrants and not p.withdrawn]
    out = [p for p in points if p.withdrawn]
    figures |= {
        "made_up_entrants": last.entrants,
        "made_up_matches": last.matches,
        "made_up_enter_ms": last.enter * 1e3,
        "made_up_schedule_ms": last.schedule * 1e3,
        "made_up_resume_s": last.resume,
        "made_up_coordinator_bytes": last.coordinator_bytes,
        "made_up_schedule_ms_per_entrant": last.schedule * 1e3 / last.entrants,
        "made_up_coordinator_bytes_per_entrant": last.coordinator_bytes / last.entrants,
    }
    grow_e = last.entrants / first.entrants
    grow_m = last.matches / max(1, first.matches)
    print(
        f"  from {first.entrants} to {last.entrants} entrants ({grow_e:.0f}x; matches "
        f"{grow_m:.0f}x): scheduling a newcomer {last.schedule / first.schedule:.1f}x, the "
        f"coordinator's memory {last.coordinator_bytes / first.coordinator_bytes:.1f}x"
    )
    if len(more_seeds) > 1:
        top = more_seeds[-1]
        print(
            f"  at {first.entrants} entrants, {top.seeds} seeds against 1 (matches "
            f"{top.matches / max(1, first.matches):.0f}x, entrants the same): scheduling a "
            f"newcomer {top.schedule / first.schedule:.1f}x, the coordinator's memory "
            f"{top.coordinator_bytes / first.coordinator_bytes:.1f}x (a resume reads every "
            f"match: {top.resume / first.resume:.1f}x)"
        )
    if len(out) > 1:
        a, b = out[0], out[1]
        print(
            f"  one entrant withdrawn, its later meetings never played: from {a.entrants} to "
            f"{b.entrants} entrants (matches {b.matches / max(1, a.matches):.0f}x) scheduling a "
            f"newcomer {b.schedule / a.schedule:.1f}x, the coordinator's memory "
            f"{b.coordinator_bytes / a.coordinator_bytes:.1f}x; at {b.entrants} entrants "
            f"{b.coordinator_bytes / _at(points, b.entrants).coordinator_bytes:.1f}x the memory "
            f"and {b.schedule / _at(points, b.entrants).schedule:.1f}x the scheduling of the "
            f"field without a withdrawal"
        )
    return figures


def _at(points: Sequence[MadeUpPoint], entrants: int) -> MadeUpPoint:
    """The point of one seed, nobody withdrawn, at ``entrants``."""
    return next(p for p in points if p.entrants == entrants and p.seeds == 1 and not p.withdrawn)
