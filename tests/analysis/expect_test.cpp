// Expectations: each kind passing and failing, with its "expected X, got Y", on a hand-built
// RunResult (so the numbers are known) and on a real run of the stalled-sink example.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "analysis/expect.hpp"
#include "sim/run/run.hpp"
#include "sim/scenario/scenario.hpp"

namespace {

using ckptsim::analysis::check_expectations;
using ckptsim::analysis::describe_result;
using ckptsim::analysis::ExpectationResult;
using ckptsim::core::kMillisecond;
using ckptsim::core::kSecond;
using ckptsim::run::CheckpointRecord;
using ckptsim::run::CheckpointStatus;
using ckptsim::run::RunResult;
using Reason = ckptsim::model::CheckpointFailureReason;
using Status = ckptsim::model::JobStatus;

// The expectations of a scenario whose `expect:` list is `items` (YAML list lines).
std::vector<ckptsim::scenario::Expectation> parse(const std::string& items) {
  const auto loaded = ckptsim::scenario::load_string(
      "job: { vertices: [ { name: Source } ] }\nexpect:\n" + items, "t.yaml");
  INFO(ckptsim::scenario::format_diagnostics(loaded.diagnostics));
  REQUIRE(loaded.ok());
  return loaded.expectations.items;
}

CheckpointRecord checkpoint(std::int64_t id, CheckpointStatus status, double trigger_s,
                            double end_s, std::optional<Reason> reason = std::nullopt) {
  CheckpointRecord c;
  c.id = id;
  c.status = status;
  c.trigger_time = static_cast<std::int64_t>(trigger_s * kSecond);
  c.end_time = end_s < 0 ? -1 : static_cast<std::int64_t>(end_s * kSecond);
  c.latest_ack_time = status == CheckpointStatus::completed ? c.end_time - kMillisecond : -1;
  c.failure_reason = reason;
  return c;
}

ckptsim::run::LogRecord log_line(double time_s, std::string message) {
  ckptsim::run::LogRecord record;
  record.time = static_cast<std::int64_t>(time_s * kSecond);
  record.logger = "org.apache.flink.runtime.checkpoint.CheckpointCoordinator";
  record.message = std::move(message);
  return record;
}

// Checkpoints 1, 2 complete (101 ms and 1001 ms to their last ack), 3 expires at 13 min,
// 4 is declined, 5 is in progress at the end (20 min). One failover at 13 min, one restart.
RunResult sample() {
  RunResult r;
  r.job_id = "0123456789abcdef0123456789abcdef";
  r.start_epoch_ms = 1'720'614'600'000;  // 2024-07-10 12:30:00 UTC
  r.end_time = 20 * 60 * kSecond;
  r.checkpoints = {
      checkpoint(1, CheckpointStatus::completed, 60, 60.102),
      checkpoint(2, CheckpointStatus::completed, 120, 121.002),
      checkpoint(3, CheckpointStatus::failed, 180, 780, Reason::checkpoint_expired),
      checkpoint(4, CheckpointStatus::failed, 800, 801, Reason::checkpoint_declined),
      checkpoint(5, CheckpointStatus::in_progress, 900, -1),
  };
  r.job_status_changes = {{0, Status::created, Status::running},
                          {780 * kSecond, Status::running, Status::restarting},
                          {781 * kSecond, Status::restarting, Status::running}};
  r.final_status = Status::running;
  r.failovers = 1;
  r.restarts = 1;
  r.replayed_records = 5000;
  r.log = {log_line(60.102, "Completed checkpoint 1 for job 0123456789abcdef0123456789abcdef."),
           log_line(780, "Checkpoint 3 of job 0123456789abcdef0123456789abcdef expired before "
                         "completing.")};
  r.log[1].throwable = {"org.apache.flink.util.FlinkRuntimeException: Exceeded checkpoint "
                        "tolerable failure threshold."};
  return r;
}

// Checks `items` against the sample run; one result per item.
std::vector<ExpectationResult> check(const std::string& items) {
  return check_expectations(parse(items), sample());
}

ExpectationResult check_one(const std::string& item) {
  const auto results = check("  - " + item + "\n");
  REQUIRE(results.size() == 1);
  return results[0];
}

}  // namespace

