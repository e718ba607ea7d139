// Oracle from apache/flink-benchmarks CheckpointingTimeBenchmark (reference/anchors.md 1.3):
// Source(4) -rebalance-> Map(4) -rebalance-> Sink(4), the sink 1 ms per record, back-pressured.
// With buffer debloating (target 300 ms) an aligned checkpoint takes about 2 x the target (two
// rebalances); with unaligned checkpoints the duration barely depends on the backlog.
#include <catch2/catch.hpp>

#include <string>

#include "sim/run/run.hpp"
#include "sim/scenario/scenario.hpp"

using namespace ckptsim;

namespace {

// Checkpoints are triggered by hand after a 30 s warm-up, as the benchmark waits for
// back-pressure before it measures.
const std::string kBenchmark = R"(
name: checkpointing-time-benchmark
seed: 1
duration: 90 s
flink:
  taskmanager.network.memory.buffer-debloat.target: 300 ms
cluster: { taskmanagers: 2, slots-per-taskmanager: 2 }
job:
  vertices:
    - { name: Source, parallelism: 4, rate: 100000 records/s, record-size: 1 kb }
    - { name: Map, parallelism: 4, input: { from: Source, ship: rebalance }, cost: 1 us/record, record-size: 1 kb }
    - { name: Sink, parallelism: 4, input: { from: Map, ship: rebalance }, cost: 1 ms/record }
timeline:
  - { at: 30 s, do: trigger-checkpoint }
  - { at: 35 s, do: trigger-checkpoint }
  - { at: 40 s, do: trigger-checkpoint }
  - { at: 45 s, do: trigger-checkpoint }
  - { at: 50 s, do: trigger-checkpoint }
  - { at: 55 s, do: trigger-checkpoint }
  - { at: 60 s, do: trigger-checkpoint }
  - { at: 65 s, do: trigger-checkpoint }
)";

double mean_duration_ms(const std::vector<std::string>& sets) {
  const auto loaded = scenario::load_string(kBenchmark, "benchmark.yaml", sets);
  INFO(scenario::format_diagnostics(loaded.diagnostics));
  REQUIRE(loaded.ok());
  const run::RunResult r = run::run(*loaded.scenario);
  double sum = 0;
  int n = 0;
  for (const run::CheckpointRecord& c : r.checkpoints) {
    REQUIRE(c.status == run::CheckpointStatus::completed);
    sum += static_cast<double>(c.end_time - c.trigger_time) / 1e6;
    ++n;
  }
  REQUIRE(n == 8);
  return sum / n;
}

}  // namespace

TEST_CASE("oracle: CheckpointingTimeBenchmark, debloated aligned checkpoints take ~2 x the "
          "debloat target",
          "[oracle][debloat]") {
  const double debloated =
      mean_duration_ms({"taskmanager.network.memory.buffer-debloat.enabled=true"});
  CHECK(debloated == Approx(600).epsilon(0.15));
  // Without debloating the same backlog of full 32 KiB buffers takes several times longer.
  const double full_buffers = mean_duration_ms({});
  CHECK(full_buffers > 2.5 * debloated);
}

TEST_CASE("oracle: CheckpointingTimeBenchmark, unaligned checkpoint duration barely changes "
          "with the backlog",
          "[oracle]") {
  const double small = mean_duration_ms({"execution.checkpointing.unaligned.enabled=true"});
  // Four times the in-flight buffers: aligned would take about four times longer.
  const double large = mean_duration_ms({"execution.checkpointing.unaligned.enabled=true",
                                         "taskmanager.network.memory.buffers-per-channel=8",
                                         "taskmanager.network.memory.floating-buffers-per-gate=32",
                                         "taskmanager.network.memory.max-buffers-per-channel=40"});
  const double aligned_small = mean_duration_ms({});
  const double aligned_large =
      mean_duration_ms({"taskmanager.network.memory.buffers-per-channel=8",
                        "taskmanager.network.memory.floating-buffers-per-gate=32",
                        "taskmanager.network.memory.max-buffers-per-channel=40"});
  INFO("unaligned " << small << " -> " << large << " ms; aligned " << aligned_small << " -> "
                    << aligned_large << " ms");
  CHECK(aligned_large > 2 * aligned_small);
  // Unaligned barriers skip the backlog; what grows is only the channel state to upload (the
  // in-flight bytes at the storage bandwidth), a few percent of what aligned barriers lose.
  CHECK(large - small < 0.05 * (aligned_large - aligned_small));
  CHECK(small < aligned_small / 4);
}
