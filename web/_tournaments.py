"""The site's tournaments: started from the server, played in the worker lanes, and their JSON
(the listing's row, the standings, the pairings by stage with each stage's label).

A tournament is recorded (status running) before ``start_tournament`` returns,
then played in the worker lanes' trio loop by ``arena.run_tournament``, its
matches taking their turns with quick matches in the match lane. A server
stopped mid-tournament plays it on when it starts again (``_resume_tournaments``).
"""

from __future__ import annotations

import concurrent.futures
import logging
from functools import partial
from typing import Any, Final

import arena
from web._controllers import named_controller
from web._core import SiteCore, when
from web._errors import ApiError
from web._lanes import WorkerLanes
from web._limits import SiteLimits, Slots

__all__ = ["Tournaments", "tournament_key"]

_log = logging.getLogger("web")


def tournament_key(tournament_id: int) -> tuple[str, int]:
    """The tournament's key in the site's ``Changes`` (its event stream waits on it)."""
    return ("tournament", tournament_id)


class Tournaments(SiteCore):
    """Tournaments: started, played, listed and shown live."""

    def __init__(
        self, store: arena.Store, case: arena.Case, limits: SiteLimits, lanes: WorkerLanes
    ) -> None:
        super().__init__(store, case, limits, lanes)
        self._tournaments = Slots(limits.tournaments, "the server plays enough tournaments now")
        self._progress: dict[int, arena.TournamentProgress] = {}

    def start_tournament(
        self,
        format: str,
        field: list[str],
        *,
        seeds: list[int] | str,
        rounds: int | None = None,
        shuffle: int | None = None,
    ) -> dict[str, Any]:
        """Start a tournament over stored controllers (names or sha256s); its JSON.

        ``seeds`` is a list, or text as a person types it (``arena.parse_seeds``: "0 1 2",
        "0,1,2", "0-15"), at most ``limits.max_seeds`` of them.

        It is recorded (status running) before this returns, then played in the
        worker lanes' loop by ``arena.run_tournament``, its matches taking their
        turns with quick matches on the workers. 429 when the server plays
        ``tournaments`` already; 400 for a plan that cannot be held.
        """
        if not 2 <= len(field) <= self.limits.max_field:
            raise ApiError(
                400,
                f"field 'field': {len(field)} controllers; a tournament here takes "
                f"2..{self.limits.max_field}",
            )
        records = [named_controller(self.store, ref, f"field[{i}]") for i, ref in enumerate(field)]
        if isinstance(seeds, str):
            try:
                seeds = list(arena.parse_seeds(seeds, self.limits.max_seeds))
            except arena.ArenaError as exc:
                raise ApiError(400, f"field 'seeds': {exc}") from None
        entrants = [arena.Entrant(r.name, r.sha256) for r in records]
        self._tournaments.take(retry_after=60)
        try:
            record = arena.create_tournament(
                self.store,
                format,
                entrants,
                seeds=seeds,
                rounds=rounds,
                shuffle=shuffle,
                case=self.case,
                config=self.case.rules,
                server=True,
            )
        except BaseException:
            self._tournaments.give()
            raise
        self._spawn_tournament(record.id)
        return self.tournament_json(record.id)

    def _spawn_tournament(self, tournament_id: int) -> None:
        """Play a stored tournament in the worker lanes (its slot is taken already)."""
        future = self.lanes.spawn(self._play_tournament, tournament_id)
        future.add_done_callback(partial(self._tournament_over, tournament_id))

    def _resume_tournaments(self) -> None:
        """Play on the tournaments a previous server started and left running (stopped or
        killed mid-way): what is missing is played, what was recorded is kept. Those the
        command line started are its own (``arena tournament --resume``)."""
        for record in self.store.running_tournaments():
            if not arena.started_by_server(record):
                continue
            self._tournaments.take(retry_after=60, force=True)
            self._spawn_tournament(record.id)
            _log.info("tournament %d was running: playing on", record.id)

    async def _play_tournament(self, player: Any, tournament_id: int) -> None:
        """In the worker lanes' loop: play the tournament, recording as it goes."""
        await arena.run_tournament(
            self.store,
            tournament_id,
            player,
            slots=self.limits.workers,
            on_progress=self._tournament_progress,
        )

    def _tournament_progress(self, progress: arena.TournamentProgress) -> None:
        self._progress[progress.tournament_id] = progress
        self.changes.bump(tournament_key(progress.tournament_id))

    def _tournament_over(self, tournament_id: int, future: concurrent.futures.Future[None]) -> None:
        self._tournaments.give()
        self._progress.pop(tournament_id, None)
        if not future.cancelled() and future.exception() is not None:
            _log.error("tournament %d stopped: %s", tournament_id, future.exception())
        self.changes.bump(tournament_key(tournament_id))

    def tournaments_json(
        self, *, limit: int, before: int | None, everything: bool
    ) -> list[dict[str, Any]]:
        """The most recent tournaments, without their standings: all of them with
        ``everything`` (the console), else only the published ones."""
        return [
            _tournament_json(t)
            for t in self.store.tournaments(
                limit=limit, before=before, published_only=not everything
            )
        ]

    def publish_tournament(self, tournament_id: int) -> dict[str, Any]:
        """Publish a tournament (the console's button, ``arena tournament --publish``): it and
        its matches, those still to come too, are on the public site. Its JSON."""
        try:
            self.store.publish_tournament(tournament_id)
        except arena.NotInStoreError:
            raise ApiError(404, f"no tournament {tournament_id}") from None
        self.changes.bump(tournament_key(tournament_id))
        return self.tournament_json(tournament_id)

    def tournament_json(self, tournament_id: int, *, everything: bool = True) -> dict[str, Any]:
        """A tournament as ``arena standings --json`` gives it (live while it runs), with its
        field, its pairings by stage (``stages``) and what is playing now. Without
        ``everything`` (the public side), 404 unless it is published."""
        try:
            # One read: the status and the matches of one moment (read apart, the last match
            # and the finish could land between them: "finished" with a match missing).
            record, matches = self.store.tournament_with_matches(tournament_id)
        except arena.NotInStoreError:
            raise ApiError(404, f"no tournament {tournament_id}") from None
        if not everything and not record.published:
            raise ApiError(404, f"no tournament {tournament_id}")  # as if there were none
        standings = arena.standings_of(record, matches)
        data = arena.tournament_json(record, standings)
        progress = self._progress.get(tournament_id)
        data.update(_tournament_json(record))
        data["matches"] = standings.matches
        data["planned"] = standings.total
        data["playing"] = 0 if progress is None else progress.playing
        # Each row's matches still to come beside those played (``matches``): early in a
        # live round-robin, 53-0 and 3-0 are not equals.
        pending = arena.pending_matches(arena.tournament_plan(record), standings)
        for row, left in zip(data["standings"], pending, strict=True):
            row["pending"] = left
        data["stages"] = _stages(record, matches, arena.tournament_plan(record))
        return data

    def exclude(self, tournament_id: int, name: str, reason: str) -> dict[str, Any]:
        """Leave ``name`` out of a finished tournament's standings (``arena tournament
        exclude``); its JSON, recomputed. 400 for what cannot be (a bracket, a running
        tournament, a name not in its field), naming it."""
        arena.exclude_entrant(self.store, tournament_id, name, reason)
        self.changes.bump(tournament_key(tournament_id))
        return self.tournament_json(tournament_id)

    def include(self, tournament_id: int, name: str) -> dict[str, Any]:
        """Undo ``exclude``: ``name`` counts again; the tournament's JSON."""
        self.store.include_entrant(tournament_id, name)
        self.changes.bump(tournament_key(tournament_id))
        return self.tournament_json(tournament_id)

    def tournament_csv(self, tournament_id: int, what: str, *, everything: bool = True) -> str:
        """A tournament's ``standings`` or ``matches`` as CSV (``arena standings --csv``,
        ``arena tournament matches --csv``), each match's replay as its URL here. Without
        ``everything`` (the public side), 404 unless it is published."""
        try:
            record, standings = arena.tournament_standings(self.store, tournament_id)
        except arena.NotInStoreError:
            raise ApiError(404, f"no tournament {tournament_id}") from None
        if not everything and not record.published:
            raise ApiError(404, f"no tournament {tournament_id}")  # as if there were none
        if what == "standings":
            pending = arena.pending_matches(arena.tournament_plan(record), standings)
            return arena.standings_csv(standings, pending)
        rows = arena.match_rows(self.store, record, lambda m: f"/api/matches/{m.id}/replay")
        return arena.matches_csv(rows)


