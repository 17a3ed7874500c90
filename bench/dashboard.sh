#!/usr/bin/env bash
# Builds editgate (Release, in build-bench/), installs playwright-core from npm
# into build-bench/npm (once, pinned as bench/pages.sh does) and runs the
# dashboard benchmark (bench/dashboard_bench.cjs) in a temporary work folder:
# the first view with 100 realms and a 10 MB log, and live updates at 500
# exchanges/s with a baseline run without the dashboard, taking turns.
# Extra arguments go to the script, e.g. bench/dashboard.sh --rate 500 --seconds 4 --runs 5
# The tables go to standard output; build and npm output to standard error.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
build="$root/build-bench"
playwright="playwright-core@${PLAYWRIGHT_VERSION:-1.65.1}"

cmake -S "$root" -B "$build" -G Ninja -DEDITGATE_BENCH=ON -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >&2
ninja -C "$build" editgate >&2
if [ ! -f "$build/npm/node_modules/playwright-core/package.json" ]; then
  if ! command -v npm >/dev/null; then
    echo "bench/dashboard.sh: npm is needed once, to install $playwright: apt-get install npm" >&2
    exit 2
  fi
  npm install --prefix "$build/npm" --no-audit --no-fund --no-save "$playwright" >&2
fi
CHROMIUM="$(command -v chromium || command -v chromium-browser)"
export CHROMIUM

work="$(mktemp -d "${TMPDIR:-/tmp}/dashboard_bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT
NODE_PATH="$build/npm/node_modules" node --experimental-websocket "$here/dashboard_bench.cjs" "$build/gateway/editgate" "$work" "$@"
