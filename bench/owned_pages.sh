#!/usr/bin/env bash
# Builds editgate (Release, in build-bench/), installs the pinned test-only npm packages into
# build-bench/npm-owned (once; never fetched by the product): @playwright/mcp and the MCP SDK,
# and times the owned pages (page_open, page_eval) against Playwright MCP (browser_navigate,
# browser_evaluate) in one run, both on Debian's Chromium, in a temporary work folder removed
# at the end. Extra arguments go to bench/owned_pages.mjs, e.g.
#   bench/owned_pages.sh --evals 400 --opens 20
#   bench/owned_pages.sh --only playwright      # the Playwright MCP half alone
# The table goes to standard output; build and npm output to standard error.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
build="$root/build-bench"
npm_dir="$build/npm-owned"
# Pinned: Playwright MCP 0.0.83 (Playwright 1.64) drives Debian's Chromium 156; the SDK is the
# version the MCP tests use (tests/mcp/setup.sh).
packages=("@playwright/mcp@${PLAYWRIGHT_MCP_VERSION:-0.0.83}" "@modelcontextprotocol/sdk@1.32.2")

cmake -S "$root" -B "$build" -G Ninja -DEDITGATE_BENCH=ON -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >&2
ninja -C "$build" editgate >&2

installed() {  # package@version: is that version in npm-owned?
  local name="${1%@*}" version="${1##*@}" file
  file="$npm_dir/node_modules/$name/package.json"
  [ -f "$file" ] && [ "$(node -p "require(process.argv[1]).version" "$file")" = "$version" ]
}
missing=()
for p in "${packages[@]}"; do installed "$p" || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  if ! command -v npm >/dev/null; then
    echo "bench/owned_pages.sh: npm is needed once, to install ${missing[*]}: apt-get install npm" >&2
    exit 2
  fi
  mkdir -p "$npm_dir"
  # Playwright MCP never downloads a browser here: it is given Debian's Chromium.
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --prefix "$npm_dir" --no-audit --no-fund --no-save "${packages[@]}" >&2
  for p in "${packages[@]}"; do
    installed "$p" || { echo "bench/owned_pages.sh: $p did not install into $npm_dir" >&2; exit 1; }
  done
fi
chromium="$(command -v chromium || command -v chromium-browser)"

work="$(mktemp -d "${TMPDIR:-/tmp}/owned_pages.XXXXXX")"
trap 'rm -rf "$work"' EXIT
node "$here/owned_pages.mjs" --editgate "$build/gateway/editgate" --npm "$npm_dir" \
  --chromium "$chromium" --workdir "$work" "$@"
