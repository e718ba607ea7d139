// JobMaster with its DefaultScheduler: job status, the checkpoint coordinator of each submission,
// global failover with the restart strategy, restore, stop-with-savepoint and the scenario's
// timeline (coordinator notes section 5). It wires the CheckpointCoordinator to the tasks.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/simulation.hpp"
#include "sim/model/checkpoint_coordinator.hpp"
#include "sim/model/config.hpp"
#include "sim/model/failover_strategy.hpp"
#include "sim/model/main_thread_executor.hpp"
#include "sim/model/observer.hpp"
#include "sim/model/restart_strategy.hpp"
#include "sim/model/task/task_executor.hpp"

namespace ckptsim::model {

class JobMaster final : public core::EventHandler,
                        public CheckpointCoordinatorGateway,
                        public CheckpointFailureManager::Callbacks,
                        public JobMasterGateway {
 public:
  JobMaster(core::Simulation& sim, const Scenario& scenario, std::string job_id,
            Observer& observer);
  ~JobMaster() override;

  // Submits the job at the current time and schedules the timeline.
  void start();

  // A request from outside the timeline (the REST API's savepoint, stop-with-savepoint, cancel
  // and checkpoint operations): carried out now, as the timeline action of its kind. Returns an
  // id to follow it by with request_outcome(); an action that checkpoints nothing (cancel)
  // completes at once, one the job's state refuses fails with Flink's reason.
  std::size_t request(const TimelineAction& action);
  RequestOutcome request_outcome(std::size_t id) const;

  JobStatus status() const { return status_; }
  int failovers() const { return failovers_; }
  int restarts() const { return restarts_; }
  std::int64_t replayed_records() const { return replayed_; }
  const TaskExecutor& tasks() const { return tasks_; }
  void flush_samples() { tasks_.flush_samples(); }
  CheckpointCoordinator* coordinator() { return coordinator_.get(); }

  // CheckpointCoordinatorGateway
  std::optional<PlanFailure> checkpoint_plan_failure() override;
  std::vector<TaskRef> tasks_to_wait_for() override;
  Duration coordinator_busy(std::size_t step) override;
  void trigger_tasks(std::int64_t id, SimTime timestamp, const CheckpointProperties&) override;
  void notify_checkpoint_complete(std::int64_t id, SimTime timestamp) override;
  void notify_checkpoint_aborted(std::int64_t id, std::int64_t latest, SimTime) override;
  void request_finished(std::uint64_t request_id, const RequestOutcome& outcome) override;
  void checkpoint_expiring(std::int64_t id, const std::vector<TaskRef>& late) override;
  void checkpoint_pending(std::int64_t id, Duration timeout) override;
  // CheckpointFailureManager::Callbacks
  void fail_job(const std::string& message) override;
  void fail_job_due_to_task_failure(const std::string& message, TaskRef attempt) override;
  // JobMasterGateway
  void acknowledge_checkpoint(std::int64_t id, TaskRef task, const SubtaskAck& metrics,
                              const TaskSnapshot& state) override;
  void decline_checkpoint(std::int64_t id, TaskRef task, const CheckpointException&) override;
  void all_tasks_running() override {}
  void all_tasks_terminal() override;
  void taskmanager_shut_down(int tm) override;
  void connector_phase(int vertex, ConnectorPhase phase) override;
  SimTime coordinator_free_at(int vertex) override;
  void task_failed(TaskRef task, const std::string& exception_class,
                   const std::string& message) override;
  CostLaw::Inputs master_cost_inputs() override;

  void on_event(std::uint32_t kind, std::uint64_t arg) override;
  // Telling the operator coordinators a checkpoint completed or aborted is bookkeeping for a
  // FLIP-27 source (a log line); what a sink's coordinator submits arrives as its own events.
  bool quiet(std::uint32_t kind) const override {
    return kind == kCoordinatorsCompleted || kind == kCoordinatorsAborted;
  }

 private:
  enum Event : std::uint32_t { kTimelineAction, kGlobalFailure, kRestart, kStopFailed,
                               kRandomFailure, kHeartbeatTimeout, kFailureHandled,
                               kRestartTasks, kCoordinatorsCompleted, kCoordinatorsAborted,
                               kTimelineOccurrence, kSlowProbe };
  // A failure waiting for the main thread: a global one (failGlobal), a task's (the failed
  // task), or failJobDueToTaskFailure's (failGlobalIfExecutionIsStillRunning of `attempt`).
  struct Failure {
    std::string exception_class;
    std::string message;
    std::optional<TaskRef> failed_task;
    std::optional<TaskRef> only_if_running;
  };

  // What the late tasks of checkpoint `id` wait for, to the observer (at expiry, or slow).
  void report_waits(std::int64_t id, const std::vector<TaskRef>& late, bool slow);
  void cancel_slow_probe(std::int64_t id);
  void submit(const CompletedCheckpoint* restore_from);
  // The Flink configuration of the current submission (a start may change it).
  const FlinkConfig& flink() const { return flink_ ? *flink_ : scenario_.flink; }
  void transition(JobStatus to);
  // Hands a failure to the main thread, `latency` from now.
  void enqueue_failure(Failure failure, Duration latency = 0);
  // DefaultScheduler.handleGlobalFailure / handleTaskFailure on the main thread; after the
  // failure handling, maybe_restart_tasks.
  void handle_failure(const Failure& failure);
  // DefaultScheduler.maybeRestartTasks: restartTasksWithDelay, or the job fails.
  void maybe_restart_tasks();
  // DefaultScheduler.restartTasks of the pending restart `key`.
  void restart_tasks(std::uint64_t key);
  // Carries out a timeline action; the coordinator's request id when it triggered a checkpoint
  // or savepoint.
  std::optional<std::uint64_t> run_action(const TimelineAction& action);
  const CompletedCheckpoint* find_start_state(const TimelineAction& action) const;
  // Timeline actions placed by the job's life (timeline_anchors.cpp): the anchor's event
  // happened (a checkpoint's id for the checkpoint anchors); an occurrence of action `index`
  // `delay` from now; carrying it out.
  void anchor_reached(ActionAnchor anchor, std::int64_t checkpoint);
  void schedule_occurrence(std::size_t index, std::uint64_t occurrence, Duration delay);
  void occurrence(std::uint64_t arg);
  void fire(std::size_t index);
  void reset_coordinator_work();

  core::Simulation& sim_;
  const Scenario& scenario_;
  std::string job_id_;
  Observer& observer_;
  MainThreadExecutor main_thread_;
  TaskExecutor tasks_;
  std::unique_ptr<CheckpointCoordinator> coordinator_;
  std::vector<std::unique_ptr<CheckpointCoordinator>> finished_coordinators_;
  // Not Flink's: per pending checkpoint, ckptsim's probe at half its timeout (why is it slow).
  std::map<std::int64_t, core::EventId> slow_probes_;
  std::unique_ptr<RestartBackoffTimeStrategy> restart_strategy_;
  JobStatus status_ = JobStatus::initializing;
  int submission_ = 0;
  std::uint64_t runs_ = 0;  // times the job switched to RUNNING (after-start's anchor)
  SimTime running_since_ = 0;  // ... the last time
  int failovers_ = 0;
  int restarts_ = 0;
  std::int64_t replayed_ = 0;
  // The tasks a handled failure restarts (DefaultScheduler's verticesWaitingForRestart), from
  // restartTasksWithDelay until restartTasks: once cancelled and after the backoff.
  struct PendingRestart {
    std::vector<int> tasks;  // subtask ids, ascending
    bool global = false;     // a global failure's (every task, coordinators reset)
    std::int64_t position_at_failure = 0;  // the sources' records read by those tasks
    bool cancelled = false;
    bool backoff_over = false;
  };
  std::map<std::uint64_t, PendingRestart> restarts_pending_;
  std::uint64_t next_restart_ = 0;
  std::optional<PendingRestart> handling_;  // the failure being handled (the main thread's)
  std::unique_ptr<FailoverStrategy> failover_;  // of the current submission
  std::optional<std::uint64_t> stop_request_;
  std::vector<Failure> failures_;
  std::optional<CompletedCheckpoint> start_state_;
  core::RandomStream failure_rng_;
  std::vector<MasterStepSpec> master_steps_;  // of the current coordinator
  // The timeline's work on a coordinator's single thread (coordinator_busy): its checkpoint
  // call queues behind it (the coordinator executor's FIFO).
  struct CoordinatorWork {
    SimTime since = 0;
    SimTime until = 0;
    std::string work;
    bool until_reset = false;  // ends when the coordinators are reset (a global restore)
  };
  std::map<std::string, CoordinatorWork> coordinator_work_;  // by coordinator name
  // `at-phase` actions: the run each last fired in (a phase anchors once per run).
  std::map<std::size_t, std::uint64_t> phase_fired_;
  const CoordinatorWork* work_of(std::size_t step) const;
  std::shared_ptr<const FlinkConfig> flink_;  // the current submission's, if changed
  // request(): the coordinator and its request id of each (none: refused or nothing to follow).
  struct ExternalRequest {
    const CheckpointCoordinator* coordinator = nullptr;
    std::optional<std::uint64_t> request_id;
    bool checkpoints = false;  // a savepoint or checkpoint was asked for
  };
  std::vector<ExternalRequest> requests_;
};

}  // namespace ckptsim::model
