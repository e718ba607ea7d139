// Port of CheckpointRequestDecider (identical in 1.17-2.0 but for the reschedule signature).
#include "sim/model/checkpoint_request_decider.hpp"

namespace ckptsim::model {

// CheckpointRequestDecider.compare (L200-214): savepoints first, then forced, then
// non-periodic, then older timestamp, then identity (here: request id).
bool CheckpointRequestDecider::Order::operator()(const CheckpointTriggerRequest& a,
                                                 const CheckpointTriggerRequest& b) const {
  if (a.props.is_savepoint() != b.props.is_savepoint()) return a.props.is_savepoint();
  if (a.props.forced != b.props.forced) return a.props.forced;
  if (a.periodic != b.periodic) return !a.periodic;
  if (a.timestamp != b.timestamp) return a.timestamp < b.timestamp;
  return a.request_id < b.request_id;
}

std::optional<CheckpointTriggerRequest> CheckpointRequestDecider::choose_request_to_execute(
    const CheckpointTriggerRequest& request, bool is_triggering,
    std::optional<SimTime> last_completion) {
  const auto max_queued = static_cast<std::size_t>(max_queued_);
  if (queue_.size() >= max_queued && !queue_.empty() && !std::prev(queue_.end())->periodic) {
    // Only user-submitted requests are queued: keep them and drop the new one.
    context_.request_dropped(request, CheckpointFailureReason::too_many_checkpoint_requests);
    return std::nullopt;
  }
  queue_.insert(request);
  if (queue_.size() > max_queued) {
    const CheckpointTriggerRequest last = *std::prev(queue_.end());
    queue_.erase(std::prev(queue_.end()));
    context_.request_dropped(last, CheckpointFailureReason::too_many_checkpoint_requests);
  }
  return choose_queued_request_to_execute(is_triggering, last_completion);
}

std::optional<CheckpointTriggerRequest> CheckpointRequestDecider::choose_queued_request_to_execute(
    bool is_triggering, std::optional<SimTime> last_completion) {
  auto chosen = choose(is_triggering, last_completion);
  if (chosen) log_in_queue_time(*chosen);
  return chosen;
}

std::optional<CheckpointTriggerRequest> CheckpointRequestDecider::choose(
    bool is_triggering, std::optional<SimTime> last_completion) {
  if (is_triggering || queue_.empty() ||
      context_.checkpoints_being_cleaned() > max_concurrent_)
    return std::nullopt;
  const CheckpointTriggerRequest first = *queue_.begin();
  if (context_.pending_checkpoints() >= max_concurrent_) {
    // At the limit only a forced request (a savepoint) may start; the rest stay queued.
    if (!first.props.forced) return std::nullopt;
    queue_.erase(queue_.begin());
    return first;
  }
  if (!first.props.forced && first.periodic && last_completion) {
    const Duration delay = *last_completion + min_pause_ - context_.now();
    if (delay > 0) {
      queue_.erase(queue_.begin());
      context_.request_dropped(first, CheckpointFailureReason::minimum_time_between_checkpoints);
      context_.reschedule_trigger(delay);
      return std::nullopt;
    }
  }
  queue_.erase(queue_.begin());
  return first;
}

void CheckpointRequestDecider::abort_all(CheckpointFailureReason reason) {
  while (!queue_.empty()) {
    const CheckpointTriggerRequest r = *queue_.begin();
    queue_.erase(queue_.begin());
    context_.request_dropped(r, reason);
  }
}

void CheckpointRequestDecider::log_in_queue_time(const CheckpointTriggerRequest& r) {
  // logInQueueTime: System.currentTimeMillis() - request.timestamp, logged when > 100 ms.
  const Duration waited = context_.now() - r.timestamp;
  if (waited > kLogTimeInQueueThreshold) context_.request_time_in_queue(waited);
}

}  // namespace ckptsim::model