TEST_CASE("a checkpoint status expectation compares the checkpoint's final status") {
  CHECK(check_one("checkpoint 1: completed").passed);
  CHECK(check_one("checkpoint 3: expired").passed);
  CHECK(check_one("checkpoint 3: failed").passed);
  CHECK(check_one("checkpoint 4: CHECKPOINT_DECLINED").passed);
  CHECK(check_one("checkpoint 4: failed").passed);
  CHECK(check_one("checkpoint 5: in-progress").passed);

  const ExpectationResult declined = check_one("checkpoint 4: expired");
  CHECK_FALSE(declined.passed);
  CHECK(describe_result(declined) ==
        "t.yaml:3:5: checkpoint 4: expired: expected FAILED (CHECKPOINT_EXPIRED), got FAILED "
        "(CHECKPOINT_DECLINED) at 00:13:21.000");
  const ExpectationResult in_progress = check_one("checkpoint 5: completed");
  CHECK_FALSE(in_progress.passed);
  CHECK(in_progress.actual == "IN_PROGRESS at the end of the run (00:20:00.000)");
  const ExpectationResult missing = check_one("checkpoint 9: completed");
  CHECK_FALSE(missing.passed);
  CHECK(missing.actual == "no checkpoint 9 (the run triggered ids up to 5)");
}

TEST_CASE("'within' asks for a checkpoint's status at that simulated time") {
  CHECK(check_one("checkpoint 3: expired within 13 min").passed);
  const ExpectationResult early = check_one("checkpoint 3: expired within 12 min");
  CHECK_FALSE(early.passed);
  CHECK(early.expected == "FAILED (CHECKPOINT_EXPIRED) at 00:12:00.000");
  CHECK(early.actual == "IN_PROGRESS at 00:12:00.000");
  CHECK(check_one("checkpoint 3: in-progress within 12 min").passed);
  const ExpectationResult not_yet = check_one("checkpoint 4: failed within 10 min");
  CHECK_FALSE(not_yet.passed);
  CHECK(not_yet.actual == "not triggered yet at 00:10:00.000 (triggered at 00:13:20.000)");
  // The key form means the same as the inline form.
  const auto keyed = check("  - checkpoint 3: expired\n    within: 12 min\n");
  CHECK_FALSE(keyed[0].passed);
  CHECK(keyed[0].expectation.text == "checkpoint 3: expired within 12 min");
}

TEST_CASE("checkpoint counts compare with = <= >= < > and their word forms") {
  CHECK(check_one("completed checkpoints: 2").passed);
  CHECK(check_one("completed checkpoints: \">= 2\"").passed);
  CHECK(check_one("completed checkpoints: at least 2").passed);
  CHECK(check_one("failed checkpoints: \"<= 2\"").passed);
  CHECK(check_one("failed checkpoints: \"> 1\"").passed);
  CHECK(check_one("expired checkpoints: \"= 1\"").passed);
  CHECK(check_one("triggered checkpoints: 5").passed);
  CHECK(check_one("triggered checkpoints: \"< 6\"").passed);
  CHECK(check_one("completed checkpoints: 1 within 2 min").passed);

  const ExpectationResult few = check_one("completed checkpoints: \">= 5\"");
  CHECK_FALSE(few.passed);
  CHECK(describe_result(few) ==
        "t.yaml:3:5: completed checkpoints: >= 5: expected >= 5, got 2");
  CHECK_FALSE(check_one("expired checkpoints: at most 0").passed);
  CHECK_FALSE(check_one("triggered checkpoints: more than 5").passed);
}

