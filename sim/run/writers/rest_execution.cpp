// Executions as the REST handlers see them (AccessExecution, MutableIOMetrics, TaskManagerLocation,
// ExecutionJobVertex.getAggregateJobVertexState), shared by the job and vertex bodies.
#include "sim/run/writers/rest_execution.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace ckptsim::run::rest {

using nlohmann::ordered_json;

std::size_t subtask_index(const RunResult& r, int vertex, int subtask) {
  std::size_t index = 0;
  for (int v = 0; v < vertex && v < static_cast<int>(r.vertices.size()); ++v) {
    index +=
        static_cast<std::size_t>(std::max(0, r.vertices[static_cast<std::size_t>(v)].parallelism));
  }
  return index + static_cast<std::size_t>(subtask);
}

model::ExecutionState subtask_state(const RunResult& r, int vertex, int subtask) {
  const std::size_t i = subtask_index(r, vertex, subtask);
  return i < r.final_task_states.size() ? r.final_task_states[i] : model::ExecutionState::created;
}

SubtaskExecution subtask_execution(const RunResult& r, int vertex, int subtask) {
  const std::size_t i = subtask_index(r, vertex, subtask);
  if (i < r.executions.size()) return r.executions[i];
  SubtaskExecution e;
  e.entered[static_cast<std::size_t>(subtask_state(r, vertex, subtask))] = 0;
  return e;
}

std::int64_t state_timestamp(const RunResult& r, const SubtaskExecution& e,
                             model::ExecutionState state) {
  const SimTime t = e.entered[static_cast<std::size_t>(state)];
  return t < 0 ? 0 : epoch_ms(r, t);
}

int taskmanager_of(const RunResult& r, int subtask) {
  // The Recorder's TaskManagerLocation: default slot sharing puts subtask i of every vertex in
  // slot i, and slots are spread over the TaskManagers round robin.
  return subtask % std::max(1, r.taskmanagers) + 1;
}

std::string taskmanager_id(int taskmanager) {
  return fmt::format("ckptsim-taskmanager-{}", taskmanager);
}

std::string taskmanager_host(int taskmanager) {
  return fmt::format("ckptsim-taskmanager-{}", taskmanager);
}

std::string taskmanager_endpoint(int taskmanager) {
  // TaskManagerLocation.getEndpoint(): "<FQDN hostname>:<dataPort>".
  return taskmanager_host(taskmanager) + ":6121";
}

void IoMetrics::add(const IoMetrics& o) {
  read_bytes += o.read_bytes;
  write_bytes += o.write_bytes;
  read_records += o.read_records;
  write_records += o.write_records;
  backpressured_ms += o.backpressured_ms;
  idle_ms += o.idle_ms;
  busy_ms += o.busy_ms;
}

