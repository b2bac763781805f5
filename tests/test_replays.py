"""The replay reader, stream, re-simulation check and drawn states, on real replays.

Replays are recorded here by ``replays.Recorder`` (what ``run_match`` uses),
with a scripted policy and made-up fuel in place of wasm controllers, so no
wasm is needed. Tampering works on the wire objects: it is what a hostile file
can do.
"""

from __future__ import annotations

import copy
import io
import time
from collections.abc import Iterator
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import replays
import sim
from replays import (
    KEYFRAME_INTERVAL,
    DeltaFrame,
    ForfeitFrame,
    Header,
    KeyFrame,
    Replay,
    ReplayError,
    ReplayLimits,
    Result,
    frame_chunks,
    iter_replay,
    iter_states,
    read_replay,
    verify_replay,
)
from replays._format import memory_carried
from sim._native import _load as native
from tests._support import (
    LIMITS,
    PAGE,
    TESTS,
    Played,
    examples,
    pack,
    play_scripted as play,
    require_native,
)


@pytest.fixture(autouse=True, params=["native", "pure"])
def rules(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test here runs on both rules verify_replay re-simulates on: the native core
    and, with the core out of reach, the pure reference; both must say the same."""
    if request.param == "pure":
        monkeypatch.setattr(native, "_loaded", [None])
        monkeypatch.setattr(native, "_reason", ["turned off for this test"])
    else:
        require_native(native.load() is not None)
    rules: str = request.param
    return rules


def is_forfeit_wire(frame: dict[str, Any]) -> bool:
    """A forfeit tick's wire frame carries only t, a, f and x."""
    return "k" not in frame


def tampered(played: Played, edit: Any) -> bytes:
    """Deep-copy the wire objects, let ``edit(header, frames, result)`` change them, re-encode."""
    header, frames, result = copy.deepcopy((played.header, played.frames, played.result))
    edit(header, frames, result)
    return pack(header, frames, result)


FAULTS = st.sampled_from(["invalid_action", "trap", "fuel", "memory", "timeout"])
FORFEITS = st.one_of(st.none(), st.tuples(st.integers(0, 6), st.integers(0, 1), FAULTS))
LATE_FORFEITS = st.one_of(st.none(), st.tuples(st.integers(0, 70), st.integers(0, 1), FAULTS))


@pytest.fixture(scope="module")
def full() -> Played:
    """Keyframes at ticks 0, 20 and 40, delta frames between."""
    return play(7, max_ticks=45)


@pytest.fixture(scope="module")
def small() -> Played:
    return play(3, max_ticks=5, size=8)


# --------------------------------------------------------------------------- round trip


@settings(max_examples=examples(30), deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    max_ticks=st.integers(1, 25),
    forfeit=FORFEITS,
    init_forfeit=st.sampled_from([(False, False), (True, False), (False, True), (True, True)]),
)
def test_written_replays_read_back_and_verify(
    seed: int,
    max_ticks: int,
    forfeit: tuple[int, int, str] | None,
    init_forfeit: tuple[bool, bool],
) -> None:
    played = play(seed, max_ticks, forfeit=forfeit, init_forfeit=init_forfeit)
    replay = read_replay(played.data)
    # Typed records give back the very wire objects they were read from.
    assert replay.header.to_wire() == played.header
    assert [f.to_wire() for f in replay.frames] == played.frames
    assert replay.result.to_wire() == played.result
    assert replay.header.seed == seed and replay.header.case == replays.CaseRef("foray", 1)
    assert replay.ticks == played.result["ticks"] == len(replay.frames)
    assert replay.config == sim.Config.from_mapping(played.header["config"])
    assert replay.game_map == sim.generate_map(seed, 16, 16)
    report = verify_replay(played.data)
    assert report.ok, report.detail
    assert (report.ticks, report.mismatch_tick, report.detail) == (replay.ticks, None, None)
    assert report.to_json() == {"ok": True, "ticks": replay.ticks, "mismatch_tick": None}


def test_the_full_fixture_has_keyframes_and_deltas(full: Played) -> None:
    frames = read_replay(full.data).frames
    assert full.result["ticks"] == 45 and not any(isinstance(f, ForfeitFrame) for f in frames)
    assert [f.tick for f in frames if isinstance(f, KeyFrame)] == [0, 20, 40]
    assert KEYFRAME_INTERVAL == 20
    deltas = [f for f in frames if isinstance(f, DeltaFrame)]
    assert len(deltas) == 42 and all(type(m) is bytes for f in deltas for m in f.moves)
    assert any(f.changes[0] or f.changes[1] for f in deltas)
    assert any(f.events.spawns for f in deltas)


def test_the_scenarios_cover_every_ending() -> None:
    assert play(1, 4).result["reason"] in ("score", "fuel", "draw")
    forfeited = play(1, 9, forfeit=(3, 1, "invalid_action"))
    assert forfeited.result["winner"] == 0 and forfeited.result["ticks"] == 4
    frames = read_replay(forfeited.data).frames
    assert isinstance(frames[-1], ForfeitFrame) and frames[-1].actions[1]
    assert not any(isinstance(f, ForfeitFrame) for f in frames[:-1])
    at_init = play(1, 9, init_forfeit=(True, True))
    assert at_init.frames == [] and at_init.result["winner"] is None
    assert verify_replay(at_init.data).ok


def test_iter_replay_yields_objects_in_order(small: Played) -> None:
    kinds = [type(obj) for obj in iter_replay(small.data)]
    assert kinds == [Header, KeyFrame] + [DeltaFrame] * (len(small.frames) - 1) + [Result]


class Trickle(io.BytesIO):
    """A stream that returns at most 3 bytes per read, as a slow socket might."""

    def read(self, size: int | None = -1) -> bytes:
        return super().read(3 if size is None or size < 0 else min(size, 3))


def test_streams_read_like_bytes(full: Played) -> None:
    assert read_replay(Trickle(full.data)) == read_replay(full.data)
    assert read_replay(io.BytesIO(full.data)) == read_replay(full.data)
    assert verify_replay(Trickle(full.data)).ok


def test_frame_chunks_are_the_objects_raw_bytes(full: Played) -> None:
    chunks = list(frame_chunks(full.data))
    assert b"".join(chunks) == full.data
    assert len(chunks) == 2 + len(full.frames)
    assert [msgpack.unpackb(c, raw=False) for c in chunks[1:-1]] == full.frames
    assert list(frame_chunks(Trickle(full.data))) == chunks


def test_frame_chunks_stop_at_the_first_bad_object(full: Played) -> None:
    data = tampered(full, lambda h, f, r: f[3].update(t=9))
    got: list[bytes] = []
    with pytest.raises(ReplayError, match="frame of tick 3") as err:
        got.extend(frame_chunks(data))
    assert err.value.tick == 3
    assert len(got) == 4  # the header and the frames of ticks 0..2


def test_the_same_scripted_game_writes_the_same_bytes() -> None:
    assert play(11, 10).data == play(11, 10).data
    assert play(11, 10).data != play(12, 10).data


# --------------------------------------------------------------------------- drawn states


@settings(max_examples=examples(30), deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    max_ticks=st.integers(1, 70),
    size=st.sampled_from([8, 12, 16]),
    forfeit=LATE_FORFEITS,
    fierce=st.booleans(),
)
def test_iter_states_draws_the_true_state_after_every_applied_tick(
    seed: int, max_ticks: int, size: int, forfeit: tuple[int, int, str] | None, fierce: bool
) -> None:
    played = play(seed, max_ticks, size, forfeit=forfeit, fierce=fierce)
    states = list(iter_states(read_replay(played.data)))
    applied = [f["t"] for f in played.frames if not is_forfeit_wire(f)]
    assert [state.tick for state in states] == applied == list(range(len(applied)))
    assert states == played.truth


def test_fierce_games_draw_deaths_and_sweeps() -> None:
    """The property above sees units die (drop the dead) and colonies fall."""
    played = play(1, 70, 12, fierce=True)
    assert played.result["reason"] == "sweep" and played.result["ticks"] > 2 * KEYFRAME_INTERVAL
    assert sum(len(f["v"][1]) for f in played.frames) >= 10
    assert list(iter_states(read_replay(played.data))) == played.truth
    assert verify_replay(played.data).ok


def test_iter_states_shapes(full: Played) -> None:
    replay = read_replay(full.data)
    states = list(iter_states(replay))
    assert len(states) == 45
    state = states[30]
    assert len(state.ore) == 16 * 16
    for units in state.units:
        assert [u.id for u in units] == sorted(u.id for u in units)
        assert all(u == tuple(u) and len(u) == 6 for u in units)
    # A match that ends in a forfeit draws nothing for the unapplied tick.
    forfeited = play(5, 30, forfeit=(22, 0, "trap"))
    drawn = list(iter_states(read_replay(forfeited.data)))
    assert [s.tick for s in drawn] == list(range(22)) and drawn == forfeited.truth


def misfit(played: Played, edit: Any) -> ReplayError:
    """The error iter_states raises on a tampered (but well-formed) replay."""
    replay = read_replay(tampered(played, edit))
    with pytest.raises(ReplayError) as err:
        list(iter_states(replay))
    return err.value


def test_iter_states_refuses_deltas_that_do_not_fit(full: Played) -> None:
    frames = full.frames
    k = _first(frames, "m", 1)
    extra = misfit(full, lambda h, f, r: f[k]["m"].__setitem__(0, f[k]["m"][0] + b"\x00"))
    assert extra.tick == k
    assert f"frame of tick {k}: field 'm[0]'" in str(extra) and "surviving" in str(extra)
    short = misfit(full, lambda h, f, r: f[k]["m"].__setitem__(0, f[k]["m"][0][1:]))
    assert short.tick == k and "'m[0]'" in str(short)

    stranger = misfit(full, lambda h, f, r: f[3]["h"].__setitem__(1, [999, 1, 0]))
    assert stranger.tick == 3
    assert "frame of tick 3: field 'h[1][0:3]': unit 999 is not a surviving unit" in str(stranger)

    ghost = misfit(full, lambda h, f, r: f[2]["v"][1].extend([1, 999]))
    assert ghost.tick == 2 and "'v.deaths[0]'" in str(ghost) and "999" in str(ghost)

    # A spawned id must be new: above every living id of its side.
    again = misfit(full, lambda h, f, r: f[4]["v"][2].extend([0, 1, sim.WORKER, 0]))
    assert again.tick == 4 and "'v.spawns[" in str(again) and "not above" in str(again)

    # Off the map: the first unit put on the west edge by the keyframe, then moved west.
    def west(h: Any, f: Any, r: Any) -> None:
        f[0]["u"][0][2] = 0
        f[1]["m"][0] = b"\x04" + f[1]["m"][0][1:]

    edge = misfit(full, west)
    assert edge.tick == 1 and "'m[0][0]'" in str(edge) and "off the map" in str(edge)


def test_a_keyframe_resets_the_drawn_units(full: Played) -> None:
    """A viewer seeking to a keyframe needs no delta before it: its units are whole."""
    replay = read_replay(full.data)
    states = list(iter_states(replay))
    # Deltas before tick 20 that do not fit would raise; a keyframe at 20 replaces them.
    cut = Replay(replay.header, replay.frames[20:], replay.result)
    ore_free = [(s.tick, s.units, s.colony_hp, s.banked, s.energy) for s in states[20:]]
    assert [(s.tick, s.units, s.colony_hp, s.banked, s.energy) for s in iter_states(cut)] == (
        ore_free
    )
    assert all(isinstance(f, DeltaFrame) for f in replay.frames[21:40])


# --------------------------------------------------------------------------- verify


@pytest.mark.parametrize("k", [0, 5, 20, 33, 44])
def test_verify_finds_a_corrupted_checksum(full: Played, k: int) -> None:
    data = tampered(full, lambda h, f, r: f[k].update(x=f[k]["x"] ^ 1))
    report = verify_replay(data)
    assert (report.ok, report.mismatch_tick, report.ticks) == (False, k, k)
    assert report.detail is not None and f"tick {k}" in report.detail
    assert "checksum" in report.detail


def test_verify_finds_a_tampered_action(full: Played) -> None:
    found = 0
    # A keyframe and the delta frames around it (all of them would be slow).
    for k in (*range(0, 6), *range(18, 23)):
        frame = full.frames[k]
        for s in (0, 1):
            flat = frame["a"][s]
            for i in range(0, len(flat), 2):
                if flat[i + 1] >> 3 not in (sim.MOVE, sim.SPAWN):
                    continue

                def edit(h: Any, f: Any, r: Any, k: int = k, s: int = s, i: int = i) -> None:
                    f[k]["a"][s][i + 1] = sim.NOOP * 8

                report = verify_replay(tampered(full, edit))
                # A NOOP in place of a move that was blocked changes nothing; any
                # other change shows at that very tick.
                assert report.mismatch_tick in (None, k)
                assert report.ok == (report.mismatch_tick is None)
                found += not report.ok
    assert found > 5


def test_verify_finds_an_invalid_action_in_an_applied_tick(full: Played) -> None:
    data = tampered(full, lambda h, f, r: f[4]["a"][1].extend([999, sim.NOOP * 8]))
    report = verify_replay(data)
    assert (report.ok, report.mismatch_tick) == (False, 4)
    assert report.detail is not None and "invalid" in report.detail
    # A packed action whose arg is out of its op's range decodes, and is invalid.
    data = tampered(full, lambda h, f, r: f[24]["a"][0].extend([0, sim.SPAWN * 8 + 7]))
    report = verify_replay(data)
    assert (report.ok, report.mismatch_tick) == (False, 24)
    assert report.detail is not None and "SPAWN takes an arg in 1..2, got 7" in report.detail


def _first(frames: list[dict[str, Any]], key: str, start: int) -> int:
    """The first frame at or after ``start`` whose ``key`` has something for side 0."""
    return next(k for k in range(start, len(frames)) if frames[k].get(key, [b""])[0])


def _turn_back(moves: bytes) -> bytes:
    """The first unit's move changed (stayed <-> went north): the checksum is untouched."""
    return bytes([1 if moves[0] == 0 else 0]) + moves[1:]


def test_verify_finds_tampered_drawn_state(full: Played) -> None:
    """Drawn fields are checked beyond the checksum: every one that a viewer draws from."""
    frames = full.frames
    m = _first(frames, "m", 1)
    h = _first(frames, "h", 1)
    edits: list[tuple[int, str, Any]] = [
        # The first unit's hp in a keyframe: not in the checksum, but drawn.
        (20, "u", lambda f: f[20]["u"][0].__setitem__(4, f[20]["u"][0][4] + 1)),
        (m, "m", lambda f: f[m]["m"].__setitem__(0, _turn_back(f[m]["m"][0]))),
        (h, "h", lambda f: f[h]["h"][0].__setitem__(2, f[h]["h"][0][2] + 1)),
        (7, "b", lambda f: f[7]["b"].__setitem__(1, f[7]["b"][1] + 1)),
        (27, "o", lambda f: f[27]["o"].extend([255, 1])),
        (9, "v", lambda f: f[9]["v"][0].extend([0, 1, 0])),
    ]
    for k, key, edit in edits:
        report = verify_replay(tampered(full, lambda hd, f, r, edit=edit: edit(f)))
        assert (report.ok, report.mismatch_tick, report.ticks) == (False, k, k), key
        assert report.detail is not None and f"field {key!r}" in report.detail, report.detail
        assert "checksum" not in report.detail


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (lambda r: r.update(winner=None if r["winner"] is not None else 0), "winner"),
        (lambda r: r.update(reason="sweep"), "reason"),
        (lambda r: r["sides"][1].update(banked=r["sides"][1]["banked"] + 1), "banked"),
        (lambda r: r["sides"][0].update(fuel_peak=r["sides"][0]["fuel_peak"] + 1), "fuel_peak"),
        (lambda r: r["sides"][0].update(fuel_total=0), "fuel_total"),
        (
            lambda r: r["sides"][0].update(forfeit={"tick": 11, "kind": "trap", "detail": ""}),
            "forfeit",
        ),
    ],
)
def test_verify_finds_a_tampered_result(full: Played, edit: Any, field: str) -> None:
    report = verify_replay(tampered(full, lambda h, f, r: edit(r)))
    assert not report.ok and report.mismatch_tick is None
    assert report.detail is not None and report.detail.startswith("result")
    assert field in report.detail


