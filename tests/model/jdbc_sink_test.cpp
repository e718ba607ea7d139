// The JDBC sink (connectors/jdbc): flush at the checkpoint (GenericJdbcSinkFunction
// .snapshotState), executeBatch retries with 1000 * i ms sleeps (JdbcOutputFormat.flush), and
// the failure after sink.max-retries.
#include <catch2/catch.hpp>

#include <string>

#include "sim/run/run.hpp"
#include "sim/scenario/scenario.hpp"

using namespace ckptsim;

namespace {

run::RunResult run_jdbc(const std::string& options, const std::string& timeline) {
  const std::string text = R"(name: jdbc
duration: 2 min
flink:
  version: "1.17"
  execution.checkpointing.interval: 30 s
systems:
  db: {kind: jdbc, latency: 5 ms, write-rate: 10k rows/s}
job:
  vertices:
    - name: "Source: S"
      rate: 1000 records/s
    - name: "Sink: J"
      input: { from: "Source: S", ship: rebalance }
      connector: jdbc
      options: )" + options + "\ntimeline: " + timeline + "\n";
  const auto loaded = scenario::load_string(text, "jdbc.yaml");
  INFO(scenario::format_diagnostics(loaded.diagnostics));
  REQUIRE(loaded.ok());
  return run::run(*loaded.scenario);
}

}  // namespace

TEST_CASE("a JDBC sink without size or interval flushes flush the whole batch at the checkpoint",
          "[model][jdbc]") {
  const run::RunResult r =
      run_jdbc("{sink.buffer-flush.max-rows: 0, sink.buffer-flush.interval: 0}", "[]");
  REQUIRE(r.checkpoints.size() >= 3);
  // Checkpoint 2 flushes the ~30,000 rows written since checkpoint 1: 3 s at 10k rows/s.
  const run::CheckpointRecord& c = r.checkpoints[1];
  const core::Duration sync = c.subtasks[1][0].sync_duration;
  CHECK(sync >= core::milliseconds(2900));
  CHECK(sync <= core::milliseconds(3100));
  CHECK(r.task_failures.empty());
}

TEST_CASE("a JDBC batch rejected sink.max-retries times is retried; once more fails the task "
          "after 0 + 1 + 2 + 3 s of sleeps",
          "[model][jdbc]") {
  const std::string options = "{sink.buffer-flush.max-rows: 100, sink.max-retries: 3}";
  const run::RunResult retried = run_jdbc(options, "[{at: 50 s, do: db.reject, count: 3}]");
  CHECK(retried.task_failures.empty());
  const run::RunResult failed = run_jdbc(options, "[{at: 50 s, do: db.reject, count: 4}]");
  REQUIRE(failed.task_failures.size() == 1);
  const auto& f = failed.task_failures[0];
  CHECK(f.exception_class == "java.io.IOException");
  CHECK(f.message.find("java.sql.BatchUpdateException") != std::string::npos);
  // The first batch after 50 s fills at 50.1 s; 4 attempts of 5 ms and 0+1+2 s of sleeps.
  CHECK(f.time >= core::seconds(53));
  CHECK(f.time <= core::milliseconds(53300));
}
