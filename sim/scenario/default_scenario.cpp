// The built-in scenario: what `ckptsim run` simulates without a file, and the first example of
// the format. It must load without a diagnostic (tests/scenario checks it).
#include "sim/scenario/scenario.hpp"

namespace ckptsim::scenario {
namespace {

constexpr std::string_view kDefaultScenario = R"yaml(# The built-in scenario (ckptsim run, no file).
name: default
description: >
  A small Flink 1.17 job checkpoints every minute with a 2 min timeout. At 12 min the sink
  stalls for 4 min (think of a slow external system), so the barrier of the next checkpoint
  cannot pass it: that checkpoint expires after 2 min, the first counted failure exceeds the
  tolerable-failed-checkpoints threshold (0 by default), and the job fails over. It restarts
  from the latest completed checkpoint and, once the sink recovers, checkpoints complete again.
seed: 1
start: 2024-07-10 12:30:00
duration: 30 min
flink:
  version: "1.17"
  execution.checkpointing.interval: 1 min
  execution.checkpointing.timeout: 2 min
  state.backend.type: hashmap
  state.checkpoints.dir: file:///tmp/ckptsim/checkpoints
cluster:
  taskmanagers: 1
  slots-per-taskmanager: 2
  checkpoint-storage: { bandwidth: 200 MB/s, latency: 30 ms }
job:
  name: default-job
  vertices:
    - name: Source
      parallelism: 2
      rate: 5000 records/s
      record-size: 100 b
    - name: Process
      parallelism: 2
      input: { from: Source, ship: rebalance }
      cost: 20 us/record
      state-size: 1 mb
      state-growth: 1 b/record
    - name: Sink
      parallelism: 2
      input: { from: Process, ship: forward }
      cost: 50 us/record
timeline:
  - at: 12 min
    do: stall
    vertex: Sink
    for: 4 min
)yaml";

}  // namespace

std::string_view default_scenario_yaml() {
  return kDefaultScenario;
}

}  // namespace ckptsim::scenario