def test_verify_checks_forfeits_against_the_actions() -> None:
    played = play(5, 9, forfeit=(2, 0, "invalid_action"))
    assert verify_replay(played.data).ok
    # The invalid record removed: the forfeit is no longer one the contract calls.
    fixed = tampered(played, lambda h, f, r: f[2]["a"][0].__delitem__(slice(-3, None)))
    report = verify_replay(fixed)
    assert (report.ok, report.mismatch_tick) == (False, 2)
    # A fault that returned nothing cannot have recorded actions.
    trapped = play(5, 9, forfeit=(2, 1, "trap"))
    bad = tampered(trapped, lambda h, f, r: f[2]["a"][1].extend([0, sim.NOOP, 0]))
    assert verify_replay(bad).mismatch_tick == 2
    # A forfeit frame with no forfeit in the result.
    gone = tampered(trapped, lambda h, f, r: r["sides"][1].update(forfeit=None))
    assert verify_replay(gone).mismatch_tick == 2


def test_verify_checks_fuel_against_the_budget(full: Played) -> None:
    over = tampered(full, lambda h, f, r: f[3]["f"].__setitem__(1, LIMITS["fuel_per_tick"] + 1))
    report = verify_replay(over)
    assert report.mismatch_tick == 3 and report.detail is not None
    assert "fuel_per_tick" in report.detail
    trapped = play(5, 9, forfeit=(2, 1, "trap"))
    cheap = tampered(trapped, lambda h, f, r: f[2]["f"].__setitem__(1, 5))
    assert verify_replay(cheap).mismatch_tick == 2


