// The HTML report read from a run's output directory: one timeline bar per checkpoint, the
// diagnosis beside its checkpoint, old directories without job.json, nothing fetched.
#include <catch2/catch.hpp>
#include <filesystem>

#include "tests/support/run_file.hpp"
#include "analysis/report.hpp"
#include "sim/run/run.hpp"
#include "sim/run/writers/writers.hpp"
#include "sim/scenario/scenario.hpp"
#include "tests/support/files.hpp"

namespace ckptsim {
namespace {

namespace fs = std::filesystem;

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

run::RunResult seed_incident() {
  const auto loaded = scenario::load_string(scenario::default_scenario_yaml(), "<default>", {});
  REQUIRE(loaded.ok());
  return run::run(*loaded.scenario);
}

fs::path written(const run::RunResult& r, const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("ckptsim-report-test-" + name);
  fs::remove_all(dir);
  std::string error;
  REQUIRE(run::write_outputs(r, dir, &error));
  return dir;
}

}  // namespace

TEST_CASE("the seed incident's report has one timeline bar per checkpoint and its diagnosis") {
  const run::RunResult r = seed_incident();
  const fs::path dir = written(r, "seed");
  std::string error;
  const auto report = analysis::read_run_dir(dir, error);
  REQUIRE(report);
  CHECK(report->notes.empty());
  REQUIRE(report->checkpoints.size() == r.checkpoints.size());
  for (std::size_t i = 0; i < r.checkpoints.size(); ++i) {
    const run::CheckpointRecord& c = r.checkpoints[i];
    const analysis::ReportCheckpoint& rc = report->checkpoints[i];
    CHECK(rc.id == c.id);
    CHECK(rc.trigger_ms == core::to_millis(c.trigger_time));
    // Every expired checkpoint carries the sentence of each subtask that had not acknowledged.
    CHECK(rc.explanations.size() == c.waits.size());
    if (c.status == run::CheckpointStatus::completed) {
      REQUIRE(rc.subtasks.size() == 1);
      REQUIRE(rc.subtasks[0].size() == 1);
      CHECK(rc.subtasks[0][0].sync_ms == core::to_millis(c.subtasks[0][0].sync_duration));
      CHECK(rc.subtasks[0][0].ack_ms == core::to_millis(c.subtasks[0][0].ack_time));
    }
  }
  // The three restarts are bands; the samples are every row of timeseries.csv.
  CHECK(report->status_changes.size() == r.job_status_changes.size());
  CHECK(report->samples.size() == r.timeseries.size());
  const std::string html = analysis::run_report_html(*report);
  CHECK(count(html, "class=\"ckpt-bar ") == r.checkpoints.size());
  CHECK(count(html, "class=\"band\"") >= 3 * 3);  // timeline, durations, queues
  CHECK(html.find("blocked in the Doris writer since 00:00:22") != std::string::npos);
  CHECK(html.find("execution.checkpointing.interval") != std::string::npos);
  // Self-contained: no scripts, no links or sources to fetch, and a policy that forbids them.
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("src=") == std::string::npos);
  CHECK(html.find("href=") == std::string::npos);
  CHECK(html.find("url(") == std::string::npos);
  CHECK(html.find("default-src 'none'") != std::string::npos);
  // Deterministic.
  CHECK(analysis::run_report_html(*analysis::read_run_dir(dir, error)) == html);
}

TEST_CASE("a directory written before job.json existed still gives the timeline and restarts") {
  const run::RunResult r = seed_incident();
  const fs::path dir = written(r, "old");
  fs::remove(dir / "job.json");
  std::string error;
  const auto report = analysis::read_run_dir(dir, error);
  REQUIRE(report);
  CHECK(report->notes.size() == 1);
  REQUIRE(report->vertices.size() == 1);
  CHECK(report->vertices[0].name == r.vertices[0].name);
  CHECK(report->vertices[0].id == r.vertices[0].id);  // from a detail file's task map
  CHECK(report->start_epoch_ms == r.start_epoch_ms);
  // The job status changes read back from jobmanager.log's ExecutionGraph lines: all but
  // INITIALIZING -> CREATED, which Flink does not log (the ExecutionGraph is created CREATED).
  std::vector<run::JobStatusChange> logged;
  for (const auto& c : r.job_status_changes)
    if (c.from != model::JobStatus::initializing) logged.push_back(c);
  REQUIRE(report->status_changes.size() == logged.size());
  for (std::size_t i = 0; i < logged.size(); ++i) {
    CHECK(report->status_changes[i].time_ms == core::to_millis(logged[i].time));
    CHECK(report->status_changes[i].to == model::to_string(logged[i].to));
  }
  CHECK(count(analysis::run_report_html(*report), "class=\"ckpt-bar ") == r.checkpoints.size());
}

