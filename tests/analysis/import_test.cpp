// ckptsim import: real JobManager logs and REST JSON (tests/data/real/, sources in its INDEX.md)
// read into the RunResult a run produces; every simulated scenario's own log read back gives its
// checkpoints; malformed input gives an error, never a crash.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "tests/support/real_files.hpp"
#include "analysis/import/import.hpp"
#include "sim/run/run.hpp"
#include "sim/run/writers/writers.hpp"
#include "sim/scenario/scenario.hpp"

using namespace ckptsim;
namespace fs = std::filesystem;
using run::CheckpointStatus;
using R = model::CheckpointFailureReason;

namespace {

const run::CheckpointRecord& checkpoint(const run::RunResult& r, std::int64_t id) {
  for (const auto& c : r.checkpoints)
    if (c.id == id) return c;
  FAIL("no checkpoint " << id);
  return r.checkpoints.front();
}

std::int64_t ms(const run::RunResult& r, core::SimTime t) { return run::epoch_ms(r, t); }

}  // namespace

TEST_CASE("import: a declined checkpoint in a Flink 1.9 log4j1 log (apache/flink#8322)") {
  const auto r = tests::import_or_fail({tests::real_file("01-")}).result;
  CHECK(r.job_id == "dd4f07c1f866b7afff42759d7a35de3f");
  const auto& c = checkpoint(r, 66);
  CHECK(c.status == CheckpointStatus::failed);
  CHECK(c.failure_reason == R::checkpoint_declined_task_not_ready);
  CHECK(ms(r, c.trigger_time) == 1558107788056);
  REQUIRE(r.job_status_changes.size() == 1);
  CHECK(r.job_status_changes[0].to == model::JobStatus::failing);
}

TEST_CASE("import: an expired checkpoint in a UTC+8 log with thread ids (flink-cdc#273)") {
  const auto imported = tests::import_or_fail({tests::real_file("02-")});
  const auto& r = imported.result;
  const auto& c = checkpoint(r, 17);
  CHECK(c.status == CheckpointStatus::failed);
  CHECK(c.failure_reason == R::checkpoint_expired);
  CHECK(ms(r, c.trigger_time) == 1627290117546);
  // Logged at 17:04:57,627 local = 09:04:57,627 UTC: the zone read from the trigger line.
  CHECK(ms(r, c.end_time) == 1627290297627);
  CHECK(imported.report.files.size() >= 2);
  CHECK(imported.report.files[1].find("UTC+8:00") != std::string::npos);
}

TEST_CASE("import: container-prefixed 1.15+ lines, a completed checkpoint with its size") {
  const auto r = tests::import_or_fail({tests::real_file("03-")}).result;
  const auto& c = checkpoint(r, 22);
  CHECK(c.status == CheckpointStatus::completed);
  CHECK(c.imported_size == 14787);
  CHECK(ms(r, c.trigger_time) == 1701782573657);
  CHECK(r.imported_version.rfind("1.15 or newer", 0) == 0);
}

TEST_CASE("import: a test log with ms since start, a checkpoint and a savepoint (apache/flink#12638)") {
  const auto r = tests::import_or_fail({tests::real_file("04-")}).result;
  CHECK(checkpoint(r, 1).status == CheckpointStatus::completed);
  CHECK(ms(r, checkpoint(r, 1).trigger_time) == 1591980437822);
  CHECK(model::is_savepoint(checkpoint(r, 3).type));
}

TEST_CASE("import: a session cluster's log with four jobs imports one, keyed by its id") {
  const auto imported = tests::import_or_fail({tests::real_file("08-")});
  std::set<std::int64_t> ids;
  for (const auto& c : imported.result.checkpoints) ids.insert(c.id);
  CHECK(ids.size() == imported.result.checkpoints.size());
  CHECK(imported.report.files[1].find("holds 4 job ids") != std::string::npos);
}

