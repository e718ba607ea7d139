// Real REST JSON into a RunResult: which endpoint a body is from is read from its fields (the
// schemas of 1.9, 1.12-1.14 and 1.15+ differ; reference/real-rest-json/INDEX.md), then its
// facts are merged into the result the other files built.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>

#include "analysis/import/import.hpp"
#include "analysis/import/numbers.hpp"
#include "sim/model/types.hpp"

namespace ckptsim::analysis {

namespace {

using nlohmann::json;
using run::CheckpointRecord;
using run::CheckpointStatus;

std::int64_t integer(const json& j, const char* key, std::int64_t otherwise = -1) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return otherwise;
  if (it->is_number_float()) {  // a double from a non-Flink writer: clamped, not undefined
    const double d = it->get<double>();
    return d != d ? otherwise : static_cast<std::int64_t>(std::clamp(d, -9.0e15, 9.0e15));
  }
  if (it->is_number_unsigned() && it->get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
    return INT64_MAX;
  return it->get<std::int64_t>();
}

// A boolean field; false when it is missing or holds anything else (a real file may).
bool flag(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

std::string text(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Every epoch-ms timestamp a body carries, to place simulated time 0 when no log does.
void collect_times(const json& j, std::int64_t& earliest) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string& k = it.key();
      if (it->is_number_integer() && (k == "trigger_timestamp" || k == "start-time" ||
                                      k == "restore_timestamp")) {
        const std::int64_t v = it->get<std::int64_t>();
        if (v > 0 && (earliest < 0 || v < earliest)) earliest = v;
      } else {
        collect_times(*it, earliest);
      }
    }
  } else if (j.is_array()) {
    for (const json& e : j) collect_times(e, earliest);
  }
}

CheckpointRecord& checkpoint(run::RunResult& r, std::int64_t id) {
  for (CheckpointRecord& c : r.checkpoints)
    if (c.id == id) return c;
  CheckpointRecord c;
  c.id = id;
  r.checkpoints.push_back(c);
  return r.checkpoints.back();
}

// One CheckpointStatistics entry (history, latest.*, or /checkpoints/details/:id).
void merge_checkpoint(run::RunResult& r, const json& e) {
  const std::int64_t id = integer(e, "id");
  if (id < 0) return;
  CheckpointRecord& c = checkpoint(r, id);
  const auto at = [&](std::int64_t epoch) { return sim_ms(difference(epoch, r.start_epoch_ms)); };
  const std::string status = text(e, "status");
  if (const std::int64_t t = integer(e, "trigger_timestamp"); t > 0) c.trigger_time = at(t);
  if (const std::int64_t t = integer(e, "latest_ack_timestamp"); t > 0) c.latest_ack_time = at(t);
  if (flag(e, "is_savepoint") && !model::is_savepoint(c.type))
    c.type = model::SnapshotType::savepoint;
  const std::string type = text(e, "checkpoint_type");
  if (type == "SYNC_SAVEPOINT") c.type = model::SnapshotType::sync_savepoint;
  c.periodic = !model::is_savepoint(c.type);
  const std::int64_t size = std::max(integer(e, "checkpointed_size"), integer(e, "state_size"));
  if (size >= 0 && c.subtasks.empty()) c.imported_size = size;
  if (status == "COMPLETED") {
    c.status = CheckpointStatus::completed;
    const std::int64_t duration = integer(e, "end_to_end_duration");
    if (duration >= 0 && c.end_time < 0) c.end_time = c.trigger_time + sim_ms(duration);
    if (c.external_path.empty()) c.external_path = text(e, "external_path");
    c.discarded = flag(e, "discarded");
  } else if (status == "FAILED") {
    c.status = CheckpointStatus::failed;
    if (const std::int64_t t = integer(e, "failure_timestamp"); t > 0) c.end_time = at(t);
    const std::string message = text(e, "failure_message");
    if (!message.empty() && c.failure_message.empty()) c.failure_message = message;
    for (int i = 0; i <= static_cast<int>(model::CheckpointFailureReason::trigger_checkpoint_failure); ++i) {
      const auto reason = static_cast<model::CheckpointFailureReason>(i);
      if (!c.failure_reason && message.find(model::message(reason)) != std::string::npos)
        c.failure_reason = reason;
    }
  }
  const int subtasks = static_cast<int>(integer(e, "num_subtasks", 0));
  if (subtasks > 0) c.num_subtasks = subtasks;
  const int acked = static_cast<int>(integer(e, "num_acknowledged_subtasks", 0));
  if (acked > 0) c.num_acknowledged = acked;
}

}  // namespace

