// B2 of reference/anchors.md section 1.3: barrier propagation through a back-pressured pipeline,
// the shape of apache/flink-benchmarks CheckpointingTimeBenchmark: Source(P) -rebalance->
// Map(P) -rebalance-> Sink(P), the sink 1 ms per record, 32 KiB buffers, Flink's default credits
// (2 exclusive per channel, 8 floating per gate), a checkpoint every 100 ms, 60 s simulated.
// One iteration is one run::run of the scenario. Also: ten times more records in the same bytes.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/model/config.hpp"
#include "bench/shapes.hpp"
#include "sim/run/run.hpp"

namespace {

using namespace ckptsim;
using bench::b2;
using bench::Barriers;

// Nearest-rank percentile of the end-to-end durations of the completed checkpoints, in ms.
double percentile_ms(std::vector<core::Duration> d, double q) {
  if (d.empty()) return 0;
  std::sort(d.begin(), d.end());
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(d.size())));
  return static_cast<double>(d[std::max<std::size_t>(rank, 1) - 1]) / 1e6;
}

// One run per iteration, timed on the wall clock.
struct TimedRun {
  run::RunResult result;
  double wall_seconds = 0;
};
TimedRun timed_run(const model::Scenario& scenario) {
  const auto start = std::chrono::steady_clock::now();
  TimedRun t{run::run(scenario), 0};
  t.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return t;
}

void report(benchmark::State& state, const run::RunResult& r, double wall_seconds_per_run) {
  std::vector<core::Duration> durations;
  for (const run::CheckpointRecord& c : r.checkpoints)
    if (c.status == run::CheckpointStatus::completed) durations.push_back(c.end_time - c.trigger_time);
  state.counters["wall_s"] = wall_seconds_per_run;
  state.counters["buffers/s"] = static_cast<double>(r.buffers_transferred) / wall_seconds_per_run;
  state.counters["events/s"] = static_cast<double>(r.events_executed) / wall_seconds_per_run;
  state.counters["buffers"] = static_cast<double>(r.buffers_transferred);
  state.counters["events"] = static_cast<double>(r.events_executed);
  state.counters["completed"] = static_cast<double>(durations.size());
  state.counters["failed"] = static_cast<double>(r.counts.failed);
  state.counters["skipped_s"] = core::to_seconds(r.network_skipped);  // network: hybrid
  state.counters["p50_ms"] = percentile_ms(durations, 0.50);
  state.counters["p99_ms"] = percentile_ms(durations, 0.99);
}

// Wall time of one run is the benchmark's Time column (ms of real time per simulated 60 s).
// BM_B2/P:<P>/unaligned:<0|1>/hybrid:<0 exact, 1 hybrid>: both network modes side by side.
void BM_B2(benchmark::State& state) {
  const auto barriers = state.range(1) == 0 ? Barriers::aligned : Barriers::unaligned;
  model::Scenario scenario = b2(static_cast<int>(state.range(0)), barriers);
  scenario.network = state.range(2) != 0 ? model::NetworkMode::hybrid : model::NetworkMode::exact;
  run::RunResult last;
  double wall = 0;
  std::uint64_t iterations = 0;
  for (auto _ : state) {
    TimedRun t = timed_run(scenario);
    wall += t.wall_seconds;
    last = std::move(t.result);
    benchmark::DoNotOptimize(last.events_executed);
    ++iterations;
  }
  report(state, last, wall / static_cast<double>(iterations));
  state.SetLabel(barriers == Barriers::aligned ? "aligned" : "unaligned");
}
BENCHMARK(BM_B2)
    ->ArgNames({"P", "unaligned", "hybrid"})
    ->ArgsProduct({{4, 32, 128}, {0, 1}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1)
    ->Repetitions(3)
    ->ReportAggregatesOnly(false);

// The cost of a run follows buffers, not records: the same pipeline with a source that is not
// back-pressured moves the same bytes per second as 100 B records or as ten times as many 10 B
// records. Both wall times are reported; the claim is records10B / records100B < 1.5.
void BM_B2_RecordsInSameBytes(benchmark::State& state) {
  const std::int64_t record_size = state.range(0);
  model::Scenario scenario = b2(32, Barriers::aligned);
  const double bytes_per_second = 1e6;  // per source subtask
  for (model::VertexSpec& v : scenario.job.vertices) {
    v.record_size = record_size;
    v.cost_per_record = v.input ? 100 : 0;  // 100 ns per record: 10 M records/s, never the bottleneck
  }
  scenario.job.vertices[0].records_per_second = bytes_per_second / static_cast<double>(record_size);
  run::RunResult last;
  double wall = 0;
  std::uint64_t iterations = 0;
  for (auto _ : state) {
    TimedRun t = timed_run(scenario);
    wall += t.wall_seconds;
    last = std::move(t.result);
    benchmark::DoNotOptimize(last.events_executed);
    ++iterations;
  }
  report(state, last, wall / static_cast<double>(iterations));
  state.counters["records"] = static_cast<double>(
      scenario.job.vertices[0].records_per_second * 60 * scenario.job.vertices[0].parallelism);
}
BENCHMARK(BM_B2_RecordsInSameBytes)
    ->ArgName("record_size")
    ->Arg(100)
    ->Arg(10)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1)
    ->Repetitions(3);

}  // namespace
