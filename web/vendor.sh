#!/usr/bin/env bash
# Install the browser libraries pinned in package-lock.json and copy their built
# browser files and licences into static/vendor/ (committed; node_modules is not).
# Run it after changing a version in package.json (then `npm install` to relock);
# it ends by bundling the pages again (build.sh), since their bundles hold the libraries.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --ignore-scripts
out=static/vendor
rm -rf "$out"
mkdir -p "$out/msgpack/utils" "$out/uplot"

# @msgpack/msgpack: its ES module build, one file per module (no source maps).
src=node_modules/@msgpack/msgpack
cp "$src"/dist.esm/*.mjs "$out/msgpack/"
cp "$src"/dist.esm/utils/*.mjs "$out/msgpack/utils/"
cp "$src/LICENSE" "$out/msgpack/LICENSE"

# uPlot: the ES module build and its stylesheet.
src=node_modules/uplot
cp "$src/dist/uPlot.esm.js" "$src/dist/uPlot.min.css" "$out/uplot/"
cp "$src/LICENSE" "$out/uplot/LICENSE"

# What was copied, from which versions.
node -e '
const lock = require("./package-lock.json").packages;
for (const name of ["@msgpack/msgpack", "uplot"]) {
  const p = lock["node_modules/" + name];
  console.log(`${name} ${p.version} ${p.license} ${p.integrity}`);
}' > "$out/VERSIONS"
cat "$out/VERSIONS"

# The pages' bundles hold the libraries: build them again.
./build.sh
