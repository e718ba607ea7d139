// The output writers: log layout byte for byte, REST shapes and Flink's arithmetic, the output
// directory.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "sim/run/recorder.hpp"
#include "sim/run/writers/flink_stats.hpp"
#include "sim/run/writers/writers.hpp"
#include "tests/run/sample_run.hpp"
#include "tests/support/files.hpp"

namespace {

using nlohmann::ordered_json;
using namespace ckptsim;

std::vector<std::string> keys_of(const ordered_json& object) {
  std::vector<std::string> keys;
  for (auto it = object.begin(); it != object.end(); ++it) keys.push_back(it.key());
  return keys;
}

}  // namespace

TEST_CASE("log lines are laid out like Flink's log4j2 pattern, byte for byte") {
  const run::RunResult r = tests::sample_run();
  const std::string log = run::format_flink_log(r);
  // seeds/000, lines 27-28, 37 and 52-53 (the stacks are shortened in the sample run).
  const std::string expected =
      "2024-07-10 12:53:41,653 WARN  org.apache.flink.runtime.checkpoint.CheckpointFailureManager "
      "[] - Failed to trigger or complete checkpoint 2 for job 59fa6119ea8f55a9c8066210386fb825. "
      "(0 consecutive failed attempts so far)\n"
      "org.apache.flink.runtime.checkpoint.CheckpointException: Checkpoint expired before "
      "completing.\n"
      "\tat org.apache.flink.runtime.checkpoint.CheckpointCoordinator$CheckpointCanceller.run("
      "CheckpointCoordinator.java:2216) [flink-dist-1.17.2.jar:1.17.2]\n"
      "2024-07-10 12:53:41,672 INFO  org.apache.flink.runtime.checkpoint.CheckpointRequestDecider "
      "[] - checkpoint request time in queue: 590028\n"
      "2024-07-10 12:53:41,680 INFO  org.apache.flink.runtime.jobmaster.JobMaster                 "
      "[] - Trying to recover from a global failure.\n"
      "2024-07-10 12:53:41,686 INFO  org.apache.flink.runtime.jobmaster.JobMaster                 "
      "[] - 1 tasks will be restarted to recover from a global failure.\n";
  CHECK(log == expected);
}

TEST_CASE("log levels take five columns and long logger names are not truncated") {
  run::RunResult r;
  r.start_epoch_ms = 0;
  run::LogRecord record;
  record.time = core::milliseconds(86'399'999);
  record.level = run::LogLevel::debug;
  record.logger = "org.apache.flink.runtime.taskexecutor.TaskExecutor";
  record.message = "Received heartbeat request from 842a3b7aa5ada486fee37b13badebd87.";
  // seeds/000 TaskManager log layout (the date differs).
  CHECK(run::format_log_line(r, record) ==
        "1970-01-01 23:59:59,999 DEBUG org.apache.flink.runtime.taskexecutor.TaskExecutor        "
        "   [] - Received heartbeat request from 842a3b7aa5ada486fee37b13badebd87.");
  record.level = run::LogLevel::error;
  record.logger = std::string(70, 'x');
  record.time = 0;
  CHECK(run::format_log_line(r, record) ==
        "1970-01-01 00:00:00,000 ERROR " + std::string(70, 'x') + " [] - " + record.message);
}

TEST_CASE("log timestamps are UTC civil dates across leap years and before 1970") {
  CHECK(run::format_log_timestamp(1720614600000) == "2024-07-10 12:30:00,000");
  CHECK(run::format_log_timestamp(951782400000) == "2000-02-29 00:00:00,000");
  CHECK(run::format_log_timestamp(4102444799999) == "2099-12-31 23:59:59,999");
  CHECK(run::format_log_timestamp(-1) == "1969-12-31 23:59:59,999");
}