TEST_CASE("a directory that is not a run's output is an error, not a crash") {
  const fs::path dir = fs::temp_directory_path() / "ckptsim-report-test-empty";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string error;
  CHECK_FALSE(analysis::read_run_dir(dir, error));
  CHECK(error.find("summary.json") != std::string::npos);
  {
    std::ofstream(dir / "summary.json") << "{\"checkpoints\": {}, \"diagnosis\": 7}";
    std::ofstream(dir / "timeseries.csv") << "header\n1,2\nx,y,z,a,b,c,d,e,f,g\n";
  }
  const auto report = analysis::read_run_dir(dir, error);
  REQUIRE(report);
  CHECK(report->samples.empty());
  CHECK_FALSE(analysis::run_report_html(*report).empty());
}

TEST_CASE("a skewed job's slowest checkpoint names its critical subtask and phase") {
  const run::RunResult r = tests::run_file("scenarios/catalog/b11-skew-long-alignment.yaml");
  const fs::path dir = written(r, "b11");
  std::string error;
  const auto report = analysis::read_run_dir(dir, error);
  REQUIRE(report);
  REQUIRE(report->vertices.size() == r.vertices.size());
  const std::string html = analysis::run_report_html(*report);
  CHECK(count(html, "class=\"ckpt-bar ") == r.checkpoints.size());
  // The aggregation's hot subtask gets its first barrier late: it queues behind a full input.
  CHECK(html.find("Slowest: Aggregate(user)") != std::string::npos);
  CHECK(html.find("most of it was start delay (the barrier queued behind data") !=
        std::string::npos);
  // One heatmap row per vertex, expandable to its subtasks.
  CHECK(count(html, "<details class=\"expand\">") == r.vertices.size());
}

TEST_CASE("a checkpoint still pending at half its timeout shows what held its slowest subtask") {
  // stalled-sink with the stall ending after 8 min: checkpoint 4 completes after it.
  const run::RunResult r = tests::run_file("scenarios/examples/stalled-sink.yaml",
                                           {"timeline[0].for=8 min", "duration=25 min"});
  const fs::path dir = written(r, "slow");
  std::string error;
  const auto report = analysis::read_run_dir(dir, error);
  REQUIRE(report);
  const std::string html = analysis::run_report_html(*report);
  const auto at = html.find("id=\"checkpoint-4\"");
  REQUIRE(at != std::string::npos);
  const std::string entry = html.substr(at, html.find("</details>", at) - at);
  CHECK(entry.find(" open>") != std::string::npos);
  CHECK(entry.find("acknowledged last") != std::string::npos);  // the critical path first
  CHECK(entry.find("At half the timeout: Sink: Warehouse (") != std::string::npos);
}

TEST_CASE("the configuration table lists what differs from Flink's checkpoint defaults") {
  nlohmann::ordered_json config = {{"mode", "exactly_once"}, {"timeout", 600000},
                                   {"min_pause", 500},      {"max_concurrent", 1},
                                   {"unaligned_checkpoints", true}};
  const auto diffs = analysis::config_differences(config);
  REQUIRE(diffs.size() == 2);
  CHECK(diffs[0].key == "execution.checkpointing.min-pause");
  CHECK(diffs[0].value == "500");
  CHECK(diffs[1].key == "execution.checkpointing.unaligned");
}

TEST_CASE("a comparison report draws each metric against each key with its interval") {
  analysis::Comparison cmp;
  cmp.scenario = "s.yaml";
  cmp.keys = {"execution.checkpointing.timeout", "taskmanager.network.memory.buffers-per-channel"};
  for (const char* timeout : {"1min", "5min", "10min"})
    for (const char* buffers : {"1", "2"}) {
      analysis::SettingSummary s;
      s.values = {timeout, buffers};
      s.runs = 3;
      s.metrics.resize(analysis::kMetricCount);
      s.metrics[static_cast<std::size_t>(analysis::Metric::failovers)] = {3, 1.5, 0.4};
      s.metrics[static_cast<std::size_t>(analysis::Metric::p99_duration)] = {3, 800, 120};
      cmp.settings.push_back(s);
    }
  cmp.best = 2;
  cmp.settings[2].best = true;
  const std::string html = analysis::comparison_report_html(cmp);
  // 6 settings x 2 metrics with values x 2 keys.
  CHECK(count(html, "class=\"ci-point\"") == 24);
  CHECK(count(html, "class=\"ci-whisker\"") == 24);
  CHECK(count(html, "class=\"chart metric\"") == 4);
  CHECK(html.find("class=\"best\"") != std::string::npos);
  CHECK(html.find("1.5 ± 0.4") != std::string::npos);
  CHECK(html.find("<script") == std::string::npos);
}

}  // namespace ckptsim
