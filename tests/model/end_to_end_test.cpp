// End to end through the model: scenario -> run -> Flink log, checked against the rules of
// reference/flink-coordinator.md (expiry timer from trigger, CFM log before the update, global
// failover, fixed-delay restart and restore of the latest completed checkpoint).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include "tests/support/run_file.hpp"
#include "analysis/story.hpp"
#include "sim/run/run.hpp"
#include "sim/run/writers/writers.hpp"
#include "sim/scenario/scenario.hpp"
#include "tests/support/files.hpp"

using namespace ckptsim;

namespace {

const run::LogRecord* find_log(const run::RunResult& r, const std::string& needle,
                               std::size_t from = 0, std::size_t* at = nullptr) {
  for (std::size_t i = from; i < r.log.size(); ++i) {
    if (r.log[i].message.find(needle) != std::string::npos) {
      if (at) *at = i;
      return &r.log[i];
    }
  }
  return nullptr;
}

}  // namespace

TEST_CASE("stalled sink: the in-flight checkpoint expires 10 min after its trigger and the job "
          "fails over and restores",
          "[e2e]") {
  const run::RunResult r = tests::run_file("scenarios/examples/stalled-sink.yaml");
  const std::string& job = r.job_id;

  // The first failed checkpoint expired the timeout (10 min, Flink's default) after
  // createPendingCheckpoint scheduled its CheckpointCanceller: 9 ms after the trigger timestamp
  // (the plan's way to the main thread, as the seed log's queue time 590028 shows).
  const run::CheckpointRecord* expired = nullptr;
  for (const auto& c : r.checkpoints)
    if (c.failure_reason == model::CheckpointFailureReason::checkpoint_expired) {
      expired = &c;
      break;
    }
  REQUIRE(expired != nullptr);
  CHECK(expired->end_time - expired->trigger_time == core::minutes(10) + core::milliseconds(9));
  // The first checkpoint triggered after the stall (interval 3 min) is the one that expires.
  CHECK(expired->trigger_time > core::minutes(10));
  CHECK(expired->trigger_time <= core::minutes(13));
  const std::string id = std::to_string(expired->id);

  std::size_t i_expired = 0, i_warn = 0, i_queue = 0, i_recover = 0, i_tasks = 0, i_restore = 0;
  const run::LogRecord* e = find_log(
      r, "Checkpoint " + id + " of job " + job + " expired before completing.", 0, &i_expired);
  REQUIRE(e != nullptr);
  CHECK(e->time == expired->end_time);
  const run::LogRecord* warn =
      find_log(r, "Failed to trigger or complete checkpoint " + id + " for job " + job +
                      ". (0 consecutive failed attempts so far)",
               0, &i_warn);
  REQUIRE(warn != nullptr);
  CHECK(warn->level == run::LogLevel::warn);
  CHECK(warn->logger == "org.apache.flink.runtime.checkpoint.CheckpointFailureManager");
  const run::LogRecord* queue = find_log(r, "checkpoint request time in queue: ", 0, &i_queue);
  REQUIRE(queue != nullptr);
  // The request queued one interval (3 min) after the stuck trigger waited 10 - 3 = 7 min, plus
  // the 9 ms to the canceller's start and the 19 ms the timer thread spends aborting.
  CHECK(queue->message == "checkpoint request time in queue: 420028");
  CHECK(queue->time - e->time == core::milliseconds(19));
  const run::LogRecord* recover =
      find_log(r, "Trying to recover from a global failure.", 0, &i_recover);
  REQUIRE(recover != nullptr);
  REQUIRE(!recover->throwable.empty());  // its frames follow (java_stack_frames_test)
  CHECK(recover->throwable[0] ==
        "org.apache.flink.util.FlinkRuntimeException: Exceeded checkpoint tolerable failure "
        "threshold. The latest checkpoint failed due to Checkpoint expired before completing., "
        "view the Checkpoint History tab or the Job Manager log to find out why continuous "
        "checkpoints failed.");
  REQUIRE(find_log(r, "6 tasks will be restarted to recover from a global failure.", 0, &i_tasks));
  const run::LogRecord* restore = find_log(r, "Restoring job " + job + " from Checkpoint ", 0,
                                           &i_restore);
  REQUIRE(restore != nullptr);
  // Order as in the seed incident log; the queued request starts before the failover.
  CHECK(i_expired < i_warn);
  CHECK(i_warn < i_queue);
  CHECK(i_queue < i_recover);
  CHECK(i_recover < i_tasks);
  CHECK(i_tasks < i_restore);
  // Fixed-delay backoff of 1.17's default restart strategy: RUNNING again 1 s later.
  core::SimTime restarting_at = -1, running_again_at = -1;
  for (const auto& s : r.job_status_changes) {
    if (s.to == model::JobStatus::restarting && restarting_at < 0) restarting_at = s.time;
    if (s.from == model::JobStatus::restarting && running_again_at < 0) running_again_at = s.time;
  }
  CHECK(running_again_at - restarting_at == core::seconds(1));
  CHECK(restore->time == running_again_at);
  // The latest completed checkpoint is the one before the expired one.
  CHECK(restore->message.find("from Checkpoint " + std::to_string(expired->id - 1) + " @") !=
        std::string::npos);
  CHECK(r.failovers >= 1);
  CHECK(r.replayed_records > 0);
}

