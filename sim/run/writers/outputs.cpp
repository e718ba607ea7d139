// ckptsim's summary.json and the writing of a run's output directory: jobmanager.log, summary.json
// and the rest/ tree laid out like the REST URLs it mirrors.
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <system_error>
#include <utility>

#include "sim/run/stale_files.hpp"
#include "sim/run/writers/rest_job.hpp"
#include "sim/run/writers/writers.hpp"

namespace ckptsim::run {

using nlohmann::ordered_json;

ordered_json summary_json(const RunResult& r) {
  // Failed checkpoints by reason, in CheckpointFailureReason declaration order.
  std::map<int, std::int64_t> by_reason;
  for (const CheckpointRecord& c : r.checkpoints) {
    if (c.status == CheckpointStatus::failed && c.failure_reason) {
      by_reason[static_cast<int>(*c.failure_reason)] += 1;
    }
  }
  ordered_json reasons = ordered_json::object();
  for (const auto& [reason, count] : by_reason) {
    reasons[model::name(static_cast<model::CheckpointFailureReason>(reason))] = count;
  }

  ordered_json checkpoints;
  checkpoints["total"] = r.counts.total;
  checkpoints["completed"] = r.counts.completed;
  checkpoints["failed"] = r.counts.failed;
  checkpoints["in_progress"] = r.counts.in_progress;
  checkpoints["by_failure_reason"] = std::move(reasons);

  ordered_json out;
  out["scenario"] = r.scenario_name;
  out["job_id"] = r.job_id;
  out["flink_version"] = model::to_string(r.flink_version);
  out["seed"] = r.seed;
  out["simulated_time_ms"] = core::to_millis(r.end_time);
  // Only when it happened, so complete runs keep their bytes.
  if (r.stopped_early) out["stopped_early"] = true;
  out["final_status"] = model::to_string(r.final_status);
  out["checkpoints"] = std::move(checkpoints);
  out["failovers"] = r.failovers;
  out["restarts"] = r.restarts;
  out["replayed_records"] = r.replayed_records;
  out["lost_records"] = r.lost_records;
  out["restores"] = r.counts.restored;
  // Milliseconds to the microsecond, so the file reads as the story does.
  const auto ms = [](double v) { return std::round(v * 1000) / 1000; };
  ordered_json latency;
  latency["records"] = r.end_to_end_latency.records;
  latency["mean"] = ms(r.end_to_end_latency.mean_ms);
  latency["p50"] = ms(r.end_to_end_latency.p50_ms);
  latency["p99"] = ms(r.end_to_end_latency.p99_ms);
  out["end_to_end_latency_ms"] = std::move(latency);
  out["events"] = r.events_executed;
  // Why each expired checkpoint waited: the subtasks that had not acknowledged it.
  ordered_json diagnosis = ordered_json::array();
  for (const auto* list : {&r.earlier_checkpoints, &r.checkpoints}) {
    for (const CheckpointRecord& c : *list) {
      if (c.waits.empty()) continue;
      ordered_json entry;
      entry["checkpoint"] = c.id;
      entry["failure_reason"] = c.failure_reason ? model::name(*c.failure_reason) : "";
      ordered_json waits = ordered_json::array();
      for (const WaitRecord& w : c.waits) {
        ordered_json item;
        item["vertex"] = r.vertices[static_cast<std::size_t>(w.vertex)].name;
        item["subtask"] = w.subtask;
        item["waiting_for"] = w.kind;
        item["bytes_ahead"] = w.bytes_ahead;
        item["back_pressured"] = w.back_pressured;
        item["explanation"] = describe_wait(r, w);
        waits.push_back(std::move(item));
      }
      entry["unacknowledged"] = std::move(waits);
      diagnosis.push_back(std::move(entry));
    }
  }
  out["diagnosis"] = std::move(diagnosis);
  // Completed checkpoints still pending at half their timeout, by their slowest subtask; only
  // when there are some, so other runs keep their bytes.
  ordered_json slow = ordered_json::array();
  for (const auto* list : {&r.earlier_checkpoints, &r.checkpoints})
    for (const CheckpointRecord& c : *list) {
      if (c.status != CheckpointStatus::completed || c.slow_waits.empty()) continue;
      const WaitRecord& w = c.slow_waits.front();
      ordered_json item;
      item["checkpoint"] = c.id;
      item["duration_ms"] = core::to_millis(c.end_time - c.trigger_time);
      item["probed_at_ms"] = core::to_millis(c.slow_probe_time);
      item["vertex"] = r.vertices[static_cast<std::size_t>(w.vertex)].name;
      item["subtask"] = w.subtask;
      item["waiting_for"] = w.kind;
      item["explanation"] = describe_wait(r, w);
      slow.push_back(std::move(item));
    }
  if (!slow.empty()) out["slow_checkpoints"] = std::move(slow);
  ordered_json failures = ordered_json::array();
  for (const RunResult::TaskFailure& f : r.task_failures) {
    ordered_json item;
    item["time_ms"] = core::to_millis(f.time);
    item["vertex"] = r.vertices[static_cast<std::size_t>(f.vertex)].name;
    item["subtask"] = f.subtask;
    item["exception"] = f.exception_class + ": " + f.message;
    failures.push_back(std::move(item));
  }
  out["task_failures"] = std::move(failures);
  ordered_json connectors = ordered_json::array();
  for (const ConnectorRecord& e : r.connector_events) {
    ordered_json item;
    item["time_ms"] = core::to_millis(e.time);
    item["event"] = describe_connector_event(r, e);
    connectors.push_back(std::move(item));
  }
  out["connector_events"] = std::move(connectors);
  return out;
}

ordered_json job_json(const RunResult& r) {
  ordered_json out;
  out["job_id"] = r.job_id;
  out["job_name"] = r.job_name;
  out["start_epoch_ms"] = r.start_epoch_ms;
  out["simulated_time_ms"] = core::to_millis(r.end_time);
  // Only when it happened, so complete runs keep their bytes.
  if (r.stopped_early) out["stopped_early"] = true;
  out["submissions"] = r.submissions;
  ordered_json vertices = ordered_json::array();
  for (const VertexInfo& v : r.vertices) {
    ordered_json item;
    item["id"] = v.id;
    item["name"] = v.name;
    item["parallelism"] = v.parallelism;
    vertices.push_back(std::move(item));
  }
  out["vertices"] = std::move(vertices);
  ordered_json changes = ordered_json::array();
  for (const JobStatusChange& c : r.job_status_changes) {
    ordered_json item;
    item["time_ms"] = core::to_millis(c.time);
    item["from"] = model::to_string(c.from);
    item["to"] = model::to_string(c.to);
    changes.push_back(std::move(item));
  }
  out["job_status_changes"] = std::move(changes);
  return out;
}

std::string json_file_text(const ordered_json& body) {
  std::string text = body.dump(2, ' ', false, ordered_json::error_handler_t::replace);
  text += '\n';
  return text;
}

namespace {

namespace fs = std::filesystem;

bool write_file(const fs::path& path, const std::string& text, std::string* error) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) {
    if (error) *error = path.parent_path().string() + ": cannot create directory: " + ec.message();
    return false;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    if (error) *error = path.string() + ": cannot open for writing";
    return false;
  }
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) {
    if (error) *error = path.string() + ": write failed";
    return false;
  }
  return true;
}

