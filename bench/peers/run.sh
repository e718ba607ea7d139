#!/usr/bin/env bash
# Runs B1 (PHOLD) on ckptsim's kernel and on its peers (ns-3, SimGrid, SimPy 3), and B2 (barrier
# propagation through a back-pressured pipeline) on ckptsim, ns-3 and SimPy 3, in one run, and prints
# Markdown tables (ns/event, events/s, peak RSS, ratio to ckptsim). See bench/peers/README.md.
#
#   bench/peers/run.sh            full: N in {1024, 65536} x M in {1, 16}, median of 3, B2 P=4,32
#   bench/peers/run.sh --quick    (N, M) in {(1024, 1), (65536, 1)}, 1 M events (SimPy 200 k),
#                                 one repetition, B2 P=4
#
# Environment: PEERS_CPU (core to pin to, default the last one), PEERS_REPS, PEERS_EVENTS
# (C++ engines), PEERS_SIMPY_EVENTS, PEERS_CONFIGS (e.g. "1024:1 65536:16"), PEERS_B2 ("4 32",
# or "" to skip B2), PEERS_ENGINES (subset of: ckptsim ref-stdpq ns3-map ns3-heap ns3-pq
# simgrid-timers simpy3; ns3-calendar is also available, not run by default). ref-stdpq is not
# an engine but the same model on a bare std::priority_queue, the machine's reference point.
# B2 runs on ns-3's default MapScheduler (row `ns3`) when ns3-map or ns3 (B2 only) is listed,
# and on its PriorityQueueScheduler (row `ns3-pq`) when ns3-pq is; on SimPy when simpy3 is.
#
# Not part of `make test`; nothing here is linked into ckptsim. Builds go to bench/peers/build
# (gitignored).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$here/build"
python=/usr/bin/python3   # Debian's interpreter: python3-simpy3 installs into its dist-packages

quick=0
for a in "$@"; do
  case "$a" in
    --quick) quick=1 ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | grep '^#'; exit 0 ;;
    *) echo "unknown argument: $a" >&2; exit 2 ;;
  esac
done

if [ "$quick" = 1 ]; then
  reps=${PEERS_REPS:-1}
  events=${PEERS_EVENTS:-1000000}
  simpy_events=${PEERS_SIMPY_EVENTS:-200000}
  configs=${PEERS_CONFIGS:-"1024:1 65536:1"}
  b2_sizes=${PEERS_B2-"4"}
else
  reps=${PEERS_REPS:-3}
  events=${PEERS_EVENTS:-4000000}
  simpy_events=${PEERS_SIMPY_EVENTS:-1000000}
  configs=${PEERS_CONFIGS:-"1024:1 1024:16 65536:1 65536:16"}
  b2_sizes=${PEERS_B2-"4 32"}
fi
engines=${PEERS_ENGINES:-"ckptsim ref-stdpq ns3-map ns3-heap ns3-pq simgrid-timers simpy3"}
start_s=$(date +%s)

# --- packages (only what is missing) ---------------------------------------------------------
need=()
for p in libns3-dev libsimgrid-dev python3-simpy3 pkg-config g++ cmake; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
done
if [ "${#need[@]}" -gt 0 ]; then
  echo "installing: ${need[*]}" >&2
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >&2
fi
make -s -C "$root" deps >&2   # ckptsim's own build dependencies (installs only what is missing)

# --- build -------------------------------------------------------------------------------------
mkdir -p "$build"
cxx=(g++ -std=c++17 -O2)   # ns-3 3.37's headers do not compile as C++20
build_if_stale() {  # output source compile-args...
  local out=$1 src=$2; shift 2
  if [ ! -x "$out" ] || [ "$src" -nt "$out" ] || [ "$here/phold_common.hpp" -nt "$out" ]; then
    echo "building $(basename "$out")" >&2
    "${cxx[@]}" -o "$out" "$src" "$@"
  fi
}
# ns3-core.pc of Debian's 3.37 has a broken Cflags line ("-I/usr;"), so the flags are spelled out.
build_if_stale "$build/phold_ns3" "$here/phold_ns3.cpp" -I/usr/include -lns3-core
build_if_stale "$build/b2_ns3" "$here/b2_ns3.cpp" -I/usr/include -lns3-core
build_if_stale "$build/phold_stdpq" "$here/phold_stdpq.cpp"
build_if_stale "$build/phold_simgrid" "$here/phold_simgrid.cpp" $(pkg-config --cflags --libs simgrid)