TEST_CASE("percentiles use commons-math3's default LEGACY estimation") {
  // The end-to-end durations of a real Flink 1.16 job (seeds/003: 13 completed checkpoints,
  // min 11, max 79, avg 21, p50 18, p90 55.79999999999998, p95..p999 79). Only LEGACY
  // (pos = p(n+1)) fits these: R_7 would need x[11] = x[12] = 79 for p95 = 79 and then cannot
  // give 55.8 at p90. A sample with these statistics:
  run::StatsSummary s(run::kSummaryHistogramWindow);
  for (std::int64_t v : {11, 12, 13, 13, 14, 14, 18, 18, 19, 20, 21, 21, 79}) s.add(v);
  CHECK(s.min() == 11);
  CHECK(s.max() == 79);
  CHECK(s.average() == 21);
  CHECK(s.quantile(0.5) == 18.0);
  CHECK(s.quantile(0.9) == 55.79999999999998);  // exact double, as Flink printed it
  CHECK(s.quantile(0.95) == 79.0);
  CHECK(s.quantile(0.99) == 79.0);
  CHECK(s.quantile(0.999) == 79.0);

  CHECK(run::legacy_percentile({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.5) == 5.5);
  CHECK(run::legacy_percentile({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.9) == Approx(9.9));
  CHECK(run::legacy_percentile({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.95) == 10.0);
  CHECK(run::legacy_percentile({100, 10}, 0.5) == 55.0);  // unsorted input
  CHECK(run::legacy_percentile({7}, 0.999) == 7.0);
  CHECK(std::isnan(run::legacy_percentile({}, 0.5)));
}

TEST_CASE("StatsSummary ignores negative values and divides the average as longs") {
  run::StatsSummary s;
  s.add(-1);
  CHECK(s.count() == 0);
  CHECK(s.min() == 0);
  CHECK(s.max() == 0);
  CHECK(s.average() == 0);
  s.add(3);
  s.add(4);
  CHECK(s.average() == 3);
  CHECK(std::isnan(s.quantile(0.5)));  // no histogram: task-level summaries
  const ordered_json dto = run::stats_summary_dto(s);
  CHECK(
      dto.dump() ==
      R"({"min":3,"max":4,"avg":3,"p50":"NaN","p90":"NaN","p95":"NaN","p99":"NaN","p999":"NaN"})");
}

TEST_CASE("the histogram window keeps only the newest values") {
  run::StatsSummary s(3);
  for (std::int64_t v : {1000, 1, 2, 3}) s.add(v);
  CHECK(s.max() == 1000);           // min/max/avg cover every value
  CHECK(s.quantile(0.999) == 3.0);  // percentiles only the window
}

TEST_CASE("java.util.HashMap iteration order is reproduced") {
  // The 11 keys of JobDetails.getTaskInfo(), inserted "total" first, in a default HashMap.
  const std::vector<std::string> keys = {"total",   "created",     "scheduled",   "deploying",
                                         "running", "finished",    "canceling",   "canceled",
                                         "failed",  "reconciling", "initializing"};
  std::vector<std::int32_t> hashes;
  for (const auto& k : keys) hashes.push_back(run::java_string_hash(k));
  std::vector<std::string> ordered;
  for (std::size_t i : run::java_hashmap_order(hashes, std::nullopt)) ordered.push_back(keys[i]);
  CHECK(ordered == std::vector<std::string>{"running", "canceling", "canceled", "total", "created",
                                            "scheduled", "deploying", "reconciling", "finished",
                                            "initializing", "failed"});
  CHECK(run::java_string_hash("total") == 110549828);
  CHECK(run::java_string_hash("") == 0);
  // AbstractID.hashCode: XOR of the four 32-bit words.
  CHECK(run::java_abstract_id_hash("00000001000000020000000400000008") == 15);
  // new HashMap<>(2) has 2 buckets and doubles on the 2nd key: 4 lands in bucket 0 of 4 (it
  // would be bucket 4 of 8); the default table has 16 buckets up to 12 keys, then 32.
  CHECK(run::java_hashmap_order({4, 1}, 2) == std::vector<std::size_t>{0, 1});
  CHECK(run::java_hashmap_order({1, 0}, 2) == std::vector<std::size_t>{1, 0});
  std::vector<std::int32_t> twelve(12, 0);
  twelve[0] = 16;  // bucket 0 of 16, bucket 16 of 32
  twelve[1] = 1;
  CHECK(run::java_hashmap_order(twelve, std::nullopt)[1] == 2);
  twelve.push_back(0);
  CHECK(run::java_hashmap_order(twelve, std::nullopt)[0] == 2);
}

TEST_CASE("/jobs/:jid/checkpoints has Flink's shape, newest first, capped history") {
  const run::RunResult r = tests::sample_run();
  const ordered_json body = run::rest_checkpoints(r);
  CHECK(keys_of(body) == std::vector<std::string>{"counts", "summary", "latest", "history"});
  CHECK(body["counts"].dump() ==
        R"({"restored":1,"total":5,"in_progress":1,"completed":3,"failed":1})");

  // History: web.checkpoints.history = 3, youngest first, in-progress included, tasks empty.
  const ordered_json& history = body["history"];
  REQUIRE(history.size() == 3);
  CHECK(history[0]["id"] == 5);
  CHECK(history[1]["id"] == 4);
  CHECK(history[2]["id"] == 3);
  CHECK(history[0]["className"] == "in_progress");
  CHECK(history[0]["status"] == "IN_PROGRESS");
  CHECK(history[0]["latest_ack_timestamp"] == -1);
  CHECK(history[0]["end_to_end_duration"] == -1);
  CHECK(history[0]["num_acknowledged_subtasks"] == 0);
  CHECK(history[0]["tasks"] == ordered_json::object());
  CHECK(keys_of(history[0]) ==
        std::vector<std::string>{"className", "id", "status", "is_savepoint", "savepointFormat",
                                 "trigger_timestamp", "latest_ack_timestamp", "checkpointed_size",
                                 "state_size", "end_to_end_duration", "alignment_buffered",
                                 "processed_data", "persisted_data", "num_subtasks",
                                 "num_acknowledged_subtasks", "checkpoint_type", "tasks"});
  CHECK(history[1]["checkpoint_type"] == "UNALIGNED_CHECKPOINT");
  CHECK(history[1]["end_to_end_duration"] == 1834);
  CHECK(history[1]["persisted_data"] == 65536);

  const ordered_json& failed = body["latest"]["failed"];
  CHECK(failed["id"] == 3);
  CHECK(failed["className"] == "failed");
  CHECK(failed["end_to_end_duration"] == 600000);  // failure_timestamp - trigger
  CHECK(failed["latest_ack_timestamp"] == 1720614600000 + 120450);
  CHECK(failed["failure_timestamp"] == 1720614600000 + 720000);
  CHECK(failed["failure_message"] == "Checkpoint expired before completing.");
  CHECK(failed["num_acknowledged_subtasks"] == 2);
  CHECK(failed["checkpointed_size"] == 1000);
  CHECK(keys_of(failed).back() == "failure_message");

  const ordered_json& completed = body["latest"]["completed"];
  CHECK(completed["id"] == 4);  // the savepoint 2 goes to latest.savepoint
  CHECK(completed["savepointFormat"].is_null());
  CHECK(completed["external_path"] == "file:/data/ckpt/59fa6119ea8f55a9c8066210386fb825/chk-4");
  CHECK(completed["discarded"] == false);
  const ordered_json& savepoint = body["latest"]["savepoint"];
  CHECK(savepoint["id"] == 2);
  CHECK(savepoint["is_savepoint"] == true);
  CHECK(savepoint["savepointFormat"] == "CANONICAL");
  CHECK(savepoint["checkpoint_type"] == "SAVEPOINT");
  CHECK(body["latest"]["restored"].dump() ==
        R"({"id":1,"restore_timestamp":1720615325000,"is_savepoint":false,)"
        R"("external_path":"file:/data/ckpt/59fa6119ea8f55a9c8066210386fb825/chk-1"})");

  // Summary over checkpoints 1, 2 (savepoint) and 4: e2e 1204, 2000, 1834.
  CHECK(body["summary"]["end_to_end_duration"].dump() ==
        R"({"min":1204,"max":2000,"avg":1679,"p50":1834.0,"p90":2000.0,"p95":2000.0,)"
        R"("p99":2000.0,"p999":2000.0})");
  CHECK(body["summary"]["persisted_data"]["avg"] == 21845);
  CHECK(body["summary"]["alignment_buffered"].dump() ==
        R"({"min":0,"max":0,"avg":0,"p50":0.0,"p90":0.0,"p95":0.0,"p99":0.0,"p999":0.0})");
}

TEST_CASE("/checkpoints with no checkpoint is byte-identical to a real Flink archive") {
  run::RunResult r = tests::sample_run();
  r.checkpoints.clear();
  r.counts = {};
  r.latest_restored.reset();
  // reference/real-rest-json/17-streampark-archive-checkpoints-empty-nan.json (exact bytes).
  const std::string flink =
      R"({"counts":{"restored":0,"total":0,"in_progress":0,"completed":0,"failed":0},"summary":{"checkpointed_size":{"min":0,"max":0,"avg":0,"p50":"NaN","p90":"NaN","p95":"NaN","p99":"NaN","p999":"NaN"},"state_size":{"min":0,"max":0,"avg":0,"p50":"NaN","p90":"NaN","p95":"NaN","p99":"NaN","p999":"NaN"},"end_to_end_duration":{"min":0,"max":0,"avg":0,"p50":"NaN","p90":"NaN","p95":"NaN","p99":"NaN","p999":"NaN"},"alignment_buffered":{"min":0,"max":0,"avg":0,"p50":0.0,"p90":0.0,"p95":0.0,"p99":0.0,"p999":0.0},"processed_data":{"min":0,"max":0,"avg":0,"p50":"NaN","p90":"NaN","p95":"NaN","p99":"NaN","p999":"NaN"},"persisted_data":{"min":0,"max":0,"avg":0,"p50":"NaN","p90":"NaN","p95":"NaN","p99":"NaN","p999":"NaN"}},"latest":{"completed":null,"savepoint":null,"failed":null,"restored":null},"history":[]})";
  CHECK(run::rest_checkpoints(r).dump() == flink);
}

TEST_CASE("/checkpoints/config writes mode lowercase and Long.MAX when checkpointing is off") {
  run::RunResult r = tests::sample_run();
  ordered_json body = run::rest_checkpoint_config(r);
  CHECK(body.dump() ==
        R"({"mode":"exactly_once","interval":60000,"timeout":600000,"min_pause":0,)"
        R"("max_concurrent":1,"externalization":{"enabled":true,"delete_on_cancellation":false},)"
        R"("state_backend":"EmbeddedRocksDBStateBackend",)"
        R"("checkpoint_storage":"FileSystemCheckpointStorage","unaligned_checkpoints":false,)"
        R"("tolerable_failed_checkpoints":0,"aligned_checkpoint_timeout":0,)"
        R"("checkpoints_after_tasks_finish":true,"state_changelog_enabled":false,)"
        R"("changelog_periodic_materialization_interval":600000,"changelog_storage":null})");

  // The settings of reference/real-rest-json/16 (a 1.15 archive of a job without checkpointing).
  r.flink.checkpointing.interval.reset();
  r.flink.checkpointing.mode = model::CheckpointingMode::at_least_once;
  r.flink.checkpointing.retention = model::RetentionPolicy::never_retain;
  r.flink.state_backend = model::StateBackendKind::hashmap;
  r.flink.checkpoint_storage = model::CheckpointStorageKind::jobmanager;
  body = run::rest_checkpoint_config(r);
  const std::string flink_16_prefix =
      R"({"mode":"at_least_once","interval":9223372036854775807,"timeout":600000,"min_pause":0,"max_concurrent":1,"externalization":{"enabled":false,"delete_on_cancellation":true},"state_backend":"HashMapStateBackend","checkpoint_storage":"JobManagerCheckpointStorage","unaligned_checkpoints":false,"tolerable_failed_checkpoints":0,"aligned_checkpoint_timeout":0,"checkpoints_after_tasks_finish":true)";
  CHECK(body.dump().rfind(flink_16_prefix, 0) == 0);
  CHECK(body["interval"].get<std::int64_t>() == std::numeric_limits<std::int64_t>::max());
}

TEST_CASE("/checkpoints/details/:id fills tasks per vertex id") {
  const run::RunResult r = tests::sample_run();
  const ordered_json body = run::rest_checkpoint_details(r, r.checkpoints[0]);
  CHECK(body["className"] == "completed");
  CHECK(body["end_to_end_duration"] == 1204);
  CHECK(body["checkpointed_size"] == 8000);
  CHECK(body["state_size"] == 32000);
  REQUIRE(body["tasks"].size() == 2);
  const ordered_json& sink = body["tasks"][tests::kSinkId];
  CHECK(sink.dump() ==
        R"({"id":1,"status":"COMPLETED","latest_ack_timestamp":1720614661204,)"
        R"("checkpointed_size":6000,"state_size":24000,"end_to_end_duration":1204,)"
        R"("alignment_buffered":0,"processed_data":8192,"persisted_data":0,"num_subtasks":2,)"
        R"("num_acknowledged_subtasks":2})");
  CHECK(body["tasks"][tests::kSourceId]["end_to_end_duration"] == 700);

  // In progress: every vertex is there, with -1 for "no acknowledgement yet".
  const ordered_json pending = run::rest_checkpoint_details(r, r.checkpoints[4]);
  CHECK(pending["tasks"][tests::kSourceId]["latest_ack_timestamp"] == -1);
  CHECK(pending["tasks"][tests::kSourceId]["end_to_end_duration"] == -1);
  CHECK(pending["tasks"][tests::kSourceId]["status"] == "IN_PROGRESS");
}

TEST_CASE("/checkpoints/details/:id/subtasks/:vid has min/max/avg and NaN percentiles") {
  const run::RunResult r = tests::sample_run();
  const ordered_json body = run::rest_checkpoint_subtasks(r, r.checkpoints[2], 0);
  CHECK(keys_of(body) ==
        std::vector<std::string>{"id", "status", "latest_ack_timestamp", "checkpointed_size",
                                 "state_size", "end_to_end_duration", "alignment_buffered",
                                 "processed_data", "persisted_data", "num_subtasks",
                                 "num_acknowledged_subtasks", "summary", "subtasks"});
  CHECK(body["status"] == "FAILED");
  CHECK(
      body["summary"]["end_to_end_duration"].dump() ==
      R"({"min":400,"max":450,"avg":425,"p50":"NaN","p90":"NaN","p95":"NaN","p99":"NaN","p999":"NaN"})");
  CHECK(body["summary"]["checkpoint_duration"]["sync"]["min"] == 2);  // 2.7 ms truncated
  CHECK(body["summary"]["alignment"]["buffered"]["p50"] == 0.0);
  CHECK(body["summary"]["start_delay"]["avg"] == 640);
  REQUIRE(body["subtasks"].size() == 2);
  CHECK(body["subtasks"][0].dump() ==
        R"({"className":"completed","index":0,"ack_timestamp":1720614720400,)"
        R"("end_to_end_duration":400,"checkpointed_size":500,"state_size":2000,)"
        R"("checkpoint":{"sync":2,"async":410},)"
        R"("alignment":{"buffered":0,"processed":4096,"persisted":0,"duration":0},)"
        R"("start_delay":640,"unaligned_checkpoint":false,"aborted":false,"status":"completed"})");

  const ordered_json sink = run::rest_checkpoint_subtasks(r, r.checkpoints[2], 1);
  CHECK(sink["subtasks"][1].dump() ==
        R"({"className":"pending","index":1,"status":"pending_or_failed"})");
  CHECK(
      sink["summary"]["state_size"].dump() ==
      R"({"min":0,"max":0,"avg":0,"p50":"NaN","p90":"NaN","p95":"NaN","p99":"NaN","p999":"NaN"})");
  CHECK(sink["end_to_end_duration"] == -1);
}

TEST_CASE("/overview and /jobs/overview describe the cluster and the job") {
  run::RunResult r = tests::sample_run();
  CHECK(run::rest_overview(r).dump() ==
        R"({"taskmanagers":2,"slots-total":8,"slots-available":6,"jobs-running":1,)"
        R"("jobs-finished":0,"jobs-cancelled":0,"jobs-failed":0,"flink-version":"1.17.2",)"
        R"("flink-commit":"c0ffee1"})");
  CHECK(run::rest_jobs_overview(r).dump() ==
        R"({"jobs":[{"jid":"59fa6119ea8f55a9c8066210386fb825","name":"ckptsim-job",)"
        R"("start-time":1720614600000,"end-time":-1,"duration":1800000,)"
        R"("state":"RUNNING","last-modification":1720615321010,)"
        R"("tasks":{"running":4,"canceling":0,"canceled":0,"total":4,"created":0,"scheduled":0,)"
        R"("deploying":0,"reconciling":0,"finished":0,"initializing":0,"failed":0}}]})");

  r.flink_version = model::FlinkVersion::v2_0;
  r.final_status = model::JobStatus::canceled;
  r.job_status_changes.push_back(
      {core::minutes(20), model::JobStatus::running, model::JobStatus::cancelling});
  r.job_status_changes.push_back({core::minutes(20) + core::milliseconds(35),
                                  model::JobStatus::cancelling, model::JobStatus::canceled});
  r.final_task_states.assign(4, model::ExecutionState::canceled);
  const ordered_json job = run::rest_jobs_overview(r)["jobs"][0];
  CHECK(job["end-time"] == 1720614600000 + 1200035);
  CHECK(job["duration"] == 1200035);
  CHECK(job["state"] == "CANCELED");
  CHECK(job["tasks"]["canceled"] == 4);
  CHECK(keys_of(job) == std::vector<std::string>{"jid", "name", "start-time", "end-time",
                                                 "duration", "state", "last-modification", "tasks",
                                                 "pending-operators", "jobType", "schedulerType"});
  const ordered_json overview = run::rest_overview(r);
  CHECK(overview["slots-available"] == 8);
  CHECK(overview["jobs-running"] == 0);
  CHECK(overview["jobs-cancelled"] == 1);
  CHECK(overview["flink-version"] == "2.0.0");
}

TEST_CASE("summary.json keeps its keys") {
  run::RunResult r = tests::sample_run();
  r.end_to_end_latency = {1000, 52.2504, 49.4521, 98.9049};
  CHECK(run::summary_json(r).dump() ==
        R"({"scenario":"writers-sample","job_id":"59fa6119ea8f55a9c8066210386fb825",)"
        R"("flink_version":"1.17","seed":42,"simulated_time_ms":1800000,)"
        R"("final_status":"RUNNING","checkpoints":{"total":5,"completed":3,"failed":1,)"
        R"("in_progress":1,"by_failure_reason":{"CHECKPOINT_EXPIRED":1}},"failovers":1,)"
        R"("restarts":1,"replayed_records":12345,"lost_records":0,"restores":1,)"
        R"("end_to_end_latency_ms":{"records":1000,"mean":52.25,"p50":49.452,"p99":98.905},)"
        R"("events":98765,"diagnosis":[],"task_failures":[],"connector_events":[]})");
}

TEST_CASE("write_outputs writes the log, the summary and the rest tree") {
  const run::RunResult r = tests::sample_run();
  const auto dir = std::filesystem::temp_directory_path() / "ckptsim-writers-test";
  std::filesystem::remove_all(dir);
  std::string error;
  REQUIRE(run::write_outputs(r, dir, &error));
  CHECK(error.empty());
  CHECK(tests::read_file(dir / "jobmanager.log") == run::format_flink_log(r));
  const std::string summary = tests::read_file(dir / "summary.json");
  CHECK(summary == run::summary_json(r).dump(2) + "\n");
  CHECK(summary.rfind("{\n  \"scenario\": \"writers-sample\",\n", 0) == 0);
  const auto job = dir / "rest" / "jobs" / tests::kSampleJobId;
  CHECK(std::filesystem::exists(dir / "rest" / "overview.json"));
  CHECK(std::filesystem::exists(dir / "rest" / "jobs" / "overview.json"));
  CHECK(std::filesystem::exists(job / "checkpoints.json"));
  CHECK(std::filesystem::exists(job / "checkpoints" / "config.json"));
  for (int id = 1; id <= 5; ++id) {
    const auto details = job / "checkpoints" / "details";
    CHECK(std::filesystem::exists(details / (std::to_string(id) + ".json")));
    CHECK(std::filesystem::exists(details / std::to_string(id) / "subtasks" /
                                  (std::string(tests::kSourceId) + ".json")));
    CHECK(std::filesystem::exists(details / std::to_string(id) / "subtasks" /
                                  (std::string(tests::kSinkId) + ".json")));
  }
  const std::string checkpoints = tests::read_file(job / "checkpoints.json");
  REQUIRE(!checkpoints.empty());
  CHECK(checkpoints.back() == '\n');
  CHECK(ordered_json::parse(checkpoints) == run::rest_checkpoints(r));

  // Same input, same bytes.
  const auto again = std::filesystem::temp_directory_path() / "ckptsim-writers-test-again";
  std::filesystem::remove_all(again);
  REQUIRE(run::write_outputs(r, again, &error));
  CHECK(tests::read_file(again / "rest" / "jobs" / tests::kSampleJobId / "checkpoints.json") ==
        checkpoints);
  std::filesystem::remove_all(again);
  std::filesystem::remove_all(dir);
}

TEST_CASE("write_outputs reports an I/O failure instead of throwing") {
  const auto file = std::filesystem::temp_directory_path() / "ckptsim-writers-not-a-dir";
  std::filesystem::remove_all(file);
  { std::ofstream(file) << "x"; }
  std::string error;
  CHECK_FALSE(run::write_outputs(tests::sample_run(), file / "out", &error));
  CHECK(error.find("ckptsim-writers-not-a-dir") != std::string::npos);
  CHECK_FALSE(run::write_outputs(tests::sample_run(), file / "out", nullptr));
  std::filesystem::remove(file);
}

// CheckpointCoordinator.receiveDeclineMessage logs checkpointException.getCause(): the declines
// tasks send are created without a cause, so the line stands alone (it carried the
// CheckpointException itself before).
TEST_CASE("Decline checkpoint: the line has no throwable (the CheckpointException's cause is "
          "null)",
          "[log]") {
  model::Scenario s;
  model::VertexSpec v;
  v.name = "Source";
  s.job.vertices = {v};
  run::Recorder recorder(s, "0123456789abcdef0123456789abcdef");
  recorder.checkpoint_declined(
      0, 3, {0, 0, 0},
      model::CheckpointException{model::CheckpointFailureReason::checkpoint_declined_subsumed});
  REQUIRE(recorder.result().log.size() == 1);
  const run::LogRecord& line = recorder.result().log.back();
  CHECK(line.message.rfind("Decline checkpoint 3 by task ", 0) == 0);
  CHECK(line.throwable.empty());
}
