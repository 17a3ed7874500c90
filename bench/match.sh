#!/usr/bin/env bash
# Builds match_bench (Release, in build-bench/) and runs it. Extra arguments
# go to match_bench, e.g. bench/match.sh --lines 100000 --runs 3
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
build="$root/build-bench"

cmake -S "$root" -B "$build" -G Ninja -DEDITGATE_BENCH=ON -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >&2
ninja -C "$build" match_bench >&2
"$build/bench/match_bench" "$@"
