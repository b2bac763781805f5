"""A controller's page and head to head: its runs, its record against each opponent, its
ratings after each match, and every match between two controllers.

What the public side sees of a controller is what is published of it: the page
is there (else 404, as for a record not published) for an open committed
opponent, the controller of a published run, a side of any published match
(a published run's, tournament's or quick match: its name and sha256 are public
already) and a field's entrant (a field is public); and it lists only the
published runs and matches. The console sees everything. The ratings are
``arena.match_ratings``' (each field's or tournament's, in its schedule order, as
its standings rate); a run and a quick match are rated by nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

import arena
from web._core import SiteCore, when
from web._errors import ApiError
from web._matches import replay_url

__all__ = ["Profiles", "match_row"]

_PAGE: Final = 500
"""Rows read a page at a time (the store's largest page)."""
_COUNTS: Final = {"win": "wins", "loss": "losses", "draw": "draws"}


def _rating(rating: Any) -> dict[str, float]:
    return {"mu": rating.mu, "sigma": rating.sigma}


def match_row(
    m: arena.MatchRecord, side: int, ratings: dict[int, Any] | None = None
) -> dict[str, Any]:
    """A finished (or failed) match seen from ``side``: who played, who won, why, when it
    ended, that side's forfeit (with its tick) and fuel, the replay, and that side's rating
    after it (``ratings``: ``arena.match_ratings`` of its tournament; null when unrated)."""
    a, b = m.entrants
    result = m.result
    winner = None if result is None or result.winner is None else m.entrants[result.winner].name
    if result is None:
        outcome = "error"
    elif result.winner is None:
        outcome = "draw"
    else:
        outcome = "win" if result.winner == side else "loss"
    mine = None if result is None else result.sides[side]
    theirs = None if result is None else result.sides[1 - side]
    rated = None if ratings is None else ratings.get(m.id)
    return {
        "id": m.id,
        "seed": m.seed,
        "side": side,
        "a": {"name": a.name, "sha256": a.sha256},
        "b": {"name": b.name, "sha256": b.sha256},
        "winner": winner,
        "outcome": outcome,
        "reason": None if result is None else str(result.reason),
        "ticks": None if result is None else result.ticks,
        "forfeit": None if mine is None else _forfeit(mine.forfeit),
        "opponent_forfeit": None if theirs is None else _forfeit(theirs.forfeit),
        "fuel_total": None if mine is None else mine.fuel_total,
        "replay_sha256": None if result is None else result.replay_sha256,
        "replay": None if result is None else replay_url(m.id),
        "rating_after": None if rated is None else _rating(rated[side]),
        "tournament_id": m.tournament_id,
        "run_id": m.run_id,
        "error": m.error,
        "finished_at": when(m.finished_at),
    }


def _forfeit(forfeit: Any) -> dict[str, Any] | None:
    if forfeit is None:
        return None
    return {"tick": forfeit.tick, "kind": str(forfeit.kind), "detail": forfeit.detail}


class Profiles(SiteCore):
    """Controllers' pages and head to head, over the stored matches."""

    def _matches_of(self, sha256: str, *, everything: bool) -> Iterator[arena.MatchRecord]:
        """Every settled match ``sha256`` played (published ones only without
        ``everything``), newest first, a page at a time."""
        before = None
        while True:
            page = self.store.matches(
                limit=_PAGE, before=before, controller=sha256, published_only=not everything
            )
            for m in page:
                if m.status is not arena.MatchStatus.PENDING:
                    yield m
            if len(page) < _PAGE:
                return
            before = page[-1].id

    def _runs_of(self, sha256: str, *, everything: bool) -> list[arena.RunRecord]:
        runs: list[arena.RunRecord] = []
        while True:
            page = self.store.runs(
                limit=_PAGE,
                before=runs[-1].id if runs else None,
                controller=sha256,
                published_only=not everything,
            )
            runs += page
            if len(page) < _PAGE:
                return runs

    def published_controller(self, sha256: str) -> bool:
        """Whether the public side shows the page of controller ``sha256``: an open
        committed opponent, a published run's controller, a side of a published match, or
        a field's entrant."""
        try:
            record = self.store.controller(sha256)
        except arena.NotInStoreError:
            return False
        if record.sha256 != sha256:
            return False
        if record.origin is arena.Origin.BASELINE and not record.hidden:
            return True
        if self.store.runs(limit=1, controller=sha256, published_only=True):
            return True
        if self.store.matches(limit=1, controller=sha256, published_only=True):
            return True
        return any(  # a field's entrant, before its first match too (a field is public)
            sha256 in {e.sha256 for e in self.store.field_entrants(f.tournament_id)}
            for f in self.store.fields()
        )

    def controller_page_json(self, sha256: str, *, everything: bool = True) -> dict[str, Any]:
        """A controller's page: its names, its runs, the fields it entered and the other
        tournaments it played in (its row of each one's standings), its record against each
        opponent (each match from its side, with its rating after it), and its ratings after
        each match, a series per field or tournament in schedule order. 404 unless it is
        stored and (without ``everything``) published; then only what is published of it
        (a field and its matches are)."""
        if not (everything or self.published_controller(sha256)):
            raise ApiError(404, f"no controller {sha256!r}")
        try:
            record = self.store.controller(sha256)
        except arena.NotInStoreError:
            raise ApiError(404, f"no controller {sha256!r}") from None
        if record.sha256 != sha256:  # a name that happens to look like a sha256
            raise ApiError(404, f"no controller {sha256!r}")
        field_ids = {f.tournament_id: f for f in self.store.fields()}
        # A field is public, and so are its matches: the others as published.
        matches = sorted(
            (
                m
                for m in self._matches_of(sha256, everything=True)
                if everything or m.published or m.tournament_id in field_ids
            ),
            key=lambda m: m.id,
        )
        runs = self._runs_of(sha256, everything=everything)
        # Publicly, only the names it is published under (another may be a local run's).
        shown = everything or (record.origin is arena.Origin.BASELINE and not record.hidden)
        names = [record.name] if shown else []
        ratings: dict[int, Any] = {}
        tournaments = []
        fields = []
        series = []
        entered = {
            tid for tid in field_ids if sha256 in {e.sha256 for e in self.store.field_entrants(tid)}
        }
        played_in = {m.tournament_id for m in matches if m.tournament_id is not None}
        for tid in sorted(played_in | entered):
            tournament, played = self.store.tournament_with_matches(tid)
            if not (everything or tournament.published or tid in field_ids):
                continue
            rated = arena.match_ratings(tournament, played)
            ratings.update(rated)
            mine = [m for m in played if sha256 in (e.sha256 for e in m.entrants)]
            name = next(e.name for e in tournament.field if e.sha256 == sha256)
            if name not in names:  # its name there is public with the field or tournament
                names.append(name)
            if tid in field_ids:
                summary = field_ids[tid]
                case = {"slug": summary.case_slug, "version": summary.case_version}
                fields.append(_field_place(self.store, tid, case, name, sha256))
                label = f"field {summary.case_slug}/{summary.case_version}"
            else:
                tournaments.append(_tournament_place(tournament, played, name))
                label = f"tournament #{tid} ({tournament.format})"
            order = {m.id: i for i, m in enumerate(_schedule_order(played))}
            points = []
            for m in sorted(mine, key=lambda m: order[m.id]):
                side = 0 if m.entrants[0].sha256 == sha256 else 1
                after = rated.get(m.id)
                if after is not None:
                    points.append({"match": m.id, **_rating(after[side])})
            series.append(
                {"tournament": tid, "format": tournament.format, "label": label, "points": points}
            )
        record_rows: dict[str, dict[str, Any]] = {}
        for m in matches:
            side = 0 if m.entrants[0].sha256 == sha256 else 1
            mine_name, other = m.entrants[side], m.entrants[1 - side]
            if mine_name.name not in names:
                names.append(mine_name.name)
            line = match_row(m, side, ratings)
            opponent = record_rows.setdefault(
                other.sha256,
                {
                    "opponent": {"name": other.name, "sha256": other.sha256},
                    "wins": 0,
                    "losses": 0,
                    "draws": 0,
                    "matches": [],
                },
            )
            opponent["opponent"]["name"] = other.name  # the latest name it played under
            counted = _COUNTS.get(line["outcome"])
            if counted is not None:
                opponent[counted] += 1
            opponent["matches"].append(line)
        for run in runs:
            if run.controller not in names:
                names.append(run.controller)
        return {
            "sha256": sha256,
            "name": names[0],
            "names": names,
            "origin": str(record.origin),
            "hidden": record.hidden,
            "module": everything or (record.origin is arena.Origin.BASELINE and not record.hidden),
            "runs": [_run_row(r) for r in runs],
            "tournaments": tournaments,
            "fields": fields,
            "record": sorted(
                record_rows.values(),
                key=lambda r: (-(r["wins"] + r["losses"] + r["draws"]), r["opponent"]["name"]),
            ),
            "ratings": series,
        }

    def field_head_to_head_json(self, slug: str, version: int, a: str, b: str) -> dict[str, Any]:
        """Every match between the entrants ``a`` and ``b`` (names) of the field of case
        ``slug`` version ``version`` and who won each (``GET /api/field/{slug}/{version}/
        head-to-head``: a field is public, and so are its matches). 404 for a case version
        without a field, or a name not in it."""
        tid = self.store.field_id(slug, version)
        if tid is None:
            raise ApiError(404, f"no field of {slug}/{version}")
        entrants = self.store.field_entrants(tid)
        first, second = _entrant(entrants, a, "a"), _entrant(entrants, b, "b")
        data = self.head_to_head_json(first.sha256, second.sha256, tournament_id=tid)
        return {
            "a": {"name": first.name, "sha256": first.sha256},
            "b": {"name": second.name, "sha256": second.sha256},
            **data,
        }

    def head_to_head_json(
        self,
        a: str,
        b: str,
        *,
        tournament_id: int | None = None,
        everything: bool = True,
    ) -> dict[str, Any]:
        """Every settled match between controllers ``a`` and ``b`` (sha256s), oldest first,
        each from ``a``'s side, with the count of each one's wins and the draws; only those
        of tournament ``tournament_id`` if given, only published ones without
        ``everything``."""
        rows = []
        ratings: dict[int, Any] = {}
        if tournament_id is not None:
            tournament, played = self.store.tournament_with_matches(tournament_id)
            ratings = arena.match_ratings(tournament, played)
        for m in sorted(self._matches_of(a, everything=everything), key=lambda m: m.id):
            shas = [e.sha256 for e in m.entrants]
            if sorted(shas) != sorted([a, b]) or a == b:
                continue
            if tournament_id is not None and m.tournament_id != tournament_id:
                continue
            rows.append(match_row(m, shas.index(a), ratings))
        return {
            "wins_a": sum(r["outcome"] == "win" for r in rows),
            "wins_b": sum(r["outcome"] == "loss" for r in rows),
            "draws": sum(r["outcome"] == "draw" for r in rows),
            "matches": rows,
        }


def _entrant(entrants: list[arena.Entrant], name: str, where: str) -> arena.Entrant:
    found = next((e for e in entrants if e.name == name), None)
    if found is None:
        raise ApiError(404, f"query {where!r}: no entrant {name!r} in the field")
    return found


def _tournament_place(
    tournament: arena.TournamentRecord, played: list[arena.MatchRecord], name: str
) -> dict[str, Any]:
    """The controller (``name`` there) in a tournament: its row of the standings."""
    standings = arena.standings_of(tournament, played)
    row = next((r for r in standings.rows if r.name == name), None)
    return {
        "id": tournament.id,
        "format": tournament.format,
        "status": str(tournament.status),
        "name": name,
        "entrants": len(tournament.field),
        "excluded": name in {x.name for x in tournament.excluded},
        "row": None if row is None else row.to_json(),
    }


def _field_place(
    store: arena.Store, tid: int, case: dict[str, Any], name: str, sha256: str
) -> dict[str, Any]:
    """The controller in a field: the case, and its row of the field's standings (as
    ``GET /api/field/{slug}/{version}`` gives it), or its withdrawal."""
    field = arena.field_json(store, tid)
    row = next((r for r in field["standings"] if r["sha256"] == sha256), None)
    gone = next((x for x in field["withdrawn"] if x["sha256"] == sha256), None)
    return {
        "case": case,
        "tournament": tid,
        "entrants": field["entrants"],
        **(row if row is not None else {"name": name, "rank": None}),
        "withdrawn": gone,
    }


def _schedule_order(matches: list[arena.MatchRecord]) -> list[arena.MatchRecord]:
    """A tournament's matches in schedule order (round, slot)."""

    def key(m: arena.MatchRecord) -> tuple[int, int]:
        p = arena.played_of(m).pairing
        return (p.round, p.slot)

    return sorted(matches, key=key)


def _run_row(r: arena.RunRecord) -> dict[str, Any]:
    return {
        "run": r.id,
        "case": {"slug": r.case_slug, "version": r.case_version},
        "controller": r.controller,
        "outcome": str(r.outcome),
        "reason": r.reason,
        "matches": r.matches,
        "published": r.published,
        "created_at": when(r.created_at),
    }
