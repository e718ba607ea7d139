// The job, vertex and cluster REST bodies (rest_job.hpp): they conform to Flink's 1.20 OpenAPI
// spec up to the documented wire differences, and their values agree with the run, finished or
// snapshotted mid-run (a shorter Scenario.duration stands in for a live snapshot).
#include <catch2/catch.hpp>

#include <filesystem>
#include <limits>
#include <set>
#include <string>

#include "tests/support/run_file.hpp"
#include "sim/run/run.hpp"
#include "sim/run/writers/rest_job.hpp"
#include "sim/run/writers/writers.hpp"
#include "sim/scenario/scenario.hpp"
#include "tests/run/openapi_check.hpp"
#include "tests/run/sample_run.hpp"

namespace {

using nlohmann::ordered_json;
using namespace ckptsim;

std::string violations(const ordered_json& body, const std::string& schema) {
  std::string text;
  for (const auto& v : tests::flink_spec().validate(body, schema)) text += v + "\n";
  return text;
}

void check_schemas(const run::RunResult& r) {
  INFO("flink " << model::to_string(r.flink_version));
  CHECK(violations(run::rest_dashboard_config(r), "DashboardConfiguration").empty());
  CHECK(violations(run::rest_jobs(r), "JobIdsWithStatusOverview").empty());
  CHECK(violations(run::rest_job_details(r), "JobDetailsInfo").empty());
  CHECK(violations(run::rest_job_plan(r), "JobPlanInfo").empty());
  CHECK(violations(run::rest_job_config(r), "JobConfigInfo").empty());
  CHECK(violations(run::rest_job_exceptions(r, 10), "JobExceptionsInfoWithHistory").empty());
  CHECK(violations(run::rest_taskmanagers(r), "TaskManagersInfo").empty());
  CHECK(violations(run::rest_jobmanager_config(r), "ConfigurationInfo").empty());
  for (int v = 0; v < static_cast<int>(r.vertices.size()); ++v) {
    INFO("vertex " << v);
    CHECK(violations(run::rest_vertex_details(r, v), "JobVertexDetailsInfo").empty());
    CHECK(violations(run::rest_vertex_backpressure(r, v), "JobVertexBackPressureInfo").empty());
    CHECK(violations(run::rest_vertex_watermarks(r, v), "MetricCollectionResponseBody").empty());
  }
}

// The time the scheduler received the checkpoint-expiry global failure, from the JobManager log.
std::optional<core::SimTime> tolerable_failure_time(const run::RunResult& r) {
  for (const run::LogRecord& l : r.log) {
    if (l.message == "Trying to recover from a global failure." && !l.throwable.empty() &&
        l.throwable[0].find("Exceeded checkpoint tolerable failure threshold") != std::string::npos)
      return l.time;
  }
  return std::nullopt;
}

int sum_counts(const ordered_json& counts) {
  int total = 0;
  for (const auto& [key, value] : counts.items()) total += value.get<int>();
  return total;
}

const char* level_of(double ratio) {
  return ratio <= 0.10 ? "ok" : ratio <= 0.5 ? "low" : "high";
}

}  // namespace

TEST_CASE("the job, vertex and cluster REST bodies conform to Flink's 1.20 OpenAPI spec") {
  run::RunResult r = tests::sample_run();
  check_schemas(r);
  r.flink_version = model::FlinkVersion::v2_0;  // 2.x: pending-operators, no 1.x fields
  check_schemas(r);
  r.task_failures.push_back({core::minutes(12), 1, 0, "java.lang.RuntimeException", "boom", 0});
  r.final_task_states[2] = model::ExecutionState::failed;
  for (auto v : model::kFlinkVersions) {
    r.flink_version = v;
    check_schemas(r);
  }
}

