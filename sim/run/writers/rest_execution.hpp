// What the job and vertex REST bodies share about executions: a subtask's current attempt and
// state, its IO metrics (MutableIOMetrics over the MetricStore), where it runs, and the per-state
// count maps. Internal to sim/run/writers.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/run/result.hpp"

namespace ckptsim::run::rest {

using StateCounts = std::array<int, model::kExecutionStateCount>;

// Index of subtask `subtask` of vertex `vertex` in the vertex-major per-subtask vectors.
std::size_t subtask_index(const RunResult& r, int vertex, int subtask);

model::ExecutionState subtask_state(const RunResult& r, int vertex, int subtask);

// The subtask's current Execution; a hand-built RunResult without executions gets one that
// entered its current state at time 0.
SubtaskExecution subtask_execution(const RunResult& r, int vertex, int subtask);

// Execution.getStateTimestamp(state) in epoch ms; 0 when never entered (Flink's default).
std::int64_t state_timestamp(const RunResult& r, const SubtaskExecution& e,
                             model::ExecutionState state);

// TaskManagerLocation of a subtask: the same TaskManager the JobManager log names.
int taskmanager_of(const RunResult& r, int subtask);  // 1-based
std::string taskmanager_id(int taskmanager);          // ResourceID
std::string taskmanager_endpoint(int taskmanager);    // getEndpoint(): host:dataPort
std::string taskmanager_host(int taskmanager);

// The IO metrics of a subtask's current attempt from the time series (its counters restart with
// each attempt), summed with add() for a vertex.
struct IoMetrics {
  std::int64_t read_bytes = 0, write_bytes = 0, read_records = 0, write_records = 0;
  std::int64_t backpressured_ms = 0, idle_ms = 0;
  double busy_ms = 0;
  void add(const IoMetrics& o);
};
// Each subtask's of `vertex`, in subtask order.
std::vector<IoMetrics> vertex_io_metrics(const RunResult& r, int vertex);
nlohmann::ordered_json io_metrics_json(const IoMetrics& m, model::FlinkVersion version);  // IOMetricsInfo

// {EXECUTIONSTATE: n} with UPPERCASE keys, every state in declaration order.
nlohmann::ordered_json state_counts_json(const StateCounts& counts);

// ExecutionState.isTerminal: FINISHED, CANCELED, FAILED.
bool is_terminal(model::ExecutionState state);

// ExecutionJobVertex.getAggregateJobVertexState.
model::ExecutionState aggregate_vertex_state(const StateCounts& counts, int parallelism);

// KeyGroupRangeAssignment.computeDefaultMaxParallelism: the vertex max parallelism Flink derives
// when the job sets none.
int default_max_parallelism(int parallelism);

}  // namespace ckptsim::run::rest
