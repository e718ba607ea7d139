// Checkpoint storage and RPC latencies (issue 14 item 11): distributions with tails, the inline
// threshold, the _metadata write at finalization, the first checkpoint's warm-up, and RPCs that
// arrive in order per TaskManager.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "sim/model/checkpoint_storage_profile.hpp"
#include "sim/model/latency_distribution.hpp"
#include "sim/model/task/task_executor.hpp"
#include "sim/run/run.hpp"
#include "sim/scenario/scenario.hpp"
#include "tests/model/fake_job_manager.hpp"

using namespace ckptsim;
using core::milliseconds;

namespace {

run::RunResult run_text(const std::string& yaml, std::vector<std::string> sets = {}) {
  const auto loaded = scenario::load_string(yaml, "checkpoint_storage_test.yaml", sets);
  INFO(scenario::format_diagnostics(loaded.diagnostics));
  REQUIRE(loaded.ok());
  return run::run(*loaded.scenario);
}

// Two single-subtask tasks, one TaskManager, a checkpoint every 10 s for 2 min.
std::string job(const std::string& flink, const std::string& cluster, const std::string& state) {
  return "duration: 2 min\n"
         "flink: {execution.checkpointing.interval: 10 s" +
         flink +
         "}\n"
         "cluster: {taskmanagers: 1, slots-per-taskmanager: 2" +
         cluster +
         "}\n"
         "job:\n  vertices:\n"
         "    - {name: Source, rate: 10 records/s, state-size: " +
         state +
         "}\n"
         "    - {name: Sink, input: {from: Source, ship: rebalance}}\n";
}

// End-to-end (trigger to last acknowledgement) and trigger-to-completion durations.
std::vector<core::Duration> to_last_ack(const run::RunResult& r) {
  std::vector<core::Duration> out;
  for (const auto& c : r.checkpoints)
    if (c.status == run::CheckpointStatus::completed)
      out.push_back(c.latest_ack_time - c.trigger_time);
  return out;
}

std::vector<core::Duration> to_completion(const run::RunResult& r) {
  std::vector<core::Duration> out;
  for (const auto& c : r.checkpoints)
    if (c.status == run::CheckpointStatus::completed) out.push_back(c.end_time - c.trigger_time);
  return out;
}

}  // namespace

TEST_CASE(
    "LatencyDistribution: a fixed one draws nothing; a lognormal has its median and its "
    "slow share",
    "[storage]") {
  core::RandomStream rng(7, "test");
  core::RandomStream untouched(7, "test");
  const auto fixed = model::LatencyDistribution::fixed(milliseconds(30));
  CHECK(fixed.sample(rng) == milliseconds(30));
  CHECK(rng.next_u64() == untouched.next_u64());  // no draw

  const model::LatencyDistribution d{milliseconds(10), 0.5, 0.05, milliseconds(1000), 0.1};
  std::vector<core::Duration> xs;
  for (int i = 0; i < 20000; ++i) xs.push_back(d.sample(rng));
  const auto slow =
      std::count_if(xs.begin(), xs.end(), [](core::Duration x) { return x > milliseconds(300); });
  CHECK(static_cast<double>(slow) / 20000.0 == Approx(0.05).margin(0.006));
  std::vector<core::Duration> body;
  for (core::Duration x : xs)
    if (x <= milliseconds(300)) body.push_back(x);
  const auto middle = static_cast<std::ptrdiff_t>(body.size() / 2);
  std::nth_element(body.begin(), body.begin() + middle, body.end());
  CHECK(static_cast<double>(body[body.size() / 2]) ==
        Approx(static_cast<double>(milliseconds(10))).epsilon(0.05));
  CHECK(*std::min_element(xs.begin(), xs.end()) < milliseconds(5));  // spread, not constant
}

TEST_CASE("checkpoint storage profiles: the directory's scheme picks one", "[storage]") {
  CHECK(model::profile_for_directory("s3://bucket/chk") == "s3");
  CHECK(model::profile_for_directory("S3A://bucket/chk") == "s3");
  CHECK(model::profile_for_directory("hdfs:///flink") == "hdfs");
  CHECK(model::profile_for_directory("oss://b/c") == "oss");
  CHECK(model::profile_for_directory("gs://b/c") == "gcs");
  CHECK(model::profile_for_directory("file:///tmp/c") == "local");
  CHECK(model::profile_for_directory("/tmp/c") == "local");
  CHECK_FALSE(model::profile_for_directory("abfs://c@acct.dfs.core.windows.net/x"));
  for (const std::string& name : model::checkpoint_storage_profile_names())
    CHECK(model::checkpoint_storage_profile(name)->profile == name);
  CHECK_FALSE(model::checkpoint_storage_profile("nfs"));
}

