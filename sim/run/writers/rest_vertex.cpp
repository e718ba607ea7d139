// A job vertex's REST bodies: GET /jobs/:jid/vertices/:vid (JobVertexDetailsInfo /
// JobVertexDetailsHandler, SubtaskExecutionAttemptDetailsInfo, AggregatedTaskDetailsInfo),
// .../backpressure (JobVertexBackPressureInfo / JobVertexBackPressureHandler) and .../watermarks
// (JobVertexWatermarksHandler).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/run/writers/flink_stats.hpp"
#include "sim/run/writers/rest_execution.hpp"
#include "sim/run/writers/rest_job.hpp"

namespace ckptsim::run {

using nlohmann::ordered_json;

namespace {

using model::ExecutionState;

// The states StatusDurationUtils.getExecutionStateDuration reports, in the order it puts them.
constexpr ExecutionState kDurationStates[] = {
    ExecutionState::created, ExecutionState::scheduled, ExecutionState::deploying,
    ExecutionState::initializing, ExecutionState::running};

// StatusDurationUtils: from entering a state to leaving it (now for the current state); -1 when
// either end is unknown.
std::int64_t state_duration(const RunResult& r, const SubtaskExecution& e, ExecutionState current,
                            ExecutionState state, std::int64_t now) {
  const SimTime entered = e.entered[static_cast<std::size_t>(state)];
  const SimTime left = e.left[static_cast<std::size_t>(state)];
  const std::int64_t start = entered < 0 ? 0 : epoch_ms(r, entered);
  const std::int64_t end = state == current ? now : (left < 0 ? 0 : epoch_ms(r, left));
  if (start == 0 || end == 0) return -1;
  return end - start;
}

// AggregatedTaskDetailsInfo.MetricsStatistics.toMap: a HashMap<String, Long>.
ordered_json statistics(std::vector<std::int64_t> values) {
  std::int64_t sum = 0;
  for (std::int64_t v : values) sum += v;
  std::vector<double> as_double(values.begin(), values.end());
  // (long) Percentile.evaluate(p): NaN (no values) casts to 0.
  const auto percentile = [&](int p) -> std::int64_t {
    const double q = legacy_percentile(as_double, p / 100.0);
    return std::isnan(q) ? 0 : static_cast<std::int64_t>(q);
  };
  const std::vector<std::string> keys = {"min", "max", "avg", "sum", "median", "p25", "p75", "p95"};
  const std::vector<std::int64_t> numbers = {
      values.empty() ? 0 : *std::min_element(values.begin(), values.end()),
      values.empty() ? 0 : *std::max_element(values.begin(), values.end()),
      values.empty() ? 0 : sum / static_cast<std::int64_t>(values.size()),
      sum,
      percentile(50),
      percentile(25),
      percentile(75),
      percentile(95)};
  std::vector<std::int32_t> hashes;
  for (const std::string& k : keys) hashes.push_back(java_string_hash(k));
  ordered_json out = ordered_json::object();
  for (std::size_t i : java_hashmap_order(hashes, std::nullopt)) out[keys[i]] = numbers[i];
  return out;
}

// A HashMap<String, Map<String, Long>> built by Collectors.toMap, in HashMap order.
ordered_json statistics_map(const std::vector<std::string>& names,
                            const std::vector<std::vector<std::int64_t>>& values) {
  std::vector<std::int32_t> hashes;
  for (const std::string& n : names) hashes.push_back(java_string_hash(n));
  ordered_json out = ordered_json::object();
  for (std::size_t i : java_hashmap_order(hashes, std::nullopt)) {
    out[names[i]] = statistics(values[i]);
  }
  return out;
}

struct SubtaskDetails {
  ordered_json json;
  rest::IoMetrics metrics;
  std::vector<std::int64_t> durations;  // per kDurationStates
};

// SubtaskExecutionAttemptDetailsInfo.create for the current attempt of one subtask.
SubtaskDetails subtask_details(const RunResult& r, int vertex, int subtask,
                               const rest::IoMetrics& metrics, std::int64_t now) {
  const ExecutionState state = rest::subtask_state(r, vertex, subtask);
  const SubtaskExecution e = rest::subtask_execution(r, vertex, subtask);
  // The slot, and so the TaskManagerLocation, is assigned before DEPLOYING.
  const bool assigned =
      e.entered[static_cast<std::size_t>(ExecutionState::deploying)] >= 0 || r.executions.empty();
  const int tm = rest::taskmanager_of(r, subtask);
  const std::string endpoint = assigned ? rest::taskmanager_endpoint(tm) : "(unassigned)";
  std::int64_t start = rest::state_timestamp(r, e, ExecutionState::deploying);
  if (start == 0) start = -1;
  const std::int64_t end = rest::is_terminal(state) ? rest::state_timestamp(r, e, state) : -1;
  const std::int64_t duration = start > 0 ? ((end > 0 ? end : now) - start) : -1;

  SubtaskDetails d;
  d.metrics = metrics;
  ordered_json status_duration = ordered_json::object();
  for (ExecutionState s : kDurationStates) {
    const std::int64_t ms = state_duration(r, e, state, s, now);
    d.durations.push_back(ms);
    status_duration[model::to_string(s)] = ms;
  }
  ordered_json& out = d.json;
  out["subtask"] = subtask;
  out["status"] = model::to_string(state);
  out["attempt"] = e.attempt;
  // 1.x: the deprecated host, a creator property before endpoint (removed in 2.0, FLINK-36355;
  // 2.1 neither). endpoint came with 1.19 (FLINK-33147): SubtaskExecutionAttemptDetailsInfo on
  // release-1.15 to -1.18 has host only.
  if (r.flink_version < model::FlinkVersion::v2_0) {
    out["host"] = assigned ? rest::taskmanager_host(tm) : "(unassigned)";
  }
  if (r.flink_version >= model::FlinkVersion::v1_19) out["endpoint"] = endpoint;
  out["start-time"] = start;
  out["end-time"] = end;
  out["duration"] = duration;
  out["metrics"] = rest::io_metrics_json(d.metrics, r.flink_version);
  out["taskmanager-id"] = assigned ? rest::taskmanager_id(tm) : "(unassigned)";
  // status-duration came with 1.16 (SubtaskExecutionAttemptDetailsInfo on release-1.16; not on
  // release-1.15).
  if (r.flink_version >= model::FlinkVersion::v1_16)
    out["status-duration"] = std::move(status_duration);
  // other-concurrent-attempts is NON_EMPTY (speculative execution only): omitted. The hidden
  // compat start_time is not a creator property, so Jackson writes it last.
  out["start_time"] = start;
  return d;
}

// The latest sample of each subtask: what the MetricFetcher last stored (missing: "0").
struct Ratios {
  double back_pressured = 0, idle = 0, busy = 0;
};

Ratios ratios_of(const TaskSampleRow* latest, bool* found) {
  Ratios out;
  if (latest == nullptr || latest->sample.period <= 0) return out;
  *found = true;
  const double seconds = static_cast<double>(latest->sample.period) / 1e9;
  const auto per_second = [&](Duration d) {
    return std::min(1000.0, static_cast<double>(d) / 1e6 / seconds);
  };
  // TaskIOMetricGroup: back-pressured and idle time are long ms per second; busy time is
  // 1000 - min(idle + back-pressured, 1000), a double.
  const auto bp = static_cast<std::int64_t>(per_second(latest->sample.back_pressured));
  const auto idle = static_cast<std::int64_t>(per_second(latest->sample.idle));
  out.back_pressured = static_cast<double>(bp) / 1000;
  out.idle = static_cast<double>(idle) / 1000;
  out.busy = (1000.0 - std::min(static_cast<double>(bp + idle), 1000.0)) / 1000;
  return out;
}

// JobVertexBackPressureHandler.getBackPressureLevel (1.13+: from backPressuredTimeMsPerSecond).
const char* backpressure_level(double ratio) {
  if (ratio <= 0.10) return "ok";
  if (ratio <= 0.5) return "low";
  return "high";
}

}  // namespace

ordered_json rest_vertex_details(const RunResult& r, int vertex) {
  const VertexInfo& info = r.vertices[static_cast<std::size_t>(vertex)];
  const std::int64_t now = epoch_ms(r, r.end_time);
  ordered_json subtasks = ordered_json::array();
  const std::vector<std::string> metric_names = {"read-bytes",
                                                 "write-bytes",
                                                 "read-records",
                                                 "write-records",
                                                 "accumulated-backpressured-time",
                                                 "accumulated-busy-time",
                                                 "accumulated-idle-time"};
  std::vector<std::vector<std::int64_t>> metric_values(metric_names.size());
  std::vector<std::vector<std::int64_t>> duration_values(std::size(kDurationStates));
  const std::vector<rest::IoMetrics> io = rest::vertex_io_metrics(r, vertex);
  for (int s = 0; s < info.parallelism; ++s) {
    SubtaskDetails d = subtask_details(r, vertex, s, io[static_cast<std::size_t>(s)], now);
    const rest::IoMetrics& m = d.metrics;
    const std::int64_t row[] = {m.read_bytes,       m.write_bytes,
                                m.read_records,     m.write_records,
                                m.backpressured_ms, static_cast<std::int64_t>(m.busy_ms),
                                m.idle_ms};
    for (std::size_t i = 0; i < metric_names.size(); ++i) metric_values[i].push_back(row[i]);
    for (std::size_t i = 0; i < d.durations.size(); ++i)
      duration_values[i].push_back(d.durations[i]);
    subtasks.push_back(std::move(d.json));
  }
  std::vector<std::string> state_names;
  for (ExecutionState s : kDurationStates) state_names.push_back(model::to_string(s));

  ordered_json aggregated;
  aggregated["metrics"] = statistics_map(metric_names, metric_values);
  aggregated["status-duration"] = statistics_map(state_names, duration_values);

  ordered_json out;
  out["id"] = info.id;
  out["name"] = info.name;
  out["parallelism"] = info.parallelism;
  out["maxParallelism"] = rest::default_max_parallelism(info.parallelism);
  out["now"] = now;
  out["subtasks"] = std::move(subtasks);
  // Not a creator property: built from the subtasks in the constructor, written last. 1.16+:
  // JobVertexDetailsInfo on release-1.15 has no aggregated.
  if (r.flink_version >= model::FlinkVersion::v1_16) out["aggregated"] = std::move(aggregated);
  return out;
}

ordered_json rest_vertex_backpressure(const RunResult& r, int vertex) {
  const VertexInfo& info = r.vertices[static_cast<std::size_t>(vertex)];
  bool any = false;
  // The latest row of each subtask, in one pass over the time series.
  std::vector<const TaskSampleRow*> latest(static_cast<std::size_t>(info.parallelism), nullptr);
  for (const TaskSampleRow& row : r.timeseries) {
    if (row.vertex == vertex && row.subtask >= 0 && row.subtask < info.parallelism)
      latest[static_cast<std::size_t>(row.subtask)] = &row;
  }
  std::vector<Ratios> ratios;
  for (const TaskSampleRow* row : latest) ratios.push_back(ratios_of(row, &any));
  ordered_json out;
  if (!any) {
    // No metrics for the vertex yet: VertexBackPressureStatus.DEPRECATED, everything else null
    // and so omitted (@JsonInclude(NON_NULL)).
    out["status"] = "deprecated";
    return out;
  }
  const bool v1_15 = r.flink_version < model::FlinkVersion::v1_16;
  double max_ratio = 0;
  ordered_json subtasks = ordered_json::array();
  for (int s = 0; s < info.parallelism; ++s) {
    const Ratios& x = ratios[static_cast<std::size_t>(s)];
    max_ratio = std::max(max_ratio, x.back_pressured);
    ordered_json item;
    item["subtask"] = s;
    // JobVertexBackPressureInfo on release-1.15: subtask, backpressure-level, ratio, idleRatio,
    // busyRatio; 1.16 renamed the level to backpressureLevel and kept the old name hidden.
    if (v1_15) item["backpressure-level"] = backpressure_level(x.back_pressured);
    // attempt-number is NON_NULL (only with concurrent attempts); other-concurrent-attempts
    // NON_EMPTY: both omitted.
    if (!v1_15) item["backpressureLevel"] = backpressure_level(x.back_pressured);
    item["ratio"] = x.back_pressured;
    item["idleRatio"] = x.idle;
    item["busyRatio"] = x.busy;
    // The @Hidden getter for the deprecated name, which the dashboard reads; not a creator
    // property, so written after them.
    if (!v1_15) item["backpressure-level"] = backpressure_level(x.back_pressured);
    subtasks.push_back(std::move(item));
  }
  // MetricFetcher.getLastUpdateTime: the end of the latest sample period.
  SimTime last_update = 0;
  for (const TaskSampleRow& row : r.timeseries) last_update = std::max(last_update, row.end);
  out["status"] = "ok";
  if (v1_15) out["backpressure-level"] = backpressure_level(max_ratio);
  if (!v1_15) out["backpressureLevel"] = backpressure_level(max_ratio);
  out["end-timestamp"] = epoch_ms(r, last_update);
  out["subtasks"] = std::move(subtasks);
  if (!v1_15) out["backpressure-level"] = backpressure_level(max_ratio);
  return out;
}

ordered_json rest_vertex_watermarks(const RunResult&, int) {
  // ckptsim models no event time, so no subtask reports currentInputWatermark: the handler's
  // MetricCollectionResponseBody is an empty list, which its serializer writes as [].
  return ordered_json::array();
}

}  // namespace ckptsim::run
