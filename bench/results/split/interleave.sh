#!/bin/bash
# Usage: interleave.sh ROUNDS OUT.csv ROW... (ROW: a full benchmark name from --benchmark_list_tests). Per round and row it runs
# /work/bench-pre and /work/bench-post (git worktrees at 9473b34 and the measured HEAD, built Release) one process each,
# pre first in odd rounds and post first in even ones; JSON to /tmp/bench/json, one CSV row per repetition to /tmp/bench/OUT.csv:
# round,binary,benchmark,repetition,real_time,cpu_time,unit,load1,events,buffers,cpu_s
# Interleaved timing: for each round, for each row, run the pre and the post binary (order
# alternating by round), one process per row, JSON out; append CSV rows.
set -u
ROUNDS=$1; shift
OUT=/tmp/bench/$1; shift   # csv name
ROWS=("$@")
echo "round,binary,benchmark,repetition,real_time,cpu_time,time_unit,load1" >> $OUT.hdr
for r in $(seq 1 $ROUNDS); do
  if (( r % 2 )); then order="pre post"; else order="post pre"; fi
  for row in "${ROWS[@]}"; do
    for b in $order; do
      load=$(cut -d' ' -f1 /proc/loadavg)
      j=/tmp/bench/json/$b-r$r-$(echo "$row" | tr -c 'A-Za-z0-9_' '_').json
      /work/bench-$b/build/bin/ckptsim_bench --benchmark_filter="^${row}\$" --benchmark_format=json --benchmark_out=$j --benchmark_out_format=json > /dev/null 2>>/tmp/bench/stderr.txt
      python3 - "$j" "$r" "$b" "$load" >> $OUT <<'PY'
import json, sys
j, r, b, load = sys.argv[1:]
d = json.load(open(j))
i = 0
for x in d["benchmarks"]:
    if x.get("run_type") != "iteration": continue
    i += 1
    name = x["run_name"] if "run_name" in x else x["name"]
    print(f"{r},{b},{name},{i},{x['real_time']:.6g},{x['cpu_time']:.6g},{x['time_unit']},{load},{x.get('events')},{x.get('buffers')},{x.get('cpu_s')}")
PY
    done
  done
done
