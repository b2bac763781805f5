#!/usr/bin/env bash
# Everything the main job and the tests need, on a fresh machine: Debian's
# chromium (for the browser tests; apt as root), .venv at the repo root with the
# project, its test tools and Ray (the tests start a real local Ray), the native
# core, the project's bytecode, and the pinned npm tools (the AssemblyScript
# compiler, esbuild). Safe to run again: what is there already is kept.
set -euo pipefail
cd "$(dirname "$0")/.."

# The interpreter .venv is made from: $PYTHON when it is set; else the distribution's
# python3 when it is 3.11 or newer with venv and Python's headers (Debian builds it with
# profile-guided and link-time optimisation, as one executable; pyenv's default build is
# neither, and the arena runs slower on it: docs/decisions.md, "The interpreter"); else
# the python3 on the PATH.
pick_python() {
    if [ -n "${PYTHON:-}" ]; then
        echo "$PYTHON"
    elif /usr/bin/python3 -c 'import ensurepip, os, sys, sysconfig, venv
include = sysconfig.get_paths()["include"]
sys.exit(sys.version_info < (3, 11) or not os.path.exists(os.path.join(include, "Python.h")))' \
        2>/dev/null; then
        echo /usr/bin/python3
    else
        echo python3
    fi
}
PY=$(pick_python)

# Debian's chromium, never a browser download (web/bench/_browser.py). Without apt or
# root, the line printed below says what to install; the browser tests are then
# skipped with that same line as their reason.
if [ -z "${FORAY_CHROMIUM:-}" ] && [ ! -x /usr/bin/chromium ] \
    && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup: installing Debian's chromium with apt-get" >&2
    export DEBIAN_FRONTEND=noninteractive
    if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium; } >&2; then
        echo "setup: apt-get could not install chromium" >&2
    fi
fi

# A .venv already there is kept, whatever it was made from (remove it to make it again);
# when that is not the interpreter chosen above, one line says so.
if [ ! -x .venv/bin/python ]; then
    echo "setup: making .venv with $("$PY" -c 'import sys; print(sys.executable, sys.version.split()[0])')" >&2
    "$PY" -m venv .venv
else
    made=$(sed -n 's/^executable = //p' .venv/pyvenv.cfg 2>/dev/null || true)
    chosen=$("$PY" -c 'import os, sys; print(os.path.realpath(sys.executable))' 2>/dev/null || true)
    if [ -n "$made" ] && [ -n "$chosen" ] && [ "$(realpath -q "$made" || echo "$made")" != "$chosen" ]; then
        echo "setup: keeping .venv, made from $made; it would now be made from $chosen (remove .venv and run setup again to change)" >&2
    fi
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e ".[dev,ray]"

# The native core of the match loop (sim/_native, replays/_native): built with
# gcc where it can be; where it cannot, this says so in one line and matches play
# on the pure Python rules, which give the same bytes (docs/decisions.md).
.venv/bin/python scripts/build_native.py

# Compile the project's bytecode now: an editable install leaves its sources
# uncompiled, and where Python may not write bytecode (PYTHONDONTWRITEBYTECODE,
# a read-only checkout) every process, each worker included, would compile
# them again as it starts (docs/decisions.md).
# (The packages are pyproject.toml's. -q still lists each directory, so the
# output is shown only if compiling fails: it then holds the errors.)
if ! out=$(.venv/bin/python -m compileall -q -j 0 arena sim replays web 2>&1); then
    printf '%s\n' "$out" >&2
    exit 1
fi

missing=$(.venv/bin/python -c 'from web.bench import chromium_missing; print(chromium_missing() or "")')
if [ -n "$missing" ]; then
    echo "setup: $missing" >&2
fi

# The npm packages the lockfiles pin: the AssemblyScript compiler
# (baselines/assemblyscript, for the AssemblyScript SDK's builds and tests,
# docs/controllers.md) and esbuild (web/, which bundles the pages' scripts:
# web/build.sh, and the test that the committed bundles are up to date).
# `npm ci` installs exactly the lockfile (no install scripts run), and a copy
# of the lockfile it installed tells the next run that nothing changed.
if command -v node >/dev/null && command -v npm >/dev/null; then
    for dir in baselines/assemblyscript web; do
        if ! cmp -s "$dir/package-lock.json" "$dir/node_modules/.installed-lock.json"; then
            (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) >&2
            cp "$dir/package-lock.json" "$dir/node_modules/.installed-lock.json"
        fi
    done
else
    echo "setup: Node.js 20 or newer with npm is missing: the AssemblyScript builds, the" \
        "pages' bundles and their tests need it (install both, then run ./scripts/setup.sh again)" >&2
fi
