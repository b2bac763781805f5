"""Tokens with roles (issue 25): stored as digests only, made and revoked by ``arena token``,
and every route of the site on one side, letting in only the roles of that side.

The route sweep runs over the app's own routes (``web.route_sides``), on a
site whose store is real but which starts no worker: a refusal (401, 403) is
answered before any handler runs, so nothing else is needed, and nothing is
stored.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

import arena
import web
from tests._support import ROOT, SITE_TOKEN, cli
from web._token import SIDE_ROLES, Keyring, Role, Side, new_token, token_digest

SHA = "0" * 64


@pytest.fixture
def store(tmp_path: Path) -> Iterator[arena.Store]:
    with arena.Store.open(tmp_path / "data") as opened:
        yield opened


def _make(store: arena.Store, role: arena.TokenRole, name: str) -> str:
    token = new_token()
    store.add_token(name, role, token_digest(token))
    return token


@pytest.fixture
def tokens(store: arena.Store) -> dict[arena.TokenRole, str]:
    return {role: _make(store, role, f"{role}-t") for role in Role}


@pytest.fixture
def bare(store: arena.Store) -> TestClient:
    """The site's app over a real store, its rooms never opened: only refusals can pass."""
    site = web.Site.__new__(web.Site)
    site.store = store
    return TestClient(web.site_app(site, SITE_TOKEN), raise_server_exceptions=False)


def _concrete(path: str) -> str:
    path = path.replace("{id:rowid}", "1").replace("{sha256:sha256}", SHA).replace("{path}", "x")
    return path.replace("{slug}", "foray").replace("{version:rowid}", "1")


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


# =========================================================================== the store


def test_the_store_keeps_digests_only_and_names_one_live_token(
    store: arena.Store, tmp_path: Path
) -> None:
    token = new_token()
    record = store.add_token("ci", Role.PUSH, token_digest(token))
    assert (record.name, record.role, record.revoked_at) == ("ci", Role.PUSH, None)
    assert record.digest == token_digest(token) and "digest" not in record.to_json()
    with pytest.raises(arena.ArenaError, match="'ci' is held by token"):
        store.add_token("ci", Role.CONSOLE, token_digest(new_token()))
    for bad in ("a\x1bb", "", "x\u202ey", "tab\there"):
        with pytest.raises(arena.ArenaError, match="token name"):
            store.add_token(bad, Role.PUSH, token_digest(new_token()))
    assert [t.name for t in store.tokens()] == ["ci"]
    revoked = store.revoke_token("ci")
    assert revoked.revoked_at is not None
    assert store.tokens(include_revoked=False) == []
    assert store.revoke_token(str(record.id)) == revoked  # revoked already: as it is
    with pytest.raises(arena.NotInStoreError, match="no token 'nope'"):
        store.revoke_token("nope")
    store.add_token("ci", Role.PUSH, token_digest(new_token()))  # the name is free again
    assert token.encode() not in (tmp_path / "data" / "arena.sqlite3").read_bytes()


