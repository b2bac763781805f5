"""The site's worker lanes as they close (``web._lanes.WorkerLanes.close``).

Work running in a worker is given the grace to finish; nothing new starts;
and once nothing runs, the lanes close at once rather than at the grace's end
(a task that only waits for work, as a field's does, is cancelled). Each test
closes with a grace of an hour: a close that waited it out would hang, and the
join's bound (a minute, far above a second's work) says so instead.
"""

from __future__ import annotations

import concurrent.futures
import threading
import time
from typing import Any

import pytest
import trio

from web._lanes import Lane, LanesClosed, WorkerLanes

pytestmark = pytest.mark.processes

HOUR = 3600.0


def _closed_in_time(lanes: WorkerLanes) -> bool:
    """Close the lanes with an hour's grace in a thread; whether that returned within a
    minute (the thread is left behind, a daemon, when it did not)."""
    closer = threading.Thread(target=lanes.close, args=(HOUR,), daemon=True)
    closer.start()
    closer.join(timeout=60)
    return not closer.is_alive()


def test_idle_lanes_close_without_waiting_out_the_grace() -> None:
    async def waits_for_work(player: Any) -> None:
        await trio.sleep_forever()  # as a field waits for entrants

    lanes = WorkerLanes({Lane.MATCH: 1, Lane.CHECK: 1})
    lanes.start()
    waiting = lanes.spawn(waits_for_work)
    assert _closed_in_time(lanes)
    with pytest.raises(LanesClosed):
        waiting.result(timeout=0)


def test_a_call_running_at_close_finishes_and_the_queued_one_never_starts() -> None:
    lanes = WorkerLanes({Lane.MATCH: 1, Lane.CHECK: 1})
    lanes.start()
    began = threading.Event()
    running: concurrent.futures.Future[None] = lanes.submit(
        Lane.MATCH, time.sleep, 1.0, started=began.set
    )
    assert began.wait(timeout=60)
    queued: concurrent.futures.Future[None] = lanes.submit(
        Lane.MATCH, time.sleep, 0.0
    )  # behind it: the lane takes one
    assert _closed_in_time(lanes)
    assert running.result(timeout=0) is None  # finished within the grace
    with pytest.raises(LanesClosed):
        queued.result(timeout=0)
    assert lanes.stopping
