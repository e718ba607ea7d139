// The HTML report: one self-contained file (inline CSS and SVG charts, no script, no network)
// showing a run's checkpoints, back-pressure and queues, or a sweep's metrics per setting.
// A run report reads an output directory as `ckptsim run --out` writes it, so it also works on
// directories written before the report existed; it knows nothing about the model.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/sweep.hpp"

namespace ckptsim::analysis {

// One subtask's statistics for one checkpoint (rest/.../details/<id>/subtasks/<vertex>.json),
// durations in milliseconds.
struct ReportSubtask {
  int index = 0;
  bool acknowledged = false;
  std::int64_t ack_ms = -1;  // ack time, ms since the run started
  std::int64_t start_delay_ms = 0;
  std::int64_t alignment_ms = 0;
  std::int64_t sync_ms = 0;
  std::int64_t async_ms = 0;
  bool unaligned = false;
};

struct ReportCheckpoint {
  std::int64_t id = 0;
  std::string status;           // COMPLETED, FAILED, IN_PROGRESS
  std::string type;             // CHECKPOINT, SAVEPOINT, ...
  std::int64_t trigger_ms = 0;  // ms since the run started
  std::int64_t end_ms = -1;     // completion or failure; -1 still in progress
  int num_subtasks = 0;
  int num_acknowledged = 0;
  std::string failure_message;
  std::vector<std::vector<ReportSubtask>> subtasks;  // [vertex][subtask]; empty: no file
  std::vector<std::string> explanations;             // why it waited (summary.json diagnosis)
};

struct ReportVertex {
  std::string id;
  std::string name;
  int parallelism = 1;
};

struct ReportSample {  // one row of timeseries.csv
  std::int64_t end_ms = 0;
  int vertex = 0;
  int subtask = 0;
  double busy = 0, back_pressured = 0, idle = 0;  // ms per second
  int input_buffers = 0, output_buffers = 0;
};

struct ReportStatusChange {
  std::int64_t time_ms = 0;
  std::string from, to;
};

struct ReportRun {
  nlohmann::ordered_json summary;  // summary.json
  nlohmann::ordered_json config;   // rest/jobs/<jid>/checkpoints/config.json (may be null)
  std::string job_id, job_name;
  std::int64_t start_epoch_ms = 0;
  std::int64_t end_ms = 0;  // simulated time of the run
  std::vector<ReportVertex> vertices;
  std::vector<ReportCheckpoint> checkpoints;  // the latest submission's, in id order
  std::vector<ReportStatusChange> status_changes;
  std::vector<ReportSample> samples;  // ordered by (end, vertex, subtask)
  std::vector<std::string> notes;     // what the directory lacked, shown in the report
};

// Reads a run's output directory. summary.json is required; the rest/ tree, timeseries.csv,
// job.json and jobmanager.log are used when present (their absence is noted). nullopt and
// `error` when the directory is not a run's output; never throws.
std::optional<ReportRun> read_run_dir(const std::filesystem::path& dir, std::string& error);

// The report of one run as a complete HTML document.
std::string run_report_html(const ReportRun& run);

// The report of a sweep or a comparison: each metric against each varied setting, mean and
// 95 % confidence interval, and the comparison table.
std::string comparison_report_html(const Comparison& comparison);

// Flink's defaults of the checkpoint configuration the REST config.json shows, as (Flink key,
// value in the file, default) for those that differ (CheckpointingOptions,
// ExecutionCheckpointingOptions, StateBackendOptions).
struct ConfigDifference {
  std::string key, value, flink_default;
};
std::vector<ConfigDifference> config_differences(const nlohmann::ordered_json& config);

}  // namespace ckptsim::analysis
