#!/usr/bin/env bash
# Issue 17: a 1,000-run sweep of the production shape (bench/production.yaml, one simulated hour
# each): 10 checkpoint intervals x 100 seeds, in parallel on every core, timed. Prints the wall
# time and appends a line to bench/results/sweep.csv. See bench/README.md, "A 1,000-run sweep".
#
#   bench/results/sweep.sh                 the whole sweep (1,000 runs)
#   SWEEP_SEEDS=10 bench/results/sweep.sh  10 seeds per setting (100 runs)
#
# Environment: SWEEP_BUILD (default build; must hold bin/ckptsim), SWEEP_SEEDS (default 100),
# SWEEP_THREADS (default: one per core), SWEEP_NETWORK (hybrid or exact, default hybrid),
# SWEEP_OUT (default a temporary directory, removed afterwards).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
ckptsim="${SWEEP_BUILD:-$root/build}/bin/ckptsim"
seeds=${SWEEP_SEEDS:-100}
threads=${SWEEP_THREADS:-$(nproc)}
network=${SWEEP_NETWORK:-hybrid}
out="${SWEEP_OUT:-$(mktemp -d)}"
[ -n "${SWEEP_OUT:-}" ] || trap 'rm -rf "$out"' EXIT
intervals="30s,45s,1min,90s,2min,3min,4min,5min,7min,10min"

now() { python3 -c 'import time; print(time.time())'; }
start=$(now)
load=$(cut -d' ' -f1 /proc/loadavg)
"$ckptsim" sweep "$root/bench/production.yaml" --vary "network=$network" \
  --vary "execution.checkpointing.interval=$intervals" --seeds "$seeds" --threads "$threads" \
  --out "$out" >&2
wall=$(python3 -c "print(round($(now) - $start, 1))")
runs=$((10 * seeds))
csv="$here/sweep.csv"
[ -s "$csv" ] || echo "runs,threads,network,wall_s,runs_per_min,load1,commit,date" > "$csv"
rev="$(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- sim || echo +dirty)"
line="$runs,$threads,$network,$wall,$(python3 -c "print(round($runs * 60 / $wall))"),$load,$rev,$(date -u +%FT%TZ)"
echo "$line" >> "$csv"
echo "$line"
