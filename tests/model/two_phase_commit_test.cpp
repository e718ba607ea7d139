// The transactional (two-phase-commit) sink and its profiles (two_phase_commit/): the StarRocks
// transaction timeouts on the FE, commit retries of Iceberg and Paimon, Paimon's failure on
// purpose after a restore that committed (RestoreAndFailCommittableStateManager).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/run/run.hpp"
#include "sim/scenario/scenario.hpp"
#include "tests/support/run_file.hpp"

namespace ckptsim {
namespace {

const char* const kStarRocks = "scenarios/field/starrocks-157-txn-timeout-below-interval.yaml";

run::RunResult run_text(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  const auto loaded = scenario::load_string(yaml, "<test>", sets);
  INFO(scenario::format_diagnostics(loaded.diagnostics));
  REQUIRE(loaded.ok());
  return run::run(*loaded.scenario);
}

// A writer into a table format whose committer commits every minute.
std::string table_format_job(const std::string& kind, const std::string& timeline) {
  return "name: t\nduration: 20 min\nflink: {version: \"1.17\", execution.checkpointing.interval: "
         "1 min}\n"
         "cluster: {taskmanagers: 1, slots-per-taskmanager: 1}\n"
         "systems: {catalog: {kind: " +
         kind +
         ", commit-latency: 200 ms}}\n"
         "job:\n  vertices:\n"
         "    - {name: \"Source: S\", parallelism: 1, rate: 100 records/s}\n"
         "    - {name: Committer, parallelism: 1, input: \"Source: S\", connector: " +
         kind +
         "}\n"
         "timeline:\n" +
         timeline;
}

}  // namespace

TEST_CASE(
    "StarRocks: a transaction open longer than sink.properties.timeout is aborted by the "
    "FE and the next flush fails the task; a timeout above the interval does not",
    "[connectors][two-phase-commit]") {
  const run::RunResult r = tests::run_file(kStarRocks);
  REQUIRE(!r.task_failures.empty());
  const auto& f = r.task_failures.front();
  CHECK(f.exception_class == "com.starrocks.data.load.stream.exception.StreamLoadFailException");
  CHECK(f.message.find("\"Message\": \"timeout by txn manager\"") != std::string::npos);
  CHECK(f.message.find("label: ods_orders-orders-0-2") != std::string::npos);
  // The transaction began at the first cache-full flush after checkpoint 1 (90 MiB at 1.5 MB/s,
  // about 63 s) and fails at the first flush after it outlived 120 s: about 3 flushes later.
  const run::CheckpointRecord& first = r.checkpoints.front();
  CHECK(f.time > first.trigger_time + core::seconds(180));
  CHECK(f.time < first.trigger_time + core::seconds(200));
  const run::RunResult fixed =
      tests::run_file(kStarRocks, {"job.vertices[1].options.sink.properties.timeout=600"});
  CHECK(fixed.task_failures.empty());
  CHECK(fixed.failovers == 0);
}

TEST_CASE(
    "StarRocks: a prepared transaction the FE aborted (prepared timeout) fails its commit "
    "in notifyCheckpointComplete, and again on every restore",
    "[connectors][two-phase-commit]") {
  const run::RunResult r = tests::run_file(
      kStarRocks, {"job.vertices[1].options.sink.properties.timeout=600",
                   "systems.starrocks.prepared_transaction_default_timeout_second=1 ms"});
  REQUIRE(r.task_failures.size() >= 3);
  const auto& commit = r.task_failures.front();
  CHECK(commit.exception_class == "java.lang.RuntimeException");
  CHECK(commit.message.find("Failed to notify checkpoint complete for checkpoint id 1\nCaused by: "
                            "com.starrocks.data.load.stream.exception.StreamLoadFailException: "
                            "Transaction commit failed, db: ods, table: orders, label: "
                            "ods_orders-orders-0-1, commit response status: TXN_NOT_EXISTS") == 0);
  // The restored committable of checkpoint 1 is committed again at every start
  // (notifyCheckpointComplete(Long.MAX_VALUE)), and fails.
  for (std::size_t i = 1; i < r.task_failures.size(); ++i) {
    CHECK(r.task_failures[i].message.find("checkpoint id 9223372036854775807\n") !=
          std::string::npos);
    CHECK(r.task_failures[i].message.find("label: ods_orders-orders-0-1,") != std::string::npos);
  }
  CHECK(r.counts.completed == 1);
}

TEST_CASE(
    "StarRocks: a start without state reuses the labels of the first run, which the FE "
    "still remembers: the first flush fails to begin its transaction",
    "[connectors][two-phase-commit]") {
  const std::string stop_and_start =
      "timeline:\n"
      "  - {at: 12 min, do: stop-with-savepoint}\n"
      "  - {at: 13 min, do: start, state: none}\n";
  const auto loaded = scenario::load_file(std::string(CKPTSIM_SOURCE_DIR) + "/" + kStarRocks,
                                          {"job.vertices[1].options.sink.properties.timeout=600"});
  REQUIRE(loaded.ok());
  model::Scenario s = *loaded.scenario;
  const auto with_timeline = scenario::load_string(
      "name: x\njob: {vertices: [{name: a}]}\n" + stop_and_start, "<timeline>", {});
  REQUIRE(with_timeline.ok());
  s.timeline = with_timeline.scenario->timeline;
  const run::RunResult r = run::run(s);
  REQUIRE(!r.task_failures.empty());
  CHECK(r.task_failures.front().time > core::minutes(13));
  CHECK(r.task_failures.front().message.find(
            "Transaction start failed, db: ods, table: orders, label: ods_orders-orders-0-1,") ==
        0);
  // Labels the FE forgot (label_keep_max_second) begin again.
  model::Scenario forgot = s;
  forgot.systems.transactional.front().label_retention = core::seconds(30);
  CHECK(run::run(forgot).task_failures.empty());
}

TEST_CASE(
    "Iceberg: rejected commits are retried with commit.retry waits on the task thread, and "
    "given up with the catalog's CommitFailedException after commit.retry.num-retries",
    "[connectors][two-phase-commit]") {
  // 3 rejections: the 4th attempt commits after waits of 100, 200 and 400 ms.
  const run::RunResult retried = run_text(
      table_format_job("iceberg", "  - {at: 2 min 30 s, do: catalog.reject-commit, count: 3}\n"));
  CHECK(retried.task_failures.empty());
  // 5 rejections: 1 attempt + 4 retries, all rejected.
  const run::RunResult given_up = run_text(table_format_job(
      "iceberg",
      "  - {at: 2 min 30 s, do: catalog.reject-commit, count: 5, error: \"Cannot "
      "commit: Base metadata location 'a' is not same as the current table metadata "
      "location 'b' for db.t\"}\n"));
  REQUIRE(given_up.task_failures.size() == 1);
  CHECK(given_up.task_failures[0].exception_class ==
        "org.apache.iceberg.exceptions.CommitFailedException");
  CHECK(given_up.task_failures[0].message.find("Cannot commit: Base metadata location") == 0);
  // The commit ran on the task thread: 5 x 200 ms + 100 + 200 + 400 + 800 ms before it threw.
  const run::CheckpointRecord* completed = nullptr;
  for (const auto& c : given_up.checkpoints)
    if (c.status == run::CheckpointStatus::completed && c.end_time < given_up.task_failures[0].time)
      completed = &c;
  REQUIRE(completed != nullptr);
  const core::Duration after = given_up.task_failures[0].time - completed->end_time;
  CHECK(after >= core::milliseconds(2500));
  CHECK(after < core::milliseconds(2600));
  // A higher commit.retry.num-retries outlasts the rejections.
  const run::RunResult more = run_text(
      table_format_job("iceberg", "  - {at: 2 min 30 s, do: catalog.reject-commit, count: 5}\n"),
      {"job.vertices[1].options.commit.retry.num-retries=6"});
  CHECK(more.task_failures.empty());
}

TEST_CASE(
    "Paimon: a commit given up after commit.max-retries fails the task; the restore commits "
    "the restored committables and then fails once on purpose",
    "[connectors][two-phase-commit]") {
  const run::RunResult r = run_text(
      table_format_job("paimon", "  - {at: 2 min 30 s, do: catalog.reject-commit, count: 11}\n"));
  REQUIRE(r.task_failures.size() == 2);
  CHECK(r.task_failures[0].message.find(
            "Commit failed after 9223372036854775807 millis with 10 retries, there maybe exist "
            "commit conflicts between multiple jobs.") == 0);
  CHECK(r.task_failures[1].message ==
        "This exception is intentionally thrown after committing the restored checkpoints. By "
        "restarting the job we hope that writers can start writing based on these new commits.");
  CHECK(r.failovers == 2);
  CHECK(r.counts.completed >= 15);  // after the second restart it runs on
}

}  // namespace ckptsim