TEST_CASE("a run's REST files of every endpoint pass the spec check, one file per URL",
          "[e2e][rest]") {
  const run::RunResult r = tests::run_file("scenarios/examples/tolerable-failures-zero.yaml");
  const auto dir = std::filesystem::temp_directory_path() / "ckptsim-rest-job-e2e";
  std::filesystem::remove_all(dir);
  std::string error;
  REQUIRE(run::write_outputs(r, dir, &error));
  const auto rest = dir / "rest";
  const auto job = rest / "jobs" / r.job_id;
  CHECK(std::filesystem::exists(rest / "config.json"));
  CHECK(std::filesystem::exists(rest / "jobs.json"));
  CHECK(std::filesystem::exists(rest / "taskmanagers.json"));
  CHECK(std::filesystem::exists(rest / "jobmanager" / "config.json"));
  CHECK(std::filesystem::exists(rest / "jobs" / (r.job_id + ".json")));
  for (const char* f : {"plan.json", "config.json", "exceptions.json"})
    CHECK(std::filesystem::exists(job / f));
  for (const auto& v : r.vertices) {
    CHECK(std::filesystem::exists(job / "vertices" / (v.id + ".json")));
    CHECK(std::filesystem::exists(job / "vertices" / v.id / "backpressure.json"));
    CHECK(std::filesystem::exists(job / "vertices" / v.id / "watermarks.json"));
  }
  const auto found = tests::check_rest_dir(rest);
  for (const std::string& v : found) UNSCOPED_INFO(v);
  CHECK(found.empty());
  // The same run as 2.0 writes it (the writers follow RunResult::flink_version).
  run::RunResult v2 = r;
  v2.flink_version = model::FlinkVersion::v2_0;
  REQUIRE(run::write_outputs(v2, dir, &error));
  const auto found_v2 = tests::check_rest_dir(rest);
  for (const std::string& v : found_v2) UNSCOPED_INFO(v);
  CHECK(found_v2.empty());
  std::filesystem::remove_all(dir);
}

TEST_CASE("status counts add up to the vertices and each vertex's tasks to its parallelism") {
  const run::RunResult r = tests::run_file("scenarios/seed/unaligned.yaml");
  const ordered_json job = run::rest_job_details(r);
  CHECK(job["jid"] == r.job_id);
  CHECK(job["state"] == model::to_string(r.final_status));
  CHECK(job["now"] == run::epoch_ms(r, r.end_time));
  CHECK(sum_counts(job["status-counts"]) == static_cast<int>(r.vertices.size()));
  int subtasks = 0;
  for (std::size_t v = 0; v < r.vertices.size(); ++v) {
    const ordered_json& vertex = job["vertices"][v];
    CHECK(vertex["id"] == r.vertices[v].id);
    CHECK(sum_counts(vertex["tasks"]) == r.vertices[v].parallelism);
    subtasks += sum_counts(vertex["tasks"]);
    // The plan's nodes are the vertices, in the same order, linked by their inputs.
    const ordered_json& node = job["plan"]["nodes"][v];
    CHECK(node["id"] == r.vertices[v].id);
    CHECK(node.contains("inputs") == (r.vertices[v].input >= 0));
    CHECK(run::rest_vertex_details(r, static_cast<int>(v))["subtasks"].size() ==
          static_cast<std::size_t>(r.vertices[v].parallelism));
  }
  CHECK(subtasks == static_cast<int>(r.final_task_states.size()));
  CHECK(run::rest_jobs(r)["jobs"][0]["status"] == model::to_string(r.final_status));
}

