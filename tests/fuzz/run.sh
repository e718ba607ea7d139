#!/bin/sh
# Runs each libFuzzer target of tests/fuzz for SECONDS seconds, from seed corpora generated from
# scenarios/ and tests/errors/ (never committed). Usage: run.sh BUILD_DIR SECONDS [TARGET...]
# (default: every *_fuzz executable in BUILD_DIR/bin). Inputs found stay in BUILD_DIR/corpus/,
# findings go to BUILD_DIR/findings/; exits 1 on any finding (crash, sanitizer report, leak,
# timeout, or more than 2 GiB of memory).
set -eu
build=$(cd "$1" && pwd)
seconds=$2
shift 2
root=$(cd "$(dirname "$0")/../.." && pwd)
seeds=$build/seeds
rm -rf "$seeds"
mkdir -p "$seeds/scenario_loader_fuzz" "$seeds/expectations_fuzz" "$seeds/units_fuzz" \
  "$seeds/http_fuzz" "$seeds/import_fuzz" "$build/findings"
files=$(find "$root/scenarios" "$root/tests/errors" -name '*.yaml' | sort)

# Whole files for the loader; the `expect:` lists for the expectations parser; every value after
# a key for the unit parsers (one seed per distinct value), plus the keys as a dictionary.
n=0
for f in $files; do
  n=$((n + 1))
  cp "$f" "$seeds/scenario_loader_fuzz/$n.yaml"
  awk '/^expect:/ { on = 1; next } on && /^[^ #-]/ { on = 0 } on { print }' "$f" \
    >"$seeds/expectations_fuzz/$n.yaml"
  [ -s "$seeds/expectations_fuzz/$n.yaml" ] || rm "$seeds/expectations_fuzz/$n.yaml"
done
# shellcheck disable=SC2086
awk -v dir="$seeds/units_fuzz" '
  match($0, /^[ -]*[A-Za-z0-9_.\[\] -]+: */) {
    v = substr($0, RLENGTH + 1); sub(/ +#.*/, "", v); gsub(/^["\047]|["\047]$/, "", v)
    if (v ~ /^[0-9.]/ && !(v in seen)) { seen[v] = 1; printf "%s", v > (dir "/" ++n) }
  }' $files
# shellcheck disable=SC2086
awk 'match($0, /^[ -]*[A-Za-z0-9_.-]+:/) {
    k = substr($0, 1, RLENGTH); sub(/^[ -]*/, "", k); gsub(/"/, "", k)
    if (!(k in seen)) { seen[k] = 1; print "\"" k "\"" }
  }' $files >"$seeds/scenario.dict"

# Requests for the HTTP layer: the API's routes, operations, the web directory, traversal tries.
n=0
for request in "GET / HTTP/1.1" "GET /v1/overview HTTP/1.1" "GET /jobs/overview HTTP/1.1" \
  "GET /jobs/0123456789abcdef0123456789abcdef/checkpoints HTTP/1.1" \
  "GET /jobs/x/checkpoints/details/1/subtasks/y HTTP/1.1" "GET /metrics HTTP/1.1" \
  "GET /jobs/x/vertices/y/subtasks/metrics?get=busyTimeMsPerSecond&agg=max HTTP/1.1" \
  "GET /assets/..%2f..%2fsecret.txt HTTP/1.1" "GET /escape.txt HTTP/1.1" \
  "PATCH /jobs/x?mode=cancel HTTP/1.1" "DELETE /overview HTTP/1.1"; do
  n=$((n + 1))
  printf '%s\r\nHost: localhost\r\n\r\n' "$request" >"$seeds/http_fuzz/$n"
done
printf 'POST /jobs/x/savepoints HTTP/1.1\r\nHost: h\r\nContent-Length: 17\r\n\r\n{"cancel-job":0}' \
  >"$seeds/http_fuzz/post"

# The real logs and REST bodies of tests/data/real for the importers.
cp "$root"/tests/data/real/*.log "$root"/tests/data/real/*.json "$seeds/import_fuzz/"

[ $# -gt 0 ] || set -- $(cd "$build/bin" && ls -- *_fuzz)
status=0
for target in "$@"; do
  mkdir -p "$build/corpus/$target"
  dict=""
  case $target in units_fuzz | http_fuzz | import_fuzz) ;; *) dict="-dict=$seeds/scenario.dict" ;; esac
  log=$build/findings/$target.log
  # -timeout: one input may take at most 10 s; -rss_limit_mb: a run may use at most 2 GiB.
  if (cd "$root" && "$build/bin/$target" -max_total_time="$seconds" -rss_limit_mb=2048 \
      -timeout=10 -print_final_stats=1 -artifact_prefix="$build/findings/$target-" $dict \
      "$build/corpus/$target" "$seeds/$target") >"$log" 2>&1; then
    result="no finding"
  else
    result="FINDING (see $log and $build/findings/)"
    status=1
    tail -n 40 "$log"
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  echo "$target: ${runs:-?} executions in ${seconds} s ($(( ${runs:-0} / seconds ))/s), $result"
done
exit $status
