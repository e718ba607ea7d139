#include "sim/server/rest_api.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <stdexcept>
#include <vector>

#include "sim/run/recorder.hpp"
#include "sim/run/writers/metrics.hpp"
#include "sim/run/writers/rest_job.hpp"
#include "sim/run/writers/writers.hpp"
#include "sim/server/url.hpp"

namespace ckptsim::server {

namespace {

using nlohmann::ordered_json;

HttpResponse json_response(unsigned status, const ordered_json& body) {
  HttpResponse r;
  r.status = status;
  // The same text as the files of `ckptsim run` (byte for byte: tests/server).
  r.body = run::json_file_text(body);
  return r;
}

bool is_hex_id(const std::string& s) {
  return s.size() == 32 && std::all_of(s.begin(), s.end(), [](char c) {
           return std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f');
         });
}

// A path parameter Flink cannot convert (JobIDPathParameter and friends): 400 with
// HandlerRequestException's text.
HttpResponse bad_parameter(const std::string& name, const std::string& value) {
  return error_response(400, "Bad request, could not parse parameters: Cannot resolve path "
                             "parameter (" + name + ") from value \"" + value + "\".");
}

std::optional<std::int64_t> parse_id(const std::string& s) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// A comma-separated query parameter (?get=a,b), empty if absent.
std::vector<std::string> query_list(const std::string& query, const std::string& name) {
  std::vector<std::string> items;
  const std::string value = query_value(query, name).value_or("");
  std::size_t start = 0;
  while (start < value.size()) {
    const std::size_t comma = value.find(',', start);
    const std::size_t end = comma == std::string::npos ? value.size() : comma;
    if (end > start) items.push_back(value.substr(start, end - start));
    start = end + 1;
  }
  return items;
}

// The index of a vertex id in the run, or -1.
int vertex_index(const run::RunResult& r, const std::string& vid) {
  for (std::size_t v = 0; v < r.vertices.size(); ++v)
    if (r.vertices[v].id == vid) return static_cast<int>(v);
  return -1;
}

const run::CheckpointRecord* find_checkpoint(const run::RunResult& r, std::int64_t id) {
  for (const run::CheckpointRecord& c : r.checkpoints)
    if (c.id == id) return &c;
  return nullptr;
}

// The route patterns, ":x" a parameter; the methods each has (for 405).
struct Route {
  std::vector<std::string> pattern;
  const char* methods;
};
const std::vector<Route>& routes() {
  static const std::vector<Route> all = {
      {{"config"}, "GET"},
      {{"overview"}, "GET"},
      {{"taskmanagers"}, "GET"},
      {{"jobmanager", "config"}, "GET"},
      {{"jobs"}, "GET"},
      {{"jobs", "overview"}, "GET"},
      {{"jobs", ":jid"}, "GET, PATCH"},
      {{"jobs", ":jid", "plan"}, "GET"},
      {{"jobs", ":jid", "config"}, "GET"},
      {{"jobs", ":jid", "exceptions"}, "GET"},
      {{"jobs", ":jid", "vertices", ":vid"}, "GET"},
      {{"jobs", ":jid", "vertices", ":vid", "backpressure"}, "GET"},
      {{"jobs", ":jid", "vertices", ":vid", "watermarks"}, "GET"},
      {{"jobs", ":jid", "checkpoints"}, "GET, POST"},
      {{"jobs", ":jid", "checkpoints", "config"}, "GET"},
      {{"jobs", ":jid", "checkpoints", ":triggerid"}, "GET"},
      {{"jobs", ":jid", "checkpoints", "details", ":id"}, "GET"},
      {{"jobs", ":jid", "checkpoints", "details", ":id", "subtasks", ":vid"}, "GET"},
      {{"jobs", ":jid", "savepoints"}, "POST"},
      {{"jobs", ":jid", "savepoints", ":triggerid"}, "GET"},
      {{"jobs", ":jid", "stop"}, "POST"},
      {{"metrics"}, "GET"},
      {{"jobmanager", "metrics"}, "GET"},
      {{"jobs", ":jid", "metrics"}, "GET"},
      {{"jobs", ":jid", "vertices", ":vid", "metrics"}, "GET"},
      {{"jobs", ":jid", "vertices", ":vid", "subtasks", "metrics"}, "GET"},
  };
  return all;
}

const Route* match(const std::vector<std::string>& segments) {
  for (const Route& route : routes()) {
    if (route.pattern.size() != segments.size()) continue;
    bool ok = true;
    for (std::size_t i = 0; i < segments.size() && ok; ++i)
      ok = route.pattern[i][0] == ':' || route.pattern[i] == segments[i];
    if (ok) return &route;
  }
  return nullptr;
}

// The segments of an API path, the /v1 prefix dropped.
std::vector<std::string> api_segments(const std::string& path) {
  std::vector<std::string> segments = split_path(path);
  if (!segments.empty() && segments.front() == "v1") segments.erase(segments.begin());
  return segments;
}

// AsynchronousOperationResult: {"status":{"id":"IN_PROGRESS"|"COMPLETED"},"operation":...}.
ordered_json operation_body(const Snapshot& s, const Operation* op) {
  ordered_json body;
  const bool done = op && op->status.state != run::OperationStatus::State::in_progress;
  body["status"] = {{"id", done ? "COMPLETED" : "IN_PROGRESS"}};
  if (!done) {
    body["operation"] = nullptr;
    return body;
  }
  const bool checkpoint = op->kind == model::ActionKind::trigger_checkpoint;
  ordered_json operation;
  if (op->status.state == run::OperationStatus::State::failed) {
    // SerializedThrowable's JSON: the class, the stack trace and the Java-serialized bytes
    // (here the message's bytes: ckptsim has no Java object to serialize).
    ordered_json cause;
    cause["class"] = "org.apache.flink.runtime.checkpoint.CheckpointException";
    cause["stack-trace"] =
        "org.apache.flink.runtime.checkpoint.CheckpointException: " + op->status.failure;
    cause["serialized-throwable"] = op->status.failure;
    operation[checkpoint ? "failureCause" : "failure-cause"] = std::move(cause);
  } else if (checkpoint) {
    operation["checkpointId"] = op->status.checkpoint_id;  // CheckpointInfo
  } else if (op->kind != model::ActionKind::cancel) {
    const run::CheckpointRecord* c = find_checkpoint(s.result, op->status.checkpoint_id);
    operation["location"] = c ? c->external_path : "";  // SavepointInfo
  }
  body["operation"] = std::move(operation);
  return body;
}

}  // namespace

HttpResponse error_response(unsigned status, const std::string& message) {
  ordered_json body;
  body["errors"] = ordered_json::array({message});
  return json_response(status, body);
}

RestApi::RestApi(const SnapshotStore& snapshots, RequestQueue& requests)
    : snapshots_(snapshots), requests_(requests) {}

bool RestApi::is_api_path(const std::string& path) {
  return match(api_segments(path)) != nullptr;
}

HttpResponse RestApi::handle(const HttpRequest& request) const {
  const auto [raw_path, query] = split_target(request.target);
  const std::optional<std::string> path = percent_decode(raw_path);
  if (!path) return error_response(400, "Bad request: the path is not valid percent-encoding.");
  const std::shared_ptr<const Snapshot> snapshot = snapshots_.latest();
  if (!snapshot) return error_response(503, "The simulation has not started yet.");
  const Route* route = match(api_segments(*path));
  if (!route) return error_response(404, "Not found: " + raw_path);  // RouterHandler
  const std::string methods = route->methods;
  if (methods.find(request.method) == std::string::npos || request.method.empty()) {
    HttpResponse r = error_response(405, "Method " + request.method + " is not allowed on " +
                                             raw_path + "; allowed: " + methods + ".");
    r.allow = methods;
    return r;
  }
  if (request.method == "POST") return post(*snapshot, *path, request.body);
  if (request.method == "PATCH") return patch(*snapshot, *path, query);
  {
    std::lock_guard lock(memo_mutex_);
    if (memo_for_ != snapshot) {
      memo_.clear();
      memo_for_ = snapshot;
    }
    const auto it = memo_.find(request.target);
    if (it != memo_.end()) return it->second;
  }
  HttpResponse response = get(*snapshot, *path, query);
  // An operation's status also depends on the request queue, which moves between snapshots.
  const bool operation_status = route->pattern.back() == ":triggerid";
  if (!operation_status) {
    std::lock_guard lock(memo_mutex_);
    if (memo_for_ == snapshot && memo_.size() < 4096) memo_.emplace(request.target, response);
  }
  return response;
}

HttpResponse RestApi::get(const Snapshot& s, const std::string& path,
                          const std::string& query) const {
  const run::RunResult& r = s.result;
  const std::vector<std::string> seg = api_segments(path);
  if (seg == std::vector<std::string>{"overview"}) return json_response(200, run::rest_overview(r));
  if (seg == std::vector<std::string>{"metrics"}) {
    // PrometheusReporter's endpoint: text exposition format 0.0.4.
    HttpResponse m;
    m.content_type = "text/plain; version=0.0.4; charset=utf-8";
    m.body = run::prometheus_text(r);
    return m;
  }
  if (seg == std::vector<std::string>{"jobmanager", "metrics"})
    return json_response(200, run::rest_jobmanager_metrics(r, query_list(query, "get")));
  if (seg == std::vector<std::string>{"config"})
    return json_response(200, run::rest_dashboard_config(r));
  if (seg == std::vector<std::string>{"taskmanagers"})
    return json_response(200, run::rest_taskmanagers(r));
  if (seg == std::vector<std::string>{"jobmanager", "config"})
    return json_response(200, run::rest_jobmanager_config(r));
  if (seg == std::vector<std::string>{"jobs"}) return json_response(200, run::rest_jobs(r));
  if (seg.size() == 2 && seg[1] == "overview")
    return json_response(200, run::rest_jobs_overview(r));
  // /jobs/:jid/...
  const std::string& jid = seg[1];
  if (!is_hex_id(jid)) return bad_parameter("jobid", jid);
  if (jid != r.job_id) return error_response(404, "Job " + jid + " not found");
  if (seg.size() == 2) return json_response(200, run::rest_job_details(r));
  const std::string& what = seg[2];
  if (what == "metrics") return json_response(200, run::rest_job_metrics(r, query_list(query, "get")));
  if (what == "plan") return json_response(200, run::rest_job_plan(r));
  if (what == "config") return json_response(200, run::rest_job_config(r));
  if (what == "exceptions") {
    // JobExceptionsHandler: maxExceptions, 20 by default.
    const std::string max_text = query_value(query, "maxExceptions").value_or("20");
    const auto max = parse_id(max_text);
    if (!max || *max < 0)
      return error_response(400, "Bad request, could not parse parameters: Cannot resolve query "
                                 "parameter (maxExceptions) from value \"" + max_text + "\".");
    return json_response(200, run::rest_job_exceptions(r, static_cast<int>(std::min<std::int64_t>(*max, 1 << 20))));
  }
  if (what == "vertices") {
    const std::string& vid = seg[3];
    if (!is_hex_id(vid)) return bad_parameter("vertexid", vid);
    const int v = vertex_index(r, vid);
    if (seg.size() == 4 || seg[4] == "backpressure" || seg[4] == "watermarks") {
      // AbstractJobVertexHandler: a vertex the job does not have.
      if (v < 0) return error_response(404, "No vertex with ID '" + vid + "' exists.");
      if (seg.size() == 4) return json_response(200, run::rest_vertex_details(r, v));
      if (seg[4] == "backpressure") return json_response(200, run::rest_vertex_backpressure(r, v));
      return json_response(200, run::rest_vertex_watermarks(r, v));
    }
    // The metric handlers answer [] for what the MetricStore holds nothing of.
    if (seg.back() == "metrics" && seg.size() == 5)
      return json_response(200, v < 0 ? ordered_json::array()
                                      : run::rest_vertex_metrics(r, v, query_list(query, "get")));
    if (seg.back() == "metrics" && seg.size() == 6) {
      if (v < 0) return json_response(200, ordered_json::array());
      try {
        return json_response(200, run::rest_subtasks_metrics(r, v, query_list(query, "get"),
                                                             query_list(query, "agg"),
                                                             query_list(query, "subtasks")));
      } catch (const std::invalid_argument& e) {
        return error_response(400, e.what());
      }
    }
  }
  if (what == "savepoints" || (what == "checkpoints" && seg.size() == 4 && seg[3] != "config")) {
    const std::string& trigger = seg[3];
    const auto it = s.operations.find(trigger);
    const auto kind = requests_.known(trigger);
    const bool checkpoint_route = what == "checkpoints";
    const bool matches =
        kind && (*kind == model::ActionKind::trigger_checkpoint) == checkpoint_route;
    if (!matches)
      return error_response(404, std::string("There is no ") +
                                     (checkpoint_route ? "checkpoint" : "savepoint") +
                                     " operation with triggerId=" + trigger + " for job " + jid);
    return json_response(200,
                         operation_body(s, it == s.operations.end() ? nullptr : &it->second));
  }
  if (what == "checkpoints") {
    // A streaming job always has a CheckpointCoordinator (its JobCheckpointingSettings exist
    // even with checkpointing off), so "Checkpointing has not been enabled." is a batch job's.
    if (seg.size() == 3) return json_response(200, run::rest_checkpoints(r));
    if (seg[3] == "config") return json_response(200, run::rest_checkpoint_config(r));
    const std::string& id_text = seg[4];
    const auto id = parse_id(id_text);
    if (!id) return bad_parameter("checkpointid", id_text);
    const run::CheckpointRecord* c = find_checkpoint(r, *id);
    if (!c)
      return error_response(404, "Could not find checkpointing statistics for checkpoint " +
                                     id_text + ".");
    if (seg.size() == 5) return json_response(200, run::rest_checkpoint_details(r, *c));
    const std::string& vid = seg[6];
    if (!is_hex_id(vid)) return bad_parameter("vertexid", vid);
    for (std::size_t v = 0; v < r.vertices.size(); ++v)
      if (r.vertices[v].id == vid)
        return json_response(200, run::rest_checkpoint_subtasks(r, *c, static_cast<int>(v)));
    // TaskCheckpointStatisticDetailsHandler: no statistics of that vertex in the checkpoint.
    return error_response(404, "There is no checkpoint statistics for task " + vid + ".");
  }
  return error_response(404, "Not found: " + path);
}

HttpResponse RestApi::post(const Snapshot& s, const std::string& path,
                           const std::string& body) const {
  const std::vector<std::string> seg = api_segments(path);
  const std::string& jid = seg[1];
  if (!is_hex_id(jid)) return bad_parameter("jobid", jid);
  if (jid != s.result.job_id) return error_response(404, "Job " + jid + " not found");
  const std::string& what = seg[2];
  ordered_json request = ordered_json::object();
  if (!body.empty()) {
    request = ordered_json::parse(body, nullptr, false);
    if (request.is_discarded() || !request.is_object()) {
      const char* type = what == "savepoints"  ? "SavepointTriggerRequestBody"
                         : what == "stop"      ? "StopWithSavepointRequestBody"
                                               : "CheckpointTriggerRequestBody";
      return error_response(400, std::string("Request did not match expected format ") + type +
                                     ".");
    }
  }
  model::TimelineAction action;
  if (what == "savepoints") {
    if (request.value("cancel-job", false))
      return error_response(400, "ckptsim does not model a savepoint with cancel-job; use POST "
                                 "/jobs/:jobid/stop (stop with savepoint) instead.");
    action.kind = model::ActionKind::trigger_savepoint;
  } else if (what == "stop") {
    action.kind = model::ActionKind::stop_with_savepoint;
  } else {
    // POST /jobs/:jobid/checkpoints exists from Flink 1.17: FLINK-27101 (commit 5d66e82915e)
    // added CheckpointHandlers.CheckpointTriggerHandler, which WebMonitorEndpoint registers on
    // release-1.17; release-1.15/-1.16 have no CheckpointTriggerHeaders.
    if (s.result.flink_version < model::FlinkVersion::v1_17)
      return error_response(404, "Not found: " + path);
    action.kind = model::ActionKind::trigger_checkpoint;
  }
  // A trigger id the client chose (triggerId, for idempotent retries) or a new one.
  std::string trigger = request.value("triggerId", std::string());
  if (trigger.empty() || !is_hex_id(trigger))
    trigger = run::stable_id("trigger/" + s.result.job_id + "/" +
                             std::to_string(requests_.next_number()));
  if (!requests_.known(trigger)) requests_.push({trigger, action});
  ordered_json response;
  response["request-id"] = trigger;  // TriggerResponse
  return json_response(202, response);
}

HttpResponse RestApi::patch(const Snapshot& s, const std::string& path,
                            const std::string& query) const {
  const std::vector<std::string> seg = api_segments(path);
  const std::string& jid = seg[1];
  if (!is_hex_id(jid)) return bad_parameter("jobid", jid);
  if (jid != s.result.job_id) return error_response(404, "Job " + jid + " not found");
  // JobCancellationHandler: ?mode=cancel (the default); "stop" was removed with the legacy
  // stoppable sources.
  const std::string mode = query_value(query, "mode").value_or("cancel");
  if (mode != "cancel")
    return error_response(400, "Bad request, could not parse parameters: Cannot resolve query "
                               "parameter (mode) from value \"" + mode + "\".");
  model::TimelineAction action;
  action.kind = model::ActionKind::cancel;
  requests_.push({run::stable_id("cancel/" + s.result.job_id + "/" +
                                 std::to_string(requests_.next_number())),
                  action});
  return json_response(202, ordered_json::object());
}

}  // namespace ckptsim::server
