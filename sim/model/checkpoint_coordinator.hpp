// CheckpointCoordinator: periodic triggering, the trigger pipeline (plan, id, pending checkpoint,
// storage location, operator coordinators, master hooks, task RPCs), acknowledgements, declines,
// completion and subsumption, expiry, aborts and restore, exactly as the JobManager does it
// (flink-runtime .../checkpoint/CheckpointCoordinator.java; coordinator notes sections 2-5).
// It talks to the tasks only through CheckpointCoordinatorGateway, as Flink's RPCs do.
#pragma once


#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/random.hpp"
#include "sim/core/simulation.hpp"
#include "sim/model/checkpoint_failure_manager.hpp"
#include "sim/model/checkpoint_request_decider.hpp"
#include "sim/model/config.hpp"
#include "sim/model/main_thread_executor.hpp"
#include "sim/model/observer.hpp"

namespace ckptsim::model {

// The state one subtask contributes to a snapshot (its TaskStateSnapshot, reduced to numbers).
struct TaskSnapshot {
  std::int64_t source_position = 0;  // records emitted so far (sources)
  std::int64_t state_size = 0;       // bytes of operator state
  // A source reader's split state (SourceReader.snapshotState): a phase of the connector's
  // own (a CDC reader: snapshot or binlog) and its progress in it.
  std::uint8_t split_phase = 0;
  std::int64_t split_progress = 0;
  // A sink writer's committables not committed yet (SinkWriter.prepareCommit, two-phase).
  std::vector<Committable> committables;
};

struct RequestOutcome;

// What the coordinator needs from the execution graph: the checkpoint plan and the RPCs.
class CheckpointCoordinatorGateway {
 public:
  virtual ~CheckpointCoordinatorGateway() = default;
  // Why DefaultCheckpointPlanCalculator.calculateCheckpointPlan fails, if it does: some tasks
  // FINISHED without checkpoints-after-tasks-finish (`task` empty), or the first task the
  // checkpoint waits for (every task not FINISHED) that is not RUNNING (`task` names it).
  struct PlanFailure {
    std::string task;
  };
  virtual std::optional<PlanFailure> checkpoint_plan_failure() = 0;
  // All subtasks the checkpoint waits for, with their current attempt numbers.
  virtual std::vector<TaskRef> tasks_to_wait_for() = 0;
  // Execution.triggerCheckpoint / triggerSynchronousSavepoint on every source.
  virtual void trigger_tasks(std::int64_t checkpoint_id, SimTime timestamp,
                             const CheckpointProperties& props) = 0;
  virtual void notify_checkpoint_complete(std::int64_t checkpoint_id, SimTime timestamp) = 0;
  virtual void notify_checkpoint_aborted(std::int64_t checkpoint_id,
                                         std::int64_t latest_completed_id, SimTime timestamp) = 0;
  // The future of a trigger request completed (normally or exceptionally). Called from inside
  // the coordinator: an implementation must not call back into it synchronously.
  virtual void request_finished(std::uint64_t /*request_id*/, const RequestOutcome&) {}
  // The CheckpointCanceller is about to expire a checkpoint these tasks never acknowledged.
  virtual void checkpoint_expiring(std::int64_t /*id*/, const std::vector<TaskRef>& /*late*/) {}
  // A pending checkpoint was created with its own timeout (ckptsim's diagnosis watches it).
  virtual void checkpoint_pending(std::int64_t /*id*/, Duration /*timeout*/) {}
  // How long master step `step`'s checkpoint call must first wait for its coordinator thread
  // (a split enumerator busy with split queries), on top of its own duration.
  virtual Duration coordinator_busy(std::size_t /*step*/) { return 0; }
  // What a master step's cost law grows with (cost_law.hpp): the checkpoints completed in the
  // run, the time since the job last started.
  virtual CostLaw::Inputs master_cost_inputs() { return {}; }
};

struct CompletedCheckpoint {
  std::int64_t id = 0;
  SimTime timestamp = 0;           // trigger time
  SimTime completion_time = 0;
  CheckpointProperties props;
  std::int64_t state_size = 0;     // bytes
  std::string external_path;
  std::map<std::pair<int, int>, TaskSnapshot> task_states;  // (vertex, subtask) -> state
  // CheckpointProperties.isUnclaimed(): a savepoint restored in NO_CLAIM mode. Restoring it makes
  // the next checkpoints FULL until one completes.
  bool unclaimed = false;
};

// What receiveAcknowledgeMessage did with one acknowledgement (PendingCheckpoint's
// TaskAcknowledgeResult plus the coordinator's own cases).
enum class AcknowledgeResult {
  success,             // counted (and maybe completed the checkpoint)
  duplicate,           // this subtask had already acknowledged
  unknown_attempt,     // not a subtask (attempt) the checkpoint waits for: state discarded
  late,                // no pending checkpoint, id remembered (WARN "late message"): returns true
  unknown_checkpoint,  // no pending checkpoint, id not remembered (DEBUG): returns false
  ignored,             // the coordinator is shut down: returns false
};
struct AcknowledgeOutcome {
  AcknowledgeResult result = AcknowledgeResult::ignored;
  // The CheckpointException receiveAcknowledgeMessage throws when completing fails
  // (FINALIZE_CHECKPOINT_FAILURE, "Could not complete the pending checkpoint <id>.").
  std::optional<CheckpointException> thrown;
  // receiveAcknowledgeMessage's boolean: the message belonged to a (recently) pending checkpoint.
  bool associated() const {
    return result != AcknowledgeResult::unknown_checkpoint && result != AcknowledgeResult::ignored;
  }
};

// What happened to one trigger request (the CompletableFuture Flink returns).
struct RequestOutcome {
  enum class State { queued, triggering, completed, failed } state = State::queued;
  std::optional<CheckpointFailureReason> failure;
  std::int64_t checkpoint_id = -1;
};

struct CheckpointCoordinatorConfig {
  CheckpointingConfig checkpointing;
  FlinkVersion version = FlinkVersion::v1_17;
  std::vector<MasterStepSpec> master_steps;
  std::string job_id;                // for external paths
  std::string checkpoints_dir;       // empty = not externally addressable (JobManager storage)
  std::string savepoints_dir;
  Duration id_counter_latency = 0;   // io executor hops of the trigger pipeline
  Duration storage_init_latency = 0;
  // DefaultCheckpointPlanCalculator.calculateCheckpointPlan runs on the JobMaster main thread
  // (supplyAsync on context.getMainExecutor()): the way of its runnable into that thread.
  Duration plan_latency = 0;
  // The timer thread's work in abortPendingCheckpoint before its finally block's
  // scheduleTriggerRequest lets executeQueuedRequest run (PendingCheckpoint.abort, the failure
  // manager's WARN with its stack trace, sendAbortedMessages).
  Duration abort_handling = 0;
  // Where finalizeCheckpoint writes the _metadata file (none: kept in memory, as
  // JobManagerCheckpointStorage without a checkpoint directory does), how long adding the
  // completed checkpoint to the CompletedCheckpointStore takes, and the random stream of both.
  std::optional<CheckpointStorageSpec> metadata_storage;
  LatencyDistribution store_latency;
  core::RandomStream completion_rng{0, std::uint64_t{0}};
};

class CheckpointCoordinator final : public core::EventHandler,
                                    private CheckpointRequestDecider::Context {
 public:
  CheckpointCoordinator(core::Simulation& sim, CheckpointCoordinatorConfig config,
                        CheckpointCoordinatorGateway& gateway,
                        CheckpointFailureManager::Callbacks& failure_callbacks, Observer& observer,
                        core::RandomStream rng, MainThreadExecutor* main_thread = nullptr);
  ~CheckpointCoordinator() override;

  // Scheduler control (CheckpointCoordinatorDeActivator: RUNNING starts, anything else stops).
  void start_checkpoint_scheduler();
  void stop_checkpoint_scheduler();
  bool is_periodic_checkpointing_started() const { return periodic_scheduling_; }
  void shutdown();

  // Requests; the returned id names the request's outcome.
  std::uint64_t trigger_checkpoint(bool periodic);
  // CC.triggerCheckpoint(CheckpointType) (1.19+): a manual checkpoint of the requested type
  // (checkpoint = incremental as configured, full_checkpoint = FULL).
  std::uint64_t trigger_checkpoint(SnapshotType type);
  std::uint64_t trigger_savepoint();
  std::uint64_t trigger_synchronous_savepoint();
  const RequestOutcome& outcome(std::uint64_t request_id) const { return outcomes_.at(request_id); }

  // Messages from tasks (through the JobMaster).
  AcknowledgeOutcome receive_acknowledge(std::int64_t checkpoint_id, TaskRef task,
                                         const SubtaskAck& metrics, const TaskSnapshot& state);
  void receive_decline(std::int64_t checkpoint_id, TaskRef task, const CheckpointException& ex);
  // An RPC to trigger a source failed (Triggering Checkpoint {} for job {} failed due to {}).
  void trigger_rpc_failed(std::int64_t checkpoint_id, const CheckpointException& ex);

  // Failover: SchedulerBase.restoreState aborts pending with JOB_FAILOVER_REGION, then restores.
  void abort_pending_checkpoints(CheckpointFailureReason reason);
  // restoreLatestCheckpointedStateToAll: the latest completed checkpoint (or the savepoint the job
  // started from); nullptr when there is none.
  const CompletedCheckpoint* restore_latest_checkpointed_state(bool global);
  // restoreSavepoint at job start: adds it to the store and resets the id counter.
  void restore_savepoint(const CompletedCheckpoint& savepoint, bool no_claim);
  // A new coordinator after a JobManager failover: the HA CompletedCheckpointStore and
  // CheckpointIDCounter survive it (coordinator notes 5.5); call restore_latest_... next.
  void recover_after_jobmanager_failover(const std::deque<CompletedCheckpoint>& store,
                                         std::int64_t next_checkpoint_id);

  // Observers for tests and the scheduler.
  int number_of_pending_checkpoints() const { return static_cast<int>(pending_.size()); }
  // A global failover resets the operator coordinators: a trigger waiting for them fails.
  void abort_current_triggering();
  // Checkpoint `id` is still waiting for the operator coordinators' checkpoints.
  bool in_coordinators_stage(std::int64_t id) const;
  std::vector<std::int64_t> pending_checkpoint_ids() const;
  bool is_pending(std::int64_t id) const { return pending_.count(id) != 0; }
  // The tasks that have not acknowledged pending checkpoint `id` (none once it is disposed or
  // being finalized).
  std::vector<TaskRef> unacknowledged(std::int64_t id) const;
  int acknowledged_tasks(std::int64_t id) const;
  std::size_t queued_requests() const { return decider_.queued(); }
  bool is_triggering() const { return is_triggering_; }
  bool is_shutdown() const { return shutdown_; }
  const std::deque<CompletedCheckpoint>& completed_checkpoints() const { return store_; }
  const CompletedCheckpoint* latest_completed() const;
  const std::optional<CompletedCheckpoint>& latest_savepoint() const { return latest_savepoint_; }
  std::int64_t next_checkpoint_id() const { return next_id_; }
  const std::deque<std::int64_t>& recent_expired() const { return recent_expired_; }
  bool force_full_snapshot() const { return force_full_snapshot_; }
  std::int64_t latest_completed_id() const;
  // notifyCheckpointComplete/Aborted sent to operator coordinators and hooks, in order
  // ("complete:<id>" / "abort:<id>").
  const std::vector<std::string>& master_notifications() const { return master_notifications_; }
  SimTime next_periodic_trigger() const;

  // Faults a test or a scenario can inject into the JobManager side.
  void fail_next_id_allocations(int n, bool io_exception);   // CheckpointIDCounter
  void fail_next_storage_initializations(int n);             // IOException
  void fail_next_store_additions(int n);                     // CompletedCheckpointStore.add
  void set_checkpoints_being_cleaned(int n);                 // CheckpointsCleaner
  void set_master_step_duration(std::size_t index, Duration d);
  void set_master_step_failing(std::size_t index, bool failing);
  // An operator coordinator / master hook whose checkpoint future stays incomplete until
  // complete_master_step() (the CompletableFuture a test or a stuck enumerator holds).
  void set_master_step_hanging(std::size_t index, bool hanging);
  // Completes a hanging step's future, normally or exceptionally; the trigger pipeline resumes.
  void complete_master_step(std::size_t index, bool failed);

  void on_event(std::uint32_t kind, std::uint64_t arg) override;
  // Finalizing a completed checkpoint is JobManager bookkeeping; the notifications it sends
  // arrive as the TaskExecutor's events; executeQueuedRequest with no request queued does
  // nothing. (Triggering and expiring are not quiet.)
  bool quiet(std::uint32_t kind) const override {
    return kind == kFinalized || (kind == kExecuteQueuedRequest && decider_.queued() == 0);
  }
  // From the periodic trigger to the RPCs to the tasks (on_hooks_done).
  bool triggers_checkpoint(std::uint32_t kind) const override { return kind <= kHooksDone; }

 private:
  struct PendingCheckpoint;
  enum Event : std::uint32_t {
    kPeriodicTrigger, kPlanDone, kIdAllocated, kCreatePending, kStorageInitialized,
    kCoordinatorsDone, kHooksDone, kCanceller, kExecuteQueuedRequest, kAbortAfterRpcFailure,
    kFinalized,
  };

  // CheckpointRequestDecider::Context
  SimTime now() const override { return sim_.now(); }
  int pending_checkpoints() const override { return number_of_pending_checkpoints(); }
  int checkpoints_being_cleaned() const override { return cleaning_; }
  void reschedule_trigger(Duration delay) override;
  void request_dropped(const CheckpointTriggerRequest&, CheckpointFailureReason) override;
  void request_time_in_queue(Duration waited) override;

  std::uint64_t submit(CheckpointProperties props, bool periodic);
  void start_triggering(const CheckpointTriggerRequest& request);
  std::optional<CheckpointFailureReason> pre_check_global_state(bool periodic) const;
  void on_plan_done();
  void on_id_allocated();
  void on_create_pending();
  void on_storage_initialized();
  void on_coordinators_done();
  void on_hooks_done();
  void trigger_checkpoint_request();
  void on_trigger_success();
  void on_trigger_failure_without_pending(const CheckpointException& ex);
  void on_trigger_failure(PendingCheckpoint* pc, const CheckpointException& ex);
  void maybe_complete(PendingCheckpoint& pc);
  // `store_add`: how long addCompletedCheckpointToStoreAndSubsumeOldest took before now (the
  // log's finalizationTime; the completion timestamp is that much earlier).
  void complete_pending_checkpoint(PendingCheckpoint& pc, Duration store_add = 0);
  void abort_pending_checkpoint(PendingCheckpoint& pc, const CheckpointException& ex,
                                std::optional<TaskRef> attempt = std::nullopt);
  void handle_failure(PendingCheckpoint* pc, const CheckpointProperties& props,
                      const CheckpointException& ex, std::optional<TaskRef> attempt,
                      bool had_pending_stats, std::int64_t id);
  void drop_subsumed_checkpoints(std::int64_t id);
  void schedule_trigger_request(Duration after = 0);
  void execute_queued_request();
  void arm_periodic_trigger(Duration delay);
  void cancel_periodic_trigger();
  Duration base_interval() const;
  void finish_request(std::uint64_t request_id, std::optional<CheckpointFailureReason> failure,
                      std::int64_t checkpoint_id);
  void remember_expired(std::int64_t id);
  std::string external_path(const PendingCheckpoint& pc) const;
  bool master_step_active(std::size_t i, SimTime at, bool hangs) const;

  core::Simulation& sim_;
  CheckpointCoordinatorConfig config_;
  CheckpointCoordinatorGateway& gateway_;
  Observer& observer_;
  core::RandomStream rng_;
  SimTime finalized_until_ = 0;  // the coordinator lock is held by finalizations until then
  CheckpointFailureManager failure_manager_;
  CheckpointRequestDecider decider_;
  // The JobMaster's main thread; a coordinator built alone (tests) has one of its own.
  std::unique_ptr<MainThreadExecutor> own_main_thread_;
  MainThreadExecutor* main_thread_;

  std::map<std::int64_t, std::unique_ptr<PendingCheckpoint>> pending_;
  std::deque<CompletedCheckpoint> store_;
  std::optional<CompletedCheckpoint> latest_savepoint_;
  std::deque<std::int64_t> recent_expired_;
  std::vector<RequestOutcome> outcomes_;
  std::vector<std::string> master_notifications_;

  // The one trigger pipeline in flight (isTriggering).
  bool is_triggering_ = false;
  CheckpointTriggerRequest triggering_request_;
  SimTime triggering_timestamp_ = 0;
  std::int64_t triggering_id_ = -1;
  std::optional<CheckpointFailureReason> triggering_failure_;
  bool triggering_io_failure_ = false;

  bool periodic_scheduling_ = false;
  bool shutdown_ = false;
  core::EventId periodic_timer_;
  SimTime periodic_next_ = 0;
  std::optional<SimTime> last_completion_;
  std::int64_t next_id_ = 1;  // StandaloneCheckpointIDCounter starts at 1
  bool force_full_snapshot_ = false;
  int cleaning_ = 0;
  int id_failures_ = 0;
  bool id_failures_io_ = false;
  int storage_failures_ = 0;
  int store_failures_ = 0;
  std::uint64_t next_request_id_ = 0;
  std::vector<Duration> master_durations_;  // each step's law's base (tests may set it)
  Duration master_duration(std::size_t index);
  std::vector<bool> master_failing_;
  std::vector<bool> master_hanging_;
  // The pipeline stage waiting for a hanging step (kCoordinatorsDone or kHooksDone), if any.
  std::optional<Event> hung_stage_;
  core::EventId coordinators_done_;  // the end of the operator coordinators' stage
  std::map<std::int64_t, CheckpointException> rpc_failures_;
};

}  // namespace ckptsim::model
