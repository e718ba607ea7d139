#include "sim/run/result_at.hpp"

#include <algorithm>

namespace ckptsim::run {
namespace {

template <class T, class Time>
void keep_until(std::vector<T>& items, SimTime t, Time time_of) {
  items.erase(
      std::remove_if(items.begin(), items.end(), [&](const T& item) { return time_of(item) > t; }),
      items.end());
}

// A checkpoint as it stood at t (it was triggered by then).
void cut_checkpoint(CheckpointRecord& c, SimTime t) {
  if (c.end_time <= t) return;
  c.status = CheckpointStatus::in_progress;
  c.end_time = -1;
  c.failure_reason.reset();
  c.failure_message.clear();
  c.external_path.clear();
  c.discarded = false;
  c.waits.clear();
  c.slow_waits.clear();
  c.slow_probe_time = -1;
  c.num_acknowledged = 0;
  c.latest_ack_time = -1;
  for (auto& vertex : c.subtasks)
    for (SubtaskStats& s : vertex) {
      if (s.acknowledged && s.ack_time > t) s = SubtaskStats{};
      c.num_acknowledged += s.acknowledged;
      if (s.acknowledged) c.latest_ack_time = std::max(c.latest_ack_time, s.ack_time);
    }
}

void cut_checkpoints(std::vector<CheckpointRecord>& checkpoints, SimTime t) {
  keep_until(checkpoints, t, [](const CheckpointRecord& c) { return c.trigger_time; });
  for (CheckpointRecord& c : checkpoints) cut_checkpoint(c, t);
}

}  // namespace

RunResult result_at(const RunResult& full, SimTime t) {
  if (t >= full.end_time) return full;
  RunResult r = full;
  r.end_time = t;
  cut_checkpoints(r.checkpoints, t);
  cut_checkpoints(r.earlier_checkpoints, t);
  keep_until(r.failures_without_checkpoint, t, [](SimTime at) { return at; });
  keep_until(r.restores, t, [](const RestoreRecord& restore) { return restore.time; });
  r.counts = CheckpointCounts{};
  r.counts.restored = static_cast<std::int64_t>(r.restores.size());
  r.counts.total = r.counts.failed =
      static_cast<std::int64_t>(r.failures_without_checkpoint.size());
  for (const CheckpointRecord& c : r.checkpoints) {
    ++r.counts.total;
    r.counts.completed += c.status == CheckpointStatus::completed;
    r.counts.failed += c.status == CheckpointStatus::failed;
    r.counts.in_progress += c.status == CheckpointStatus::in_progress;
  }
  // An imported result knows only the latest restore (REST's latest.restored).
  if (!r.restores.empty())
    r.latest_restored.emplace(r.restores.back());
  else if (r.latest_restored && r.latest_restored->time > t)
    r.latest_restored.reset();
  keep_until(r.job_status_changes, t, [](const JobStatusChange& c) { return c.time; });
  if (!r.job_status_changes.empty()) r.final_status = r.job_status_changes.back().to;
  r.failovers = 0;
  r.restarts = 0;
  for (const JobStatusChange& c : r.job_status_changes) {
    r.failovers += c.from == model::JobStatus::running && c.to == model::JobStatus::restarting;
    r.restarts += c.from == model::JobStatus::restarting;
  }
  keep_until(r.log, t, [](const LogRecord& l) { return l.time; });
  keep_until(r.timeseries, t, [](const TaskSampleRow& row) { return row.end; });
  keep_until(r.connector_events, t, [](const ConnectorRecord& e) { return e.time; });
  keep_until(r.task_failures, t, [](const RunResult::TaskFailure& f) { return f.time; });
  keep_until(r.global_failures, t, [](const RunResult::GlobalFailure& g) { return g.time; });
  return r;
}

}  // namespace ckptsim::run