TEST_CASE("a mid-run snapshot during the failover shows RESTARTING and the expiry as the cause") {
  const run::RunResult full = tests::run_file("scenarios/examples/tolerable-failures-zero.yaml");
  const auto failed_at = tolerable_failure_time(full);
  REQUIRE(failed_at);
  // A snapshot just after the failure: the tasks are cancelled, the restart delay runs.
  const run::RunResult r = tests::run_file_until("scenarios/examples/tolerable-failures-zero.yaml", *failed_at + core::milliseconds(100));
  REQUIRE(r.final_status == model::JobStatus::restarting);
  const std::int64_t failure_ms = run::epoch_ms(r, *failed_at);

  const ordered_json job = run::rest_job_details(r);
  CHECK(job["state"] == "RESTARTING");
  CHECK(job["end-time"] == -1);
  CHECK(job["now"] == run::epoch_ms(r, r.end_time));
  CHECK(job["duration"] == job["now"].get<std::int64_t>() - job["start-time"].get<std::int64_t>());
  CHECK(job["timestamps"]["RESTARTING"].get<std::int64_t>() >= failure_ms);
  CHECK(job["timestamps"]["RESTARTING"].get<std::int64_t>() <= job["now"].get<std::int64_t>());
  CHECK(job["timestamps"]["FAILED"] == 0);
  CHECK(job["status-counts"]["CANCELED"] == static_cast<int>(r.vertices.size()));
  CHECK(run::rest_jobs(r)["jobs"][0]["status"] == "RESTARTING");

  // Each subtask of the first attempt ended CANCELED: terminal, so it has an end time.
  const ordered_json vertex = run::rest_vertex_details(r, 0);
  for (const ordered_json& s : vertex["subtasks"]) {
    CHECK(s["status"] == "CANCELED");
    CHECK(s["attempt"] == 0);
    CHECK(s["end-time"].get<std::int64_t>() >= failure_ms);
    CHECK(s["duration"] == s["end-time"].get<std::int64_t>() - s["start-time"].get<std::int64_t>());
  }

  const ordered_json exceptions = run::rest_job_exceptions(r, 10);
  REQUIRE(exceptions["exceptionHistory"]["entries"].size() == 1);
  const ordered_json& entry = exceptions["exceptionHistory"]["entries"][0];
  CHECK(entry["exceptionName"] == "org.apache.flink.util.FlinkRuntimeException");
  CHECK(entry["timestamp"] == failure_ms);
  CHECK(entry["stacktrace"].get<std::string>().find(
            "Exceeded checkpoint tolerable failure threshold") != std::string::npos);
  CHECK_FALSE(entry.contains("taskName"));  // a global failure: no task, endpoint or TM
  // 1.17 also writes the deprecated root-exception and timestamp.
  CHECK(exceptions["timestamp"] == failure_ms);
  CHECK(exceptions["root-exception"] == entry["stacktrace"]);
  CHECK(run::rest_job_exceptions(r, 0)["exceptionHistory"]["truncated"] == true);

  // After the restart (the full run) the subtasks run their second attempt, started after it.
  const ordered_json after = run::rest_vertex_details(full, 0);
  for (const ordered_json& s : after["subtasks"]) {
    CHECK(s["status"] == "RUNNING");
    CHECK(s["attempt"] == 1);
    CHECK(s["start-time"].get<std::int64_t>() > failure_ms);
    CHECK(s["end-time"] == -1);
  }
  CHECK(run::rest_job_details(full)["timestamps"]["RUNNING"].get<std::int64_t>() > failure_ms);
}

