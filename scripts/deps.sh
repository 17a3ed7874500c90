#!/bin/sh
# Installs the Debian 12 packages editgate needs to build and test, skipping
# those already installed. Runs apt only when something is missing.
set -eu

packages="g++ cmake ninja-build pkg-config ccache ca-certificates \
  libboost1.81-dev libboost-json1.81-dev libdtl-dev catch2 libcli11-dev \
  libgit2-dev git curl libcmark-gfm-dev libcmark-gfm-extensions-dev nodejs chromium tmux python3-websockets \
  clang libclang-rt-14-dev llvm-14"

missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
if [ -n "$missing" ]; then
  echo "editgate: installing$missing" >&2
  $sudo apt-get -o DPkg::Lock::Timeout=300 update -q
  # shellcheck disable=SC2086
  $sudo apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends $missing
fi
# npm installs the MCP clients the tests run against (into the build folder).
# NodeSource's nodejs carries it; Debian's comes without it, as package npm.
if ! command -v npm >/dev/null 2>&1; then
  echo "editgate: installing npm" >&2
  $sudo apt-get -o DPkg::Lock::Timeout=300 update -q
  $sudo apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends npm
fi
