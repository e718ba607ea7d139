// SingleInputGate and its input channels: floating buffers, recycling (AddCredit),
// resumeConsumption, and the reset of every channel for new attempts.
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

void Network::clear_network() { clear_network(std::vector<char>(x_.subtasks_.size(), 1)); }

void Network::clear_network(const std::vector<char>& in) {
  const FlinkConfig& f = scenario_.flink;
  const auto member = [&](int subtask) { return in[static_cast<std::size_t>(subtask)] != 0; };
  for (Channel& c : channels_) {
    if (!member(c.producer) && !member(c.consumer)) continue;
    if (QueueStatistics* q = tracked(c)) {  // the dropped buffers leave the queue statistics
      occupancy_change(*q, sim_.now(), -q->occupancy);
      q->enqueued.clear();
    }
    for (std::size_t i = 0; i < c.queues.size(); ++i) recycle_event(c.queues.at(arena_, i));
    c.queues.clear();
    c.backlog = 0;
    c.open_bytes = c.open_records = 0;
    c.open_born = 0;
    // Remote channels start with their exclusive buffers as credit; a local channel reads the
    // producer's subpartition directly (modelled as one buffer of credit, no floating buffers).
    c.credits = c.local ? 1 : std::max(0, f.buffers_per_channel);
    c.floating = 0;
    c.blocked = false;
    c.finished = false;
    c.drained_bytes = 0;
    if (member(c.consumer)) c.wishes_floating = false;  // its wants_floating is reset below
  }
  for (std::size_t id = 0; id < x_.subtasks_.size(); ++id) {
    if (!in[id]) continue;
    Subtask& s = x_.subtasks_[id];
    s.with_data.reset(s.inputs.size());
    s.wants_floating.reset(s.inputs.size());
    s.partition_buffers = 0;
    s.full_subpartitions = 0;
    s.floating_free = s.gate_pool_size;  // the gate pool's buffers, none lent
    s.debloat_announced = 0;              // its channels' buffers are a segment again
    for (OutputGroup& g : s.outputs) {  // round robin goes on where it was
      g.written_since_flush = false;
      if (g.round_robin()) reset_round_robin(s, g, g.origin + static_cast<std::size_t>(g.written));
    }
  }
}

void Network::note_received(const Channel& c) {
  sub(c.consumer).with_data.update(c.input_index, c.received_size() > 0);
}

void Network::note_floating_wish(Channel& c) {
  const bool wish = !c.local && c.backlog > c.credits && !c.blocked;
  if (wish == c.wishes_floating) return;
  c.wishes_floating = wish;
  sub(c.consumer).wants_floating.set(c.input_index, wish);
}

void Network::request_floating(int channel) {
  // RemoteInputChannel.onSenderBacklog: ask the gate for floating buffers up to the backlog.
  Channel& c = chan(channel);
  if (c.local) return;
  Subtask& consumer = sub(c.consumer);
  while (c.credits < c.backlog && consumer.floating_free > 0) {
    --consumer.floating_free;
    ++c.floating;
    ++c.credits;
  }
  note_floating_wish(c);
}

void Network::recycle(int channel) {
  // A consumed buffer returns to its owner: a floating one to the gate when this channel no
  // longer needs it, an exclusive one as a new credit (AddCredit).
  Channel& c = chan(channel);
  Subtask& consumer = sub(c.consumer);
  if (!c.local && c.floating > 0 && c.backlog <= c.credits) {
    --c.floating;
    ++consumer.floating_free;
    note_floating_wish(c);
    // The first other channel waiting for a floating buffer gets it.
    const int other = consumer.wants_floating.first_except(c.input_index);
    if (other >= 0) pump(consumer.inputs[static_cast<std::size_t>(other)]);
    return;
  }
  ++c.credits;
  pump(channel);
}

void Network::resume_consumption(int channel) {
  chan(channel).blocked = false;
  pump(channel);
}

void Network::unblock_all_inputs(Subtask& s, int keep_blocked) {
  for (int c : s.inputs)
    if (chan(c).blocked && c != keep_blocked) resume_consumption(c);
}


}  // namespace ckptsim::model
