#!/bin/sh
# A command-line agent with nothing but files: it appends a request to a
# page's chat log with `cat >>`, as an LLM in a terminal would, and learns
# the reply either from `editgate wait` or by polling the page's markers.
#   append_and_wait.sh EDITGATE ROOT PAGE CODE [wait|poll]
set -eu
editgate=$1 root=$2 page=$3 code=$4 how=${5:-wait}
# The page's markers, in the agents' folder in the git folder: `editgate where` names it.
dir="$("$editgate" where --root "$root" pages)/$page"
log="$root/debug/$page.md"
number() { cat "$1" 2>/dev/null || echo 0; }

before=$(number "$dir/ack.marker")
cat >>"$log" <<REQUEST
\`\`\`js
$code
\`\`\`
REQUEST

if [ "$how" = wait ]; then
  exec "$editgate" wait --root "$root" --page "$page" --timeout 30
fi

# Polling, as a file-driven agent's backend does: accepted once ack.marker passes the
# number it held before; answered once completed.marker reaches it.
tries=0
until [ "$(number "$dir/ack.marker")" -gt "$before" ]; do
  tries=$((tries + 1)); [ $tries -lt 1500 ] || { echo "never accepted" >&2; exit 3; }
  sleep 0.02
done
job=$(number "$dir/ack.marker")
until [ "$(number "$dir/completed.marker")" -ge "$job" ]; do
  tries=$((tries + 1)); [ $tries -lt 3000 ] || { echo "never completed" >&2; exit 3; }
  sleep 0.02
done
grep "\"type\":\"reply\",\"job\":$job," "$dir/chat_history.jsonl"
