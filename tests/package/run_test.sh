#!/bin/sh
# The package test (`make test-package`, as root): installs build/package/ckptsim_*.deb with
# `dpkg -i` into a clean Debian 12 chroot (debootstrap --variant=minbase, which has none of the
# libraries ckptsim links beyond libc and libstdc++), after installing only what the package's
# Depends names, then runs the installed ckptsim there. A Depends that lacks a library ckptsim
# needs fails here: dpkg -i refuses, or the binary does not load.
# Usage: run_test.sh BUILD_DIR. CKPTSIM_DEBIAN_MIRROR overrides deb.debian.org.
set -eu
build=$(cd "${1:-build}" && pwd)
mirror=${CKPTSIM_DEBIAN_MIRROR:-http://deb.debian.org/debian}
work=$build/package-test
root=$work/root
start=$(date +%s)

if [ "$(id -u)" != 0 ]; then
  echo "$0: needs root (debootstrap, chroot); run it as root, as CI does" >&2
  exit 1
fi
set -- "$build"/package/ckptsim_*.deb
[ $# = 1 ] && [ -f "$1" ] || { echo "expected one build/package/ckptsim_*.deb, found: $*" >&2; exit 1; }
deb=$1

# What the package must hold.
contents=$(dpkg-deb -c "$deb")
for f in ./usr/bin/ckptsim ./usr/share/man/man1/ckptsim.1.gz \
         ./usr/share/ckptsim/scenarios/seed/doris-cdc-table-swap.yaml \
         ./usr/share/ckptsim/scenarios/examples/stalled-sink.yaml \
         ./usr/share/doc/ckptsim/README.md ./usr/share/doc/ckptsim/docs/sweeps.md; do
  echo "$contents" | grep -q " $f\$" || { echo "the package lacks $f" >&2; exit 1; }
done

rm -rf "$work"
mkdir -p "$work"
echo "debootstrap: Debian 12 minbase from $mirror into $root"
debootstrap --variant=minbase bookworm "$root" "$mirror" > "$work/debootstrap.log" 2>&1 || {
  tail -n 20 "$work/debootstrap.log" >&2
  exit 1
}
echo "debootstrap took $(( $(date +%s) - start )) s"
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 "$@"; }

# The chroot is clean: the binary alone, before its Depends, does not load.
dpkg-deb -x "$deb" "$root/tmp/unpacked"
if in_root /tmp/unpacked/usr/bin/ckptsim --version > /dev/null 2>&1; then
  echo "ckptsim ran in the chroot before its Depends were installed: the chroot is not clean" >&2
  exit 1
fi
rm -rf "$root/tmp/unpacked"

# The Depends, names only (dpkg -i checks the versions).
depends=$(dpkg-deb -f "$deb" Depends | sed 's/([^)]*)//g; s/|/ /g; s/,/ /g')
echo "Depends: $(dpkg-deb -f "$deb" Depends)"
in_root apt-get update -qq > "$work/apt.log" 2>&1 || { tail -n 20 "$work/apt.log" >&2; exit 1; }
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  $depends >> "$work/apt.log" 2>&1 || { tail -n 20 "$work/apt.log" >&2; exit 1; }
cp "$deb" "$root/tmp/ckptsim.deb"
in_root dpkg -i /tmp/ckptsim.deb
in_root dpkg -s ckptsim | grep -qx 'Status: install ok installed'

in_root ckptsim --version > "$work/version.txt"
cat "$work/version.txt"
grep -Eq '^ckptsim [0-9]+\.[0-9]+\.[0-9]+ \(git [0-9a-f]{12}|unknown\)' "$work/version.txt"
grep -q '^models Apache Flink 1\.15' "$work/version.txt"
# The built-in default scenario, from a directory with nothing in it.
in_root sh -c 'mkdir -p /tmp/run && cd /tmp/run && ckptsim run' > "$work/run.txt"
head -n 2 "$work/run.txt"
grep -q '^ckptsim run: doris-cdc-table-swap ' "$work/run.txt"
[ -f "$root/tmp/run/ckptsim-out/summary.json" ]
# Every installed scenario runs and meets its expect: section.
in_root ckptsim test /usr/share/ckptsim/scenarios --threads "$(nproc)" > "$work/scenarios.txt"
tail -n 1 "$work/scenarios.txt"
in_root sh -c 'zcat /usr/share/man/man1/ckptsim.1.gz | grep -q "^\.TH CKPTSIM 1"'
in_root dpkg -r ckptsim > /dev/null
[ ! -e "$root/usr/bin/ckptsim" ]

rm -rf "$root"
echo "package test passed: $(basename "$deb") installed with dpkg -i in a clean Debian 12 chroot" \
  "in $(( $(date +%s) - start )) s"
