#!/usr/bin/env bash
# Bundle each page's script with esbuild (pinned in package-lock.json; setup.sh
# installs it with `npm ci`) into static/dist/ (committed): a page loads its
# entry and the shared chunks it imports, preloaded at once, instead of twenty
# modules a few at a time. The charts (uPlot) stay a chunk of their own, loaded
# after the first frame. Run it after changing anything under static/ that a
# page imports; tests/test_web.py rebuilds into a temporary directory and fails
# when static/dist/ differs. `./build.sh OUT` builds into OUT instead.
set -euo pipefail
cd "$(dirname "$0")"
out=${1:-static/dist}
esbuild=node_modules/.bin/esbuild
if [ ! -x "$esbuild" ]; then
    echo "build.sh: $esbuild is missing: run ./scripts/setup.sh (or npm ci in web/)" >&2
    exit 1
fi
rm -rf "$out"
"$esbuild" static/view.js static/index.js static/run.js static/match.js static/tournament.js \
    static/console.js static/controller.js static/field.js --bundle --format=esm --splitting --target=es2022 \
    --chunk-names='[name]-[hash]' --outdir="$out" --charset=utf8 --log-level=warning
