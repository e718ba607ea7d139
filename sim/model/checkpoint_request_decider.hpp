// CheckpointRequestDecider: queues trigger requests, orders them (savepoints, forced,
// user-submitted, older first) and decides which one may start, applying max-concurrent,
// min-pause and the queue limit (CheckpointRequestDecider.java; coordinator notes 2.4).
#pragma once

#include <cstdint>
#include <optional>
#include <set>

#include "sim/core/time.hpp"
#include "sim/model/types.hpp"

namespace ckptsim::model {

using core::Duration;
using core::SimTime;

// CheckpointProperties, reduced to what the JobManager rules read.
struct CheckpointProperties {
  SnapshotType type = SnapshotType::checkpoint;
  bool forced = false;          // savepoints when unaligned checkpoints are off
  bool synchronous = false;     // stop-with-savepoint
  bool terminate = false;       // stop-with-savepoint --drain/--terminate: tasks finish
  bool is_savepoint() const { return model::is_savepoint(type); }
  bool can_be_subsumed() const { return !is_savepoint(); }  // PendingCheckpoint.canBeSubsumed

  static CheckpointProperties checkpoint() { return {}; }
  // CheckpointCoordinator.triggerSavepoint: forced = !unalignedCheckpointsEnabled
  static CheckpointProperties savepoint(bool unaligned_enabled) {
    return {SnapshotType::savepoint, !unaligned_enabled, false, false};
  }
  static CheckpointProperties synchronous_savepoint(bool unaligned_enabled) {
    return {SnapshotType::sync_savepoint, !unaligned_enabled, true, true};
  }
};

struct CheckpointTriggerRequest {
  std::uint64_t request_id = 0;  // also stands in for identityHashCode as the last tie-breaker
  SimTime timestamp = 0;         // when the request was made
  CheckpointProperties props;
  bool periodic = false;
};

class CheckpointRequestDecider {
 public:
  struct Context {
    virtual ~Context() = default;
    virtual SimTime now() const = 0;
    virtual int pending_checkpoints() const = 0;            // includes pending savepoints
    virtual int checkpoints_being_cleaned() const = 0;
    virtual void reschedule_trigger(Duration delay) = 0;    // min-pause not yet over
    virtual void request_dropped(const CheckpointTriggerRequest&, CheckpointFailureReason) = 0;
    virtual void request_time_in_queue(Duration waited) = 0;  // logged when > 100 ms
  };

  CheckpointRequestDecider(int max_concurrent, Duration min_pause, int max_queued,
                           Context& context)
      : max_concurrent_(max_concurrent), min_pause_(min_pause), max_queued_(max_queued),
        context_(context) {}

  // last_completion: when the last checkpoint completed successfully (none yet = nullopt).
  std::optional<CheckpointTriggerRequest> choose_request_to_execute(
      const CheckpointTriggerRequest& request, bool is_triggering,
      std::optional<SimTime> last_completion);
  std::optional<CheckpointTriggerRequest> choose_queued_request_to_execute(
      bool is_triggering, std::optional<SimTime> last_completion);
  // Fails every queued request with the reason (stopCheckpointScheduler, shutdown).
  void abort_all(CheckpointFailureReason reason);

  std::size_t queued() const { return queue_.size(); }
  static constexpr Duration kLogTimeInQueueThreshold = core::milliseconds(100);

 private:
  struct Order {
    bool operator()(const CheckpointTriggerRequest& a, const CheckpointTriggerRequest& b) const;
  };
  std::optional<CheckpointTriggerRequest> choose(bool is_triggering,
                                                 std::optional<SimTime> last_completion);
  void log_in_queue_time(const CheckpointTriggerRequest& r);

  int max_concurrent_;
  Duration min_pause_;
  int max_queued_;
  Context& context_;
  std::set<CheckpointTriggerRequest, Order> queue_;
};

}  // namespace ckptsim::model