def test_verify_finds_a_match_cut_short(full: Played) -> None:
    def edit(h: Any, f: Any, r: Any) -> None:
        del f[-1]
        r["ticks"] -= 1

    report = verify_replay(tampered(full, edit))
    assert not report.ok and report.detail is not None and "goes on" in report.detail
    assert report.ticks == len(full.frames) - 1


@pytest.mark.parametrize("key", ["rules_version", "generator_version"])
def test_verify_refuses_other_versions(small: Played, key: str) -> None:
    data = tampered(small, lambda h, f, r: h.update({key: h[key] + 1}))
    read_replay(data)  # well formed: a viewer may still show it
    report = verify_replay(data)
    assert not report.ok and report.detail is not None and key in report.detail


def test_verify_refuses_a_map_that_breaks_the_rules(small: Played) -> None:
    def edit(h: Any, f: Any, r: Any) -> None:
        h["map"]["ore"][0] += 1  # breaks point symmetry

    report = verify_replay(tampered(small, edit))
    assert not report.ok and report.detail is not None and "'map'" in report.detail


@pytest.mark.parametrize(
    ("name", "ticks", "method"),
    [
        ("busy-vs-idle-seed77-v2.replay", 60, "checksum"),
        ("busy-vs-idle-seed77-v1.replay", 60, "checksum_v1"),
        ("forfeit", 4, "checksum"),
        ("init-forfeit", 0, "checksum"),
    ],
)
def test_verify_computes_the_checksum_once_a_tick(
    monkeypatch: pytest.MonkeyPatch, name: str, ticks: int, method: str
) -> None:
    """The checksum is the bulk of a tick's verification: once per frame, never twice."""
    if name == "forfeit":
        data = play(1, 9, forfeit=(3, 1, "invalid_action")).data
    elif name == "init-forfeit":
        data = play(1, 9, init_forfeit=(True, False)).data
    else:
        data = (TESTS / "golden" / name).read_bytes()
    calls = {"checksum": 0, "checksum_v1": 0}
    for counted in calls:
        original = getattr(sim.Game, counted)

        def counting(game: sim.Game, *args: Any, _f: Any = original, _n: str = counted) -> int:
            calls[_n] += 1
            return int(_f(game, *args))

        monkeypatch.setattr(sim.Game, counted, counting)
    report = verify_replay(data, native=False)  # the reference's checksums are counted
    assert report.ok and report.ticks == ticks, report.detail
    assert calls == {"checksum": 0, "checksum_v1": 0, method: ticks}


