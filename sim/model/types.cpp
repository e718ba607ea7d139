// Names and messages exactly as Flink prints them (CheckpointFailureReason.java, JobStatus.java,
// ExecutionState.java, CheckpointException.java).
#include "sim/model/types.hpp"

namespace ckptsim::model {

const char* to_string(JobStatus s) {
  switch (s) {
    case JobStatus::initializing: return "INITIALIZING";
    case JobStatus::created: return "CREATED";
    case JobStatus::running: return "RUNNING";
    case JobStatus::failing: return "FAILING";
    case JobStatus::failed: return "FAILED";
    case JobStatus::cancelling: return "CANCELLING";
    case JobStatus::canceled: return "CANCELED";
    case JobStatus::finished: return "FINISHED";
    case JobStatus::restarting: return "RESTARTING";
    case JobStatus::suspended: return "SUSPENDED";
    case JobStatus::reconciling: return "RECONCILING";
  }
  return "?";
}

bool is_globally_terminal(JobStatus s) {
  return s == JobStatus::failed || s == JobStatus::canceled || s == JobStatus::finished;
}

const char* to_string(ExecutionState s) {
  switch (s) {
    case ExecutionState::created: return "CREATED";
    case ExecutionState::scheduled: return "SCHEDULED";
    case ExecutionState::deploying: return "DEPLOYING";
    case ExecutionState::running: return "RUNNING";
    case ExecutionState::finished: return "FINISHED";
    case ExecutionState::canceling: return "CANCELING";
    case ExecutionState::canceled: return "CANCELED";
    case ExecutionState::failed: return "FAILED";
    case ExecutionState::reconciling: return "RECONCILING";
    case ExecutionState::initializing: return "INITIALIZING";
  }
  return "?";
}

namespace {
struct ReasonInfo {
  const char* name;
  const char* message;
  bool pre_flight;
};
// CheckpointFailureReason.java L23-79 (1.20): name, message, preFlight.
constexpr ReasonInfo kReasons[] = {
    {"PERIODIC_SCHEDULER_SHUTDOWN", "Periodic checkpoint scheduler is shut down.", true},
    {"TOO_MANY_CHECKPOINT_REQUESTS", "The maximum number of queued checkpoint requests exceeded",
     true},
    {"MINIMUM_TIME_BETWEEN_CHECKPOINTS",
     "The minimum time between checkpoints is still pending. Checkpoint will be triggered after "
     "the minimum time.",
     true},
    {"NOT_ALL_REQUIRED_TASKS_RUNNING", "Not all required tasks are currently running.", true},
    {"IO_EXCEPTION", "An Exception occurred while triggering the checkpoint. IO-problem detected.",
     true},
    {"BLOCKING_OUTPUT_EXIST", "Blocking output edge exists in running tasks.", true},
    {"CHECKPOINT_ASYNC_EXCEPTION", "Asynchronous task checkpoint failed.", false},
    {"CHANNEL_STATE_SHARED_STREAM_EXCEPTION",
     "The checkpoint was aborted due to exception of other subtasks sharing the ChannelState "
     "file.",
     false},
    {"CHECKPOINT_EXPIRED", "Checkpoint expired before completing.", false},
    {"CHECKPOINT_SUBSUMED", "Checkpoint has been subsumed.", false},
    {"CHECKPOINT_DECLINED", "Checkpoint was declined.", false},
    {"CHECKPOINT_DECLINED_TASK_NOT_READY", "Checkpoint was declined (tasks not ready)", false},
    {"CHECKPOINT_DECLINED_TASK_CLOSING", "Checkpoint was declined (task is closing)", false},
    {"CHECKPOINT_DECLINED_SUBSUMED",
     "Checkpoint was canceled because a barrier from newer checkpoint was received.", false},
    {"CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER",
     "Task received cancellation from one of its inputs", false},
    {"CHECKPOINT_DECLINED_INPUT_END_OF_STREAM",
     "Checkpoint was declined because one input stream is finished", false},
    {"CHECKPOINT_COORDINATOR_SHUTDOWN", "CheckpointCoordinator shutdown.", false},
    {"CHECKPOINT_COORDINATOR_SUSPEND", "Checkpoint Coordinator is suspending.", false},
    {"JOB_FAILOVER_REGION", "FailoverRegion is restarting.", false},
    {"TASK_FAILURE", "Task has failed.", false},
    {"TASK_CHECKPOINT_FAILURE", "Task local checkpoint failure.", false},
    {"UNKNOWN_TASK_CHECKPOINT_NOTIFICATION_FAILURE", "Unknown task for the checkpoint to notify.",
     false},
    {"FINALIZE_CHECKPOINT_FAILURE", "Failure to finalize checkpoint.", false},
    {"TRIGGER_CHECKPOINT_FAILURE", "Trigger checkpoint failure.", false},
};
const ReasonInfo& info(CheckpointFailureReason r) { return kReasons[static_cast<int>(r)]; }
}  // namespace

const char* name(CheckpointFailureReason r) { return info(r).name; }
const char* message(CheckpointFailureReason r) { return info(r).message; }
bool is_pre_flight(CheckpointFailureReason r) { return info(r).pre_flight; }

std::string CheckpointException::get_message() const {
  if (detail.empty()) return message(reason);
  return detail + " Failure reason: " + message(reason);
}

bool is_savepoint(SnapshotType t) {
  return t == SnapshotType::savepoint || t == SnapshotType::sync_savepoint;
}

}  // namespace ckptsim::model