TEST_CASE("back-pressure levels follow Flink's thresholds on backPressuredTimeMsPerSecond") {
  run::RunResult r = tests::sample_run();
  CHECK(run::rest_vertex_backpressure(r, 0) == ordered_json({{"status", "deprecated"}}));
  // One 1 s sample per subtask: 100, 500 ms back-pressured on the source; 501, 0 on the sink.
  const std::int64_t bp[2][2] = {{100, 500}, {501, 0}};
  for (int v = 0; v < 2; ++v) {
    for (int s = 0; s < 2; ++s) {
      run::TaskSampleRow row;
      row.end = core::minutes(30);
      row.vertex = v;
      row.subtask = s;
      row.sample.start = row.end - core::kSecond;
      row.sample.period = core::kSecond;
      row.sample.back_pressured = core::milliseconds(bp[v][s]);
      row.sample.idle = core::milliseconds(200);
      row.sample.busy = core::kSecond - row.sample.back_pressured - row.sample.idle;
      r.timeseries.push_back(row);
    }
  }
  const ordered_json source = run::rest_vertex_backpressure(r, 0);
  CHECK(source["status"] == "ok");
  CHECK(source["subtasks"][0]["backpressure-level"] == "ok");   // 0.1 is still ok
  CHECK(source["subtasks"][1]["backpressure-level"] == "low");  // 0.5 is still low
  CHECK(source["backpressure-level"] == "low");
  CHECK(source["backpressureLevel"] == source["backpressure-level"]);
  CHECK(source["end-timestamp"] == run::epoch_ms(r, core::minutes(30)));
  const ordered_json sink = run::rest_vertex_backpressure(r, 1);
  CHECK(sink["subtasks"][0]["ratio"] == Approx(0.501));
  CHECK(sink["subtasks"][0]["idleRatio"] == Approx(0.2));
  CHECK(sink["subtasks"][0]["busyRatio"] == Approx(0.299));
  CHECK(sink["backpressure-level"] == "high");

  // And on a real run: every level is the one of its ratio.
  const run::RunResult real = tests::run_file("scenarios/examples/stalled-sink.yaml");
  for (int v = 0; v < static_cast<int>(real.vertices.size()); ++v) {
    const ordered_json b = run::rest_vertex_backpressure(real, v);
    double max_ratio = 0;
    for (const ordered_json& s : b["subtasks"]) {
      CHECK(s["backpressure-level"] == level_of(s["ratio"].get<double>()));
      max_ratio = std::max(max_ratio, s["ratio"].get<double>());
    }
    CHECK(b["backpressure-level"] == level_of(max_ratio));
  }
}

TEST_CASE("task managers, cluster configuration and dashboard configuration agree with the run") {
  const run::RunResult r = tests::run_file("scenarios/examples/tolerable-failures-zero.yaml");
  const ordered_json tms = run::rest_taskmanagers(r)["taskmanagers"];
  REQUIRE(tms.size() == static_cast<std::size_t>(r.taskmanagers));
  int slots = 0, free = 0;
  for (const ordered_json& tm : tms) {
    slots += tm["slotsNumber"].get<int>();
    free += tm["freeSlots"].get<int>();
  }
  CHECK(slots == r.slots_total);
  CHECK(free == run::rest_overview(r)["slots-available"].get<int>());

  const ordered_json config = run::rest_jobmanager_config(r);
  std::set<std::string> keys;
  std::string tolerable;
  for (const ordered_json& e : config) {
    keys.insert(e["key"].get<std::string>());
    if (e["key"] == "execution.checkpointing.tolerable-failed-checkpoints")
      tolerable = e["value"].get<std::string>();
  }
  CHECK(keys.size() == config.size());
  CHECK(tolerable == "0");
  CHECK(keys.count("taskmanager.memory.process.size") == 1);
  CHECK(config == run::rest_jobmanager_config(r));  // deterministic

  const ordered_json dashboard = run::rest_dashboard_config(r);
  CHECK(dashboard["flink-version"] == model::flink_release(r.flink_version));
  CHECK(dashboard["flink-revision"].get<std::string>().rfind(
            run::synthetic_flink_commit(r.flink_version), 0) == 0);
  CHECK(dashboard["features"]["web-history"] == false);
  CHECK(run::rest_vertex_watermarks(r, 0) == ordered_json::array());
}

TEST_CASE("the schema checker still rejects what the new wire differences do not allow") {
  const run::RunResult r = tests::sample_run();
  ordered_json job = run::rest_job_details(r);
  job["vertices"][0]["slotSharingGroupId"] = "default";
  CHECK(violations(job, "JobDetailsInfo").find("expected a 32-hex-char id") != std::string::npos);
  job = run::rest_job_details(r);
  job["plan"] = "{}";
  CHECK(violations(job, "JobDetailsInfo").find("$.plan") != std::string::npos);
  job = run::rest_job_details(r);
  job["status-counts"]["RUNNING"] = "2";
  CHECK(violations(job, "JobDetailsInfo").find("status-counts.RUNNING") != std::string::npos);
  ordered_json watermarks = ordered_json::array({{{"value", "1"}}});  // no id
  CHECK(violations(watermarks, "MetricCollectionResponseBody").find("missing required field") !=
        std::string::npos);
  ordered_json config = run::rest_jobmanager_config(r);
  config[0]["value"] = 1;
  CHECK(violations(config, "ConfigurationInfo").find("expected string") != std::string::npos);
  ordered_json tms = run::rest_taskmanagers(r);
  tms["taskmanagers"][0]["freeSlots"] = 1.5;
  CHECK(violations(tms, "TaskManagersInfo").find("freeSlots") != std::string::npos);
}

