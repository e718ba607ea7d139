// The Recorder listens to the model's facts and builds the RunResult: the checkpoint statistics
// (CheckpointStatsTracker's view), job status history and the Flink log records with Flink's
// exact message formats and logger names (reference/flink-coordinator.md section 6).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/model/config.hpp"
#include "sim/model/observer.hpp"
#include "sim/run/result.hpp"

namespace ckptsim::run {

class Recorder final : public model::Observer {
 public:
  Recorder(const model::Scenario& scenario, std::string job_id);

  RunResult& result() { return result_; }

  void job_submitted(SimTime, int submission) override;
  void savepoint_requested(SimTime, bool stop) override;
  void job_status_changed(SimTime, model::JobStatus from, model::JobStatus to) override;
  void task_state_changed(SimTime, model::TaskRef, model::ExecutionState from,
                          model::ExecutionState to) override;
  void checkpoint_triggered(SimTime, const model::CheckpointStart&) override;
  void checkpoint_acknowledged(SimTime, std::int64_t id, const model::SubtaskAck&) override;
  void source_coordinator_notified(SimTime, std::int64_t id, const std::string& source,
                                   bool complete) override;
  void checkpoint_completed(SimTime, std::int64_t id, std::int64_t bytes, Duration duration,
                            Duration finalization, const std::string& path) override;
  void checkpoint_expired(SimTime, std::int64_t id) override;
  void taskmanager_disconnected(SimTime, int tm, const std::string& cause) override;
  void checkpoint_wait(SimTime, std::int64_t id, model::TaskRef, const model::WaitState&,
                       bool slow) override;
  void checkpoint_declined(SimTime, std::int64_t id, model::TaskRef,
                           const model::CheckpointException&) override;
  void checkpoint_aborted(SimTime, std::int64_t id, const model::CheckpointException&) override;
  void trigger_rpc_failed(SimTime, std::int64_t id, const model::CheckpointException&) override;
  void late_message(SimTime, std::int64_t id, model::TaskRef) override;
  void late_subtask_stats(SimTime, std::int64_t id, const model::SubtaskAck&) override;
  void checkpoint_id_reset(SimTime, std::int64_t next_id) override;
  void restored(SimTime, const model::RestoreInfo&) override;
  void no_checkpoint_found(SimTime, bool global) override;
  void starting_from_savepoint(SimTime, const model::RestoreInfo&) override;
  void coordinator_shutdown(SimTime) override;
  void request_queue_time(SimTime, Duration waited) override;
  void checkpoint_failure_handled(SimTime, std::int64_t id, const model::CheckpointException&,
                                  int counter_before, bool had_pending_stats) override;
  void global_failure(SimTime, const std::string& exception_class, const std::string& message,
                      int tasks) override;
  void restart_suppressed(SimTime, const std::string& strategy) override;
  void restarting_tasks(SimTime) override;
  void task_failed(SimTime, model::TaskRef, const std::string& exception_class,
                   const std::string& message, int tasks) override;
  void connector_event(SimTime, const model::ConnectorEvent&) override;
  void task_sample(SimTime, model::TaskRef, const model::TaskSample&) override;

 private:
  void log(SimTime t, LogLevel level, const char* logger, std::string message,
           std::vector<std::string> throwable = {});
  CheckpointRecord* find(std::int64_t id);
  void record_execution_state(SimTime t, model::TaskRef task, model::ExecutionState from,
                              model::ExecutionState to);
  std::string attempt_id(model::TaskRef t) const;
  std::string task_name(model::TaskRef t) const;
  std::string location(model::TaskRef t) const;
  std::string allocation_id(model::TaskRef t) const;
  std::int64_t epoch(SimTime t) const { return result_.start_epoch_ms + t / core::kMillisecond; }

  const model::Scenario& scenario_;
  RunResult result_;
  std::string execution_graph_id_;
  int tasks_to_restart_ = 0;
  std::string failure_class_;
  std::string failure_message_;
  std::string suppressed_by_;
  // Where a FlinkRuntimeException of the CheckpointFailureManager would have been created: on
  // the stack of the checkpoint failure handled last.
  ThrowSite threshold_site_ = ThrowSite::none;
  bool task_failure_ = false;  // the failover in progress was caused by a task, not globally
  std::string failed_attempt_;  // that task's ExecutionAttemptID
  model::ExecutionState failed_from_ = model::ExecutionState::running;  // of the failing task
  int submission_ = 0;
  std::map<std::int64_t, std::size_t> index_;  // checkpoint id -> position in checkpoints
  std::vector<std::size_t> subtask_offset_;      // vertex -> its first subtask in executions
  std::size_t subtasks_ = 0;
};

// A stable 32-hex-digit id (JobID / JobVertexID / ExecutionGraphID form) for a name.
std::string stable_id(const std::string& name);

}  // namespace ckptsim::run
