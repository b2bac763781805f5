"""One name per module, visible (issue 29): a module is stored once, under its first name; a
run (or a match's side) that names it otherwise shows both, "zigbot-proved (stored as zigbot)",
in ``arena runs``, ``arena runs show`` and the site's run and match JSON (the pages:
tests/test_site_browser.py). The public side tells a first name only where the public listing
of controllers does."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

import arena
import web
from arena.store import Entrant, Origin, Role, RunMatch, RunOutcome, Store
from tests._support import AUTH, SITE_TOKEN, cli, result_between, small_case

Capture = pytest.CaptureFixture[str]

BLOB = b"\0asm zigbot's module"
SHA = hashlib.sha256(BLOB).hexdigest()


def _runs(store: Store) -> tuple[int, int]:
    """A module first stored as ``zigbot``, then a run of it named ``zigbot-proved`` and one
    named ``zigbot``; their ids."""
    store.add_controller(BLOB, name="zigbot", origin=Origin.UPLOAD)
    opponent = store.add_controller(b"\0asm an opponent", name="foe", origin=Origin.BASELINE)
    ids = []
    for name in ("zigbot-proved", "zigbot"):
        result = result_between(Entrant(name, SHA), opponent, replay=name.encode())
        ids.append(
            store.record_run(
                case_slug="foray",
                case_version=1,
                manifest_sha256="ab" * 32,
                controller=name,
                controller_sha256=SHA,
                outcome=RunOutcome.WIN,
                matches=[RunMatch("foe", Role.CANONICAL, result)],
            ).id
        )
    return ids[0], ids[1]


def test_arena_runs_and_runs_show_give_a_modules_first_name_beside_the_runs(
    capsys: Capture, data_dir: Path
) -> None:
    with Store.open(data_dir) as store:
        proved, same = _runs(store)
    listed = cli(capsys, "runs")
    assert listed.code == 0, listed.err
    assert "zigbot-proved (stored as zigbot)" in listed.out
    assert listed.out.count("stored as") == 1  # the run named as its module: one name
    rows = {r["run"]: r["controller"] for r in cli(capsys, "runs", "--json").json()["runs"]}
    assert rows[proved] == {"name": "zigbot-proved", "sha256": SHA, "stored_as": "zigbot"}
    assert rows[same] == {"name": "zigbot", "sha256": SHA}  # the design's keys alone
    shown = cli(capsys, "runs", "show", str(proved))
    assert shown.code == 0, shown.err
    assert f"controller zigbot-proved (stored as zigbot) (sha256 {SHA})" in shown.out
    assert cli(capsys, "runs", "show", str(proved), "--json").json()["controller"]["stored_as"] == (
        "zigbot"
    )
    assert "stored as" not in cli(capsys, "runs", "show", str(same)).out


@pytest.fixture
def client(tmp_path: Path) -> Iterator[tuple[web.Site, TestClient]]:
    with (
        web.Site.open(tmp_path / "data", limits=web.SiteLimits(workers=1), case=small_case()) as s,
        TestClient(web.site_app(s, SITE_TOKEN)) as c,
    ):
        yield s, c


@pytest.mark.processes
def test_the_sites_run_and_match_json_give_both_names_and_the_public_side_only_public_ones(
    client: tuple[web.Site, TestClient],
) -> None:
    site, http = client
    proved, _ = _runs(site.store)
    match_id = site.store.run_matches(proved)[0].id
    for headers in (AUTH, {}):
        # The public side, once the run is published: its first name, an upload's, is
        # published by nothing, so the public side names the module as its run does.
        stored_as = "zigbot" if headers else None
        if not headers:
            site.store.publish_run(proved)
        run = http.get(f"/api/runs/{proved}", headers=headers).json()
        assert run["controller"].get("stored_as") == stored_as
        listed = http.get("/api/runs", headers=headers).json()
        listed_run = next(r for r in listed if r["run"] == proved)
        assert listed_run["controller"].get("stored_as") == stored_as
        sides = http.get(f"/api/matches/{match_id}", headers=headers).json()["sides"]
        assert [(s["name"], s.get("stored_as")) for s in sides] == [
            ("zigbot-proved", stored_as),
            ("foe", None),
        ]
    # An upload's name that is not published is the console's: a published tournament
    # whose entrant ran under another name tells the public side that name alone.
    secret = site.store.add_controller(b"\0asm secret", name="secret", origin=Origin.UPLOAD)
    random = site.store.controller("random")
    t = site.store.create_tournament(
        "round-robin",
        [Entrant("alias", secret.sha256), Entrant("random", random.sha256)],
        seeds=[0],
    )
    played = site.store.record_match(
        result_between(Entrant("alias", secret.sha256), random, replay=b"t"),
        tournament_id=t.id,
        pairing_key="0",
    )
    site.store.publish_tournament(t.id)
    public = http.get(f"/api/matches/{played.id}").json()["sides"][0]
    console = http.get(f"/api/matches/{played.id}", headers=AUTH).json()["sides"][0]
    assert (public["name"], public.get("stored_as")) == ("alias", None)
    assert (console["name"], console["stored_as"]) == ("alias", "secret")
    listed = http.get(f"/api/matches?before={played.id + 1}&limit=1", headers=AUTH).json()
    assert listed[0]["sides"][0]["stored_as"] == "secret"


def test_a_module_stored_once_answers_its_first_name_only_where_asked(tmp_path: Path) -> None:
    with Store.open(tmp_path / "data") as store:
        _runs(store)
        hidden = store.add_controller(b"\0asm hid", name="hid", origin=Origin.BASELINE, hidden=True)
        assert store.stored_names([SHA, hidden.sha256, "ff" * 32]) == {
            SHA: "zigbot",
            hidden.sha256: "hid",
        }
        assert store.stored_names([SHA, hidden.sha256], published_only=True) == {}
        store.publish_run(store.runs()[-1].id)  # zigbot-proved's
        # Publicly, by the name its published run carries: its first name, an upload's, is
        # not published (nor would a local run's be).
        assert store.stored_names([SHA], published_only=True) == {SHA: "zigbot-proved"}
        public = [c for c in store.controllers(published_only=True) if c.sha256 == SHA]
        assert [c.name for c in public] == ["zigbot-proved"]
        assert store.controller(SHA).name == "zigbot"  # the console's name stays its first
        assert store.stored_names([]) == {}
        runs = store.runs()
        assert arena.stored_as_of(store, runs) == {runs[-1].id: "zigbot"}
