#!/usr/bin/env bash
# Builds place_replay_bench (Release, in build-bench/) and runs it. Extra
# arguments go to place_replay_bench, e.g. bench/place_replay.sh --repo
# /path/to/repo --commits 500 --show 5
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
build="$root/build-bench"

cmake -S "$root" -B "$build" -G Ninja -DEDITGATE_BENCH=ON -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >&2
ninja -C "$build" place_replay_bench >&2
"$build/bench/place_replay_bench" --repo "$root" "$@"
