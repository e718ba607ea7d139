#!/bin/sh
# ThreadSanitizer pass over the parts of ckptsim that run in parallel: `ckptsim test`, `sweep`
# and `compare` with 2 threads (sim/cli/parallel_runs.hpp), and `ckptsim serve` (the simulation publishing snapshots
# while the I/O thread answers clients, a savepoint and a cancel request crossing back), run by a
# ckptsim built with the `tsan` preset. Any data race report fails the run.
# Usage: run.sh BUILD_DIR (default build-tsan)
set -eu
build=$(cd "${1:-build-tsan}" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$build/bin/ckptsim
out=$build/tsan-runs
rm -rf "$out"
mkdir -p "$out"
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
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
echo "tsan: ckptsim serve, clients while the simulation runs"
"$bin" serve scenarios/examples/kafka-catch-up.yaml --port 0 --speed 600 --metrics-port 0 \
  --exit-when-finished 2>"$out/serve.log" &
serve_pid=$!
port=""
for _ in $(seq 1 600); do
  port=$(sed -n 's/.*listening on http:[^ ]*:\([0-9][0-9]*\).*/\1/p' "$out/serve.log" | head -1)
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { kill $serve_pid; cat "$out/serve.log"; echo "tsan: serve did not start"; exit 1; }
base=http://127.0.0.1:$port
jid=""
for _ in $(seq 1 100); do
  jid=$(curl -sf "$base/jobs/overview" | sed -n 's/.*"jid": *"\([0-9a-f]*\)".*/\1/p' | head -1)
  [ -n "$jid" ] && break
  sleep 0.1
done
[ -n "$jid" ] || { kill $serve_pid; cat "$out/serve.log"; echo "tsan: no job in /jobs/overview"; exit 1; }
# Two clients at once for a few seconds of wall time (minutes of simulated time at --speed 600).
client() {
  for _ in $(seq 1 40); do
    for p in overview jobs/overview "jobs/$jid" "jobs/$jid/checkpoints" "jobs/$jid/checkpoints/config" \
      metrics "jobs/$jid/exceptions"; do
      curl -s -o /dev/null "$base/$p" || true
    done
  done
}
client & c1=$!
client & c2=$!
curl -s -o /dev/null -X POST -H 'Content-Type: application/json' -d '{"cancel-job":false}' \
  "$base/jobs/$jid/savepoints" || true
wait $c1 $c2
curl -s -o /dev/null -X PATCH "$base/jobs/$jid?mode=cancel" || true
rc=0
wait $serve_pid || rc=$?
if [ $rc -ne 0 ] || grep -q "ThreadSanitizer" "$out/serve.log"; then
  cat "$out/serve.log"
  echo "tsan: serve exited $rc"
  exit 1
fi
echo "tsan: no data race"
