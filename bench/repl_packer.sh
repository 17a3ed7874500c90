#!/usr/bin/env bash
# Builds repl_growth_bench (Release, in build-bench/; the git layer only) and
# runs it in a temporary work folder. Extra arguments go to
# repl_growth_bench, e.g.
#   bench/repl_packer.sh --exchanges 2000 --every 32
# The table goes to standard output; build output and progress to standard error.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
build="$root/build-bench"

cmake -S "$root" -B "$build" -G Ninja -DEDITGATE_BENCH=ON -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >&2
ninja -C "$build" repl_growth_bench >&2

work="$(mktemp -d "${TMPDIR:-/tmp}/repl_growth_bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT
"$build/bench/repl_growth_bench" --workdir "$work" "$@"