// The cluster, job and vertex endpoints besides the checkpoint ones (writers.hpp has the layout).
bool write_rest_job(const RunResult& r, const fs::path& rest, std::string* error) {
  const fs::path job = rest / "jobs" / r.job_id;
  const std::pair<fs::path, ordered_json> bodies[] = {
      {rest / "config.json", rest_dashboard_config(r)},
      {rest / "taskmanagers.json", rest_taskmanagers(r)},
      {rest / "jobmanager" / "config.json", rest_jobmanager_config(r)},
      {rest / "jobs.json", rest_jobs(r)},
      {rest / "jobs" / (r.job_id + ".json"), rest_job_details(r)},
      {job / "plan.json", rest_job_plan(r)},
      {job / "config.json", rest_job_config(r)},
      {job / "exceptions.json", rest_job_exceptions(r)},
  };
  for (const auto& [path, body] : bodies) {
    if (!write_file(path, json_file_text(body), error)) return false;
  }
  for (std::size_t v = 0; v < r.vertices.size(); ++v) {
    const int index = static_cast<int>(v);
    const fs::path vertex = job / "vertices" / r.vertices[v].id;
    if (!write_file(vertex.string() + ".json", json_file_text(rest_vertex_details(r, index)),
                    error) ||
        !write_file(vertex / "backpressure.json",
                    json_file_text(rest_vertex_backpressure(r, index)), error) ||
        !write_file(vertex / "watermarks.json", json_file_text(rest_vertex_watermarks(r, index)),
                    error)) {
      return false;
    }
  }
  return true;
}