TEST_CASE(
    "a scenario without a profile gets the one its checkpoint directory implies; given "
    "keys replace the profile's values",
    "[storage]") {
  const auto load = [](const std::string& yaml) {
    auto loaded = scenario::load_string(yaml, "t.yaml", {});
    REQUIRE(loaded.ok());
    return loaded;
  };
  const std::string v = "job: {vertices: [{name: Source}]}\n";
  CHECK(load(v).scenario->cluster.checkpoint_storage.profile == "jobmanager");
  CHECK(load("flink: {state.checkpoints.dir: 's3://b/c'}\n" + v)
            .scenario->cluster.checkpoint_storage.profile == "s3");
  const auto given = load(
      "flink: {state.checkpoints.dir: 's3://b/c'}\n"
      "cluster: {checkpoint-storage: {profile: local, bandwidth: 1 GB/s, "
      "latency-spread: 0}}\n" +
      v);
  const auto& spec = given.scenario->cluster.checkpoint_storage;
  CHECK(spec.profile == "local");
  CHECK(spec.bandwidth_bytes_per_second == Approx(1024.0 * 1024 * 1024));
  CHECK(spec.latency.sigma == 0);
  CHECK(spec.latency.median == milliseconds(4));  // the profile's
  // An object store without a profile of its own: s3's, with a warning that says so.
  const auto azure =
      load("flink: {state.checkpoints.dir: 'abfs://c@a.dfs.core.windows.net/x'}\n" + v);
  CHECK(azure.scenario->cluster.checkpoint_storage.profile == "s3");
  const std::string text = scenario::format_diagnostics(azure.warnings);
  CHECK(text.find("no checkpoint storage profile for 'abfs://") != std::string::npos);
  // An unknown profile names the known ones.
  const auto bad =
      scenario::load_string("cluster: {checkpoint-storage: {profile: nfs}}\n" + v, "t.yaml", {});
  CHECK_FALSE(bad.ok());
  CHECK(scenario::format_diagnostics(bad.diagnostics).find("local") != std::string::npos);
}

TEST_CASE(
    "state below state.storage.fs.memory-threshold makes no request to the storage "
    "(FsCheckpointStateOutputStream: ByteStreamStateHandle)",
    "[storage]") {
  const std::string flink = ", state.checkpoints.dir: 'file:///c'";
  const std::string slow =
      ", rpc-latency-spread: 0, checkpoint-warm-up: 0 ms, "
      "checkpoint-storage: {latency: 500 ms, latency-spread: 0, slow-share: 0}";
  // 10 kB: inline, nothing waits for the 500 ms storage.
  for (core::Duration d : to_last_ack(run_text(job(flink, slow, "10 kB"))))
    CHECK(d < milliseconds(100));
  // 30 kB: one request each.
  for (core::Duration d : to_last_ack(run_text(job(flink, slow, "30 kB"))))
    CHECK(d > milliseconds(500));
  // A lower threshold sends the 10 kB to the storage too.
  for (core::Duration d : to_last_ack(
           run_text(job(flink + ", state.storage.fs.memory-threshold: 1 kb", slow, "10 kB"))))
    CHECK(d > milliseconds(500));
}

TEST_CASE(
    "with a checkpoint directory the JobManager writes _metadata before completing "
    "(PendingCheckpoint.finalizeCheckpoint), inside checkpointDuration but not the REST "
    "end-to-end duration",
    "[storage]") {
  const std::string cluster =
      ", rpc-latency-spread: 0, checkpoint-warm-up: 0 ms, "
      "checkpoint-storage: {latency: 200 ms, latency-spread: 0}";
  const run::RunResult with_dir =
      run_text(job(", state.checkpoints.dir: 'file:///c'", cluster, "1 kB"));
  const auto ack = to_last_ack(with_dir);
  const auto done = to_completion(with_dir);
  REQUIRE(done.size() >= 10);
  for (std::size_t i = 0; i < done.size(); ++i) {
    CHECK(ack[i] < milliseconds(50));              // inline state
    CHECK(done[i] - ack[i] >= milliseconds(200));  // the metadata request
    CHECK(done[i] - ack[i] < milliseconds(210));   // and the completed checkpoint store's add
  }
  // JobManagerCheckpointStorage without a directory keeps the metadata in memory: only the
  // store's add (StandaloneCompletedCheckpointStore, well under 10 ms) is left, and the log's
  // finalizationTime is that add.
  const run::RunResult no_dir = run_text(job("", cluster, "1 kB"));
  for (const auto& c : no_dir.checkpoints)
    if (c.status == run::CheckpointStatus::completed) {
      CHECK(c.end_time > c.latest_ack_time);
      CHECK(c.end_time - c.latest_ack_time < milliseconds(10));
    }
  int nonzero = 0;
  for (const auto& l : no_dir.log)
    if (l.message.find("Completed checkpoint") != std::string::npos &&
        l.message.find("finalizationTime=0 ms") == std::string::npos)
      ++nonzero;
  CHECK(nonzero > 0);  // measured, not a constant 0
}

TEST_CASE(
    "a checkpoint being finalized does not expire: the canceller waits for the "
    "coordinator lock and finds it completed",
    "[storage]") {
  // The metadata write (3 s) ends after the 2 s timeout: the checkpoint completes anyway.
  const std::string cluster =
      ", rpc-latency-spread: 0, checkpoint-warm-up: 0 ms, "
      "checkpoint-storage: {latency: 3 s, latency-spread: 0}";
  const run::RunResult r =
      run_text(job(", execution.checkpointing.timeout: 2 s, state.checkpoints.dir: 'file:///c'",
                   cluster, "1 kB"));
  REQUIRE(!r.checkpoints.empty());
  for (const auto& c : r.checkpoints) {
    if (c.status == run::CheckpointStatus::in_progress) continue;
    CHECK(c.status == run::CheckpointStatus::completed);
    CHECK(c.end_time - c.trigger_time > milliseconds(3000));
  }
}

