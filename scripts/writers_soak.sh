#!/bin/bash
# Runs the concurrent-writer tests (an editor saving by rename, one saving in
# place, each against 1,500 edits of the same file) RUNS times each (default
# 100) and prints the saves and the saves lost, per kind and in all. With
# LOAD busy loops beside them (default 2), as a loaded machine preempts
# editgate in the middle of a write: that is where lost saves show.
#   scripts/writers_soak.sh [RUNS] [LOAD] [TEST_BINARY]
set -euo pipefail
runs=${1:-100}
load=${2:-2}
bin=${3:-"$(cd "$(dirname "$0")/.." && pwd)/build/tests/editgate_e2e_tests"}
[ -x "$bin" ] || { echo "no test binary at $bin (build first, or pass its path)" >&2; exit 2; }

pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT
for _ in $(seq 1 "$load"); do (while :; do :; done) & pids+=($!); done

declare -A saves=() lost=() failed=()
for _ in $(seq 1 "$runs"); do
  for kind in "by temp file and rename" "in place"; do
    line=$("$bin" -s "concurrent writers: an editor saving $kind loses no save to editgate" 2>&1 |
      grep -m1 -o 'editor saves: [0-9]*, lost: [0-9]*' || true)
    if [ -z "$line" ]; then failed[$kind]=$((${failed[$kind]:-0} + 1)); continue; fi
    s=${line#editor saves: }; s=${s%%,*}
    l=${line##*lost: }
    saves[$kind]=$((${saves[$kind]:-0} + s))
    lost[$kind]=$((${lost[$kind]:-0} + l))
  done
done
total_lost=0
for kind in "by temp file and rename" "in place"; do
  echo "$kind: $runs runs, ${saves[$kind]:-0} saves, ${lost[$kind]:-0} lost, ${failed[$kind]:-0} runs without a count"
  total_lost=$((total_lost + ${lost[$kind]:-0}))
done
[ "$total_lost" = 0 ]
