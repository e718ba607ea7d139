// The REST bodies of Flink's job, vertex and cluster endpoints beyond the checkpoint ones: what
// the Web Dashboard and monitoring tools call (reference/flink-rest.md sections 2, 5 and 7). Each
// reads only a RunResult, which may be a snapshot taken mid-run: `end_time` is Flink's "now",
// `final_status` / `final_task_states` / `executions` the current states. Field order as Jackson
// writes Flink's ResponseBody classes: @JsonCreator parameters first, then other properties;
// maps keyed by an enum (identity hash in the JVM, so no stable order) in declaration order.
// A `vertex` argument is an index into result.vertices (the server maps :vid to it).
#pragma once

#include <nlohmann/json.hpp>

#include "sim/run/result.hpp"

namespace ckptsim::run {

// GET /config (DashboardConfiguration).
nlohmann::ordered_json rest_dashboard_config(const RunResult& result);

// GET /jobs (JobIdsWithStatusOverview).
nlohmann::ordered_json rest_jobs(const RunResult& result);

// GET /jobs/:jid (JobDetailsInfo: vertices, status-counts, timestamps, plan).
nlohmann::ordered_json rest_job_details(const RunResult& result);

// GET /jobs/:jid/plan (JobPlanInfo).
nlohmann::ordered_json rest_job_plan(const RunResult& result);

// GET /jobs/:jid/config (JobConfigInfo: jid, name, execution-config).
nlohmann::ordered_json rest_job_config(const RunResult& result);

// GET /jobs/:jid/exceptions?maxExceptions=N (JobExceptionsInfoWithHistory), newest failure first;
// 1.x adds the deprecated root-exception, timestamp, all-exceptions and truncated.
nlohmann::ordered_json rest_job_exceptions(const RunResult& result, int max_exceptions = 20);

// GET /jobs/:jid/vertices/:vid (JobVertexDetailsInfo) for the vertex at index `vertex`.
nlohmann::ordered_json rest_vertex_details(const RunResult& result, int vertex);

// GET /jobs/:jid/vertices/:vid/backpressure (JobVertexBackPressureInfo).
nlohmann::ordered_json rest_vertex_backpressure(const RunResult& result, int vertex);

// GET /jobs/:jid/vertices/:vid/watermarks (a JSON array, MetricCollectionResponseBody's wire).
nlohmann::ordered_json rest_vertex_watermarks(const RunResult& result, int vertex);

// GET /taskmanagers (TaskManagersInfo).
nlohmann::ordered_json rest_taskmanagers(const RunResult& result);

// GET /jobmanager/config (a JSON array of {key, value}, ClusterConfigurationInfoEntry).
nlohmann::ordered_json rest_jobmanager_config(const RunResult& result);

}  // namespace ckptsim::run
