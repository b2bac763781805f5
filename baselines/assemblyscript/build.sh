#!/bin/sh
# Build controller.wasm from controller.ts with the AssemblyScript compiler
# that package-lock.json pins.
#
#   sh build.sh                  # from any directory
#   ASC=/path/to/asc.js sh build.sh
#
# Needs Node.js 20 or newer. The first build installs the compiler into
# node_modules/ with `npm ci` (exactly the lockfile's versions, no install
# scripts run); ASC names an asc.js to use instead, such as the arena's own
# (baselines/assemblyscript/node_modules/assemblyscript/bin/asc.js). The flags
# are the arena's own: optimised for speed, assert compiled out, the stub
# runtime (it never frees: allocate only at the top level), and `--use abort=`,
# which makes a failed check trap instead of importing env.abort (a module with
# an import is refused). The output embeds no file paths, so the same source
# gives the same bytes on every machine. controller.ts imports foray.ts (and
# any other file of yours) by a relative path.
set -eu
cd "$(dirname "$0")"
if [ -z "${ASC:-}" ]; then
    ASC=node_modules/assemblyscript/bin/asc.js
    if [ ! -f "$ASC" ]; then
        npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
    fi
fi
exec node "$ASC" controller.ts -o controller.wasm \
    -O3 --noAssert --runtime stub --use abort= --noColors
