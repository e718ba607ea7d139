// Flink's log lines, word for word (CheckpointCoordinator, CheckpointFailureManager,
// CheckpointRequestDecider, JobMaster/DefaultScheduler, ExecutionGraph), from the model's facts.
#include "sim/run/recorder.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sim/core/random.hpp"
#include "sim/run/writers/java_stack_frames.hpp"

namespace ckptsim::run {
namespace {
constexpr const char* kCoordinator = "org.apache.flink.runtime.checkpoint.CheckpointCoordinator";
constexpr const char* kFailureManager =
    "org.apache.flink.runtime.checkpoint.CheckpointFailureManager";
constexpr const char* kDecider = "org.apache.flink.runtime.checkpoint.CheckpointRequestDecider";
constexpr const char* kJobMaster = "org.apache.flink.runtime.jobmaster.JobMaster";
constexpr const char* kSourceCoordinator =
    "org.apache.flink.runtime.source.coordinator.SourceCoordinator";
constexpr const char* kExecutionGraph = "org.apache.flink.runtime.executiongraph.ExecutionGraph";
constexpr const char* kDispatcher = "org.apache.flink.runtime.dispatcher.StandaloneDispatcher";
constexpr const char* kCheckpointException =
    "org.apache.flink.runtime.checkpoint.CheckpointException";

// CheckpointType / SavepointType toString() as the "Triggering checkpoint" line prints it.
const char* type_string(model::SnapshotType t) {
  switch (t) {
    case model::SnapshotType::checkpoint:
      return "CheckpointType{name='Checkpoint', sharingFilesStrategy=FORWARD_BACKWARD}";
    case model::SnapshotType::full_checkpoint:
      return "CheckpointType{name='Full Checkpoint', sharingFilesStrategy=FORWARD}";
    case model::SnapshotType::savepoint:
      return "SavepointType{name='Savepoint', postCheckpointAction=NONE, formatType=CANONICAL}";
    case model::SnapshotType::sync_savepoint:
      return "SavepointType{name='Suspend Savepoint', postCheckpointAction=SUSPEND, "
             "formatType=CANONICAL}";
  }
  return "";
}
}  // namespace

std::string stable_id(const std::string& name) {
  std::uint64_t a = core::stable_hash(name);
  std::uint64_t b = core::stable_hash(name + "#ckptsim");
  return fmt::format("{:016x}{:016x}", core::splitmix64(a), core::splitmix64(b));
}

Recorder::Recorder(const model::Scenario& scenario, std::string job_id) : scenario_(scenario) {
  result_.scenario_name = scenario.name;
  result_.job_id = std::move(job_id);
  result_.job_name = scenario.job.name;
  result_.flink_version = scenario.flink.version;
  result_.start_epoch_ms = scenario.start_epoch_ms;
  result_.seed = scenario.seed;
  result_.flink = scenario.flink;
  result_.taskmanagers = scenario.cluster.taskmanagers;
  int max_parallelism = 1;
  for (const model::VertexSpec& v : scenario.job.vertices) {
    result_.vertices.push_back({stable_id(scenario.job.name + "/" + v.name), v.name, v.parallelism});
    result_.vertices.back().ship = v.ship;
    result_.vertices.back().record_size = v.record_size;
    max_parallelism = std::max(max_parallelism, v.parallelism);
    subtask_offset_.push_back(subtasks_);
    subtasks_ += static_cast<std::size_t>(std::max(0, v.parallelism));
  }
  // The time series' rows, one per subtask and sample period, without growing by copies (up to
  // 4 M rows; a failover's new attempts may add more).
  if (scenario.sample_period > 0) {
    const auto periods = static_cast<std::size_t>(scenario.duration / scenario.sample_period) + 1;
    result_.timeseries.reserve(std::min<std::size_t>(subtasks_ * periods, std::size_t{1} << 22));
  }
  // The job graph's edges, for the trace's barrier arrows.
  for (std::size_t i = 0; i < scenario.job.vertices.size(); ++i) {
    const model::VertexSpec& v = scenario.job.vertices[i];
    if (!v.input) continue;
    for (std::size_t u = 0; u < scenario.job.vertices.size(); ++u) {
      if (scenario.job.vertices[u].name != *v.input) continue;
      result_.vertices[i].input = static_cast<int>(u);
      result_.vertices[i].pointwise = v.ship == model::ShipStrategy::forward &&
                                      scenario.job.vertices[u].parallelism == v.parallelism;
    }
  }
  const int slots = scenario.cluster.slots_per_taskmanager > 0
                        ? scenario.cluster.slots_per_taskmanager
                        : (max_parallelism + scenario.cluster.taskmanagers - 1) /
                              scenario.cluster.taskmanagers;
  result_.slots_total = slots * scenario.cluster.taskmanagers;
  result_.executions.resize(subtasks_);
}

void Recorder::log(SimTime t, LogLevel level, const char* logger, std::string message,
                   std::vector<std::string> throwable) {
  result_.log.push_back({t, level, logger, std::move(message), std::move(throwable)});
}

CheckpointRecord* Recorder::find(std::int64_t id) {
  auto it = index_.find(id);
  return it == index_.end() ? nullptr : &result_.checkpoints[it->second];
}

std::string Recorder::attempt_id(model::TaskRef t) const {
  // ExecutionAttemptID on release-1.15 wraps a random AbstractID: 32 hex digits, here a stable
  // one per execution graph, subtask and attempt. 1.16 made it an ExecutionGraphID, an
  // ExecutionVertexID and the attempt number.
  if (result_.flink_version < model::FlinkVersion::v1_16)
    return stable_id(fmt::format("attempt/{}/{}/{}/{}", execution_graph_id_, t.vertex, t.subtask,
                                 t.attempt));
  // ExecutionAttemptID.toString(): <executionGraphId>_<vertexId>_<subtask>_<attempt>
  return fmt::format("{}_{}_{}_{}", execution_graph_id_,
                     result_.vertices[static_cast<std::size_t>(t.vertex)].id, t.subtask,
                     t.attempt);
}

std::string Recorder::task_name(model::TaskRef t) const {
  const VertexInfo& v = result_.vertices[static_cast<std::size_t>(t.vertex)];
  return fmt::format("{} ({}/{})", v.name, t.subtask + 1, v.parallelism);
}

std::string Recorder::location(model::TaskRef t) const {
  const int tm = t.subtask % std::max(1, result_.taskmanagers) + 1;
  return fmt::format("ckptsim-taskmanager-{} @ ckptsim-taskmanager-{} (dataPort=6121)", tm, tm);
}

std::string Recorder::allocation_id(model::TaskRef t) const {
  // The AllocationID (an AbstractID) of the slot the subtask runs in. Default slot sharing puts
  // the subtasks with one index into one slot; a restart reuses the slot the JobMaster holds, a
  // new submission allocates new ones.
  return stable_id(fmt::format("{}/{}/slot{}/submission{}", scenario_.name, scenario_.seed,
                               t.subtask, submission_));
}

// ---------------------------------------------------------------------------------------------

void Recorder::job_submitted(SimTime t, int submission) {
  submission_ = submission;
  execution_graph_id_ = stable_id(fmt::format("{}/{}/eg{}", scenario_.name, scenario_.seed,
                                              submission));
  result_.submissions = submission;
  result_.submission_time = t;
  if (submission > 1) {
    // New Executions of a new ExecutionGraph.
    result_.executions.assign(subtasks_, SubtaskExecution{});
    // A new submission has a new ExecutionGraph: new statistics, ids from its restore point.
    for (CheckpointRecord& c : result_.checkpoints) result_.earlier_checkpoints.push_back(c);
    result_.checkpoints.clear();
    index_.clear();
    result_.counts = {};
    result_.failures_without_checkpoint.clear();
    result_.restores.clear();
    result_.latest_restored.reset();
  }
  // Dispatcher.submitJob; 2.0 submits an ExecutionPlan (FLINK-36446) and says "job", 2.1 too;
  // release-1.15/-1.16 say "JobGraph" like 1.17.
  const bool v2 = result_.flink_version >= model::FlinkVersion::v2_0;
  log(t, LogLevel::info, kDispatcher,
      fmt::format("Received {} submission '{}' ({}).", v2 ? "job" : "JobGraph", result_.job_name,
                  result_.job_id));
}

void Recorder::savepoint_requested(SimTime t, bool stop) {
  log(t, LogLevel::info, kJobMaster,
      stop ? fmt::format("Triggering stop-with-savepoint for job {}.", result_.job_id)
           : fmt::format("Triggering savepoint for job {}.", result_.job_id));
}

void Recorder::restarting_tasks(SimTime t) {
  // DefaultScheduler.restartTasksWithDelay logs before addVerticesToRestartPending moves the job
  // to RESTARTING (a region failing while another restarts logs it too, without a status
  // change); a task failure names the failed ExecutionAttemptID (1.16-2.1; FLINK-28137 added
  // the lines in 1.16, release-1.15's DefaultScheduler has none: task_failed).
  if (result_.flink_version < model::FlinkVersion::v1_16) return;
  log(t, LogLevel::info, kJobMaster,
      task_failure_ ? fmt::format("{} tasks will be restarted to recover the failed task {}.",
                                  tasks_to_restart_, failed_attempt_)
                    : fmt::format("{} tasks will be restarted to recover from a global failure.",
                                  tasks_to_restart_));
}

void Recorder::job_status_changed(SimTime t, model::JobStatus from, model::JobStatus to) {
  std::vector<std::string> cause;
  if (to == model::JobStatus::failing && !suppressed_by_.empty()) {
    cause.push_back("org.apache.flink.runtime.JobException: Recovery is suppressed by " +
                    suppressed_by_);
    cause.push_back("Caused by: " + failure_class_ + ": " + failure_message_);
  }
  // DefaultExecutionGraph.transitionState. The ExecutionGraph is created CREATED: INITIALIZING
  // is the Dispatcher's status of a job whose JobMaster is starting, and no line says it ends.
  if (from != model::JobStatus::initializing)
    log(t, LogLevel::info, kExecutionGraph,
        fmt::format("Job {} ({}) switched from state {} to {}.", result_.job_name, result_.job_id,
                    model::to_string(from), model::to_string(to)),
        std::move(cause));
  result_.job_status_changes.push_back({t, from, to});
  result_.final_status = to;
}

void Recorder::task_state_changed(SimTime t, model::TaskRef task, model::ExecutionState from,
                                  model::ExecutionState to) {
  record_execution_state(t, task, from, to);
  // Execution.transitionState: " on <location>" only for a transition with an error, which
  // task_failed logs with its exception.
  if (to == model::ExecutionState::failed) {
    failed_from_ = from;
    return;
  }
  log(t, LogLevel::info, kExecutionGraph,
      fmt::format("{} ({}) switched from {} to {}.", task_name(task), attempt_id(task),
                  model::to_string(from), model::to_string(to)));
  if (to == model::ExecutionState::deploying) {
    // Execution.deploy, right after the transition: the ExecutionVertexID is
    // <JobVertexID>_<subtask>, the location TaskManagerLocation.toString().
    const VertexInfo& v = result_.vertices[static_cast<std::size_t>(task.vertex)];
    log(t, LogLevel::info, kExecutionGraph,
        fmt::format("Deploying {} (attempt #{}) with attempt id {} and vertex id {}_{} to {} "
                    "with allocation id {}",
                    task_name(task), task.attempt, attempt_id(task), v.id, task.subtask,
                    location(task), allocation_id(task)));
  }
}

void Recorder::record_execution_state(SimTime t, model::TaskRef task, model::ExecutionState from,
                                      model::ExecutionState to) {
  const std::size_t v = static_cast<std::size_t>(task.vertex);
  if (v >= subtask_offset_.size()) return;
  const std::size_t index = subtask_offset_[v] + static_cast<std::size_t>(task.subtask);
  if (index >= result_.executions.size()) return;
  SubtaskExecution& e = result_.executions[index];
  // A new attempt is a new Execution, created in CREATED just before its first transition.
  if (task.attempt != e.attempt) e = SubtaskExecution{};
  e.attempt = task.attempt;
  const auto at = [](model::ExecutionState s) { return static_cast<std::size_t>(s); };
  if (e.entered[at(from)] < 0) e.entered[at(from)] = t;
  e.left[at(from)] = t;
  e.entered[at(to)] = t;
  e.left[at(to)] = -1;
}

void Recorder::checkpoint_triggered(SimTime t, const model::CheckpointStart& s) {
  CheckpointRecord c;
  c.id = s.id;
  c.type = s.type;
  c.periodic = s.periodic;
  c.trigger_time = s.trigger_time;
  c.num_subtasks = s.num_subtasks;
  c.subtasks.resize(result_.vertices.size());
  for (std::size_t v = 0; v < result_.vertices.size(); ++v)
    c.subtasks[v].resize(static_cast<std::size_t>(result_.vertices[v].parallelism));
  index_[s.id] = result_.checkpoints.size();
  result_.checkpoints.push_back(std::move(c));
  ++result_.counts.total;
  ++result_.counts.in_progress;
  log(t, LogLevel::info, kCoordinator,
      fmt::format("Triggering checkpoint {} (type={}) @ {} for job {}.", s.id, type_string(s.type),
                  epoch(s.trigger_time), result_.job_id));
}

namespace {
// SubtaskStateStats from an acknowledgement's CheckpointMetrics.
void record_stats(SubtaskStats& s, SimTime t, const model::SubtaskAck& a) {
  s.ack_time = t;
  s.checkpointed_size = a.checkpointed_size;
  s.state_size = a.state_size;
  s.sync_duration = a.sync_duration;
  s.async_duration = a.async_duration;
  s.alignment_duration = a.alignment_duration;
  s.start_delay = a.start_delay;
  s.processed_bytes = a.processed_bytes;
  s.persisted_bytes = a.persisted_bytes;
  s.unaligned = a.unaligned;
}
}  // namespace

void Recorder::checkpoint_acknowledged(SimTime t, std::int64_t id, const model::SubtaskAck& a) {
  CheckpointRecord* c = find(id);
  if (!c) return;
  SubtaskStats& s = c->subtasks[static_cast<std::size_t>(a.task.vertex)]
                               [static_cast<std::size_t>(a.task.subtask)];
  if (!s.acknowledged) ++c->num_acknowledged;
  s.acknowledged = true;
  record_stats(s, t, a);
  c->latest_ack_time = std::max(c->latest_ack_time, t);
}

void Recorder::late_subtask_stats(SimTime t, std::int64_t id, const model::SubtaskAck& a) {
  // TaskStateStats.reportSubtaskStats: only into a failed entry still in the stats history
  // (CheckpointStatsHistory keeps web.checkpoints.history entries; a completed one is no
  // PendingCheckpointStats), and only the first report of a subtask.
  const auto it = index_.find(id);
  if (it == index_.end() ||
      result_.checkpoints.size() - it->second >
          static_cast<std::size_t>(std::max(result_.flink.web_checkpoints_history, 0)))
    return;
  CheckpointRecord* c = &result_.checkpoints[it->second];
  if (c->status != CheckpointStatus::failed) return;
  const auto v = static_cast<std::size_t>(a.task.vertex);
  const auto i = static_cast<std::size_t>(a.task.subtask);
  if (v >= c->subtasks.size() || i >= c->subtasks[v].size()) return;
  SubtaskStats& s = c->subtasks[v][i];
  if (s.acknowledged || s.aborted) return;
  s.aborted = true;
  record_stats(s, t, a);
}

namespace {
// A completed checkpoint is explained by its slowest subtask: of those that had not acknowledged
// at half the timeout, the one that acknowledged last.
void keep_slowest(CheckpointRecord& c) {
  if (c.slow_waits.size() <= 1) return;
  const auto ack = [&](const WaitRecord& w) {
    return c.subtasks[static_cast<std::size_t>(w.vertex)][static_cast<std::size_t>(w.subtask)]
        .ack_time;
  };
  const auto last = std::max_element(
      c.slow_waits.begin(), c.slow_waits.end(),
      [&](const WaitRecord& a, const WaitRecord& b) { return ack(a) < ack(b); });
  c.slow_waits = {*last};
}
}  // namespace

void Recorder::checkpoint_completed(SimTime t, std::int64_t id, std::int64_t bytes,
                                    Duration duration, Duration finalization,
                                    const std::string& path) {
  if (CheckpointRecord* c = find(id)) {
    c->status = CheckpointStatus::completed;
    c->end_time = t;
    keep_slowest(*c);
    c->external_path = path;
    --result_.counts.in_progress;
    ++result_.counts.completed;
  }
  log(t, LogLevel::info, kCoordinator,
      fmt::format("Completed checkpoint {} for job {} ({} bytes, checkpointDuration={} ms, "
                  "finalizationTime={} ms).",
                  id, result_.job_id, bytes, core::to_millis(duration),
                  core::to_millis(finalization)));
}

void Recorder::source_coordinator_notified(SimTime t, std::int64_t id, const std::string& source,
                                           bool complete) {
  log(t, LogLevel::info, kSourceCoordinator,
      fmt::format("Marking checkpoint {} as {} for source {}.", id,
                  complete ? "completed" : "aborted", source));
}

void Recorder::taskmanager_disconnected(SimTime t, int tm, const std::string& cause) {
  log(t, LogLevel::info, kJobMaster,
      fmt::format("Disconnect TaskExecutor ckptsim-taskmanager-{} because: {}", tm + 1, cause));
}

void Recorder::checkpoint_expired(SimTime t, std::int64_t id) {
  log(t, LogLevel::info, kCoordinator,
      fmt::format("Checkpoint {} of job {} expired before completing.", id, result_.job_id));
}

void Recorder::checkpoint_wait(SimTime t, std::int64_t id, model::TaskRef task,
                               const model::WaitState& w, bool slow) {
  CheckpointRecord* c = find(id);
  if (!c) return;
  static constexpr const char* kKinds[] = {
      "not_running",         "blocked_in_user_call", "trigger_not_run",  "checkpoint_lock",
      "barrier_behind_data",
      "barrier_not_sent",    "aligning",             "async_upload",    "acknowledged",
      "sink_write",          "sink_stop_load",       "cdc_snapshot_lock",  "coordinator",
      "lock_held",           "sink_flush",           "in_call"};
  WaitRecord r;
  r.vertex = task.vertex;
  r.subtask = task.subtask;
  r.kind = kKinds[static_cast<int>(w.kind)];
  if (w.has_upstream) {
    r.upstream_vertex = w.upstream.vertex;
    r.upstream_subtask = w.upstream.subtask;
  }
  r.bytes_ahead = w.bytes_ahead;
  r.drain_bytes_per_second = w.drain_bytes_per_second;
  r.back_pressured = w.back_pressured;
  r.channels_aligned = w.channels_aligned;
  r.channels_total = w.channels_total;
  r.since = w.since;
  r.table = w.table;
  r.until = w.until;
  r.call = w.call;
  r.failed_at = w.failed_at;
  r.error = w.error;
  r.chunk_rows = w.chunk_rows;
  if (!slow) {
    c->waits.push_back(r);
    return;
  }
  c->slow_probe_time = t;
  c->slow_waits.push_back(r);
}

void Recorder::checkpoint_declined(SimTime t, std::int64_t id, model::TaskRef task,
                                   const model::CheckpointException&) {
  // CheckpointCoordinator.receiveDeclineMessage logs checkpointException.getCause() as the
  // throwable: the declines a task sends here (TASK_NOT_READY from Task.triggerCheckpointBarrier,
  // the barrier handler's SUBSUMED / ON_CANCELLATION_BARRIER / INPUT_END_OF_STREAM) are created
  // without a cause, so nothing follows the line.
  log(t, LogLevel::info, kCoordinator,
      fmt::format("Decline checkpoint {} by task {} of job {} at {}.", id, attempt_id(task),
                  result_.job_id, location(task)));
}

void Recorder::checkpoint_aborted(SimTime t, std::int64_t id,
                                  const model::CheckpointException& ex) {
  CheckpointRecord* c = find(id);
  if (!c || c->status != CheckpointStatus::in_progress) return;
  c->status = CheckpointStatus::failed;
  c->end_time = t;
  c->failure_reason = ex.reason;
  c->failure_message = ex.get_message();
  c->slow_waits.clear();  // only completed checkpoints are explained as slow
  c->slow_probe_time = -1;
  --result_.counts.in_progress;
  ++result_.counts.failed;
}

void Recorder::trigger_rpc_failed(SimTime t, std::int64_t id,
                                  const model::CheckpointException& ex) {
  log(t, LogLevel::info, kCoordinator,
      fmt::format("Triggering Checkpoint {} for job {} failed due to {}: {}", id, result_.job_id,
                  kCheckpointException, ex.get_message()));
}

void Recorder::late_message(SimTime t, std::int64_t id, model::TaskRef task) {
  log(t, LogLevel::warn, kCoordinator,
      fmt::format("Received late message for now expired checkpoint attempt {} from task {} of "
                  "job {} at {}.",
                  id, attempt_id(task), result_.job_id, location(task)));
}

void Recorder::checkpoint_id_reset(SimTime t, std::int64_t next_id) {
  log(t, LogLevel::info, kCoordinator,
      fmt::format("Reset the checkpoint ID of job {} to {}.", result_.job_id, next_id));
}

void Recorder::restored(SimTime t, const model::RestoreInfo& info) {
  ++result_.counts.restored;
  result_.latest_restored = RestoreRecord{info.id, t, model::is_savepoint(info.type),
                                          info.external_path};
  result_.restores.push_back(*result_.latest_restored);
  // CompletedCheckpoint.toString(): "%s %d @ %d for %s located at %s"
  const char* kind = model::is_savepoint(info.type) ? "Savepoint" : "Checkpoint";
  log(t, LogLevel::info, kCoordinator,
      fmt::format("Restoring job {} from {} {} @ {} for {} located at {}.", result_.job_id, kind,
                  info.id, epoch(info.snapshot_trigger_time), result_.job_id,
                  info.external_path));
}

void Recorder::no_checkpoint_found(SimTime t, bool global) {
  log(t, LogLevel::info, kCoordinator, "No checkpoint found during restore.");
  if (global)
    log(t, LogLevel::info, kCoordinator,
        "Resetting the Operator Coordinators to an empty state.");
}

void Recorder::starting_from_savepoint(SimTime t, const model::RestoreInfo& info) {
  log(t, LogLevel::info, kCoordinator,
      fmt::format("Starting job {} from savepoint {} ()", result_.job_id, info.external_path));
}

void Recorder::coordinator_shutdown(SimTime t) {
  log(t, LogLevel::info, kCoordinator,
      fmt::format("Stopping checkpoint coordinator for job {}.", result_.job_id));
}

void Recorder::request_queue_time(SimTime t, Duration waited) {
  // CheckpointRequestDecider.logInQueueTime on release-1.15/-1.16 computes
  // request.timestamp - currentTimeMillis(), never above 100 ms: the line never prints. FLINK-29307
  // fixed the subtraction in 1.17.
  if (result_.flink_version < model::FlinkVersion::v1_17) return;
  log(t, LogLevel::info, kDecider,
      fmt::format("checkpoint request time in queue: {}", core::to_millis(waited)));
}

void Recorder::checkpoint_failure_handled(SimTime t, std::int64_t id,
                                          const model::CheckpointException& ex,
                                          int counter_before, bool had_pending_stats) {
  if (!had_pending_stats) {
    // reportFailedCheckpointsWithoutInProgress: failed+1 and total+1, no history entry.
    ++result_.counts.total;
    ++result_.counts.failed;
    result_.failures_without_checkpoint.push_back(t);
  }
  if (ex.reason == model::CheckpointFailureReason::not_all_required_tasks_running) {
    log(t, LogLevel::info, kFailureManager,
        fmt::format("Failed to trigger checkpoint for job {} since {}.", result_.job_id,
                    ex.get_message()));
    return;
  }
  // The exception's frames: only the CheckpointCanceller's expiry is derived from Flink's source
  // (java_stack_frames.hpp); the other reasons' exceptions are created on paths ckptsim does not
  // trace (trigger futures, TaskManager-side declines), so they print without frames. The
  // canceller's thread logs the exception it created: log4j2 marks its frames exact. If this
  // failure exceeds the tolerable failures, checkFailureAgainstCounter creates the job's
  // FlinkRuntimeException on this same stack.
  const bool expired = ex.reason == model::CheckpointFailureReason::checkpoint_expired;
  threshold_site_ = expired ? ThrowSite::failure_threshold_from_canceller : ThrowSite::none;
  std::vector<std::string> throwable{std::string(kCheckpointException) + ": " + ex.get_message()};
  if (expired) {
    for (std::string& line :
         log4j_frame_lines(ThrowSite::checkpoint_canceller, result_.flink_version, true))
      throwable.push_back(std::move(line));
  }
  const std::string shown = id == -1 ? "UNKNOWN_CHECKPOINT_ID" : std::to_string(id);
  log(t, LogLevel::warn, kFailureManager,
      fmt::format("Failed to trigger or complete checkpoint {} for job {}. ({} consecutive failed "
                  "attempts so far)",
                  shown, result_.job_id, counter_before),
      std::move(throwable));
}

void Recorder::global_failure(SimTime t, const std::string& exception_class,
                              const std::string& message, int tasks) {
  task_failure_ = false;
  tasks_to_restart_ = tasks;
  failure_class_ = exception_class;
  failure_message_ = message;
  suppressed_by_.clear();
  // The CheckpointFailureManager's FlinkRuntimeException was created with the checkpoint failure
  // handled last; the JobMaster's main thread logs it, whose stack has none of its frames (all
  // '~').
  const bool threshold =
      exception_class == "org.apache.flink.util.FlinkRuntimeException" &&
      message.rfind("Exceeded checkpoint tolerable failure threshold", 0) == 0;
  const ThrowSite site = threshold ? threshold_site_ : ThrowSite::none;
  result_.global_failures.push_back({t, exception_class, message, site});
  std::vector<std::string> throwable{exception_class + ": " + message};
  for (std::string& line : log4j_frame_lines(site, result_.flink_version, false))
    throwable.push_back(std::move(line));
  log(t, LogLevel::info, kJobMaster, "Trying to recover from a global failure.",
      std::move(throwable));
}

void Recorder::task_failed(SimTime t, model::TaskRef task, const std::string& exception_class,
                           const std::string& message, int tasks) {
  task_failure_ = true;
  failed_attempt_ = attempt_id(task);
  tasks_to_restart_ = tasks;
  failure_class_ = exception_class;
  failure_message_ = message;
  suppressed_by_.clear();
  result_.task_failures.push_back(
      {t, task.vertex, task.subtask, exception_class, message, task.attempt});
  // Execution.markFailed -> transitionState with the error, " on <location>". (The region
  // failover strategy's "Calculating tasks to restart ..." lines were removed in 1.16,
  // FLINK-28137; DefaultScheduler.restartTasksWithDelay names the attempt, job_status_changed.)
  // The message may carry its causes on further lines ("Caused by: ...").
  std::vector<std::string> throwable;
  std::string first = exception_class + ": ";
  for (std::size_t pos = 0;;) {
    const std::size_t end = message.find('\n', pos);
    throwable.push_back((throwable.empty() ? first : std::string()) +
                        message.substr(pos, end == std::string::npos ? end : end - pos));
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  log(t, LogLevel::info, kExecutionGraph,
      fmt::format("{} ({}) switched from {} to FAILED on {}.", task_name(task),
                  attempt_id(task), model::to_string(failed_from_), location(task)),
      std::move(throwable));
  if (result_.flink_version < model::FlinkVersion::v1_16 &&
      scenario_.flink.failover_strategy == model::FailoverStrategyKind::region) {
    // Release-1.15: ExecutionFailureHandler.getFailureHandlingResult asks the failover strategy
    // for the tasks to restart before it asks the restart strategy, so these print even when
    // recovery is suppressed. RestartPipelinedRegionFailoverStrategy.getTasksNeedingRestart
    // names the ExecutionVertexID (<JobVertexID>_<subtask>); the second line ends in a space.
    // (The default strategy, region; 'full', RestartAllFailoverStrategy, logs neither.)
    constexpr const char* kRegionStrategy =
        "org.apache.flink.runtime.executiongraph.failover.flip1."
        "RestartPipelinedRegionFailoverStrategy";
    const std::string vertex_id =
        fmt::format("{}_{}", result_.vertices[static_cast<std::size_t>(task.vertex)].id,
                    task.subtask);
    log(t, LogLevel::info, kRegionStrategy,
        fmt::format("Calculating tasks to restart to recover the failed task {}.", vertex_id));
    log(t, LogLevel::info, kRegionStrategy,
        fmt::format("{} tasks should be restarted to recover the failed task {}. ", tasks,
                    vertex_id));
  }
}

void Recorder::connector_event(SimTime t, const model::ConnectorEvent& e) {
  result_.connector_events.push_back({t, e});
  if (e.kind == model::ConnectorEvent::Kind::kafka_txn_lost) result_.lost_records += e.rows;
  // The split enumerator runs on the JobManager: MySqlSnapshotSplitAssigner (the base
  // SnapshotSplitAssigner for the other dialects) logs the snapshot-to-stream switch in
  // onFinishedSplits and notifyCheckpointComplete (flink-cdc 2.4).
  const char* const kAssigner = model::dialect(e.dialect).assigner_class;
  using Kind = model::ConnectorEvent::Kind;
  if (e.kind == Kind::cdc_binlog_waiting)
    log(t, LogLevel::info, kAssigner,
        "Snapshot split assigner received all splits finished, waiting for a complete "
        "checkpoint to mark the assigner finished.");
  if (e.kind == Kind::cdc_assigner_finished)
    log(t, LogLevel::info, kAssigner,
        e.rows == 1 ? "Snapshot split assigner received all splits finished and the job "
                      "parallelism is 1, snapshot split assigner is turn into finished status."
                    : "Snapshot split assigner is turn into finished status.");
}

void Recorder::task_sample(SimTime t, model::TaskRef task, const model::TaskSample& sample) {
  result_.timeseries.push_back({t, task.vertex, task.subtask, sample});
}

void Recorder::restart_suppressed(SimTime, const std::string& strategy) {
  suppressed_by_ = strategy;
}


}  // namespace ckptsim::run