def test_verify_reports_a_malformed_file_with_its_tick(full: Played) -> None:
    data = tampered(full, lambda h, f, r: f[7].update(k="x"))
    report = verify_replay(data)
    assert not report.ok and report.ticks == 7 and report.mismatch_tick is None
    assert report.detail is not None and "frame of tick 7" in report.detail


# --------------------------------------------------------------------------- schema


def test_a_bad_config_is_refused_by_name(small: Played) -> None:
    data = tampered(small, lambda h, f, r: h["config"].update(max_units=999))
    with pytest.raises(ReplayError, match="header: field 'config': max_units = 999"):
        read_replay(data)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda h, f, r: h.update(version=4), "format version 4 is not supported"),
        (lambda h, f, r: h.update(format="other"), "field 'format'"),
        (lambda h, f, r: h.update(extra=1), "unknown key.*extra"),
        (lambda h, f, r: h.pop("seed"), "missing key.*seed"),
        (lambda h, f, r: h["map"].update(rock=b"\x02" * 64), "map.rock"),
        (lambda h, f, r: h["map"].update(width=9), "map"),
        (lambda h, f, r: h["sides"][1].update(sha256="A" * 64), r"sides\[1\].sha256"),
        (lambda h, f, r: f[2].update(t=3), "frame of tick 2: field 't'"),
        (
            lambda h, f, r: f[0]["u"][0].__setitem__(0, 99),
            r"tick 0: field 'u\[0\]\[6:12\]'.*ascend",
        ),
        (lambda h, f, r: f[0]["u"][0].__setitem__(2, 8), r"not a cell"),
        (lambda h, f, r: f[1]["a"][0].append(1), r"a\[0\]'.*whole number of 2-value"),
        (lambda h, f, r: f[1]["a"][0].extend([0, 0] * 66), r"a\[0\]'.*over the bound 98"),
        (lambda h, f, r: f[1]["a"][0].extend([0, 48]), r"a\[0\]\[\d+\]'.*packed action 48"),
        (lambda h, f, r: f[1]["a"][0].extend([0, -1]), r"a\[0\]\[\d+\]'.*packed action -1"),
        (lambda h, f, r: f[1].pop("k"), "frame of tick 1: field '': no key k, so .*forfeit"),
        (lambda h, f, r: f[0].pop("u"), "frame of tick 0: field '': missing key.*u"),
        (lambda h, f, r: f[2].pop("h"), "frame of tick 2: field '': missing key.*h"),
        (
            lambda h, f, r: f[0].update(m=f[0].pop("u")),
            "frame of tick 0: field 'm': tick 0 is a keyframe tick",
        ),
        (
            lambda h, f, r: f[0].update(h=[[], []]),
            "frame of tick 0: field 'h': tick 0 is a keyframe tick",
        ),
        (
            lambda h, f, r: (f[3].pop("m"), f[3].pop("h"), f[3].update(u=[[], []])),
            "frame of tick 3: field 'u': tick 3 is a delta tick",
        ),
        (lambda h, f, r: f[1]["m"].__setitem__(0, b"\x00\x05"), r"'m\[0\]\[1\]'.*direction 5"),
        (lambda h, f, r: f[1]["m"].__setitem__(1, [0]), r"'m\[1\]'.*expected binary"),
        (lambda h, f, r: f[1]["m"].__setitem__(0, bytes(49)), r"'m\[0\]'.*over the bound 48"),
        (lambda h, f, r: f[1].update(m=[b""]), r"'m'.*expected 2 elements"),
        (lambda h, f, r: f[1]["h"].__setitem__(0, [2, 1, 0, 1, 1, 0]), r"'h\[0\]\[3:6\]'.*ascend"),
        (lambda h, f, r: f[1]["h"].__setitem__(0, [1, 0, 0]), r"'h\[0\]\[0:3\]'.*hp >= 1"),
        (lambda h, f, r: f[1]["h"].__setitem__(1, [1, 1, -1]), r"'h\[1\]\[0:3\]'.*carry >= 0"),
        (lambda h, f, r: f[1]["h"].__setitem__(1, [1, 1]), r"'h\[1\]'.*3-value"),
        (lambda h, f, r: f[1]["v"].__setitem__(2, [0, 9, 1]), r"'v.spawns'.*4-value"),
        (lambda h, f, r: f[1]["v"].__setitem__(2, [0, 9, 1, 64]), r"'v.spawns\[3\]'.*off the map"),
        (lambda h, f, r: f[1]["v"].__setitem__(2, [0, 9, 3, 9]), r"'v.spawns\[2\]'.*kind 3"),
        (lambda h, f, r: f[1]["v"].__setitem__(2, [2, 9, 1, 9]), r"'v.spawns\[0\]'.*side 2"),
        (lambda h, f, r: f[1].update(x=-1), "field 'x'"),
        (lambda h, f, r: f[1].update(x=True), "field 'x'"),
        (lambda h, f, r: r.update(ticks=3), "result: field 'ticks'"),
        (lambda h, f, r: r.update(reason="luck"), "result: field 'reason'"),
        (lambda h, f, r: r.update(type="other"), "result: field 'type'"),
        (
            lambda h, f, r: r["sides"][0].update(forfeit={"tick": 1, "kind": "x", "detail": ""}),
            r"sides\[0\].forfeit.kind",
        ),
        (lambda h, f, r: f.append(f[-1]), "frame of tick 5: more frames than max_ticks"),
    ],
)
def test_schema_faults_name_the_object_and_field(small: Played, edit: Any, message: str) -> None:
    with pytest.raises(ReplayError, match=message):
        read_replay(tampered(small, edit))