TEST_CASE("import: failures with their CheckpointException reasons (suspend, trigger failure)") {
  const auto r9 = tests::import_or_fail({tests::real_file("09-")}).result;
  CHECK(checkpoint(r9, 1).failure_reason == R::checkpoint_coordinator_suspend);
  const auto r10 = tests::import_or_fail({tests::real_file("10-")}).result;  // a log starting with "[thread]", not JSON
  CHECK(checkpoint(r10, 1).status == CheckpointStatus::failed);
  CHECK(checkpoint(r10, 1).failure_reason == R::task_checkpoint_failure);
}

TEST_CASE("import: triggers that fail before an id count as no checkpoint, and are reported") {
  for (const char* f : {"12-", "13-", "33-"}) {
    const auto imported = tests::import_or_fail({tests::real_file(f)});
    INFO(f);
    CHECK(imported.result.checkpoints.empty());
    bool reported = false;
    for (const auto& line : imported.report.files)
      reported = reported || line.find("failed before an id was given") != std::string::npos;
    CHECK(reported);
    CHECK(imported.trigger_failures.size() == static_cast<std::size_t>(imported.result.counts.failed));
    for (const auto& failure : imported.trigger_failures)
      CHECK(failure.reason == R::not_all_required_tasks_running);
  }
  // Their times, for compare --real: chunjun#1022's four, 30 s apart from 17:18:04,952 (UTC).
  const auto aborted = tests::import_or_fail({tests::real_file("12-")});
  REQUIRE(aborted.trigger_failures.size() == 4);
  for (std::size_t i = 0; i < 4; ++i)
    CHECK(ms(aborted.result, aborted.trigger_failures[i].time) ==
          1656955084952 + 30000 * static_cast<std::int64_t>(i));
}

TEST_CASE("import: a log starting inside a stack trace, with a failover (apache/hudi#19301)") {
  const auto imported = tests::import_or_fail({tests::real_file("31-")});
  CHECK(imported.result.failovers == 1);
  CHECK(imported.result.final_status == model::JobStatus::restarting);
  CHECK(imported.report.problems.size() == 3);  // the stack frames before the first record
}

TEST_CASE("import: REST JSON of 1.9, 1.12-1.14 and 1.15+ (/checkpoints, config, details, jobs)") {
  auto r = tests::import_or_fail({tests::real_file("20-")}).result;
  CHECK(r.counts.total == 1914);
  CHECK(r.counts.completed == 1914);
  CHECK(checkpoint(r, 1914).status == CheckpointStatus::completed);
  CHECK(checkpoint(r, 1914).imported_size == 31096);
  r = tests::import_or_fail({tests::real_file("23-"), tests::real_file("24-"), tests::real_file("22-")}).result;
  CHECK(r.counts.completed == 638);
  CHECK(r.checkpoints.size() == 10);
  REQUIRE(r.flink.checkpointing.interval);
  CHECK(*r.flink.checkpointing.interval == core::seconds(2));
  r = tests::import_or_fail({tests::real_file("17-"), tests::real_file("16-")}).result;  // no checkpoints, "NaN" percentiles
  CHECK(r.counts.total == 0);
  CHECK_FALSE(r.flink.checkpointing.interval);  // Long.MAX_VALUE: checkpointing off
  r = tests::import_or_fail({tests::real_file("25-")}).result;
  CHECK(checkpoint(r, 714).status == CheckpointStatus::completed);
  r = tests::import_or_fail({tests::real_file("26-")}).result;
  CHECK(r.job_id == "d933fa6c785f0db6dccc6cc05dd43bab");
  CHECK(r.vertices.size() == 1);
}

