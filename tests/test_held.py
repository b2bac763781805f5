"""Modules held for review (issue 25): a worker's local run's module that the site fetched to
play it is stored marked, is never published, and goes, row and file, with the last quick match
that plays it once nothing else uses it. Over a real store (the site's end, with a real
``arena worker``: tests/test_workers.py)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from arena.match import MatchResult
from arena.store import (
    ControllerRecord,
    DroppedModule,
    Entrant,
    HeldModuleError,
    NotInStoreError,
    Origin,
    Role,
    RunMatch,
    RunOutcome,
    Store,
)
from tests._support import cli, result_between

BLOB = b"\0asm a worker's local run"
SHA = hashlib.sha256(BLOB).hexdigest()
NAME = f"bot@lab#{SHA[:8]}"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "data") as s:
        yield s


@pytest.fixture
def held(store: Store) -> ControllerRecord:
    return store.add_controller(BLOB, name=NAME, origin=Origin.UPLOAD, held_by="lab")


@pytest.fixture
def baseline(store: Store) -> ControllerRecord:
    return store.add_controller(b"a baseline", name="random", origin=Origin.BASELINE)


def _quick(store: Store, a: ControllerRecord, b: ControllerRecord, tag: str) -> int:
    return store.record_match(result_between(a, b, replay=tag.encode())).id


def _gone(store: Store) -> bool:
    try:
        store.controller(SHA)
    except NotInStoreError:
        return not store.module_path(SHA).exists() and SHA not in store.held_modules()
    return False


def test_a_held_module_goes_with_the_last_quick_match_that_plays_it(
    store: Store, held: ControllerRecord, baseline: ControllerRecord
) -> None:
    assert store.held_modules() == {SHA: "lab"} and held.origin is Origin.UPLOAD
    first = _quick(store, held, baseline, "first")
    second = _quick(store, baseline, held, "second")
    _quick(store, baseline, baseline, "third")
    assert [m.id for m in store.keep_quick_matches(2)] == [first]
    assert store.read_module_bytes(SHA) == BLOB  # the second match still plays it
    assert [m.id for m in store.keep_quick_matches(1)] == [second]
    assert _gone(store)
    # Fetched again later: stored and held again, under the same name.
    again = store.add_controller(BLOB, name=NAME, origin=Origin.UPLOAD, held_by="lab")
    assert again.name == NAME and store.read_module_bytes(SHA) == BLOB
    assert store.held_modules() == {SHA: "lab"}


def test_arena_prune_deletes_an_unused_held_module_too(
    store: Store, held: ControllerRecord, baseline: ControllerRecord
) -> None:
    _quick(store, held, baseline, "first")
    _quick(store, baseline, baseline, "second")
    dry = store.prune_matches(keep=1, dry_run=True)
    assert len(dry.matches) == 1 and store.read_module_bytes(SHA) == BLOB
    assert dry.held == (DroppedModule(SHA, NAME, "lab"),)  # said, not done
    assert store.held_modules() == {SHA: "lab"}
    pruned = store.prune_matches(keep=1)
    assert pruned.held == dry.held and pruned.to_json()["held"] == [
        {"sha256": SHA, "name": NAME, "worker": "lab"}
    ]
    assert _gone(store)
    assert store.prune_matches(keep=0, dry_run=True).held == ()  # nothing held is left


def test_a_dry_run_lists_no_held_module_another_match_still_plays(
    store: Store, held: ControllerRecord, baseline: ControllerRecord
) -> None:
    _quick(store, held, baseline, "first")
    _quick(store, baseline, held, "second")
    _quick(store, baseline, baseline, "third")
    assert store.prune_matches(keep=2, dry_run=True).held == ()  # "second" still plays it
    assert store.prune_matches(keep=1, dry_run=True).held == (DroppedModule(SHA, NAME, "lab"),)
    assert store.prune_matches(keep=2).held == () and store.read_module_bytes(SHA) == BLOB


def test_a_held_module_stays_while_a_tournament_a_pending_match_or_a_run_uses_it(
    store: Store, held: ControllerRecord, baseline: ControllerRecord
) -> None:
    me, other = Entrant(held.name, SHA), Entrant("random", baseline.sha256)
    t = store.create_tournament("round-robin", [me, other], seeds=[0], options={})
    pending = store.queue_match(me, other, seed=1)
    for i in range(3):
        _quick(store, baseline, baseline, f"quick {i}")
    store.keep_quick_matches(1)
    assert store.read_module_bytes(SHA) == BLOB and store.held_modules() == {SHA: "lab"}
    assert store.match(pending.id).entrants[0].sha256 == SHA
    assert store.tournament(t.id).field[0].sha256 == SHA


def test_a_module_chosen_again_after_its_last_match_was_made_is_kept_for_the_next(
    store: Store, held: ControllerRecord, baseline: ControllerRecord
) -> None:
    """The site chooses a stored held module (``touch_held``) before it writes the match that
    plays it: a retention in between, dropping an older match that played it, keeps it."""
    old = _quick(store, held, baseline, "old")
    _quick(store, baseline, baseline, "newer")
    assert store.touch_held(SHA) and not store.touch_held(baseline.sha256)
    assert [m.id for m in store.keep_quick_matches(1)] == [old]
    assert store.read_module_bytes(SHA) == BLOB
    new = _quick(store, held, baseline, "new")  # the match it was chosen for
    _quick(store, baseline, baseline, "last")
    store.keep_quick_matches(1)
    assert new not in {m.id for m in store.matches()} and _gone(store)


def test_a_held_module_deleted_between_its_file_and_its_row_is_written_again(
    store: Store,
    held: ControllerRecord,
    baseline: ControllerRecord,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Fetched again while the retention, in another process, deletes it: the row that is
    written never points at a missing file."""
    _quick(store, held, baseline, "first")
    _quick(store, baseline, baseline, "second")
    put_all = store._modules.put_all
    dropped: list[int] = []

    def stored_then_dropped(datas: Sequence[bytes], *, raw: bool = False) -> list[str]:
        shas = put_all(datas, raw=raw)
        if not dropped:
            with Store.open(store.root) as other:
                dropped.extend(m.id for m in other.keep_quick_matches(1))
        return shas

    monkeypatch.setattr(store._modules, "put_all", stored_then_dropped)
    store.add_controller(BLOB, name=NAME, origin=Origin.UPLOAD, held_by="lab")
    assert len(dropped) == 1
    assert store.read_module_bytes(SHA) == BLOB and store.held_modules() == {SHA: "lab"}


