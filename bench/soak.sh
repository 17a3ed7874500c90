#!/usr/bin/env bash
# The soak, one command: 1,000 Node realms, 10 agents, 10 minutes through
# the gateway (bench/realms_bench.cpp --soak), the dashboard following the
# first realm's log: a row every 10 s (evals/s, round trip p50/p99, resident
# memory of the gateway and of its Node page), then the commit lag per row
# and the verdicts. A short run, the hour, and replies of 1,000 characters:
#   bench/soak.sh --minutes 1
#   bench/soak.sh --minutes 60
#   bench/soak.sh --reply-chars 1000
# Other arguments go to realms_bench (--realms, --agents, --interval,
# --no-follow, ...).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
build="$root/build-bench"

cmake -S "$root" -B "$build" -G Ninja -DEDITGATE_BENCH=ON -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >&2
ninja -C "$build" editgate realms_bench >&2

work="$(mktemp -d "${TMPDIR:-/tmp}/soak.XXXXXX")"
trap 'rm -rf "$work"' EXIT
"$build/bench/realms_bench" --editgate "$build/gateway/editgate" --workdir "$work" --soak --no-floor "$@"
