// ResultPartition / PipelinedSubpartition: queued buffers and events, the pool's availability,
// and credit-based sending to the input channel.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <utility>

#include "sim/model/checkpointing/barrier_handler.hpp"
#include "sim/model/checkpointing/subtask_checkpoint_coordinator.hpp"
#include "sim/model/network/network.hpp"
#include "sim/model/task/stream_task.hpp"
#include "sim/model/task/task_executor.hpp"

namespace ckptsim::model {

std::int64_t Network::add_to_subpartition(int channel, const NetworkBuffer& b) {
  Channel& c = chan(channel);
  std::int64_t persisted = 0;
  if (b.kind() == Buffer::Kind::barrier && event(b).unaligned) {
    // PipelinedSubpartition.processPriorityBuffer: the barrier goes to the head; every queued
    // data buffer it overtakes becomes output channel state (R10).
    const ChannelQueue queued = subpartition(c);
    for (const NetworkBuffer& q : queued)
      if (q.is_data()) persisted += q.bytes;
    queued.push_front(b);
  } else {
    c.queues.push_back(arena_, b);
  }
  if (b.is_data()) {
    change_backlog(c, +1);
    note_enqueued(c);
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
  while (!c.blocked && c.subpartition_size() > 0) {
    const NetworkBuffer head = subpartition(c).front();
    // A copy: what the barrier sets off below may serialize other events.
    std::optional<Buffer> e;
    if (!head.is_data()) e = event(head);
    if (!e) {
      if (c.credits <= 0) request_floating(channel);
      if (c.credits <= 0) break;  // data needs credit; an event at the head does not (R8)
      --c.credits;
      change_backlog(c, -1);
    }
    // PipelinedSubpartition.pollBuffer: after handing out an aligned barrier the subpartition
    // is blocked until the consumer resumes consumption (R1).
    const bool barrier = e && e->kind == Buffer::Kind::barrier;
    const bool blocks = barrier && e->aligned;
    Subtask& consumer = sub(c.consumer);
    if (barrier && e->unaligned) {
      // RemoteInputChannel.addPriorityBuffer: to the head of the received buffers.
      c.queues.erase(arena_, c.received_size());
      c.queues.push_front(arena_, head);
      ++consumer.priority_pending;
      tasks().yield_to_mail(c.consumer);
      // A burst of interruptible timers checks for mail after each timer.
      if (consumer.mail_yields_to_checkpoint) tasks().wake(c.consumer);
    } else {
      if (barrier && e->timeoutable) {
        // The barrier left the producer's subpartition: its timeoutable output future
        // completes (PipelinedSubpartition.completeTimeoutableCheckpointBarrier).
        Subtask& producer = sub(c.producer);
        if (producer.output_checkpoint == e->checkpoint_id && producer.output_barriers_queued > 0 &&
            --producer.output_barriers_queued == 0)
          snapshots().maybe_send_ack(c.producer);
        // A remote channel announces it (EventAnnouncement): the consumer's timer starts.
        if (!c.local && e->checkpoint_id > consumer.current_checkpoint)
          barriers().register_alignment_timer(c.consumer, *e);
      }
      // ChannelStatePersister: data arriving on a channel whose unaligned barrier has not come
      // yet is recorded as input channel state (R11).
      if (!e && consumer.uc_collecting &&
          !consumer.barrier_seen[static_cast<std::size_t>(c.input_index)])
        snapshots().add_persisted_bytes(c.consumer, head.bytes);
      c.queues.advance();  // to the tail of the received buffers
    }
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

Buffer Network::take_received(Channel& c) {
  const NetworkBuffer b = received(c).front();
  c.queues.pop_front();
  note_received(c);
  if (!b.is_data()) {
    Buffer e = event(b);
    recycle_event(b);
    return e;
  }
  c.drained_bytes += b.bytes;
  note_read(c);
  Buffer data;
  data.bytes = b.bytes;
  data.records = b.records;
  data.born = b.born;
  return data;
}

std::int64_t Network::received_bytes(const Channel& c) const {
  std::int64_t bytes = 0;
  for (const NetworkBuffer& b : received(c))
    if (b.is_data()) bytes += b.bytes;
  return bytes;
}

void Network::track_queue(int channel) {
  Channel& c = chan(channel);
  if (c.tracked) return;
  c.tracked = true;
  QueueStatistics q;
  q.channel = channel;
  q.since = q.occupancy_since = sim_.now();
  for (std::size_t i = 0; i < c.queues.size(); ++i) {
    // What is queued already counts from now.
    if (c.queues.at(arena_, i).is_data()) {
      ++q.occupancy;
      q.enqueued.push_back(sim_.now());
    }
  }
  queue_statistics_.push_back(std::move(q));
}

QueueStatistics* Network::tracked(const Channel& c) {
  if (!c.tracked) return nullptr;
  const int channel = static_cast<int>(&c - channels_.data());
  for (QueueStatistics& q : queue_statistics_)
    if (q.channel == channel) return &q;
  return nullptr;
}

const QueueStatistics* Network::queue_statistics(int channel) const {
  for (const QueueStatistics& q : queue_statistics_)
    if (q.channel == channel) return &q;
  return nullptr;
}

void Network::note_enqueued(const Channel& c) {
  QueueStatistics* q = tracked(c);
  if (!q) return;
  occupancy_change(*q, sim_.now(), +1);
  q->enqueued.push_back(sim_.now());
}

void Network::note_read(const Channel& c) {
  QueueStatistics* q = tracked(c);
  if (!q || q->enqueued.empty()) return;
  occupancy_change(*q, sim_.now(), -1);
  q->sojourn_total += static_cast<double>(sim_.now() - q->enqueued.front());
  q->enqueued.pop_front();
  ++q->consumed;
}

void Network::occupancy_change(QueueStatistics& q, SimTime now, int delta) {
  q.occupancy_integral +=
      static_cast<double>(q.occupancy) * static_cast<double>(now - q.occupancy_since);
  q.occupancy_since = now;
  q.occupancy += delta;
}

}  // namespace ckptsim::model
