// The job's REST bodies: GET /jobs (JobIdsWithStatusOverview / JobsWithIDsOverviewHandler),
// /jobs/:jid (JobDetailsInfo / JobDetailsHandler), /jobs/:jid/plan (JobPlanInfo /
// JsonPlanGenerator), /jobs/:jid/config (JobConfigInfo / JobConfigHandler) and
// /jobs/:jid/exceptions (JobExceptionsInfoWithHistory / JobExceptionsHandler).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "sim/run/recorder.hpp"
#include "sim/run/writers/java_stack_frames.hpp"
#include "sim/run/writers/rest_execution.hpp"
#include "sim/run/writers/rest_job.hpp"
#include "sim/run/writers/writers.hpp"

namespace ckptsim::run {

using nlohmann::ordered_json;

namespace {

constexpr int kJobStatusCount = 11;

// The status changes of the latest submission's ExecutionGraph: from its INITIALIZING -> CREATED
// on (an earlier submission had an ExecutionGraph of its own).
std::vector<JobStatusChange> current_graph_changes(const RunResult& r) {
  std::size_t first = 0;
  for (std::size_t i = 0; i < r.job_status_changes.size(); ++i) {
    if (r.job_status_changes[i].from == model::JobStatus::initializing) first = i;
  }
  return {r.job_status_changes.begin() + static_cast<std::ptrdiff_t>(first),
          r.job_status_changes.end()};
}

// ExecutionGraph.getStatusTimestamp for every JobStatus: when the graph last entered it, 0 if
// never. INITIALIZING is the graph's initialization timestamp: the submission.
std::vector<std::int64_t> status_timestamps(const RunResult& r) {
  std::vector<std::int64_t> at(kJobStatusCount, 0);
  at[static_cast<std::size_t>(model::JobStatus::initializing)] = epoch_ms(r, r.submission_time);
  for (const JobStatusChange& c : current_graph_changes(r)) {
    at[static_cast<std::size_t>(c.to)] = epoch_ms(r, c.time);
  }
  return at;
}

const char* ship_strategy_name(model::ShipStrategy s) {
  // StreamPartitioner.toString(), the JobEdge's ship strategy name.
  switch (s) {
    case model::ShipStrategy::forward:
      return "FORWARD";
    case model::ShipStrategy::rebalance:
      return "REBALANCE";
    case model::ShipStrategy::hash:
      return "HASH";
    case model::ShipStrategy::broadcast:
      return "BROADCAST";
    case model::ShipStrategy::rescale:
      return "RESCALE";
  }
  return "FORWARD";
}

// JsonPlanGenerator: StringEscapeUtils.escapeHtml4, then newline -> <br/> and \ -> &#92;.
// (escapeHtml4 also names non-ASCII characters; ckptsim's vertex names keep them as UTF-8.)
std::string plan_description(const std::string& name) {
  std::string out;
  for (char ch : name) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\n':
        out += "<br/>";
        break;
      case '\\':
        out += "&#92;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

ordered_json plan(const RunResult& r) {
  ordered_json nodes = ordered_json::array();
  for (const VertexInfo& v : r.vertices) {
    ordered_json node;
    node["id"] = v.id;
    node["parallelism"] = v.parallelism;
    // A streaming JobVertex has no operator name or description: NOT_SET ("").
    node["operator"] = "";
    node["operator_strategy"] = "";
    node["description"] = plan_description(v.name);
    if (v.input >= 0) {
      ordered_json input;
      input["num"] = 0;
      input["id"] = r.vertices[static_cast<std::size_t>(v.input)].id;
      input["ship_strategy"] = ship_strategy_name(v.ship);
      // ResultPartitionType.PIPELINED_BOUNDED of a streaming job, lowercased.
      input["exchange"] = "pipelined_bounded";
      node["inputs"] = ordered_json::array({std::move(input)});
    }
    node["optimizer_properties"] = ordered_json::object();
    nodes.push_back(std::move(node));
  }
  ordered_json out;
  out["jid"] = r.job_id;
  out["name"] = r.job_name;
  out["type"] = "STREAMING";
  out["nodes"] = std::move(nodes);
  return out;
}

// JobDetailsHandler.createJobVertexDetailsInfo.
ordered_json job_vertex(const RunResult& r, int vertex, std::int64_t now) {
  const VertexInfo& info = r.vertices[static_cast<std::size_t>(vertex)];
  rest::StateCounts counts{};
  std::int64_t start = std::numeric_limits<std::int64_t>::max();
  std::int64_t end = 0;
  bool all_terminal = true;
  rest::IoMetrics metrics;
  for (const rest::IoMetrics& m : rest::vertex_io_metrics(r, vertex)) metrics.add(m);
  for (int s = 0; s < info.parallelism; ++s) {
    const model::ExecutionState state = rest::subtask_state(r, vertex, s);
    const SubtaskExecution e = rest::subtask_execution(r, vertex, s);
    counts[static_cast<std::size_t>(state)] += 1;
    const std::int64_t deployed = rest::state_timestamp(r, e, model::ExecutionState::deploying);
    if (deployed > 0) start = std::min(start, deployed);
    all_terminal = all_terminal && rest::is_terminal(state);
    end = std::max(end, rest::state_timestamp(r, e, state));
  }
  std::int64_t duration = -1;
  if (start < std::numeric_limits<std::int64_t>::max()) {
    if (all_terminal) {
      duration = end - start;
    } else {
      end = -1;
      duration = now - start;
    }
  } else {
    start = -1;
    end = -1;
  }
  ordered_json out;
  out["id"] = info.id;
  // Default slot sharing: every vertex in the group "default", one SlotSharingGroupId per job,
  // written as hex by SlotSharingGroupIDSerializer. Exposed since 1.20 (FLINK-20090).
  if (r.flink_version >= model::FlinkVersion::v1_20)
    out["slotSharingGroupId"] = stable_id(r.job_id + "/slot-sharing-group/default");
  out["name"] = info.name;
  out["maxParallelism"] = rest::default_max_parallelism(info.parallelism);
  out["parallelism"] = info.parallelism;
  out["status"] = model::to_string(rest::aggregate_vertex_state(counts, info.parallelism));
  out["start-time"] = start;
  out["end-time"] = end;
  out["duration"] = duration;
  out["tasks"] = rest::state_counts_json(counts);
  out["metrics"] = rest::io_metrics_json(metrics, r.flink_version);
  return out;
}

// ExceptionHistoryEntry / RootExceptionInfo: a failure that made the job fail over.
struct Failure {
  SimTime time = 0;
  std::string exception_class;
  std::string message;
  int vertex = -1;  // -1: a global failure, no task
  int subtask = 0;
  int attempt = 0;
  ThrowSite site = ThrowSite::none;  // where the exception was created, for its frames
};

// The JobMaster's exception history: the failures of the latest submission (an earlier one had
// a JobMaster, and a history, of its own).
std::vector<Failure> failures_newest_first(const RunResult& r) {
  std::vector<Failure> all;
  for (const RunResult::GlobalFailure& g : r.global_failures) {
    if (g.time < r.submission_time) continue;
    all.push_back({g.time, g.exception_class, g.message, -1, 0, 0, g.site});
  }
  for (const RunResult::TaskFailure& f : r.task_failures) {
    if (f.time < r.submission_time) continue;
    all.push_back({f.time, f.exception_class, f.message, f.vertex, f.subtask, f.attempt});
  }
  // The history is a bounded list appended in failure order; the handler reverses it.
  std::stable_sort(all.begin(), all.end(),
                   [](const Failure& a, const Failure& b) { return a.time > b.time; });
  return all;
}

// ExceptionUtils.stringifyException: the throwable's printStackTrace, the "class: message" line
// (with its "Caused by:" lines) and the frames ckptsim knows for where it was created (none for a
// task's exception: java_stack_frames.hpp).
std::string stacktrace(const RunResult& r, const Failure& f) {
  std::string text = f.exception_class + ": " + f.message + "\n";
  for (const std::string& line : print_stack_trace_frame_lines(f.site, r.flink_version))
    text += line + "\n";
  return text;
}

// Execution.getVertexWithAttempt(): "<name> (<i>/<p>)#<attempt>".
std::string task_name(const RunResult& r, const Failure& f) {
  const VertexInfo& v = r.vertices[static_cast<std::size_t>(f.vertex)];
  return v.name + " (" + std::to_string(f.subtask + 1) + "/" + std::to_string(v.parallelism) +
         ")#" + std::to_string(f.attempt);
}

ordered_json exception_entry(const RunResult& r, const Failure& f) {
  // JobExceptionsInfoWithHistory.ExceptionInfo's fields by release branch: 1.15/1.16 exceptionName,
  // stacktrace, timestamp, taskName, location; release-1.17 adds taskManagerId, release-1.18
  // failureLabels (FLIP-304), release-1.19 endpoint (and deprecates location); 2.0 and 2.1 drop
  // location.
  const model::FlinkVersion v = r.flink_version;
  ordered_json out;
  out["exceptionName"] = f.exception_class;
  out["stacktrace"] = stacktrace(r, f);
  out["timestamp"] = epoch_ms(r, f.time);
  if (v >= model::FlinkVersion::v1_18) out["failureLabels"] = ordered_json::object();
  // taskName, location, endpoint and taskManagerId are @JsonInclude(NON_NULL): a global failure
  // has none of them.
  if (f.vertex >= 0) {
    const int tm = rest::taskmanager_of(r, f.subtask);
    out["taskName"] = task_name(r, f);
    if (v < model::FlinkVersion::v2_0) out["location"] = rest::taskmanager_endpoint(tm);
    if (v >= model::FlinkVersion::v1_19) out["endpoint"] = rest::taskmanager_endpoint(tm);
    if (v >= model::FlinkVersion::v1_17) out["taskManagerId"] = rest::taskmanager_id(tm);
  }
  // ckptsim fails over on the first failure: no concurrent ones.
  out["concurrentExceptions"] = ordered_json::array();
  return out;
}

}  // namespace

ordered_json rest_jobs(const RunResult& r) {
  ordered_json job;
  job["id"] = r.job_id;
  job["status"] = model::to_string(r.final_status);
  ordered_json out;
  out["jobs"] = ordered_json::array({std::move(job)});
  return out;
}

ordered_json rest_job_details(const RunResult& r) {
  const std::int64_t now = epoch_ms(r, r.end_time);
  const std::vector<std::int64_t> timestamps = status_timestamps(r);
  const std::int64_t start = timestamps[static_cast<std::size_t>(model::JobStatus::initializing)];
  const std::int64_t end = model::is_globally_terminal(r.final_status)
                               ? timestamps[static_cast<std::size_t>(r.final_status)]
                               : std::int64_t{-1};

  ordered_json stamps = ordered_json::object();
  for (int s = 0; s < kJobStatusCount; ++s) {
    stamps[model::to_string(static_cast<model::JobStatus>(s))] =
        timestamps[static_cast<std::size_t>(s)];
  }
  ordered_json vertices = ordered_json::array();
  rest::StateCounts per_state{};
  for (int v = 0; v < static_cast<int>(r.vertices.size()); ++v) {
    ordered_json vertex = job_vertex(r, v, now);
    for (int s = 0; s < model::kExecutionStateCount; ++s) {
      if (vertex["status"] == model::to_string(static_cast<model::ExecutionState>(s))) {
        per_state[static_cast<std::size_t>(s)] += 1;
      }
    }
    vertices.push_back(std::move(vertex));
  }

  ordered_json out;
  out["jid"] = r.job_id;
  out["name"] = r.job_name;
  // Only jobs whose sources are all StoppableFunctions: none since the DataStream API dropped it.
  out["isStoppable"] = false;
  out["state"] = model::to_string(r.final_status);
  // Since 1.20 (FLINK-35223).
  if (r.flink_version >= model::FlinkVersion::v1_20) out["job-type"] = "STREAMING";
  out["start-time"] = start;
  out["end-time"] = end;
  out["duration"] = (end > 0 ? end : now) - start;
  // ArchivedExecutionConfig.getMaxParallelism: -1 when the job sets none.
  out["maxParallelism"] = -1;
  out["now"] = now;
  out["timestamps"] = std::move(stamps);
  out["vertices"] = std::move(vertices);
  out["status-counts"] = rest::state_counts_json(per_state);
  out["plan"] = plan(r);
  // stream-graph is @JsonInclude(NON_NULL) and ckptsim has no StreamGraph JSON: omitted.
  // pending-operators: JobDetailsInfo on release-2.0 and release-2.1.2-rc2 alike.
  if (r.flink_version >= model::FlinkVersion::v2_0) out["pending-operators"] = 0;
  return out;
}

ordered_json rest_job_plan(const RunResult& r) {
  ordered_json out;
  out["plan"] = plan(r);
  return out;
}

ordered_json rest_job_config(const RunResult& r) {
  int parallelism = 1;
  for (const VertexInfo& v : r.vertices) parallelism = std::max(parallelism, v.parallelism);
  ordered_json execution;
  // 1.x wrote the ExecutionMode of the DataSet era (JobConfigInfo is byte-identical on
  // release-1.15 to -1.19); 2.0 removed it, 2.1 too.
  if (r.flink_version < model::FlinkVersion::v2_0) execution["execution-mode"] = "PIPELINED";
  // The scenario sets restart-strategy.* in the cluster configuration, not in the job's
  // ExecutionConfig: RestartStrategies.FallbackRestartStrategyConfiguration's description.
  execution["restart-strategy"] = "Cluster level default restart strategy";
  // The environment's parallelism: that of the widest vertex (vertices keep the default).
  execution["job-parallelism"] = parallelism;
  execution["object-reuse-mode"] = false;
  execution["user-config"] = ordered_json::object();
  // JobConfigInfo.Serializer writes jid, name and execution-config (not the spec's names).
  ordered_json out;
  out["jid"] = r.job_id;
  out["name"] = r.job_name;
  out["execution-config"] = std::move(execution);
  return out;
}

ordered_json rest_job_exceptions(const RunResult& r, int max_exceptions) {
  const std::vector<Failure> failures = failures_newest_first(r);
  const std::size_t limit = static_cast<std::size_t>(std::max(0, max_exceptions));
  ordered_json entries = ordered_json::array();
  for (std::size_t i = 0; i < failures.size() && i < limit; ++i) {
    entries.push_back(exception_entry(r, failures[i]));
  }
  const bool truncated = failures.size() > limit;
  ordered_json history;
  history["entries"] = std::move(entries);
  history["truncated"] = truncated;
  ordered_json out;
  if (r.flink_version < model::FlinkVersion::v2_0) {
    // 1.x JobExceptionsInfoWithHistory extends the deprecated JobExceptionsInfo
    // (JobExceptionsHandler before FLINK-32688): the graph's latest failure as root-exception,
    // and all-exceptions from the current attempts that failed, up to maxExceptions.
    if (failures.empty()) {
      out["root-exception"] = nullptr;
      out["timestamp"] = nullptr;
    } else {
      out["root-exception"] = stacktrace(r, failures.front());
      out["timestamp"] = epoch_ms(r, failures.front().time);
    }
    ordered_json all = ordered_json::array();
    bool all_truncated = false;
    for (const Failure& f : failures) {
      // Only a current attempt's own failure (Execution.getFailureInfo of the attempt shown).
      if (f.vertex < 0 ||
          rest::subtask_state(r, f.vertex, f.subtask) != model::ExecutionState::failed ||
          rest::subtask_execution(r, f.vertex, f.subtask).attempt != f.attempt)
        continue;
      if (all.size() >= limit) {
        all_truncated = true;
        break;
      }
      const int tm = rest::taskmanager_of(r, f.subtask);
      const VertexInfo& v = r.vertices[static_cast<std::size_t>(f.vertex)];
      ordered_json item;
      item["exception"] = stacktrace(r, f);
      // getTaskNameWithSubtaskIndex(): "<name> (<i>/<p>)", no attempt.
      item["task"] =
          v.name + " (" + std::to_string(f.subtask + 1) + "/" + std::to_string(v.parallelism) + ")";
      // JobExceptionsInfo.ExecutionExceptionInfo: release-1.15/-1.16 exception, task, location,
      // timestamp; release-1.17 adds taskManagerId, release-1.19 endpoint.
      item["location"] = rest::taskmanager_endpoint(tm);
      if (r.flink_version >= model::FlinkVersion::v1_19)
        item["endpoint"] = rest::taskmanager_endpoint(tm);
      item["timestamp"] = epoch_ms(r, f.time);
      if (r.flink_version >= model::FlinkVersion::v1_17)
        item["taskManagerId"] = rest::taskmanager_id(tm);
      all.push_back(std::move(item));
    }
    out["all-exceptions"] = std::move(all);
    out["truncated"] = all_truncated;
  }
  out["exceptionHistory"] = std::move(history);
  return out;
}

}  // namespace ckptsim::run