TEST_CASE("the sink stall ends: checkpoints complete again after one failover", "[e2e]") {
  const run::RunResult r = tests::run_file("scenarios/examples/stalled-sink.yaml",
                                    {"timeline[0].for=12 min", "duration=40 min"});
  CHECK(r.failovers == 1);
  CHECK(r.checkpoints.back().status == run::CheckpointStatus::completed);
}

TEST_CASE("a larger tolerable-failed-checkpoints keeps the job running", "[e2e]") {
  const run::RunResult r =
      tests::run_file("scenarios/examples/stalled-sink.yaml",
               {"execution.checkpointing.tolerable-failed-checkpoints=5", "duration=30 min"});
  CHECK(r.failovers == 0);
  CHECK(r.final_status == model::JobStatus::running);
  CHECK(r.counts.failed >= 1);
}

TEST_CASE("same scenario and seed write byte-identical output directories", "[e2e][determinism]") {
  const auto base = std::filesystem::temp_directory_path() / "ckptsim-determinism";
  std::filesystem::remove_all(base);
  for (const char* name : {"a", "b"}) {
    const run::RunResult r = tests::run_file("scenarios/examples/stalled-sink.yaml");
    std::string error;
    REQUIRE(run::write_outputs(r, base / name, &error));
  }
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(base / "a")) {
    if (!entry.is_regular_file()) continue;
    const auto rel = std::filesystem::relative(entry.path(), base / "a");
    INFO(rel.string());
    REQUIRE(std::filesystem::exists(base / "b" / rel));
    CHECK(tests::read_file(entry.path()) == tests::read_file(base / "b" / rel));
    ++files;
  }
  CHECK(files > 5);
  // A different seed changes the random initial delay, hence the log.
  const auto loaded = scenario::load_file(std::string(CKPTSIM_SOURCE_DIR) +
                                          "/scenarios/examples/stalled-sink.yaml");
  REQUIRE(loaded.ok());
  CHECK(run::format_flink_log(run::run(*loaded.scenario, 99)) !=
        run::format_flink_log(run::run(*loaded.scenario)));
  std::filesystem::remove_all(base);
}

TEST_CASE("stop-with-savepoint finishes the job; start from the savepoint continues ids",
          "[e2e]") {
  const auto loaded = scenario::load_string(R"(
name: stop-and-start
seed: 5
duration: 20 min
flink:
  execution.checkpointing.interval: 1 min
job:
  vertices:
    - { name: Source, rate: 1000 records/s }
    - { name: Sink, input: Source, cost: 10 us/record }
timeline:
  - { at: 330 s, do: stop-with-savepoint }
  - { at: 8 min, do: start, state: savepoint }
)",
                                            "inline.yaml");
  INFO(scenario::format_diagnostics(loaded.diagnostics));
  REQUIRE(loaded.ok());
  const run::RunResult r = run::run(*loaded.scenario);
  REQUIRE(r.submissions == 2);
  std::int64_t savepoint_id = -1;
  for (const auto& c : r.earlier_checkpoints)
    if (c.type == model::SnapshotType::sync_savepoint) {
      CHECK(c.status == run::CheckpointStatus::completed);
      savepoint_id = c.id;
    }
  REQUIRE(savepoint_id > 0);
  bool finished = false;
  for (const auto& s : r.job_status_changes) finished |= s.to == model::JobStatus::finished;
  CHECK(finished);
  REQUIRE(!r.checkpoints.empty());
  CHECK(r.checkpoints.front().id == savepoint_id + 1);  // CC.restoreSavepoint resets the counter
  CHECK(find_log(r, "Reset the checkpoint ID of job " + r.job_id + " to " +
                        std::to_string(savepoint_id + 1) + "."));
  REQUIRE(r.latest_restored.has_value());
  CHECK(r.latest_restored->is_savepoint);
  CHECK(r.final_status == model::JobStatus::running);
}

namespace {

run::RunResult run_text(const std::string& yaml, std::vector<std::string> sets = {}) {
  const auto loaded = scenario::load_string(yaml, "inline.yaml", sets);
  INFO(scenario::format_diagnostics(loaded.diagnostics));
  REQUIRE(loaded.ok());
  return run::run(*loaded.scenario);
}

bool reached(const run::RunResult& r, model::JobStatus status) {
  for (const auto& s : r.job_status_changes)
    if (s.to == status) return true;
  return false;
}

// Two sources rebalance into one sink; source subtask 1 stalls, so the barrier of the next
// checkpoint never arrives on its channels.
constexpr const char* kTwoSources = R"(
name: alignment
seed: 11
duration: 6 min
flink:
  execution.checkpointing.interval: 1 min
  execution.checkpointing.timeout: 10 min
job:
  vertices:
    - { name: Source, parallelism: 2, rate: 2000 records/s }
    - { name: Sink, input: { from: Source, ship: rebalance }, cost: 10 us/record }
timeline:
  - { at: 90 s, do: stall, vertex: Source, subtask: 1 }
)";


}  // namespace

