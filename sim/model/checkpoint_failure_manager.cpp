// Port of CheckpointFailureManager's counting rules (1.15-2.1, coordinator notes 4.1-4.3).
#include "sim/model/checkpoint_failure_manager.hpp"

namespace ckptsim::model {

std::string tolerable_failure_message(CheckpointFailureReason latest, FlinkVersion version) {
  // checkFailureAgainstCounter on release-1.15/-1.16: new FlinkRuntimeException(
  // EXCEEDED_CHECKPOINT_TOLERABLE_FAILURE_MESSAGE), the bare sentence. FLINK-29969 (1.17) added
  // the latest reason.
  if (version < FlinkVersion::v1_17) return "Exceeded checkpoint tolerable failure threshold.";
  // 1.17+ checkFailureAgainstCounter: String.format("%s The latest checkpoint failed due to %s, view
  // the Checkpoint History tab or the Job Manager log to find out why continuous checkpoints
  // failed.", EXCEEDED_CHECKPOINT_TOLERABLE_FAILURE_MESSAGE, reason.message())
  return std::string("Exceeded checkpoint tolerable failure threshold. The latest checkpoint "
                     "failed due to ") +
         message(latest) +
         ", view the Checkpoint History tab or the Job Manager log to find out why continuous "
         "checkpoints failed.";
}

int CheckpointFailureManager::handle_checkpoint_exception(std::int64_t checkpoint_id,
                                                          bool is_savepoint,
                                                          bool is_synchronous_savepoint,
                                                          const CheckpointException& ex,
                                                          std::optional<TaskRef> attempt) {
  const int before = counter_;
  // isJobManagerFailure: pre-flight reasons and failures without an attempt are job-level.
  if (is_pre_flight(ex.reason) || !attempt) {
    if (!is_savepoint) check_failure_against_counter(ex, checkpoint_id, std::nullopt);
  } else if (is_synchronous_savepoint) {
    // handleTaskLevelCheckpointException: a failed stop-with-savepoint fails the job outright.
    callbacks_.fail_job(ex.get_message());
  } else {
    // Task-level failures are counted for savepoints too (handleTaskLevelCheckpointException).
    check_failure_against_counter(ex, checkpoint_id, attempt);
  }
  return before;
}

void CheckpointFailureManager::check_failure_against_counter(const CheckpointException& ex,
                                                             std::int64_t checkpoint_id,
                                                             const std::optional<TaskRef>& attempt) {
  if (tolerable_ == kUnlimitedTolerableFailures) return;  // counting disabled (CFM L218-220)
  // Only failures of checkpoints newer than the last success count (or of unknown ids).
  if (checkpoint_id != kUnknownCheckpointId && checkpoint_id <= last_succeeded_) return;
  switch (ex.reason) {
    case CheckpointFailureReason::io_exception:
    case CheckpointFailureReason::checkpoint_async_exception:
    case CheckpointFailureReason::checkpoint_declined:
    case CheckpointFailureReason::checkpoint_expired:
    case CheckpointFailureReason::finalize_checkpoint_failure:
      // checkFailureCounter on release-1.15 lists FINALIZE_CHECKPOINT_FAILURE among the ignored
      // reasons; FLINK-27570 (release-1.16) counts it.
      if (ex.reason == CheckpointFailureReason::finalize_checkpoint_failure &&
          version_ < FlinkVersion::v1_16)
        break;
      // checkFailureCounter: counted once per id; the unknown id -1 always counts.
      if (checkpoint_id == kUnknownCheckpointId || counted_ids_.insert(checkpoint_id).second)
        ++counter_;
      break;
    default:
      break;
  }
  if (counter_ > tolerable_) {
    clear_count();
    const std::string message = tolerable_failure_message(ex.reason, version_);
    if (attempt)
      callbacks_.fail_job_due_to_task_failure(message, *attempt);
    else
      callbacks_.fail_job(message);
  }
}

void CheckpointFailureManager::handle_checkpoint_success(std::int64_t checkpoint_id) {
  if (checkpoint_id > last_succeeded_) {
    last_succeeded_ = checkpoint_id;
    clear_count();
  }
}

void CheckpointFailureManager::clear_count() {
  counter_ = 0;
  counted_ids_.clear();
}

}  // namespace ckptsim::model
