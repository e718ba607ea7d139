#!/bin/bash
# Usage: instructions.sh ROW...: callgrind instruction counts of run::run (--toggle-collect) for each row, the pre and the post
# binary in parallel (counts do not depend on load); CKPTSIM_SCALE_SECONDS=5 registers BM_Scale/P:250/rate_x10:100/sim_s:5
# Callgrind instruction counts of run::run for each row, pre and post in parallel.
cd /tmp/bench/cg
for row in "$@"; do
  tag=$(echo "$row" | tr -c 'A-Za-z0-9_' '_')
  for b in pre post; do
    CKPTSIM_SCALE_SECONDS=5 valgrind --tool=callgrind --toggle-collect='ckptsim::run::run(*' \
      --callgrind-out-file=/tmp/bench/cg/$b-$tag.out \
      /work/bench-$b/build/bin/ckptsim_bench --benchmark_filter="^${row}\$" > /tmp/bench/cg/$b-$tag.stdout 2> /tmp/bench/cg/$b-$tag.log &
  done
  wait
  echo "$row pre $(grep -o 'Collected : [0-9]*' /tmp/bench/cg/pre-$tag.log) post $(grep -o 'Collected : [0-9]*' /tmp/bench/cg/post-$tag.log)"
done
