"""``arena prune`` and ``--no-record`` on the command line, over a real data directory and
real matches (``Store.prune_matches`` itself: tests/test_store.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.store import Store
from tests._support import cli

Capture = pytest.CaptureFixture[str]


def _match(capsys: Capture, seed: int, *more: str) -> dict[str, object]:
    out = cli(
        capsys,
        "match",
        "random",
        "greedy-raider",
        "--seed",
        str(seed),
        "--max-ticks",
        "20",
        "--json",
        *more,
    )
    assert out.code == 0, out.err
    data: dict[str, object] = out.json()
    return data


def test_arena_prune_lists_then_deletes_quick_matches_and_their_replays(
    capsys: Capture, data_dir: Path
) -> None:
    played = [_match(capsys, seed) for seed in range(3)]
    replays = data_dir / "replays"
    assert len(list(replays.glob("*.replay"))) == 3
    dry = cli(capsys, "prune", "--keep", "1", "--dry-run")
    assert dry.code == 0, dry.err
    assert "would delete 2 quick matches (beyond the newest 1) and 2 replay files" in dry.out
    assert "nothing was deleted" in dry.out and len(list(replays.glob("*.replay"))) == 3
    listed = dry.out.splitlines()
    assert any(line.split()[:1] == [str(played[0]["id"])] for line in listed)
    data = cli(capsys, "prune", "--keep", "1", "--json").json()
    assert [m["id"] for m in data["matches"]] == [played[0]["id"], played[1]["id"]]
    assert data["replay_bytes"] == sum(r["bytes"] for r in data["replays"]) > 0
    assert not data["dry_run"]
    left = [p.name for p in replays.glob("*.replay")]
    assert left == [f"{played[2]['replay_sha256']}.replay"]
    with Store.open(data_dir) as store:
        assert [m.id for m in store.matches()] == [played[2]["id"]]
    later = cli(capsys, "prune", "--before", "2000-01-01")
    assert later.code == 0 and "deleted 0 quick matches" in later.out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "give --before DATE, --keep N or both"),
        (("--keep", "-1"), "is not a count"),
        (("--before", "yesterday"), "is not a date"),
    ],
)
def test_arena_prune_refuses_what_it_cannot_bound(
    capsys: Capture, args: tuple[str, ...], message: str
) -> None:
    out = cli(capsys, "prune", *args)
    assert out.code == 2 and message in out.err, out.err


def test_arena_match_no_record_stores_nothing(
    capsys: Capture, data_dir: Path, tmp_path: Path
) -> None:
    printed = cli(capsys, "match", "random", "greedy-raider", "--max-ticks", "20", "--no-record")
    assert printed.code == 0, printed.err
    assert "replay: not kept (--no-record" in printed.out
    replay = tmp_path / "kept.replay"
    data = _match(capsys, 0, "--no-record", "--replay", str(replay))
    assert data["id"] is None and data["replay"] == str(replay) and replay.is_file()
    recorded = _match(capsys, 0)  # the same match, recorded: the same JSON but its id
    assert {**recorded, "id": None, "replay": str(replay)} == data
    with Store.open(data_dir) as store:
        assert [m.id for m in store.matches()] == [recorded["id"]]
    assert len(list((data_dir / "replays").glob("*.replay"))) == 1
