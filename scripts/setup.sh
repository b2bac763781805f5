#!/usr/bin/env bash
# Create .venv at the repo root and install the project with its test tools
# (Ray included: the tests start a real local Ray for the distributed executor).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e ".[dev,ray]"
# Compile the project's bytecode now: an editable install leaves its sources
# uncompiled, and where Python may not write bytecode (PYTHONDONTWRITEBYTECODE,
# a read-only checkout) every process, each worker included, would compile
# them again as it starts: about 25 ms of a worker's start (docs/decisions.md).
# (The packages are pyproject.toml's. -q still lists each directory, so the
# output is shown only if compiling fails: it then holds the errors.)
if ! out=$(.venv/bin/python -m compileall -q -j 0 arena sim replays web 2>&1); then
    printf '%s\n' "$out" >&2
    exit 1
fi
