// CheckpointFailureManager: counts continuous checkpoint failures and fails the job when the
// count exceeds execution.checkpointing.tolerable-failed-checkpoints
// (flink-runtime .../checkpoint/CheckpointFailureManager.java; coordinator notes section 4).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "sim/model/config.hpp"
#include "sim/model/types.hpp"

namespace ckptsim::model {

inline constexpr std::int64_t kUnknownCheckpointId = -1;  // CheckpointFailureManager.UNKNOWN_CHECKPOINT_ID
inline constexpr int kUnlimitedTolerableFailures = 2147483647;

// Why the job is failed: the FlinkRuntimeException message built by checkFailureAgainstCounter.
std::string tolerable_failure_message(CheckpointFailureReason latest,
                                      FlinkVersion version = FlinkVersion::v1_17);

class CheckpointFailureManager {
 public:
  // The two callbacks of DefaultExecutionGraph: failJob and failJobDueToTaskFailure.
  struct Callbacks {
    virtual ~Callbacks() = default;
    virtual void fail_job(const std::string& message) = 0;
    virtual void fail_job_due_to_task_failure(const std::string& message, TaskRef attempt) = 0;
  };

  CheckpointFailureManager(int tolerable_failures, Callbacks& callbacks,
                           FlinkVersion version = FlinkVersion::v1_17)
      : tolerable_(tolerable_failures), callbacks_(callbacks), version_(version) {}

  // handleCheckpointException routing after the stats and the log line (which the coordinator
  // reports): job-level when the reason is pre-flight or no attempt is given, else task-level.
  // Returns the counter value before this failure (what the WARN line prints).
  int handle_checkpoint_exception(std::int64_t checkpoint_id, bool is_savepoint,
                                  bool is_synchronous_savepoint, const CheckpointException& ex,
                                  std::optional<TaskRef> attempt);
  void handle_checkpoint_success(std::int64_t checkpoint_id);

  int continuous_failure_counter() const { return counter_; }
  std::int64_t last_succeeded_checkpoint_id() const { return last_succeeded_; }

 private:
  void check_failure_against_counter(const CheckpointException& ex, std::int64_t checkpoint_id,
                                     const std::optional<TaskRef>& attempt);
  void clear_count();

  int tolerable_;
  Callbacks& callbacks_;
  FlinkVersion version_;
  int counter_ = 0;
  std::set<std::int64_t> counted_ids_;
  std::int64_t last_succeeded_ = INT64_MIN;
};

}  // namespace ckptsim::model