TEST_CASE("exceptions cover the latest submission; all-exceptions only the current attempt's") {
  // Stopped with a savepoint, started again, then every attempt fails at start-up until the
  // restart strategy gives up.
  const run::RunResult r = tests::run_file("scenarios/examples/doris-label-collision.yaml");
  REQUIRE(r.submissions == 2);
  REQUIRE(r.final_status == model::JobStatus::failed);
  const ordered_json e = run::rest_job_exceptions(r, 100);
  const ordered_json& entries = e["exceptionHistory"]["entries"];
  REQUIRE(entries.size() >= 2);
  std::int64_t previous = std::numeric_limits<std::int64_t>::max();
  for (const ordered_json& entry : entries) {
    CHECK(entry["timestamp"].get<std::int64_t>() >= run::epoch_ms(r, r.submission_time));
    CHECK(entry["timestamp"].get<std::int64_t>() <= previous);  // newest first
    previous = entry["timestamp"].get<std::int64_t>();
  }
  REQUIRE(e["all-exceptions"].size() == 1);
  const ordered_json vertex = run::rest_vertex_details(r, 0);
  CHECK(vertex["subtasks"][0]["status"] == "FAILED");
  CHECK(entries[0]["taskName"].get<std::string>().ends_with(
      "#" + std::to_string(vertex["subtasks"][0]["attempt"].get<int>())));
  CHECK(e["all-exceptions"][0]["task"] ==
        r.vertices[0].name + " (1/" + std::to_string(r.vertices[0].parallelism) + ")");
  CHECK(e["all-exceptions"][0]["timestamp"] == entries[0]["timestamp"]);
  const ordered_json job = run::rest_job_details(r);
  CHECK(job["end-time"] == job["timestamps"]["FAILED"]);
  CHECK(job["start-time"] == run::epoch_ms(r, r.submission_time));
  CHECK(run::rest_job_exceptions(r, 2)["exceptionHistory"]["entries"].size() == 2);
  CHECK(run::rest_job_exceptions(r, 2)["exceptionHistory"]["truncated"] == true);
}

TEST_CASE("fields appear in the Flink versions that have them") {
  run::RunResult r = tests::sample_run();
  r.flink_version = model::FlinkVersion::v1_17;
  ordered_json job = run::rest_job_details(r);
  CHECK_FALSE(job.contains("job-type"));
  CHECK_FALSE(job["vertices"][0].contains("slotSharingGroupId"));
  CHECK_FALSE(job.contains("pending-operators"));
  CHECK_FALSE(run::rest_dashboard_config(r)["features"].contains("web-rescale"));
  CHECK(run::rest_vertex_details(r, 0)["subtasks"][0].contains("host"));
  CHECK(run::rest_job_exceptions(r).contains("root-exception"));

  r.flink_version = model::FlinkVersion::v1_20;
  job = run::rest_job_details(r);
  CHECK(job["job-type"] == "STREAMING");
  CHECK(job["vertices"][0]["slotSharingGroupId"] == job["vertices"][1]["slotSharingGroupId"]);
  CHECK(run::rest_dashboard_config(r)["features"].contains("web-rescale"));

  r.flink_version = model::FlinkVersion::v2_0;
  job = run::rest_job_details(r);
  CHECK(job["pending-operators"] == 0);
  CHECK_FALSE(job.contains("stream-graph"));
  CHECK_FALSE(run::rest_vertex_details(r, 0)["subtasks"][0].contains("host"));
  const ordered_json e = run::rest_job_exceptions(r);
  CHECK(e.size() == 1);
  CHECK(e.contains("exceptionHistory"));
}