def _finished(store: Store, a: ControllerRecord, b: ControllerRecord) -> MatchResult:
    return result_between(a, b, replay=b"a run's match")


def test_what_plays_a_held_module_is_not_published_until_its_run_is_pushed(
    store: Store, held: ControllerRecord, baseline: ControllerRecord
) -> None:
    match = _quick(store, held, baseline, "quick")
    entrants = [Entrant(held.name, SHA), Entrant("random", baseline.sha256)]
    t = store.create_tournament("round-robin", entrants, seeds=[0], options={})
    with pytest.raises(HeldModuleError, match=f"match {match} plays '{NAME}'.*worker 'lab'"):
        store.publish_match(match)
    with pytest.raises(HeldModuleError, match=f"tournament {t.id} plays '{NAME}'"):
        store.publish_tournament(t.id)
    assert not store.match(match).published and not store.tournament(t.id).published
    # Pushed: a run built it, so it is the operator's, kept and publishable.
    store.record_run(
        case_slug="foray",
        case_version=1,
        manifest_sha256="ab" * 32,
        controller="bot",
        controller_sha256=SHA,
        outcome=RunOutcome.WIN,
        matches=[RunMatch("random", Role.CANONICAL, _finished(store, held, baseline))],
        module=BLOB,
        published=True,
    )
    assert store.held_modules() == {}
    assert store.publish_match(match).published and store.publish_tournament(t.id).published


def test_a_held_module_stored_on_purpose_is_released(store: Store, held: ControllerRecord) -> None:
    # Fetched again from its worker: still held (and chosen again).
    store.add_controller(BLOB, name="other", origin=Origin.UPLOAD, held_by="lab")
    assert store.held_modules() == {SHA: "lab"}
    # An upload of the same bytes: the operator's now; the first name stays.
    assert store.add_controller(BLOB, name="mine", origin=Origin.UPLOAD).name == NAME
    assert store.held_modules() == {}
    # A module stored on purpose is never held by a fetch after.
    store.add_controller(BLOB, name=NAME, origin=Origin.UPLOAD, held_by="lab")
    assert store.held_modules() == {}


def test_arena_prune_names_the_held_modules_it_deletes(
    store: Store,
    held: ControllerRecord,
    baseline: ControllerRecord,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("FORAY_DATA_DIR", str(tmp_path / "data"))
    _quick(store, held, baseline, "first")
    _quick(store, baseline, baseline, "second")
    dry = cli(capsys, "prune", "--keep", "1", "--dry-run")
    assert dry.code == 0, dry.err
    said = f"would delete 1 module held from workers that nothing uses any more: {NAME} from lab"
    assert said in dry.out and store.read_module_bytes(SHA) == BLOB
    done = cli(capsys, "prune", "--keep", "1", "--json")
    assert done.code == 0, done.err
    assert done.json()["held"] == [{"sha256": SHA, "name": NAME, "worker": "lab"}]
    assert _gone(store)
