#!/usr/bin/env bash
# startup.sh: `editgate check` of one block against `patch --dry-run` of the
# same change as a unified diff, at 10 to 1,000,000 lines, both timed with
# `perf stat` in the same run and reported as ratios (bench/README.md,
# "startup"). Builds editgate (Release, in build-bench/) unless --editgate is
# given; --before BIN adds a second editgate (e.g. one built from main) timed
# in the same rounds.
#   bench/startup.sh [--sizes 10,1000] [--rounds 5] [--runs 20] [--before BIN] [--editgate BIN]
# The table goes to standard output; build output and progress to standard error.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
sizes="10,1000,10000,100000,1000000"
rounds=5
runs=20
before=""
after=""
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) sizes="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --before) before="$(realpath "$2")"; shift 2 ;;
    --editgate) after="$(realpath "$2")"; shift 2 ;;
    *) echo "startup.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
for tool in perf patch awk; do
  command -v "$tool" >/dev/null || { echo "startup.sh: needs $tool" >&2; exit 2; }
done
if [ -z "$after" ]; then
  build="$root/build-bench"
  cmake -S "$root" -B "$build" -G Ninja -DEDITGATE_BENCH=ON -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >&2
  ninja -C "$build" editgate >&2
  after="$build/gateway/editgate"
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/startup_bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT
export LC_ALL=C

# One case: tree/big.c of $1 lines, all distinct; the line after the middle
# gets a comment appended, as a block (two anchor lines and the line) and as
# a diff hunk with three lines of context.
make_case() {
  local n="$1" dir="$2"
  mkdir -p "$dir/tree"
  awk -v n="$n" 'BEGIN { for (i = 1; i <= n; i++) printf "int value_%d = %d * 7;  // line %d of the file\n", i, i, i }' \
    > "$dir/tree/big.c"
  local e=$((n / 2 + 1))
  awk -v e="$e" 'NR >= e - 2 && NR <= e { w[NR] = $0 }
    END {
      print "big.c"; print "««« EDIT"
      for (i = e - 2; i <= e; i++) print w[i]
      print "═══════ REPL"
      for (i = e - 2; i < e; i++) print w[i]
      print w[e] " /* edited */"; print "»»» EDIT END"
    }' "$dir/tree/big.c" > "$dir/response.md"
  awk -v e="$e" 'NR >= e - 3 && NR <= e + 3 { w[NR] = $0 }
    END {
      print "--- a/big.c"; print "+++ b/big.c"
      printf "@@ -%d,7 +%d,7 @@\n", e - 3, e - 3
      for (i = e - 3; i < e; i++) print " " w[i]
      print "-" w[e]; print "+" w[e] " /* edited */"
      for (i = e + 1; i <= e + 3; i++) print " " w[i]
    }' "$dir/tree/big.c" > "$dir/edits.diff"
}

# perf stat of one command, $runs runs: prints "task-clock-ms elapsed-ms".
measure() {
  local out="$work/perf.txt"
  perf stat -r "$runs" -e task-clock -o "$out" -- "$@" >/dev/null 2>&1 </dev/null
  awk '/msec task-clock/ { t = $1 } /seconds time elapsed/ { e = $1 * 1000 } END { printf "%.4f %.4f\n", t, e }' "$out"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

names=(patch after)
[ -n "$before" ] && names=(patch before after)
printf '| lines | tool | CPU ms (task-clock) | elapsed ms | CPU / patch | elapsed / patch |\n|---|---|---|---|---|---|\n'
IFS=, read -ra size_list <<< "$sizes"
for n in "${size_list[@]}"; do
  dir="$work/$n"
  make_case "$n" "$dir"
  declare -A cmd=()
  cmd[patch]="patch -s -p1 --dry-run -d $dir/tree -i $dir/edits.diff"
  cmd[after]="$after check --root $dir/tree $dir/response.md"
  [ -n "$before" ] && cmd[before]="$before check --root $dir/tree $dir/response.md"
  for name in "${names[@]}"; do  # every command must succeed before it is timed
    if ! ${cmd[$name]} >/dev/null 2>&1 </dev/null; then
      echo "startup.sh: $name failed on $n lines: ${cmd[$name]}" >&2
      trap - EXIT
      echo "startup.sh: work folder kept: $work" >&2
      exit 1
    fi
  done
  cmp -s "$dir/tree/big.c" <(awk -v n="$n" 'BEGIN { for (i = 1; i <= n; i++) printf "int value_%d = %d * 7;  // line %d of the file\n", i, i, i }') ||
    { echo "startup.sh: a dry run changed big.c" >&2; exit 1; }
  : > "$dir/samples"
  for ((r = 0; r < rounds; r++)); do  # rounds interleave the tools, so drift hits all alike
    for name in "${names[@]}"; do
      # shellcheck disable=SC2086
      echo "$name $(measure ${cmd[$name]})" >> "$dir/samples"
    done
    echo "startup.sh: $n lines, round $((r + 1))/$rounds" >&2
  done
  declare -A cpu=() wall=()
  for name in "${names[@]}"; do
    cpu[$name]=$(awk -v k="$name" '$1 == k { print $2 }' "$dir/samples" | median)
    wall[$name]=$(awk -v k="$name" '$1 == k { print $3 }' "$dir/samples" | median)
  done
  for name in "${names[@]}"; do
    label="patch --dry-run"
    [ "$name" = after ] && label="editgate check"
    [ "$name" = before ] && label="editgate check (before)"
    awk -v n="$n" -v l="$label" -v c="${cpu[$name]}" -v w="${wall[$name]}" -v pc="${cpu[patch]}" -v pw="${wall[patch]}" \
      'BEGIN { printf "| %d | %s | %.2f | %.2f | %.2f | %.2f |\n", n, l, c, w, c / pc, w / pw }'
  done
  rm -rf "$dir"
done
