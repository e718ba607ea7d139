// Flink's metrics of a run at its instant (r.end_time, "now" for a snapshot taken mid-run), and
// the two views of them a Flink user knows: the REST /metrics family and the Prometheus text a
// PrometheusReporter serves. Reads only the plain RunResult; knows nothing about the model.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/run/result.hpp"

namespace ckptsim::run {

// How Flink registered a metric (org.apache.flink.metrics.Counter / Gauge / Meter). It decides
// how MetricDumpSerialization stringifies it for REST; Prometheus exports all three as gauges.
enum class MetricType { counter, gauge, meter };

// One metric as the MetricStore keys it within its component: the name relative to the
// component's metric group, user groups joined by '.'
// ("Shuffle.Netty.Input.Buffers.inputQueueLength"). The value keeps Java's type: Long/Integer
// gauges and counters are integers, Double gauges and meters doubles, String gauges strings
// (lastCheckpointExternalPath).
struct MetricValue {
  std::string name;
  MetricType type = MetricType::gauge;
  std::variant<std::int64_t, double, std::string> value;
};

// The metrics of one subtask's representative execution attempt (MetricStore keeps the
// attempt that reported last), with the scope variables Flink's TaskMetricGroup carries.
struct SubtaskMetrics {
  int vertex = 0;
  int subtask = 0;
  int attempt = 0;         // <task_attempt_num>
  std::string attempt_id;  // <task_attempt_id>, ExecutionAttemptID.toString()
  std::string tm_id;       // <tm_id>, the TaskManager's ResourceID
  std::string host;        // <host> of that TaskManager
  std::vector<MetricValue> metrics;
};

// Every metric ckptsim models, at the run's end_time. REST and Prometheus both read this, so
// they never disagree. A globally terminal job has no job or task metrics: MetricFetcherImpl
// retains only the jobs that are not globally terminal.
struct MetricSnapshot {
  std::vector<MetricValue> jobmanager;   // JobManagerMetricGroup (the JM process)
  std::vector<MetricValue> job;          // JobManagerJobMetricGroup (checkpoint stats, restarts)
  std::vector<SubtaskMetrics> subtasks;  // TaskMetricGroup, vertex-major, reporting subtasks only
};

MetricSnapshot metric_values(const RunResult& result);

// When each subtask's execution attempts were deployed (Execution.deploy's "Deploying" lines),
// oldest first: where the task metrics cut one attempt's counters from the next.
std::map<std::pair<int, int>, std::vector<SimTime>> attempt_start_times(const RunResult& result);

// The string MetricStore holds for a value (MetricDumpSerialization: String.valueOf of a counter
// or meter rate, gauge.getValue().toString()), as the REST "value" fields show it.
std::string metric_value_string(const MetricValue& metric);
// java.lang.Double.toString: "930.0", "1.0E7", "NaN", "Infinity".
std::string java_double_string(double value);

// REST: the arrays of MetricCollectionResponseBody / AggregatedMetricsResponseBody. `get`,
// `agg` and `subtasks` are the query parameters already split at commas (empty: absent). An
// unknown job or vertex is the caller's: Flink answers [] for a component it has no store for.
// GET /jobs/:jid/metrics (JobMetricsHandler)
nlohmann::ordered_json rest_job_metrics(const RunResult& result,
                                        const std::vector<std::string>& get);
// GET /jobs/:jid/vertices/:vid/metrics (JobVertexMetricsHandler): ids "<subtask>.<metric>"
nlohmann::ordered_json rest_vertex_metrics(const RunResult& result, int vertex,
                                           const std::vector<std::string>& get);
// GET /jobs/:jid/vertices/:vid/subtasks/metrics (AggregatingSubtasksMetricsHandler). `agg`
// values are min, max, avg, sum and (Flink 1.20+) skew, case-insensitive; an unknown one makes
// the request fail in Flink's query parameter parsing: std::invalid_argument carries the
// message for a 400 answer.
nlohmann::ordered_json rest_subtasks_metrics(const RunResult& result, int vertex,
                                             const std::vector<std::string>& get,
                                             const std::vector<std::string>& agg,
                                             const std::vector<std::string>& subtasks);
// GET /jobmanager/metrics (JobManagerMetricsHandler)
nlohmann::ordered_json rest_jobmanager_metrics(const RunResult& result,
                                               const std::vector<std::string>& get);

// The text a PrometheusReporter (AbstractPrometheusReporter, io.prometheus simpleclient's
// TextFormat 0.0.4) would serve on :9249/metrics for a local cluster whose JobManager and
// TaskManagers share one reporter: JM, JM-job and task metrics, HELP/TYPE per family, label
// values filtered as Flink's filterLabelValueCharacters does. Deterministic order.
std::string prometheus_text(const RunResult& result);
std::string prometheus_text(const RunResult& result, const MetricSnapshot& snapshot);

}  // namespace ckptsim::run