def test_a_forfeit_frame_must_be_the_last() -> None:
    played = play(5, 9, forfeit=(2, 0, "trap"))
    extra = {**played.frames[0], "t": 3}
    data = tampered(played, lambda h, f, r: (f.append(extra), r.update(ticks=4)))
    with pytest.raises(ReplayError, match="frame of tick 3: the frame of a forfeit tick"):
        read_replay(data)


def test_stream_faults_name_where(small: Played) -> None:
    with pytest.raises(ReplayError, match="empty"):
        read_replay(b"")
    with pytest.raises(ReplayError, match="trailing data after the result"):
        read_replay(small.data + b"\x00")
    with pytest.raises(ReplayError, match="trailing data after the result"):
        read_replay(small.data + b"\xdd")
    cut = len(small.data) - len(list(frame_chunks(small.data))[-1])
    with pytest.raises(ReplayError, match="no result object after the frame of tick 4"):
        read_replay(small.data[:cut])
    with pytest.raises(ReplayError, match="ends inside the object after the frame of tick 4"):
        read_replay(small.data[: cut + 3])
    with pytest.raises(ReplayError, match="ends inside the header"):
        read_replay(small.data[:10])


def test_limits_bound_the_file(full: Played) -> None:
    with pytest.raises(ReplayError, match="max_bytes"):
        read_replay(full.data, ReplayLimits(max_bytes=len(full.data) - 1))
    with pytest.raises(ReplayError, match="max_bytes"):
        read_replay(io.BytesIO(full.data), ReplayLimits(max_bytes=len(full.data) - 1))
    assert read_replay(full.data, ReplayLimits(max_bytes=len(full.data))).ticks == 45
    with pytest.raises(ReplayError, match="frame of tick 5: more frames") as err:
        read_replay(full.data, ReplayLimits(max_frames=5))
    assert err.value.tick == 5
    with pytest.raises(ReplayError, match="max_object_bytes"):
        read_replay(full.data, ReplayLimits(max_object_bytes=256))
    with pytest.raises(ValueError, match="max_str"):
        ReplayLimits(max_str=0)


