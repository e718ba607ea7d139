#!/bin/sh
# The Docker image test (`make test-docker`, as root): builds the repository's Dockerfile, as it
# is, into ckptsim:test from build/package/ckptsim_*.deb, then runs the image: `ckptsim
# --version`, its default command, the built-in default scenario, the installed example scenarios,
# and the container command of the Kubernetes template in docs/sweeps.md (shard 0 of 10).
#
# A Docker engine is needed. If none answers, this script starts Debian's dockerd (package
# docker.io) with the vfs storage driver and no bridge or iptables (it works inside a container
# without overlayfs or netfilter), and stops it at the end; builds use the host's network.
# The Dockerfile's base image, debian:12-slim, is pulled from Docker Hub when the machine reaches
# it; where it does not (this project's CI machines reach Debian's mirror only), the same release
# is made with `debootstrap --variant=minbase bookworm` and tagged debian:12-slim locally, which is
# what the slim image is (Debian's minbase, trimmed docs).
# Usage: run_test.sh BUILD_DIR. CKPTSIM_DEBIAN_MIRROR overrides deb.debian.org.
set -eu
build=$(cd "${1:-build}" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
mirror=${CKPTSIM_DEBIAN_MIRROR:-http://deb.debian.org/debian}
work=$build/docker-test
start=$(date +%s)

if [ "$(id -u)" != 0 ]; then
  echo "$0: needs root (dockerd, debootstrap); run it as root, as CI does" >&2
  exit 1
fi
set -- "$build"/package/ckptsim_*.deb
[ $# = 1 ] && [ -f "$1" ] || { echo "expected one build/package/ckptsim_*.deb, found: $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"

dockerd_pid=""
cleanup() {
  [ -z "$dockerd_pid" ] || { kill "$dockerd_pid" 2>/dev/null; wait "$dockerd_pid" 2>/dev/null || true; }
}
trap cleanup EXIT INT TERM
if ! docker info > /dev/null 2>&1; then
  echo "docker: no engine answers; starting dockerd (vfs, no bridge)"
  dockerd --storage-driver=vfs --iptables=false --ip6tables=false --bridge=none \
    --data-root "${CKPTSIM_DOCKER_DATA_ROOT:-/var/lib/docker}" > "$work/dockerd.log" 2>&1 &
  dockerd_pid=$!
  for _ in $(seq 1 100); do docker info > /dev/null 2>&1 && break; sleep 0.2; done
  docker info > /dev/null 2>&1 || { tail -n 20 "$work/dockerd.log" >&2; exit 1; }
fi

if ! docker image inspect debian:12-slim > /dev/null 2>&1 &&
   ! docker pull debian:12-slim > "$work/pull.log" 2>&1; then
  echo "docker: debian:12-slim cannot be pulled here; making it with debootstrap from $mirror"
  debootstrap --variant=minbase bookworm "$work/rootfs" "$mirror" > "$work/debootstrap.log" 2>&1 || {
    tail -n 20 "$work/debootstrap.log" >&2
    exit 1
  }
  rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb "$work/rootfs/var/lib/apt/lists/"*
  tar -C "$work/rootfs" -c . | docker import - debian:12-slim > /dev/null
  rm -rf "$work/rootfs"
fi

# The Dockerfile as it is; the legacy builder (Debian's engine has no BuildKit plugin).
DOCKER_BUILDKIT=0 docker build --network host -t ckptsim:test "$root" > "$work/build.log" 2>&1 || {
  tail -n 30 "$work/build.log" >&2
  exit 1
}
docker run --rm ckptsim:test ckptsim --version > "$work/version.txt"
cat "$work/version.txt"
grep -Eq '^ckptsim [0-9]+\.[0-9]+\.[0-9]+ \(git ([0-9a-f]{12}|unknown)\)' "$work/version.txt"
# The image's default command prints the help.
docker run --rm ckptsim:test | grep -q '^Usage: ckptsim'
# The default scenario, from the image's working directory.
docker run --rm ckptsim:test ckptsim run > "$work/run.txt"
grep -q '^ckptsim run: doris-cdc-table-swap ' "$work/run.txt"
docker run --rm ckptsim:test ckptsim test /usr/share/ckptsim/scenarios/examples > "$work/test.txt"
tail -n 1 "$work/test.txt"
grep -q ' 0 failed$' "$work/test.txt"
# The Kubernetes template of docs/sweeps.md: its container's command, taken from the document,
# run as the pod of completion index 0 would run it (the seed incident as the ConfigMap's
# incident.yaml, a directory as the shards volume).
args=$(awk '/^```yaml fragment/ { on = 1 } on && /^```$/ { on = 0 }
  on && /args:/ { a = 1; next } on && /volumeMounts:/ { a = 0 }
  a { sub(/^ *- /, ""); sub(/^ */, ""); printf "%s ", $0 }' "$root/docs/sweeps.md")
case $args in "ckptsim sweep /scenarios/incident.yaml"*) ;; *)
  echo "docs/sweeps.md: no Kubernetes template's args found (got: $args)" >&2; exit 1 ;; esac
mkdir -p "$work/shards" "$work/scenarios"
cp "$root/scenarios/seed/doris-cdc-table-swap.yaml" "$work/scenarios/incident.yaml"
docker run --rm -e JOB_COMPLETION_INDEX=0 -v "$work/shards:/shards" \
  -v "$work/scenarios:/scenarios:ro" ckptsim:test sh -c "$args" > "$work/sweep.txt" 2>&1 || {
  cat "$work/sweep.txt" >&2; exit 1; }
points=$(ls "$work/shards/0/points" | grep -c '\.json$' || true)
echo "Kubernetes template, shard 0 of 10: $points points"
[ "$points" = 30 ] || { cat "$work/sweep.txt" >&2; exit 1; }
docker image rm ckptsim:test > /dev/null
echo "docker test passed: the Dockerfile built with $(basename "$1") and ran in $(( $(date +%s) - start )) s"
