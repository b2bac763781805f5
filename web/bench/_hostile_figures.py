"""``arena bench web-hostile`` (printed, never asserted): the site while hostile clients hold it.

Two figures, each of a real ``arena serve`` in a process of its own, driven
from this one (docs/benchmarks.md, "The server under hostile clients"):

- **Slow headers**: ``GET /api/status``, each on a connection of its own, from
  a few client threads, answered how fast (p50, p99, the worst) with no other
  client, then while 300 connections that never finish their headers are held
  from 300 loopback addresses (no per-address bound applies: the server holds
  them all, each until its header deadline, and they are opened again), then
  from one address.
- **Many event streams**: a round-robin of stored controllers playing, its
  matches recorded per second and a token holder's ``POST /api/matches``
  answered how fast, with no stream open, then with 200 streams of the
  tournament open (from several addresses: one holds only its share).
"""

from __future__ import annotations

import os
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from web.bench._hostile import EventStreams, SlowClients
from web.bench._load import Request, RequestKind, Timing, drive, get_json, seed_store
from web.bench._process import ServerProcess

__all__ = ["hostile_figures"]

_SLOW = 300
"""Connections that never finish their headers, held while honest requests are timed."""
_HONEST_CLIENTS = 4
"""Threads sending the honest requests, each a new connection per request."""
_STREAMS = 200
"""Event streams of the running tournament held open."""
_ENTRANTS = 24
"""Controllers in the bench's round-robin (variants of the baselines)."""
_SEEDS = 8
"""Seeds of the round-robin: 24 controllers on 8 seeds are issue 24's 4,416 matches."""


def _load() -> str:
    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def _ms(t: Timing, worst: float) -> str:
    return f"p50 {t.p50_ms:6.1f} ms, p99 {t.p99_ms:6.1f} ms, worst {worst:6.1f} ms"


def _honest(url: str, requests: int) -> tuple[Timing, float]:
    run = drive(url, [Request.status()] * requests, clients=_HONEST_CLIENTS, fresh=True)
    bad = [a for a in run.answers if a.status != 200]
    if bad:
        raise RuntimeError(f"GET /api/status answered {bad[0].status}")
    worst = max(a.latency_ms for a in run.answers)
    return run.timing(RequestKind.STATUS), worst


def _while_sampled(
    slow: SlowClients, work: Callable[[], tuple[Timing, float]]
) -> tuple[tuple[Timing, float], list[int]]:
    """``work``'s result, and how many of ``slow``'s connections were held, every 0.1 s."""
    held: list[int] = []
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.1):
            held.append(slow.held)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        return work(), held
    finally:
        done.set()
        sampler.join()


def _slow_headers(repeat: int) -> None:
    requests = 500 * repeat
    with (
        tempfile.TemporaryDirectory(prefix="arena-bench-hostile-") as tmp,
        ServerProcess(Path(tmp), jobs=1) as server,
    ):
        drive(server.url, [Request.status()] * 20, clients=2, fresh=True)  # warm
        print(
            f"slow headers (arena serve, its default bounds; {_HONEST_CLIENTS} threads sending"
            f" GET /api/status, a new connection each; {_load()}):"
        )
        alone, worst = _honest(server.url, requests)
        print(f"  {'no other client':<42} {_ms(alone, worst)} ({alone.requests})")
        for sources, label in ((_SLOW, f"{_SLOW} addresses"), (1, "one address")):
            with SlowClients(server.port, _SLOW, sources=sources, trickle=1.0) as slow:
                time.sleep(1.0)  # all sent their first bytes; those over a bound closed
                (timing, worst), held = _while_sampled(slow, lambda: _honest(server.url, requests))
            what = f"{_SLOW} slow connections from {label}"
            print(
                f"  {what:<42} {_ms(timing, worst)} ({timing.requests}); the server held"
                f" {statistics.median(held or [0]):.0f} of them (median)"
            )
        code = server.stop()
    if code != 0 or "Traceback" in server.stderr:
        raise RuntimeError(f"arena serve stopped badly ({code}): {server.stderr[-500:]}")


@dataclass(frozen=True, slots=True)
class _Phase:
    planned: int
    matches_per_s: float
    post_p50_ms: float
    post_worst_ms: float
    posts: int
    server_cpu: float
    """The server process's CPU time over the window, as a share of one core."""
    streams: int
    """Streams open at the end."""
    events: int
    """Events the streams read."""


