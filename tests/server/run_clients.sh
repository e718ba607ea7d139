#!/bin/sh
# `ckptsim serve` against real clients, the checks `make test` runs after the unit tests:
#  - curl: status codes, content types, /v1, Flink's error body;
#  - a real Prometheus (Debian's prometheus package) scraping /metrics on its own port; the test
#    asks Prometheus's HTTP API for the checkpoint metrics and compares them with the REST API;
#    `promtool check metrics` on the exposition;
#  - wrk on loopback while the simulation runs at --speed 60 (requests/s and p99 printed, errors
#    fail the check), and slow clients trickling bytes that must not starve a normal client.
# Usage: run_clients.sh BUILD_DIR
set -eu
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../..
bin=$(cd "$build" && pwd)/bin/ckptsim
out=$(cd "$build" && pwd)/serve-checks
rm -rf "$out"
mkdir -p "$out"
pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT INT TERM
fail() { echo "serve checks: FAILED: $*" >&2; exit 1; }
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

# start_serve NAME ARGS...: starts ckptsim serve --port 0, sets $port (and $metrics_port).
start_serve() {
  name=$1; shift
  "$bin" serve --port 0 "$@" 2>"$out/$name.log" &
  pids="$pids $!"
  last_pid=$!
  port=""
  for _ in $(seq 1 200); do
    port=$(sed -n 's/.*listening on http:[^ ]*:\([0-9][0-9]*\).*/\1/p' "$out/$name.log" | head -1)
    [ -n "$port" ] && break
    sleep 0.05
  done
  [ -n "$port" ] || fail "$name did not start: $(cat "$out/$name.log")"
  metrics_port=$(sed -n 's/.*Prometheus metrics on port \([0-9][0-9]*\).*/\1/p' "$out/$name.log" | head -1)
}

# --- curl ---------------------------------------------------------------------------------
start_serve final "$root/scenarios/seed/doris-cdc-table-swap.yaml" --speed max --metrics-port 0
final_pid=$last_pid
base=http://127.0.0.1:$port
for _ in $(seq 1 100); do curl -sf "$base/overview" >/dev/null && break; sleep 0.1; done
code=$(curl -s -o "$out/overview.json" -w '%{http_code} %{content_type}' "$base/v1/overview")
[ "$code" = "200 application/json; charset=UTF-8" ] || fail "/v1/overview answered $code"
jid=$(curl -s "$base/jobs/overview" | json "d['jobs'][0]['jid']")
curl -sf "$base/jobs/$jid/checkpoints" >"$out/checkpoints.json" || fail "/jobs/$jid/checkpoints"
code=$(curl -s -o "$out/404.json" -w '%{http_code}' "$base/jobs/$jid/nothing")
[ "$code" = 404 ] || fail "an unknown path answered $code"
grep -q '"Not found: /jobs/' "$out/404.json" || fail "the 404 body is not Flink's: $(cat "$out/404.json")"
code=$(curl -s -o /dev/null -w '%{http_code}' -X PUT "$base/overview")
[ "$code" = 405 ] || fail "PUT answered $code"

# --- promtool and a real Prometheus ---------------------------------------------------------
[ -n "$metrics_port" ] || fail "no metrics port in $(cat "$out/final.log")"
curl -sf "http://127.0.0.1:$metrics_port/metrics" >"$out/metrics.txt"
cmp "$out/metrics.txt" "$(curl -sf "$base/metrics" >"$out/metrics-api.txt"; echo "$out/metrics-api.txt")" ||
  fail "the metrics port and /metrics disagree"
# promtool lints Flink's camelCase names ("metric names should be written in 'snake_case'"):
# those are Flink's own; anything else (a format error) fails the check.
promtool check metrics <"$out/metrics.txt" >"$out/promtool.txt" 2>&1 || true
if grep -v -e "snake_case" -e '^$' "$out/promtool.txt" | grep -q .; then
  fail "promtool: $(cat "$out/promtool.txt")"
fi
prom_port=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])")
cat >"$out/prometheus.yml" <<YAML
global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: ckptsim
    static_configs: [{targets: ["127.0.0.1:$metrics_port"]}]
YAML
prometheus --config.file="$out/prometheus.yml" --storage.tsdb.path="$out/tsdb" \
  --web.listen-address="127.0.0.1:$prom_port" >"$out/prometheus.log" 2>&1 &
pids="$pids $!"
query() {
  curl -sf "http://127.0.0.1:$prom_port/api/v1/query" --data-urlencode "query=$1" |
    json "d['data']['result'][0]['value'][1] if d['data']['result'] else ''"
}
value=""
for _ in $(seq 1 150); do
  value=$(query "flink_jobmanager_job_numberOfCompletedCheckpoints{job_id=\"$jid\"}" 2>/dev/null || true)
  [ -n "$value" ] && break
  sleep 0.2
done
[ -n "$value" ] || fail "Prometheus never scraped the checkpoint metrics: $(tail -5 "$out/prometheus.log")"
completed=$(json "d['counts']['completed']" <"$out/checkpoints.json")
failed=$(json "d['counts']['failed']" <"$out/checkpoints.json")
[ "$value" = "$completed" ] || fail "Prometheus has $value completed checkpoints, REST $completed"
value=$(query "flink_jobmanager_job_numberOfFailedCheckpoints{job_id=\"$jid\"}")
[ "$value" = "$failed" ] || fail "Prometheus has $value failed checkpoints, REST $failed"
kill "$final_pid"

# --- wrk and slow clients while the simulation runs ------------------------------------------
start_serve live "$root/scenarios/examples/kafka-catch-up.yaml" --speed 60
base=http://127.0.0.1:$port
jid=$(curl -s "$base/jobs/overview" | json "d['jobs'][0]['jid']")
for path in /jobs/overview "/jobs/$jid/checkpoints"; do
  wrk -t1 -c16 -d"${WRK_SECONDS:-3}"s --latency "$base$path" >"$out/wrk.txt"
  rps=$(sed -n 's/^Requests\/sec: *//p' "$out/wrk.txt")
  p99=$(awk '$1 == "99%" {print $2}' "$out/wrk.txt")
  ! grep -q "Non-2xx" "$out/wrk.txt" || fail "wrk saw errors on $path: $(cat "$out/wrk.txt")"
  echo "serve checks: wrk $path: $rps requests/s, p99 $p99"
done
# 300 clients trickling one byte every 0.5 s; a normal client must still be answered at once.
python3 - "$port" <<'PY'
import socket, sys, time
port = int(sys.argv[1])
slow = []
for _ in range(300):
    s = socket.create_connection(("127.0.0.1", port))
    s.send(b"GET /overview HTTP/1.1\r\n")
    slow.append(s)
worst = 0.0
for _ in range(6):
    for s in slow:
        try:
            s.send(b"X")
        except OSError:
            pass
    start = time.time()
    c = socket.create_connection(("127.0.0.1", port))
    c.sendall(b"GET /overview HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    data = b""
    while True:
        chunk = c.recv(65536)
        if not chunk:
            break
        data += chunk
    worst = max(worst, time.time() - start)
    assert data.startswith(b"HTTP/1.1 200"), data[:100]
    time.sleep(0.5)
print("serve checks: a normal client among 300 slow ones: worst %.1f ms" % (worst * 1000))
assert worst < 1.0, worst
PY
echo "serve checks passed"
