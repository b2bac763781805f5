"""The scheduler that runs a tournament's plan from the results so far.

What is scheduled is a pure function of the plan (``_plan``) and the set of
results recorded, whatever order they came in.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Iterable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import networkx as nx

    from arena.tournament._plan import TournamentPlan

from arena.tournament._formats import (
    MatchNode,
    Meeting,
    circle_meeting,
    circle_size,
    field_meeting,
    swiss_meetings,
)
from arena.tournament._records import (
    Format,
    Pairing,
    Played,
    ScheduleMismatchError,
    TournamentSetupError,
)
from arena.tournament._standings import Standings, Tally

__all__ = ["Scheduler"]


class Scheduler:
    """A tournament in progress: record results (in any order), ask what to play next.

    The state is a function of the plan and the set of results recorded, so a
    coordinator that crashed builds a new one from the stored results and
    plays what is missing. It holds O(field) counts, one flag per match
    recorded, the n x n win matrix and, for swiss and bracket, the stages
    decided so far; never a list of every match.

    A field's ``withdrawn`` entrants (field only): their meetings not recorded are settled
    without a result (skipped: never handed out, a round holding only such gaps is
    complete), and none of their meetings, recorded or not, is rated. The ratings are then
    a pure function of the results and the withdrawals: every recorded meeting of two
    entrants not withdrawn, in schedule order, up to the first meeting of two such entrants
    not yet recorded. A change of the withdrawals is a new scheduler (undoing one puts its
    meetings back to play: the cursor goes back to the first of them).
    """

    def __init__(
        self,
        plan: TournamentPlan,
        played: Iterable[Played] = (),
        withdrawn: Collection[str] = (),
    ) -> None:
        self.plan = plan
        n = len(plan.order)
        self._n = n
        self._per = plan.rounds_per_stage
        self._index = {name: i for i, name in enumerate(plan.order)}
        self._tally = Tally(plan.order, gauntlet=plan.format is Format.GAUNTLET)
        self._stages = plan.stages
        self._done: dict[int, bytearray] = {}  # round -> a flag per slot
        self._count: dict[int, int] = {}  # round -> results recorded
        self._recorded = 0
        self._cursor = 0  # the first round not complete
        self._waiting: dict[tuple[int, int], list[Played]] = {}  # (stage, slot) not yet known
        self._rate_at = (0, 0)  # the next (round, slot) the ratings take
        self._to_rate: dict[tuple[int, int], tuple[int, int, int | None] | None] = {}
        out = set(withdrawn)
        if out and plan.format is not Format.FIELD:
            raise TournamentSetupError(
                f"only a field's entrants are withdrawn as it plays, not a {plan.format}'s"
            )
        unknown = sorted(out - set(self._index))
        if unknown:
            raise TournamentSetupError(f"withdrawn entrant {unknown[0]!r} is not in the field")
        self._out = frozenset(self._index[name] for name in out)
        # standings_without rates a smaller field's tally instead
        self._rater: Callable[[int, int, int | None], None] = self._tally.rate
        # A bit per withdrawn entrant's meeting recorded in a round complete (by opponent and
        # round of the stage): none is recorded twice, in O(field) bits, whatever was recorded.
        self._late: dict[int, bytearray] = {w: bytearray() for w in self._out}
        # swiss: the stages paired so far, who has met, who has sat out
        self._swiss: list[list[Meeting]] = []
        self._met: set[Meeting] = set()
        self._byes: set[int] = set()
        # bracket: each match's entrants as they become known, its running score
        self._graph: Any = plan._bracket
        self._entrants: dict[MatchNode, list[int | None]] = {}
        self._score: dict[MatchNode, list[int]] = {}  # wins and fuel of each side, games
        self._winner: dict[MatchNode, int] = {}
        self._sizes: list[int] = []
        self._reached: list[int] = []
        if plan.format is Format.BRACKET:
            self._sizes = [0] * self._stages
            self._reached = [0] * n
            for node, data in self._graph.nodes(data=True):
                self._sizes[data["stage"]] += 1
                self._entrants[node] = list(data["seeded"])
                for e in data["seeded"]:
                    if e is not None:
                        self._reached[e] = data["stage"]
        elif plan.format is Format.SWISS:
            self._pair_swiss()
        for p in played:
            self.record(p)

    def add_entrant(self, name: str) -> None:
        """Field only: ``name`` enters last; its meetings with every entrant before it are
        the next stage. O(field) (the win matrix is copied: O(field²) bytes), whatever the
        results recorded; nothing scheduled before changes (keys, order, ratings)."""
        if self.plan.format is not Format.FIELD:
            raise TournamentSetupError(
                f"only a field takes entrants as it goes, not a {self.plan.format}"
            )
        if not isinstance(name, str) or not name:
            raise TournamentSetupError(f"entrant name {name!r} is not a non-empty string")
        if name in self._index:
            raise TournamentSetupError(f"entrant {name!r} is in the field twice")
        self.plan = dataclasses.replace(self.plan, field=(*self.plan.field, name))
        self._index[name] = self._n
        self._n += 1
        self._stages = self.plan.stages
        self._tally.grow(name)
        self._advance()  # a round of withdrawn entrants' meetings alone is complete at once
        self._rate()

    @property
    def withdrawn(self) -> frozenset[str]:
        """The field's entrants withdrawn when this scheduler was made."""
        return frozenset(self.plan.order[i] for i in self._out)

    # ----------------------------------------------------------------- shape so far

    def _skips(self, stage: int, slot: int) -> bool:
        """Whether (stage, slot) is a withdrawn entrant's meeting (a field's: slot ``j`` of
        stage ``s`` is entrant ``j`` against entrant ``s + 1``)."""
        return bool(self._out) and (slot in self._out or stage + 1 in self._out)

    def _mark_late(self, round_: int, slot: int) -> bool:
        """Note the withdrawn entrant's meeting at (round, slot) recorded; False if it was."""
        stage, rest = divmod(round_, self._per)
        newcomer = stage + 1
        w, opponent = (slot, newcomer) if slot in self._out else (newcomer, slot)
        bits = self._late[w]
        at = opponent * self._per + rest
        byte, bit = divmod(at, 8)
        if byte >= len(bits):
            bits.extend(bytes(byte + 1 - len(bits)))
        if bits[byte] >> bit & 1:
            return False
        bits[byte] |= 1 << bit
        return True

    def _complete(self, round_: int) -> bool:
        """Every slot of ``round_`` recorded, or a withdrawn entrant's meeting. O(withdrawn)."""
        stage = round_ // self._per
        size = self._size(stage)
        done = self._count.get(round_, 0)
        if done >= size or not self._out:
            return done >= size
        if stage + 1 in self._out:  # the withdrawn newcomer's own stage: every slot
            return True
        flags = self._done.get(round_)
        gaps = sum(1 for j in self._out if j <= stage and (flags is None or not flags[j]))
        return done + gaps >= size

    def _size(self, stage: int) -> int:
        match self.plan.format:
            case Format.ROUND_ROBIN:
                return circle_size(self._n)
            case Format.GAUNTLET:
                return 1
            case Format.FIELD:
                return stage + 1
            case Format.BRACKET:
                return self._sizes[stage]
            case Format.SWISS:
                return len(self._swiss[stage])

    def _known_rounds(self) -> int:
        """Rounds whose meetings are laid out (swiss: the stages paired so far)."""
        stages = len(self._swiss) if self.plan.format is Format.SWISS else self._stages
        return stages * self._per

    def _meeting(self, stage: int, slot: int) -> Meeting | None:
        """The meeting at (stage, slot), or None while results still decide it."""
        match self.plan.format:
            case Format.ROUND_ROBIN:
                return circle_meeting(self._n, stage, slot)
            case Format.GAUNTLET:
                return (0, stage + 1)
            case Format.FIELD:
                return field_meeting(stage, slot)
            case Format.BRACKET:
                a, b = self._entrants[(stage, slot)]
                return None if a is None or b is None else (a, b)
            case Format.SWISS:
                return self._swiss[stage][slot] if stage < len(self._swiss) else None

    def _exists(self, stage: int, slot: int) -> bool | None:
        """Whether (stage, slot) is a meeting: None while the stage is not paired yet."""
        if not 0 <= stage < self._stages or slot < 0:
            return False
        if self.plan.format is Format.SWISS and stage >= len(self._swiss):
            return None
        return slot < self._size(stage)

    def _pairing(self, round_: int, slot: int, meeting: Meeting) -> Pairing:
        rest = round_ % self._per
        seed_index, side = divmod(rest, 2)
        i, j = meeting if side == 0 else (meeting[1], meeting[0])
        order = self.plan.order
        return Pairing(round_, slot, order[i], order[j], self.plan.seeds[seed_index])

    # ----------------------------------------------------------------- recording

    def record(self, played: Played) -> None:
        """Count one result. Raises ``ScheduleMismatchError`` for a match the schedule
        does not hold (now, or once earlier results decide its stage) or one already in."""
        queue = [played]
        while queue:
            queue += self._place(queue.pop())

    def _place(self, played: Played) -> list[Played]:
        """Count a result, or hold it until its meeting is known; return what that frees."""
        p = played.pairing
        stage = self.plan.stage_of(p)
        exists = self._exists(stage, p.slot)
        if exists is False:
            raise ScheduleMismatchError(f"result {p.key}: the schedule has no such match")
        meeting = self._meeting(stage, p.slot) if exists else None
        if meeting is None:
            waiting = self._waiting.setdefault((stage, p.slot), [])
            if any(w.pairing == p for w in waiting):
                raise ScheduleMismatchError(f"result {p.key} is recorded twice")
            waiting.append(played)
            return []
        expected = self._pairing(p.round, p.slot, meeting)
        if p != expected:
            raise ScheduleMismatchError(f"result {p.key} is not the scheduled match {expected.key}")
        skipped = self._skips(stage, p.slot)
        if p.round < self._cursor and skipped:
            # A withdrawn entrant's meeting, read after its round was settled without it
            # (results come in the order they were recorded, not the schedule's).
            if not self._mark_late(p.round, p.slot):
                raise ScheduleMismatchError(f"result {p.key} is recorded twice")
        elif p.round < self._cursor:  # a complete round: its flags are gone, every one was set
            raise ScheduleMismatchError(f"result {p.key} is recorded twice")
        else:
            flags = self._done.setdefault(p.round, bytearray(self._size(stage)))
            if flags[p.slot]:
                raise ScheduleMismatchError(f"result {p.key} is recorded twice")
            flags[p.slot] = 1
            self._count[p.round] = self._count.get(p.round, 0) + 1
        self._recorded += 1
        a, b = self._index[p.a], self._index[p.b]
        self._tally.add(a, b, played)
        if not skipped:  # a withdrawn entrant's meetings are never rated
            self._to_rate[(p.round, p.slot)] = (
                None if played.error is not None else (a, b, played.winner)
            )
        self._rate()
        freed = []
        if self.plan.format is Format.BRACKET:
            freed += self._score_bracket((stage, p.slot), a, played)
        freed += self._advance()
        return freed

    def _rate(self) -> None:
        """Apply the ratings of the results that are next in schedule order, passing over
        withdrawn entrants' meetings."""
        while True:
            round_, slot = self._rate_at
            if self._rate_at in self._to_rate:
                item = self._to_rate.pop(self._rate_at)
                if item is not None:
                    self._rater(*item)
            elif not (round_ < self._known_rounds() and self._skips(round_ // self._per, slot)):
                return
            if slot + 1 < self._size(round_ // self._per):
                self._rate_at = (round_, slot + 1)
            else:
                self._rate_at = (round_ + 1, 0)

    def _advance(self) -> list[Played]:
        """Move past complete rounds; pair a swiss stage when the one before is complete."""
        freed: list[Played] = []
        while self._cursor < self._known_rounds():
            if not self._complete(self._cursor):
                break
            # A complete round needs no flag: memory stays with the rounds not complete (and
            # the withdrawn entrants' meetings recorded, so that none is recorded twice).
            flags = self._done.pop(self._cursor, None)
            if self._out and flags is not None:
                stage = self._cursor // self._per
                for j, f in enumerate(flags):
                    if f and self._skips(stage, j):
                        self._mark_late(self._cursor, j)
            self._count.pop(self._cursor, None)
            self._cursor += 1
            if self.plan.format is Format.SWISS and self._cursor == self._known_rounds():
                freed += self._pair_swiss()
        return freed

    def _free(self, stage: int, slot: int) -> list[Played]:
        return self._waiting.pop((stage, slot), [])

    def _pair_swiss(self) -> list[Played]:
        stage = len(self._swiss)
        if stage >= self._stages:
            return []
        wins = self._tally.wins()
        ranking = sorted(range(self._n), key=lambda i: (-wins[i], i))
        meetings = swiss_meetings(ranking, wins, self._met, self._byes, self._per * stage)
        if not meetings:  # nobody can meet without a rematch: the tournament ends here
            self._stages = stage
            stale = [p for key in sorted(self._waiting) for p in self._waiting[key]]
            if stale:
                raise ScheduleMismatchError(
                    f"result {stale[0].key}: the schedule has no such match"
                )
            return []
        self._swiss.append(meetings)
        self._met.update((min(m), max(m)) for m in meetings)
        self._byes.update(set(range(self._n)) - {e for m in meetings for e in m})
        freed = [p for slot in range(len(meetings)) for p in self._free(stage, slot)]
        left = [key for key in self._waiting if key[0] == stage]
        if left:
            p = self._waiting[left[0]][0]
            raise ScheduleMismatchError(f"result {p.key}: the schedule has no such match")
        return freed

    def _score_bracket(self, node: MatchNode, a: int, played: Played) -> list[Played]:
        """Count one game of a bracket match; decide the match after its last game."""
        top, bottom = self._entrants[node]
        assert top is not None and bottom is not None
        score = self._score.setdefault(node, [0, 0, 0, 0, 0])
        score[4] += 1
        if played.error is None:
            top_side = 0 if a == top else 1  # which side of this game the top entrant had
            if played.winner is not None:
                score[0 if played.winner == top_side else 1] += 1
            score[2] += played.fuel_total[top_side]
            score[3] += played.fuel_total[1 - top_side]
        if score[4] < self._per:
            return []
        wins_top, wins_bottom, fuel_top, fuel_bottom, _ = score
        if wins_top != wins_bottom:  # more wins advance
            winner = top if wins_top > wins_bottom else bottom
        elif fuel_top != fuel_bottom:  # then less total fuel
            winner = top if fuel_top < fuel_bottom else bottom
        else:  # then the higher seed
            winner = min(top, bottom)
        self._winner[node] = winner
        self._reached[winner] += 1
        for _, nxt, data in self._graph.out_edges(node, data=True):
            self._entrants[nxt][data["side"]] = winner
            if None not in self._entrants[nxt]:
                return self._free(*nxt)
        return []

    # ----------------------------------------------------------------- what to play

    @property
    def finished(self) -> bool:
        """Every match of the tournament is recorded."""
        return self._cursor >= self._stages * self._per

    @property
    def recorded(self) -> int:
        """Results counted so far (errors included)."""
        return self._recorded

    @property
    def total(self) -> int:
        """Matches the tournament plays in all (swiss: as far as known, else the most)."""
        if self.plan.format is not Format.SWISS:
            return self.plan.matches
        paired = sum(len(m) for m in self._swiss)
        rest = self._stages - len(self._swiss)
        return (paired + rest * (self._n // 2)) * self._per

    def next_round(self) -> list[Pairing] | None:
        """The matches not yet recorded of the first round not complete; None when finished.

        A coordinator that waits for a whole round before asking again plays
        rounds in order; ``ready`` gives more to do in parallel.
        """
        if self.finished:
            return None
        round_ = self._cursor
        stage = round_ // self._per
        flags = self._done.get(round_)
        out = []
        for slot in range(self._size(stage)):
            if (flags is None or not flags[slot]) and not self._skips(stage, slot):
                meeting = self._meeting(stage, slot)
                assert meeting is not None, "a round is laid out once the ones before are done"
                out.append(self._pairing(round_, slot, meeting))
        return out

    def ready(self) -> Iterator[Pairing]:
        """Lazily, in schedule order: every match the results so far decide, not recorded yet.

        Round-robin and gauntlet: every match left (their schedule needs no
        result). Bracket: every game of each match whose two entrants are
        known. Swiss: the rest of the current swiss round. Matches in flight
        are not known here: the caller skips those it has handed out. Ask
        again after recording results to see what they decided.
        """
        for round_ in range(self._cursor, self._known_rounds()):
            stage = round_ // self._per
            for slot in range(self._size(stage)):
                flags = self._done.get(round_)
                if (flags is not None and flags[slot]) or self._skips(stage, slot):
                    continue
                meeting = self._meeting(stage, slot)
                if meeting is not None:
                    yield self._pairing(round_, slot, meeting)

    # ----------------------------------------------------------------- results

    def held_ratings(self) -> list[tuple[int, int, int | None]]:
        """The results recorded and not rated yet (past the first match not recorded), in
        schedule order, each as (entrant A's index, entrant B's, winner); errors left out."""
        return [item for _, item in sorted(self._to_rate.items()) if item is not None]

    def standings(self) -> Standings:
        """The standings so far. Ratings take the matches in schedule order, so they
        stop at the first match not yet recorded."""
        return self._tally.standings(
            self.plan.format, self._recorded, self.total, self.finished, self._bracket_reached()
        )

    @property
    def leader(self) -> str:
        """Who heads the standings now: for a progress line, without building the table."""
        return self.plan.order[self._tally.order(self._bracket_reached())[0]]

    def _bracket_reached(self) -> list[int] | None:
        return self._reached if self.plan.format is Format.BRACKET else None

    def bracket(self) -> nx.DiGraph:
        """Bracket only: the bracket graph with each match's entrants and winner so far
        (node attributes ``a``, ``b`` and ``winner``: names, or None while unknown)."""
        graph = self.plan.bracket_graph()
        order = self.plan.order
        for node in graph.nodes:
            a, b = self._entrants[node]
            winner = self._winner.get(node)
            graph.nodes[node]["a"] = None if a is None else order[a]
            graph.nodes[node]["b"] = None if b is None else order[b]
            graph.nodes[node]["winner"] = None if winner is None else order[winner]
        return graph
