#!/usr/bin/env bash
# Builds editgate and pages_bench (Release, in build-bench/), installs
# playwright-core from npm into build-bench/npm (once) and runs the live-pages
# benchmark in a temporary work folder. Extra arguments go to pages_bench,
# e.g. bench/pages.sh --samples 600 --pages 100
# The tables go to standard output; build and npm output to standard error.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
build="$root/build-bench"
playwright="playwright-core@${PLAYWRIGHT_VERSION:-1.65.1}"

cmake -S "$root" -B "$build" -G Ninja -DEDITGATE_BENCH=ON -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >&2
ninja -C "$build" editgate pages_bench >&2
if [ ! -f "$build/npm/node_modules/playwright-core/package.json" ]; then
  if ! command -v npm >/dev/null; then
    echo "bench/pages.sh: npm is needed once, to install $playwright: apt-get install npm" >&2
    exit 2
  fi
  npm install --prefix "$build/npm" --no-audit --no-fund --no-save "$playwright" >&2
fi
chromium="$(command -v chromium || command -v chromium-browser)"

work="$(mktemp -d "${TMPDIR:-/tmp}/pages_bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT
NODE_PATH="$build/npm/node_modules" "$build/bench/pages_bench" --editgate "$build/gateway/editgate" \
  --workdir "$work" --script "$here/pages_playwright.cjs" --chromium "$chromium" "$@"
