// The JobManager's checkpoint rules. Each step of Flink's asynchronous trigger pipeline is a
// simulation event, so other events (acks, expiries, failovers) interleave with it as they do
// on Flink's timer and io threads. Comments cite CheckpointCoordinator (CC) methods.
#include "sim/model/checkpoint_coordinator.hpp"

#include <algorithm>
#include <cassert>

namespace ckptsim::model {

struct CheckpointCoordinator::PendingCheckpoint {
  std::int64_t id = 0;
  SimTime timestamp = 0;
  CheckpointProperties props;
  bool periodic = false;
  std::uint64_t request_id = 0;
  std::vector<TaskRef> tasks;
  std::map<std::pair<int, int>, std::size_t> index;
  std::vector<bool> acked;
  int num_acked = 0;
  int master_states_pending = 0;
  bool disposed = false;
  bool finalizing = false;  // writing its _metadata file: completes whatever comes meanwhile
  Duration store_add = 0;   // the CompletedCheckpointStore's part of its finalization
  core::EventId canceller;
  std::int64_t state_size = 0;
  std::map<std::pair<int, int>, TaskSnapshot> states;

  // PendingCheckpoint.isFullyAcknowledged: tasks, coordinators and master states, not disposed.
  bool fully_acknowledged() const {
    return !disposed && num_acked == static_cast<int>(tasks.size()) && master_states_pending == 0;
  }
  std::vector<TaskRef> unacknowledged() const {
    std::vector<TaskRef> late;
    for (std::size_t i = 0; i < tasks.size(); ++i)
      if (!acked[i]) late.push_back(tasks[i]);
    return late;
  }
};

namespace {
std::int64_t millis(Duration d) { return core::to_millis(d); }
}  // namespace

CheckpointCoordinator::CheckpointCoordinator(core::Simulation& sim,
                                             CheckpointCoordinatorConfig config,
                                             CheckpointCoordinatorGateway& gateway,
                                             CheckpointFailureManager::Callbacks& callbacks,
                                             Observer& observer, core::RandomStream rng,
                                             MainThreadExecutor* main_thread)
    : sim_(sim),
      config_(std::move(config)),
      gateway_(gateway),
      observer_(observer),
      rng_(rng),
      failure_manager_(config_.checkpointing.tolerable_failed, callbacks, config_.version),
      decider_(config_.checkpointing.max_concurrent,
               // CC constructor: min-pause capped at one year (L315-319)
               std::min<Duration>(config_.checkpointing.min_pause, 365 * 24 * core::kHour),
               config_.checkpointing.max_queued_requests, *this),
      own_main_thread_(main_thread ? nullptr : std::make_unique<MainThreadExecutor>(sim)),
      main_thread_(main_thread ? main_thread : own_main_thread_.get()) {
  for (const MasterStepSpec& step : config_.master_steps) {
    master_durations_.push_back(step.duration.base);
    master_failing_.push_back(false);
    master_hanging_.push_back(false);
  }
}

CheckpointCoordinator::~CheckpointCoordinator() = default;

Duration CheckpointCoordinator::base_interval() const {
  // CC constructor: baseInterval = max(interval, minPauseBetweenCheckpoints).
  const Duration interval = config_.checkpointing.interval.value_or(core::kNever);
  return std::max(interval, config_.checkpointing.min_pause);
}

// ---------------------------------------------------------------------------------------------
// Periodic scheduling (CC startCheckpointScheduler / stopCheckpointScheduler / ScheduledTrigger)

void CheckpointCoordinator::start_checkpoint_scheduler() {
  if (shutdown_) return;
  // 1.15-1.19 stop unconditionally first, which aborts pending checkpoints (a savepoint too)
  // with SUSPEND; 1.20+ only when periodic checkpointing had started (FLINK-34519).
  if (config_.version < FlinkVersion::v1_20 || periodic_scheduling_) stop_checkpoint_scheduler();
  periodic_scheduling_ = true;
  // getRandomInitDelay: ThreadLocalRandom.nextLong(minPause, baseInterval + 1), in ms.
  const std::int64_t lo = millis(config_.checkpointing.min_pause);
  const std::int64_t hi = millis(base_interval());
  arm_periodic_trigger(rng_.uniform_int(lo, std::max(lo, hi)) * core::kMillisecond);
}

void CheckpointCoordinator::stop_checkpoint_scheduler() {
  periodic_scheduling_ = false;
  cancel_periodic_trigger();
  // abortPendingAndQueuedCheckpoints(CHECKPOINT_COORDINATOR_SUSPEND)
  decider_.abort_all(CheckpointFailureReason::checkpoint_coordinator_suspend);
  abort_pending_checkpoints(CheckpointFailureReason::checkpoint_coordinator_suspend);
}

void CheckpointCoordinator::shutdown() {
  if (shutdown_) return;
  shutdown_ = true;
  observer_.coordinator_shutdown(sim_.now());
  periodic_scheduling_ = false;
  cancel_periodic_trigger();
  decider_.abort_all(CheckpointFailureReason::checkpoint_coordinator_shutdown);
  abort_pending_checkpoints(CheckpointFailureReason::checkpoint_coordinator_shutdown);
}

void CheckpointCoordinator::arm_periodic_trigger(Duration delay) {
  cancel_periodic_trigger();
  periodic_next_ = sim_.now() + delay;
  periodic_timer_ = sim_.schedule_at(periodic_next_, this, kPeriodicTrigger);
}

void CheckpointCoordinator::cancel_periodic_trigger() { sim_.cancel(periodic_timer_); }

SimTime CheckpointCoordinator::next_periodic_trigger() const {
  return sim_.is_pending(periodic_timer_) ? periodic_next_ : core::kNever;
}

void CheckpointCoordinator::reschedule_trigger(Duration delay) {
  // rescheduleTrigger: cancel the current chain and start a new one after `delay`.
  if (periodic_scheduling_) arm_periodic_trigger(delay);
}

// ---------------------------------------------------------------------------------------------
// Requests

std::uint64_t CheckpointCoordinator::trigger_checkpoint(bool periodic) {
  return submit(CheckpointProperties::checkpoint(), periodic);
}

std::uint64_t CheckpointCoordinator::trigger_checkpoint(SnapshotType type) {
  CheckpointProperties props = CheckpointProperties::checkpoint();
  if (type == SnapshotType::full_checkpoint) props.type = SnapshotType::full_checkpoint;
  return submit(props, false);
}

std::uint64_t CheckpointCoordinator::trigger_savepoint() {
  return submit(CheckpointProperties::savepoint(config_.checkpointing.unaligned), false);
}

std::uint64_t CheckpointCoordinator::trigger_synchronous_savepoint() {
  return submit(CheckpointProperties::synchronous_savepoint(config_.checkpointing.unaligned),
                false);
}

std::uint64_t CheckpointCoordinator::submit(CheckpointProperties props, bool periodic) {
  CheckpointTriggerRequest request;
  request.request_id = next_request_id_++;
  request.timestamp = sim_.now();
  request.props = props;
  request.periodic = periodic;
  outcomes_.push_back({});
  // CC.triggerCheckpoint: chooseRequestToExecute(request).ifPresent(startTriggeringCheckpoint)
  if (auto chosen = decider_.choose_request_to_execute(request, is_triggering_, last_completion_))
    start_triggering(*chosen);
  return request.request_id;
}

void CheckpointCoordinator::request_dropped(const CheckpointTriggerRequest& request,
                                            CheckpointFailureReason reason) {
  // Decider-level drops only complete the future: no stats, no log, no counting.
  finish_request(request.request_id, reason, -1);
}

void CheckpointCoordinator::request_time_in_queue(Duration waited) {
  observer_.request_queue_time(sim_.now(), waited);
}

void CheckpointCoordinator::finish_request(std::uint64_t request_id,
                                           std::optional<CheckpointFailureReason> failure,
                                           std::int64_t checkpoint_id) {
  RequestOutcome& o = outcomes_.at(request_id);
  if (o.state == RequestOutcome::State::completed || o.state == RequestOutcome::State::failed)
    return;  // a CompletableFuture completes once
  o.state = failure ? RequestOutcome::State::failed : RequestOutcome::State::completed;
  o.failure = failure;
  if (checkpoint_id >= 0) o.checkpoint_id = checkpoint_id;
  gateway_.request_finished(request_id, o);
}

// ---------------------------------------------------------------------------------------------
// The trigger pipeline (CC.startTriggeringCheckpoint L629-785)

std::optional<CheckpointFailureReason> CheckpointCoordinator::pre_check_global_state(
    bool periodic) const {
  if (shutdown_) return CheckpointFailureReason::checkpoint_coordinator_shutdown;
  if (periodic && !periodic_scheduling_)
    return CheckpointFailureReason::periodic_scheduler_shutdown;
  return std::nullopt;
}

void CheckpointCoordinator::start_triggering(const CheckpointTriggerRequest& request) {
  if (auto reason = pre_check_global_state(request.periodic)) {
    triggering_request_ = request;
    on_trigger_failure_without_pending(CheckpointException{*reason, "", false});
    return;
  }
  assert(!is_triggering_);
  is_triggering_ = true;
  triggering_request_ = request;
  triggering_timestamp_ = sim_.now();
  triggering_id_ = -1;
  triggering_failure_.reset();
  outcomes_.at(request.request_id).state = RequestOutcome::State::triggering;
  // DefaultCheckpointPlanCalculator.calculateCheckpointPlan: supplyAsync on the JobMaster main
  // thread, behind whatever was handed to it before (a failGlobal from the failure manager's
  // FailJobCallback runs first, and the plan then finds the tasks CANCELING).
  main_thread_->execute(this, kPlanDone, 0, config_.plan_latency);
}

void CheckpointCoordinator::on_plan_done() {
  // DefaultCheckpointPlanCalculator.checkTasksStarted. The id counter is read only after the
  // plan (thenApplyAsync on the io executor), so a failed plan uses no checkpoint id.
  if (auto failure = gateway_.checkpoint_plan_failure()) {
    // DefaultCheckpointPlanCalculator: fails before an id is taken.
    on_trigger_failure_without_pending(CheckpointException{
        CheckpointFailureReason::not_all_required_tasks_running,
        failure->task.empty()
            ? "Some tasks of the job have already finished and checkpointing with finished "
              "tasks is not enabled."
            : "Checkpoint triggering task " + failure->task + " of job " + config_.job_id +
                  " is not being executed at the moment. Aborting checkpoint.",
        false});
    return;
  }
  sim_.schedule_in(config_.id_counter_latency, this, kIdAllocated);
}

void CheckpointCoordinator::on_id_allocated() {
  if (id_failures_ > 0) {
    --id_failures_;
    // getCheckpointException: an IOException in the chain => IO_EXCEPTION, else TRIGGER_...
    on_trigger_failure_without_pending(CheckpointException{
        id_failures_io_ ? CheckpointFailureReason::io_exception
                        : CheckpointFailureReason::trigger_checkpoint_failure,
        "", id_failures_io_});
    return;
  }
  triggering_id_ = next_id_++;  // consumed even if a later step fails
  sim_.schedule_in(0, this, kCreatePending);
}

void CheckpointCoordinator::on_create_pending() {
  if (auto reason = pre_check_global_state(triggering_request_.periodic)) {
    on_trigger_failure_without_pending(CheckpointException{*reason, "", false});
    return;
  }
  auto pc = std::make_unique<PendingCheckpoint>();
  pc->id = triggering_id_;
  pc->timestamp = triggering_timestamp_;
  pc->props = triggering_request_.props;
  pc->periodic = triggering_request_.periodic;
  pc->request_id = triggering_request_.request_id;
  pc->tasks = gateway_.tasks_to_wait_for();
  pc->acked.assign(pc->tasks.size(), false);
  for (std::size_t i = 0; i < pc->tasks.size(); ++i)
    pc->index[{pc->tasks[i].vertex, pc->tasks[i].subtask}] = i;
  pc->master_states_pending = static_cast<int>(config_.master_steps.size());
  // createPendingCheckpoint: the CheckpointCanceller is scheduled when the pending checkpoint
  // exists, with its own timeout.
  pc->canceller = sim_.schedule_in(config_.checkpointing.timeout, this, kCanceller,
                                   static_cast<std::uint64_t>(pc->id));
  gateway_.checkpoint_pending(pc->id, config_.checkpointing.timeout);
  outcomes_.at(pc->request_id).checkpoint_id = pc->id;
  CheckpointStart start;
  start.id = pc->id;
  start.type = pc->props.type;
  start.trigger_time = pc->timestamp;
  start.num_subtasks = static_cast<int>(pc->tasks.size());
  start.periodic = pc->periodic;
  const std::int64_t id = pc->id;
  pending_[id] = std::move(pc);
  observer_.checkpoint_triggered(sim_.now(), start);
  sim_.schedule_in(config_.storage_init_latency, this, kStorageInitialized);
}

std::vector<TaskRef> CheckpointCoordinator::unacknowledged(std::int64_t id) const {
  const auto it = pending_.find(id);
  if (it == pending_.end() || it->second->disposed || it->second->finalizing) return {};
  return it->second->unacknowledged();
}

bool CheckpointCoordinator::master_step_active(std::size_t i, SimTime at, bool hangs) const {
  const MasterStepSpec& s = config_.master_steps[i];
  const std::optional<SimTime>& from = hangs ? s.hang_from : s.fail_from;
  return (from && at >= *from) || (hangs ? master_hanging_[i] : master_failing_[i]);
}

void CheckpointCoordinator::on_storage_initialized() {
  auto it = pending_.find(triggering_id_);
  PendingCheckpoint* pc = it == pending_.end() ? nullptr : it->second.get();
  if (storage_failures_ > 0) {
    --storage_failures_;
    if (pc) {
      on_trigger_failure(pc, CheckpointException{CheckpointFailureReason::io_exception, "", true});
      return;
    }
  }
  // The coordinators' checkpoints run concurrently; the stage ends with the slowest one.
  // A disposed checkpoint skips them (and the hooks) and fails in triggerCheckpointRequest.
  Duration longest = 0;
  bool hangs = false;
  if (pc && !pc->disposed) {
    for (std::size_t i = 0; i < config_.master_steps.size(); ++i) {
      if (config_.master_steps[i].is_hook) continue;
      // SourceCoordinator.checkpointCoordinator runs in the coordinator's own thread.
      longest = std::max(longest, gateway_.coordinator_busy(i) + master_duration(i));
      if (master_step_active(i, sim_.now(), true)) hangs = true;
      if (master_step_active(i, sim_.now(), false)) triggering_failure_ =
          CheckpointFailureReason::trigger_checkpoint_failure;
    }
  }
  if (hangs)
    hung_stage_ = kCoordinatorsDone;  // OperatorCoordinator.checkpointCoordinator not complete
  else
    coordinators_done_ = sim_.schedule_in(longest, this, kCoordinatorsDone);
}

void CheckpointCoordinator::on_coordinators_done() {
  auto it = pending_.find(triggering_id_);
  PendingCheckpoint* pc = it == pending_.end() ? nullptr : it->second.get();
  Duration longest = 0;
  bool hangs = false;
  if (pc && !pc->disposed && !triggering_failure_) {
    for (std::size_t i = 0; i < config_.master_steps.size(); ++i) {
      if (config_.master_steps[i].is_hook) {
        longest = std::max(longest, master_duration(i));
        if (master_step_active(i, sim_.now(), true)) hangs = true;
        if (master_step_active(i, sim_.now(), false))
          triggering_failure_ = CheckpointFailureReason::trigger_checkpoint_failure;
      } else {
        --pc->master_states_pending;  // acknowledgeCoordinatorState
      }
    }
  }
  if (hangs)
    hung_stage_ = kHooksDone;  // MasterTriggerRestoreHook.triggerCheckpoint future not complete
  else
    sim_.schedule_in(longest, this, kHooksDone);
}

void CheckpointCoordinator::on_hooks_done() {
  // masterTriggerCompletionPromise.handleAsync on the timer thread.
  auto it = pending_.find(triggering_id_);
  PendingCheckpoint* pc = it == pending_.end() ? nullptr : it->second.get();
  if (pc && !pc->disposed && !triggering_failure_) {
    for (std::size_t i = 0; i < config_.master_steps.size(); ++i)
      if (config_.master_steps[i].is_hook) --pc->master_states_pending;  // acknowledgeMasterState
  }
  if (triggering_failure_) {
    on_trigger_failure(pc, CheckpointException{*triggering_failure_, "", false});
    return;
  }
  trigger_checkpoint_request();
}

void CheckpointCoordinator::trigger_checkpoint_request() {
  auto it = pending_.find(triggering_id_);
  if (it == pending_.end() || it->second->disposed) {
    // CC.triggerCheckpointRequest: the checkpoint was disposed meanwhile (e.g. it expired while
    // a coordinator or hook was still running).
    on_trigger_failure(nullptr,
                       CheckpointException{CheckpointFailureReason::trigger_checkpoint_failure,
                                           "", false});
    return;
  }
  PendingCheckpoint& pc = *it->second;
  CheckpointProperties sent = pc.props;
  // triggerTasks: after a NO_CLAIM restore checkpoints are FULL until one completes.
  if (force_full_snapshot_ && !sent.is_savepoint()) sent.type = SnapshotType::full_checkpoint;
  gateway_.trigger_tasks(pc.id, pc.timestamp, sent);
  maybe_complete(pc);
  on_trigger_success();
}

void CheckpointCoordinator::on_trigger_success() {
  is_triggering_ = false;
  execute_queued_request();
}

void CheckpointCoordinator::on_trigger_failure_without_pending(const CheckpointException& ex) {
  // onTriggerFailure(request, throwable): the future fails; the failure manager sees no pending
  // checkpoint (id -1, no pending stats).
  finish_request(triggering_request_.request_id, ex.reason, -1);
  handle_failure(nullptr, triggering_request_.props, ex, std::nullopt, false, kUnknownCheckpointId);
  is_triggering_ = false;
  execute_queued_request();
}

void CheckpointCoordinator::on_trigger_failure(PendingCheckpoint* pc,
                                               const CheckpointException& ex) {
  if (pc && !pc->disposed) {
    abort_pending_checkpoint(*pc, ex);
  } else {
    // A disposed checkpoint: handleCheckpointException(checkpoint, props, cause, null, job,
    // null stats, ...) logs and counts (failed+1, total+1) once more.
    handle_failure(nullptr, triggering_request_.props, ex, std::nullopt, false, triggering_id_);
  }
  is_triggering_ = false;
  execute_queued_request();
}

// ---------------------------------------------------------------------------------------------
// Failure handling (CheckpointFailureManager.handleCheckpointException)

void CheckpointCoordinator::handle_failure(PendingCheckpoint* pc,
                                           const CheckpointProperties& props,
                                           const CheckpointException& ex,
                                           std::optional<TaskRef> attempt,
                                           bool had_pending_stats, std::int64_t id) {
  const std::int64_t checkpoint_id = pc ? pc->id : id;
  const int before = failure_manager_.continuous_failure_counter();
  // The log line (and the stats update) come first; the callbacks may then fail the job.
  observer_.checkpoint_failure_handled(sim_.now(), checkpoint_id, ex, before, had_pending_stats);
  failure_manager_.handle_checkpoint_exception(checkpoint_id, props.is_savepoint(),
                                               props.synchronous, ex, attempt);
}

void CheckpointCoordinator::abort_pending_checkpoint(PendingCheckpoint& pc,
                                                     const CheckpointException& ex,
                                                     std::optional<TaskRef> attempt) {
  // A checkpoint being finalized holds the coordinator lock: an abort waits for it and then finds
  // the checkpoint completed.
  if (pc.disposed || pc.finalizing) return;
  // PendingCheckpoint.abort: fail the future, dispose, cancel the canceller.
  pc.disposed = true;
  sim_.cancel(pc.canceller);
  finish_request(pc.request_id, ex.reason, pc.id);
  observer_.checkpoint_aborted(sim_.now(), pc.id, ex);
  handle_failure(&pc, pc.props, ex, attempt, true, pc.id);
  // finally: sendAbortedMessages, remove, remember, timer.execute(executeQueuedRequest)
  const std::int64_t id = pc.id;
  const SimTime ts = pc.timestamp;
  gateway_.notify_checkpoint_aborted(id, latest_completed_id(), ts);
  for (std::size_t i = 0; i < config_.master_steps.size(); ++i)
    master_notifications_.push_back("abort:" + std::to_string(id));
  // Up to 1.18 (from 1.15: CheckpointCoordinator.abortPendingCheckpoint's finally block on
  // release-1.15/-1.16) every aborted id is remembered; 1.19+ only expired ones (FLINK-15922).
  if (ex.reason == CheckpointFailureReason::checkpoint_expired ||
      config_.version < FlinkVersion::v1_19)
    remember_expired(id);
  pending_.erase(id);
  schedule_trigger_request(config_.abort_handling);
}

void CheckpointCoordinator::abort_pending_checkpoints(CheckpointFailureReason reason) {
  std::vector<std::int64_t> ids = pending_checkpoint_ids();
  for (std::int64_t id : ids) {
    auto it = pending_.find(id);
    if (it != pending_.end()) abort_pending_checkpoint(*it->second, CheckpointException{reason});
  }
}

void CheckpointCoordinator::remember_expired(std::int64_t id) {
  // recentExpiredCheckpoints: an EvictingQueue of 16 ids (NUM_GHOST_CHECKPOINT_IDS).
  recent_expired_.push_back(id);
  if (recent_expired_.size() > 16) recent_expired_.pop_front();
}

void CheckpointCoordinator::schedule_trigger_request(Duration after) {
  // scheduleTriggerRequest: timer.execute(this::executeQueuedRequest), on the timer thread once
  // it is free (`after`).
  sim_.schedule_in(after, this, kExecuteQueuedRequest);
}

void CheckpointCoordinator::execute_queued_request() {
  if (auto chosen = decider_.choose_queued_request_to_execute(is_triggering_, last_completion_))
    start_triggering(*chosen);
}

// ---------------------------------------------------------------------------------------------
// Acknowledgements, declines, completion

AcknowledgeOutcome CheckpointCoordinator::receive_acknowledge(std::int64_t checkpoint_id,
                                                          TaskRef task, const SubtaskAck& metrics,
                                                          const TaskSnapshot& state) {
  AcknowledgeOutcome out;
  if (shutdown_) return out;  // receiveAcknowledgeMessage: shutdown => false
  auto it = pending_.find(checkpoint_id);
  if (it == pending_.end() || it->second->disposed) {
    // Unknown or late: metrics reported (reportStats), state discarded; WARN only for
    // remembered ids.
    observer_.late_subtask_stats(sim_.now(), checkpoint_id, metrics);
    if (std::find(recent_expired_.begin(), recent_expired_.end(), checkpoint_id) !=
        recent_expired_.end()) {
      observer_.late_message(sim_.now(), checkpoint_id, task);
      out.result = AcknowledgeResult::late;
    } else {
      out.result = AcknowledgeResult::unknown_checkpoint;
    }
    return out;
  }
  PendingCheckpoint& pc = *it->second;
  auto idx = pc.index.find({task.vertex, task.subtask});
  if (idx == pc.index.end() || pc.tasks[idx->second].attempt != task.attempt) {
    out.result = AcknowledgeResult::unknown_attempt;  // WARN + discard state
    return out;
  }
  if (pc.acked[idx->second]) {
    out.result = AcknowledgeResult::duplicate;
    return out;
  }
  pc.acked[idx->second] = true;
  ++pc.num_acked;
  pc.state_size += state.state_size;
  pc.states[{task.vertex, task.subtask}] = state;
  observer_.checkpoint_acknowledged(sim_.now(), checkpoint_id, metrics);
  out.result = AcknowledgeResult::success;
  const std::uint64_t request_id = pc.request_id;
  maybe_complete(pc);  // may erase `pc`
  // completePendingCheckpoint throws the CheckpointException its store failure produced.
  const RequestOutcome& o = outcomes_.at(request_id);
  if (o.state == RequestOutcome::State::failed && o.failure &&
      *o.failure == CheckpointFailureReason::finalize_checkpoint_failure)
    out.thrown = CheckpointException{CheckpointFailureReason::finalize_checkpoint_failure,
                                     "Could not complete the pending checkpoint " +
                                         std::to_string(checkpoint_id) + ".",
                                     false};
  return out;
}

void CheckpointCoordinator::maybe_complete(PendingCheckpoint& pc) {
  if (!pc.fully_acknowledged() || pc.finalizing) return;
  // PendingCheckpoint.finalizeCheckpoint writes the _metadata file (one request to the
  // checkpoint storage, about 1 kB plus a state handle per task) under the coordinator lock and
  // takes the completion timestamp after it: the write is part of checkpointDuration. Then
  // addCompletedCheckpointToStoreAndSubsumeOldest: the log's finalizationTime.
  Duration write = 0;
  if (config_.metadata_storage) {
    const CheckpointStorageSpec& storage = *config_.metadata_storage;
    const double bytes = 1024.0 + 256.0 * static_cast<double>(pc.tasks.size());
    write = storage.latency.sample(config_.completion_rng) +
            static_cast<Duration>(bytes / std::max(1.0, storage.bandwidth_bytes_per_second) * 1e9);
  }
  const Duration store_add = config_.store_latency.sample(config_.completion_rng);
  if (write + store_add <= 0) {
    complete_pending_checkpoint(pc);
    return;
  }
  // The canceller that fires meanwhile waits for the lock and finds the checkpoint disposed.
  // Finalizations hold the lock one after the other: a checkpoint fully acknowledged while
  // another is being finalized starts after it, and they complete in that order.
  pc.finalizing = true;
  pc.store_add = store_add;
  sim_.cancel(pc.canceller);
  finalized_until_ = std::max(finalized_until_, sim_.now()) + write + store_add;
  sim_.schedule_at(finalized_until_, this, kFinalized, static_cast<std::uint64_t>(pc.id));
}

std::string CheckpointCoordinator::external_path(const PendingCheckpoint& pc) const {
  if (pc.props.is_savepoint()) {
    const std::string dir = config_.savepoints_dir.empty() ? "file:/tmp/flink-savepoints"
                                                           : config_.savepoints_dir;
    return dir + "/savepoint-" + config_.job_id.substr(0, 6) + "-" + std::to_string(pc.id);
  }
  if (config_.checkpoints_dir.empty()) return "<checkpoint-not-externally-addressable>";
  return config_.checkpoints_dir + "/" + config_.job_id + "/chk-" + std::to_string(pc.id);
}

void CheckpointCoordinator::complete_pending_checkpoint(PendingCheckpoint& pc,
                                                        Duration store_add) {
  const std::int64_t id = pc.id;
  CompletedCheckpoint completed;
  completed.id = id;
  completed.timestamp = pc.timestamp;
  completed.completion_time = sim_.now() - store_add;
  completed.props = pc.props;
  completed.state_size = pc.state_size;
  completed.external_path = external_path(pc);
  completed.task_states = pc.states;
  // finalizeCheckpoint disposes the pending checkpoint without discarding its state.
  pc.disposed = true;
  sim_.cancel(pc.canceller);
  const CheckpointProperties props = pc.props;
  const std::uint64_t request_id = pc.request_id;

  if (!props.is_savepoint()) {
    if (store_failures_ > 0) {
      // addCompletedCheckpointToStoreAndSubsumeOldest failed: FINALIZE_CHECKPOINT_FAILURE goes
      // to the failure manager (job-level), tasks are told it aborted.
      --store_failures_;
      const CheckpointException ex{CheckpointFailureReason::finalize_checkpoint_failure,
                                   "Could not complete the pending checkpoint " +
                                       std::to_string(id) + ".",
                                   false};
      // Up to 1.17 (release-1.15/-1.16/-1.17 CheckpointCoordinator.finalizeCheckpoint) the
      // failure manager heard of the success before the store add, and a failed add only
      // reports the stats as failed (reportFailedCheckpoint) and throws: it is neither logged by
      // nor counted in the failure manager. FLINK-32347 (1.18) reports success after the add
      // and hands a failed add to the failure manager.
      const bool before_1_18 = config_.version < FlinkVersion::v1_18;
      if (before_1_18) failure_manager_.handle_checkpoint_success(id);
      finish_request(request_id, ex.reason, id);
      observer_.checkpoint_aborted(sim_.now(), id, ex);
      if (!before_1_18) handle_failure(&pc, props, ex, std::nullopt, true, id);
      gateway_.notify_checkpoint_aborted(id, latest_completed_id(), completed.timestamp);
      pending_.erase(id);
      schedule_trigger_request();
      return;
    }
    store_.push_back(completed);
    // CheckpointSubsumeHelper: keep num-retained, never the latest.
    const auto retained = static_cast<std::size_t>(std::max(1, config_.checkpointing.num_retained));
    while (store_.size() > retained) store_.pop_front();
    force_full_snapshot_ = false;
  } else {
    latest_savepoint_ = completed;
  }
  finish_request(request_id, std::nullopt, id);
  failure_manager_.handle_checkpoint_success(id);
  pending_.erase(id);  // `pc` is gone from here on
  schedule_trigger_request();
  // completePendingCheckpoint up to 1.18 (from 1.15: cleanupAfterCompletedCheckpoint on
  // release-1.15/-1.16): rememberRecentCheckpointId(checkpointId) after every successful
  // completion, so late acks of completed checkpoints WARN too; 1.19+ remembers only expired ids
  // (FLINK-15922).
  if (config_.version < FlinkVersion::v1_19)
    remember_expired(id);

  // cleanupAfterCompletedCheckpoint
  last_completion_ = sim_.now();
  observer_.checkpoint_completed(sim_.now(), id, completed.state_size,
                                 completed.completion_time - completed.timestamp,
                                 store_add, completed.external_path);
  if (!props.is_savepoint() || props.synchronous) {
    drop_subsumed_checkpoints(id);
    gateway_.notify_checkpoint_complete(id, completed.timestamp);
    for (std::size_t i = 0; i < config_.master_steps.size(); ++i)
      master_notifications_.push_back("complete:" + std::to_string(id));
  }
}

void CheckpointCoordinator::drop_subsumed_checkpoints(std::int64_t id) {
  // dropSubsumedCheckpoints: abort every older pending checkpoint that can be subsumed.
  for (std::int64_t older : pending_checkpoint_ids()) {
    if (older >= id) break;
    auto it = pending_.find(older);
    if (it != pending_.end() && it->second->props.can_be_subsumed())
      abort_pending_checkpoint(*it->second,
                               CheckpointException{CheckpointFailureReason::checkpoint_subsumed});
  }
}

void CheckpointCoordinator::receive_decline(std::int64_t checkpoint_id, TaskRef task,
                                            const CheckpointException& ex) {
  if (shutdown_) return;
  auto it = pending_.find(checkpoint_id);
  if (it == pending_.end() || it->second->disposed) return;  // DEBUG only
  observer_.checkpoint_declined(sim_.now(), checkpoint_id, task, ex);
  abort_pending_checkpoint(*it->second, ex, task);  // the TM's reason is used as-is
}

void CheckpointCoordinator::trigger_rpc_failed(std::int64_t checkpoint_id,
                                               const CheckpointException& ex) {
  observer_.trigger_rpc_failed(sim_.now(), checkpoint_id, ex);
  rpc_failures_[checkpoint_id] = ex;
  sim_.schedule_in(0, this, kAbortAfterRpcFailure, static_cast<std::uint64_t>(checkpoint_id));
}

// ---------------------------------------------------------------------------------------------
// Restore

const CompletedCheckpoint* CheckpointCoordinator::latest_completed() const {
  return store_.empty() ? nullptr : &store_.back();
}

std::int64_t CheckpointCoordinator::latest_completed_id() const {
  return store_.empty() ? -1 : store_.back().id;
}

const CompletedCheckpoint* CheckpointCoordinator::restore_latest_checkpointed_state(bool global) {
  // restoreLatestCheckpointedStateInternal: always completedCheckpointStore.getLatestCheckpoint()
  // (savepoints triggered at runtime never enter the store).
  const CompletedCheckpoint* latest = latest_completed();
  if (!latest) {
    observer_.no_checkpoint_found(sim_.now(), global);
    return nullptr;
  }
  // restoreLatestCheckpointedStateInternal: forceFullSnapshot = latest.getProperties().isUnclaimed()
  force_full_snapshot_ = latest->unclaimed;
  RestoreInfo info;
  info.id = latest->id;
  info.type = latest->props.type;
  info.snapshot_trigger_time = latest->timestamp;
  info.external_path = latest->external_path;
  observer_.restored(sim_.now(), info);
  return latest;
}

void CheckpointCoordinator::restore_savepoint(const CompletedCheckpoint& savepoint, bool no_claim) {
  RestoreInfo info;
  info.id = savepoint.id;
  info.type = savepoint.props.type;
  info.snapshot_trigger_time = savepoint.timestamp;
  info.external_path = savepoint.external_path;
  observer_.starting_from_savepoint(sim_.now(), info);
  store_.push_back(savepoint);
  // SavepointRestoreSettings NO_CLAIM loads the savepoint with unclaimed properties.
  store_.back().unclaimed = no_claim;
  // restoreSavepoint: the id counter continues after the savepoint (L1939-1943).
  next_id_ = savepoint.id + 1;
  observer_.checkpoint_id_reset(sim_.now(), next_id_);
  // then restoreLatestCheckpointedStateInternal: forceFullSnapshot = isUnclaimed()
  force_full_snapshot_ = no_claim;
}

void CheckpointCoordinator::recover_after_jobmanager_failover(
    const std::deque<CompletedCheckpoint>& store, std::int64_t next_checkpoint_id) {
  store_ = store;
  next_id_ = next_checkpoint_id;
}

// ---------------------------------------------------------------------------------------------
// Test and scenario hooks, queries

void CheckpointCoordinator::fail_next_id_allocations(int n, bool io_exception) {
  id_failures_ = n;
  id_failures_io_ = io_exception;
}
void CheckpointCoordinator::fail_next_storage_initializations(int n) { storage_failures_ = n; }
void CheckpointCoordinator::fail_next_store_additions(int n) { store_failures_ = n; }
void CheckpointCoordinator::set_checkpoints_being_cleaned(int n) {
  cleaning_ = n;
  schedule_trigger_request();
}
Duration CheckpointCoordinator::master_duration(std::size_t index) {
  const CostLaw& law = config_.master_steps[index].duration;
  return master_durations_[index] + (law.grows() ? law.growth(gateway_.master_cost_inputs()) : 0);
}

void CheckpointCoordinator::set_master_step_duration(std::size_t index, Duration d) {
  master_durations_.at(index) = d;
}
void CheckpointCoordinator::set_master_step_failing(std::size_t index, bool failing) {
  master_failing_.at(index) = failing;
}
void CheckpointCoordinator::set_master_step_hanging(std::size_t index, bool hanging) {
  master_hanging_.at(index) = hanging;
}
void CheckpointCoordinator::complete_master_step(std::size_t index, bool failed) {
  master_hanging_.at(index) = false;
  if (!hung_stage_) return;
  // A failed coordinator or hook future fails the whole trigger chain; startTriggeringCheckpoint's
  // handler maps it to TRIGGER_CHECKPOINT_FAILURE.
  if (failed) triggering_failure_ = CheckpointFailureReason::trigger_checkpoint_failure;
  const bool hooks = *hung_stage_ == kHooksDone;
  for (std::size_t i = 0; i < config_.master_steps.size(); ++i)
    if (config_.master_steps[i].is_hook == hooks && master_step_active(i, sim_.now(), true))
      return;  // another step of this stage is still running
  const Event stage = *hung_stage_;
  hung_stage_.reset();
  sim_.schedule_in(0, this, stage);
}

void CheckpointCoordinator::abort_current_triggering() {
  // OperatorCoordinatorHolder.abortCurrentTriggering on a global failover: the coordinators'
  // checkpoint futures of the trigger in flight fail, so the trigger chain ends now.
  const bool waiting = (hung_stage_ && *hung_stage_ == kCoordinatorsDone) ||
                       sim_.is_pending(coordinators_done_);
  if (!waiting) return;
  sim_.cancel(coordinators_done_);
  hung_stage_.reset();
  triggering_failure_ = CheckpointFailureReason::trigger_checkpoint_failure;
  sim_.schedule_in(0, this, kCoordinatorsDone);
}

bool CheckpointCoordinator::in_coordinators_stage(std::int64_t id) const {
  return triggering_id_ == id && ((hung_stage_ && *hung_stage_ == kCoordinatorsDone) ||
                                  sim_.is_pending(coordinators_done_));
}

std::vector<std::int64_t> CheckpointCoordinator::pending_checkpoint_ids() const {
  std::vector<std::int64_t> ids;
  for (const auto& [id, pc] : pending_) ids.push_back(id);
  return ids;
}

int CheckpointCoordinator::acknowledged_tasks(std::int64_t id) const {
  auto it = pending_.find(id);
  return it == pending_.end() ? 0 : it->second->num_acked;
}

void CheckpointCoordinator::on_event(std::uint32_t kind, std::uint64_t arg) {
  switch (static_cast<Event>(kind)) {
    case kPeriodicTrigger:
      // ScheduledTrigger: fixed rate on the schedule, independent of completion.
      periodic_next_ += base_interval();
      periodic_timer_ = sim_.schedule_at(periodic_next_, this, kPeriodicTrigger);
      trigger_checkpoint(true);
      break;
    case kPlanDone: on_plan_done(); break;
    case kIdAllocated: on_id_allocated(); break;
    case kCreatePending: on_create_pending(); break;
    case kStorageInitialized: on_storage_initialized(); break;
    case kCoordinatorsDone: on_coordinators_done(); break;
    case kHooksDone: on_hooks_done(); break;
    case kCanceller: {
      // CheckpointCanceller.run
      auto it = pending_.find(static_cast<std::int64_t>(arg));
      if (it != pending_.end() && !it->second->disposed) {
        gateway_.checkpoint_expiring(it->first, it->second->unacknowledged());
        observer_.checkpoint_expired(sim_.now(), it->first);
        abort_pending_checkpoint(*it->second,
                                 CheckpointException{CheckpointFailureReason::checkpoint_expired});
      }
      break;
    }
    case kExecuteQueuedRequest: execute_queued_request(); break;
    case kFinalized: {
      auto it = pending_.find(static_cast<std::int64_t>(arg));
      if (it != pending_.end() && it->second->finalizing)
        complete_pending_checkpoint(*it->second, it->second->store_add);
      break;
    }
    case kAbortAfterRpcFailure: {
      const auto id = static_cast<std::int64_t>(arg);
      auto it = pending_.find(id);
      auto failure = rpc_failures_.find(id);
      if (it != pending_.end() && failure != rpc_failures_.end())
        abort_pending_checkpoint(*it->second, failure->second);
      if (failure != rpc_failures_.end()) rpc_failures_.erase(failure);
      break;
    }
  }
}

}  // namespace ckptsim::model