# --------------------------------------------------------------------------- hostile bytes


def read_or_refuse(data: bytes, limits: ReplayLimits | None = None) -> Replay | None:
    """The reader's whole contract on untrusted bytes: a valid replay or a ReplayError."""
    started = time.monotonic()
    try:
        replay = read_replay(data, limits or ReplayLimits())
    except ReplayError as exc:
        assert str(exc)
        replay = None
    report = verify_replay(data)
    assert report.ok is False or replay is not None
    assert time.monotonic() - started < 5
    return replay


@settings(max_examples=examples(300), deadline=None)
@given(st.binary(max_size=2048))
def test_random_bytes_are_refused(data: bytes) -> None:
    # No replay is this short and random: a valid header alone takes more structure.
    assert read_or_refuse(data) is None


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_bytes_after_a_good_header_are_refused(data: st.DataObject) -> None:
    # A replay needs frames whose checksums re-simulate and a result after them: no
    # random tail of 512 bytes is that, so every one is refused, after the header.
    head = next(frame_chunks(play(2, 3, size=8).data))
    tail = data.draw(st.binary(max_size=512))
    assert read_or_refuse(head + tail) is None
    with pytest.raises(ReplayError) as refused:
        read_replay(head + tail)
    assert not str(refused.value).startswith("header"), str(refused.value)


def test_every_truncation_is_refused(small: Played) -> None:
    for end in range(len(small.data)):
        with pytest.raises(ReplayError):
            read_replay(small.data[:end])
        assert not verify_replay(small.data[:end]).ok


@settings(max_examples=examples(300), deadline=None)
@given(position=st.integers(0, 10**9), flip=st.integers(1, 255))
def test_byte_flips_are_refused_or_read(small: Played, position: int, flip: int) -> None:
    data = bytearray(small.data)
    data[position % len(data)] ^= flip
    read_or_refuse(bytes(data))


def test_a_sides_records_that_are_not_a_list_are_refused(small: Played) -> None:
    """A byte flip once turned a side's applied records into a float (found by the test
    above): the verifier's fast path handed it to the native core, which raised."""
    frames = list(msgpack.Unpacker(io.BytesIO(small.data), raw=False, strict_map_key=False))
    tick = next(f for f in frames if isinstance(f, dict) and "k" in f and "a" in f)
    tick["a"][1] = 1.5
    data = b"".join(msgpack.packb(f, use_bin_type=True) for f in frames)
    assert read_or_refuse(data) is None
    assert not verify_replay(data).ok


HUGE = [
    b"\xdd\x80\x00\x00\x00",  # array32 of 2**31
    b"\xdd\xff\xff\xff\xff",  # array32 of 2**32 - 1
    b"\xdf\x80\x00\x00\x00",  # map32
    b"\xc6\x80\x00\x00\x00",  # bin32
    b"\xdb\x80\x00\x00\x00",  # str32
    b"\xc9\x80\x00\x00\x00\x01",  # ext32
    b"\xdc\xff\xff",  # array16 of 65535
    b"\xde\xff\xff",  # map16 of 65535
    b"\xc6\x00\x00\x0f\xa0",  # bin32 of 4000 (within bounds) and then nothing
]


@pytest.mark.parametrize("declared", HUGE)
def test_huge_declared_lengths_are_refused(small: Played, declared: bytes) -> None:
    head = next(frame_chunks(small.data))
    for data in (
        declared,
        b"\x81\xa4type" + declared,  # inside the header
        head + b"\x81\xa1t" + declared,  # inside a frame
        head + b"\x81\xa1a\x92" + declared,  # deeper in a frame
        small.data + declared,  # after the result
    ):
        with pytest.raises(ReplayError):
            read_replay(data)
        with pytest.raises(ReplayError):
            read_replay(Trickle(data))
        assert not verify_replay(data).ok


