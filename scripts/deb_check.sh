#!/bin/sh
# Builds the .deb (cpack in build/) and installs it into a fresh Debian 12
# chroot made by debootstrap, with apt, as a user would: `apt install
# ./editgate_*.deb` resolves its declared dependencies from the archive.
# Then runs `editgate --version`, `editgate check` on a small tree, and
# `editgate serve` with its built-in Node page (Node comes as a recommended
# package) answering an `editgate eval`, inside the chroot. Needs root and the Debian archive; takes a few minutes (the
# chroot is downloaded), so it is a script, not part of the test suite.
#
#   scripts/deb_check.sh [MIRROR]     (default http://deb.debian.org/debian)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
mirror=${1:-http://deb.debian.org/debian}
[ "$(id -u)" -eq 0 ] || { echo "deb_check: needs root (debootstrap, chroot)" >&2; exit 2; }
command -v debootstrap >/dev/null || apt-get install -y -q --no-install-recommends debootstrap >/dev/null

(cd "$root/build" && cpack -G DEB >/dev/null)
deb=$(ls -t "$root"/build/editgate_*_amd64.deb | head -1)
dir=$(mktemp -d /tmp/editgate-deb-XXXXXX)
cleanup() {
  umount "$dir/proc" "$dir/dev" 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT

echo "deb_check: debootstrap bookworm into $dir" >&2
debootstrap --variant=minbase bookworm "$dir" "$mirror" >"$dir.log" 2>&1 || { tail -20 "$dir.log" >&2; exit 1; }
mount -t proc proc "$dir/proc"
mount --bind /dev "$dir/dev"
cp "$deb" "$dir/tmp/"
name=$(basename "$deb")
chroot "$dir" sh -eu -c "
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  apt-get install -y -q ./tmp/$name >/tmp/apt.log 2>&1 || { tail -20 /tmp/apt.log; exit 1; }
  command -v editgate
  editgate --version
  mkdir -p /tmp/tree && printf 'alpha\n' > /tmp/tree/a.txt
  printf '%s\n' 'a.txt' '««« EDIT' 'alpha' '═══════ REPL' 'beta' '»»» EDIT END' > /tmp/blocks.md
  editgate check --root /tmp/tree /tmp/blocks.md
  editgate serve --root /tmp/tree --port 0 2>/tmp/serve.log &
  server=\$!
  for i in \$(seq 100); do editgate eval --root /tmp/tree node '6 * 7' 2>/dev/null && break; sleep 0.2; done
  kill \$server
  wait \$server || true
"
echo "deb_check: $name installs on a fresh Debian 12 and runs" >&2
