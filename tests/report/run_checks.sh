#!/bin/sh
# The report and trace checks `make test` runs: a run, a sweep and a comparison written with
# --report (and the run with --trace), opened in headless Chromium and validated by
# check_report.py. Usage: run_checks.sh BUILD_DIR
set -eu
build=${1:-build}
here=$(dirname "$0")
root=$here/../..
bin=$build/bin/ckptsim
out=$build/report-checks
rm -rf "$out"
mkdir -p "$out"
py=/usr/bin/python3
[ -x "$py" ] || py=python3
check="$py $here/check_report.py"
# The seed incident: report, trace.
"$bin" run --out "$out/seed" --report --trace -q
$check run "$out/seed" "$out/seed.png"
$check trace "$out/seed/trace.json" "$here/trace.schema.json"
# A skewed 16-subtask job, its trace bounded to two minutes.
"$bin" run "$root/scenarios/catalog/b11-skew-long-alignment.yaml" --out "$out/b11" --report \
  --trace-window 2min..4min -q
$check run "$out/b11"
$check trace "$out/b11/trace.json" "$here/trace.schema.json"
# A sweep over two keys and a comparison of two scenarios.
"$bin" sweep "$root/scenarios/catalog/b11-skew-long-alignment.yaml" --seeds 2 --threads 2 \
  --vary execution.checkpointing.interval=10s,30s \
  --vary taskmanager.network.memory.buffers-per-channel=1,2 --out "$out/sweep" --report >/dev/null
$check sweep "$out/sweep" "$out/sweep.png"
"$bin" compare "$root/scenarios/catalog/b06-doris-writer-blocks-after-http-failure.yaml" \
  "$root/scenarios/catalog/b06-doris-writer-blocks-after-http-failure-fix.yaml" --seeds 2 \
  --threads 2 --out "$out/compare" --report >/dev/null
$check sweep "$out/compare"
# `ckptsim report` on the run's directory rewrites the same file.
cp "$out/seed/report.html" "$out/seed-report.html"
"$bin" report "$out/seed" >/dev/null
cmp "$out/seed/report.html" "$out/seed-report.html"
echo "report checks passed"