TEST_CASE("aligned exactly-once blocks the channels whose barrier arrived; at-least-once does "
          "not (SingleCheckpointBarrierHandler vs CheckpointBarrierTracker)",
          "[e2e][conformance]") {
  // A task failure at 5 min makes the job replay everything its healthy source emitted since
  // the last completed checkpoint: with aligned checkpoints that source was back-pressured by
  // its blocked channel, with at-least-once it kept emitting.
  const std::string yaml = std::string(kTwoSources) + "  - { at: 5 min, do: fail-task, vertex: Sink }\n";
  const run::RunResult aligned = run_text(yaml);
  const run::RunResult at_least_once =
      run_text(yaml, {"execution.checkpointing.mode=AT_LEAST_ONCE"});
  REQUIRE(aligned.failovers == 1);
  REQUIRE(at_least_once.failovers == 1);
  // The healthy source emits 2000 records/s. Without blocking it emits all the way from the last
  // completed checkpoint to the failure; blocked, it stops ~12 buffers after its barrier.
  INFO("aligned " << aligned.replayed_records << ", at-least-once "
                  << at_least_once.replayed_records);
  CHECK(at_least_once.replayed_records > 2 * aligned.replayed_records);
}

TEST_CASE("restart-strategy none: a checkpoint expiry fails the job (Recovery is suppressed)",
          "[e2e]") {
  const run::RunResult r = tests::run_file("scenarios/examples/stalled-sink.yaml",
                                    {"restart-strategy.type=none", "duration=30 min"});
  CHECK(r.final_status == model::JobStatus::failed);
  CHECK(reached(r, model::JobStatus::failing));
  CHECK(r.failovers == 0);
  CHECK(r.restarts == 0);
  const run::LogRecord* failing = find_log(r, "switched from state RUNNING to FAILING.");
  REQUIRE(failing != nullptr);
  REQUIRE(!failing->throwable.empty());
  CHECK(failing->throwable[0] ==
        "org.apache.flink.runtime.JobException: Recovery is suppressed by "
        "NoRestartBackoffTimeStrategy");
  CHECK(find_log(r, "Stopping checkpoint coordinator for job " + r.job_id + "."));
}

TEST_CASE("fixed-delay attempts run out: the job fails after the last restart", "[e2e]") {
  const run::RunResult r = tests::run_file(
      "scenarios/examples/stalled-sink.yaml",
      {"restart-strategy.type=fixed-delay", "restart-strategy.fixed-delay.attempts=1",
       "duration=45 min"});
  CHECK(r.restarts == 1);
  CHECK(r.final_status == model::JobStatus::failed);
}

TEST_CASE("cancel: the job reaches CANCELED and the coordinator stops", "[e2e]") {
  const run::RunResult r = run_text(R"(
name: cancelled
duration: 20 min
flink: { execution.checkpointing.interval: 1 min }
job:
  vertices:
    - { name: Source, parallelism: 2, rate: 1000 records/s }
    - { name: Sink, input: Source, parallelism: 2, cost: 10 us/record }
timeline:
  - { at: 5 min, do: cancel }
)");
  CHECK(r.final_status == model::JobStatus::canceled);
  CHECK(reached(r, model::JobStatus::cancelling));
  for (model::ExecutionState s : r.final_task_states) CHECK(s == model::ExecutionState::canceled);
  CHECK(find_log(r, "Stopping checkpoint coordinator for job " + r.job_id + "."));
}

TEST_CASE("a stop-with-savepoint that fails leaves the job running and restarts checkpointing "
          "(StopWithSavepointTerminationHandlerImpl)",
          "[e2e]") {
  const run::RunResult r = run_text(R"(
name: stop-fails
seed: 2
duration: 20 min
flink:
  execution.checkpointing.interval: 1 min
  execution.checkpointing.timeout: 2 min
job:
  vertices:
    - { name: Source, rate: 1000 records/s }
    - { name: Sink, input: Source, cost: 10 us/record }
timeline:
  - { at: 5 min, do: stall, vertex: Sink, for: 4 min }
  - { at: 330 s, do: stop-with-savepoint }
)");
  const run::CheckpointRecord* savepoint = nullptr;
  for (const auto& c : r.checkpoints)
    if (c.type == model::SnapshotType::sync_savepoint) savepoint = &c;
  REQUIRE(savepoint != nullptr);
  CHECK(savepoint->status == run::CheckpointStatus::failed);
  CHECK(savepoint->failure_reason == model::CheckpointFailureReason::checkpoint_expired);
  // Savepoint failures are not counted: no failover, the job keeps running and periodic
  // checkpoints complete again once the sink recovers.
  CHECK(r.failovers == 0);
  CHECK_FALSE(reached(r, model::JobStatus::finished));
  CHECK(r.final_status == model::JobStatus::running);
  CHECK(r.checkpoints.back().id > savepoint->id);
  CHECK(r.checkpoints.back().status == run::CheckpointStatus::completed);
}

