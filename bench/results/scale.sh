#!/usr/bin/env bash
# Issue 6 item 3: runs the BM_Scale rows of bench/scale_bench.cpp one process per row (so each
# row's peak RSS is its own), pinned to one core, and writes bench/results/scale.csv (one line per
# row and repetition), then the plots (bench/results/plot.py). See bench/README.md, "Scale".
#
#   bench/results/scale.sh                 every sweep row, 3 repetitions
#   SCALE_REPS=1 bench/results/scale.sh    one repetition
#   SCALE_ROWS="250:100:300" bench/results/scale.sh   only these rows (P:rate_x10:sim_s)
#
# Environment: SCALE_BUILD (default build-bench; configured and built if missing), SCALE_CPU
# (core to pin to, default the last one), SCALE_REPS, SCALE_ROWS, SCALE_CSV (default
# bench/results/scale.csv; rows are appended to an existing file), SCALE_NO_PLOT=1.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${SCALE_BUILD:-$root/build-bench}"
reps=${SCALE_REPS:-3}
csv="${SCALE_CSV:-$here/scale.csv}"
# The registered sweep (scale_bench.cpp, scale_rows): parallelism at 10 MB/s, then volume at
# P = 32 and P = 250; rate_x10 is ten times the MB/s per source subtask. Rows that are not
# registered can only be P = 250 at 10 MB/s (any sim_s): the script passes their sim_s to the
# benchmark as CKPTSIM_SCALE_SECONDS, e.g. SCALE_ROWS="250:100:60".
# P = 250 rows simulate 20 s: about 5 s of wall time per simulated second on the reference machine.
rows=${SCALE_ROWS:-"16:100:60 32:100:60 64:100:60 125:100:60 250:100:20
  32:10:60 32:25:60 32:50:60 32:200:60 32:400:60
  250:10:20 250:25:20 250:50:20 250:200:20 250:400:20"}

if [ ! -x "$build/bin/ckptsim_bench" ]; then
  [ -f "$build/CMakeCache.txt" ] ||
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >&2
  cmake --build "$build" -j1 --target ckptsim_bench >&2
fi
registered="$("$build/bin/ckptsim_bench" --benchmark_list_tests)"
pin=()
command -v taskset >/dev/null && pin=(taskset -c "${SCALE_CPU:-$(($(nproc) - 1))}")

rev="$(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- sim bench/scale_bench.cpp || echo +dirty)"
[ -s "$csv" ] || echo "P,subtasks,mb_per_s,sim_s,source_gb,rep,wall_s,cpu_s,wall_per_sim_hour_s,events,buffers,events_per_cpu_s,buffers_per_cpu_s,completed,failed,p50_ms,peak_rss_mib,load1,commit,date" > "$csv"

for r in $(seq 1 "$reps"); do
  for row in $rows; do
    IFS=: read -r p rate secs <<< "$row"
    echo "scale rep $r/$reps  P=$p rate_x10=$rate sim_s=$secs" >&2
    load=$(cut -d' ' -f1 /proc/loadavg)
    extra=""  # a row the benchmark does not register: P = 250, 10 MB/s for sim_s seconds
    grep -q "^BM_Scale/P:$p/rate_x10:$rate/sim_s:$secs/" <<< "$registered" || extra=$secs
    CKPTSIM_SCALE_SECONDS=$extra "${pin[@]}" "$build/bin/ckptsim_bench" \
      --benchmark_filter="^BM_Scale/P:$p/rate_x10:$rate/sim_s:$secs/" --benchmark_format=json \
      2>/dev/null |
      python3 -c '
import json, sys
rep, load, rev, date = sys.argv[1:5]
runs = json.load(sys.stdin)["benchmarks"]
assert len(runs) == 1, [b["name"] for b in runs]
b = runs[0]
vals = [int(b["subtasks"]) // 4, int(b["subtasks"]), b["mb_per_s"], int(b["sim_s"]), b["source_gb"], rep]
vals += ["%.3f" % b["wall_s"], "%.3f" % b["cpu_s"], "%.1f" % b["wall_per_sim_hour_s"]]
vals += [int(b["events"]), int(b["buffers"]), "%.0f" % b["events/s"], "%.0f" % b["buffers/s"]]
vals += [int(b["completed"]), int(b["failed"]), "%.1f" % b["p50_ms"], "%.0f" % b["peak_rss_mib"]]
vals += [load, rev, date]
print(",".join(str(v) for v in vals))
' "$r" "$load" "$rev" "$(date -u +%FT%TZ)" >> "$csv"
    tail -1 "$csv" >&2
  done
done

[ "${SCALE_NO_PLOT:-0}" = 1 ] || python3 "$here/plot.py" "$csv"