namespace ckptsim {
namespace {

// A DataStream job writing through JdbcSink.exactlyOnceSink into an XA database.
std::string xa_job(const std::string& database, const std::string& options,
                   const std::string& timeline) {
  return "name: xa\nduration: 10 min\nflink: {version: \"1.17\", execution.checkpointing.interval: "
         "1 min}\n"
         "cluster: {taskmanagers: 1, slots-per-taskmanager: 1}\n"
         "systems: {db: {kind: xa-database, commit-latency: 20 ms, " +
         database +
         "}}\n"
         "job:\n  vertices:\n"
         "    - {name: \"Source: S\", parallelism: 1, rate: 100 records/s}\n"
         "    - {name: \"Sink: Xa\", parallelism: 1, input: \"Source: S\", connector: jdbc-xa, "
         "options: {maxRetries: 0" +
         options + "}}\ntimeline: " + timeline + "\n";
}

}  // namespace

TEST_CASE("JDBC XA: PostgreSQL with max_prepared_transactions 0 refuses the first XA PREPARE, "
          "in snapshotState (JdbcXaSinkFunction.prepareCurrentTx)",
          "[connectors][two-phase-commit][jdbc-xa]") {
  const run::RunResult off = run_text(xa_job("dialect: postgres", "", "[]"));
  REQUIRE_FALSE(off.task_failures.empty());
  // The checkpoint's sync phase wraps it: "Could not perform checkpoint 1 for operator ...".
  CHECK(off.task_failures.front().message.find("Could not perform checkpoint 1") != std::string::npos);
  CHECK(off.task_failures.front().message.find("java.io.IOException") != std::string::npos);
  CHECK(off.task_failures.front().message.find("ERROR: prepared transactions are disabled") !=
        std::string::npos);
  const run::RunResult on =
      run_text(xa_job("dialect: postgres, max_prepared_transactions: 100", "", "[]"));
  CHECK(on.task_failures.empty());
  CHECK(on.counts.completed >= 9);
}

TEST_CASE("JDBC XA: a transiently failed commit waits for the next notification, until "
          "maxCommitAttempts; a rollback by the database fails at once (XaGroupOpsImpl.commit)",
          "[connectors][two-phase-commit][jdbc-xa]") {
  const std::string lock = "[{at: 2 min, do: db.reject-commit, count: 2}]";
  // Two failed attempts, the third (at the next checkpoint's completion) commits.
  const run::RunResult kept = run_text(xa_job("dialect: mysql", "", lock));
  CHECK(kept.task_failures.empty());
  // With maxCommitAttempts 2 the second failure gives up.
  const run::RunResult given_up = run_text(xa_job("dialect: mysql", ", maxCommitAttempts: 2", lock));
  REQUIRE(given_up.task_failures.size() == 1);
  CHECK(given_up.task_failures[0].exception_class == "java.lang.RuntimeException");
  CHECK(given_up.task_failures[0].message.find("reached max number of commit attempts (2)") == 0);
  // The two failures are one checkpoint interval apart: about 3 min and 4 min.
  CHECK(given_up.task_failures[0].time > core::minutes(3));
  CHECK(given_up.task_failures[0].time < core::minutes(4) + core::seconds(30));
  const run::RunResult rolled_back = run_text(xa_job(
      "dialect: mysql", "",
      "[{at: 2 min, do: db.reject-commit, error: \"XA_RBTIMEOUT: Transaction branch was rolled "
      "back: took too long\"}]"));
  REQUIRE(rolled_back.task_failures.size() == 1);
  CHECK(rolled_back.task_failures[0].exception_class == "org.apache.flink.util.FlinkRuntimeException");
  CHECK(rolled_back.task_failures[0].message.find("failed to commit 1 transactions out of 1") == 0);
  CHECK(rolled_back.task_failures[0].message.find("error 106: rollback happened because of a timeout") !=
        std::string::npos);
}

}  // namespace ckptsim
