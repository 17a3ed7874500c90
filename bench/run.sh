#!/usr/bin/env bash
# Builds editgate and edit_bench (Release, in build-bench/) and runs the
# benchmark in a temporary work folder. Extra arguments go to edit_bench,
# e.g. bench/run.sh --sizes 10000,100000 --runs 3
# The table goes to standard output; build output and progress to standard error.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
build="$root/build-bench"

cmake -S "$root" -B "$build" -G Ninja -DEDITGATE_BENCH=ON -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >&2
ninja -C "$build" editgate edit_bench >&2

work="$(mktemp -d "${TMPDIR:-/tmp}/edit_bench.XXXXXX")"
status=0
cleanup() {
  # edit_bench exits 1 when a result was wrong: keep its inputs to look at.
  if [ "$status" -eq 1 ]; then
    echo "run.sh: work folder kept: $work" >&2
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT
trap 'status=130; exit 130' INT TERM

"$build/bench/edit_bench" --editgate "$build/gateway/editgate" --workdir "$work" "$@" || status=$?
exit "$status"
