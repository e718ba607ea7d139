// REST bodies of a finished run, built the way Flink's handlers build them
// (CheckpointingStatisticsHandler, CheckpointStatisticDetailsHandler,
// TaskCheckpointStatisticDetailsHandler, CheckpointConfigHandler, ClusterOverviewHandler,
// JobsOverviewHandler). Field order follows Jackson: the type id ("className") first, then the
// @JsonCreator parameters in order (MapperFeature.SORT_CREATOR_PROPERTIES_FIRST), then the other
// properties; java.util.HashMap-backed maps in HashMap iteration order. See
// reference/flink-rest.md.
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "sim/run/writers/flink_stats.hpp"
#include "sim/run/writers/writers.hpp"

namespace ckptsim::run {

using nlohmann::ordered_json;

namespace {

// Flink's placeholder for a completed checkpoint without an external pointer
// (CompletedCheckpointStats / EXTERNAL_POINTER_NOT_EXTERNALIZED in the archived JSON).
constexpr const char* kNotExternallyAddressable = "<checkpoint-not-externally-addressable>";

std::int64_t ms(const RunResult& r, SimTime t) {
  return epoch_ms(r, t);
}

// The subtask stats of one vertex; a checkpoint that recorded none counts as all unacknowledged.
std::vector<SubtaskStats> vertex_subtasks(const RunResult& r, const CheckpointRecord& c, int v) {
  const auto index = static_cast<std::size_t>(v);
  if (index < c.subtasks.size()) return c.subtasks[index];
  const int parallelism = index < r.vertices.size() ? r.vertices[index].parallelism : 0;
  return std::vector<SubtaskStats>(static_cast<std::size_t>(std::max(parallelism, 0)));
}

// Sums over acknowledged subtasks (PendingCheckpointStats.reportSubtaskStats / TaskStateStats).
struct Totals {
  std::int64_t latest_ack_ms = -1;
  std::int64_t checkpointed_size = 0;
  std::int64_t state_size = 0;
  std::int64_t processed = 0;
  std::int64_t persisted = 0;
  int num_subtasks = 0;
  int num_acknowledged = 0;
  bool unaligned = false;
};

void accumulate(const RunResult& r, const std::vector<SubtaskStats>& subtasks, Totals& t) {
  for (const SubtaskStats& s : subtasks) {
    ++t.num_subtasks;
    if (!s.acknowledged && !s.aborted) continue;
    // A late report (aborted) adds its sizes but is no acknowledgement.
    if (s.acknowledged) {
      ++t.num_acknowledged;
      if (s.ack_time >= 0) t.latest_ack_ms = std::max(t.latest_ack_ms, ms(r, s.ack_time));
    }
    t.checkpointed_size += s.checkpointed_size;
    t.state_size += s.state_size;
    t.processed += s.processed_bytes;
    t.persisted += s.persisted_bytes;
    t.unaligned = t.unaligned || s.unaligned;
  }
}

Totals checkpoint_totals(const RunResult& r, const CheckpointRecord& c) {
  Totals t;
  const std::size_t vertices = std::max(r.vertices.size(), c.subtasks.size());
  for (std::size_t v = 0; v < vertices; ++v) {
    accumulate(r, vertex_subtasks(r, c, static_cast<int>(v)), t);
  }
  // The Recorder's latest acknowledgement wins over the one derived from the subtasks.
  if (c.latest_ack_time >= 0) t.latest_ack_ms = ms(r, c.latest_ack_time);
  // A real job's checkpoint, imported from its log: the size the log gave, no subtask stats.
  if (c.imported_size >= 0 && c.subtasks.empty()) {
    t.checkpointed_size = c.imported_size;
    t.state_size = c.imported_size;
  }
  return t;
}

Totals vertex_totals(const RunResult& r, const CheckpointRecord& c, int v) {
  Totals t;
  accumulate(r, vertex_subtasks(r, c, v), t);
  return t;
}

const char* status_name(CheckpointStatus s) {
  switch (s) {
    case CheckpointStatus::in_progress:
      return "IN_PROGRESS";
    case CheckpointStatus::completed:
      return "COMPLETED";
    case CheckpointStatus::failed:
      return "FAILED";
  }
  return "IN_PROGRESS";
}

const char* class_name(CheckpointStatus s) {
  switch (s) {
    case CheckpointStatus::in_progress:
      return "in_progress";
    case CheckpointStatus::completed:
      return "completed";
    case CheckpointStatus::failed:
      return "failed";
  }
  return "in_progress";
}

// RestAPICheckpointType.valueOf(SnapshotType, isUnalignedCheckpoint). Release-1.15's
// RestAPICheckpointType has no UNALIGNED_CHECKPOINT (valueOf(SnapshotType) ignores it): 1.16+.
const char* rest_checkpoint_type(model::SnapshotType type, bool unaligned,
                                 model::FlinkVersion version) {
  switch (type) {
    case model::SnapshotType::savepoint:
      return "SAVEPOINT";
    case model::SnapshotType::sync_savepoint:
      return "SYNC_SAVEPOINT";
    case model::SnapshotType::checkpoint:
    case model::SnapshotType::full_checkpoint:
      break;
  }
  return unaligned && version >= model::FlinkVersion::v1_16 ? "UNALIGNED_CHECKPOINT"
                                                            : "CHECKPOINT";
}

// AbstractCheckpointStats.getEndToEndDuration for each kind of stats object.
std::int64_t end_to_end_duration(const RunResult& r, const CheckpointRecord& c, const Totals& t) {
  const std::int64_t trigger = ms(r, c.trigger_time);
  switch (c.status) {
    case CheckpointStatus::failed:
      return std::max<std::int64_t>(0, (c.end_time >= 0 ? ms(r, c.end_time) : trigger) - trigger);
    case CheckpointStatus::completed:
      if (t.latest_ack_ms >= 0) return std::max<std::int64_t>(0, t.latest_ack_ms - trigger);
      // A job without subtasks completes with no acknowledgement at all.
      return std::max<std::int64_t>(0, (c.end_time >= 0 ? ms(r, c.end_time) : trigger) - trigger);
    case CheckpointStatus::in_progress:
      break;
  }
  return t.latest_ack_ms >= 0 ? std::max<std::int64_t>(0, t.latest_ack_ms - trigger) : -1;
}

// TaskCheckpointStatistics fields, shared by the `tasks` map and the subtasks endpoint.
void task_statistics_fields(const RunResult& r, const CheckpointRecord& c, const Totals& t,
                            ordered_json& out) {
  const std::int64_t trigger = ms(r, c.trigger_time);
  out["id"] = c.id;
  out["status"] = status_name(c.status);
  out["latest_ack_timestamp"] = t.latest_ack_ms;
  out["checkpointed_size"] = t.checkpointed_size;
  out["state_size"] = t.state_size;
  out["end_to_end_duration"] = t.latest_ack_ms >= 0
                                   ? std::max<std::int64_t>(0, t.latest_ack_ms - trigger)
                                   : std::int64_t{-1};
  out["alignment_buffered"] = std::int64_t{0};
  out["processed_data"] = t.processed;
  out["persisted_data"] = t.persisted;
  out["num_subtasks"] = t.num_subtasks;
  out["num_acknowledged_subtasks"] = t.num_acknowledged;
}

// `tasks`: HashMap<JobVertexID, TaskCheckpointStatistics>(taskStateStats.size()), keyed by the
// vertex id and iterated in HashMap order.
ordered_json tasks_map(const RunResult& r, const CheckpointRecord& c) {
  ordered_json tasks = ordered_json::object();
  std::vector<std::int32_t> hashes;
  for (const VertexInfo& v : r.vertices) hashes.push_back(java_abstract_id_hash(v.id));
  for (std::size_t i : java_hashmap_order(hashes, r.vertices.size())) {
    ordered_json task;
    task_statistics_fields(r, c, vertex_totals(r, c, static_cast<int>(i)), task);
    tasks[r.vertices[i].id] = std::move(task);
  }
  return tasks;
}

// CheckpointStatistics.generateCheckpointStatistics(stats, includeTaskCheckpointStatistics).
ordered_json checkpoint_statistics(const RunResult& r, const CheckpointRecord& c,
                                   bool include_tasks) {
  const Totals t = checkpoint_totals(r, c);
  const bool savepoint = model::is_savepoint(c.type);
  ordered_json out;
  out["className"] = class_name(c.status);
  out["id"] = c.id;
  out["status"] = status_name(c.status);
  out["is_savepoint"] = savepoint;
  // savepointFormat came with 1.17: CheckpointStatistics on release-1.15/-1.16 has none.
  if (r.flink_version >= model::FlinkVersion::v1_17)
    out["savepointFormat"] = savepoint ? ordered_json("CANONICAL") : ordered_json(nullptr);
  out["trigger_timestamp"] = ms(r, c.trigger_time);
  out["latest_ack_timestamp"] = t.latest_ack_ms;
  out["checkpointed_size"] = t.checkpointed_size;
  out["state_size"] = t.state_size;
  out["end_to_end_duration"] = end_to_end_duration(r, c, t);
  out["alignment_buffered"] = std::int64_t{0};
  out["processed_data"] = t.processed;
  out["persisted_data"] = t.persisted;
  out["num_subtasks"] = c.num_subtasks;
  out["num_acknowledged_subtasks"] = c.num_acknowledged;
  out["checkpoint_type"] = rest_checkpoint_type(c.type, t.unaligned, r.flink_version);
  out["tasks"] = include_tasks ? tasks_map(r, c) : ordered_json::object();
  switch (c.status) {
    case CheckpointStatus::completed:
      out["external_path"] = c.external_path.empty() ? kNotExternallyAddressable : c.external_path;
      out["discarded"] = c.discarded;
      break;
    case CheckpointStatus::failed: {
      out["failure_timestamp"] = ms(r, c.end_time >= 0 ? c.end_time : c.trigger_time);
      // FailedCheckpointStats: cause == null ? null : cause.getMessage().
      if (!c.failure_message.empty()) {
        out["failure_message"] = c.failure_message;
      } else if (c.failure_reason) {
        out["failure_message"] = model::message(*c.failure_reason);
      } else {
        out["failure_message"] = nullptr;
      }
      break;
    }
    case CheckpointStatus::in_progress:
      break;
  }
  return out;
}

// The newest by checkpoint id, as CheckpointStatsHistory keeps latestCompleted / latestSavepoint /
// latestFailed.
const CheckpointRecord* newest(const RunResult& r, CheckpointStatus status,
                               std::optional<bool> savepoint) {
  const CheckpointRecord* best = nullptr;
  for (const CheckpointRecord& c : r.checkpoints) {
    if (c.status != status) continue;
    if (savepoint && model::is_savepoint(c.type) != *savepoint) continue;
    if (best == nullptr || c.id > best->id) best = &c;
  }
  return best;
}

ordered_json or_null(const RunResult& r, const CheckpointRecord* c) {
  return c == nullptr ? ordered_json(nullptr) : checkpoint_statistics(r, *c, false);
}

// CompletedCheckpointStatsSummary over every completed checkpoint and savepoint, fed in the order
// they completed; percentiles from a 10 000-value sliding window.
ordered_json checkpoint_summary(const RunResult& r) {
  std::vector<const CheckpointRecord*> completed;
  for (const CheckpointRecord& c : r.checkpoints) {
    if (c.status == CheckpointStatus::completed) completed.push_back(&c);
  }
  std::stable_sort(completed.begin(), completed.end(),
                   [](const CheckpointRecord* a, const CheckpointRecord* b) {
                     return a->end_time < b->end_time;
                   });
  StatsSummary checkpointed(kSummaryHistogramWindow);
  StatsSummary state(kSummaryHistogramWindow);
  StatsSummary duration(kSummaryHistogramWindow);
  StatsSummary processed(kSummaryHistogramWindow);
  StatsSummary persisted(kSummaryHistogramWindow);
  for (const CheckpointRecord* c : completed) {
    const Totals t = checkpoint_totals(r, *c);
    checkpointed.add(t.checkpointed_size);
    state.add(t.state_size);
    duration.add(end_to_end_duration(r, *c, t));
    processed.add(t.processed);
    persisted.add(t.persisted);
  }
  ordered_json summary;
  summary["checkpointed_size"] = stats_summary_dto(checkpointed);
  summary["state_size"] = stats_summary_dto(state);
  summary["end_to_end_duration"] = stats_summary_dto(duration);
  summary["alignment_buffered"] = zero_stats_summary_dto();
  summary["processed_data"] = stats_summary_dto(processed);
  summary["persisted_data"] = stats_summary_dto(persisted);
  return summary;
}

int max_parallelism(const RunResult& r) {
  int p = 0;
  for (const VertexInfo& v : r.vertices) p = std::max(p, v.parallelism);
  return p;
}

// ExecutionGraph.getStatusTimestamp(status): when the job last entered `status`.
std::optional<SimTime> last_entered(const RunResult& r, model::JobStatus status) {
  std::optional<SimTime> at;
  for (const JobStatusChange& change : r.job_status_changes) {
    if (change.to == status) at = change.time;
  }
  return at;
}

std::string lowercase(std::string s) {
  for (char& ch : s) {
    if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
  }
  return s;
}

}  // namespace

const char* synthetic_flink_commit(model::FlinkVersion version) {
  // Synthetic short hashes, fixed per version so that output is reproducible; they are not the
  // commits the Apache releases were built from.
  switch (version) {
    case model::FlinkVersion::v1_15:
      return "c0ffeea";
    case model::FlinkVersion::v1_16:
      return "c0ffeeb";
    case model::FlinkVersion::v1_17:
      return "c0ffee1";
    case model::FlinkVersion::v1_18:
      return "c0ffee2";
    case model::FlinkVersion::v1_19:
      return "c0ffee3";
    case model::FlinkVersion::v1_20:
      return "c0ffee4";
    case model::FlinkVersion::v2_0:
      return "c0ffee5";
    case model::FlinkVersion::v2_1:
      return "c0ffee6";
  }
  return "c0ffee0";
}

ordered_json rest_overview(const RunResult& r) {
  const bool terminal = model::is_globally_terminal(r.final_status);
  // Default slot sharing: the job holds as many slots as its widest vertex while it is not
  // globally terminal.
  const int used = terminal ? 0 : max_parallelism(r);
  ordered_json out;
  out["taskmanagers"] = r.taskmanagers;
  // taskmanagers-blocked and slots-free-and-blocked are @JsonInclude(NON_DEFAULT): 0 is omitted.
  out["slots-total"] = r.slots_total;
  out["slots-available"] = std::max(0, r.slots_total - used);
  // JobsOverview: every job that is not globally terminal counts as running or pending.
  out["jobs-running"] = terminal ? 0 : 1;
  out["jobs-finished"] = r.final_status == model::JobStatus::finished ? 1 : 0;
  out["jobs-cancelled"] = r.final_status == model::JobStatus::canceled ? 1 : 0;
  out["jobs-failed"] = r.final_status == model::JobStatus::failed ? 1 : 0;
  out["flink-version"] = model::flink_release(r.flink_version);
  out["flink-commit"] = synthetic_flink_commit(r.flink_version);
  return out;
}

ordered_json rest_jobs_overview(const RunResult& r) {
  // JobDetails.createDetailsForJob.
  std::optional<SimTime> started;
  for (const JobStatusChange& change : r.job_status_changes) {
    if (change.to == model::JobStatus::initializing || change.to == model::JobStatus::created) {
      started = change.time;
      break;
    }
  }
  const std::int64_t start = ms(r, started.value_or(0));
  std::int64_t end = -1;
  if (model::is_globally_terminal(r.final_status)) {
    end = ms(r, last_entered(r, r.final_status).value_or(r.end_time));
  }
  const std::int64_t now = ms(r, r.end_time);
  std::int64_t last_modification = start;
  if (!r.job_status_changes.empty()) last_modification = ms(r, r.job_status_changes.back().time);
  last_modification = std::max(last_modification, end);

  // 1.17+ getTaskInfo(): a HashMap<String, Integer> filled with "total" then every
  // ExecutionState in ordinal order, serialized in HashMap iteration order. Up to 1.16
  // JobDetails.JobDetailsSerializer wrote "total" then the states in ordinal order itself.
  const bool serializer = r.flink_version < model::FlinkVersion::v1_17;
  std::array<int, model::kExecutionStateCount> per_state{};
  for (model::ExecutionState s : r.final_task_states) {
    per_state[static_cast<std::size_t>(s)] += 1;
  }
  std::vector<std::string> keys{"total"};
  std::vector<int> values{static_cast<int>(r.final_task_states.size())};
  for (int s = 0; s < model::kExecutionStateCount; ++s) {
    keys.push_back(lowercase(model::to_string(static_cast<model::ExecutionState>(s))));
    values.push_back(per_state[static_cast<std::size_t>(s)]);
  }
  std::vector<std::int32_t> hashes;
  for (const std::string& k : keys) hashes.push_back(java_string_hash(k));
  ordered_json tasks = ordered_json::object();
  if (serializer) {
    for (std::size_t i = 0; i < keys.size(); ++i) tasks[keys[i]] = values[i];
  } else {
    for (std::size_t i : java_hashmap_order(hashes, std::nullopt)) tasks[keys[i]] = values[i];
  }

  ordered_json job;
  job["jid"] = r.job_id;
  job["name"] = r.job_name;
  // JobDetailsSerializer (release-1.15/-1.16) writes jid, name, state, start-time, end-time,
  // duration, last-modification, tasks; 1.17's Jackson properties put state after duration.
  if (serializer) job["state"] = model::to_string(r.final_status);
  job["start-time"] = start;
  job["end-time"] = end;
  job["duration"] = (end >= 0 ? end : now) - start;
  if (!serializer) job["state"] = model::to_string(r.final_status);
  job["last-modification"] = last_modification;
  job["tasks"] = std::move(tasks);
  // messages/webmonitor/JobDetails is identical on release-2.0 and release-2.1.2-rc2.
  if (r.flink_version >= model::FlinkVersion::v2_0) {
    job["pending-operators"] = 0;
    job["jobType"] = "STREAMING";
    job["schedulerType"] = "Default";
  }
  ordered_json out;
  out["jobs"] = ordered_json::array({std::move(job)});
  return out;
}

ordered_json rest_checkpoints(const RunResult& r) {
  ordered_json counts;
  counts["restored"] = r.counts.restored;
  counts["total"] = r.counts.total;
  counts["in_progress"] = static_cast<std::int32_t>(r.counts.in_progress);
  counts["completed"] = r.counts.completed;
  counts["failed"] = r.counts.failed;

  ordered_json latest;
  latest["completed"] = or_null(r, newest(r, CheckpointStatus::completed, false));
  latest["savepoint"] = or_null(r, newest(r, CheckpointStatus::completed, true));
  latest["failed"] = or_null(r, newest(r, CheckpointStatus::failed, std::nullopt));
  if (r.latest_restored) {
    ordered_json restored;
    restored["id"] = r.latest_restored->id;
    restored["restore_timestamp"] = ms(r, r.latest_restored->time);
    restored["is_savepoint"] = r.latest_restored->is_savepoint;
    restored["external_path"] = r.latest_restored->external_path.empty()
                                    ? ordered_json(nullptr)
                                    : ordered_json(r.latest_restored->external_path);
    latest["restored"] = std::move(restored);
  } else {
    latest["restored"] = nullptr;
  }

  // CheckpointStatsHistory: a ring of the last web.checkpoints.history checkpoints by trigger
  // order (pending ones included), youngest first.
  ordered_json history = ordered_json::array();
  const std::size_t keep = static_cast<std::size_t>(std::max(0, r.flink.web_checkpoints_history));
  std::size_t taken = 0;
  for (auto it = r.checkpoints.rbegin(); it != r.checkpoints.rend() && taken < keep;
       ++it, ++taken) {
    history.push_back(checkpoint_statistics(r, *it, false));
  }

  ordered_json out;
  out["counts"] = std::move(counts);
  out["summary"] = checkpoint_summary(r);
  out["latest"] = std::move(latest);
  out["history"] = std::move(history);
  return out;
}

ordered_json rest_checkpoint_config(const RunResult& r) {
  const model::CheckpointingConfig& cp = r.flink.checkpointing;
  ordered_json externalization;
  externalization["enabled"] = cp.retention != model::RetentionPolicy::never_retain;
  externalization["delete_on_cancellation"] =
      cp.retention != model::RetentionPolicy::retain_on_cancellation;

  ordered_json out;
  // CheckpointConfigInfo.ProcessingModeSerializer writes mode.name().toLowerCase().
  out["mode"] =
      cp.mode == model::CheckpointingMode::exactly_once ? "exactly_once" : "at_least_once";
  // Periodic checkpointing off: the coordinator's interval is Long.MAX_VALUE.
  out["interval"] =
      cp.interval ? core::to_millis(*cp.interval) : std::numeric_limits<std::int64_t>::max();
  out["timeout"] = core::to_millis(cp.timeout);
  out["min_pause"] = core::to_millis(cp.min_pause);
  out["max_concurrent"] = static_cast<std::int64_t>(cp.max_concurrent);
  out["externalization"] = std::move(externalization);
  out["state_backend"] = r.flink.state_backend == model::StateBackendKind::rocksdb
                             ? "EmbeddedRocksDBStateBackend"
                             : "HashMapStateBackend";
  out["checkpoint_storage"] = r.flink.checkpoint_storage == model::CheckpointStorageKind::filesystem
                                  ? "FileSystemCheckpointStorage"
                                  : "JobManagerCheckpointStorage";
  out["unaligned_checkpoints"] = cp.unaligned;
  out["tolerable_failed_checkpoints"] = cp.tolerable_failed;
  out["aligned_checkpoint_timeout"] = core::to_millis(cp.aligned_checkpoint_timeout);
  out["checkpoints_after_tasks_finish"] = cp.checkpoints_after_tasks_finish;
  // ckptsim does not model the changelog state backend: Flink's defaults for a job without it.
  // The three fields came with 1.16 (CheckpointConfigInfo on release-1.15 ends with
  // checkpoints_after_tasks_finish).
  if (r.flink_version >= model::FlinkVersion::v1_16) {
    out["state_changelog_enabled"] = false;
    out["changelog_periodic_materialization_interval"] = std::int64_t{600000};
    out["changelog_storage"] = nullptr;
  }
  return out;
}

ordered_json rest_checkpoint_details(const RunResult& r, const CheckpointRecord& c) {
  return checkpoint_statistics(r, c, true);
}

ordered_json rest_checkpoint_subtasks(const RunResult& r, const CheckpointRecord& c, int vertex) {
  const std::vector<SubtaskStats> subtasks = vertex_subtasks(r, c, vertex);
  const std::int64_t trigger = ms(r, c.trigger_time);

  // TaskStateStats.TaskStateStatsSummary: StatsSummary objects without a histogram, fed on each
  // acknowledgement; ns metrics reach the JM already converted to ms (integer division).
  StatsSummary checkpointed, state, ack, sync, async, processed, persisted, alignment, delay;
  ordered_json details = ordered_json::array();
  for (std::size_t i = 0; i < subtasks.size(); ++i) {
    const SubtaskStats& s = subtasks[i];
    ordered_json sub;
    if (!s.acknowledged && !s.aborted) {
      sub["className"] = "pending";
      sub["index"] = static_cast<int>(i);
      sub["status"] = "pending_or_failed";
      details.push_back(std::move(sub));
      continue;
    }
    const std::int64_t ack_ms = s.ack_time >= 0 ? ms(r, s.ack_time) : std::int64_t{-1};
    const std::int64_t sync_ms = core::to_millis(s.sync_duration);
    const std::int64_t async_ms = core::to_millis(s.async_duration);
    const std::int64_t alignment_ms = core::to_millis(s.alignment_duration);
    const std::int64_t delay_ms = core::to_millis(s.start_delay);
    checkpointed.add(s.checkpointed_size);
    state.add(s.state_size);
    ack.add(ack_ms);
    sync.add(sync_ms);
    async.add(async_ms);
    processed.add(s.processed_bytes);
    persisted.add(s.persisted_bytes);
    alignment.add(alignment_ms);
    delay.add(delay_ms);

    // CompletedSubtaskCheckpointStatistics: its @JsonCreator has no "status", so Jackson writes
    // the inherited status property after the creator properties.
    sub["className"] = "completed";
    sub["index"] = static_cast<int>(i);
    sub["ack_timestamp"] = ack_ms;
    sub["end_to_end_duration"] = std::max<std::int64_t>(0, ack_ms - trigger);
    sub["checkpointed_size"] = s.checkpointed_size;
    sub["state_size"] = s.state_size;
    sub["checkpoint"] = {{"sync", sync_ms}, {"async", async_ms}};
    sub["alignment"] = {{"buffered", std::int64_t{0}},
                        {"processed", s.processed_bytes},
                        {"persisted", s.persisted_bytes},
                        {"duration", alignment_ms}};
    sub["start_delay"] = delay_ms;
    sub["unaligned_checkpoint"] = s.unaligned;
    sub["aborted"] = s.aborted;
    sub["status"] = "completed";
    details.push_back(std::move(sub));
  }

  ordered_json summary;
  summary["checkpointed_size"] = stats_summary_dto(checkpointed);
  summary["state_size"] = stats_summary_dto(state);
  // end_to_end_duration is derived from the ack-timestamp summary: min/max/avg minus the trigger
  // timestamp (at least 0); its percentiles are the (absent) ack-timestamp quantiles.
  summary["end_to_end_duration"] =
      stats_summary_dto(std::max<std::int64_t>(0, ack.min() - trigger),
                        std::max<std::int64_t>(0, ack.max() - trigger),
                        std::max<std::int64_t>(0, ack.average() - trigger), ack);
  summary["checkpoint_duration"] = {{"sync", stats_summary_dto(sync)},
                                    {"async", stats_summary_dto(async)}};
  summary["alignment"] = {{"buffered", zero_stats_summary_dto()},
                          {"processed", stats_summary_dto(processed)},
                          {"persisted", stats_summary_dto(persisted)},
                          {"duration", stats_summary_dto(alignment)}};
  summary["start_delay"] = stats_summary_dto(delay);

  ordered_json out;
  task_statistics_fields(r, c, vertex_totals(r, c, vertex), out);
  out["summary"] = std::move(summary);
  out["subtasks"] = std::move(details);
  return out;
}

}  // namespace ckptsim::run
