#!/usr/bin/env bash
# Installs the MCP clients nobody here wrote into BUILD_DIR/npm-mcp/, once
# (the test set-up, never the product's run time; pinned versions):
#   conf-2025/  @modelcontextprotocol/conformance 0.1.16 (the 2025-11-25 suite)
#   conf-2026/  @modelcontextprotocol/conformance 0.2.0-alpha.12 (the 2026-07-28 suite)
#   clients/    @modelcontextprotocol/sdk 1.32.2 (v1) and @modelcontextprotocol/client 2.4.0 (v2)
#   per-call/   mcporter 0.9.0 and @modelcontextprotocol/inspector 0.15.0 (its CLI): clients
#               that start a connection for every call
# The two conformance versions share a package name, hence a folder each.
# A folder whose package already has the pinned version is left alone.
# Then checks that both conformance CLIs start on this Node (fs-glob-register.mjs).
# Usage: tests/mcp/setup.sh BUILD_DIR. Fails, naming what to install, when
# npm is missing and the packages are not there yet (scripts/deps.sh installs
# npm): the MCP tests are never skipped in silence.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
dest="$1/npm-mcp"

# folder, then package@version pairs
installs=(
  "conf-2025 @modelcontextprotocol/conformance@0.1.16"
  "conf-2026 @modelcontextprotocol/conformance@0.2.0-alpha.12"
  "clients @modelcontextprotocol/sdk@1.32.2 @modelcontextprotocol/client@2.4.0"
  "per-call mcporter@0.9.0 @modelcontextprotocol/inspector@0.15.0"
)

installed() {  # folder package@version: is that version in folder/node_modules?
  local spec="$2" name version file
  name="${spec%@*}" version="${spec##*@}"
  file="$dest/$1/node_modules/$name/package.json"
  [ -f "$file" ] && [ "$(node -p "require(process.argv[1]).version" "$file")" = "$version" ]
}

for line in "${installs[@]}"; do
  read -r folder specs <<<"$line"
  missing=0
  for spec in $specs; do installed "$folder" "$spec" || missing=1; done
  [ $missing -eq 0 ] && continue
  if ! command -v npm >/dev/null; then
    echo "tests/mcp/setup.sh: npm is needed once, to install $specs into $dest/$folder (scripts/deps.sh installs it)" >&2
    exit 1
  fi
  mkdir -p "$dest/$folder"
  # shellcheck disable=SC2086 # specs is a list of words
  npm install --prefix "$dest/$folder" --no-audit --no-fund --save-exact $specs >&2
  for spec in $specs; do
    installed "$folder" "$spec" || { echo "tests/mcp/setup.sh: $spec did not install into $dest/$folder" >&2; exit 1; }
  done
done

for folder in conf-2025 conf-2026; do
  cli="$dest/$folder/node_modules/@modelcontextprotocol/conformance/dist/index.js"
  listed="$(node --import "$here/fs-glob-register.mjs" "$cli" list --server)" || listed=""
  if [[ "$listed" != *dns-rebinding-protection* ]]; then
    echo "tests/mcp/setup.sh: the conformance CLI in $dest/$folder does not start" >&2
    exit 1
  fi
done
echo "MCP clients installed in $dest"
