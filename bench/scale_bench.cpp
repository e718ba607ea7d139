// Scale, item 3 of issue 6: a 1,000-subtask job, Source(P) -rebalance-> Map(P) -rebalance->
// Process(P) -rebalance-> Sink(P) with P = 250, each source subtask reading 10 MB/s (10^7 B/s
// of 100 B records), simulated for one hour. Flink's defaults otherwise: 32 KiB buffers,
// execution.buffer-timeout 100 ms, 2 exclusive credits per channel and 8 floating per gate.
// Four slots per TaskManager (ceil(P / 4) TaskManagers), an aligned checkpoint every 10 s, 4 MiB
// of state per Process subtask, no time series (sample_period = 0, as sweeps run).
//
// BM_Scale/P:<P>/rate_x10:<10 x MB/s per source subtask>/sim_s:<simulated seconds>: one
// run::run of that scenario per iteration. The registered rows are the sweeps of
// bench/results/scale.sh: wall time against parallelism at 10 MB/s, and against data volume at
// P = 32 and P = 250; one simulated minute each, 20 s at P = 250. The full hour at P = 250 is
// registered only when CKPTSIM_SCALE_SECONDS=3600 is set in the environment, so a plain
// `ckptsim_bench` stays short.
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "sim/model/config.hpp"
#include "bench/shapes.hpp"
#include "sim/run/run.hpp"
#include "sim/run/writers/writers.hpp"

namespace {

using namespace ckptsim;
using bench::production;
using bench::scale;

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

// One run::run of `scenario` per iteration, with the counters of bench/README.md's tables.
void measure(benchmark::State& state, const model::Scenario& scenario, double channels,
             double source_gb) {
  run::RunResult last;
  double wall = 0, cpu = 0;
  std::uint64_t iterations = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = cpu_seconds();
    last = run::run(scenario);
    cpu += cpu_seconds() - cpu_start;
    wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    benchmark::DoNotOptimize(last.events_executed);
    ++iterations;
  }
  wall /= static_cast<double>(iterations);
  cpu /= static_cast<double>(iterations);
  const auto interval = scenario.flink.checkpointing.interval;
  if (interval && scenario.duration >= 2 * *interval && last.counts.completed == 0)
    state.SkipWithError("no checkpoint completed: the job did not run (a failed deployment?)");
  std::vector<double> durations;
  for (const run::CheckpointRecord& c : last.checkpoints)
    if (c.status == run::CheckpointStatus::completed)
      durations.push_back(static_cast<double>(c.end_time - c.trigger_time) / 1e6);
  std::sort(durations.begin(), durations.end());
  const double seconds = static_cast<double>(scenario.duration) / 1e9;
  double subtasks = 0;
  for (const model::VertexSpec& v : scenario.job.vertices) subtasks += v.parallelism;
  state.counters["subtasks"] = subtasks;
  state.counters["channels"] = channels;
  state.counters["sim_s"] = seconds;
  state.counters["source_gb"] = source_gb;  // simulated volume
  state.counters["wall_s"] = wall;
  state.counters["cpu_s"] = cpu;
  state.counters["wall_per_sim_hour_s"] = wall * 3600.0 / seconds;
  state.counters["events"] = static_cast<double>(last.events_executed);
  state.counters["skipped_s"] = core::to_seconds(last.network_skipped);  // network: hybrid
  state.counters["replayed"] = static_cast<double>(last.network_replayed);
  state.counters["buffers"] = static_cast<double>(last.buffers_transferred);
  state.counters["events/s"] = static_cast<double>(last.events_executed) / cpu;  // per CPU s
  state.counters["buffers/s"] = static_cast<double>(last.buffers_transferred) / cpu;
  state.counters["completed"] = static_cast<double>(last.counts.completed);
  state.counters["failed"] = static_cast<double>(last.counts.failed);
  state.counters["p50_ms"] = durations.empty() ? 0 : durations[(durations.size() - 1) / 2];
  state.counters["peak_rss_mib"] = peak_rss_mib();  // of the process: run one row per process
}

// Every row here is one run, timed in wall seconds.
benchmark::internal::Benchmark* one_run(benchmark::internal::Benchmark* b) {
  return b->Unit(benchmark::kSecond)->UseRealTime()->Iterations(1);
}

void BM_Scale(benchmark::State& state) {
  const int parallelism = static_cast<int>(state.range(0));
  const double rate = static_cast<double>(state.range(1)) / 10.0;
  const std::int64_t seconds = state.range(2);
  const auto p = static_cast<double>(parallelism);
  measure(state, scale(parallelism, rate, seconds), 3 * p * p,
          rate * p * static_cast<double>(seconds) / 1e3);
  state.counters["mb_per_s"] = rate;
}