TEST_CASE("a hanging operator coordinator keeps every later checkpoint from triggering tasks",
          "[e2e]") {
  const run::RunResult r = run_text(R"(
name: coordinator-hangs
seed: 4
duration: 30 min
flink:
  execution.checkpointing.interval: 1 min
  execution.checkpointing.timeout: 3 min
  execution.checkpointing.tolerable-failed-checkpoints: 100
jobmanager:
  coordinators:
    - { name: split enumerator, checkpoint-duration: 50 ms, hangs-at: 10 min }
job:
  vertices:
    - { name: Source, rate: 1000 records/s }
    - { name: Sink, input: Source, cost: 10 us/record }
)");
  // The checkpoint whose coordinator call hangs expires without any task acknowledging; the
  // trigger pipeline stays busy (isTriggering), so no checkpoint is triggered after it.
  const run::CheckpointRecord& last = r.checkpoints.back();
  CHECK(last.trigger_time >= core::minutes(10));
  CHECK(last.failure_reason == model::CheckpointFailureReason::checkpoint_expired);
  CHECK(last.num_acknowledged == 0);
  CHECK(r.checkpoints.size() <= 11);
}

TEST_CASE("why it waited: the expired checkpoint names the stalled sink and the back-pressured "
          "operator whose barrier is queued behind data",
          "[e2e][diagnosis]") {
  const run::RunResult r = tests::run_file("scenarios/examples/stalled-sink.yaml", {"duration=25 min"});
  const run::CheckpointRecord* expired = nullptr;
  for (const auto& c : r.checkpoints)
    if (c.failure_reason == model::CheckpointFailureReason::checkpoint_expired) expired = &c;
  REQUIRE(expired != nullptr);
  // Sources acknowledged; Enrich (vertex 1) and the sink (vertex 2) did not: 4 explanations.
  REQUIRE(expired->waits.size() == 4);
  int blocked = 0, behind = 0;
  for (const run::WaitRecord& w : expired->waits) {
    if (w.vertex == 2) {
      CHECK(w.kind == "blocked_in_user_call");
      CHECK(w.since == core::minutes(10));
      ++blocked;
    }
    if (w.vertex == 1) {
      CHECK(w.kind == "barrier_behind_data");
      CHECK(w.back_pressured);
      CHECK(w.bytes_ahead > 0);
      CHECK(w.upstream_vertex == 0);
      ++behind;
    }
  }
  CHECK(blocked == 2);
  CHECK(behind == 2);
  const std::string text = run::describe_wait(r, expired->waits.back());
  CHECK(text == "Sink: Warehouse (2/2): the task thread is blocked in a user call since 00:10:00 "
                "(it runs no mail and processes nothing)");
  const auto summary = run::summary_json(r);
  REQUIRE(summary["diagnosis"].size() >= 1);
  CHECK(summary["diagnosis"][0]["checkpoint"] == expired->id);
  CHECK(summary["diagnosis"][0]["unacknowledged"].size() == 4);
}

TEST_CASE("a completed checkpoint still pending at half its timeout is explained by its slowest "
          "subtask, in the story and summary.json",
          "[e2e][diagnosis]") {
  // The sink stalls from 10 min to 18 min. Checkpoint 4 (triggered at about 12 min, timeout
  // 10 min) is probed at about 17 min, when Enrich's barriers wait behind data and both sink
  // subtasks are blocked; it completes after the stall, the sink acknowledging last.
  const run::RunResult r = tests::run_file("scenarios/examples/stalled-sink.yaml",
                                           {"timeline[0].for=8 min", "duration=25 min"});
  const run::CheckpointRecord* slow = nullptr;
  for (const auto& c : r.checkpoints) {
    if (c.status != run::CheckpointStatus::completed) continue;
    if (c.id < 4) CHECK(c.slow_waits.empty());  // done long before half the timeout
    if (c.id == 4) slow = &c;
  }
  REQUIRE(slow != nullptr);
  CHECK(slow->waits.empty());
  REQUIRE(slow->slow_waits.size() == 1);  // of the four late subtasks, the one that acked last
  const run::WaitRecord& w = slow->slow_waits.front();
  CHECK(w.vertex == 2);
  CHECK(w.kind == "blocked_in_user_call");
  // Half the timeout after the pending checkpoint was created (as its canceller), a few ms after
  // the trigger's timestamp.
  CHECK(slow->slow_probe_time >= slow->trigger_time + core::minutes(5));
  CHECK(slow->slow_probe_time < slow->trigger_time + core::minutes(5) + core::kSecond);
  const auto& last = slow->subtasks[2][static_cast<std::size_t>(w.subtask)];
  for (const auto& vertex : slow->subtasks)
    for (const run::SubtaskStats& s : vertex) CHECK(s.ack_time <= last.ack_time);
  const auto summary = run::summary_json(r);
  REQUIRE(summary.contains("slow_checkpoints"));
  CHECK(summary["slow_checkpoints"][0]["checkpoint"] == 4);
  CHECK(summary["slow_checkpoints"][0]["waiting_for"] == "blocked_in_user_call");
  const std::string story = analysis::format_story(r);
  CHECK(story.find("- slow: at 00:") != std::string::npos);
  CHECK(story.find("half the timeout, Sink: Warehouse (") != std::string::npos);
  // Without the stall ending, checkpoint 4 expires: its expiry explains it, not a slow line.
  const run::RunResult stuck =
      tests::run_file("scenarios/examples/stalled-sink.yaml", {"duration=25 min"});
  for (const auto& c : stuck.checkpoints)
    if (c.status == run::CheckpointStatus::failed) CHECK(c.slow_waits.empty());
  CHECK(!run::summary_json(stuck).contains("slow_checkpoints"));
}

