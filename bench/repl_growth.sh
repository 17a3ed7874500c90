#!/usr/bin/env bash
# How the repository grows with the REPL's history: a gateway with its Node
# page on a fresh workspace, N evals one after another (`editgate eval`),
# then the commits on the branch and on the REPL's ref, the bytes of debug/,
# and the bytes and loose objects of .git. Uses the editgate given as
# EDITGATE (default: build/gateway/editgate). bench/repl_growth.sh [N]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
editgate="${EDITGATE:-$(dirname "$here")/build/gateway/editgate}"
n="${1:-1000}"
work="$(mktemp -d "${TMPDIR:-/tmp}/repl_growth.XXXXXX")"
export XDG_STATE_HOME="$work/state"
ws="$work/ws"
mkdir -p "$ws"
git -C "$ws" init -q -b main
echo "let app = 1;" > "$ws/app.js"
git -C "$ws" add app.js
git -C "$ws" -c user.name=bench -c user.email=bench@example.com commit -q -m "the app"
"$editgate" serve --root "$ws" --port 0 >"$work/serve.out" 2>"$work/serve.err" &
gw=$!
trap 'kill $gw 2>/dev/null; wait $gw 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do [ -f "$XDG_STATE_HOME/editgate/workspaces/"*/port ] 2>/dev/null && break; sleep 0.1; done
sleep 1
start=$(date +%s.%N)
for i in $(seq "$n"); do
  "$editgate" eval --root "$ws" node "({ i: $i, squared: $i * $i, text: 'exchange number $i' })" >/dev/null
done
end=$(date +%s.%N)
sleep 1.5  # the last commit's hold and gap
# The REPL's objects are packed when its commits pause (2 s): wait until
# what is loose is the branch's own few objects, at most 10 minutes.
loose_count() { git -C "$ws" count-objects -v 2>/dev/null | awk '/^count:/ {print $2}'; }
waited=0
while [ "$waited" -lt 600 ] && [ "$(loose_count)" -gt 10 ]; do sleep 1; waited=$((waited + 1)); done
cpu=$(awk '{printf "%.1f", ($14 + $15) / 100}' "/proc/$gw/stat")
kill "$gw"; wait "$gw" 2>/dev/null || true
ref=$(git -C "$ws" for-each-ref --format='%(refname)' refs/editgate/repl/)
branch_commits=$(git -C "$ws" rev-list --count HEAD)
if [ -z "$ref" ]; then  # an editgate from before the REPL's own ref: its commits are on the branch
  ref=HEAD
  repl_commits=$((branch_commits - 1))
else
  repl_commits=$(git -C "$ws" rev-list --count "$ref")
fi
exchanges=$(git -C "$ws" log --format=%B "$ref" | grep -c '^Editgate-Job: ' || true)
debug_bytes=$(du -sb "$ws/debug" | cut -f1)
# Regular files only: the empty objects/xx folders packed objects leave
# (4 KiB each, 256 at most) are not the store.
git_bytes=$(find "$ws/.git" -type f -printf '%s\n' | awk '{s += $1} END {print s}')
loose=$(git -C "$ws" count-objects -v | awk '/^count:/ {print $2}')
loose_kb=$(git -C "$ws" count-objects -v | awk '/^size:/ {print $2}')
echo "exchanges            $n in $(echo "$end - $start" | bc) s"
echo "branch commits       $branch_commits"
echo "REPL commits         $repl_commits (1 page connect; job trailers found: $exchanges)"
echo "commits per exchange $(echo "scale=3; ($repl_commits - 1) / $n" | bc)"
echo "debug/ bytes         $debug_bytes"
echo ".git bytes           $git_bytes ($(echo "scale=1; $git_bytes / $n" | bc) per exchange; goal 2 x debug/ + 1 MB = $((2 * debug_bytes + 1048576)))"
echo "loose objects        $loose ($loose_kb KiB)"
pack_bytes=$(find "$ws/.git/objects/pack" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')
echo "packs                $(find "$ws/.git/objects/pack" -name '*.pack' | wc -l) ($pack_bytes bytes with their .idx)"
echo "besides objects/     $(find "$ws/.git" -path "$ws/.git/objects" -prune -o -type f -printf '%s %P\n' | sort -rn | head -3 | awk '{printf "%s%s (%d bytes)", (NR > 1 ? ", " : ""), $2, $1}')"
echo "gateway CPU          $cpu s (user + system, whole run; waited ${waited} s for the last pack)"