@pytest.mark.parametrize(
    "nested",
    [
        b"\x91" * 200_000 + b"\x00",
        b"\x81\xa1a" * 100_000 + b"\xc0",
        b"\xdd\x00\x00\x00\x01" * 50_000,
    ],
)
def test_deep_nesting_is_refused(small: Played, nested: bytes) -> None:
    head = next(frame_chunks(small.data))
    for data in (nested, head + nested):
        with pytest.raises(ReplayError):
            read_replay(data)


def leaves(obj: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every (path, value) in an object: dict entries, the first element of lists, the lists."""
    if path:
        yield path, obj
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield from leaves(value, (*path, key))
    elif isinstance(obj, list) and obj:
        yield from leaves(obj[0], (*path, 0))


def wrong(path: tuple[Any, ...], value: Any) -> Any:
    if path == ("case", "version"):
        return None  # a case version may be a string or an integer
    return 7 if isinstance(value, str) else "x"


def named(path: tuple[Any, ...]) -> str:
    """The last map key on the path: the field the message must name."""
    return str([p for p in path if isinstance(p, str)][-1])


def test_wrong_types_in_every_field_are_refused_by_name() -> None:
    played = play(4, 6, size=8, forfeit=(3, 1, "invalid_action"))
    forfeited = copy.deepcopy(played.result)
    forfeited["sides"][0]["forfeit"] = {"tick": 3, "kind": "trap", "detail": "d"}
    targets: list[tuple[str, int, dict[str, Any]]] = [
        ("header", 0, played.header),
        ("frame", 0, played.frames[0]),  # a keyframe
        ("frame", 2, played.frames[2]),  # a delta frame
        ("frame", 3, played.frames[3]),  # a forfeit frame
        ("result", 0, forfeited),
    ]
    count = 0
    for kind, index, obj in targets:
        for path, value in list(leaves(obj)):
            header, frames, result = copy.deepcopy((played.header, played.frames, forfeited))
            target = {"header": header, "frame": frames[index], "result": result}[kind]
            *parents, last = path
            holder = target
            for p in parents:
                holder = holder[p]
            holder[last] = wrong(path, value)
            with pytest.raises(ReplayError) as err:
                read_replay(pack(header, frames, result))
                pytest.fail(f"{kind} {path}: {wrong(path, value)!r} was accepted")
            assert named(path) in str(err.value), (path, str(err.value))
            if kind == "frame":
                assert err.value.tick == index
            count += 1
    assert count > 70


# --------------------------------------------------------------------------- proved alone


def test_verify_adds_up_each_sides_fuel(full: Played) -> None:
    """fuel_total less the frames' fuel is the init charge: within 0..init_fuel."""
    over = tampered(full, lambda h, f, r: r["sides"][0].update(fuel_total=10**12))
    report = verify_replay(over)
    assert not report.ok and report.detail is not None and "init charge" in report.detail
    failed = play(4, 5, init_forfeit=(True, False))
    cheap = tampered(failed, lambda h, f, r: r["sides"][0].update(fuel_total=5))
    report = verify_replay(cheap)
    assert report.detail is not None and "a failed init is charged all of" in report.detail


def test_an_init_timeout_verifies() -> None:
    failed = play(4, 5, init_forfeit=(True, False))

    def timeout(h: Any, f: Any, r: Any) -> None:
        r["sides"][0]["forfeit"].update(kind="timeout", detail="init exceeded the backstop")

    assert verify_replay(tampered(failed, timeout)).ok


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (lambda lims: lims.pop("init_fuel"), "missing init_fuel"),
        (lambda lims: lims.update(extra=1), "unknown extra"),
        (lambda lims: lims.update(fuel_per_tick=0), "limits.fuel_per_tick"),
        (lambda lims: lims.update(tick_timeout=0.0), "limits.tick_timeout"),
        (lambda lims: lims.update(max_memory_bytes=2.5), "limits.max_memory_bytes"),
    ],
)
def test_verify_checks_every_header_limit(small: Played, edit: Any, field: str) -> None:
    report = verify_replay(tampered(small, lambda h, f, r: edit(h["limits"])))
    assert not report.ok and report.detail is not None and field in report.detail


def test_an_invalid_action_detail_names_the_rule_broken() -> None:
    played = play(5, 9, forfeit=(2, 0, "invalid_action"))
    forged = tampered(played, lambda h, f, r: r["sides"][0]["forfeit"].update(detail="forged"))
    report = verify_replay(forged)
    assert report.detail is not None and "is not the rule the records break" in report.detail


# --------------------------------------------------------------------------- memory (version 3)


