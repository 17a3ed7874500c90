#!/bin/sh
# Builds the libFuzzer targets of tests/fuzz with clang, ASan and UBSan into
# build-fuzz/ and runs them. Any finding (crash, sanitizer report, broken
# invariant, leak, an input slower than 10 s) fails the run; its input is
# kept under build-fuzz/findings/<target>/.
#
#   scripts/fuzz.sh --short                 each target 5 s (the test suite's run)
#   scripts/fuzz.sh --runs 10000000         each target for 10 million inputs
#   scripts/fuzz.sh --target parser --time 3600
#
# The corpus each target grows is kept in build-fuzz/corpus/<target>/; the
# seeds come from fixtures/ and tests/fuzz/seeds/<target>/, and the inputs
# under tests/fuzz/regressions/<target>/ (past findings) are run first.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-fuzz"
all_targets="parser path_line chatlog chatlog_writer intake ops"

targets="" runs="" time="" short=0 build_only=0
usage() {
  echo "usage: $0 [--short] [--target NAME]... [--runs N | --time SECONDS] [--build-only]" >&2
  echo "targets: $all_targets" >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case "$1" in
    --short) short=1 ;;
    --target) [ $# -ge 2 ] || usage; targets="$targets $2"; shift ;;
    --runs) [ $# -ge 2 ] || usage; runs="$2"; shift ;;
    --time) [ $# -ge 2 ] || usage; time="$2"; shift ;;
    --build-only) build_only=1 ;;
    *) usage ;;
  esac
  shift
done
[ -n "$targets" ] || targets="$all_targets"
for t in $targets; do
  case " $all_targets " in *" $t "*) ;; *) echo "fuzz: no target $t" >&2; usage ;; esac
done
if [ "$short" = 1 ]; then time=${time:-5}; fi
[ -n "$runs" ] || [ -n "$time" ] || time=60

# Exit 77 (the suite's "skipped") when the toolchain is missing: scripts/deps.sh installs it.
cxx=$(command -v clang++ || true)
cc=$(command -v clang || true)
if [ -z "$cxx" ] || [ -z "$cc" ]; then
  echo "fuzz: clang is not installed (scripts/deps.sh installs clang and libclang-rt-14-dev)" >&2
  exit 77
fi
if ! [ -f "$("$cxx" -print-file-name=libclang_rt.fuzzer-x86_64.a)" ]; then
  echo "fuzz: libFuzzer is not installed (libclang-rt-14-dev)" >&2
  exit 77
fi

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_COMPILER="$cc" -DEDITGATE_FUZZ=ON -DBUILD_TESTING=OFF >/dev/null
build_targets=""
for t in $targets; do build_targets="$build_targets fuzz_$t"; done
# shellcheck disable=SC2086
cmake --build "$build" --target $build_targets
[ "$build_only" = 0 ] || exit 0

# Seeds from the fixtures, in each target's input form.
seeds="$build/seeds"
rm -rf "$seeds"
mkdir -p "$seeds/parser" "$seeds/path_line" "$seeds/chatlog" "$seeds/chatlog_writer" "$seeds/intake"
n=0
for f in "$root"/fixtures/example/response.md "$root"/fixtures/cli/*.md; do
  n=$((n + 1))
  # The first byte says how many chunk sizes follow: none, then three.
  { printf '\000'; cat "$f"; } >"$seeds/parser/fixture-$n"
  { printf '\003\001\007\015'; cat "$f"; } >"$seeds/parser/fixture-$n-chunked"
  # Each line of a response is a candidate path line.
  awk -v dir="$seeds/path_line" -v n="$n" 'length($0) > 0 && length($0) < 200 {
      f = sprintf("%s/fixture-%d-%d", dir, n, NR); printf "%s", $0 > f; close(f) }' "$f"
done
request='> **agent** to page at 12:00:00\n```js\n1 + 1\n```\n'
n=0
for f in $(find "$root/fixtures/lint" -name '*.md' | sort); do
  n=$((n + 1))
  cp "$f" "$seeds/chatlog/fixture-$n"
  cp "$f" "$seeds/chatlog_writer/fixture-$n"
  # The log as known, then what was appended: a request, a request without
  # its header, a draft.
  { cat "$f"; printf '\000+'; printf "$request"; } >"$seeds/intake/fixture-$n-request"
  { cat "$f"; printf '\000+```js\nconsole.log(1)\n```\n'; } >"$seeds/intake/fixture-$n-headless"
  { cat "$f"; printf '\000+```js\nwhile (\n'; } >"$seeds/intake/fixture-$n-draft"
done

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
for s in /usr/lib/llvm-14/bin/llvm-symbolizer "$(command -v llvm-symbolizer || true)"; do
  if [ -n "$s" ] && [ -x "$s" ]; then export ASAN_SYMBOLIZER_PATH="$s"; break; fi
done

status=0
summary=""
for t in $targets; do
  bin="$build/tests/fuzz/fuzz_$t"
  # The corpus a long run grows is kept; a short run starts from the seeds
  # alone, so its time does not grow with that corpus.
  corpus="$build/corpus/$t"
  if [ "$short" = 1 ]; then
    corpus="$build/short-corpus/$t"
    rm -rf "$corpus"
  fi
  findings="$build/findings/$t"
  mkdir -p "$corpus" "$findings"
  dirs=""
  for d in "$seeds/$t" "$root/tests/fuzz/seeds/$t"; do
    [ -d "$d" ] && dirs="$dirs $d"
  done
  log="$build/fuzz-$t.log"
  # Past findings first, each input once.
  regressions="$root/tests/fuzz/regressions/$t"
  if [ -d "$regressions" ] && [ -n "$(ls -A "$regressions")" ]; then
    if ! "$bin" "$regressions"/* >"$log" 2>&1; then
      echo "fuzz: $t fails on a regression input; see $log" >&2
      tail -n 40 "$log" >&2
      status=1
      continue
    fi
  fi
  limit=""
  [ -n "$runs" ] && limit="$limit -runs=$runs"
  [ -n "$time" ] && limit="$limit -max_total_time=$time"
  echo "fuzz: $t ($limit )" >&2
  # shellcheck disable=SC2086
  if "$bin" $limit -timeout=10 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
      -artifact_prefix="$findings/" "$corpus" $dirs >"$log" 2>&1; then
    done_line=$(grep -E '^Done [0-9]+ runs' "$log" | tail -n 1)
    echo "fuzz: $t: ${done_line:-finished}" >&2
    summary="$summary$t: ${done_line:-finished}
"
  else
    echo "fuzz: $t found a problem; the input is in $findings/, the log in $log" >&2
    tail -n 60 "$log" >&2
    status=1
  fi
done
printf '%s' "$summary"
exit $status
