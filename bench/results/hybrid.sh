#!/usr/bin/env bash
# Issue 17: wall time of the production shape (bench/shapes.hpp `production`) in both network
# modes, against parallelism and against the data volume. Runs each row of BM_Production
# (bench/scale_bench.cpp, registered through CKPTSIM_PRODUCTION_ROW) in one process, both modes
# side by side, pinned to one core, into bench/results/hybrid.csv, then draws
# hybrid_vs_parallelism.svg and hybrid_vs_volume.svg (bench/results/plot_hybrid.py).
#
#   bench/results/hybrid.sh                         every row, 10 simulated minutes each
#   HYBRID_ROWS="32:5000:600" bench/results/hybrid.sh   only these rows (P:records/s:sim_s)
#
# Environment: HYBRID_BUILD (default build-bench; configured and built if missing), HYBRID_CPU
# (core to pin to, default the last one), HYBRID_ROWS, HYBRID_CSV (default bench/results/hybrid.csv;
# rows are appended to an existing file), HYBRID_NO_PLOT=1.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${HYBRID_BUILD:-$root/build-bench}"
csv="${HYBRID_CSV:-$here/hybrid.csv}"
# Parallelism at 5,000 records/s of 500 B per source subtask, then volume at P = 32.
rows=${HYBRID_ROWS:-"8:5000:600 16:5000:600 32:5000:600 64:5000:600 128:5000:600
  32:1250:600 32:2500:600 32:10000:600 32:20000:600 32:40000:600"}

if [ ! -x "$build/bin/ckptsim_bench" ]; then
  [ -f "$build/CMakeCache.txt" ] ||
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >&2
  cmake --build "$build" -j1 --target ckptsim_bench >&2
fi
pin=()
command -v taskset >/dev/null && pin=(taskset -c "${HYBRID_CPU:-$(($(nproc) - 1))}")
rev="$(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- sim bench || echo +dirty)"
[ -s "$csv" ] || echo "P,rate,sim_s,source_gb,network,wall_s,cpu_s,events,buffers,skipped_s,completed,peak_rss_mib,load1,commit,date" > "$csv"

for row in $rows; do
  echo "hybrid row $row" >&2
  load=$(cut -d' ' -f1 /proc/loadavg)
  CKPTSIM_PRODUCTION_ROW=$row "${pin[@]}" "$build/bin/ckptsim_bench" \
    --benchmark_filter="^BM_Production/P:${row%%:*}/rate:$(cut -d: -f2 <<< "$row")/sim_s:${row##*:}/" \
    --benchmark_format=json 2>/dev/null |
    python3 -c '
import json, sys
load, rev, date = sys.argv[1:4]
runs = json.load(sys.stdin)["benchmarks"]
assert len(runs) == 2, [b["name"] for b in runs]
for b in runs:
    mode = "hybrid" if b["name"].split("/hybrid:")[1].startswith("1") else "exact"
    vals = [int(b["subtasks"]) // 3, int(b["rate"]), int(b["sim_s"]), "%.3f" % b["source_gb"], mode]
    vals += ["%.3f" % b["wall_s"], "%.3f" % b["cpu_s"], int(b["events"]), int(b["buffers"])]
    vals += ["%.1f" % b["skipped_s"], int(b["completed"]), "%.0f" % b["peak_rss_mib"], load, rev, date]
    print(",".join(str(v) for v in vals))
' "$load" "$rev" "$(date -u +%FT%TZ)" >> "$csv"
  tail -2 "$csv" >&2
done

[ "${HYBRID_NO_PLOT:-0}" = 1 ] || python3 "$here/plot_hybrid.py" "$csv"