TEST_CASE("'checkpoints: all completed' fails on the first failed checkpoint") {
  const ExpectationResult all = check_one("checkpoints: all completed");
  CHECK_FALSE(all.passed);
  CHECK(all.actual == "checkpoint 3 FAILED (CHECKPOINT_EXPIRED) at 00:13:00.000");
  const ExpectationResult early = check_one("checkpoints: all completed within 5 min");
  CHECK(early.passed);
  CHECK(early.actual == "2 completed, none failed");
  CHECK_FALSE(check_one("checkpoints: all completed within 30 s").passed);  // none yet
}

TEST_CASE("job expectations: failover, no failover, status, restarts and failovers") {
  CHECK(check_one("job: failed-over").passed);
  CHECK(check_one("job: failed-over within 13 min").passed);
  const ExpectationResult late = check_one("job: failed-over within 10 min");
  CHECK_FALSE(late.passed);
  CHECK(late.expected == "a failover by 00:10:00.000");
  CHECK(late.actual == "the first at 00:13:00.000");
  CHECK(check_one("job: no failover within 10 min").passed);
  const ExpectationResult none = check_one("job: no failover");
  CHECK_FALSE(none.passed);
  CHECK(none.actual == "one at 00:13:00.000");

  CHECK(check_one("job: RUNNING").passed);
  const ExpectationResult finished = check_one("job: FINISHED");
  CHECK_FALSE(finished.passed);
  CHECK(finished.expected == "final status FINISHED");
  CHECK(finished.actual == "RUNNING");
  CHECK(check_one("job: RESTARTING within 780500 ms").passed);

  CHECK(check_one("restarts: \"<= 1\"").passed);
  CHECK(check_one("failovers: 1").passed);
  CHECK(check_one("failovers: 0 within 10 min").passed);
  CHECK(check_one("restarts: 0 within 780500 ms").passed);
  const ExpectationResult many = check_one("failovers: \">= 2\"");
  CHECK_FALSE(many.passed);
  CHECK(many.actual == "1");
}

TEST_CASE("checkpoint duration percentiles use the completed checkpoints' end-to-end durations") {
  // Durations are 101 ms and 1001 ms: Flink's legacy percentile gives p50 = 551 ms.
  const ExpectationResult p50 = check_one("checkpoint duration p50: \"< 600 ms\"");
  CHECK(p50.passed);
  CHECK(p50.actual == "p50 = 551 ms over 2 completed checkpoints");
  CHECK(check_one("checkpoint duration p99: \"<= 1001 ms\"").passed);
  CHECK_FALSE(check_one("checkpoint duration p99: \"< 1 s\"").passed);
  CHECK(check_one("checkpoint duration max: \"= 1001 ms\"").passed);
  const ExpectationResult none = check_one("checkpoint duration p99: \"< 1 s within 30 s\"");
  CHECK_FALSE(none.passed);
  CHECK(none.actual == "no completed checkpoint by 00:00:30.000");
}

TEST_CASE("replayed records compare with counts such as 1M") {
  CHECK(check_one("replayed records: \"<= 1M\"").passed);
  CHECK(check_one("replayed records: 5k").passed);
  const ExpectationResult zero = check_one("replayed records: 0");
  CHECK_FALSE(zero.passed);
  CHECK(zero.actual == "5000");
}

TEST_CASE("log expectations search the formatted jobmanager.log, throwables included") {
  CHECK(check_one("log contains: \"Completed checkpoint 1 for job\"").passed);
  CHECK(check_one("log contains: \"Exceeded checkpoint tolerable failure threshold\"").passed);
  CHECK(check_one("log contains: \"2024-07-10 12:31:00,102 INFO\"").passed);
  const ExpectationResult missing = check_one("log contains: \"OutOfMemoryError\"");
  CHECK_FALSE(missing.passed);
  CHECK(missing.expected == "a line containing \"OutOfMemoryError\"");
  CHECK(missing.actual == "no such line");

  CHECK(check_one("log lacks: \"OutOfMemoryError\"").passed);
  const ExpectationResult present = check_one("log lacks: \"expired before completing\"");
  CHECK_FALSE(present.passed);
  CHECK(present.actual.rfind("at line 2: 2024-07-10 12:43:00,000 INFO  ", 0) == 0);
  // Bounded by time: the expiry line comes at 13 min.
  CHECK(check_one("log lacks: \"expired before completing\"\n    within: 10 min").passed);
  const ExpectationResult late =
      check_one("log contains: \"expired before completing\"\n    within: 10 min");
  CHECK_FALSE(late.passed);
  CHECK(late.actual.rfind("only after, at line 2: ", 0) == 0);
}