TEST_CASE("time series: busy + back-pressured + idle make 1000 ms per second; a stalled sink is "
          "busy and its upstreams back-pressured (TaskIOMetricGroup, R18)",
          "[e2e][timeseries]") {
  const run::RunResult r = tests::run_file("scenarios/examples/stalled-sink.yaml", {"duration=15 min"});
  REQUIRE(!r.timeseries.empty());
  int checked = 0;
  for (const run::TaskSampleRow& row : r.timeseries) {
    const model::TaskSample& s = row.sample;
    CHECK(s.busy + s.back_pressured + s.idle == s.period);
    if (row.end == core::minutes(12)) {
      ++checked;
      if (row.vertex == 2) CHECK(s.busy == s.period);           // the stalled sink
      if (row.vertex == 0) CHECK(s.back_pressured == s.period);  // sources
      if (row.vertex == 1) CHECK(s.back_pressured == s.period);  // Enrich
      CHECK(s.records_in == 0);
    }
  }
  CHECK(checked == 6);
  // Rows are ordered by (end, vertex, subtask).
  for (std::size_t i = 1; i < r.timeseries.size(); ++i)
    CHECK(std::tie(r.timeseries[i - 1].end, r.timeseries[i - 1].vertex,
                   r.timeseries[i - 1].subtask) <
          std::tie(r.timeseries[i].end, r.timeseries[i].vertex, r.timeseries[i].subtask));
}

TEST_CASE("time series: an unsaturated sink is busy for utilization = arrival rate x cost",
          "[e2e][timeseries]") {
  const run::RunResult r = run_text(R"(
name: utilization
duration: 2 min
flink: { execution.checkpointing.interval: 1 min }
job:
  vertices:
    - { name: Source, parallelism: 2, rate: 10000 records/s }
    - { name: Sink, input: { from: Source, ship: rebalance }, cost: 30 us/record }
)");
  // 20,000 records/s x 30 us = 600 ms busy per second.
  double busy = 0, records = 0;
  int n = 0;
  for (const run::TaskSampleRow& row : r.timeseries)
    if (row.vertex == 1 && row.end > core::seconds(30)) {
      busy += static_cast<double>(row.sample.busy) / static_cast<double>(row.sample.period);
      records += static_cast<double>(row.sample.records_in);
      ++n;
    }
  REQUIRE(n > 50);
  CHECK(busy / n == Approx(0.6).epsilon(0.02));
  CHECK(records / n == Approx(20000).epsilon(0.02));
}

TEST_CASE("cluster.mtbf: task failures arrive as a Poisson process and fail the job over",
          "[e2e]") {
  const std::string yaml = R"(
name: poisson-failures
duration: 10 h
cluster: { mtbf: 10 min }
flink: { execution.checkpointing.interval: 1 min }
job:
  vertices:
    - { name: Source, rate: 100 records/s }
    - { name: Sink, input: { from: Source, ship: rebalance }, cost: 10 us/record }
)";
  int total = 0;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const run::RunResult r = run_text(yaml, {"seed=" + std::to_string(seed)});
    CHECK(r.restarts == r.failovers);
    const run::LogRecord* recover = find_log(r, "Trying to recover from a global failure.");
    REQUIRE(recover != nullptr);
    REQUIRE(!recover->throwable.empty());
    CHECK(recover->throwable[0].find("injected failure, mtbf") != std::string::npos);
    total += r.failovers;
  }
  // 5 runs x 10 h at one failure per 10 min: ~300 (Poisson, sd ~17).
  CHECK(total > 240);
  CHECK(total < 360);
}

