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
