#!/usr/bin/env bash
# Builds editgate and realms_bench (Release, in build-bench/) and runs the
# many-realms benchmark in a temporary work folder: 1,000 Node realms, 10
# agents, through the gateway and in the page program alone. Extra arguments
# go to realms_bench, e.g. bench/realms.sh --seconds 30 --realms 500
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
build="$root/build-bench"

cmake -S "$root" -B "$build" -G Ninja -DEDITGATE_BENCH=ON -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >&2
ninja -C "$build" editgate realms_bench >&2

work="$(mktemp -d "${TMPDIR:-/tmp}/realms_bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT
"$build/bench/realms_bench" --editgate "$build/gateway/editgate" --workdir "$work" "$@"