TEST_CASE("seed incident: the expiry-failover lines are the seed log's (Flink 1.17.2), in its "
          "order and spacing, and the queued request's plan fails after failGlobal "
          "(DefaultCheckpointPlanCalculator.checkTasksStarted)",
          "[e2e][seed]") {
  const run::RunResult r = tests::run_file("scenarios/seed/doris-cdc-table-swap.yaml");
  const std::string& job = r.job_id;
  // seeds/000_e3398b10b3943402.txt, its job id replaced by this run's, the first line of each
  // stack trace, and the time from the WARN in ms. The seed's expired checkpoint is 2 (a later
  // attempt of the user's); the scenario's is 3, as the thread's reply tells ("the first two
  // checkpoints succeed, the third hangs").
  struct SeedLine {
    std::int64_t after_warn_ms;
    std::string line;
    std::string throwable;
  };
  const std::vector<SeedLine> seed = {
      {0,
       "WARN  org.apache.flink.runtime.checkpoint.CheckpointFailureManager [] - Failed to trigger "
       "or complete checkpoint 3 for job " + job + ". (0 consecutive failed attempts so far)",
       "org.apache.flink.runtime.checkpoint.CheckpointException: Checkpoint expired before "
       "completing."},
      {19,
       "INFO  org.apache.flink.runtime.checkpoint.CheckpointRequestDecider [] - checkpoint "
       "request time in queue: 590028",
       ""},
      {27,
       "INFO  org.apache.flink.runtime.jobmaster.JobMaster                 [] - Trying to recover "
       "from a global failure.",
       "org.apache.flink.util.FlinkRuntimeException: Exceeded checkpoint tolerable failure "
       "threshold. The latest checkpoint failed due to Checkpoint expired before completing., "
       "view the Checkpoint History tab or the Job Manager log to find out why continuous "
       "checkpoints failed."},
      {33,
       "INFO  org.apache.flink.runtime.jobmaster.JobMaster                 [] - 1 tasks will be "
       "restarted to recover from a global failure.",
       ""},
  };
  std::size_t at = 0;
  REQUIRE(find_log(r, "Failed to trigger or complete checkpoint 3 ", 0, &at));
  const core::SimTime warn_time = r.log[at].time;
  std::size_t next = at;
  for (const SeedLine& s : seed) {
    const std::string text = s.line.substr(s.line.find(" - ") + 3);
    std::size_t i = 0;
    REQUIRE(find_log(r, text, next, &i));
    // Byte for byte after the timestamp (level, padded logger, NDC, message).
    CHECK(run::format_log_line(r, r.log[i]).substr(24) == s.line);
    if (!s.throwable.empty()) {
      REQUIRE(!r.log[i].throwable.empty());
      CHECK(r.log[i].throwable[0] == s.throwable);
    }
    CHECK(r.log[i].time - warn_time == core::milliseconds(s.after_warn_ms));
    next = i + 1;
  }

  // Then RUNNING -> RESTARTING, and the queued request's plan, computed on the main thread
  // after failGlobal, fails: an INFO, no "Triggering checkpoint 4", no SUSPEND WARN, no id used.
  std::size_t restarting = 0, plan_failed = 0, running_again = 0, triggering4 = 0;
  REQUIRE(find_log(r, "switched from state RUNNING to RESTARTING.", at, &restarting));
  const run::LogRecord* plan = find_log(r, "Failed to trigger checkpoint for job ", at, &plan_failed);
  REQUIRE(plan != nullptr);
  CHECK(plan->level == run::LogLevel::info);
  CHECK(plan->message ==
        "Failed to trigger checkpoint for job " + job +
            " since Checkpoint triggering task Source: MySQL CDC Source -> Process -> Sink: "
            "Doris (1/1) of job " + job +
            " is not being executed at the moment. Aborting checkpoint. Failure reason: Not all "
            "required tasks are currently running..");
  CHECK(plan_failed > restarting);
  REQUIRE(find_log(r, "switched from state RESTARTING to RUNNING.", at, &running_again));
  CHECK(plan_failed < running_again);
  CHECK(find_log(r, "Checkpoint Coordinator is suspending.", 0) == nullptr);
  for (std::size_t i = at; i < running_again; ++i)
    CHECK(r.log[i].message.rfind("Triggering checkpoint", 0) == std::string::npos);
  // The checkpoint after the failover is 4, as Flink numbers it.
  REQUIRE(find_log(r, "Triggering checkpoint ", running_again, &triggering4));
  CHECK(r.log[triggering4].message.rfind("Triggering checkpoint 4 (", 0) == 0);
}