TEST_CASE("import: every scenario's own jobmanager.log read back gives its checkpoints and failovers") {
  const fs::path root = CKPTSIM_SOURCE_DIR;
  int scenarios = 0;
  for (const auto& e : fs::recursive_directory_iterator(root / "scenarios")) {
    if (e.path().extension() != ".yaml") continue;
    const auto loaded = scenario::load_file(e.path().string());
    REQUIRE(loaded.ok());
    const run::RunResult simulated = run::run(*loaded.scenario);
    if (simulated.submissions > 1) continue;  // a stop and start: two jobs' statistics
    const auto imported = analysis::import_log(run::format_flink_log(simulated), "sim.log");
    const run::RunResult& r = imported.result;
    INFO(e.path().string());
    REQUIRE(r.checkpoints.size() == simulated.checkpoints.size());
    for (std::size_t i = 0; i < r.checkpoints.size(); ++i) {
      const auto& a = simulated.checkpoints[i];
      const auto& b = r.checkpoints[i];
      INFO("checkpoint " << a.id);
      CHECK(b.id == a.id);
      CHECK(b.status == a.status);
      CHECK(b.failure_reason == a.failure_reason);
      CHECK(model::is_savepoint(b.type) == model::is_savepoint(a.type));
      CHECK(ms(r, b.trigger_time) == ms(simulated, a.trigger_time));
    }
    CHECK(r.counts.total == simulated.counts.total);
    CHECK(r.counts.failed == simulated.counts.failed);
    // The failures without a history entry are triggers that failed before an id, each timed.
    const auto with_id = std::count_if(r.checkpoints.begin(), r.checkpoints.end(), [](const auto& c) {
      return c.status == CheckpointStatus::failed;
    });
    CHECK(static_cast<std::int64_t>(imported.trigger_failures.size()) == r.counts.failed - with_id);
    CHECK(r.counts.completed == simulated.counts.completed);
    CHECK(r.failovers == simulated.failovers);
    CHECK(r.final_status == simulated.final_status);
    ++scenarios;
  }
  CHECK(scenarios > 30);
}

