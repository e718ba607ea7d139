#!/bin/sh
# ThreadSanitizer pass over the parts of ckptsim that run in parallel (TBB): `ckptsim test`,
# `sweep` and `compare` with 2 threads, run by a ckptsim built with the `tsan` preset. Any data
# race report fails the run. Usage: run.sh BUILD_DIR (default build-tsan)
set -eu
build=$(cd "${1:-build-tsan}" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$build/bin/ckptsim
out=$build/tsan-runs
rm -rf "$out"
mkdir -p "$out"
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 suppressions=$root/tests/tsan/suppressions.txt ${TSAN_OPTIONS:-}"
cd "$root"
echo "tsan: ckptsim test scenarios --threads 2"
"$bin" test scenarios --threads 2 --junit "$out/junit.xml" >"$out/test.txt"
echo "tsan: ckptsim sweep --threads 2"
"$bin" sweep scenarios/examples/stalled-sink.yaml --seeds 2 --threads 2 \
  --vary execution.checkpointing.timeout=5min,10min,30min --out "$out/sweep" >"$out/sweep.txt"
echo "tsan: ckptsim compare --threads 2"
"$bin" compare scenarios/catalog/b06-doris-writer-blocks-after-http-failure.yaml \
  scenarios/catalog/b06-doris-writer-blocks-after-http-failure-fix.yaml --seeds 2 --threads 2 \
  --out "$out/compare" >"$out/compare.txt"
echo "tsan: no data race"