TEST_CASE("SourceCoordinator.notifyCheckpointComplete/Aborted: 'Marking checkpoint N as "
          "completed/aborted for source S.' through the JobMaster main thread "
          "(OperatorCoordinatorHolder), an abort after the failGlobal it caused",
          "[e2e][seed]") {
  const run::RunResult r = tests::run_file("scenarios/seed/doris-cdc-table-swap.yaml");
  const std::string source = "Source: MySQL CDC Source";
  std::size_t completed = 0, marked = 0;
  REQUIRE(find_log(r, "Completed checkpoint 1 for job", 0, &completed));
  const run::LogRecord* mark =
      find_log(r, "Marking checkpoint 1 as completed for source " + source + ".", 0, &marked);
  REQUIRE(mark != nullptr);
  CHECK(marked > completed);
  CHECK(mark->logger == "org.apache.flink.runtime.source.coordinator.SourceCoordinator");
  CHECK(mark->time - r.log[completed].time == core::milliseconds(1));  // doris#45965's 1 ms
  // The expired checkpoint 3: the seed log has no SourceCoordinator line between the WARN and
  // "1 tasks will be restarted"; the abort reaches the coordinator after that.
  std::size_t warn = 0, restarted = 0, aborted = 0;
  REQUIRE(find_log(r, "Failed to trigger or complete checkpoint 3 ", 0, &warn));
  REQUIRE(find_log(r, "1 tasks will be restarted", warn, &restarted));
  REQUIRE(find_log(r, "Marking checkpoint 3 as aborted for source " + source + ".", 0, &aborted));
  CHECK(aborted > restarted);
  // A legacy SourceFunction has no coordinator.
  const run::RunResult legacy = tests::run_file(
      "scenarios/examples/stalled-sink.yaml", {"job.vertices[0].source-api=legacy"});
  CHECK(find_log(legacy, "Marking checkpoint", 0) == nullptr);
  const run::RunResult flip27 = tests::run_file("scenarios/examples/stalled-sink.yaml");
  CHECK(find_log(flip27, "Marking checkpoint 1 as completed", 0) != nullptr);
}

TEST_CASE("DefaultScheduler.restartTasksWithDelay: a task failure logs 'N tasks will be restarted "
          "to recover the failed task <ExecutionAttemptID>.' under the JobMaster logger, and no "
          "RestartPipelinedRegionFailoverStrategy lines (removed in 1.16, FLINK-28137)",
          "[e2e][log]") {
  const run::RunResult r = tests::run_file("scenarios/examples/taskmanager-lost.yaml");
  REQUIRE(!r.task_failures.empty());
  std::size_t failed = 0, restart = 0, restarting = 0;
  const run::LogRecord* f = find_log(r, " to FAILED on ", 0, &failed);
  REQUIRE(f != nullptr);
  // "<name> (<attempt id>) switched from RUNNING to FAILED on <location>."
  const std::size_t close = f->message.find(") switched");
  const std::size_t open = f->message.rfind(" (", close);
  const std::string attempt = f->message.substr(open + 2, close - open - 2);
  const run::LogRecord* line = find_log(r, "tasks will be restarted to recover the failed task ",
                                        failed, &restart);
  REQUIRE(line != nullptr);
  CHECK(line->logger == "org.apache.flink.runtime.jobmaster.JobMaster");
  int tasks = 0;  // one region: every subtask restarts
  for (const auto& v : r.vertices) tasks += v.parallelism;
  CHECK(line->message == std::to_string(tasks) +
                             " tasks will be restarted to recover the failed task " + attempt + ".");
  REQUIRE(find_log(r, "switched from state RUNNING to RESTARTING.", failed, &restarting));
  CHECK(restart < restarting);
  CHECK(find_log(r, "tasks should be restarted") == nullptr);
  CHECK(find_log(r, "Calculating tasks to restart") == nullptr);
  for (const auto& rec : r.log) CHECK(rec.logger.find("RestartPipelinedRegion") == std::string::npos);
}

TEST_CASE("Execution.deploy: SCHEDULED -> DEPLOYING carries no location (only transitions with an "
          "error do), and the Deploying line follows it; no INITIALIZING -> CREATED job line",
          "[e2e][log]") {
  const run::RunResult r = tests::run_file("scenarios/seed/doris-cdc-table-swap.yaml");
  const std::string& job = r.job_id;
  CHECK(find_log(r, "switched from state INITIALIZING to CREATED.") == nullptr);
  CHECK(r.log[0].message ==
        "Received JobGraph submission 'mysql-sync-database-A' (" + job + ").");
  CHECK(r.log[1].message == "Job mysql-sync-database-A (" + job +
                                ") switched from state CREATED to RUNNING.");
  std::size_t at = 0;
  const run::LogRecord* deploying = find_log(r, "switched from SCHEDULED to DEPLOYING", 0, &at);
  REQUIRE(deploying != nullptr);
  const std::string task = "Source: MySQL CDC Source -> Process -> Sink: Doris (1/1)";
  const std::string attempt = deploying->message.substr(
      task.size() + 2, deploying->message.find(") switched") - task.size() - 2);
  CHECK(deploying->message == task + " (" + attempt + ") switched from SCHEDULED to DEPLOYING.");
  REQUIRE(at + 1 < r.log.size());
  const run::LogRecord& deploy = r.log[at + 1];
  CHECK(deploy.logger == "org.apache.flink.runtime.executiongraph.ExecutionGraph");
  // ExecutionAttemptID = <ExecutionGraphID>_<JobVertexID>_<subtask>_<attempt>; the vertex id is
  // the ExecutionVertexID <JobVertexID>_<subtask>.
  const std::string vertex_id = attempt.substr(33, attempt.size() - 33 - 2);
  const std::string prefix = "Deploying " + task + " (attempt #0) with attempt id " + attempt +
                             " and vertex id " + vertex_id +
                             " to ckptsim-taskmanager-1 @ ckptsim-taskmanager-1 (dataPort=6121) "
                             "with allocation id ";
  REQUIRE(deploy.message.rfind(prefix, 0) == 0);
  CHECK(deploy.message.size() == prefix.size() + 32);
  // The restart deploys attempt #1 into the same slot (the same allocation id).
  std::size_t again = 0;
  REQUIRE(find_log(r, "Deploying " + task + " (attempt #1) with attempt id ", at + 2, &again));
  CHECK(r.log[again].message.substr(r.log[again].message.size() - 32) ==
        deploy.message.substr(deploy.message.size() - 32));
}

