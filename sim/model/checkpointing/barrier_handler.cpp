// SingleCheckpointBarrierHandler (with its BarrierHandlerState transitions) and
// CheckpointBarrierTracker; see barrier_handler.hpp.
#include <algorithm>
#include <cmath>
#include <utility>

#include "sim/model/checkpointing/barrier_handler.hpp"
#include "sim/model/checkpointing/subtask_checkpoint_coordinator.hpp"
#include "sim/model/network/network.hpp"
#include "sim/model/task/stream_task.hpp"
#include "sim/model/task/task_executor.hpp"

namespace ckptsim::model {

void BarrierHandler::end_of_partition(int channel) {
  // SingleCheckpointBarrierHandler.processEndOfPartition (FLIP-147): while a checkpoint is
  // aligned, the ended channel counts as aligned (endOfPartitionReceived), which may complete
  // the alignment; with checkpoints after tasks finish disabled the checkpoint is aborted with
  // CHECKPOINT_DECLINED_INPUT_END_OF_STREAM. The task thread does either in its next step.
  Channel& c = chan(channel);
  Subtask& s = sub(c.consumer);
  const auto idx = static_cast<std::size_t>(c.input_index);
  if (s.state != ExecutionState::running || !s.checkpoint_pending || s.uc_collecting ||
      s.barrier_seen[idx])
    return;
  if (x_.checkpointing().checkpoints_after_tasks_finish) {
    s.barrier_seen[idx] = true;
    ++s.barriers_received;
  } else {
    s.end_of_input_abort = true;
  }
  tasks().wake(c.consumer);
}

void BarrierHandler::process_barrier(int id, int channel, const Buffer& b) {
  Subtask& s = sub(id);
  const std::int64_t cp = b.checkpoint_id;
  const int n = static_cast<int>(s.inputs.size());
  if (b.unaligned) {
    process_unaligned_barrier(id, channel, b);
    return;
  }
  if (!b.aligned) {
    // CheckpointBarrierTracker (at-least-once): nothing blocks; the checkpoint triggers when
    // every channel delivered the barrier, dropping older pending ones (R16).
    if (cp <= s.last_checkpoint_taken) return;
    if (cp > s.current_checkpoint) {
      s.current_checkpoint = cp;
      s.first_barrier = sim_.now();
    }
    if (++s.tracker[cp] + s.finished_inputs == n) {
      s.tracker.erase(s.tracker.begin(), s.tracker.upper_bound(cp));
      snapshots().checkpoint_state(id, b, s.first_barrier, sim_.now() - s.first_barrier, 0);
    } else if (s.tracker.size() > 50) {  // MAX_CHECKPOINTS_TO_TRACK
      s.tracker.erase(s.tracker.begin());
    }
    return;
  }
  // SingleCheckpointBarrierHandler.processBarrier: an obsolete barrier only resumes its channel.
  if (cp < s.current_checkpoint || (cp == s.current_checkpoint && !s.checkpoint_pending)) {
    network().resume_consumption(channel);
    return;
  }
  if (b.timeoutable && sim_.now() - b.timestamp > b.timeout) {
    // ControllerImpl.isTimedOut (passive check): the timeout passed, so this barrier is
    // processed as an unaligned one (R12/R13).
    Buffer as_unaligned = b;
    as_unaligned.unaligned = true;
    as_unaligned.aligned = false;
    chan(channel).blocked = false;  // it was handed out as an aligned barrier
    network().note_floating_wish(chan(channel));
    if (cp == s.current_checkpoint && s.checkpoint_pending) switch_to_unaligned(id, cp);
    process_unaligned_barrier(id, channel, as_unaligned);
    return;
  }
  if (cp > s.current_checkpoint) {
    start_new_checkpoint(id, b, channel);
    if (b.timeoutable) register_alignment_timer(id, b);
  }
  const auto idx = static_cast<std::size_t>(chan(channel).input_index);
  if (!s.barrier_seen[idx]) {
    s.barrier_seen[idx] = true;
    ++s.barriers_received;
  }
  if (s.barriers_received == n) {
    s.checkpoint_pending = false;
    snapshots().checkpoint_state(id, b, s.first_barrier, sim_.now() - s.first_barrier, s.processed_bytes);
  }
}

void BarrierHandler::start_new_checkpoint(int id, const Buffer& b, int channel) {
  // checkNewCheckpoint: a newer barrier subsumes the checkpoint being aligned (R3); abortInternal
  // unblocks the channels blocked so far, then barrierReceived blocks the new barrier's channel
  // (so it stays blocked).
  Subtask& s = sub(id);
  if (s.checkpoint_pending)
    abort_alignment(id, s.current_checkpoint, CheckpointFailureReason::checkpoint_declined_subsumed,
                    channel);
  s.current_checkpoint = b.checkpoint_id;
  s.checkpoint_pending = true;
  s.aligning_barrier = b;
  s.end_of_input_abort = false;
  s.barrier_seen.assign(s.inputs.size(), false);
  s.barriers_received = 0;
  // A finished channel delivered EndOfPartition: no barrier will come, it counts as aligned.
  for (int c : s.inputs)
    if (chan(c).finished) {
      s.barrier_seen[static_cast<std::size_t>(chan(c).input_index)] = true;
      ++s.barriers_received;
    }
  s.first_barrier = sim_.now();  // markAlignmentStart (R17)
  s.current_timestamp = b.timestamp;
  s.processed_bytes = 0;
}

void BarrierHandler::abort_alignment(int id, std::int64_t checkpoint, CheckpointFailureReason reason,
                                  int keep_blocked) {
  // abortInternal: unblock everything, decline to the JobManager, forward a cancel marker.
  Subtask& s = sub(id);
  s.checkpoint_pending = false;
  s.end_of_input_abort = false;
  s.last_checkpoint_taken = std::max(s.last_checkpoint_taken, checkpoint);
  network().unblock_all_inputs(s, keep_blocked);
  listener_.decline_checkpoint(checkpoint, {s.vertex, s.index, s.attempt},
                               CheckpointException{reason});
  Buffer marker;
  marker.kind = Buffer::Kind::cancel_marker;
  marker.checkpoint_id = checkpoint;
  network().close_builders(s, &marker);
}

void BarrierHandler::process_cancel_marker(int id, const Buffer& marker) {
  Subtask& s = sub(id);
  const std::int64_t cp = marker.checkpoint_id;
  // processCancellationBarrier: abort when the marker is for a newer checkpoint or for the one
  // being aligned; otherwise it is ignored (R4).
  const bool newer = cp > s.current_checkpoint && cp > s.last_checkpoint_taken;
  const bool aligning = cp == s.current_checkpoint && s.checkpoint_pending;
  if (!newer && !aligning) return;
  s.current_checkpoint = std::max(s.current_checkpoint, cp);
  s.tracker.erase(cp);
  abort_alignment(id, cp, CheckpointFailureReason::checkpoint_declined_on_cancellation_barrier);
}

void BarrierHandler::register_alignment_timer(int id, const Buffer& barrier) {
  // SingleCheckpointBarrierHandler.registerAlignmentTimer: one timer per task and checkpoint,
  // measured from the trigger timestamp (BarrierAlignmentUtil.getTimerDelay).
  Subtask& s = sub(id);
  if (s.timer_checkpoint >= barrier.checkpoint_id) return;
  s.timer_checkpoint = barrier.checkpoint_id;
  timers_.push_back({arg(id), barrier.checkpoint_id});
  sim_.schedule_in(std::max<Duration>(0, barrier.timeout - (sim_.now() - barrier.timestamp)), this,
                   kAlignmentTimer, timers_.size() - 1);
}

void BarrierHandler::switch_to_unaligned(int id, std::int64_t cp) {
  // alignedCheckpointTimeout: announced barriers are prioritized; if alignment of `cp` is under
  // way the checkpoint is triggered unaligned now, with the data not yet behind a barrier as
  // input channel state (R12); otherwise the first barrier will trigger it unaligned (R13).
  Subtask& s = sub(id);
  for (int c : s.inputs) {
    Channel& ch = chan(c);
    if (s.checkpoint_pending && s.current_checkpoint == cp &&
        s.barrier_seen[static_cast<std::size_t>(ch.input_index)])
      continue;
    const ChannelQueue received = network().received(ch);
    for (std::size_t i = 0; i < received.size(); ++i) {
      const NetworkBuffer queued = received[i];
      if (queued.kind() == Buffer::Kind::barrier && network().event(queued).checkpoint_id == cp) {
        Buffer b = network().event(queued);
        b.unaligned = true;
        b.aligned = false;
        received.erase(i);
        received.push_front(network().rewrite_event(queued, b));
        ch.blocked = false;
        network().note_floating_wish(ch);
        ++s.priority_pending;
        break;
      }
    }
  }
  if (!(s.checkpoint_pending && s.current_checkpoint == cp) || s.uc_collecting) return;
  // AlternatingCollectingBarriers.alignedCheckpointTimeout ends with
  // state.unblockAllChannels(): the channels whose aligned barrier was already processed read on
  // (their data after the barrier is not part of this checkpoint).
  network().unblock_all_inputs(s, -1);
  std::int64_t in_flight = 0;
  for (int c : s.inputs)
    if (!s.barrier_seen[static_cast<std::size_t>(chan(c).input_index)])
      in_flight += network().received_bytes(chan(c));
  s.uc_collecting = true;
  Buffer barrier;
  barrier.kind = Buffer::Kind::barrier;
  barrier.checkpoint_id = cp;
  barrier.unaligned = true;
  barrier.aligned = false;
  barrier.timestamp = s.current_timestamp;
  snapshots().checkpoint_state(id, barrier, s.first_barrier, 0, s.processed_bytes, in_flight);
}

bool BarrierHandler::process_priority_event(int id) {
  Subtask& s = sub(id);
  for (int c : s.inputs) {
    Channel& ch = chan(c);
    if (ch.received_size() == 0) continue;
    const NetworkBuffer head = network().received(ch).front();
    if (head.kind() != Buffer::Kind::barrier || !network().event(head).unaligned) continue;
    const Buffer b = network().take_received(ch);
    --s.priority_pending;
    process_unaligned_barrier(id, c, b);
    return true;
  }
  s.priority_pending = 0;  // none left at a head (consumed in FIFO order meanwhile)
  return false;
}

void BarrierHandler::process_unaligned_barrier(int id, int channel, const Buffer& b) {
  // AlternatingWaitingForFirstBarrierUnaligned / AlternatingCollectingBarriersUnaligned.
  Subtask& s = sub(id);
  const std::int64_t cp = b.checkpoint_id;
  const int n = static_cast<int>(s.inputs.size());
  if (cp < s.current_checkpoint || (cp == s.current_checkpoint && !s.checkpoint_pending))
    return;  // obsolete: nothing is blocked in unaligned mode
  if (cp > s.current_checkpoint) {
    start_new_checkpoint(id, b, -1);  // unaligned: nothing was blocked by it
    // The first barrier triggers the checkpoint at once; every data buffer already received
    // (the overtaken ones included) is input channel state.
    std::int64_t in_flight = 0;
    for (int c : s.inputs) in_flight += network().received_bytes(chan(c));
    s.barrier_seen[static_cast<std::size_t>(chan(channel).input_index)] = true;
    ++s.barriers_received;
    s.uc_collecting = s.barriers_received < n;
    snapshots().checkpoint_state(id, b, sim_.now(), 0, 0, in_flight);
    if (!s.uc_collecting) s.checkpoint_pending = false;
    return;
  }
  const auto idx = static_cast<std::size_t>(chan(channel).input_index);
  if (!s.barrier_seen[idx]) {
    s.barrier_seen[idx] = true;
    ++s.barriers_received;
  }
  if (s.barriers_received == n) {
    s.checkpoint_pending = false;
    s.uc_collecting = false;
    snapshots().set_alignment(id, sim_.now() - s.first_barrier);  // the barriers' spread (R17)
    network().unblock_all_inputs(s);  // channels still blocked from the aligned phase, if it switched
    snapshots().maybe_send_ack(id);
  }
}

void BarrierHandler::on_event(std::uint32_t kind, std::uint64_t a) {
  // The alignment timer fires as a mail: it waits for the task thread (after the record in
  // progress).
  (void)kind;  // kAlignmentTimer
  const auto [sa, cp] = timers_[a];
  if (!current(sa)) return;
  const int id = subtask_of(sa);
  Subtask& s = sub(id);
  const bool aligning = s.checkpoint_pending && s.current_checkpoint == cp && !s.uc_collecting;
  if (!aligning && s.current_checkpoint >= cp) return;  // done or already unaligned
  s.timed_out_checkpoint = cp;
  tasks().yield_to_mail(id);
  tasks().wake(id);
}

}  // namespace ckptsim::model