targets=(ckptsim_phold)
[ -n "$b2_sizes" ] && targets+=(ckptsim_bench)
if [ ! -f "$build/ckptsim/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build/ckptsim" -DCMAKE_BUILD_TYPE=Release -DCKPTSIM_BUILD_TESTS=OFF >&2
fi
echo "building ${targets[*]} (cmake Release, -j1)" >&2
cmake --build "$build/ckptsim" -j1 --target "${targets[@]}" >&2

# --- run ---------------------------------------------------------------------------------------
pin=()
if command -v taskset >/dev/null; then
  pin=(taskset -c "${PEERS_CPU:-$(($(nproc) - 1))}")
fi
results="$build/results-$(date +%Y%m%d-%H%M%S).txt"
: > "$results"
{
  echo "# $(date -u +%FT%TZ) $(uname -n) nproc=$(nproc) load=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# ckptsim $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- sim bench || echo +dirty)"
  echo "# reps=$reps events=$events simpy_events=$simpy_events configs=$configs quick=$quick pin=${pin[*]}"
} >> "$results"

has_engine() { [[ " $engines " == *" $1 "* ]]; }

run_one() {  # engine N M
  local e=$1 n=$2 m=$3
  case "$e" in
    ckptsim) "${pin[@]}" "$build/ckptsim/bin/ckptsim_phold" "$n" "$m" "$events" ;;
    ref-stdpq) "${pin[@]}" "$build/phold_stdpq" "$n" "$m" "$events" ;;
    ns3-*) "${pin[@]}" "$build/phold_ns3" "$n" "$m" "$events" "${e#ns3-}" ;;
    simgrid-timers) "${pin[@]}" "$build/phold_simgrid" "$n" "$m" "$events" ;;
    simpy3) "${pin[@]}" "$python" "$here/phold_simpy.py" "$n" "$m" "$simpy_events" ;;
    *) echo "unknown engine $e" >&2; return 2 ;;
  esac
}

# Repetitions outermost, engines innermost, so drifting load on the shared machine hits every
# engine alike.
for r in $(seq 1 "$reps"); do
  for c in $configs; do
    n=${c%%:*}; m=${c##*:}
    for e in $engines; do
      [ "$e" = ns3 ] && continue   # B2 only
      echo "B1 rep $r/$reps  $e N=$n M=$m" >&2
      run_one "$e" "$n" "$m" | grep '^RESULT' | sed "s/\$/ rep=$r/" >> "$results"
    done
  done
done

for p in $b2_sizes; do
  echo "B2 ckptsim P=$p (3 repetitions, Google Benchmark)" >&2
  "${pin[@]}" "$build/ckptsim/bin/ckptsim_bench" --benchmark_filter="^BM_B2/P:$p/unaligned:0/hybrid:0/" \
    --benchmark_format=json 2>/dev/null |
    "$python" "$here/report.py" --b2-json "$p" >> "$results"
  for r in $(seq 1 "$reps"); do
    if has_engine ns3-map || has_engine ns3; then
      echo "B2 ns3 (MapScheduler) P=$p rep $r/$reps" >&2
      "${pin[@]}" "$build/b2_ns3" "$p" 60 map | grep '^B2RESULT' | sed "s/\$/ rep=$r/" >> "$results"
    fi
    if has_engine ns3-pq; then
      echo "B2 ns3-pq (PriorityQueueScheduler) P=$p rep $r/$reps" >&2
      "${pin[@]}" "$build/b2_ns3" "$p" 60 pq | grep '^B2RESULT' | sed "s/\$/ rep=$r/" >> "$results"
    fi
    if has_engine simpy3; then
      echo "B2 simpy3 P=$p rep $r/$reps" >&2
      "${pin[@]}" "$python" "$here/b2_simpy.py" "$p" | grep '^B2RESULT' | sed "s/\$/ rep=$r/" >> "$results"
    fi
  done
done

elapsed=$(($(date +%s) - start_s))
echo "# script time ${elapsed} s" >> "$results"
"$python" "$here/report.py" "$results"
echo
echo "Raw results: $results (script time ${elapsed} s)"
