#!/usr/bin/env bash
# Builds log_bench (Release, in build-bench/) and runs it: the log op's read of a
# 10 MB chat log's tail, split and rendered, and the whole log paged back.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
build="$root/build-bench"

cmake -S "$root" -B "$build" -G Ninja -DEDITGATE_BENCH=ON -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >&2
ninja -C "$build" log_bench >&2
"$build/bench/log_bench" "$@"
