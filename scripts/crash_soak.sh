#!/bin/bash
# Kills `editgate apply` with SIGKILL at random moments, RUNS times (default
# 300), in a throwaway repository, and checks after every run that each file
# is whole (some run's before or after), and at the end that the next apply
# commits as the agent, that nothing is left behind (temp files, git locks)
# and that `git fsck --full --strict` is clean. Prints the counts.
#   scripts/crash_soak.sh [RUNS] [EDITGATE]
set -euo pipefail
runs=${1:-300}
bin=${2:-"$(cd "$(dirname "$0")/.." && pwd)/build/gateway/editgate"}
[ -x "$bin" ] || { echo "no editgate at $bin (build first, or pass its path)" >&2; exit 2; }

work=$(mktemp -d /tmp/editgate-soak.XXXXXX)
trap 'rm -rf "$work"' EXIT
repo=$work/repo
mkdir -p "$repo/src"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null LC_ALL=C
export GIT_AUTHOR_NAME="Soak User" GIT_AUTHOR_EMAIL=user@example.com
export GIT_COMMITTER_NAME="Soak User" GIT_COMMITTER_EMAIL=user@example.com
files=3 lines=4000

content() {  # file counter
  awk -v f="$1" -v n="$2" -v lines=$lines 'BEGIN {
    for (i = 0; i < lines; i++) { if (i == int(lines / 2)) print "counter = " n; print "file " f " line " i } }'
}
for f in $(seq 0 $((files - 1))); do content "$f" 0 >"$repo/src/f$f.txt"; done
git -C "$repo" init -q && git -C "$repo" add -A && git -C "$repo" commit -q -m init

torn=0
# Writes the response that moves every whole file on by one.
next_response() {
  : >"$work/response.md"
  for f in $(seq 0 $((files - 1))); do
    n=$(grep -m1 '^counter = ' "$repo/src/f$f.txt" | cut -d' ' -f3 || true)
    if [ -z "$n" ] || ! cmp -s <(content "$f" "$n") "$repo/src/f$f.txt"; then
      torn=$((torn + 1)); echo "torn: src/f$f.txt" >&2; continue
    fi
    printf 'src/f%s.txt\n\302\253\302\253\302\253 EDIT\ncounter = %s\n\342\225\220\342\225\220\342\225\220\342\225\220\342\225\220\342\225\220\342\225\220 REPL\ncounter = %s\n\302\273\302\273\302\273 EDIT END\n' \
      "$f" "$n" $((n + 1)) >>"$work/response.md"
  done
}
apply() { "$bin" apply --root "$repo" --agent soak-agent --lock-timeout 3000 "$work/response.md" >/dev/null 2>&1; }

next_response
start=$(date +%s%N); apply; whole_us=$(( ($(date +%s%N) - start) / 1000 ))
killed=0 finished=0 failed=0
for run in $(seq 1 "$runs"); do
  next_response
  "$bin" apply --root "$repo" --agent soak-agent --lock-timeout 3000 "$work/response.md" >/dev/null 2>&1 &
  pid=$!
  sleep "$(awk -v m=$whole_us -v r=$RANDOM 'BEGIN { printf "%.6f", m * 1.25 * r / 32768 / 1e6 }')"
  kill -9 "$pid" 2>/dev/null || true
  set +e; { wait "$pid"; } 2>/dev/null; rc=$?; set -e
  if [ $rc -eq 137 ]; then killed=$((killed + 1)); elif [ $rc -eq 0 ]; then finished=$((finished + 1));
  else failed=$((failed + 1)); echo "run $run exited $rc" >&2; fi
done
next_response
last=0; apply || last=$?
author=$(git -C "$repo" log -1 --format=%an)
left=$(find "$repo" \( -name '*.editgate-*' -o -name 'index.editgate-*' -o -name '*.lock' \) ! -name editgate-commit.lock | wc -l)
fsck=0; git -C "$repo" fsck --full --strict >/dev/null 2>&1 || fsck=$?
dirty=$(git -C "$repo" status --porcelain | wc -l)
echo "runs $runs: killed $killed, finished $finished, failed $failed; torn files $torn; next apply exit $last," \
  "author '$author'; left behind $left; uncommitted $dirty; git fsck exit $fsck"
[ "$torn" -eq 0 ] && [ "$failed" -eq 0 ] && [ "$last" -eq 0 ] && [ "$author" = soak-agent ] && [ "$left" -eq 0 ] &&
  [ "$dirty" -eq 0 ] && [ "$fsck" -eq 0 ]
