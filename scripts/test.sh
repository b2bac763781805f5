#!/usr/bin/env bash
# Every test, plus the linters and the type checker (the whole suite: before a commit).
#   ./scripts/test.sh --fast   the development loop: the same checks and every test
#                              that starts no browser, server, Ray or worker
#                              process and is not slow (markers in pyproject.toml)
# Other arguments go to pytest (a file, -k EXPR, -x, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
# The tests on every core (pytest-xdist), a file's tests together and in their order
# (as they run alone: a file's fixtures are made once); servers bind port 0 and each
# file has its own data directories, so two workers never share a server or a store.
args=(-n auto --dist loadfile)
for a in "$@"; do
    if [ "$a" = "--fast" ]; then
        args+=(-m "not (browser or server or ray or processes or slow)")
        export FORAY_FAST_TESTS=1
    else
        args+=("$a")
    fi
done
# pytest caches the test modules it rewrites (assertions) as bytecode: where the
# machine forbids writing bytecode, every run would rewrite them all again.
unset PYTHONDONTWRITEBYTECODE
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
# The layer order of pyproject.toml's [tool.importlinter] (its report only when broken).
if ! layers=$(.venv/bin/lint-imports 2>&1); then
    printf '%s\n' "$layers" >&2
    exit 1
fi
.venv/bin/python -m pytest -q "${args[@]}"
