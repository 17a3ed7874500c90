#!/usr/bin/env bash
# Builds editgate and serve_bench (Release, in build-bench/) and runs the
# gateway benchmark in a temporary work folder. Extra arguments go to
# serve_bench, e.g. bench/serve.sh --blocks 2000 --edits 300
# The tables go to standard output; build output to standard error.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
build="$root/build-bench"

cmake -S "$root" -B "$build" -G Ninja -DEDITGATE_BENCH=ON -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >&2
ninja -C "$build" editgate serve_bench >&2

work="$(mktemp -d "${TMPDIR:-/tmp}/serve_bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT
"$build/bench/serve_bench" --editgate "$build/gateway/editgate" --workdir "$work" "$@"
