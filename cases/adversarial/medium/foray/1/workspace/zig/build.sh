#!/bin/sh
# Build controller.wasm from controller.zig with the pip-installable ziglang.
#
#   sh build.sh                  # from any directory
#   PYTHON=.venv/bin/python sh build.sh
#
# PYTHON names an interpreter that has ziglang installed (default: python3;
# `python3 -m pip install ziglang==0.17.0` if it has not). The flags are the
# arena's own: wasm32, no entry point, small and stripped (-fstrip drops the
# sections that embed file paths, so the same source gives the same bytes on
# every machine). -rdynamic is required: without it Zig drops every export and
# the module is refused. Zig's cache for this project goes to .zig-cache/.
# controller.zig imports foray.zig (and any other file of yours) by path.
set -eu
cd "$(dirname "$0")"
PYTHON="${PYTHON:-python3}"
exec "$PYTHON" -m ziglang build-exe controller.zig \
    -target wasm32-freestanding -O ReleaseSmall -fno-entry -rdynamic -fstrip \
    --name controller --cache-dir .zig-cache