bool write_all(const RunResult& r, const fs::path& dir, std::string* error) {
  // Written one by one: a long run has thousands of detail files.
  if (!write_file(dir / "jobmanager.log", format_flink_log(r), error)) return false;
  if (!write_file(dir / "summary.json", json_file_text(summary_json(r)), error)) return false;
  if (!write_file(dir / "timeseries.csv", timeseries_csv(r), error)) return false;
  if (!write_file(dir / "job.json", json_file_text(job_json(r)), error)) return false;
  const fs::path rest = dir / "rest";
  const fs::path job = rest / "jobs" / r.job_id;
  if (!write_file(rest / "overview.json", json_file_text(rest_overview(r)), error) ||
      !write_file(rest / "jobs" / "overview.json", json_file_text(rest_jobs_overview(r)), error) ||
      !write_file(job / "checkpoints.json", json_file_text(rest_checkpoints(r)), error) ||
      !write_file(job / "checkpoints" / "config.json", json_file_text(rest_checkpoint_config(r)),
                  error)) {
    return false;
  }
  if (!write_rest_job(r, rest, error)) return false;
  // Every checkpoint of the run: besides the history ring, Flink's REST handlers keep the
  // statistics they served in CheckpointStatsCache (rest.cache.checkpoint-statistics.size 1000).
  const fs::path details = job / "checkpoints" / "details";
  for (const CheckpointRecord& c : r.checkpoints) {
    const std::string id = std::to_string(c.id);
    if (!write_file(details / (id + ".json"), json_file_text(rest_checkpoint_details(r, c)),
                    error)) {
      return false;
    }
    for (std::size_t v = 0; v < r.vertices.size(); ++v) {
      const fs::path path = details / id / "subtasks" / (r.vertices[v].id + ".json");
      if (!write_file(path, json_file_text(rest_checkpoint_subtasks(r, c, static_cast<int>(v))),
                      error)) {
        return false;
      }
    }
  }
  return true;
}

bool holds_a_run(const fs::path& dir) {
  std::error_code ec;
  return fs::is_empty(dir, ec) || fs::exists(dir / "summary.json", ec) ||
         fs::exists(dir / "jobmanager.log", ec);
}

bool replace_with(const fs::path& dir, const RunResult& result, std::string* error) {
  const fs::path target = fs::absolute(dir).lexically_normal();
  const fs::path parent = target.has_filename() ? target.parent_path()
                                                : target.parent_path().parent_path();
  const std::string name = (target.has_filename() ? target : target.parent_path()).filename();
  std::error_code ec;
  if (name.empty() || name == "." || name == ".." || parent == target) {
    if (error) *error = dir.string() + ": give a directory of its own for the outputs";
    return false;
  }
  const fs::path final_dir = parent / name;
  if (fs::exists(final_dir, ec) && (!fs::is_directory(final_dir, ec) || !holds_a_run(final_dir))) {
    if (error)
      *error = dir.string() +
               " exists and holds no ckptsim run (no summary.json); ckptsim replaces its output "
               "directory whole, so give a new or empty directory";
    return false;
  }
  fs::create_directories(parent, ec);
  const std::string pid = std::to_string(::getpid());
  const std::string temp_prefix = "." + name + ".ckptsim-tmp-";
  const std::string old_prefix = "." + name + ".ckptsim-old-";
  remove_stale_files(parent, temp_prefix);
  remove_stale_files(parent, old_prefix);
  const fs::path temp = parent / (temp_prefix + pid);
  fs::remove_all(temp, ec);
  bool ok = false;
  try {
    ok = write_all(result, temp, error);
  } catch (const std::exception& e) {
    if (error) *error = dir.string() + ": " + e.what();
  }
  if (!ok) {  // a full disk, say: leave nothing behind
    fs::remove_all(temp, ec);
    return false;
  }
  // Written whole beside the target, then swapped in: a reader never sees a mix of two runs.
  const fs::path old = parent / (old_prefix + pid);
  const bool had_old = fs::exists(final_dir, ec);
  if (had_old) fs::rename(final_dir, old, ec);
  if (!ec) fs::rename(temp, final_dir, ec);
  if (ec) {
    if (error) *error = final_dir.string() + ": cannot move the new outputs in: " + ec.message();
    std::error_code ignored;
    if (had_old && !fs::exists(final_dir, ignored)) fs::rename(old, final_dir, ignored);
    fs::remove_all(temp, ignored);
    return false;
  }
  if (had_old) fs::remove_all(old, ec);
  return true;
}

}  // namespace

bool write_outputs(const RunResult& result, const std::filesystem::path& dir, std::string* error) {
  try {
    return replace_with(dir, result, error);
  } catch (const std::exception& e) {
    if (error) *error = dir.string() + ": " + e.what();
    return false;
  }
}

}  // namespace ckptsim::run
