// The views of a finished run that a Flink user knows: the JobManager log, the REST JSON bodies of
// the checkpoint, overview and job-list endpoints, and ckptsim's own summary. Reads only the plain
// RunResult; knows nothing about the model or the scenario file.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/run/result.hpp"

namespace ckptsim::run {

// The whole jobmanager.log text, laid out with Flink's log4j2 pattern
// `%d{yyyy-MM-dd HH:mm:ss,SSS} %-5p %-60c %x - %m%n`, throwable lines under their record.
std::string format_flink_log(const RunResult& result);

// One log line without its trailing newline or throwable (exposed for tests).
std::string format_log_line(const RunResult& result, const LogRecord& record);

// "yyyy-MM-dd HH:mm:ss,SSS" in UTC for epoch milliseconds.
std::string format_log_timestamp(std::int64_t epoch_ms);

// REST bodies, field order as Flink's Jackson serializers write them (reference/flink-rest.md).
nlohmann::ordered_json rest_overview(const RunResult& result);       // GET /overview
nlohmann::ordered_json rest_jobs_overview(const RunResult& result);  // GET /jobs/overview
nlohmann::ordered_json rest_checkpoints(const RunResult& result);    // GET /jobs/:jid/checkpoints
nlohmann::ordered_json rest_checkpoint_config(const RunResult& result);  // .../checkpoints/config
nlohmann::ordered_json rest_checkpoint_details(const RunResult& result,
                                               const CheckpointRecord& checkpoint);
nlohmann::ordered_json rest_checkpoint_subtasks(const RunResult& result,
                                                const CheckpointRecord& checkpoint, int vertex);

// One sentence on what an unacknowledged subtask was waiting for when its checkpoint expired.
std::string describe_wait(const RunResult& result, const WaitRecord& wait);
// One sentence for a connector's event (CDC snapshot phases, Doris load failures).
std::string describe_connector_event(const RunResult& r, const ConnectorRecord& e);

// timeseries.csv: one row per subtask and sample period, ms per second as Flink's
// busyTimeMsPerSecond / backPressuredTimeMsPerSecond / idleTimeMsPerSecond define them.
std::string timeseries_csv(const RunResult& result);

// ckptsim's own summary of a run; its keys are stable.
nlohmann::ordered_json summary_json(const RunResult& result);

// job.json: what a report needs beside the REST files: the wall clock of simulated time 0, the
// vertices (id, name, parallelism) and every job status change of the run (all submissions).
nlohmann::ordered_json job_json(const RunResult& result);

// The synthetic "flink-commit" of /overview for a version (not the real release commit).
const char* synthetic_flink_commit(model::FlinkVersion version);

// A JSON file body: 2-space indent, trailing newline, UTF-8 errors replaced (never throws on text).
std::string json_file_text(const nlohmann::ordered_json& body);

// Writes DIR/jobmanager.log, DIR/summary.json, DIR/timeseries.csv, DIR/job.json and DIR/rest/,
// one file per REST URL (the body of GET <URL>), a URL's file named <last segment>.json beside
// the directory of its sub-resources (as checkpoints.json sits beside checkpoints/):
//   /overview                                     rest/overview.json
//   /config                                       rest/config.json
//   /taskmanagers                                 rest/taskmanagers.json
//   /jobmanager/config                            rest/jobmanager/config.json
//   /jobs                                         rest/jobs.json
//   /jobs/overview                                rest/jobs/overview.json
//   /jobs/:jid                                    rest/jobs/<jid>.json
//   /jobs/:jid/plan, /config                      rest/jobs/<jid>/plan.json, config.json
//   /jobs/:jid/exceptions (maxExceptions 20)      rest/jobs/<jid>/exceptions.json
//   /jobs/:jid/vertices/:vid                      rest/jobs/<jid>/vertices/<vid>.json
//   /jobs/:jid/vertices/:vid/backpressure         rest/jobs/<jid>/vertices/<vid>/backpressure.json
//   /jobs/:jid/vertices/:vid/watermarks           rest/jobs/<jid>/vertices/<vid>/watermarks.json
//   /jobs/:jid/checkpoints                        rest/jobs/<jid>/checkpoints.json
//   /jobs/:jid/checkpoints/config                 rest/jobs/<jid>/checkpoints/config.json
//   /jobs/:jid/checkpoints/details/:id            rest/jobs/<jid>/checkpoints/details/<id>.json
//   /jobs/:jid/checkpoints/details/:id/subtasks/:vid
//                                   rest/jobs/<jid>/checkpoints/details/<id>/subtasks/<vid>.json
// (every vertex, every checkpoint of the run). The directory is replaced whole: the files are
// written into a temporary directory beside it, which is then renamed into place, so nothing of
// an earlier run stays (issue 18 item 6). A directory that exists and holds no ckptsim run is
// refused, and leftovers of a killed writer are removed. On I/O failure returns false and, if
// `error` is set, a message naming the file, and leaves no temporary behind; never throws.
bool write_outputs(const RunResult& result, const std::filesystem::path& dir, std::string* error);

}  // namespace ckptsim::run
