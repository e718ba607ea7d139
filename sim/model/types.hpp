// Flink's enums and small value types shared by the JobManager and task models: job and
// execution states, CheckpointFailureReason with its messages, snapshot types.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "sim/core/time.hpp"

namespace ckptsim::model {

// org.apache.flink.api.common.JobStatus
enum class JobStatus {
  initializing, created, running, failing, failed, cancelling, canceled, finished, restarting,
  suspended, reconciling
};
const char* to_string(JobStatus s);  // "RUNNING"
bool is_globally_terminal(JobStatus s);

// org.apache.flink.runtime.execution.ExecutionState
enum class ExecutionState {
  created, scheduled, deploying, running, finished, canceling, canceled, failed, reconciling,
  initializing
};
const char* to_string(ExecutionState s);  // "RUNNING"
inline constexpr int kExecutionStateCount = 10;

// org.apache.flink.runtime.checkpoint.CheckpointFailureReason (1.20 order)
enum class CheckpointFailureReason {
  periodic_scheduler_shutdown,
  too_many_checkpoint_requests,
  minimum_time_between_checkpoints,
  not_all_required_tasks_running,
  io_exception,
  blocking_output_exist,
  checkpoint_async_exception,
  channel_state_shared_stream_exception,
  checkpoint_expired,
  checkpoint_subsumed,
  checkpoint_declined,
  checkpoint_declined_task_not_ready,
  checkpoint_declined_task_closing,
  checkpoint_declined_subsumed,
  checkpoint_declined_on_cancellation_barrier,
  checkpoint_declined_input_end_of_stream,
  checkpoint_coordinator_shutdown,
  checkpoint_coordinator_suspend,
  job_failover_region,
  task_failure,
  task_checkpoint_failure,
  unknown_task_checkpoint_notification_failure,
  finalize_checkpoint_failure,
  trigger_checkpoint_failure,
};
const char* name(CheckpointFailureReason r);     // "CHECKPOINT_EXPIRED"
const char* message(CheckpointFailureReason r);  // "Checkpoint expired before completing."
bool is_pre_flight(CheckpointFailureReason r);   // CheckpointFailureReason.isPreFlight()

// org.apache.flink.runtime.checkpoint.CheckpointException: a reason plus an optional message;
// getMessage() is "<msg> Failure reason: <reason message>" or just the reason message.
struct CheckpointException {
  CheckpointException() = default;
  CheckpointException(CheckpointFailureReason r, std::string d = {}, bool io = false)
      : reason(r), detail(std::move(d)), io_cause(io) {}
  CheckpointFailureReason reason = CheckpointFailureReason::checkpoint_declined;
  std::string detail;        // the exception's own message, may be empty
  bool io_cause = false;     // caused by an IOException (getCheckpointException maps to IO_EXCEPTION)
  std::string get_message() const;
};

// What a checkpoint is: CheckpointType / SavepointType and the REST RestAPICheckpointType.
enum class SnapshotType { checkpoint, full_checkpoint, savepoint, sync_savepoint };
bool is_savepoint(SnapshotType t);

// A subtask as the JobManager names it (ExecutionAttemptID: vertex, subtask, attempt).
struct TaskRef {
  int vertex = 0;
  int subtask = 0;
  int attempt = 0;
};

// A transaction a two-phase-commit sink writer precommitted at a checkpoint (Flink's
// committable): committed by the Committer at notifyCheckpointComplete, or again on restore.
struct Committable {
  std::int64_t checkpoint = 0;  // the checkpoint whose snapshot precommitted it
  core::SimTime opened = 0;     // its first record
  std::int64_t records = 0;
  core::SimTime prepared = 0;   // when it was precommitted (the system's prepared timeout)
  std::string label;            // the system's name for it (a StarRocks label), if any
};

}  // namespace ckptsim::model