TEST_CASE("import: truncated, binary and unknown input is an error with the file's name") {
  const fs::path dir = fs::temp_directory_path() / ("import-bad-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "cut.json") << R"({"counts":{"total":3},"history":[{"id":)";
  std::ofstream(dir / "other.json") << R"({"hello":"world"})";
  std::ofstream(dir / "noise.log") << std::string("\x01\x02\xff garbage\n\n\t\tat x\n", 19);
  for (const char* f : {"cut.json", "other.json", "noise.log"}) {
    std::string error;
    CHECK_FALSE(analysis::import_files({(dir / f).string()}, error).has_value());
    CHECK(error.find(f) != std::string::npos);
  }
  std::string error;
  CHECK_FALSE(analysis::import_files({(dir / "absent.log").string()}, error).has_value());
  CHECK_FALSE(analysis::import_files({(dir / "cut.json").string()}, error, 10).has_value());
  fs::remove_all(dir);
}

TEST_CASE("import: a parallelism beyond Flink's 32768 from REST JSON is bounded") {
  std::string error;
  const auto imported = analysis::import_texts(
      {{"job.json", R"({"jid":"0123456789abcdef0123456789abcdef","name":"x","vertices":[)"
                    R"({"id":"0123456789abcdef0123456789abcdef","name":"v","parallelism":99999999999}]})"}},
      error);
  REQUIRE(imported.has_value());
  CHECK(imported->result.vertices.at(0).parallelism == 32768);
}

// Found by import_fuzz (CI, stop 22): a boolean field holding a number threw out of the importer.
TEST_CASE("import: REST fields of the wrong type are read as absent, never thrown out of import") {
  std::string error;
  const auto imported = analysis::import_texts(
      {{"checkpoints.json",
        R"({"counts":{"total":1,"completed":1},"history":[{"id":4,"status":"COMPLETED",)"
        R"("trigger_timestamp":1700000000000,"is_savepoint":1,"discarded":"no",)"
        R"("end_to_end_duration":250}],"latest":{"restored":{"id":2,"is_savepoint":"yes"}}})"},
       {"config.json", R"({"mode":"exactly_once","interval":60000,"timeout":600000,)"
                       R"("unaligned_checkpoints":1})"}},
      error);
  REQUIRE(imported.has_value());
  const auto& r = imported->result;
  REQUIRE(r.checkpoints.size() == 1);
  CHECK(r.checkpoints[0].status == run::CheckpointStatus::completed);
  CHECK(r.checkpoints[0].periodic);
  CHECK_FALSE(r.flink.checkpointing.unaligned);
  REQUIRE(r.latest_restored.has_value());
  CHECK_FALSE(r.latest_restored->is_savepoint);
}

// Logs written by a JSON layout, one object per line. The field names are those of log4j2's
// JsonLayout, JsonTemplateLayout's ECS template and logstash-logback-encoder; the lines are
// written here (no public JobManager log in a JSON layout with a source URL was found for
// tests/data/real, see its INDEX.md).
TEST_CASE("import: JSON-layout logs (JsonLayout, ECS, logstash) give the same checkpoints") {
  const std::string json_layout =
      R"({"thread":"Checkpoint Timer","level":"INFO","loggerName":"org.apache.flink.runtime.checkpoint.CheckpointCoordinator","message":"Triggering checkpoint 7 (type=CHECKPOINT) @ 1606445753406 for job 0123456789abcdef0123456789abcdef.","endOfBatch":false,"instant":{"epochSecond":1606445753,"nanoOfSecond":417000000},"threadId":120})"
      "\n"
      R"({"thread":"jobmanager-future-thread-1","level":"INFO","loggerName":"org.apache.flink.runtime.checkpoint.CheckpointCoordinator","message":"Completed checkpoint 7 for job 0123456789abcdef0123456789abcdef (1234 bytes in 250 ms).","instant":{"epochSecond":1606445753,"nanoOfSecond":667000000}})"
      "\n"
      R"({"level":"INFO","loggerName":"org.apache.flink.runtime.executiongraph.ExecutionGraph","message":"Job j (0123456789abcdef0123456789abcdef) switched from state RUNNING to RESTARTING.","timeMillis":1606445760000,"thrown":{"name":"java.lang.Exception","message":"boom"}})"
      "\n";
  const std::string ecs =
      R"({"@timestamp":"2020-11-27T02:55:53.417Z","log.level":"INFO","message":"Triggering checkpoint 7 (type=CHECKPOINT) @ 1606445753406 for job 0123456789abcdef0123456789abcdef.","log":{"logger":"org.apache.flink.runtime.checkpoint.CheckpointCoordinator"}})"
      "\n"
      R"({"@timestamp":"2020-11-27T02:55:53.667Z","log.level":"INFO","message":"Completed checkpoint 7 for job 0123456789abcdef0123456789abcdef (1234 bytes in 250 ms).","log.logger":"org.apache.flink.runtime.checkpoint.CheckpointCoordinator"})"
      "\n";
  const std::string logstash =
      R"({"@timestamp":"2020-11-27T02:55:53.417+00:00","level":"INFO","logger_name":"org.apache.flink.runtime.checkpoint.CheckpointCoordinator","message":"Triggering checkpoint 7 (type=CHECKPOINT) @ 1606445753406 for job 0123456789abcdef0123456789abcdef."})"
      "\n"
      R"({"@timestamp":"2020-11-27T02:55:53.667+00:00","level":"INFO","logger_name":"org.apache.flink.runtime.checkpoint.CheckpointCoordinator","message":"Completed checkpoint 7 for job 0123456789abcdef0123456789abcdef (1234 bytes in 250 ms)."})"
      "\n";
  for (const std::string& text : {json_layout, ecs, logstash}) {
    std::string error;
    const auto imported = analysis::import_texts({{"json.log", text}}, error);
    INFO(text);
    INFO(error);
    REQUIRE(imported.has_value());
    const run::RunResult& r = imported->result;
    REQUIRE(r.checkpoints.size() == 1);
    CHECK(r.checkpoints[0].id == 7);
    CHECK(r.checkpoints[0].status == run::CheckpointStatus::completed);
    CHECK(r.checkpoints[0].imported_size == 1234);
    CHECK(imported->report.files.front().find("JSON (") != std::string::npos);
  }
  std::string error;
  CHECK(analysis::import_texts({{"json.log", json_layout}}, error)->result.failovers == 1);
}
