// DefaultScheduler/JobMaster behaviour around checkpoints: global failover, restarts, restore
// (DefaultScheduler.handleGlobalFailure, restartTasksWithDelay, SchedulerBase.restoreState).
#include "sim/model/job_master.hpp"

#include <algorithm>

namespace ckptsim::model {
namespace {
// Timings of the JobManager's threads, as measured in the seed incident's log (Flink 1.17.2,
// seeds/000): the WARN of the expired checkpoint at 12:53:41,653; "checkpoint request time in
// queue" at ,672 (the checkpoint timer thread finishes the abort, then runs executeQueuedRequest:
// 19 ms); "Trying to recover from a global failure." at ,680 (FailJobCallback.failJob's runnable
// reaches the JobMaster main thread 27 ms after the WARN, after the queued request was taken);
// "1 tasks will be restarted" at ,686 (the failure handling before restartTasksWithDelay: 6 ms).
// The queue time it logs, 590028 ms, is the 10 min timeout less one 10 s interval, plus those
// 19 ms, plus the 9 ms from a trigger's timestamp to createPendingCheckpoint scheduling its
// CheckpointCanceller (the plan's way to the main thread, the id counter on the io executor).
constexpr Duration kPlanLatency = core::milliseconds(9);
constexpr Duration kAbortHandling = core::milliseconds(19);
constexpr Duration kFailJobLatency = core::milliseconds(27);
// OperatorCoordinatorHolder.notifyCheckpointComplete/Aborted hands the call to the main thread,
// which hands it to the coordinator's own thread: a real 1.18.1 log (doris#45965) shows
// SourceCoordinator's "Marking checkpoint" line 1 ms after "Completed checkpoint".
constexpr Duration kCoordinatorNotification = core::milliseconds(1);
constexpr Duration kFailureHandling = core::milliseconds(6);
constexpr const char* kFlinkRuntimeException = "org.apache.flink.util.FlinkRuntimeException";
}  // namespace

JobMaster::JobMaster(core::Simulation& sim, const Scenario& scenario, std::string job_id,
                     Observer& observer)
    : sim_(sim),
      scenario_(scenario),
      job_id_(std::move(job_id)),
      observer_(observer),
      main_thread_(sim),
      tasks_(sim, scenario, observer, *this),
      failure_rng_(scenario.seed, "random-failures") {}

JobMaster::~JobMaster() = default;

void JobMaster::start() {
  for (std::size_t i = 0; i < scenario_.timeline.size(); ++i) {
    const TimelineAction& a = scenario_.timeline[i];
    if (!a.is_fixed()) {
      if (a.anchor == ActionAnchor::time) schedule_occurrence(i, 0, a.at);
      continue;  // the others wait for their anchor
    }
    if (a.kind == ActionKind::stall || (a.kind == ActionKind::slow_down && !a.vertex.empty())) {
      // A stall (or a vertex's slow-down) is a property of the vertex's environment: it outlives
      // task restarts. A stalled operator blocks the whole task its chain runs in.
      const int task = task_of_operator(scenario_.job, a.vertex);
      if (task >= 0)
        tasks_.add_stall(task, a.subtask, a.at, a.duration,
                         a.kind == ActionKind::slow_down ? a.factor : 0, a.interruptible);
      continue;
    }
    if (a.kind == ActionKind::gc_pause || a.kind == ActionKind::lose_taskmanager) {
      // Every task thread on the TaskManager stops: for the pause, or (a lost TaskManager) until
      // the JobManager's heartbeat times out and fails its tasks.
      const Duration length =
          a.kind == ActionKind::gc_pause ? *a.duration : scenario_.flink.heartbeat_timeout;
      tasks_.stall_taskmanager(a.taskmanager, a.at, length);
      if (a.kind == ActionKind::lose_taskmanager)
        sim_.schedule_at(a.at + length, this, kHeartbeatTimeout, i);
      continue;
    }
    if (a.at == 0 && is_system_operation(a.kind)) {
      // Operations on external systems at 0 are the preparation the job starts after (the
      // table swap, DROP DATABASE): they happen before the submission.
      run_action(a);
      continue;
    }
    sim_.schedule_at(a.at, this, kTimelineAction, i);
  }
  if (scenario_.cluster.mtbf)
    sim_.schedule_in(static_cast<Duration>(failure_rng_.exponential(
                         static_cast<double>(*scenario_.cluster.mtbf))),
                     this, kRandomFailure);
  submit(nullptr);
}

void JobMaster::transition(JobStatus to) {
  const JobStatus from = status_;
  if (from == to) return;
  status_ = to;
  observer_.job_status_changed(sim_.now(), from, to);
  if (to == JobStatus::running) {
    ++runs_;
    running_since_ = sim_.now();
    anchor_reached(ActionAnchor::job_running, 0);
  }
  // CheckpointCoordinatorDeActivator: RUNNING starts periodic checkpointing, anything else
  // stops it (only when periodic checkpointing is configured).
  if (!coordinator_ || !flink().checkpointing.interval) return;
  if (to == JobStatus::running)
    coordinator_->start_checkpoint_scheduler();
  else
    coordinator_->stop_checkpoint_scheduler();
  if (is_globally_terminal(to)) coordinator_->shutdown();
}

void JobMaster::submit(const CompletedCheckpoint* restore_from) {
  ++submission_;
  observer_.job_submitted(sim_.now(), submission_);
  tasks_.job_submitted();
  if (coordinator_) finished_coordinators_.push_back(std::move(coordinator_));
  for (auto& [id, probe] : slow_probes_) sim_.cancel(probe);  // ids start again with the new one
  slow_probes_.clear();
  CheckpointCoordinatorConfig cc;
  cc.checkpointing = this->flink().checkpointing;
  cc.version = scenario_.flink.version;
  cc.master_steps = scenario_.jobmanager.master_steps;
  // A CDC source's split enumerator is an operator coordinator (SourceCoordinator), and so is
  // a Hudi sink's StreamWriteOperatorCoordinator (unless declared under jobmanager.coordinators
  // with a cost of its own).
  for (std::size_t v = 0; v < scenario_.job.vertices.size(); ++v) {
    const VertexSpec& vertex = scenario_.job.vertices[v];
    const bool cdc = vertex.cdc_source && vertex.cdc_source->incremental_snapshot;
    if (!cdc && !vertex.hudi_sink) continue;
    const std::string name = cdc && !vertex.operators.empty() ? vertex.operators.front() : vertex.name;
    const auto declared = std::find_if(cc.master_steps.begin(), cc.master_steps.end(), [&](const MasterStepSpec& m) {
      return !cdc && !m.is_hook && m.name == name;
    });
    MasterStepSpec& step = declared != cc.master_steps.end() ? *declared : cc.master_steps.emplace_back();
    step.name = name;
    step.coordinator_vertex = static_cast<int>(v);
  }
  master_steps_ = cc.master_steps;
  cc.job_id = job_id_;
  cc.checkpoints_dir = this->flink().checkpoints_dir;
  cc.savepoints_dir = this->flink().savepoints_dir;
  cc.abort_handling = kAbortHandling;
  // A checkpoint directory means a _metadata file per checkpoint (FsCheckpointStorageAccess);
  // without one JobManagerCheckpointStorage keeps the metadata in memory.
  if (!cc.checkpoints_dir.empty()) cc.metadata_storage = scenario_.cluster.checkpoint_storage;
  cc.store_latency = scenario_.cluster.completed_checkpoint_store_latency;
  cc.completion_rng =
      core::RandomStream(scenario_.seed, "checkpoint-completion#" + std::to_string(submission_));
  cc.plan_latency = kPlanLatency;
  // Each submission has its own random streams, named after it (stable across runs).
  std::string coordinator_stream = "checkpoint-coordinator#";
  coordinator_stream += std::to_string(submission_);
  std::string restart_stream = "restart-strategy#";
  restart_stream += std::to_string(submission_);
  coordinator_ = std::make_unique<CheckpointCoordinator>(
      sim_, cc, *this, *this, observer_, core::RandomStream(scenario_.seed, coordinator_stream),
      &main_thread_);
  tasks_.set_checkpointing(this->flink().checkpointing);
  restart_strategy_ = create_restart_strategy(this->flink(),
                                              core::RandomStream(scenario_.seed, restart_stream));
  stop_request_.reset();
  restarts_pending_.clear();
  failover_ = std::make_unique<FailoverStrategy>(this->flink().failover_strategy,
                                                 tasks_.num_subtasks(), tasks_.channel_ends());

  // A submission starts INITIALIZING (the JobMaster is created), then CREATED, then RUNNING.
  status_ = JobStatus::initializing;
  observer_.job_status_changed(sim_.now(), JobStatus::initializing, JobStatus::created);
  status_ = JobStatus::created;
  const CompletedCheckpoint* restored = nullptr;
  if (restore_from) {
    start_state_ = *restore_from;
    coordinator_->restore_savepoint(*start_state_, /*no_claim=*/true);
    restored = coordinator_->restore_latest_checkpointed_state(true);
  }
  transition(JobStatus::running);
  reset_coordinator_work();
  tasks_.deploy(restored);
}

void JobMaster::reset_coordinator_work() {
  // The coordinators are created anew (a submission) or reset to the checkpoint (a global
  // restore): work that belonged to the old ones is gone.
  std::erase_if(coordinator_work_, [](const auto& w) { return w.second.until_reset; });
}

// ---------------------------------------------------------------------------------------------
// Gateway to the tasks

std::optional<CheckpointCoordinatorGateway::PlanFailure> JobMaster::checkpoint_plan_failure() {
  return tasks_.checkpoint_plan_failure(flink().checkpointing.checkpoints_after_tasks_finish);
}

std::vector<TaskRef> JobMaster::tasks_to_wait_for() {
  // DefaultCheckpointPlanCalculator: finished tasks are not waited for (FLIP-147).
  std::vector<TaskRef> tasks = tasks_.all_tasks();
  if (flink().checkpointing.checkpoints_after_tasks_finish)
    std::erase_if(tasks, [&](const TaskRef& t) { return tasks_.is_finished(t); });
  return tasks;
}

const JobMaster::CoordinatorWork* JobMaster::work_of(std::size_t step) const {
  if (step >= master_steps_.size()) return nullptr;
  const auto it = coordinator_work_.find(master_steps_[step].name);
  if (it == coordinator_work_.end() || it->second.until <= sim_.now()) return nullptr;
  return &it->second;
}

Duration JobMaster::coordinator_busy(std::size_t step) {
  const int v = step < master_steps_.size() ? master_steps_[step].coordinator_vertex : -1;
  Duration busy = v < 0 ? 0 : tasks_.coordinator_busy(v);
  if (const CoordinatorWork* w = work_of(step))
    busy = std::max(busy, w->until == core::kNever ? core::kNever - sim_.now() : w->until - sim_.now());
  return busy;
}

SimTime JobMaster::coordinator_free_at(int vertex) {
  for (std::size_t i = 0; i < master_steps_.size(); ++i)
    if (master_steps_[i].coordinator_vertex == vertex) {
      const Duration busy = coordinator_busy(i);
      return busy >= core::kNever - sim_.now() ? core::kNever : sim_.now() + busy;
    }
  return sim_.now();
}

void JobMaster::trigger_tasks(std::int64_t id, SimTime timestamp,
                              const CheckpointProperties& props) {
  tasks_.trigger_checkpoint(id, timestamp, props);
  anchor_reached(ActionAnchor::checkpoint_triggered, id);
}

CostLaw::Inputs JobMaster::master_cost_inputs() {
  CostLaw::Inputs in;
  in.completed_checkpoints = tasks_.completed_checkpoints();
  in.since_start = sim_.now() - running_since_;
  return in;
}

void JobMaster::notify_checkpoint_complete(std::int64_t id, SimTime) {
  cancel_slow_probe(id);
  tasks_.notify_checkpoint_complete(id);
  anchor_reached(ActionAnchor::checkpoint_completed, id);
  main_thread_.execute(this, kCoordinatorsCompleted, static_cast<std::uint64_t>(id),
                       kCoordinatorNotification);
  if (stop_request_ && coordinator_->outcome(*stop_request_).checkpoint_id == id) {
    // The synchronous savepoint completed: the tasks finish and the job reaches FINISHED.
    stop_request_.reset();
    tasks_.finish();
  }
}

void JobMaster::notify_checkpoint_aborted(std::int64_t id, std::int64_t, SimTime) {
  cancel_slow_probe(id);
  tasks_.notify_checkpoint_aborted(id);
  // sendAbortedMessages runs after the failure manager: an expiry that fails the job has its
  // failGlobal on the main thread first, so the coordinators hear of the abort after it.
  main_thread_.execute(this, kCoordinatorsAborted, static_cast<std::uint64_t>(id),
                       kCoordinatorNotification);
}

void JobMaster::cancel_slow_probe(std::int64_t id) {
  const auto it = slow_probes_.find(id);
  if (it == slow_probes_.end()) return;
  sim_.cancel(it->second);
  slow_probes_.erase(it);
}

void JobMaster::checkpoint_expiring(std::int64_t id, const std::vector<TaskRef>& late) {
  report_waits(id, late, false);
}

void JobMaster::checkpoint_pending(std::int64_t id, Duration timeout) {
  // The diagnosis asks the tasks still pending at half the timeout what holds them (a
  // checkpoint that completes after that is explained by its slowest subtask).
  slow_probes_[id] = sim_.schedule_in(timeout / 2, this, kSlowProbe, static_cast<std::uint64_t>(id));
}

void JobMaster::report_waits(std::int64_t id, const std::vector<TaskRef>& late, bool slow) {
  if (coordinator_ && coordinator_->in_coordinators_stage(id) && !late.empty()) {
    // The tasks were never triggered: name the coordinator that holds the trigger back.
    WaitState w;
    w.kind = WaitState::Kind::coordinator;
    w.channels_total = static_cast<int>(late.size());
    for (std::size_t i = 0; i < master_steps_.size(); ++i) {
      const Duration busy = coordinator_busy(i);
      if (master_steps_[i].is_hook || (busy == 0 && !w.table.empty())) continue;
      if (w.table.empty() || sim_.now() + busy > w.until) {
        w.table = master_steps_[i].name;
        w.until = busy >= core::kNever - sim_.now() ? core::kNever : sim_.now() + busy;
        const CoordinatorWork* work = work_of(i);
        const int v = master_steps_[i].coordinator_vertex;
        w.call = work ? work->work
                 : v < 0 ? ""
                 : scenario_.job.vertices[static_cast<std::size_t>(v)].hudi_sink
                     ? "commits the instant"
                     : "split queries";
        w.since = work ? work->since : 0;
      }
    }
    observer_.checkpoint_wait(sim_.now(), id, late.front(), w, slow);
    return;
  }
  for (const TaskRef& t : late)
    observer_.checkpoint_wait(sim_.now(), id, t, tasks_.wait_state(t, id), slow);
}

void JobMaster::acknowledge_checkpoint(std::int64_t id, TaskRef task, const SubtaskAck& metrics,
                                       const TaskSnapshot& state) {
  if (coordinator_) coordinator_->receive_acknowledge(id, task, metrics, state);
}

void JobMaster::decline_checkpoint(std::int64_t id, TaskRef task, const CheckpointException& ex) {
  if (coordinator_) coordinator_->receive_decline(id, task, ex);
}

// ---------------------------------------------------------------------------------------------
// Failover

void JobMaster::enqueue_failure(Failure failure, Duration latency) {
  failures_.push_back(std::move(failure));
  main_thread_.execute(this, kGlobalFailure, failures_.size() - 1, latency);
}

void JobMaster::fail_job(const std::string& message) {
  // DefaultExecutionGraph's FailJobCallback.failJob runs on the checkpoint timer thread and only
  // hands failGlobal to the main thread: getJobMasterMainThreadExecutor().execute(...).
  enqueue_failure({kFlinkRuntimeException, message, std::nullopt, std::nullopt}, kFailJobLatency);
}

void JobMaster::fail_job_due_to_task_failure(const std::string& message, TaskRef attempt) {
  // FailJobCallback.failJobDueToTaskFailure: failGlobalIfExecutionIsStillRunning, decided on the
  // main thread.
  enqueue_failure({kFlinkRuntimeException, message, std::nullopt, attempt}, kFailJobLatency);
}

void JobMaster::task_failed(TaskRef task, const std::string& exception_class,
                            const std::string& message) {
  // The TaskExecutor's updateTaskExecutionState reaches the JobMaster as an RPC on its main
  // thread.
  enqueue_failure({exception_class, message, task, std::nullopt});
}

void JobMaster::taskmanager_shut_down(int tm) {
  // JobMaster.disconnectTaskManager with the TaskExecutor's own cause: the slot pool releases
  // its slots and fails the executions still in them.
  const std::string cause = "The TaskExecutor is shutting down.";
  observer_.taskmanager_disconnected(sim_.now(), tm, cause);
  for (const TaskRef& task : tasks_.tasks_on(tm)) {
    const ExecutionState s = tasks_.state(task.vertex, task.subtask);
    if (s == ExecutionState::running || s == ExecutionState::deploying ||
        s == ExecutionState::initializing)
      enqueue_failure({"org.apache.flink.util.FlinkException", cause, task, std::nullopt});
  }
}

void JobMaster::handle_failure(const Failure& f) {
  // Another failure being handled keeps the main thread (this one is merged into it).
  if (handling_) return;
  PendingRestart restart;
  if (f.failed_task) {
    // DefaultScheduler.handleTaskFailure: the failover strategy picks the tasks to restart. A
    // task failure is handled while another region restarts (the job is RESTARTING), but not
    // one of an old attempt or of a task already waiting to restart (its execution was
    // cancelled: Execution.markFailed on a CANCELING execution completes the cancellation).
    if (status_ != JobStatus::running && status_ != JobStatus::restarting) return;
    if (!tasks_.is_current_attempt(*f.failed_task)) return;
    const int failed = tasks_.subtask_id(*f.failed_task);
    for (const auto& [key, pending] : restarts_pending_)
      if (std::binary_search(pending.tasks.begin(), pending.tasks.end(), failed)) return;
    restart.tasks = failover_->tasks_needing_restart(failed);
  } else {
    // A global failure that finds the job restarting, failing or terminal is part of that
    // recovery.
    if (status_ != JobStatus::running) return;
    if (f.only_if_running) {
      // failGlobalIfExecutionIsStillRunning: only while that attempt is RUNNING or
      // INITIALIZING.
      const TaskRef& attempt = *f.only_if_running;
      const ExecutionState s = tasks_.state(attempt.vertex, attempt.subtask);
      if (!tasks_.is_current_attempt(attempt) ||
          (s != ExecutionState::running && s != ExecutionState::initializing))
        return;
    }
    restart.global = true;
    restart.tasks = tasks_.all_subtask_ids();
  }
  // DefaultScheduler.handleGlobalFailure logs "Trying to recover from a global failure." first;
  // a task failure is logged by Execution.markFailed.
  const int n = static_cast<int>(restart.tasks.size());
  if (f.failed_task)
    observer_.task_failed(sim_.now(), *f.failed_task, f.exception_class, f.message, n);
  else
    observer_.global_failure(sim_.now(), f.exception_class, f.message, n);
  restart_strategy_->notify_failure(sim_.now());
  restart.position_at_failure = tasks_.source_position(restart.tasks);
  // ExecutionFailureHandler.getGlobalFailureHandlingResult / getFailureHandlingResult keep the
  // main thread until maybeRestartTasks.
  handling_ = std::move(restart);
  main_thread_.continue_after(kFailureHandling, this, kFailureHandled);
}

void JobMaster::maybe_restart_tasks() {
  PendingRestart restart = std::move(*handling_);
  handling_.reset();
  if (status_ != JobStatus::running && status_ != JobStatus::restarting) return;
  if (!restart_strategy_->can_restart()) {
    observer_.restart_suppressed(sim_.now(), restart_strategy_->to_string());
    restarts_pending_.clear();
    transition(JobStatus::failing);
    tasks_.cancel();
    return;
  }
  // restartTasksWithDelay: "N tasks will be restarted ...", then addVerticesToRestartPending
  // (RUNNING -> RESTARTING, also for a region: the job is RESTARTING until no task waits to
  // restart), cancelTasksAsync, and restartTasks after the backoff.
  ++failovers_;
  const std::uint64_t key = next_restart_++;
  const std::vector<int> tasks = restart.tasks;
  restarts_pending_.emplace(key, std::move(restart));
  observer_.restarting_tasks(sim_.now());
  transition(JobStatus::restarting);
  sim_.schedule_in(restart_strategy_->backoff_time(), this, kRestart, key);
  tasks_.cancel(tasks);
}

void JobMaster::all_tasks_terminal() {
  switch (status_) {
    case JobStatus::failing: transition(JobStatus::failed); break;
    case JobStatus::cancelling: transition(JobStatus::canceled); break;
    case JobStatus::restarting:
      for (auto& [key, restart] : restarts_pending_) {
        if (restart.cancelled) continue;
        restart.cancelled = true;
        if (restart.backoff_over) main_thread_.execute(this, kRestartTasks, key);
      }
      break;
    case JobStatus::running:
      if (!stop_request_) transition(JobStatus::finished);  // after stop-with-savepoint
      break;
    default: break;
  }
}

void JobMaster::restart_tasks(std::uint64_t key) {
  const auto it = restarts_pending_.find(key);
  if (status_ != JobStatus::restarting || it == restarts_pending_.end()) return;
  const PendingRestart restart = std::move(it->second);
  restarts_pending_.erase(it);
  // DefaultScheduler.restartTasks (cancelFuture.thenRunAsync(..., main thread executor)):
  // removeVerticesFromRestartPending makes the job RUNNING again once no task waits to restart
  // (the scheduler starts with a new random initial delay), then SchedulerBase.restoreState
  // aborts what is pending and restores: every task and the operator coordinators after a
  // global failure (restoreLatestCheckpointedStateToAll), only the restarted tasks after a task
  // failure (restoreLatestCheckpointedStateToSubtasks; coordinators are not reset).
  ++restarts_;
  if (restarts_pending_.empty()) transition(JobStatus::running);
  coordinator_->abort_current_triggering();
  coordinator_->abort_pending_checkpoints(CheckpointFailureReason::job_failover_region);
  const CompletedCheckpoint* restored =
      coordinator_->restore_latest_checkpointed_state(restart.global);
  std::int64_t restored_position = 0;
  if (restored)
    for (int id : restart.tasks) {
      const TaskRef t = tasks_.task_ref(id);
      const auto state = restored->task_states.find({t.vertex, t.subtask});
      if (state != restored->task_states.end()) restored_position += state->second.source_position;
    }
  replayed_ += std::max<std::int64_t>(0, restart.position_at_failure - restored_position);
  if (restart.global) reset_coordinator_work();
  tasks_.deploy(restored, restart.tasks, restart.global);
}

// ---------------------------------------------------------------------------------------------
// Timeline

const CompletedCheckpoint* JobMaster::find_start_state(const TimelineAction& action) const {
  std::vector<const CheckpointCoordinator*> all;
  for (const auto& c : finished_coordinators_) all.push_back(c.get());
  if (coordinator_) all.push_back(coordinator_.get());
  const CompletedCheckpoint* best = nullptr;
  for (const CheckpointCoordinator* c : all) {
    switch (action.start_state) {
      case StartState::none: return nullptr;
      case StartState::latest_savepoint:
        if (c->latest_savepoint()) best = &*c->latest_savepoint();
        break;
      case StartState::latest: {
        const CompletedCheckpoint* l = c->latest_completed();
        if (c->latest_savepoint() && (!l || c->latest_savepoint()->id > l->id))
          l = &*c->latest_savepoint();
        if (l && (!best || l->id >= best->id)) best = l;
        break;
      }
      case StartState::checkpoint:
        for (const CompletedCheckpoint& cp : c->completed_checkpoints())
          if (cp.id == action.checkpoint_id) best = &cp;
        if (c->latest_savepoint() && c->latest_savepoint()->id == action.checkpoint_id)
          best = &*c->latest_savepoint();
        break;
    }
  }
  return best;
}

std::size_t JobMaster::request(const TimelineAction& action) {
  ExternalRequest r;
  r.coordinator = coordinator_.get();
  r.checkpoints = action.kind == ActionKind::stop_with_savepoint ||
                  action.kind == ActionKind::trigger_savepoint ||
                  action.kind == ActionKind::trigger_checkpoint;
  r.request_id = run_action(action);
  requests_.push_back(r);
  return requests_.size() - 1;
}

RequestOutcome JobMaster::request_outcome(std::size_t id) const {
  const ExternalRequest& r = requests_.at(id);
  if (r.request_id && r.coordinator) return r.coordinator->outcome(*r.request_id);
  RequestOutcome o;
  if (r.checkpoints) {
    // SchedulerBase.triggerSavepoint on a job that is not RUNNING: the plan finds tasks that
    // are not running (DefaultCheckpointPlanCalculator.checkTasksStarted).
    o.state = RequestOutcome::State::failed;
    o.failure = CheckpointFailureReason::not_all_required_tasks_running;
  } else {
    o.state = RequestOutcome::State::completed;
  }
  return o;
}

std::optional<std::uint64_t> JobMaster::run_action(const TimelineAction& a) {
  switch (a.kind) {
    case ActionKind::stop_with_savepoint:
      if (status_ != JobStatus::running) return std::nullopt;
      observer_.savepoint_requested(sim_.now(), true);
      // SchedulerBase.stopWithSavepoint: periodic checkpointing stops first; it restarts if the
      // savepoint fails.
      coordinator_->stop_checkpoint_scheduler();
      stop_request_ = coordinator_->trigger_synchronous_savepoint();
      return stop_request_;
    case ActionKind::trigger_savepoint:
      if (status_ != JobStatus::running) return std::nullopt;
      observer_.savepoint_requested(sim_.now(), false);
      return coordinator_->trigger_savepoint();
    case ActionKind::trigger_checkpoint:
      if (status_ != JobStatus::running) return std::nullopt;
      return coordinator_->trigger_checkpoint(false);
    case ActionKind::start:
      if (!is_globally_terminal(status_)) return std::nullopt;  // the job is still there
      if (a.flink) flink_ = a.flink;
      submit(find_start_state(a));
      return std::nullopt;
    case ActionKind::fail_task: {
      // The task's code throws: Task.failExternally (RUNNING -> FAILED on its TaskManager), then
      // the JobMaster handles a task failure (the failover strategy picks what restarts).
      const int task = task_of_operator(scenario_.job, a.vertex);
      if (task < 0 || status_ != JobStatus::running) return std::nullopt;
      const int parallelism = scenario_.job.vertices[static_cast<std::size_t>(task)].parallelism;
      for (int i = 0; i < parallelism; ++i)
        if (!a.subtask || *a.subtask == i)
          tasks_.fail_subtask(task, i, "org.apache.flink.util.FlinkException",
                              "Task " + a.vertex + " failed (scenario timeline).");
      return std::nullopt;
    }
    case ActionKind::cancel:
      if (is_globally_terminal(status_)) return std::nullopt;
      restarts_pending_.clear();
      transition(JobStatus::cancelling);
      tasks_.cancel();
      return std::nullopt;
    case ActionKind::stall:
    case ActionKind::gc_pause:
    case ActionKind::lose_taskmanager:
    case ActionKind::slow_down: return std::nullopt;  // installed at start
    case ActionKind::set_rate:
    case ActionKind::hold_checkpoint_lock: {
      const int task = task_of_operator(scenario_.job, a.vertex);
      if (task < 0) return std::nullopt;
      if (a.kind == ActionKind::set_rate)
        tasks_.set_source_rate(task, a.rate);
      else
        tasks_.hold_checkpoint_lock(task, a.duration);
      return std::nullopt;
    }
    case ActionKind::coordinator_busy: {
      // The coordinator's single thread runs the work; checkpoint calls queue behind it.
      CoordinatorWork& w = coordinator_work_[a.coordinator];
      w.since = sim_.now();
      w.until = a.duration ? sim_.now() + *a.duration : core::kNever;
      w.work = a.work;
      w.until_reset = a.until_restart;
      return std::nullopt;
    }
    case ActionKind::fire_timers: {
      const int task = task_of_operator(scenario_.job, a.vertex);
      if (task >= 0) tasks_.fire_timers(task, a.timers, *a.duration, a.timers_interruptible_operator);
      return std::nullopt;
    }
    case ActionKind::reject_load:
    case ActionKind::create_table:
    case ActionKind::drop_table:
    case ActionKind::rename_table:
    case ActionKind::swap_table:
    case ActionKind::drop_database: tasks_.system_action(a); return std::nullopt;
  }
  return std::nullopt;
}

void JobMaster::request_finished(std::uint64_t request_id, const RequestOutcome& outcome) {
  // StopWithSavepointTerminationHandlerImpl: a failed savepoint restarts checkpointing. The
  // coordinator is mid-call here, so the reaction runs as its own event on the main thread.
  if (stop_request_ && *stop_request_ == request_id &&
      outcome.state == RequestOutcome::State::failed)
    sim_.schedule_in(0, this, kStopFailed);
}

void JobMaster::on_event(std::uint32_t kind, std::uint64_t arg) {
  switch (static_cast<Event>(kind)) {
    case kTimelineAction: run_action(scenario_.timeline[arg]); break;
    case kTimelineOccurrence: occurrence(arg); break;
    case kSlowProbe: {
      const auto id = static_cast<std::int64_t>(arg);
      slow_probes_.erase(id);
      if (!coordinator_) break;
      if (const std::vector<TaskRef> late = coordinator_->unacknowledged(id); !late.empty())
        report_waits(id, late, true);
      break;
    }
    case kGlobalFailure: handle_failure(failures_[arg]); break;
    case kFailureHandled: maybe_restart_tasks(); break;
    case kRestartTasks: restart_tasks(arg); break;
    case kCoordinatorsCompleted:
    case kCoordinatorsAborted:
      tasks_.notify_source_coordinators(static_cast<std::int64_t>(arg),
                                        kind == kCoordinatorsCompleted);
      break;
    case kRestart: {
      const auto it = restarts_pending_.find(arg);
      if (it == restarts_pending_.end()) break;
      it->second.backoff_over = true;
      if (status_ == JobStatus::restarting && it->second.cancelled)
        main_thread_.execute(this, kRestartTasks, arg);
      break;
    }
    case kHeartbeatTimeout: {
      // JobMaster.TaskManagerHeartbeatListener.notifyHeartbeatTimeout -> disconnectTaskManager:
      // the tasks on it fail.
      const int tm = scenario_.timeline[arg].taskmanager;
      // Each task on it fails; the first of each pipelined region restarts that region (the
      // others are already waiting to restart).
      if (status_ != JobStatus::running) break;
      for (const TaskRef& task : tasks_.tasks_on(tm))
        enqueue_failure({"java.util.concurrent.TimeoutException",
                         "Heartbeat of TaskManager with id ckptsim-taskmanager-" +
                             std::to_string(tm + 1) + " timed out.",
                         task, std::nullopt});
      break;
    }
    case kRandomFailure:
      // Failures keep arriving in wall-clock time whatever the job is doing; one that hits a
      // job not RUNNING (already restarting) is merged into that recovery.
      if (status_ == JobStatus::running)
        enqueue_failure({"org.apache.flink.runtime.io.network.netty.exception."
                         "RemoteTransportException",
                         "Lost connection to task manager (injected failure, mtbf).",
                         std::nullopt, std::nullopt});
      sim_.schedule_in(static_cast<Duration>(failure_rng_.exponential(
                           static_cast<double>(*scenario_.cluster.mtbf))),
                       this, kRandomFailure);
      break;
    case kStopFailed:
      stop_request_.reset();
      if (status_ == JobStatus::running && flink().checkpointing.interval)
        coordinator_->start_checkpoint_scheduler();
      break;
  }
}

}  // namespace ckptsim::model
