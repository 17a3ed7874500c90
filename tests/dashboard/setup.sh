#!/usr/bin/env bash
# Installs playwright-core (pinned) into BUILD_DIR/npm-dashboard/, once: the
# dashboard tests drive Debian's /usr/bin/chromium through it (the test
# set-up, never the product's run time; playwright-core downloads no browser).
# Usage: tests/dashboard/setup.sh BUILD_DIR. Fails, naming npm, when npm is
# missing and the package is not there yet (scripts/deps.sh installs npm):
# the dashboard tests are never skipped in silence.
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
dest="$1/npm-dashboard"
version=1.65.1
file="$dest/node_modules/playwright-core/package.json"

installed() { [ -f "$file" ] && [ "$(node -p "require(require('path').resolve(process.argv[1])).version" "$file")" = "$version" ]; }

if ! installed; then
  if ! command -v npm >/dev/null; then
    echo "tests/dashboard/setup.sh: npm is needed once, to install playwright-core@$version into $dest (scripts/deps.sh installs it)" >&2
    exit 1
  fi
  mkdir -p "$dest"
  npm install --prefix "$dest" --no-audit --no-fund --save-exact "playwright-core@$version" >&2
  installed || { echo "tests/dashboard/setup.sh: playwright-core@$version did not install into $dest" >&2; exit 1; }
fi
[ -x /usr/bin/chromium ] || { echo "tests/dashboard/setup.sh: /usr/bin/chromium is missing (apt-get install chromium)" >&2; exit 1; }
echo "playwright-core $version installed in $dest"