TEST_CASE("counts include the checkpoints of earlier submissions of the job") {
  RunResult r = sample();
  r.earlier_checkpoints = {checkpoint(1, CheckpointStatus::completed, 10, 10.5)};
  const auto results =
      check_expectations(parse("  - completed checkpoints: 3\n  - triggered checkpoints: 6\n"), r);
  CHECK(results[0].passed);
  CHECK(results[1].passed);
}

TEST_CASE("the stalled-sink example meets its expectations, and a wrong one is reported") {
  const auto loaded =
      ckptsim::scenario::load_file(CKPTSIM_SOURCE_DIR "/scenarios/examples/stalled-sink.yaml");
  REQUIRE(loaded.ok());
  REQUIRE(loaded.expectations.present);
  REQUIRE(loaded.expectations.items.size() >= 5);
  const RunResult result = ckptsim::run::run(*loaded.scenario);
  for (const ExpectationResult& r : check_expectations(loaded.expectations.items, result)) {
    INFO(describe_result(r));
    CHECK(r.passed);
  }
  const auto wrong = check_expectations(parse("  - checkpoint 4: completed\n"), result);
  CHECK_FALSE(wrong[0].passed);
  CHECK(wrong[0].actual == "FAILED (CHECKPOINT_EXPIRED) at 00:20:24.640");
}

TEST_CASE("'diagnosis contains' looks into why checkpoints waited, and names the first when "
          "none matches") {
  const auto loaded =
      ckptsim::scenario::load_file(CKPTSIM_SOURCE_DIR "/scenarios/examples/stalled-sink.yaml");
  REQUIRE(loaded.ok());
  const RunResult result = ckptsim::run::run(*loaded.scenario);
  const auto found = check_expectations(
      parse("  - diagnosis contains: \"blocked in a user call since 00:10:00\"\n"), result);
  CHECK(found[0].passed);
  CHECK(found[0].actual.rfind("checkpoint 4: Sink: Warehouse (", 0) == 0);
  const auto early = check_expectations(
      parse("  - diagnosis contains: \"blocked in a user call\"\n    within: 5 min\n"), result);
  CHECK_FALSE(early[0].passed);
  const auto missing =
      check_expectations(parse("  - diagnosis contains: \"notifyCheckpointComplete\"\n"), result);
  CHECK_FALSE(missing[0].passed);
  CHECK(missing[0].actual.rfind("none; the first: ", 0) == 0);
}

TEST_CASE("a scenario without expect: has no expectations and says so") {
  const auto loaded = ckptsim::scenario::load_string("job: { vertices: [ { name: Source } ] }",
                                                     "t.yaml");
  REQUIRE(loaded.ok());
  CHECK_FALSE(loaded.expectations.present);
  CHECK(loaded.expectations.items.empty());
  const auto empty = ckptsim::scenario::load_string(
      "job: { vertices: [ { name: Source } ] }\nexpect: []\n", "t.yaml");
  REQUIRE(empty.ok());
  CHECK(empty.expectations.present);
}

TEST_CASE("expectations keep where they were written and their parameters") {
  const auto items = parse("  - job: failed-over\n    within: 25 min\n  - restarts: at most 3\n");
  REQUIRE(items.size() == 2);
  CHECK(items[0].file == "t.yaml");
  CHECK(items[0].line == 3);
  CHECK(items[0].column == 5);
  CHECK(items[0].within == 25 * 60 * kSecond);
  CHECK(items[1].line == 5);
  CHECK(items[1].bound.comparison == ckptsim::scenario::Comparison::at_most);
  CHECK(items[1].bound.value == 3);
}