// Parallelism sweep at 10 MB/s, volume sweeps at P = 32 and P = 250: one simulated minute each,
// except 20 s at P = 250 (about 5 s of wall time per simulated second on the reference machine).
void scale_rows(benchmark::internal::Benchmark* b) {
  b->ArgNames({"P", "rate_x10", "sim_s"});
  for (int p : {16, 32, 64, 125, 250}) b->Args({p, 100, p == 250 ? 20 : 60});
  for (int p : {32, 250})
    for (int rate_x10 : {10, 25, 50, 200, 400}) b->Args({p, rate_x10, p == 250 ? 20 : 60});
}
BENCHMARK(BM_Scale)->Apply([](benchmark::internal::Benchmark* b) {
  one_run(b)->Apply(scale_rows);
});

// BM_Production/P:<P>/rate:<records/s per source subtask>/sim_s:<seconds>/hybrid:<0 exact,
// 1 hybrid>: the production shape (P = 32, 5,000 records/s) for one simulated minute in both
// network modes side by side; CKPTSIM_PRODUCTION_SECONDS=3600 adds the hour (both modes). The
// rows of bench/results/hybrid.sh vary P and the rate (bench/README.md, "plots").
void BM_Production(benchmark::State& state) {
  const int parallelism = static_cast<int>(state.range(0));
  const auto rate = static_cast<double>(state.range(1));
  const std::int64_t seconds = state.range(2);
  model::Scenario scenario = production(seconds, parallelism, rate);
  scenario.network = state.range(3) != 0 ? model::NetworkMode::hybrid : model::NetworkMode::exact;
  const auto p = static_cast<double>(parallelism);
  measure(state, scenario, 2.0 * p * p, p * rate * 500 * static_cast<double>(seconds) / 1e9);
  state.counters["rate"] = rate;
}
void production_rows(benchmark::internal::Benchmark* b, std::int64_t seconds) {
  one_run(b)
      ->ArgNames({"P", "rate", "sim_s", "hybrid"})
      ->Args({32, 5000, seconds, 0})
      ->Args({32, 5000, seconds, 1});
}
BENCHMARK(BM_Production)->Apply([](benchmark::internal::Benchmark* b) { production_rows(b, 60); });

// BM_Outputs/P:<P>/sim_s:<seconds>: what `ckptsim run` writes after the run (write_outputs: the
// log, summary, time series, REST files), for the scale job at 10 MB/s per source subtask with a
// sample per second (4 P subtasks x sim_s rows). The run itself is not timed. Each REST file's
// per-subtask metrics once walked the whole time series per subtask (rows x subtasks: 4.9 s of
// the 6.4 s a 1,000-subtask 10-minute `ckptsim run` took); now once per vertex.
void BM_Outputs(benchmark::State& state) {
  const int parallelism = static_cast<int>(state.range(0));
  model::Scenario scenario = scale(parallelism, 10, state.range(1));
  scenario.sample_period = core::seconds(1);
  const run::RunResult result = run::run(scenario);
  // Per process: two bench binaries side by side must not share it.
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("ckptsim-bench-outputs-" + std::to_string(getpid()));
  std::string error;
  for (auto _ : state) {
    if (!run::write_outputs(result, dir, &error)) state.SkipWithError(error.c_str());
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  state.counters["subtasks"] = 4.0 * parallelism;
  state.counters["rows"] = static_cast<double>(result.timeseries.size());
}
BENCHMARK(BM_Outputs)->Apply([](benchmark::internal::Benchmark* b) {
  one_run(b)->ArgNames({"P", "sim_s"})->Args({32, 60})->Args({250, 600});
});

// Memory, issue 3: a parallelism-256 all-to-all hash job, Source(256) -hash-> Aggregate(256)
// -hash-> Sink(256), 65,536 channels per edge, 100 B records at 1,000 records/s per source
// subtask (every channel carries a buffer per buffer timeout), for sim_s simulated seconds.
// peak_rss_mib is the process's (run one row per process); rss_per_channel_b divides the growth
// of the peak over the run (deploy included) by the channels: with sim_s = 0 that is the idle
// channel, at 600 s it includes the queued buffers.
model::Scenario all_to_all_hash(int parallelism, std::int64_t seconds, int vertices) {
  model::Scenario s = scale(parallelism, 0.1, seconds);
  s.job.vertices.resize(static_cast<std::size_t>(vertices));
  s.job.vertices[1].name = "Aggregate";
  s.job.vertices[1].ship = model::ShipStrategy::hash;
  if (parallelism > 256) {
    // One slot per TaskManager, as in the rows measured since a9fd6e6 (then with Flink's
    // default TaskManager size, too few network buffers for four 1,000-way hash partitions and
    // gates: "Insufficient number of network buffers").
    s.cluster.slots_per_taskmanager = 1;
    s.cluster.taskmanagers = parallelism;
  }
  if (vertices == 3) {
    s.job.vertices[2].name = "Sink";
    s.job.vertices[2].input = "Aggregate";
    s.job.vertices[2].ship = model::ShipStrategy::hash;
  }
  return s;
}

// BM_Memory/P:<P>/sim_s:<seconds>/vertices:<2 or 3>: one hash edge (P^2 channels) or two.
void BM_Memory(benchmark::State& state) {
  const int parallelism = static_cast<int>(state.range(0));
  const std::int64_t seconds = state.range(1);
  const int vertices = static_cast<int>(state.range(2));
  const model::Scenario scenario = all_to_all_hash(parallelism, seconds, vertices);
  const double rss_before = peak_rss_mib();
  run::RunResult last;
  const double cpu_start = cpu_seconds();
  for (auto _ : state) last = run::run(scenario);
  const double cpu = cpu_seconds() - cpu_start;
  if (seconds > 0 && last.buffers_transferred == 0)
    state.SkipWithError("no buffer moved: the job did not run (a failed deployment?)");
  const double channels = (vertices - 1.0) * parallelism * parallelism;
  state.counters["channels"] = channels;
  state.counters["skipped_s"] = core::to_seconds(last.network_skipped);  // network: hybrid
  state.counters["replayed"] = static_cast<double>(last.network_replayed);
  state.counters["sim_s"] = static_cast<double>(seconds);
  state.counters["cpu_s"] = cpu;
  state.counters["buffers"] = static_cast<double>(last.buffers_transferred);
  state.counters["buffers/s"] = static_cast<double>(last.buffers_transferred) / cpu;
  state.counters["completed"] = static_cast<double>(last.counts.completed);
  state.counters["peak_rss_mib"] = peak_rss_mib();
  state.counters["rss_per_channel_b"] = (peak_rss_mib() - rss_before) * 1024 * 1024 / channels;
}
BENCHMARK(BM_Memory)->Apply([](benchmark::internal::Benchmark* b) {
  one_run(b)->ArgNames({"P", "sim_s", "vertices"})->Args({256, 0, 3})->Args({256, 600, 3});
});

// Rows added from the environment: `name` holds N colon-separated integers ("1000:600:2"); the
// row (or rows) `add` registers if they parse and `valid` accepts them; nothing otherwise.
template <std::size_t N, class Valid, class Add>
bool register_from_env(const char* name, Valid valid, Add add) {
  const char* env = std::getenv(name);
  if (env == nullptr) return false;
  std::array<std::int64_t, N> v{};
  std::string_view text(env);
  for (std::size_t i = 0; i < N; ++i) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v[i]);
    if (ec != std::errc()) return false;
    text.remove_prefix(static_cast<std::size_t>(end - text.data()));
    if (i + 1 < N && (text.empty() || text.front() != ':')) return false;
    if (i + 1 < N) text.remove_prefix(1);
  }
  if (!text.empty() || !valid(v)) return false;
  add(v);
  return true;
}