def test_memory_is_recorded_at_keyframe_ticks_and_where_it_changed(full: Played) -> None:
    """Side A's scripted memory grows a page every 7 ticks; B's never does."""
    replay = read_replay(full.data)
    assert replay.header.version == replays.VERSION == replays.MEMORY_VERSION == 3
    carrying = [f["t"] for f in full.frames if "l" in f]
    assert carrying == sorted({0, 20, 40, *range(7, 45, 7)})
    assert full.frames[7]["l"] == [3 * PAGE, 3 * PAGE]
    assert replays.memory_series(replay) == (
        tuple(PAGE * (2 + t // 7) for t in range(45)),
        (3 * PAGE,) * 45,
    )
    # The rule, by value (sizes may come as a list or a tuple).
    assert not memory_carried(3, [PAGE, PAGE], (PAGE, PAGE))
    assert memory_carried(3, [PAGE, 2 * PAGE], (PAGE, PAGE)) and memory_carried(3, [1, 1], None)
    assert memory_carried(40, (PAGE, PAGE), (PAGE, PAGE))


def test_a_replay_before_version_3_has_no_memory(full: Played) -> None:
    """Version 3 less its "l" keys is version 2: it reads and verifies as such."""

    def older(h: Any, f: Any, r: Any) -> None:
        h["version"] = 2
        for frame in f:
            frame.pop("l", None)

    data = tampered(full, older)
    assert verify_replay(data).ok
    replay = read_replay(data)
    assert replays.memory_series(replay) is None
    assert all(frame.memory is None for frame in replay.frames)

    def with_memory(h: Any, f: Any, r: Any) -> None:
        older(h, f, r)
        f[3]["l"] = [PAGE, PAGE]

    with pytest.raises(ReplayError, match=r"frame of tick 3: .*unknown key\(s\) l"):
        read_replay(tampered(full, with_memory))


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda f: f[20].pop("l"), r"frame of tick 20: field 'l': missing: tick 20 is a multiple"),
        (lambda f: f[0].pop("l"), r"frame of tick 0: field 'l': missing"),
        (lambda f: f[7].update(l=[PAGE]), r"frame of tick 7: field 'l': expected 2 elements"),
        (lambda f: f[7].update(l=[-1, PAGE]), r"field 'l\[0\]': -1 is outside 0\.\.4294967296"),
        (lambda f: f[7].update(l=[PAGE, 2**32 + 1]), r"field 'l\[1\]': 4294967297 is outside"),
        (lambda f: f[7].update(l=[True, PAGE]), r"field 'l\[0\]': expected an integer"),
        (lambda f: f[7].update(l=PAGE), r"field 'l': expected an array"),
    ],
)
def test_the_schema_judges_memory(full: Played, edit: Any, message: str) -> None:
    with pytest.raises(ReplayError, match=message):
        read_replay(tampered(full, lambda h, f, r: edit(f)))


@pytest.mark.parametrize(
    ("edit", "tick", "words"),
    [
        # The sizes of the frame before, away from a keyframe tick: not how it is written.
        (lambda f: f[3].update(l=[2 * PAGE, 3 * PAGE]), 3, "only when one changed"),
        (lambda f: f[14].update(l=[2 * PAGE, 3 * PAGE]), 14, "never shrinks"),
        (lambda f: f[21].update(l=[3 * PAGE, 3 * PAGE]), 21, "never shrinks"),
        (
            lambda f: f[42].update(l=[LIMITS["max_memory_bytes"] + PAGE, 3 * PAGE]),
            42,
            "over max_memory_bytes 67108864, yet the tick was applied",
        ),
    ],
)
def test_verify_finds_memory_no_match_records(
    full: Played, edit: Any, tick: int, words: str
) -> None:
    report = verify_replay(tampered(full, lambda h, f, r: edit(f)))
    assert (report.ok, report.mismatch_tick, report.ticks) == (False, tick, tick)
    assert report.detail is not None and "field 'l'" in report.detail and words in report.detail


def test_a_memory_forfeit_is_memory_over_the_cap() -> None:
    """Rules §8.9: memory over the cap is the forfeit, and the forfeit is memory over it."""
    cap = LIMITS["max_memory_bytes"]
    played = play(6, 30, forfeit=(9, 1, "memory"))
    assert verify_replay(played.data).ok
    assert played.frames[9]["l"] == [3 * PAGE, cap + PAGE]
    series = replays.memory_series(read_replay(played.data))
    assert series is not None and series[1][-2:] == (3 * PAGE, cap + PAGE)
    within = tampered(played, lambda h, f, r: f[9].update(l=[3 * PAGE, cap]))
    report = verify_replay(within)
    assert report.mismatch_tick == 9 and report.detail is not None
    assert f"side 1 forfeited for memory, but its memory {cap} is within" in report.detail
    # Memory over the cap with any other forfeit, or none, is not what a match records.
    as_trap = tampered(played, lambda h, f, r: r["sides"][1]["forfeit"].update(kind="trap"))
    report = verify_replay(as_trap)
    assert report.mismatch_tick == 9 and report.detail is not None
    assert "but its forfeit is trap, not memory" in report.detail
    both = tampered(played, lambda h, f, r: f[9].update(l=[cap + PAGE, cap + PAGE]))
    report = verify_replay(both)
    assert report.detail is not None and "side 0's memory" in report.detail
    assert "its forfeit is none, not memory" in report.detail
    # A forfeit frame carries "l" as any frame does: not when nothing changed.
    trapped = play(6, 30, forfeit=(9, 1, "trap"))
    assert "l" not in trapped.frames[9]
    again = tampered(trapped, lambda h, f, r: f[9].update(l=[3 * PAGE, 3 * PAGE]))
    assert verify_replay(again).mismatch_tick == 9


@pytest.mark.parametrize(("data", "kind"), [(b"abc\n", "int"), (msgpack.packb([1, 2]), "list")])
def test_a_file_that_is_no_replay_is_told_so(data: bytes, kind: str) -> None:
    """A text file or any other msgpack: named as not a replay at all, not as a bad field."""
    with pytest.raises(
        replays.ReplayError, match=f"not a Foray replay: its first object is {kind}"
    ):
        replays.read_replay(data)
    report = replays.verify_replay(data)
    assert not report.ok and report.detail and "not a Foray replay" in report.detail
