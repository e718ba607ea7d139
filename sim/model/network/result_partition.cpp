// ResultPartition / PipelinedSubpartition: queued buffers and events, the pool's availability,
// and credit-based sending to the input channel.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <utility>

#include "sim/model/checkpointing/barrier_handler.hpp"
#include "sim/model/checkpointing/subtask_checkpoint_coordinator.hpp"
#include "sim/model/network/network.hpp"
#include "sim/model/task/stream_task.hpp"
#include "sim/model/task/task_executor.hpp"

namespace ckptsim::model {

std::int64_t Network::add_to_subpartition(int channel, const Buffer& b) {
  Channel& c = chan(channel);
  std::int64_t persisted = 0;
  if (b.kind == Buffer::Kind::barrier && b.unaligned) {
    // PipelinedSubpartition.processPriorityBuffer: the barrier goes to the head; every queued
    // data buffer it overtakes becomes output channel state (R10).
    for (const Buffer& q : c.subpartition)
      if (q.kind == Buffer::Kind::data) persisted += q.bytes;
    c.subpartition.push_front(b);
  } else {
    c.subpartition.push_back(b);
  }
  if (b.kind == Buffer::Kind::data) {
    change_backlog(c, +1);
    c.subpartition.back().enqueued = sim_.now();
    occupancy_change(c, +1);
  }
  pump(channel);
  return persisted;
}

void Network::change_backlog(Channel& c, int delta) {
  // Keeps the producer's availability (LocalBufferPool) countable in O(1).
  Subtask& p = sub(c.producer);
  const int cap = scenario_.flink.max_buffers_per_channel;  // <= 0: no per-channel limit
  const bool was_full = cap > 0 && c.backlog >= cap;
  c.backlog += delta;
  p.partition_buffers += delta;
  const bool full = cap > 0 && c.backlog >= cap;
  if (full != was_full) p.full_subpartitions += full ? 1 : -1;
  note_floating_wish(c);
}

void Network::pump(int channel) {
  Channel& c = chan(channel);
  tasks().account(sub(c.producer));
  tasks().account(sub(c.consumer));
  bool moved = false;
  while (!c.blocked && !c.subpartition.empty()) {
    Buffer& head = c.subpartition.front();
    if (head.kind == Buffer::Kind::data) {
      if (c.credits <= 0) request_floating(channel);
      if (c.credits <= 0) break;  // data needs credit; an event at the head does not (R8)
      --c.credits;
      change_backlog(c, -1);
      c.received_bytes += head.bytes;
    }
    // PipelinedSubpartition.pollBuffer: after handing out an aligned barrier the subpartition
    // is blocked until the consumer resumes consumption (R1).
    const bool blocks = head.kind == Buffer::Kind::barrier && head.aligned;
    Subtask& consumer = sub(c.consumer);
    if (head.kind == Buffer::Kind::barrier && head.unaligned) {
      c.received.push_front(head);  // RemoteInputChannel.addPriorityBuffer
      ++consumer.priority_pending;
      tasks().yield_to_mail(c.consumer);
      // A burst of interruptible timers checks for mail after each timer.
      if (consumer.mail_yields_to_checkpoint) tasks().wake(c.consumer);
    } else {
      if (head.kind == Buffer::Kind::barrier && head.timeoutable) {
        // The barrier left the producer's subpartition: its timeoutable output future
        // completes (PipelinedSubpartition.completeTimeoutableCheckpointBarrier).
        Subtask& producer = sub(c.producer);
        if (producer.output_checkpoint == head.checkpoint_id && producer.output_barriers_queued > 0 &&
            --producer.output_barriers_queued == 0)
          snapshots().maybe_send_ack(c.producer);
        // A remote channel announces it (EventAnnouncement): the consumer's timer starts.
        if (!c.local && head.checkpoint_id > consumer.current_checkpoint)
          barriers().register_alignment_timer(c.consumer, head);
      }
      // ChannelStatePersister: data arriving on a channel whose unaligned barrier has not come
      // yet is recorded as input channel state (R11).
      if (head.kind == Buffer::Kind::data && consumer.uc_collecting &&
          !consumer.barrier_seen[static_cast<std::size_t>(c.input_index)])
        snapshots().add_persisted_bytes(c.consumer, head.bytes);
      c.received.push_back(head);
    }
    c.subpartition.pop_front();
    ++buffers_transferred_;
    moved = true;
    if (blocks) c.blocked = true;
  }
  note_received(c);
  note_floating_wish(c);
  if (moved) {
    tasks().wake(c.consumer);
    if (sub(c.producer).waiting_output) tasks().wake(c.producer);
  }
}

void Network::occupancy_change(Channel& c, int delta) {
  c.occupancy_integral +=
      static_cast<double>(c.occupancy) * static_cast<double>(sim_.now() - c.occupancy_since);
  c.occupancy_since = sim_.now();
  c.occupancy += delta;
}

}  // namespace ckptsim::model
