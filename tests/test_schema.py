"""Schemathesis against the site's ``/openapi.json``: no 5xx, every answer matches its schema.

The real app (a real store in a temporary data directory, real worker
processes, the default case made small) is called in process through ASGI
with the token, so the write routes are exercised too: every operation with
schema-valid data (positive) and, where it takes any input, with data that
breaks its schema (negative: the server must refuse it with a 4xx).
Schemathesis's checks run on every answer: not a server error, a documented
status, content type and headers, the body matching the status's schema, a
schema-valid request not refused with a 400 (except for the two bodies whose
validity the schema cannot say, below), an invalid one refused, auth not
ignored, other methods 405.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from typing import Any

import msgpack
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings, strategies as st
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import positive_data_acceptance

import web
from tests._support import AUTH, SITE_TOKEN, small_case

pytestmark = [pytest.mark.processes]

DOCUMENT = web.openapi_document()
OPERATIONS = [(path, method) for path, ops in DOCUMENT["paths"].items() for method in ops]
EXAMPLES = int(os.environ.get("FORAY_SCHEMA_EXAMPLES", "15"))
"""Examples per operation and mode: the whole file runs in seconds. They are derandomized
(the same every run), so CI never meets a new example; ``FORAY_SCHEMA_EXAMPLES=500``
explores further, still deterministically (docs/web.md)."""


def _takes_input(path: str, method: str) -> bool:
    op = DOCUMENT["paths"][path][method]
    return bool(op.get("parameters") or op.get("requestBody"))


# A module's admissibility and a run's replays are checked by compiling and playing
# them: a body of the right shape may be refused (400), which the schema cannot say.
_SEMANTIC_BODIES = {
    ("/api/controllers", "post"),
    ("/api/runs", "post"),
    # A name valid by the schema is rarely an entrant of a finished tournament.
    ("/api/tournaments/{id}/exclusions", "post"),
    ("/api/tournaments/{id}/inclusions", "post"),
}


def _bytes_inside(value: Any) -> Any:
    """Schemathesis's generated value with its binary strings as bytes (msgpack bin)."""
    if isinstance(value, dict):
        return {k: _bytes_inside(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_bytes_inside(v) for v in value]
    data = getattr(value, "data", None)  # schemathesis's Binary
    return data if isinstance(data, bytes) else value


@schemathesis.serializer("application/x-msgpack")
def _msgpack(ctx: Any, value: Any) -> bytes:
    """A push bundle as ``arena push`` sends it: the generated map, packed."""
    try:
        packed: bytes = msgpack.packb(_bytes_inside(value), use_bin_type=True)
    except (OverflowError, TypeError, ValueError):
        # A negative case msgpack cannot hold (an integer past 64 bits): still bytes to send.
        packed = json.dumps(value, default=str).encode()
    return packed


# A module goes up as its bytes, whichever of its two media types is chosen.
schemathesis.serializer.alias("application/wasm", "application/octet-stream")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[web.Site]:
    limits = web.SiteLimits(workers=1, queue=4, body_timeout=5.0, keepalive=0.5)
    with web.Site.open(tmp_path_factory.mktemp("data"), limits=limits, case=small_case()) as opened:
        # A few records, so that small ids name a finished match and tournament.
        match = opened.queue_match("random", "greedy-raider", 1)["id"]
        tournament = opened.start_tournament("round-robin", ["random", "border-soldier"], seeds=[0])
        deadline = time.monotonic() + 60
        while (
            opened.match_json(match)["status"] == "pending"
            or opened.tournament_json(tournament["id"])["status"] == "running"
        ):
            assert time.monotonic() < deadline, "the site's first matches did not finish"
            time.sleep(0.05)
        yield opened


@pytest.fixture(scope="module")
def api(site: web.Site) -> Any:
    return schemathesis.openapi.from_asgi("/openapi.json", web.site_app(site, SITE_TOKEN))


@pytest.fixture(scope="module")
def known(site: web.Site, idle: bytes) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """Inputs that name what is stored, by operation: random ones almost never do.

    Each is a set of fixed parts for ``as_strategy`` (the rest is generated), so
    the answers of success are checked too: a module served, an upload stored,
    a match queued (then 429 once the queue of 4 is full), a tournament started
    (two at most), the records the fixture made.
    """
    controllers = site.controllers(everything=True)
    names = [c["name"] for c in controllers]
    ids = [{"path_parameters": {"id": i}} for i in (1, 2, 3)]
    return {
        ("/api/controllers", "post"): [
            {"body": idle, "query": {"name": "idle <b>"}, "media_type": "application/wasm"}
        ],
        ("/api/controllers/{sha256}/module", "get"): [
            {"path_parameters": {"sha256": c["sha256"]}} for c in controllers
        ],
        ("/api/matches", "post"): [
            {"body": {"a": a, "b": b, "seed": 3}} for a in names[:2] for b in names[-2:]
        ],
        ("/api/tournaments", "post"): [
            {"body": {"format": "round-robin", "field": names[:2], "seeds": [0]}}
        ],
        **{(p, "get"): ids for p, _ in OPERATIONS if "{id}" in p},
    }


# Every operation with valid data; with data that breaks its schema, every operation
# that takes any input (one without parameters or a body has nothing to break).
CASES = [
    pytest.param(path, method, mode, id=f"{mode.value}-{method.upper()} {path}")
    for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)
    for path, method in OPERATIONS
    if mode is GenerationMode.POSITIVE or _takes_input(path, method)
]


@pytest.mark.parametrize(("path", "method", "mode"), CASES)
def test_every_operation_answers_as_documented(
    api: Any,
    known: dict[tuple[str, str], list[dict[str, Any]]],
    path: str,
    method: str,
    mode: GenerationMode,
) -> None:
    operation = api[path][method.upper()]
    excluded = [positive_data_acceptance] if (path, method) in _SEMANTIC_BODIES else []
    strategy = operation.as_strategy(generation_mode=mode)
    if mode is GenerationMode.POSITIVE and (path, method) in known:
        fixed = st.sampled_from(known[path, method])
        strategy = strategy | fixed.flatmap(lambda parts: operation.as_strategy(**parts))

    @given(case=strategy)
    @settings(
        max_examples=EXAMPLES,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def run(case: Any) -> None:
        case.call_and_validate(headers=AUTH, excluded_checks=excluded)

    run()