def _tournament_json(t: arena.TournamentRecord) -> dict[str, Any]:
    """A tournament's record without its standings (a listing's row)."""
    try:
        planned: int | None = arena.tournament_plan(t).matches
    except arena.ArenaError:
        planned = None
    return {
        "id": t.id,
        "format": t.format,
        "status": str(t.status),
        "field": [{"name": e.name, "sha256": e.sha256} for e in t.field],
        "seeds": list(t.seeds),
        "matches": t.matches,
        "planned": planned,
        "error": t.error,
        "published": t.published,
        "created_at": when(t.created_at),
        "finished_at": when(t.finished_at),
        **arena.tournament_timing(t).to_json(),
    }


_BRACKET_NAMES: Final = ("final", "semi-finals", "quarter-finals")


def _stage_label(t: arena.TournamentRecord, stage: int, stages: int) -> str:
    if t.format == "bracket" and stages - 1 - stage < len(_BRACKET_NAMES):
        return _BRACKET_NAMES[stages - 1 - stage]
    if t.format == "gauntlet":
        return f"opponent {stage + 1}"
    return f"round {stage + 1}"


def _stages(
    t: arena.TournamentRecord, matches: list[arena.MatchRecord], plan: arena.TournamentPlan
) -> list[dict[str, Any]]:
    """The recorded matches by stage and meeting: [{"stage", "label", "meetings": [...]}].

    A meeting is a stage's slot, its first entrant side A on the first assignment.
    """
    meetings: dict[tuple[int, int], dict[str, Any]] = {}
    for m in matches:
        pairing = arena.played_of(m).pairing
        stage, side = plan.stage_of(pairing), plan.side_of(pairing)
        a, b = (pairing.a, pairing.b) if side == 0 else (pairing.b, pairing.a)
        meeting = meetings.setdefault(
            (stage, pairing.slot),
            {"slot": pairing.slot, "a": a, "b": b, "matches": [], "wins": {a: 0, b: 0}},
        )
        winner = None
        if m.result is not None and m.result.winner is not None:
            winner = m.result.sides[m.result.winner].name
            if winner in meeting["wins"]:
                meeting["wins"][winner] += 1
        meeting["matches"].append(
            {
                "id": m.id,
                "seed": pairing.seed,
                "side": side,
                "status": str(m.status),
                "winner": winner,
            }
        )
    out: dict[int, dict[str, Any]] = {}
    for (stage, _slot), meeting in sorted(meetings.items()):
        wins = meeting.pop("wins")
        a, b = meeting["a"], meeting["b"]
        meeting["winner"] = a if wins[a] > wins[b] else b if wins[b] > wins[a] else None
        entry = out.setdefault(
            stage, {"stage": stage, "label": _stage_label(t, stage, plan.stages), "meetings": []}
        )
        meeting["matches"].sort(key=lambda x: (x["seed"], x["side"]))
        entry["meetings"].append(meeting)
    return list(out.values())