TEST_CASE("Dispatcher.submitJob: Flink 2.0 logs 'Received job submission' (FLINK-36446), 1.17-1.20 "
          "'Received JobGraph submission'",
          "[e2e][log]") {
  const run::RunResult r =
      tests::run_file("scenarios/seed/doris-cdc-table-swap.yaml", {"flink.version=2.0", "duration=1 min"});
  CHECK(r.log[0].message == "Received job submission 'mysql-sync-database-A' (" + r.job_id + ").");
  CHECK(r.log[0].logger == "org.apache.flink.runtime.dispatcher.StandaloneDispatcher");
}

namespace {
run::RunResult run_yaml(const std::string& yaml) {
  const auto loaded = scenario::load_string(yaml, "end_of_input.yaml", {});
  INFO(scenario::format_diagnostics(loaded.diagnostics));
  REQUIRE(loaded.ok());
  return run::run(*loaded.scenario);
}
}  // namespace

// FLIP-147: a task whose every input ended (StreamTask.endData) finishes, after a final
// checkpoint with checkpoints-after-tasks-finish, at once without; the plan then triggers it
// like a source (DefaultCheckpointPlanCalculator.calculateAfterTasksFinished).
TEST_CASE("a task whose every input ended finishes: after its final checkpoint (FLIP-147), or "
          "at once without checkpoints after tasks finish",
          "[e2e]") {
  // Source (2/2) has no partition: its run() returns. Map (2/2) reads only from it (rescale
  // 2 -> 2); the Sink reads from both Maps.
  const std::string job = R"(duration: 1 min
flink:
  execution.checkpointing.interval: 10 s
  execution.checkpointing.checkpoints-after-tasks-finish.enabled: FLIP147
cluster: { taskmanagers: 2, slots-per-taskmanager: 1 }
job:
  vertices:
    - { name: "Source: Legacy", parallelism: 2, source-api: legacy, partitions: 1, rate: 100 records/s }
    - { name: Map, parallelism: 2, input: { from: "Source: Legacy", ship: rescale } }
    - { name: Sink, parallelism: 1, input: { from: Map, ship: rebalance } }
)";
  const auto with_flip147 = [&](bool on) {
    std::string text = job;
    text.replace(text.find("FLIP147"), 7, on ? "true" : "false");
    return run_yaml(text);
  };
  const auto finished_at = [](const run::RunResult& r, const std::string& task) {
    for (const auto& l : r.log)
      if (l.message.rfind(task + " (", 0) == 0 &&
          l.message.find("switched from RUNNING to FINISHED") != std::string::npos)
        return l.time;
    return core::SimTime{-1};
  };
  const auto completed_at = [](const run::RunResult& r, std::int64_t id) {
    for (const auto& c : r.checkpoints)
      if (c.id == id && c.status == run::CheckpointStatus::completed) return c.end_time;
    return core::SimTime{-1};
  };

  const run::RunResult on = with_flip147(true);
  CHECK(on.counts.failed == 0);
  CHECK(on.counts.completed >= 5);
  // The source waits for checkpoint 1, the Map (its input ended then) for checkpoint 2.
  const core::SimTime source_done = finished_at(on, "Source: Legacy (2/2)");
  const core::SimTime map_done = finished_at(on, "Map (2/2)");
  REQUIRE(source_done > 0);
  REQUIRE(map_done > 0);
  CHECK(source_done >= completed_at(on, 1));
  CHECK(source_done < completed_at(on, 2));
  CHECK(map_done >= completed_at(on, 2));
  CHECK(finished_at(on, "Map (1/2)") < 0);  // its input goes on
  CHECK(finished_at(on, "Sink") < 0);       // one of its inputs goes on
  CHECK(on.final_status == model::JobStatus::running);

  // Without checkpoints after tasks finish both finish at once, and every checkpoint fails.
  const run::RunResult off = with_flip147(false);
  const core::SimTime off_source = finished_at(off, "Source: Legacy (2/2)");
  REQUIRE(off_source >= 0);
  CHECK(finished_at(off, "Map (2/2)") == off_source);
  CHECK(off.counts.completed == 0);
}