// The 1,000-subtask job for a longer simulated time, opt-in: CKPTSIM_SCALE_SECONDS=3600 adds
// BM_Scale/P:250/rate_x10:100/sim_s:3600 (the hour), any other value that many seconds. The
// hour accounts for about 6.8e9 buffers; hybrid skips 88 % of it, and the run took 259 s here
// (bench/README.md, "Scale").
[[maybe_unused]] const bool long_run_registered = register_from_env<1>(
    "CKPTSIM_SCALE_SECONDS", [](const auto& v) { return v[0] > 0; },
    [](const auto& v) {
      one_run(benchmark::RegisterBenchmark("BM_Scale", BM_Scale)
                  ->ArgNames({"P", "rate_x10", "sim_s"})
                  ->Args({250, 100, v[0]}));
    });
[[maybe_unused]] const bool production_hour_registered = register_from_env<1>(
    "CKPTSIM_PRODUCTION_SECONDS", [](const auto& v) { return v[0] > 0; },
    [](const auto& v) {
      production_rows(benchmark::RegisterBenchmark("BM_Production", BM_Production), v[0]);
    });
// Issue 17's memory target: CKPTSIM_MEMORY_ROW=P:sim_s:vertices registers that BM_Memory row,
// e.g. 1000:600:2 (one hash edge of a million channels for ten simulated minutes).
[[maybe_unused]] const bool memory_row_registered = register_from_env<3>(
    "CKPTSIM_MEMORY_ROW",
    [](const auto& v) { return v[0] > 0 && v[1] >= 0 && (v[2] == 2 || v[2] == 3); },
    [](const auto& v) {
      one_run(benchmark::RegisterBenchmark("BM_Memory", BM_Memory)
                  ->ArgNames({"P", "sim_s", "vertices"})
                  ->Args({v[0], v[1], v[2]}));
    });
// Any other production row, for bench/results/hybrid.sh: CKPTSIM_PRODUCTION_ROW=P:rate:sim_s
// registers it in both modes.
[[maybe_unused]] const bool production_row_registered = register_from_env<3>(
    "CKPTSIM_PRODUCTION_ROW", [](const auto& v) { return v[0] > 0 && v[1] > 0 && v[2] > 0; },
    [](const auto& v) {
      for (const std::int64_t hybrid : {0, 1})
        one_run(benchmark::RegisterBenchmark("BM_Production", BM_Production)
                    ->ArgNames({"P", "rate", "sim_s", "hybrid"})
                    ->Args({v[0], v[1], v[2], hybrid}));
    });

}  // namespace
