#!/usr/bin/env bash
# Create .venv at the repo root and install the project with its test tools.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
# compat mode: a plain path entry, so packages added later need no reinstall.
.venv/bin/python -m pip install --quiet -e ".[dev]" --config-settings editable_mode=compat
