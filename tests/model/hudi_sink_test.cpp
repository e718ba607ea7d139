// The Hudi sink (connectors/hudi/): the coordinator commits at notifyCheckpointComplete on its
// own thread and starts the next instant after the work queued there; the writers wait for that
// instant (AbstractStreamWriteFunction.instantToWrite) and give up after the checkpoint timeout
// (HoodieTableSink sets write.commit.ack.timeout to it) with TimeWait's exception.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/run/run.hpp"
#include "sim/scenario/scenario.hpp"

namespace ckptsim {
namespace {

run::RunResult run_text(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  const auto loaded = scenario::load_string(yaml, "<test>", sets);
  INFO(scenario::format_diagnostics(loaded.diagnostics));
  REQUIRE(loaded.ok());
  return run::run(*loaded.scenario);
}

// A Kafka-like source into a Hudi writer; after checkpoint 3 completes the coordinator's thread
// is busy for `busy` (a compaction it schedules), so the next instant starts only after it.
std::string hudi_job(const std::string& operation, const std::string& busy) {
  return "name: h\nduration: 30 min\nflink: {version: \"1.17\", execution.checkpointing.interval: "
         "1 min, execution.checkpointing.timeout: 2 min, restart-strategy: fixed-delay, "
         "restart-strategy.fixed-delay.attempts: 100, restart-strategy.fixed-delay.delay: 10 s}\n"
         "cluster: {taskmanagers: 1, slots-per-taskmanager: 2}\n"
         "systems: {hdfs: {kind: hudi, commit-latency: 300 ms}}\n"
         "job:\n  vertices:\n"
         "    - {name: \"Source: S\", parallelism: 2, rate: 100 records/s}\n"
         "    - {name: hoodie_write, parallelism: 2, input: {from: \"Source: S\", ship: hash}, "
         "connector: hudi, options: {write.operation: " +
         operation +
         "}}\n"
         "timeline:\n"
         "  - {at-checkpoint: 3, do: coordinator-busy, coordinator: hoodie_write, for: " +
         busy + ", work: scheduleCompaction}\n";
}

int hoodie_timeouts(const run::RunResult& r, std::string* message = nullptr) {
  int n = 0;
  for (const auto& f : r.task_failures)
    if (f.message.find("while waiting for instant initialize") != std::string::npos) {
      if (message != nullptr && message->empty()) *message = f.message;
      ++n;
    }
  return n;
}

}  // namespace

TEST_CASE(
    "Hudi append writer (AppendWriteFunction.initWriterHelper): the first record after a "
    "checkpoint waits for the coordinator's next instant and throws TimeWait's timeout after "
    "the checkpoint timeout plus one poll; a shorter coordinator stall only delays it",
    "[connectors][hudi]") {
  const run::RunResult stuck = run_text(hudi_job("insert", "10 min"));
  std::string message;
  REQUIRE(hoodie_timeouts(stuck, &message) >= 1);
  // 120000 ms timeout: waitingTime passes it after 121 one-second polls.
  CHECK(message == "Timeout(121000ms) while waiting for instant initialize");
  const auto& first = stuck.task_failures.front();
  CHECK(first.exception_class == "org.apache.hudi.exception.HoodieException");
  // The writers flushed at checkpoint 3's barrier and wait from their next record, right after.
  core::SimTime third = 0;
  for (const auto& c : stuck.checkpoints)
    if (c.id == 3) third = c.trigger_time;
  REQUIRE(third > 0);
  CHECK(first.time - third > core::seconds(121));
  CHECK(first.time - third < core::seconds(122));
  // The restarted writers find the coordinator still between its commit and startInstant: they
  // fail again until the 10 min of work end.
  CHECK(hoodie_timeouts(stuck) >= 4);

  // A 90 s stall: the writers wait (the task is blocked), no exception.
  const run::RunResult brief = run_text(hudi_job("insert", "90 s"));
  CHECK(hoodie_timeouts(brief) == 0);
  CHECK(brief.failovers == 0);
}

TEST_CASE(
    "Hudi upsert writer (StreamWriteFunction): the wait would be in the next checkpoint's flush, "
    "but the busy coordinator holds that checkpoint's trigger back, so it expires instead",
    "[connectors][hudi]") {
  const run::RunResult upsert = run_text(hudi_job("upsert", "10 min"));
  // The trigger of checkpoint 4 waits behind the coordinator's work and expires.
  bool expired = false;
  for (const auto& c : upsert.checkpoints)
    if (c.failure_reason == model::CheckpointFailureReason::checkpoint_expired) expired = true;
  CHECK(expired);
  CHECK(hoodie_timeouts(upsert) == 0);

  // No coordinator work: no wait, no failure, every checkpoint completes.
  const run::RunResult healthy = run_text(hudi_job("upsert", "1 ms"));
  CHECK(healthy.failovers == 0);
  CHECK(healthy.task_failures.empty());
  int completed = 0;
  for (const auto& c : healthy.checkpoints) completed += c.status == run::CheckpointStatus::completed;
  CHECK(completed >= 28);
}

TEST_CASE("Hudi sink: write.commit.ack.timeout is overwritten by HoodieTableSink (warned)",
          "[connectors][hudi]") {
  std::string yaml = hudi_job("upsert", "1 ms");
  const std::string from = "write.operation: upsert";
  yaml.replace(yaml.find(from), from.size(), from + ", write.commit.ack.timeout: 600000");
  const auto loaded = scenario::load_string(yaml, "<test>", {});
  REQUIRE(loaded.ok());
  const std::string text = scenario::format_diagnostics(loaded.warnings);
  CHECK(text.find("HoodieTableSink sets write.commit.ack.timeout") != std::string::npos);
}

}  // namespace ckptsim
