// Barrier handling on the input side of every subtask, as Flink's CheckpointedInputGate hands
// barriers and cancel markers to its CheckpointBarrierHandler:
//  - SingleCheckpointBarrierHandler with its BarrierHandlerState machine: waiting for the first
//    barrier, collecting aligned barriers (blocking each channel that delivered one, R1-R3),
//    the alternating states that switch an aligned checkpoint with timeout to unaligned
//    (AlternatingWaitingForFirstBarrierUnaligned / AlternatingCollectingBarriersUnaligned,
//    R10-R14), subsumption (R3), cancel markers (R4), obsolete barriers, end of partition
//    during an alignment (FLIP-147);
//  - CheckpointBarrierTracker for at-least-once: nothing blocks (R16).
// The state lives in each Subtask's barrier-handler fields; a completed alignment hands the
// checkpoint to the SubtaskCheckpointCoordinator.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "sim/model/task/task_part.hpp"

namespace ckptsim::model {

class BarrierHandler final : public TaskPart, public core::EventHandler {
 public:
  explicit BarrierHandler(TaskExecutor& executor) : TaskPart(executor) {}

  void process_barrier(int id, int channel, const Buffer& barrier);
  void process_cancel_marker(int id, const Buffer& marker);
  // CheckpointedInputGate.processPriorityEvents: an unaligned barrier at a channel's head.
  bool process_priority_event(int id);
  void abort_alignment(int id, std::int64_t checkpoint, CheckpointFailureReason reason,
                       int keep_blocked = -1);
  // An input channel's producer FINISHED (EndOfPartition consumed) while it is open.
  void end_of_partition(int channel);
  void register_alignment_timer(int id, const Buffer& barrier);
  // The alignment timer's mail: announced barriers are prioritised, the checkpoint goes on
  // unaligned.
  void switch_to_unaligned(int id, std::int64_t checkpoint);
  void clear_timers() { timers_.clear(); }

  void on_event(std::uint32_t kind, std::uint64_t arg) override;

 private:
  enum Event : std::uint32_t { kAlignmentTimer };
  // `channel` delivered the new barrier: it stays blocked when the old alignment aborts (R3).
  void start_new_checkpoint(int id, const Buffer& barrier, int channel);
  void process_unaligned_barrier(int id, int channel, const Buffer& barrier);

  std::vector<std::pair<std::uint64_t, std::int64_t>> timers_;  // (subtask arg, checkpoint)
};

}  // namespace ckptsim::model
