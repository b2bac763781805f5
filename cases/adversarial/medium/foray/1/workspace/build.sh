#!/bin/sh
# Build controller.wasm from controller.c with the pip-installable ziglang.
#
#   sh build.sh                  # from any directory
#   PYTHON=.venv/bin/python sh build.sh
#
# PYTHON names an interpreter that has ziglang installed (default: python3;
# `python3 -m pip install ziglang==0.17.0` if it has not). The flags are the
# arena's own: wasm32, no libc, no entry point, and --strip-all, which drops
# the sections that embed file paths, so the same source gives the same bytes
# on every machine. List more C files in SOURCES if you split your code (only
# one of them may include foray.h without FORAY_NO_EXPORTS).
set -eu
cd "$(dirname "$0")"
PYTHON="${PYTHON:-python3}"
SOURCES="controller.c"
# shellcheck disable=SC2086 # SOURCES is a list of words
exec "$PYTHON" -m ziglang cc -target wasm32-freestanding -O2 -nostdlib \
    -fno-stack-protector -Wall -Werror -Wl,--no-entry -Wl,--strip-all \
    -I . -o controller.wasm $SOURCES
