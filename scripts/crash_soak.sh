#!/bin/bash
# Kills `editgate apply` with SIGKILL at random moments, RUNS times (default
# 300), in a throwaway repository, and checks after every run that each file
# is whole (some run's before or after), and at the end that the next apply
# commits as the agent, that nothing is left behind (temp files, git locks)
# and that `git fsck --full --strict` is clean. Prints the counts.
# With `serve`, kills `editgate serve` (with its Node page) instead, RUNS times
# (default 100), while it runs a slow eval (awaiting, or a synchronous loop),
# one queued behind it and an edit of every file; then checks that no Node
# page outlived its gateway, that the next gateway marks the jobs left
# executing as interrupted, that every log lints clean, and that the next
# eval and apply commit as their authors.
#   scripts/crash_soak.sh [serve] [RUNS] [EDITGATE]
set -euo pipefail
mode=apply
if [ "${1:-}" = serve ]; then mode=serve; shift; fi
runs=${1:-$([ $mode = serve ] && echo 100 || echo 300)}
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
finish() {  # the next apply, and what the killed runs left; exit status says whether all held
  next_response
  last=0; apply || last=$?
  author=$(git -C "$repo" log -1 --format=%an)
  left=$(find "$repo" \( -name '*.editgate-*' -o -name 'index.editgate-*' -o -name '*.lock' \) ! -name editgate-commit.lock | wc -l)
  fsck=0; git -C "$repo" fsck --full --strict >/dev/null 2>&1 || fsck=$?
  dirty=$(git -C "$repo" status --porcelain | wc -l)
  echo "torn files $torn; next apply exit $last, author '$author'; left behind $left; uncommitted $dirty;" \
    "git fsck exit $fsck"
  [ "$torn" -eq 0 ] && [ "$last" -eq 0 ] && [ "$author" = soak-agent ] && [ "$left" -eq 0 ] && [ "$dirty" -eq 0 ] &&
    [ "$fsck" -eq 0 ]
}

if [ $mode = serve ]; then
  # The live children of a pid.
  children() { awk -v p="$1" '{ sub(/^.*\) /, ""); if ($1 != "Z" && $2 == p) print FILENAME }' /proc/[0-9]*/stat 2>/dev/null |
    cut -d/ -f3 || true; }
  alive() { [ -e "/proc/$1/stat" ] && ! awk '{ sub(/^.*\) /, ""); exit $1 != "Z" }' "/proc/$1/stat"; }
  # The gateway's port and cookie files, in the workspace's state folder: `editgate where` names them.
  port_file=$("$bin" where --root "$repo" port)
  cookie_file=$("$bin" where --root "$repo" cookie)
  gw=
  serve() {  # starts a gateway, waits for its port and its Node page
    rm -f "$port_file"
    "$bin" serve --port 0 --root "$repo" >>"$work/serve.log" 2>&1 &
    gw=$!
    for _ in $(seq 400); do [ -s "$port_file" ] && break; sleep 0.025; done
    port=$(cat "$port_file") cookie=$(cat "$cookie_file")
    for _ in $(seq 400); do
      curl -s -H "Authorization: Bearer $cookie" "http://127.0.0.1:$port/v1/pages" | grep -q '"state":"idle"' && return
      sleep 0.025
    done
    echo "no Node page" >&2; return 1
  }
  marker='executing ('
  killed=0 running=0 orphans=0
  for run in $(seq 1 "$runs"); do
    serve
    slow='await new Promise(r => setTimeout(r, 2000)); 1'
    [ $((run % 4)) -eq 1 ] && slow='while (true) {}'  # a page that hears nothing while it spins
    curl -s -m 10 -H "Authorization: Bearer $cookie" -d '{"page":"node","timeout":30000,"code":"'"$slow"'"}' \
      "http://127.0.0.1:$port/v1/eval" >/dev/null 2>&1 &
    curl -s -m 10 -H "Authorization: Bearer $cookie" -d '{"page":"node","code":"2"}' \
      "http://127.0.0.1:$port/v1/eval" >/dev/null 2>&1 &
    next_response
    curl -s -m 10 -H "Authorization: Bearer $cookie" --data-binary @"$work/response.md" \
      "http://127.0.0.1:$port/v1/edits?agent=soak-agent" >/dev/null 2>&1 &
    sleep "$(awk -v r=$RANDOM 'BEGIN { printf "%.3f", 0.6 * r / 32768 }')"
    grep -qsF "$marker" "$repo"/debug/*.md && running=$((running + 1))
    kids=$(children "$gw")
    kill -9 "$gw"; { wait "$gw"; } 2>/dev/null || true
    killed=$((killed + 1))
    wait  # the clients
    for k in $kids; do
      for _ in $(seq 400); do alive "$k" || break; sleep 0.025; done
      if alive "$k"; then orphans=$((orphans + 1)); echo "run $run: Node page $k outlived its gateway" >&2; kill -9 "$k"; fi
    done
  done
  serve
  out=$(curl -s -H "Authorization: Bearer $cookie" -d '{"page":"node","code":"40 + 2"}' "http://127.0.0.1:$port/v1/eval")
  eval_ok=0; echo "$out" | grep -q '"value":42' || eval_ok=1
  for _ in $(seq 400); do [ -z "$(git -C "$repo" status --porcelain)" ] && break; sleep 0.025; done
  eval_author=$(git -C "$repo" log -1 --format=%an)
  executing=$(grep -lF "$marker" "$repo"/debug/*.md | wc -l || true)
  marked=$(cat "$repo"/debug/*.md | grep -cF '(**ERROR** interrupted)' || true)
  lint=0; "$bin" lint --root "$repo" >"$work/lint.txt" 2>&1 || { lint=$?; cat "$work/lint.txt" >&2; }
  kids=$(children "$gw")
  kill "$gw"; wait "$gw" || true
  for k in $kids; do for _ in $(seq 400); do alive "$k" || break; sleep 0.025; done; alive "$k" && orphans=$((orphans + 1)); done
  echo "runs $runs: gateway killed $killed, $running of them while a job ran; jobs marked interrupted $marked;" \
    "orphan Node pages $orphans; next eval exit $eval_ok, author '$eval_author'; logs still executing $executing;" \
    "lint exit $lint"
  finish && [ "$orphans" -eq 0 ] && [ "$eval_ok" -eq 0 ] && [ "$eval_author" != "Soak User" ] && [ "$executing" -eq 0 ] &&
    [ "$lint" -eq 0 ] && [ "$marked" -ge "$running" ]
  exit
fi

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
echo "runs $runs: killed $killed, finished $finished, failed $failed"
finish && [ "$failed" -eq 0 ]
