// The version rules of the writers and the Recorder for Flink 1.15, 1.16 and 2.1 (and the 1.17 /
// 1.18 REST fields that came later than ckptsim had them): each test names the Flink class the
// rule is read from, on the release branches listed in docs/flink-versions.md.
#include <catch2/catch.hpp>

#include <regex>
#include <set>
#include <string>
#include <vector>

#include "sim/run/recorder.hpp"
#include "sim/run/run.hpp"
#include "sim/run/writers/metrics.hpp"
#include "sim/run/writers/rest_job.hpp"
#include "sim/run/writers/writers.hpp"
#include "tests/run/sample_run.hpp"
#include "tests/support/run_file.hpp"

namespace {

using nlohmann::ordered_json;
using namespace ckptsim;
using model::FlinkVersion;

std::vector<std::string> keys(const ordered_json& object) {
  std::vector<std::string> out;
  for (const auto& [key, value] : object.items()) out.push_back(key);
  return out;
}

bool has(const ordered_json& object, const char* key) {
  return object.contains(key);
}

// The hand-built run with a task failure of the sink's first subtask, still FAILED at the end
// (so that the 1.x all-exceptions list it too).
run::RunResult failed_run(FlinkVersion v) {
  run::RunResult r = tests::sample_run();
  r.task_failures.push_back({core::minutes(12), 1, 0, "java.lang.RuntimeException", "boom", 0});
  r.final_task_states[2] = model::ExecutionState::failed;
  r.flink_version = v;
  return r;
}

std::set<std::string> job_metric_names(const run::RunResult& r) {
  std::set<std::string> out;
  for (const run::MetricValue& m : run::metric_values(r).job) out.insert(m.name);
  return out;
}

bool logged(const run::RunResult& r, const std::string& text) {
  for (const run::LogRecord& l : r.log)
    if (l.message.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE(
    "JobExceptionsInfoWithHistory.ExceptionInfo: taskManagerId from 1.17, failureLabels "
    "from 1.18, endpoint from 1.19 (FLINK-33147), location up to 1.20") {
  for (const FlinkVersion v : model::kFlinkVersions) {
    INFO("flink " << model::to_string(v));
    const ordered_json entry =
        run::rest_job_exceptions(failed_run(v), 10)["exceptionHistory"]["entries"][0];
    CHECK(has(entry, "taskName"));
    CHECK(has(entry, "taskManagerId") == (v >= FlinkVersion::v1_17));
    CHECK(has(entry, "failureLabels") == (v >= FlinkVersion::v1_18));
    CHECK(has(entry, "endpoint") == (v >= FlinkVersion::v1_19));
    CHECK(has(entry, "location") == (v < FlinkVersion::v2_0));
  }
  // release-1.16: exactly the RootExceptionInfo fields.
  const ordered_json entry = run::rest_job_exceptions(failed_run(FlinkVersion::v1_16),
                                                      10)["exceptionHistory"]["entries"][0];
  CHECK(keys(entry) == std::vector<std::string>{"exceptionName", "stacktrace", "timestamp",
                                                "taskName", "location", "concurrentExceptions"});
}

TEST_CASE("JobExceptionsInfo.ExecutionExceptionInfo: taskManagerId from 1.17, endpoint from 1.19") {
  for (const FlinkVersion v : model::kFlinkVersions) {
    INFO("flink " << model::to_string(v));
    const ordered_json out = run::rest_job_exceptions(failed_run(v), 10);
    if (v >= FlinkVersion::v2_0) {
      CHECK_FALSE(has(out, "all-exceptions"));
      continue;
    }
    REQUIRE(out["all-exceptions"].size() == 1);
    std::vector<std::string> expected{"exception", "task", "location"};
    if (v >= FlinkVersion::v1_19) expected.push_back("endpoint");
    expected.push_back("timestamp");
    if (v >= FlinkVersion::v1_17) expected.push_back("taskManagerId");
    CHECK(keys(out["all-exceptions"][0]) == expected);
  }
}

TEST_CASE(
    "SubtaskExecutionAttemptDetailsInfo: endpoint from 1.19 (FLINK-33147), status-duration "
    "from 1.16, host up to 1.20; IOMetricsInfo accumulated times from 1.16") {
  for (const FlinkVersion v : model::kFlinkVersions) {
    INFO("flink " << model::to_string(v));
    run::RunResult r = tests::sample_run();
    r.flink_version = v;
    const ordered_json vertex = run::rest_vertex_details(r, 1);
    const ordered_json& subtask = vertex["subtasks"][0];
    CHECK(has(subtask, "endpoint") == (v >= FlinkVersion::v1_19));
    CHECK(has(subtask, "host") == (v < FlinkVersion::v2_0));
    CHECK(has(subtask, "status-duration") == (v >= FlinkVersion::v1_16));
    CHECK(has(subtask["metrics"], "accumulated-busy-time") == (v >= FlinkVersion::v1_16));
    // JobVertexDetailsInfo.aggregated came with 1.16.
    CHECK(has(vertex, "aggregated") == (v >= FlinkVersion::v1_16));
    CHECK(has(run::rest_job_details(r)["vertices"][0]["metrics"], "accumulated-idle-time") ==
          (v >= FlinkVersion::v1_16));
  }
}

TEST_CASE("JobVertexBackPressureInfo on release-1.15: backpressure-level only, in creator order") {
  const run::RunResult r = tests::run_file("scenarios/examples/kafka-catch-up.yaml",
                                           {"flink.version=1.15", "duration=3 min"});
  const ordered_json b = run::rest_vertex_backpressure(r, 1);
  REQUIRE(b["status"] == "ok");
  CHECK(keys(b) ==
        std::vector<std::string>{"status", "backpressure-level", "end-timestamp", "subtasks"});
  CHECK(keys(b["subtasks"][0]) == std::vector<std::string>{"subtask", "backpressure-level", "ratio",
                                                           "idleRatio", "busyRatio"});
  const run::RunResult r16 = tests::run_file("scenarios/examples/kafka-catch-up.yaml",
                                             {"flink.version=1.16", "duration=3 min"});
  const ordered_json b16 = run::rest_vertex_backpressure(r16, 1);
  CHECK(has(b16, "backpressureLevel"));
  CHECK(has(b16, "backpressure-level"));  // the hidden getter
}

TEST_CASE(
    "CheckpointStatistics: savepointFormat from 1.17; RestAPICheckpointType has "
    "UNALIGNED_CHECKPOINT from 1.16") {
  for (const FlinkVersion v : model::kFlinkVersions) {
    INFO("flink " << model::to_string(v));
    run::RunResult r = tests::sample_run();
    r.flink_version = v;
    const ordered_json history = run::rest_checkpoints(r)["history"];
    bool unaligned_seen = false;
    for (const auto& c : history) {
      CHECK(has(c, "savepointFormat") == (v >= FlinkVersion::v1_17));
      if (c["checkpoint_type"] == "UNALIGNED_CHECKPOINT") unaligned_seen = true;
    }
    // The sample's checkpoint 4 is unaligned: 1.15 reports it as a CHECKPOINT.
    CHECK(unaligned_seen == (v >= FlinkVersion::v1_16));
  }
}

TEST_CASE("CheckpointConfigInfo: the changelog fields came with 1.16") {
  run::RunResult r = tests::sample_run();
  r.flink_version = FlinkVersion::v1_15;
  const ordered_json c15 = run::rest_checkpoint_config(r);
  CHECK(keys(c15).back() == "checkpoints_after_tasks_finish");
  CHECK_FALSE(has(c15, "state_changelog_enabled"));
  r.flink_version = FlinkVersion::v1_16;
  CHECK(has(run::rest_checkpoint_config(r), "changelog_storage"));
}

// The real Flink 1.16.0 /jobs/overview of seed document 003 (scenarios/calibration/
// local-filesystem.yaml) has exactly this order, and its checkpoints no savepointFormat.
TEST_CASE("JobDetails.JobDetailsSerializer (1.15/1.16): state after name, tasks in state order") {
  run::RunResult r = tests::sample_run();
  for (const FlinkVersion v : {FlinkVersion::v1_15, FlinkVersion::v1_16}) {
    r.flink_version = v;
    const ordered_json job = run::rest_jobs_overview(r)["jobs"][0];
    CHECK(keys(job) == std::vector<std::string>{"jid", "name", "state", "start-time", "end-time",
                                                "duration", "last-modification", "tasks"});
    CHECK(keys(job["tasks"]) == std::vector<std::string>{"total", "created", "scheduled",
                                                         "deploying", "running", "finished",
                                                         "canceling", "canceled", "failed",
                                                         "reconciling", "initializing"});
  }
  // 1.17+: Jackson's properties and a HashMap.
  r.flink_version = FlinkVersion::v1_17;
  const ordered_json job = run::rest_jobs_overview(r)["jobs"][0];
  CHECK(keys(job)[2] == "start-time");
  CHECK(keys(job["tasks"]).front() != "total");
  // 2.1 = 2.0 (messages/webmonitor/JobDetails identical on release-2.0 and release-2.1.2-rc2).
  r.flink_version = FlinkVersion::v2_1;
  CHECK(has(run::rest_jobs_overview(r)["jobs"][0], "schedulerType"));
}

TEST_CASE(
    "DashboardConfiguration.Features: web-history from 1.16, web-rescale from 1.18; "
    "TaskManager addresses akka up to 1.17 (FLINK-32468)") {
  for (const FlinkVersion v : model::kFlinkVersions) {
    INFO("flink " << model::to_string(v));
    run::RunResult r = tests::sample_run();
    r.flink_version = v;
    const ordered_json features = run::rest_dashboard_config(r)["features"];
    CHECK(has(features, "web-history") == (v >= FlinkVersion::v1_16));
    CHECK(has(features, "web-rescale") == (v >= FlinkVersion::v1_18));
    const std::string path = run::rest_taskmanagers(r)["taskmanagers"][0]["path"];
    CHECK(path.rfind(v < FlinkVersion::v1_18 ? "akka" : "pekko", 0) == 0);
  }
}

TEST_CASE("ConfigurationInfo (/jobmanager/config): 1.15/1.16 keys before FLINK-29372") {
  const auto config_keys = [](FlinkVersion v) {
    run::RunResult r = tests::sample_run();
    r.flink_version = v;
    std::set<std::string> out;
    for (const auto& entry : run::rest_jobmanager_config(r)) out.insert(entry["key"]);
    return out;
  };
  const auto k16 = config_keys(FlinkVersion::v1_16);
  CHECK(k16.count("restart-strategy") == 1);
  CHECK(k16.count("restart-strategy.type") == 0);
  CHECK(k16.count("state.backend") == 1);
  CHECK(k16.count("state.backend.type") == 0);
  CHECK(k16.count("execution.checkpointing.checkpoints-after-tasks-finish.enabled") == 1);
  const auto k17 = config_keys(FlinkVersion::v1_17);
  CHECK(k17.count("restart-strategy.type") == 1);
  CHECK(k17.count("state.backend.type") == 1);
  // ExecutionCheckpointingOptions up to 1.19, CheckpointingOptions' new key from 1.20.
  CHECK(k17.count("execution.checkpointing.checkpoints-after-tasks-finish.enabled") == 1);
  CHECK(config_keys(FlinkVersion::v1_20).count(
            "execution.checkpointing.checkpoints-after-tasks-finish") == 1);
  // 2.1 = 2.0: NettyShuffleEnvironmentOptions has no exclusive/floating buffer options.
  CHECK(config_keys(FlinkVersion::v2_1).count("taskmanager.network.memory.buffers-per-channel") ==
        0);
}

TEST_CASE("JobDetailsInfo, JobConfigInfo and the 1.x exception fields: 2.1 has 2.0's shapes") {
  run::RunResult r = failed_run(FlinkVersion::v2_1);
  CHECK(run::rest_job_details(r)["pending-operators"] == 0);
  CHECK_FALSE(has(run::rest_job_config(r)["execution-config"], "execution-mode"));
  CHECK_FALSE(has(run::rest_job_exceptions(r, 10), "root-exception"));
  CHECK_FALSE(has(run::rest_vertex_details(r, 1)["subtasks"][0], "host"));
  const auto names = job_metric_names(r);
  CHECK(names.count("fullRestarts") == 0);
  CHECK(names.count("lastCheckpointCompletedTimestamp") == 1);
}

TEST_CASE(
    "CheckpointStatsTracker.registerMetrics: lastCompletedCheckpointId from 1.17 "
    "(FLINK-29195); MetricNames.ACC_TASK_*_TIME from 1.16") {
  for (const FlinkVersion v : model::kFlinkVersions) {
    INFO("flink " << model::to_string(v));
    run::RunResult r = tests::sample_run();
    r.flink_version = v;
    CHECK(job_metric_names(r).count("lastCompletedCheckpointId") ==
          (v >= FlinkVersion::v1_17 ? 1u : 0u));
  }
  for (const char* version : {"1.15", "1.16"}) {
    INFO("flink " << version);
    const run::RunResult r =
        tests::run_file("scenarios/examples/kafka-catch-up.yaml",
                        {std::string("flink.version=") + version, "duration=2 min"});
    const run::MetricSnapshot m = run::metric_values(r);
    REQUIRE_FALSE(m.subtasks.empty());
    bool accumulated = false;
    for (const run::MetricValue& value : m.subtasks[0].metrics)
      accumulated = accumulated || value.name == "accumulateBusyTimeMs";
    CHECK(accumulated == (std::string(version) == "1.16"));
  }
}

TEST_CASE("Dispatcher.submitJob: 'Received JobGraph submission' up to 1.20, 'job' in 2.0 and 2.1") {
  for (const char* version : {"1.15", "1.20", "2.1"}) {
    INFO("flink " << version);
    const run::RunResult r =
        tests::run_file("scenarios/examples/kafka-catch-up.yaml",
                        {std::string("flink.version=") + version, "duration=1 min"});
    CHECK(logged(
        r, std::string("Received ") + (version[0] == '2' ? "job" : "JobGraph") + " submission '"));
  }
}

TEST_CASE(
    "RestartPipelinedRegionFailoverStrategy.getTasksNeedingRestart logs the restart in 1.15; "
    "DefaultScheduler.restartTasksWithDelay from 1.16 (FLINK-28137)") {
  const char* scenario = "scenarios/examples/taskmanager-lost.yaml";  // a task failure
  const run::RunResult r15 = tests::run_file(scenario, {"flink.version=1.15"});
  const run::RunResult r16 = tests::run_file(scenario, {"flink.version=1.16"});
  const std::regex vertex_id(
      "Calculating tasks to restart to recover the failed task [0-9a-f]{32}_[0-9]+\\.");
  const std::regex restart(
      "[0-9]+ tasks should be restarted to recover the failed task "
      "[0-9a-f]{32}_[0-9]+\\. ");
  bool calculating = false;
  bool should = false;
  for (const run::LogRecord& l : r15.log) {
    if (std::regex_match(l.message, vertex_id)) {
      calculating = true;
      CHECK(std::string(l.logger) ==
            "org.apache.flink.runtime.executiongraph.failover.flip1."
            "RestartPipelinedRegionFailoverStrategy");
    }
    should = should || std::regex_match(l.message, restart);
  }
  CHECK(calculating);
  CHECK(should);
  CHECK_FALSE(logged(r15, "tasks will be restarted to recover the failed task"));
  CHECK(logged(r16, "tasks will be restarted to recover the failed task"));
  CHECK_FALSE(logged(r16, "Calculating tasks to restart"));
  // RestartAllFailoverStrategy ('full') logs neither line.
  const run::RunResult full = tests::run_file(
      scenario, {"flink.version=1.15", "flink.jobmanager.execution.failover-strategy=full"});
  CHECK_FALSE(logged(full, "Calculating tasks to restart"));
  CHECK_FALSE(logged(full, "tasks should be restarted"));
}

TEST_CASE(
    "ExecutionAttemptID: 32 hex digits in 1.15, <graph>_<vertex>_<subtask>_<attempt> from "
    "1.16") {
  const auto deploying = [](const char* version) {
    const run::RunResult r =
        tests::run_file("scenarios/examples/kafka-catch-up.yaml",
                        {std::string("flink.version=") + version, "duration=1 min"});
    for (const run::LogRecord& l : r.log)
      if (l.message.rfind("Deploying ", 0) == 0) return l.message;
    return std::string();
  };
  CHECK(std::regex_search(deploying("1.15"), std::regex(" with attempt id [0-9a-f]{32} and ")));
  CHECK(std::regex_search(deploying("1.16"),
                          std::regex(" with attempt id [0-9a-f]{32}_[0-9a-f]{32}_0_0 and ")));
}

TEST_CASE(
    "CheckpointFailureManager.checkFailureAgainstCounter: the bare threshold message in "
    "1.15/1.16, the latest reason from 1.17 (FLINK-29969)") {
  for (const char* version : {"1.15", "1.16", "1.17", "2.1"}) {
    INFO("flink " << version);
    const run::RunResult r = tests::run_file("scenarios/examples/tolerable-failures-zero.yaml",
                                             {std::string("flink.version=") + version});
    bool found = false;
    for (const run::LogRecord& l : r.log) {
      if (l.message != "Trying to recover from a global failure.") continue;
      REQUIRE_FALSE(l.throwable.empty());
      const bool old = std::string(version) < "1.17";
      if (old)
        found = l.throwable[0] ==
                "org.apache.flink.util.FlinkRuntimeException: Exceeded "
                "checkpoint tolerable failure threshold.";
      else
        found = l.throwable[0].find("threshold. The latest checkpoint failed due to") !=
                std::string::npos;
      break;
    }
    CHECK(found);
  }
}

TEST_CASE("CheckpointRequestDecider.logInQueueTime prints from 1.17 (FLINK-29307)") {
  for (const FlinkVersion v : model::kFlinkVersions) {
    INFO("flink " << model::to_string(v));
    model::Scenario s;
    s.flink.version = v;
    run::Recorder recorder(s, tests::kSampleJobId);
    recorder.request_queue_time(core::seconds(5), core::milliseconds(250));
    CHECK(logged(recorder.result(), "checkpoint request time in queue: 250") ==
          (v >= FlinkVersion::v1_17));
  }
}