// What kind of REST body `j` is, and its facts merged into `r`; "" if it is none ckptsim reads.
std::string merge_rest_json(const json& j, run::RunResult& r) {
  if (r.start_epoch_ms == 0) {
    std::int64_t earliest = -1;
    collect_times(j, earliest);
    if (earliest > 0) r.start_epoch_ms = earliest;
  }
  if (j.is_object() && j.contains("counts") && j.contains("history")) {
    for (const json& e : j["history"]) merge_checkpoint(r, e);
    if (j.contains("latest") && j["latest"].is_object()) {
      for (const char* k : {"completed", "savepoint", "failed"})
        if (j["latest"].contains(k) && j["latest"][k].is_object()) merge_checkpoint(r, j["latest"][k]);
      const json& restored = j["latest"].value("restored", json());
      if (restored.is_object() && integer(restored, "id") >= 0)
        r.latest_restored = run::RestoreRecord{
            integer(restored, "id"),
            sim_ms(difference(integer(restored, "restore_timestamp", r.start_epoch_ms), r.start_epoch_ms)),
            flag(restored, "is_savepoint"), text(restored, "external_path")};
    }
    const json& counts = j["counts"];
    r.counts.restored = integer(counts, "restored", 0);
    r.counts.total = integer(counts, "total", 0);
    r.counts.in_progress = integer(counts, "in_progress", 0);
    r.counts.completed = integer(counts, "completed", 0);
    r.counts.failed = integer(counts, "failed", 0);
    return "/jobs/:jid/checkpoints (" + std::to_string(j["history"].size()) +
           " checkpoints in its history of " + std::to_string(r.counts.total) + ")";
  }
  if (j.is_object() && j.contains("id") && j.contains("status") && j.contains("trigger_timestamp")) {
    merge_checkpoint(r, j);
    return "/jobs/:jid/checkpoints/details/" + std::to_string(integer(j, "id"));
  }
  if (j.is_object() && j.contains("jobs") && j["jobs"].is_array()) {
    for (const json& job : j["jobs"]) {
      if (!job.is_object()) continue;
      const std::string jid = job.contains("jid") ? text(job, "jid") : text(job, "id");
      if (jid.empty() || (!r.job_id.empty() && r.job_id != jid)) continue;
      r.job_id = jid;
      if (r.job_name.empty()) r.job_name = text(job, "name");
      for (int s = 0; s <= static_cast<int>(model::JobStatus::reconciling); ++s) {
        const auto status = static_cast<model::JobStatus>(s);
        const std::string state = job.contains("state") ? text(job, "state") : text(job, "status");
        if (state == model::to_string(status) && r.job_status_changes.empty()) r.final_status = status;
      }
      break;
    }
    return "/jobs/overview";
  }
  if (j.is_object() && j.contains("jid") && j.contains("vertices")) {
    if (r.job_id.empty()) r.job_id = text(j, "jid");
    if (r.job_name.empty()) r.job_name = text(j, "name");
    if (r.vertices.empty())
      for (const json& v : j["vertices"]) {
        run::VertexInfo info;
        info.id = text(v, "id");
        info.name = text(v, "name");
        info.parallelism = static_cast<int>(std::clamp<std::int64_t>(integer(v, "parallelism", 1), 1, 1 << 15));
        r.vertices.push_back(info);
      }
    return "/jobs/:jid (" + std::to_string(j["vertices"].size()) + " vertices)";
  }
  if (j.is_object() && j.contains("mode") && j.contains("interval") && j.contains("timeout")) {
    const std::int64_t interval = integer(j, "interval");
    // Long.MAX_VALUE: checkpointing off.
    if (interval > 0 && interval < (std::int64_t{1} << 62))
      r.flink.checkpointing.interval = sim_ms(interval);
    if (const std::int64_t t = integer(j, "timeout"); t > 0) r.flink.checkpointing.timeout = sim_ms(t);
    if (const std::int64_t p = integer(j, "min_pause"); p >= 0) r.flink.checkpointing.min_pause = sim_ms(p);
    if (const std::int64_t n = integer(j, "max_concurrent"); n > 0) r.flink.checkpointing.max_concurrent = static_cast<int>(n);
    if (const std::int64_t n = integer(j, "tolerable_failed_checkpoints"); n >= 0)
      r.flink.checkpointing.tolerable_failed = static_cast<int>(n);
    r.flink.checkpointing.unaligned = flag(j, "unaligned_checkpoints");
    r.flink.checkpointing.mode = text(j, "mode") == "at_least_once"
                                     ? model::CheckpointingMode::at_least_once
                                     : model::CheckpointingMode::exactly_once;
    // Flink 1.9 has no tolerable_failed_checkpoints field: the value stays unknown.
    return j.contains("tolerable_failed_checkpoints")
               ? "/jobs/:jid/checkpoints/config"
               : "/jobs/:jid/checkpoints/config (no tolerable_failed_checkpoints in it)";
  }
  if (j.is_object() && j.contains("flink-version") && j.contains("taskmanagers")) {
    r.taskmanagers = static_cast<int>(integer(j, "taskmanagers", 1));
    r.slots_total = static_cast<int>(integer(j, "slots-total", 1));
    return "/overview (Flink " + text(j, "flink-version") + ")";
  }
  return "";
}

}  // namespace ckptsim::analysis
