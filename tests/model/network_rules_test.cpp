// The task and network rules of reference/flink-task-network.md section 6, driven directly on
// the TaskExecutor with a fake JobManager. Test names cite the rule and the Flink test it ports.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <vector>

#include "sim/core/simulation.hpp"
#include "sim/model/task/task_executor.hpp"
#include "tests/model/fake_job_manager.hpp"

using namespace ckptsim;
using namespace ckptsim::model;

namespace {

using tests::FakeJobManager;

// Two sources rebalance into one sink (two input channels); every subtask on its own
// TaskManager so the channels are remote (credit-based).
Scenario two_sources_one_sink() {
  Scenario s;
  s.cluster.taskmanagers = 2;
  s.cluster.slots_per_taskmanager = 1;
  s.cluster.deploy_time = core::milliseconds(10);
  s.cluster.rpc_latency = model::LatencyDistribution::fixed(0);
  s.cluster.checkpoint_storage.latency = model::LatencyDistribution::fixed(core::milliseconds(1));
  VertexSpec source;
  source.name = "Source";
  source.parallelism = 2;
  source.records_per_second = 20000;
  source.record_size = 100;
  source.sync_snapshot = 0;
  VertexSpec sink;
  sink.name = "Sink";
  sink.parallelism = 1;
  sink.input = "Source";
  sink.ship = ShipStrategy::rebalance;
  sink.cost_per_record = core::microseconds(100);  // 10k records/s: slower than the sources
  sink.sync_snapshot = 0;
  s.job.vertices = {source, sink};
  return s;
}

struct Harness {
  Scenario scenario;
  core::Simulation sim;
  Observer observer;
  FakeJobManager jm;
  TaskExecutor tasks;
  explicit Harness(Scenario s) : scenario(std::move(s)), tasks(sim, scenario, observer, jm) {
    jm.sim = &sim;
    tasks.deploy(nullptr);
    sim.run_until(core::milliseconds(20));
    REQUIRE(jm.running);
  }
  void trigger(std::int64_t id, bool at_least_once = false) {
    CheckpointProperties props;
    if (at_least_once) scenario.flink.checkpointing.mode = CheckpointingMode::at_least_once;
    tasks.trigger_checkpoint(id, sim.now(), props);
  }
  void run_for(Duration d) { sim.run_until(sim.now() + d); }
};

const TaskRef kSource0{0, 0, 0}, kSource1{0, 1, 0}, kSink{1, 0, 0};

}  // namespace

