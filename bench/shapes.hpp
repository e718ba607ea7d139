// The job shapes the benchmarks run, as Scenarios built in code; tests/equivalence runs the same
// shapes in both network modes.
//  - b2: B2 of reference/anchors.md section 1.3, barrier propagation through a back-pressured
//    pipeline, the shape of apache/flink-benchmarks CheckpointingTimeBenchmark: Source(P)
//    -rebalance-> Map(P) -rebalance-> Sink(P), the sink 1 ms per record, 32 KiB buffers, Flink's
//    default credits (2 exclusive per channel, 8 floating per gate), a checkpoint every 100 ms,
//    60 s simulated.
//  - scale: item 3 of issue 6, Source(P) -rebalance-> Map(P) -rebalance-> Process(P) -rebalance->
//    Sink(P), each source subtask reading `megabytes_per_second` of 100 B records; Flink's
//    defaults otherwise (32 KiB buffers, execution.buffer-timeout 100 ms, 2 exclusive credits per
//    channel, 8 floating per gate); four slots per TaskManager, an aligned checkpoint every 10 s,
//    4 MiB of state per Process subtask.
//  - production: issue 17's production shape, Source(32) -hash-> Aggregate(32, RocksDB
//    incremental, 200 MB of state each) -rebalance-> Sink(32), 5,000 records/s of 500 B per
//    source subtask, 8 TaskManagers x 4 slots, Flink 1.18, a checkpoint a minute.
// None has time series (sample_period = 0, as sweeps run): the benchmarks measure the model.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "sim/model/config.hpp"

namespace ckptsim::bench {

enum class Barriers { aligned, unaligned };

inline model::Scenario b2(int parallelism, Barriers barriers) {
  model::Scenario s;
  s.name = "b2";
  s.duration = core::seconds(60);
  s.sample_period = 0;  // no time series: the benchmark measures the model
  s.flink.checkpointing.interval = core::milliseconds(100);
  s.flink.checkpointing.unaligned = barriers == Barriers::unaligned;
  // One slot per TaskManager, as the benchmark's MiniCluster: subtask i of every vertex shares
  // TaskManager i (default slot sharing), so all channels but Source i -> Map i are remote.
  s.cluster.taskmanagers = parallelism;
  s.cluster.slots_per_taskmanager = 1;
  model::VertexSpec source;
  source.name = "Source";
  source.parallelism = parallelism;
  // The benchmark's RecordSource emits as fast as it can: back-pressure paces it.
  source.records_per_second = 1e6;
  source.record_size = 1024;  // the benchmark's UNALIGNED_RECORD_SIZE
  source.sync_snapshot = 0;
  model::VertexSpec map;
  map.name = "Map";
  map.parallelism = parallelism;
  map.input = "Source";
  map.ship = model::ShipStrategy::rebalance;
  map.cost_per_record = core::kMicrosecond;
  map.record_size = 1024;
  map.sync_snapshot = 0;
  model::VertexSpec sink;
  sink.name = "Sink";
  sink.parallelism = parallelism;
  sink.input = "Map";
  sink.ship = model::ShipStrategy::rebalance;
  sink.cost_per_record = core::milliseconds(1);  // SlowDiscardSink: Thread.sleep(1)
  sink.sync_snapshot = 0;
  s.job.vertices = {source, map, sink};
  return s;
}

inline constexpr std::int64_t kRecordSize = 100;  // bytes
inline constexpr int kSlotsPerTaskManager = 4;

inline model::Scenario scale(int parallelism, double megabytes_per_second, std::int64_t seconds) {
  model::Scenario s;
  s.name = "scale";
  s.duration = core::seconds(seconds);
  s.sample_period = 0;  // no time series: the benchmark measures the model
  s.flink.checkpointing.interval = core::seconds(10);
  s.cluster.slots_per_taskmanager = kSlotsPerTaskManager;
  s.cluster.taskmanagers = (parallelism + kSlotsPerTaskManager - 1) / kSlotsPerTaskManager;
  // TaskManagers of 8 GiB (taskmanager.memory.process.size), about 700 MiB of network memory:
  // with Flink's default size (1,728 MiB, 128 MiB of network memory) four slots of 125-way
  // exchanges do not get their required buffers and the deployment fails ("Insufficient number
  // of network buffers").
  s.flink.memory.process_size = std::int64_t{8} << 30;
  model::VertexSpec source;
  source.name = "Source";
  source.parallelism = parallelism;
  source.records_per_second = megabytes_per_second * 1e6 / static_cast<double>(kRecordSize);
  source.record_size = kRecordSize;
  source.cost_per_record = 0;  // the source only reads: its output is the work
  std::vector<model::VertexSpec> vertices{source};
  for (const char* name : {"Map", "Process", "Sink"}) {
    model::VertexSpec v;
    v.name = name;
    v.parallelism = parallelism;
    v.input = vertices.back().name;
    v.ship = model::ShipStrategy::rebalance;
    v.cost_per_record = core::kMicrosecond;  // 10 % busy at 10 MB/s of 100 B records
    v.record_size = kRecordSize;
    vertices.push_back(v);
  }
  vertices[2].state_size = 4 * 1024 * 1024;
  s.job.vertices = std::move(vertices);
  return s;
}

// The production shape of issue 17: Source(32) -hash-> Aggregate(32, RocksDB incremental, 200 MB
// of state each) -rebalance-> Sink(32), 5,000 records/s of 500 B per source subtask, 8
// TaskManagers x 4 slots, Flink 1.18, a checkpoint a minute. The plots of bench/results/hybrid.sh
// vary the parallelism (TaskManagers of 4 slots as needed) and the records per second.
inline model::Scenario production(std::int64_t seconds, int parallelism = 32,
                                  double records_per_second = 5000) {
  model::Scenario s;
  s.name = "production";
  s.duration = core::seconds(seconds);
  s.sample_period = 0;
  s.flink.version = model::FlinkVersion::v1_18;
  s.flink.checkpointing.interval = core::minutes(1);
  s.flink.state_backend = model::StateBackendKind::rocksdb;
  s.flink.incremental = true;
  s.cluster.slots_per_taskmanager = kSlotsPerTaskManager;
  s.cluster.taskmanagers = (parallelism + kSlotsPerTaskManager - 1) / kSlotsPerTaskManager;
  model::VertexSpec source;
  source.name = "Source";
  source.parallelism = parallelism;
  source.records_per_second = records_per_second;
  source.record_size = 500;
  source.cost_per_record = 0;
  model::VertexSpec aggregate;
  aggregate.name = "Aggregate";
  aggregate.parallelism = parallelism;
  aggregate.input = "Source";
  aggregate.ship = model::ShipStrategy::hash;
  aggregate.record_size = 500;
  aggregate.state_size = 200LL * 1000 * 1000;
  model::VertexSpec sink = aggregate;
  sink.name = "Sink";
  sink.input = "Aggregate";
  sink.ship = model::ShipStrategy::rebalance;
  sink.state_size = 0;
  s.job.vertices = {source, aggregate, sink};
  return s;
}

}  // namespace ckptsim::bench
