#!/usr/bin/env bash
# Builds commit_bench (Release, in build-bench/) and runs it in a temporary
# work folder. Extra arguments go to commit_bench, e.g.
#   bench/commit.sh --sizes 10,1000 --commits 50
# The table goes to standard output; build output and progress to standard error.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
build="$root/build-bench"

cmake -S "$root" -B "$build" -G Ninja -DEDITGATE_BENCH=ON -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >&2
ninja -C "$build" commit_bench editgate >&2

work="$(mktemp -d "${TMPDIR:-/tmp}/commit_bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT
"$build/bench/commit_bench" --workdir "$work" "$@"