TEST_CASE("R9/R8 credit-based back-pressure: a slow consumer holds exclusive+floating buffers "
          "and the producer's subpartition caps at max-buffers-per-channel",
          "[conformance][network]") {
  Harness h(two_sources_one_sink());
  h.run_for(core::seconds(5));
  for (TaskRef src : {kSource0, kSource1}) {
    const auto c = h.tasks.channel_stats(src, kSink);
    REQUIRE(c);
    // taskmanager.network.memory.max-buffers-per-channel, plus at most the one buffer a step
    // already writing may add (the availability check precedes the emission).
    CHECK(c->backlog >= 10);
    CHECK(c->backlog <= 11);
  }
  // The sources read at the sink's pace (10k records/s), not at their own (2 x 20k/s): each
  // waits for a buffer between steps, at some instant of every sink buffer (32.7 ms).
  CHECK(h.tasks.total_source_position() < 10'000 * 5 + 2 * (10 + 2 + 8) * 328);
  for (TaskRef src : {kSource0, kSource1}) {
    bool waited = false;
    for (int ms = 0; ms < 33 && !waited; ++ms) {
      h.run_for(core::milliseconds(1));
      waited = h.tasks.back_pressured(src);
    }
    CHECK(waited);
  }
  // Default slot sharing: subtask 0 of both vertices share slot 0 on TaskManager 0 (a local
  // channel reading the subpartition directly); source 1 is remote on TaskManager 1 and holds
  // its 2 exclusive buffers plus floating buffers of the gate.
  CHECK(h.tasks.channel_stats(kSource0, kSink)->local);
  CHECK(h.tasks.channel_stats(kSource0, kSink)->received <= 1);
  CHECK_FALSE(h.tasks.channel_stats(kSource1, kSink)->local);
  CHECK(h.tasks.channel_stats(kSource1, kSink)->received <= 2 + 8);
  // The gate's 8 floating buffers are lent out, never more.
  const auto a = h.tasks.channel_stats(kSource0, kSink), b = h.tasks.channel_stats(kSource1, kSink);
  CHECK(a->floating + b->floating <= 8);
  // Records are conserved: everything read is delivered or in flight.
  CHECK(h.tasks.total_source_position() ==
        h.tasks.records_received_by_sinks() + h.tasks.records_in_flight());
}

TEST_CASE("R1/R2 AlignedCheckpointsTest.testMultiChannelWithBarriers: the channel whose barrier "
          "was handed out blocks at the upstream until the snapshot, the other keeps flowing",
          "[conformance][network]") {
  Scenario s = two_sources_one_sink();
  s.job.vertices[1].cost_per_record = core::microseconds(10);  // fast sink: no back-pressure
  Harness h(std::move(s));
  h.tasks.add_stall(0, 1, h.sim.now(), core::seconds(2));  // source 1 cannot run its trigger
  h.trigger(1);
  h.run_for(core::milliseconds(500));
  const auto blocked = h.tasks.channel_stats(kSource0, kSink);
  const auto open = h.tasks.channel_stats(kSource1, kSink);
  CHECK(blocked->blocked);
  CHECK(blocked->backlog >= 10);         // records keep queuing behind the barrier (R9)
  CHECK(h.tasks.back_pressured(kSource0));
  CHECK_FALSE(open->blocked);
  CHECK(h.jm.ack_of(1, 0, 0) != nullptr);  // the source itself acknowledged
  CHECK(h.jm.ack_of(1, 1, 0) == nullptr);  // the sink is aligning
  h.run_for(core::seconds(2));
  const auto* sink_ack = h.jm.ack_of(1, 1, 0);
  REQUIRE(sink_ack != nullptr);
  CHECK_FALSE(h.tasks.channel_stats(kSource0, kSink)->blocked);  // resumed after sync (R2)
  // R17: alignment runs from the first to the last barrier; start delay from the trigger.
  CHECK(sink_ack->metrics.alignment_duration > core::milliseconds(1400));
  CHECK(sink_ack->metrics.start_delay < core::milliseconds(100));
}

TEST_CASE("R5 an expiry at the JobManager does not unblock inputs; the late checkpoint becomes "
          "a cancel marker (SubtaskCheckpointCoordinatorImpl.checkAndClearAbortedStatus)",
          "[conformance][network]") {
  Scenario s = two_sources_one_sink();
  s.job.vertices[1].cost_per_record = core::microseconds(10);
  Harness h(std::move(s));
  h.tasks.add_stall(0, 1, h.sim.now(), core::seconds(2));
  h.trigger(1);
  h.run_for(core::milliseconds(500));
  h.tasks.notify_checkpoint_aborted(1);
  h.run_for(core::milliseconds(500));
  CHECK(h.tasks.channel_stats(kSource0, kSink)->blocked);  // still blocked
  h.run_for(core::seconds(2));
  // Source 1 ran its trigger after the abort: it sent a cancel marker, took no snapshot; the
  // sink, still aligning checkpoint 1, aborted it on the marker (R4) and unblocked.
  CHECK(h.jm.ack_of(1, 0, 1) == nullptr);
  CHECK(h.jm.ack_of(1, 1, 0) == nullptr);
  REQUIRE(h.jm.declines.size() == 1);
  CHECK(h.jm.declines[0].reason ==
        CheckpointFailureReason::checkpoint_declined_on_cancellation_barrier);
  CHECK(h.jm.declines[0].task.vertex == 1);
  CHECK_FALSE(h.tasks.channel_stats(kSource0, kSink)->blocked);
  // The next checkpoint goes through normally.
  h.trigger(2);
  h.run_for(core::seconds(1));
  CHECK(h.jm.ack_of(2, 1, 0) != nullptr);
}

TEST_CASE("R16 CheckpointBarrierTrackerTest: at-least-once never blocks a channel and triggers "
          "when every channel delivered the barrier",
          "[conformance][network]") {
  Scenario s = two_sources_one_sink();
  s.job.vertices[1].cost_per_record = core::microseconds(10);
  s.flink.checkpointing.mode = CheckpointingMode::at_least_once;
  Harness h(std::move(s));
  h.tasks.add_stall(0, 1, h.sim.now(), core::seconds(2));
  h.trigger(1, true);
  h.run_for(core::milliseconds(500));
  CHECK_FALSE(h.tasks.channel_stats(kSource0, kSink)->blocked);
  CHECK_FALSE(h.tasks.back_pressured(kSource0));  // source 0 keeps flowing past its barrier
  CHECK(h.jm.ack_of(1, 1, 0) == nullptr);
  h.run_for(core::seconds(2));
  CHECK(h.jm.ack_of(1, 1, 0) != nullptr);
}

TEST_CASE("R8 a barrier queued behind data reaches the consumer after the data ahead of it is "
          "drained (start delay = bytes ahead / drain rate)",
          "[conformance][network]") {
  Scenario s = two_sources_one_sink();
  s.job.vertices[0].parallelism = 1;  // one channel, so the sink drains it alone
  Harness h(std::move(s));
  h.run_for(core::seconds(3));  // back-pressured steady state
  h.trigger(1);
  h.run_for(core::milliseconds(1));  // the source ran its trigger mail: barrier queued
  const WaitState w = h.tasks.wait_state({1, 0, 0}, 1);
  REQUIRE(w.kind == WaitState::Kind::barrier_behind_data);
  const double predicted_ms = static_cast<double>(w.bytes_ahead) / w.drain_bytes_per_second * 1e3;
  h.run_for(core::seconds(5));
  const auto* ack = h.jm.ack_of(1, 1, 0);
  REQUIRE(ack != nullptr);
  const double start_delay_ms = static_cast<double>(ack->metrics.start_delay) / 1e6;
  CHECK(predicted_ms > 100);  // ~20 buffers of 32 KiB at 1 MB/s
  CHECK(start_delay_ms == Approx(predicted_ms).epsilon(0.05));
}

TEST_CASE("R10/R11 UnalignedCheckpointsTest: an unaligned barrier overtakes the queued data, "
          "the overtaken and arriving buffers are persisted, and the ack waits for the last "
          "barrier",
          "[conformance][network]") {
  Scenario s = two_sources_one_sink();
  s.flink.checkpointing.unaligned = true;
  Harness h(std::move(s));
  h.run_for(core::seconds(3));  // back-pressured: full subpartitions and input channels
  REQUIRE(h.tasks.channel_stats(kSource1, kSink)->backlog >= 10);
  h.trigger(1);
  h.run_for(core::milliseconds(20));
  // Both barriers jumped the queues: the sink snapshotted at once and acknowledged quickly
  // despite ~20 buffers per channel ahead (an aligned barrier would need seconds, see R8).
  const auto* sink_ack = h.jm.ack_of(1, 1, 0);
  REQUIRE(sink_ack != nullptr);
  CHECK(sink_ack->metrics.unaligned);
  CHECK(sink_ack->metrics.start_delay < core::milliseconds(5));
  CHECK(sink_ack->metrics.persisted_bytes >= 10 * 32 * 1024);  // the input channel state
  const auto* source_ack = h.jm.ack_of(1, 0, 1);
  REQUIRE(source_ack != nullptr);
  CHECK(source_ack->metrics.persisted_bytes >= 9 * 32 * 1024);  // the output state it overtook
  CHECK_FALSE(h.tasks.channel_stats(kSource0, kSink)->blocked);
}

TEST_CASE("R11 unaligned: a missing barrier keeps the subtask collecting channel state and its "
          "acknowledgement waits",
          "[conformance][network]") {
  Scenario s = two_sources_one_sink();
  s.flink.checkpointing.unaligned = true;
  s.job.vertices[1].cost_per_record = core::microseconds(10);
  Harness h(std::move(s));
  h.tasks.add_stall(0, 1, h.sim.now(), core::seconds(1));
  h.trigger(1);
  h.run_for(core::milliseconds(500));
  CHECK(h.jm.ack_of(1, 1, 0) == nullptr);
  const WaitState w = h.tasks.wait_state({1, 0, 0}, 1);
  CHECK(w.kind == WaitState::Kind::aligning);
  CHECK(w.channels_aligned == 1);
  CHECK_FALSE(h.tasks.channel_stats(kSource0, kSink)->blocked);  // nothing blocks in UC
  h.run_for(core::seconds(1));
  const auto* ack = h.jm.ack_of(1, 1, 0);
  REQUIRE(ack != nullptr);
  CHECK(ack->metrics.alignment_duration > core::milliseconds(400));  // the barriers' spread
}

TEST_CASE("savepoints are always aligned, even with unaligned checkpoints enabled "
          "(CheckpointOptions.forConfig)",
          "[conformance][network]") {
  Scenario s = two_sources_one_sink();
  s.flink.checkpointing.unaligned = true;
  s.job.vertices[1].cost_per_record = core::microseconds(10);
  Harness h(std::move(s));
  h.tasks.add_stall(0, 1, h.sim.now(), core::seconds(1));
  h.tasks.trigger_checkpoint(1, h.sim.now(), CheckpointProperties::savepoint(true));
  h.run_for(core::milliseconds(500));
  CHECK(h.tasks.channel_stats(kSource0, kSink)->blocked);
}

TEST_CASE("at-least-once savepoint barriers do not block: CheckpointOptions.forConfig checks the "
          "mode first, and the task's handler is the CheckpointBarrierTracker (issue 14 item 6)",
          "[conformance][network]") {
  Scenario s = two_sources_one_sink();
  s.flink.checkpointing.mode = model::CheckpointingMode::at_least_once;
  s.job.vertices[1].cost_per_record = core::microseconds(10);
  Harness h(std::move(s));
  h.tasks.add_stall(0, 1, h.sim.now(), core::seconds(1));
  h.tasks.trigger_checkpoint(1, h.sim.now(), CheckpointProperties::savepoint(true));
  h.run_for(core::milliseconds(500));
  CHECK_FALSE(h.tasks.channel_stats(kSource0, kSink)->blocked);
  CHECK(h.jm.ack_of(1, 1, 0) == nullptr);  // the tracker still waits for the second barrier
  h.run_for(core::seconds(1));
  CHECK(h.jm.ack_of(1, 1, 0) != nullptr);
}

namespace {
Harness& backpressured(Harness& h) {
  h.run_for(core::seconds(3));
  REQUIRE(h.tasks.channel_stats(kSource1, kSink)->backlog >= 10);
  return h;
}
}  // namespace

TEST_CASE("R12/R14 AlternatingCheckpointsTest.testTimeoutAlignment / testSwitchToUnalignedByUpstream"
          ": an aligned barrier still queued at trigger + aligned-checkpoint-timeout switches to "
          "unaligned, on the input side and in the upstream's subpartition",
          "[conformance][network]") {
  Scenario s = two_sources_one_sink();
  s.flink.checkpointing.unaligned = true;
  s.flink.checkpointing.aligned_checkpoint_timeout = core::milliseconds(100);
  Harness h(std::move(s));
  backpressured(h);
  const SimTime t0 = h.sim.now();
  h.trigger(1);
  h.run_for(core::milliseconds(50));
  // Before the timeout the checkpoint is aligned: the barriers wait behind data, and the
  // sources' acknowledgements wait for their barriers to leave the subpartitions.
  CHECK(h.jm.ack_of(1, 1, 0) == nullptr);
  CHECK(h.jm.ack_of(1, 0, 1) == nullptr);
  h.run_for(core::seconds(1));
  const auto* sink = h.jm.ack_of(1, 1, 0);
  REQUIRE(sink != nullptr);
  CHECK(sink->metrics.unaligned);
  CHECK(sink->metrics.persisted_bytes > 0);
  CHECK(sink->at - t0 >= core::milliseconds(100));
  CHECK(sink->at - t0 < core::milliseconds(300));  // an aligned barrier needs seconds (R8)
  const auto* source = h.jm.ack_of(1, 0, 1);
  REQUIRE(source != nullptr);
  CHECK(source->at - t0 >= core::milliseconds(100));
  CHECK(source->metrics.persisted_bytes > 0);  // the buffers its converted barrier skipped
}

namespace {
// Events queued in every channel, and the event table's live entries: equal when each copy read
// or dropped gives its entry back, and no entry outlives its copies.
std::pair<std::size_t, std::size_t> queued_and_live_events(const Harness& h) {
  const Network& net = h.tasks.network();
  std::size_t queued = 0;
  for (const Channel& c : net.channels_)
    for (const ConstChannelQueue& q : {net.received(c), net.subpartition(c)})
      for (const NetworkBuffer& b : q) queued += b.is_data() ? 0u : 1u;
  return {queued, net.live_events()};
}
}  // namespace

TEST_CASE("EventSerializer: a broadcast barrier is kept once for all its queued copies; a copy "
          "turned unaligned gets an entry of its own; entries are freed when read or dropped "
          "(issue 17 item 4: a queued buffer is 16 bytes)",
          "[network]") {
  STATIC_REQUIRE(sizeof(NetworkBuffer) == 16);
  STATIC_REQUIRE(sizeof(Channel) <= 64);
  // One source broadcasting to three slow sinks: each checkpoint's barrier waits behind data in
  // three subpartitions, one entry for the three copies; the alignment timeout rewrites them.
  Scenario s = two_sources_one_sink();
  s.cluster.taskmanagers = 4;
  s.job.vertices[0].parallelism = 1;
  s.job.vertices[1].parallelism = 3;
  s.job.vertices[1].cost_per_record = core::microseconds(300);
  s.flink.checkpointing.unaligned = true;
  s.flink.checkpointing.aligned_checkpoint_timeout = core::milliseconds(100);
  Harness h(std::move(s));
  h.run_for(core::seconds(2));
  h.trigger(1);
  h.run_for(core::milliseconds(20));
  const auto [queued, live] = queued_and_live_events(h);
  CHECK(queued == 3);
  CHECK(live == 1);
  for (std::int64_t id = 2; id <= 6; ++id) {
    h.run_for(core::milliseconds(150));  // past the timeout: copies rewritten as unaligned
    const auto [q, l] = queued_and_live_events(h);
    CHECK(l <= q);
    h.trigger(id);
  }
  h.run_for(core::seconds(5));
  for (int j = 0; j < 3; ++j) CHECK(h.jm.ack_of(6, 1, j) != nullptr);
  const auto [q_end, l_end] = queued_and_live_events(h);
  CHECK(q_end == 0);
  CHECK(l_end == 0);
  // A new attempt drops everything in flight, the events with it.
  h.trigger(7);
  h.run_for(core::milliseconds(20));
  CHECK(queued_and_live_events(h).second > 0);
  h.tasks.network().clear_network();
  CHECK(queued_and_live_events(h) == std::pair<std::size_t, std::size_t>{0, 0});
}

TEST_CASE("Queueing statistics are kept for the channels a caller tracks, and for no other",
          "[network]") {
  Harness h(two_sources_one_sink());
  REQUIRE(h.tasks.track_channel_queue(kSource0, kSink));
  CHECK_FALSE(h.tasks.track_channel_queue(kSink, kSource0));  // no such channel
  h.run_for(core::seconds(2));
  CHECK(h.tasks.channel_queue_stats(kSource0, kSink)->consumed > 0);
  CHECK_FALSE(h.tasks.channel_queue_stats(kSource1, kSink).has_value());
}

// FLINK-27251 (1.16, commits 10b7afae742 and dd8f4e26033) added the output side of R14
// (SubtaskCheckpointCoordinatorImpl.registerAlignmentTimer, PipelinedSubpartition
// .alignedBarrierTimeout). Release-1.15 has neither: the source acknowledges after its snapshot
// without waiting for its barrier to leave the subpartition, the barrier stays behind the queued
// data, and only the sink's input timer (started when the barrier reaches its channel) switches
// to unaligned.
TEST_CASE("R14 SubtaskCheckpointCoordinatorImpl.registerAlignmentTimer: no output-buffer timeout "
          "in Flink 1.15 (FLINK-27251)",
          "[conformance][network]") {
  const auto run = [](FlinkVersion version) {
    Scenario s = two_sources_one_sink();
    s.flink.version = version;
    s.flink.checkpointing.unaligned = true;
    s.flink.checkpointing.aligned_checkpoint_timeout = core::milliseconds(100);
    auto h = std::make_unique<Harness>(std::move(s));
    backpressured(*h);
    return h;
  };
  const auto h15 = run(FlinkVersion::v1_15);
  const SimTime t0 = h15->sim.now();
  h15->trigger(1);
  h15->run_for(core::milliseconds(50));
  const auto* source = h15->jm.ack_of(1, 0, 1);
  REQUIRE(source != nullptr);  // 1.16+: waits for the barrier to leave (see above)
  CHECK(source->metrics.persisted_bytes == 0);
  h15->run_for(core::seconds(10));
  const auto* sink = h15->jm.ack_of(1, 1, 0);
  REQUIRE(sink != nullptr);
  CHECK(sink->metrics.unaligned);  // the input side still times out
  // 1.16: the converted barrier overtakes the subpartition's data and the sink acks sooner.
  const auto h16 = run(FlinkVersion::v1_16);
  const SimTime t16 = h16->sim.now();
  h16->trigger(1);
  h16->run_for(core::milliseconds(50));
  CHECK(h16->jm.ack_of(1, 0, 1) == nullptr);
  h16->run_for(core::seconds(10));
  const auto* sink16 = h16->jm.ack_of(1, 1, 0);
  REQUIRE(sink16 != nullptr);
  CHECK(sink16->at - t16 < sink->at - t0);
}

TEST_CASE("R15 AlternatingCheckpointsTest.testAlignedNeverTimeoutableCheckpoint: a timeout "
          "longer than the alignment keeps the checkpoint aligned",
          "[conformance][network]") {
  Scenario s = two_sources_one_sink();
  s.flink.checkpointing.unaligned = true;
  s.flink.checkpointing.aligned_checkpoint_timeout = core::minutes(10);
  Harness h(std::move(s));
  backpressured(h);
  const SimTime t0 = h.sim.now();
  h.trigger(1);
  h.run_for(core::seconds(10));
  const auto* sink = h.jm.ack_of(1, 1, 0);
  REQUIRE(sink != nullptr);
  CHECK_FALSE(sink->metrics.unaligned);
  CHECK(sink->metrics.persisted_bytes == 0);
  CHECK(sink->at - t0 > core::milliseconds(500));
}

TEST_CASE("snapshots: concurrent uploads share the checkpoint storage bandwidth", "[snapshot]") {
  Scenario s = two_sources_one_sink();
  s.job.vertices[0].parallelism = 4;
  s.job.vertices[0].state_size = 10 * 1024 * 1024;
  s.job.vertices[1].cost_per_record = core::microseconds(1);
  s.cluster.checkpoint_storage.bandwidth_bytes_per_second = 10.0 * 1024 * 1024;
  s.cluster.checkpoint_storage.latency = model::LatencyDistribution::fixed(0);
  Harness h(std::move(s));
  h.trigger(1);
  h.run_for(core::seconds(10));
  // Four 10 MiB uploads at 10 MiB/s shared: each takes ~4 s, not 1 s.
  for (int i = 0; i < 4; ++i) {
    const auto* ack = h.jm.ack_of(1, 0, i);
    REQUIRE(ack != nullptr);
    CHECK(static_cast<double>(ack->metrics.async_duration) / 1e9 == Approx(4.0).epsilon(0.01));
  }
}

TEST_CASE("RebalancePartitioner: records go round robin one by one, so each channel's buffers "
          "fill in turn and every full buffer carries segment / record-size records",
          "[network]") {
  // One source (3,000 records/s of 1 KiB, read in steps of one buffer's worth) -> rebalance ->
  // three sinks; the buffer timeout is longer than the run, so only full buffers move.
  Scenario s = two_sources_one_sink();
  s.cluster.taskmanagers = 4;
  s.job.vertices[0].parallelism = 1;
  s.job.vertices[0].records_per_second = 3000;
  s.job.vertices[0].record_size = 1024;
  s.job.vertices[1].parallelism = 3;
  s.job.vertices[1].cost_per_record = core::microseconds(1);
  s.flink.buffer_timeout = core::minutes(10);
  Harness h(std::move(s));
  for (int j = 0; j < 3; ++j) REQUIRE(h.tasks.track_channel_queue(kSource0, {1, j, 0}));
  h.run_for(core::seconds(10));
  // 10 s x 1,000 records/s per channel = 312.5 buffers of 32 records each; the channels take
  // turns, so none is more than one buffer ahead of another.
  std::vector<std::int64_t> consumed;
  for (int j = 0; j < 3; ++j)
    consumed.push_back(h.tasks.channel_queue_stats(kSource0, {1, j, 0})->consumed);
  const auto [lo, hi] = std::minmax_element(consumed.begin(), consumed.end());
  CHECK(*lo >= 310);
  CHECK(*hi - *lo <= 1);
  CHECK(h.tasks.records_received_by_sinks() ==
        32 * (consumed[0] + consumed[1] + consumed[2]));
  // Nothing lost: what was read is received or still in builders and queues.
  CHECK(h.tasks.total_source_position() ==
        h.tasks.records_received_by_sinks() + h.tasks.records_in_flight());
}

TEST_CASE("snapshots: the sync phase by state backend: a heap copy-on-write snapshot covers the "
          "state, a RocksDB native checkpoint flushes the memtable, a full RocksDB snapshot is "
          "constant (HeapSnapshotStrategy / takeDBNativeCheckpoint / RocksFullSnapshotStrategy)",
          "[snapshot]") {
  // Source (20k records/s) -> Sink with 100 MB of state growing 10 B per record; the source stops
  // after 1 s, so the state is constant when the checkpoints are taken.
  auto job = [](StateBackendKind backend, bool incremental) {
    Scenario s = two_sources_one_sink();
    s.job.vertices[0].parallelism = 1;
    s.job.vertices[1].state_size = 100'000'000;
    s.job.vertices[1].state_growth_per_record = 10;
    s.job.vertices[1].sync_snapshot = core::milliseconds(2);
    s.flink.state_backend = backend;
    s.flink.incremental = incremental;
    s.flink.rocksdb_writebuffer_size = 64 * 1024;
    s.cluster.local_disk_bandwidth_bytes_per_second = 100e6;
    return s;
  };
  auto settle = [](Harness& h) {
    h.run_for(core::seconds(1));
    h.tasks.set_source_rate(0, 0);
    h.run_for(core::seconds(1));
  };
  // Checkpoint `id` of the sink, acknowledged (the upload of 100 MB takes 0.5 s).
  auto checkpoint = [](Harness& h, std::int64_t id) {
    h.trigger(id);
    h.run_for(core::seconds(3));
    const auto* ack = h.jm.ack_of(id, 1, 0);
    REQUIRE(ack != nullptr);
    return ack->metrics;
  };
  const auto ns = [](double seconds) { return static_cast<Duration>(std::llround(seconds * 1e9)); };
  SECTION("hashmap: state size / heap-snapshot-rate (10 GB/s)") {
    Harness h(job(StateBackendKind::hashmap, false));
    settle(h);
    const SubtaskAck ack = checkpoint(h, 1);
    CHECK(ack.state_size > 100'000'000 + 100'000);
    CHECK(ack.sync_duration ==
          core::milliseconds(2) + ns(static_cast<double>(ack.state_size) / 10e9));
  }
  SECTION("RocksDB incremental: the memtable (written since the last flush, modulo the write "
          "buffer) at the local disk's bandwidth; nothing left for the next checkpoint") {
    Harness h(job(StateBackendKind::rocksdb, true));
    settle(h);
    const SubtaskAck first = checkpoint(h, 1);
    const std::int64_t written = first.state_size - 100'000'000;
    REQUIRE(written > 64 * 1024);  // some memtables were flushed in the background
    CHECK(first.sync_duration ==
          core::milliseconds(2) + ns(static_cast<double>(written % (64 * 1024)) / 100e6));
    CHECK(checkpoint(h, 2).sync_duration == core::milliseconds(2));
  }
  SECTION("RocksDB full: a RocksDB snapshot, whatever the state") {
    Harness h(job(StateBackendKind::rocksdb, false));
    settle(h);
    CHECK(checkpoint(h, 1).sync_duration == core::milliseconds(2));
  }
}

TEST_CASE("snapshots: incremental RocksDB uploads only what changed since the last confirmed "
          "checkpoint; FULL checkpoints and heap snapshots upload everything",
          "[snapshot]") {
  Scenario s = two_sources_one_sink();
  s.job.vertices[0].parallelism = 1;
  s.job.vertices[1].state_size = 1000000;
  s.job.vertices[1].state_growth_per_record = 10;
  s.job.vertices[1].cost_per_record = core::microseconds(10);
  s.flink.state_backend = StateBackendKind::rocksdb;
  s.flink.incremental = true;
  Harness h(std::move(s));
  h.trigger(1);
  h.run_for(core::seconds(1));
  REQUIRE(h.jm.ack_of(1, 1, 0) != nullptr);
  // A copy: the acks that follow may move the fake JobManager's list (a heap-use-after-free
  // under ASan when this was a pointer into it).
  const auto first = *h.jm.ack_of(1, 1, 0);
  CHECK(first.metrics.checkpointed_size == first.metrics.state_size);  // nothing confirmed yet
  h.tasks.notify_checkpoint_complete(1);
  h.run_for(core::seconds(1));
  h.trigger(2);
  h.run_for(core::seconds(1));
  const auto* second = h.jm.ack_of(2, 1, 0);
  REQUIRE(second != nullptr);
  // 20,000 records/s x 10 B per record for ~2 s since checkpoint 1.
  CHECK(second->metrics.checkpointed_size == second->metrics.state_size - first.metrics.state_size);
  CHECK(second->metrics.checkpointed_size > 300000);
  CHECK(second->metrics.checkpointed_size < second->metrics.state_size / 2);
  CheckpointProperties full;
  full.type = SnapshotType::full_checkpoint;
  h.tasks.trigger_checkpoint(3, h.sim.now(), full);
  h.run_for(core::seconds(1));
  const auto* third = h.jm.ack_of(3, 1, 0);
  REQUIRE(third != nullptr);
  CHECK(third->metrics.checkpointed_size == third->metrics.state_size);
}

TEST_CASE("R6/R7 a FLIP-27 source runs its trigger while back-pressured; a legacy "
          "SourceFunction waits for the checkpoint lock until an output buffer frees",
          "[conformance][network]") {
  for (const bool legacy : {false, true}) {
    Scenario s = two_sources_one_sink();
    s.job.vertices[0].parallelism = 1;
    s.job.vertices[0].legacy_source = legacy;
    s.job.vertices[1].cost_per_record = core::milliseconds(1);  // a slow sink: hard back-pressure
    Harness h(std::move(s));
    h.run_for(core::seconds(10));  // the channel (~20 buffers of 327 records) is full by now
    REQUIRE(h.tasks.back_pressured({0, 0, 0}));
    h.trigger(1);
    h.run_for(core::milliseconds(2));
    const WaitState w = h.tasks.wait_state({0, 0, 0}, 1);
    if (!legacy) {
      CHECK(h.jm.ack_of(1, 0, 0) != nullptr);  // triggered at once
    } else {
      CHECK(h.jm.ack_of(1, 0, 0) == nullptr);
      CHECK(w.kind == WaitState::Kind::checkpoint_lock);
      h.run_for(core::seconds(2));  // a buffer frees when the sink consumes one (~0.3 s)
      const auto* ack = h.jm.ack_of(1, 0, 0);
      REQUIRE(ack != nullptr);
      CHECK(ack->metrics.start_delay > core::milliseconds(10));  // waited for the lock
    }
  }
}

// SingleInputGate.inputChannelsWithData (queueChannel / getChannel): channels are read in the
// order they became available, each queued again at the tail while it holds more; not by index.
TEST_CASE("SingleInputGate reads its channels in the order they became available "
          "(inputChannelsWithData)",
          "[network]") {
  ChannelsWithData q;
  q.reset(3);
  q.update(2, true);  // channel 2 first, then 0
  q.update(0, true);
  q.update(2, true);  // already queued: stays where it is
  CHECK(q.peek(0) == 2);  // the reads to come, for a prefetch
  CHECK(q.peek(1) == 0);
  CHECK(q.peek(2) == -1);
  CHECK(q.poll() == 2);
  q.update(2, true);  // it holds more: back at the tail, behind 0
  CHECK(q.poll() == 0);
  q.update(0, false);  // drained
  q.update(1, true);
  CHECK(q.poll() == 2);
  q.update(2, false);
  CHECK(q.poll() == 1);
  q.update(1, false);
  CHECK(q.poll() == -1);
  // A queued channel emptied by something else (a priority event) is skipped.
  q.update(0, true);
  q.update(1, true);
  q.update(0, false);
  CHECK(q.poll() == 1);
}

// PipelinedSubpartitionWithReadViewTest.testBarrierOvertaking: an unaligned barrier added to a
// subpartition goes to its head (a priority event), and every data buffer it overtook (not the
// events) is written as output channel state. Here the sink is stalled, so the sources'
// subpartitions hold still while the barrier is added.
TEST_CASE("PipelinedSubpartitionWithReadViewTest.testBarrierOvertaking: the unaligned barrier "
          "jumps the subpartition's queue; exactly its data buffers are the output channel state",
          "[conformance][network]") {
  Scenario s = two_sources_one_sink();
  s.flink.checkpointing.unaligned = true;
  Harness h(std::move(s));
  h.run_for(core::seconds(3));  // back-pressured
  h.tasks.add_stall(1, 0, h.sim.now(), core::seconds(5));  // the sink reads nothing now
  h.run_for(core::milliseconds(100));
  REQUIRE(h.tasks.channel_stats(kSource1, kSink)->backlog >= 5);
  h.trigger(1);
  h.run_for(core::milliseconds(100));
  const auto* source = h.jm.ack_of(1, 0, 1);
  REQUIRE(source != nullptr);
  CHECK(source->metrics.unaligned);
  // The barrier jumped the queue: it left the still subpartition (a priority event goes out at
  // once) ahead of every data buffer, which are all still there and are exactly the output
  // channel state (the buffer being written included: the barrier finished it).
  const auto after = *h.tasks.channel_stats(kSource1, kSink);
  CHECK_FALSE(after.barrier_queued);
  CHECK(after.backlog_bytes > 0);
  CHECK(source->metrics.persisted_bytes == after.backlog_bytes);
  CHECK(h.jm.ack_of(1, 1, 0) == nullptr);  // the stalled sink has not read it
}

// ThroughputCalculatorTest.testIgnoringIdleTime: the measurement pauses while the gate has no
// data, so the throughput is what the task consumes while it has input, not the arrival rate.
// A sink that can take 1 MB/s (100 B records, 100 us each) fed 100 kB/s is idle 90 % of the time;
// its debloater measures ~1 MB/s.
TEST_CASE("ThroughputCalculatorTest.testIgnoringIdleTime: the debloater's throughput leaves the "
          "idle time out",
          "[conformance][network]") {
  Scenario s;
  s.cluster.deploy_time = core::milliseconds(10);
  s.cluster.rpc_latency = model::LatencyDistribution::fixed(0);
  s.flink.debloat_enabled = true;
  VertexSpec source;
  source.name = "Source";
  source.records_per_second = 1000;
  source.record_size = 100;
  VertexSpec sink;
  sink.name = "Sink";
  sink.input = "Source";
  sink.ship = ShipStrategy::rebalance;
  sink.cost_per_record = core::microseconds(100);
  s.job.vertices = {source, sink};
  Harness h(std::move(s));
  h.run_for(core::seconds(5));
  const double measured = h.tasks.debloat_throughput({1, 0, 0});
  CHECK(measured == Approx(1e6).epsilon(0.1));  // not the 1e5 B/s that arrive
}

// AlternatingCheckpointsTest.testTimeoutAlignmentAfterProcessingBarrier: one channel's aligned
// barrier is processed (its channel blocks), the other's is still queued behind data when the
// aligned-checkpoint timeout passes: the checkpoint switches to unaligned at once, the queued
// barrier overtakes its data (which becomes channel state) and every channel reads on.
TEST_CASE("AlternatingCheckpointsTest.testTimeoutAlignmentAfterProcessingBarrier",
          "[conformance][network]") {
  Scenario s = two_sources_one_sink();
  s.flink.checkpointing.unaligned = true;
  s.flink.checkpointing.aligned_checkpoint_timeout = core::milliseconds(800);
  Harness h(std::move(s));
  backpressured(h);
  const SimTime t0 = h.sim.now();
  h.trigger(1);
  // The local channel holds fewer buffers than the remote one (no credit-based queue): its
  // barrier is processed first and blocks it, while the remote one's is still behind data.
  bool seen = false;
  for (int step = 0; step < 80 && !seen; ++step) {
    h.run_for(core::milliseconds(10));
    seen = h.tasks.channel_stats(kSource0, kSink)->blocked &&
           h.sim.now() - t0 < core::milliseconds(800);
  }
  REQUIRE(seen);
  CHECK(h.jm.ack_of(1, 1, 0) == nullptr);
  h.run_for(t0 + core::milliseconds(850) - h.sim.now());
  const auto* sink = h.jm.ack_of(1, 1, 0);
  REQUIRE(sink != nullptr);
  CHECK(sink->metrics.unaligned);
  CHECK(sink->at - t0 >= core::milliseconds(800));
  CHECK(sink->at - t0 < core::milliseconds(850));
  CHECK(sink->metrics.persisted_bytes > 0);  // the data the queued barrier overtook
  CHECK_FALSE(h.tasks.channel_stats(kSource0, kSink)->blocked);
  CHECK_FALSE(h.tasks.channel_stats(kSource1, kSink)->blocked);
}

// BufferDebloater.recalculateBufferSize announces the new size to every upstream channel of the
// gate. Source(2) -rescale-> Sink(4): source 1's channels go to sinks 2 and 3 at positions 0 and
// 1 of its output group, not at the sinks' indexes (Network::output_of finds them by scanning
// the group). Each gets its sink's size, and the round robin (RescalePartitioner) goes on.
TEST_CASE("BufferDebloater: a rescale writer whose channels are not in consumer order fills "
          "each channel at its sink's announced size and keeps its round robin",
          "[conformance][network]") {
  Scenario s = two_sources_one_sink();
  s.cluster.taskmanagers = 6;
  s.flink.debloat_enabled = true;
  s.flink.buffer_timeout = -1;  // buffers go out full: of the size the sink announced
  s.job.vertices[0].records_per_second = 200;
  VertexSpec& sink = s.job.vertices[1];
  sink.parallelism = 4;
  sink.ship = ShipStrategy::rescale;
  // 20 kB/s while it has input: the debloater's 1 s target asks for buffers of about 20 kB,
  // which fill in about 2 s at 10 kB/s per channel.
  sink.cost_per_record = core::milliseconds(5);
  Harness h(std::move(s));
  const TaskRef source1{0, 1, 0};
  REQUIRE(h.tasks.track_channel_queue(source1, {1, 2, 0}));
  REQUIRE(h.tasks.track_channel_queue(source1, {1, 3, 0}));
  CHECK_FALSE(h.tasks.channel_stats(source1, {1, 0, 0}));  // rescale: sinks 0 and 1 are source 0's
  h.run_for(core::seconds(30));
  for (const int sink_index : {2, 3})
    CHECK(h.tasks.buffer_size(source1, {1, sink_index, 0}) < 24 * 1024);  // announced
  // The round robin alternates between its two channels, which consumed alike.
  const auto a = h.tasks.channel_queue_stats(source1, {1, 2, 0})->consumed;
  const auto b = h.tasks.channel_queue_stats(source1, {1, 3, 0})->consumed;
  CHECK(a >= 12);
  CHECK(std::abs(a - b) <= 1);
  CHECK(h.tasks.total_source_position() ==
        h.tasks.records_received_by_sinks() + h.tasks.records_in_flight());
}
