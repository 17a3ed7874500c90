#!/usr/bin/env bash
# Builds editgate and mcp_bench (Release, in build-bench/) and runs the MCP
# latency benchmark in a temporary work folder. Extra arguments go to
# mcp_bench, e.g. bench/mcp.sh --evals 3000 --edits 600
# The tables go to standard output; build output to standard error.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
build="$root/build-bench"

cmake -S "$root" -B "$build" -G Ninja -DEDITGATE_BENCH=ON -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >&2
ninja -C "$build" editgate mcp_bench >&2

work="$(mktemp -d "${TMPDIR:-/tmp}/mcp_bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT
"$build/bench/mcp_bench" --editgate "$build/gateway/editgate" --workdir "$work" "$@"