std::vector<IoMetrics> vertex_io_metrics(const RunResult& r, int vertex) {
  const VertexInfo& info = r.vertices[static_cast<std::size_t>(vertex)];
  // Task-level numRecordsIn / numBytesIn count network input: 0 for a source. numRecordsOut /
  // numBytesOut count network output: 0 for a sink (a task nobody reads from).
  const bool source = info.input < 0;
  bool sink = true;
  for (const VertexInfo& v : r.vertices) {
    if (v.input == vertex) sink = false;
  }
  const std::int64_t in_record_size =
      source ? 0 : r.vertices[static_cast<std::size_t>(info.input)].record_size;
  // The counters of the current attempt only: a restarted task starts from zero. A subtask whose
  // execution entered no state has none.
  const auto parallelism = static_cast<std::size_t>(info.parallelism);
  std::vector<SimTime> attempt_start(parallelism, core::kNever);
  for (std::size_t s = 0; s < parallelism; ++s) {
    for (SimTime t : subtask_execution(r, vertex, static_cast<int>(s)).entered) {
      if (t >= 0) attempt_start[s] = std::min(attempt_start[s], t);
    }
  }
  struct Sums {
    std::int64_t records_in = 0, records_out = 0;
    Duration busy = 0, back_pressured = 0, idle = 0;
  };
  std::vector<Sums> sums(parallelism);
  // One pass over the time series for the whole vertex (a subtask at a time would be
  // subtasks x rows: minutes for a 1,000-subtask hour).
  for (const TaskSampleRow& row : r.timeseries) {
    if (row.vertex != vertex || row.subtask < 0 ||
        static_cast<std::size_t>(row.subtask) >= parallelism)
      continue;
    const auto s = static_cast<std::size_t>(row.subtask);
    if (row.end <= attempt_start[s]) continue;
    Sums& x = sums[s];
    x.records_in += row.sample.records_in;
    x.records_out += row.sample.records_out;
    x.busy += row.sample.busy;
    x.back_pressured += row.sample.back_pressured;
    x.idle += row.sample.idle;
  }
  std::vector<IoMetrics> out(parallelism);
  for (std::size_t s = 0; s < parallelism; ++s) {
    if (attempt_start[s] == core::kNever) continue;
    IoMetrics& m = out[s];
    if (!source) m.read_records = sums[s].records_in;
    if (!sink) m.write_records = sums[s].records_out;
    m.read_bytes = m.read_records * in_record_size;
    m.write_bytes = m.write_records * info.record_size;
    m.backpressured_ms = core::to_millis(sums[s].back_pressured);
    m.idle_ms = core::to_millis(sums[s].idle);
    m.busy_ms = static_cast<double>(core::to_millis(sums[s].busy));
  }
  return out;
}

ordered_json io_metrics_json(const IoMetrics& m, model::FlinkVersion version) {
  // IOMetricsInfo; ckptsim has every counter, so each *-complete is true.
  ordered_json out;
  out["read-bytes"] = m.read_bytes;
  out["read-bytes-complete"] = true;
  out["write-bytes"] = m.write_bytes;
  out["write-bytes-complete"] = true;
  out["read-records"] = m.read_records;
  out["read-records-complete"] = true;
  out["write-records"] = m.write_records;
  out["write-records-complete"] = true;
  // The accumulated times came with 1.16: IOMetricsInfo on release-1.15 has only the counters.
  if (version >= model::FlinkVersion::v1_16) {
    out["accumulated-backpressured-time"] = m.backpressured_ms;
    out["accumulated-idle-time"] = m.idle_ms;
    out["accumulated-busy-time"] = m.busy_ms;
  }
  return out;
}

ordered_json state_counts_json(const StateCounts& counts) {
  ordered_json out = ordered_json::object();
  for (int s = 0; s < model::kExecutionStateCount; ++s) {
    out[model::to_string(static_cast<model::ExecutionState>(s))] =
        counts[static_cast<std::size_t>(s)];
  }
  return out;
}

bool is_terminal(model::ExecutionState state) {
  return state == model::ExecutionState::finished || state == model::ExecutionState::canceled ||
         state == model::ExecutionState::failed;
}

model::ExecutionState aggregate_vertex_state(const StateCounts& counts, int parallelism) {
  using S = model::ExecutionState;
  const auto n = [&](S s) { return counts[static_cast<std::size_t>(s)]; };
  if (n(S::failed) > 0) return S::failed;
  if (n(S::canceling) > 0) return S::canceling;
  if (n(S::canceled) > 0) return S::canceled;
  if (n(S::initializing) > 0) return S::initializing;
  if (n(S::running) > 0) return S::running;
  if (n(S::finished) > 0) return n(S::finished) == parallelism ? S::finished : S::running;
  return S::created;  // everything else collapses under CREATED
}

int default_max_parallelism(int parallelism) {
  // min(max(roundUpToPowerOfTwo(p + p / 2), 128), 32768)
  const int wanted = parallelism + parallelism / 2;
  int power = 1;
  while (power < wanted && power < (1 << 15)) power <<= 1;
  return std::min(std::max(power, 128), 1 << 15);
}

}  // namespace ckptsim::run::rest