def _seeded(root: Path) -> list[str]:
    """A data directory with ``_ENTRANTS`` stored controllers (variants of the baselines)."""
    import arena

    seed_store(root)
    bases = [arena.load_baseline(n) for n in ("random", "greedy-raider", "border-soldier")]
    names = [f"entrant-{i}" for i in range(_ENTRANTS)]
    with arena.Store.open(root) as store:
        for i, name in enumerate(names):
            module = arena.numbered_module(bases[i % len(bases)], 7000 + i)
            store.add_controller(module, name=name, origin=arena.Origin.FILE)
    return names


def _cpu_seconds(pid: int) -> float:
    """The CPU time process ``pid`` has used (user and system), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _tournament_run(seconds: float, streams: int) -> _Phase:
    """A fresh ``arena serve`` plays the round-robin; ``streams`` event streams of it open
    at once; over ``seconds`` from the same moment of every run (the schedule is the same,
    so is the mix of long and short matches), its matches recorded per second, and a quick
    match submitted every half second (its 202, not its playing, is timed)."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-streams-") as tmp:
        root = Path(tmp)
        names = _seeded(root)
        with ServerProcess(root, jobs=os.cpu_count() or 1, queue=64) as server:
            start = Request.tournament("round-robin", names, seeds=range(_SEEDS))
            started = drive(server.url, [start], clients=1, token=server.token).answers[0]
            if started.status != 202:
                raise RuntimeError(f"the tournament did not start: {started.body!r}")
            tid, planned = started.json()["id"], started.json()["planned"]
            path = f"/api/tournaments/{tid}"
            # Published: its streams are a reader's, without a token.
            get_json(f"{server.url}{path[1:]}/publish", token=server.token, method="POST")
            with EventStreams(server.port, path + "/events", streams, sources=25) as streaming:
                time.sleep(2.0)  # the workers warm, the first matches recorded
                before = get_json(server.url + path[1:], timeout=60)["matches"]
                cpu = _cpu_seconds(server.pid)
                t0 = time.perf_counter()
                latencies: list[float] = []
                while time.perf_counter() - t0 < seconds:
                    quick = Request.quick_match("random", "greedy-raider", len(latencies))
                    (answer,) = drive(
                        server.url, [quick], clients=1, token=server.token, timeout=120
                    ).answers
                    if answer.status not in (202, 429):
                        raise RuntimeError(f"POST /api/matches: {answer.status} {answer.body!r}")
                    latencies.append(answer.latency_ms)
                    time.sleep(max(0.0, 0.5 - answer.latency_ms / 1000))
                elapsed = time.perf_counter() - t0
                cpu = _cpu_seconds(server.pid) - cpu
                data = get_json(server.url + path[1:], timeout=60)
                if data["status"] != "running":
                    raise RuntimeError(f"the tournament was {data['status']} before the end")
                phase = _Phase(
                    planned,
                    (data["matches"] - before) / elapsed,
                    statistics.median(latencies),
                    max(latencies),
                    len(latencies),
                    cpu / elapsed,
                    streaming.held,
                    streaming.events,
                )
            code = server.stop()
        if code != 0 or "Traceback" in server.stderr:
            raise RuntimeError(f"arena serve stopped badly ({code}): {server.stderr[-500:]}")
    return phase


def _many_streams(repeat: int) -> None:
    seconds = 10.0 * repeat
    quiet = _tournament_run(seconds, 0)
    loaded = _tournament_run(seconds, _STREAMS)
    print(
        f"many event streams (arena serve, {os.cpu_count()} workers; a round-robin of"
        f" {_ENTRANTS} controllers on {_SEEDS} seeds, {quiet.planned:,} matches, its"
        f" {seconds:.0f} s from the same moment in two runs; a quick match submitted with"
        f" the token every 0.5 s meanwhile; {_load()}):"
    )
    for label, phase in (("no stream open", quiet), (f"{loaded.streams} streams open", loaded)):
        print(
            f"  {label:<20} {phase.matches_per_s:6.1f} matches/s recorded; POST /api/matches"
            f" p50 {phase.post_p50_ms:6.1f} ms, worst {phase.post_worst_ms:7.1f} ms"
            f" ({phase.posts}); the server's process {phase.server_cpu:.0%} of a core"
        )
    each = loaded.events / max(1, loaded.streams)
    print(f"  the streams read {loaded.events:,} events in all ({each:.1f} each)")


def hostile_figures(repeat: int) -> None:
    """Print the slow-header and the many-streams figures (``repeat`` scales the runs)."""
    _slow_headers(repeat)
    _many_streams(repeat)