TEST_CASE("the first checkpoint after a submission takes checkpoint-warm-up longer", "[storage]") {
  const std::string cluster = ", rpc-latency-spread: 0, checkpoint-warm-up: 300 ms";
  const auto d = to_last_ack(run_text(job("", cluster, "1 kB")));
  REQUIRE(d.size() >= 3);
  CHECK(d[0] - d[1] >= milliseconds(299));
  CHECK(d[1] == d[2]);  // fixed RPCs, jobmanager storage: no spread after the first
}

TEST_CASE(
    "RPCs spread but arrive in order per TaskManager: every acknowledgement after its "
    "trigger, durations differ",
    "[storage]") {
  const std::string cluster = ", rpc-latency: 20 ms, rpc-latency-spread: 1.5";
  const run::RunResult r = run_text(job("", cluster, "1 kB"));
  const auto d = to_last_ack(r);
  REQUIRE(d.size() >= 10);
  CHECK(*std::max_element(d.begin(), d.end()) >
        *std::min_element(d.begin(), d.end()) + milliseconds(10));
  CHECK(r.counts.failed == 0);
  // Same seed, same bytes.
  const run::RunResult again = run_text(job("", cluster, "1 kB"));
  CHECK(to_last_ack(again) == d);
}

TEST_CASE(
    "TaskExecutor.rpc_delay: messages to one TaskManager arrive in the order they were "
    "sent, as Pekko delivers one sender's messages; other TaskManagers do not wait",
    "[storage]") {
  model::Scenario s;
  s.cluster.taskmanagers = 2;
  s.cluster.slots_per_taskmanager = 1;
  s.cluster.rpc_latency = {milliseconds(5), 2.0, 0, 0, 0};
  model::VertexSpec source;
  source.name = "Source";
  source.parallelism = 2;  // subtask 0 on TaskManager 0, subtask 1 on TaskManager 1
  s.job.vertices = {source};
  core::Simulation sim;
  model::Observer observer;
  tests::FakeJobManager jm;
  jm.sim = &sim;
  model::TaskExecutor tasks(sim, s, observer, jm);
  core::SimTime last_to_tm0 = 0;
  bool overtaken_elsewhere = false;
  core::SimTime last_to_tm1 = 0;
  for (int i = 0; i < 200; ++i) {
    const core::SimTime to0 = tasks.rpc_delay(0, true);
    CHECK(to0 >= last_to_tm0);
    last_to_tm0 = to0;
    const core::SimTime to1 = tasks.rpc_delay(1, true);
    if (to1 < last_to_tm1) overtaken_elsewhere = true;
    last_to_tm1 = std::max(last_to_tm1, to1);
  }
  CHECK_FALSE(overtaken_elsewhere);
  // The other direction is a separate queue: it starts from the plain latency again.
  CHECK(tasks.rpc_delay(0, false) < last_to_tm0);
}

// DefaultCheckpointPlanCalculatorTest.testPlanCalculationWhenOneTaskNotRunning: the plan waits
// for every task that has not FINISHED, so any of them not RUNNING fails it
// (checkTasksStarted), a source or not. Here one vertex restores a large state and reaches
// RUNNING 10 s after the other.
TEST_CASE("DefaultCheckpointPlanCalculatorTest.testPlanCalculationWhenOneTaskNotRunning",
          "[conformance][plan]") {
  for (const bool slow_is_source : {true, false}) {
    model::Scenario s;
    s.cluster.taskmanagers = 1;
    s.cluster.slots_per_taskmanager = 1;
    s.cluster.checkpoint_storage.bandwidth_bytes_per_second = 100e6;
    model::VertexSpec source;
    source.name = "Source";
    model::VertexSpec sink;
    sink.name = "Sink";
    sink.input = "Source";
    sink.ship = model::ShipStrategy::rebalance;
    s.job.vertices = {source, sink};
    core::Simulation sim;
    model::Observer observer;
    tests::FakeJobManager jm;
    jm.sim = &sim;
    model::TaskExecutor tasks(sim, s, observer, jm);
    model::CompletedCheckpoint restored;
    restored.task_states[{slow_is_source ? 0 : 1, 0}].state_size = 1'000'000'000;  // 10 s
    restored.task_states[{slow_is_source ? 1 : 0, 0}].state_size = 0;
    tasks.deploy(&restored);
    sim.run_until(core::seconds(2));
    const auto failure = tasks.checkpoint_plan_failure(true);
    REQUIRE(failure);
    CHECK(failure->task == (slow_is_source ? "Source (1/1)" : "Sink (1/1)"));
    sim.run_until(core::seconds(12));
    CHECK_FALSE(tasks.checkpoint_plan_failure(true));
  }
}