def test_arena_token_prints_a_token_once_and_stores_its_digest(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORAY_DATA_DIR", str(tmp_path))
    made = cli(capsys, "token", "create", "--role", "worker", "--name", "lab-1")
    assert made.code == 0, made.err
    token = made.out.strip()
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", token) and "worker lab-1" in made.err
    listed = cli(capsys, "token", "list")
    assert "lab-1" in listed.out and "worker" in listed.out and token not in listed.out
    twice = cli(capsys, "token", "create", "--role", "push", "--name", "lab-1")
    assert twice.code == 2 and "is held by token" in twice.err
    assert cli(capsys, "token", "create", "--role", "push", "--name", "a-longer-name").code == 0
    rows = cli(capsys, "token", "list").out.splitlines()
    assert len(rows) == 2 and len({row.index("created") for row in rows}) == 1  # lined up
    bad = cli(capsys, "token", "create", "--role", "push", "--name", "a\x07b")
    assert bad.code == 2 and "control character" in bad.err and "\x07" not in bad.err
    role = cli(capsys, "token", "create", "--role", "admin")
    assert role.code == 2 and "invalid choice" in role.err
    with arena.Store.open(tmp_path) as store:
        record = store.tokens()[0]
        assert record.digest == token_digest(token)
    assert token.encode() not in (tmp_path / "arena.sqlite3").read_bytes()
    gone = cli(capsys, "token", "revoke", "lab-1")
    assert gone.code == 0 and "revoked" in gone.out
    unknown = cli(capsys, "token", "revoke", "9")
    assert unknown.code == 2 and "no token '9'" in unknown.err


# =========================================================================== the keyring


def test_the_keyring_knows_each_token_and_forgets_a_revoked_one(store: arena.Store) -> None:
    ring = Keyring(store, "quick-start-token", refresh=60.0)
    push = _make(store, Role.PUSH, "ci")
    quick = ring.identify("Bearer quick-start-token")
    assert quick is not None and quick.role is Role.CONSOLE and quick.token_id is None
    found = ring.identify(f"Bearer {push}")
    assert found is not None and (found.role, found.name) == (Role.PUSH, "ci")
    for wrong in (f"Basic {push}", f"Bearer {push}x", "Bearer", "Bearer quick-start", push):
        assert ring.identify(wrong) is None, wrong
    store.revoke_token("ci")
    ring.forget()
    assert ring.identify(f"Bearer {push}") is None


# =========================================================================== the routes' sides


def test_every_route_has_a_side_and_the_writes_are_not_public() -> None:
    table = web.route_sides()
    assert table, "no routes"
    sides = {(method, path): side for method, path, side in table}
    assert sides[("GET", "/")] is Side.PUBLIC
    assert sides[("GET", "/console")] is Side.CONSOLE
    assert sides[("POST", "/api/runs")] is Side.PUSH
    assert all(side is not Side.PUBLIC for (m, _), side in sides.items() if m != "GET")
    for method, path, side in table:
        if path.startswith("/api/"):
            op = web.openapi_document()["paths"][_doc(path)][method.lower()]
            assert op["x-side"] == side
            assert (op["security"] == [{"bearer": []}]) == (side is not Side.PUBLIC)
            assert ("403" in op["responses"]) == (side is not Side.PUBLIC)


def _doc(path: str) -> str:
    return re.sub(r"\{(\w+):\w+\}", r"{\1}", path)


def test_each_side_refuses_no_token_401_and_another_role_403(
    bare: TestClient, store: arena.Store, tokens: dict[arena.TokenRole, str]
) -> None:
    checked = 0
    for method, path, side in web.route_sides():
        if side is Side.PUBLIC or not path.startswith("/api/"):
            continue
        url = _concrete(path)
        r = bare.request(method, url)
        assert r.status_code == 401, (method, path, r.text)
        assert r.headers["www-authenticate"] == "Bearer"
        assert f"needs a {side} token" in r.json()["error"]
        for role, token in tokens.items():
            if role in SIDE_ROLES[side]:
                continue
            r = bare.request(method, url, headers=_bearer(token), content=b"{}")
            assert r.status_code == 403, (method, path, role, r.text)
            assert r.json()["error"] == f"a {role} token cannot do this: it needs a {side} token"
            checked += 1
        r = bare.request(method, url, headers=_bearer("not-a-token"))
        assert r.status_code == 401, (method, path)
    assert checked >= 5
    # Nothing was stored by any of them.
    assert store.controllers(include_hidden=True) == [] and store.matches() == []
    assert store.runs() == [] and store.tournaments() == []


@pytest.mark.slow
def test_a_revoked_token_is_refused_within_a_second(
    bare: TestClient, store: arena.Store, tokens: dict[arena.TokenRole, str]
) -> None:
    headers = _bearer(tokens[Role.PUSH])
    assert bare.post("/api/matches", headers=headers, json={}).status_code == 403
    store.revoke_token(f"{Role.PUSH}-t")
    deadline = time.monotonic() + 3.0
    while bare.post("/api/matches", headers=headers, json={}).status_code != 401:
        assert time.monotonic() < deadline, "the revoked token still opens the site"
        time.sleep(0.1)
    # A token made while the site runs is taken as soon.
    fresh = _make(store, Role.PUSH, "late")
    deadline = time.monotonic() + 3.0
    while bare.post("/api/matches", headers=_bearer(fresh), json={}).status_code != 403:
        assert time.monotonic() < deadline, "the new token is not taken"
        time.sleep(0.1)


def test_the_route_table_in_the_docs_is_the_apps() -> None:
    """docs/web.md's "Every route and its side" names every route of the app and its side."""
    lines = (ROOT / "docs" / "web.md").read_text(encoding="utf-8").splitlines()
    start = lines.index("### Every route and its side") + 1
    documented = []
    for line in lines[start:]:
        if line.startswith("#"):
            break
        row = re.fullmatch(r"\| `(GET|POST|DELETE) (\S+)` \| (\w+) \|", line)
        if row:
            documented.append((row[1], row[2], row[3]))
    app = [(method, _doc(path), str(side)) for method, path, side in web.route_sides()]
    assert documented == app


def test_a_worker_token_answers_for_its_own_worker_alone(
    store: arena.Store, tokens: dict[arena.TokenRole, str]
) -> None:
    """``require_worker``, what a worker's routes check: its token, and its name."""
    from starlette.requests import Request

    from web._errors import ApiError
    from web._guard import CALLER
    from web._http import require_worker

    ring = Keyring(store, SITE_TOKEN)

    def request(token: str | None) -> Request:
        caller = None if token is None else ring.identify(f"Bearer {token}")
        return Request({"type": "http", "headers": [], CALLER: caller})

    assert require_worker(request(tokens[Role.WORKER]), f"{Role.WORKER}-t").role is Role.WORKER
    for token, status, message in (
        (None, 401, "needs a worker token"),
        (tokens[Role.WORKER], 403, "answers for the worker 'worker-t', not 'other'"),
        (tokens[Role.CONSOLE], 403, "a console token cannot do this"),
        (SITE_TOKEN, 403, "a console token cannot do this"),
        (tokens[Role.PUSH], 403, "a push token cannot do this"),
    ):
        name = "other" if token == tokens[Role.WORKER] else f"{Role.WORKER}-t"
        with pytest.raises(ApiError) as refused:
            require_worker(request(token), name)
        assert refused.value.status == status and message in refused.value.message


def test_a_store_that_fails_keeps_the_tokens_read_last(store: arena.Store) -> None:
    """The guard runs before any route's error handling: a store that cannot be read then
    (closed here; busy or failing in life) keeps the last read, never an exception."""
    ring = Keyring(store, None, refresh=0.0)
    push = _make(store, Role.PUSH, "ci")
    assert ring.identify(f"Bearer {push}") is not None
    store.close()
    found = ring.identify(f"Bearer {push}")
    assert found is not None and found.name == "ci"
