// First-version task runtime. Each subtask is one thread: it processes one item at a time, runs
// mails (checkpoint triggers) between items, and blocks when an output channel is full.
#include "sim/model/task_runtime.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace ckptsim::model {

TaskRuntime::TaskRuntime(core::Simulation& sim, const Scenario& scenario, Observer& observer,
                         TaskRuntimeListener& listener)
    : sim_(sim), scenario_(scenario), observer_(observer), listener_(listener) {
  const FlinkConfig& f = scenario.flink;
  // First version: a channel holds what its upstream subpartition (max-buffers-per-channel) and
  // its downstream exclusive buffers (buffers-per-channel) can hold.
  channel_capacity_ = std::max(1, f.max_buffers_per_channel + f.buffers_per_channel);
  const auto& vertices = scenario.job.vertices;
  for (std::size_t v = 0; v < vertices.size(); ++v) {
    vertex_first_.push_back(static_cast<int>(subtasks_.size()));
    vertex_is_source_.push_back(!vertices[v].input.has_value());
    for (int i = 0; i < vertices[v].parallelism; ++i) {
      Subtask s;
      s.vertex = static_cast<int>(v);
      s.index = i;
      subtasks_.push_back(s);
    }
  }
  stalls_.resize(vertices.size());
  sync_phases_.resize(subtasks_.size());
  // Channels: forward connects i -> i; every other ship strategy connects all to all.
  for (std::size_t v = 0; v < vertices.size(); ++v) {
    if (!vertices[v].input) continue;
    int u = -1;
    for (std::size_t k = 0; k < v; ++k)
      if (vertices[k].name == *vertices[v].input) u = static_cast<int>(k);
    assert(u >= 0);
    const auto uu = static_cast<std::size_t>(u);
    const int pu = vertices[uu].parallelism;
    const int pv = vertices[v].parallelism;
    for (int i = 0; i < pu; ++i) {
      Subtask& producer = subtasks_[static_cast<std::size_t>(vertex_first_[uu] + i)];
      OutputGroup group;
      group.ship = vertices[v].ship;
      for (int j = 0; j < pv; ++j) {
        if (vertices[v].ship == ShipStrategy::forward && i != j) continue;
        Channel c;
        c.producer = vertex_first_[uu] + i;
        c.consumer = vertex_first_[v] + j;
        const int id = static_cast<int>(channels_.size());
        channels_.push_back(c);
        group.channels.push_back(id);
        subtasks_[static_cast<std::size_t>(c.consumer)].inputs.push_back(id);
      }
      producer.outputs.push_back(group);
    }
  }
}

std::uint64_t TaskRuntime::arg(int subtask) const {
  return (static_cast<std::uint64_t>(generation_) << 32) | static_cast<std::uint32_t>(subtask);
}

std::vector<TaskRef> TaskRuntime::all_tasks() const {
  std::vector<TaskRef> out;
  out.reserve(subtasks_.size());
  for (const Subtask& s : subtasks_) out.push_back({s.vertex, s.index, s.attempt});
  return out;
}

std::string TaskRuntime::task_name(TaskRef t) const {
  const VertexSpec& v = scenario_.job.vertices[static_cast<std::size_t>(t.vertex)];
  return v.name + " (" + std::to_string(t.subtask + 1) + "/" + std::to_string(v.parallelism) + ")";
}

ExecutionState TaskRuntime::state(int vertex, int subtask) const {
  return subtasks_[static_cast<std::size_t>(vertex_first_[static_cast<std::size_t>(vertex)] + subtask)]
      .state;
}

std::vector<ExecutionState> TaskRuntime::states() const {
  std::vector<ExecutionState> out;
  for (const Subtask& s : subtasks_) out.push_back(s.state);
  return out;
}

bool TaskRuntime::all_sources_running(std::string* not_running) const {
  for (const Subtask& s : subtasks_) {
    if (is_source(s) && s.state != ExecutionState::running) {
      if (not_running) *not_running = task_name({s.vertex, s.index, s.attempt});
      return false;
    }
  }
  return true;
}

std::int64_t TaskRuntime::total_source_position() const {
  std::int64_t total = 0;
  for (const Subtask& s : subtasks_)
    if (is_source(s)) total += s.position;
  return total;
}

std::int64_t TaskRuntime::records_per_buffer(int vertex) const {
  const VertexSpec& v = scenario_.job.vertices[static_cast<std::size_t>(vertex)];
  return std::max<std::int64_t>(1, scenario_.flink.segment_size / std::max<std::int64_t>(1, v.record_size));
}

bool TaskRuntime::stalled(const Subtask& s) const {
  const SimTime now = sim_.now();
  for (const Stall& st : stalls_[static_cast<std::size_t>(s.vertex)])
    if (now >= st.from && now < st.until && (!st.subtask || *st.subtask == s.index)) return true;
  return false;
}

void TaskRuntime::set_state(Subtask& s, ExecutionState to) {
  const ExecutionState from = s.state;
  if (from == to) return;
  s.state = to;
  observer_.task_state_changed(sim_.now(), {s.vertex, s.index, s.attempt}, from, to);
}

// ---------------------------------------------------------------------------------------------
// Lifecycle

void TaskRuntime::clear_channels() {
  for (Channel& c : channels_) {
    c.queue.clear();
    c.data_items = 0;
    c.blocked = false;
  }
}

void TaskRuntime::deploy(const CompletedCheckpoint* restored) {
  ++generation_;
  clear_channels();  // in-flight data is lost with the old attempts
  running_ = 0;
  const ClusterSpec& cluster = scenario_.cluster;
  for (std::size_t id = 0; id < subtasks_.size(); ++id) {
    Subtask& s = subtasks_[id];
    const VertexSpec& v = scenario_.job.vertices[static_cast<std::size_t>(s.vertex)];
    const Subtask fresh_layout = s;
    s = Subtask{};
    s.vertex = fresh_layout.vertex;
    s.index = fresh_layout.index;
    s.inputs = fresh_layout.inputs;
    s.outputs = fresh_layout.outputs;
    for (OutputGroup& g : s.outputs) g.next = static_cast<std::size_t>(s.index);
    s.attempt = fresh_layout.attempt + 1;
    s.state = fresh_layout.state;
    s.state_size = v.state_size;
    if (restored) {
      auto it = restored->task_states.find({s.vertex, s.index});
      if (it != restored->task_states.end()) {
        s.position = it->second.source_position;
        s.state_size = it->second.state_size;
      }
    }
    s.state = ExecutionState::created;
    observer_.task_state_changed(sim_.now(), {s.vertex, s.index, s.attempt},
                                 ExecutionState::created, ExecutionState::scheduled);
    s.state = ExecutionState::scheduled;
    set_state(s, ExecutionState::deploying);
    const auto state_arg = [&](ExecutionState to) {
      return arg(static_cast<int>(id)) | (static_cast<std::uint64_t>(to) << 24);
    };
    sim_.schedule_in(cluster.deploy_time, this, kStateTransition,
                     state_arg(ExecutionState::initializing));
    // Restore reads the state back from checkpoint storage.
    const double bandwidth = std::max(1.0, cluster.checkpoint_storage.bandwidth_bytes_per_second);
    const Duration restore = restored ? cluster.checkpoint_storage.latency +
                                            static_cast<Duration>(static_cast<double>(s.state_size) /
                                                                  bandwidth * 1e9)
                                      : 0;
    sim_.schedule_in(cluster.deploy_time + restore, this, kStateTransition,
                     state_arg(ExecutionState::running));
  }
}

void TaskRuntime::cancel() {
  ++generation_;
  clear_channels();  // in-flight data is lost with the old attempts
  running_ = 0;
  bool any = false;
  for (std::size_t id = 0; id < subtasks_.size(); ++id) {
    Subtask& s = subtasks_[id];
    s.busy = false;
    s.blocked_output.reset();
    s.waiting_output = false;
    s.pending_triggers.clear();
    s.emission_scheduled = false;
    s.wake_scheduled = false;
    if (s.state == ExecutionState::canceled || s.state == ExecutionState::finished ||
        s.state == ExecutionState::failed || s.state == ExecutionState::created)
      continue;
    set_state(s, ExecutionState::canceling);
    any = true;
    sim_.schedule_in(scenario_.cluster.rpc_latency, this, kStateTransition,
                     arg(static_cast<int>(id)) |
                         (static_cast<std::uint64_t>(ExecutionState::canceled) << 24));
  }
  if (!any) listener_.all_tasks_terminal();
}

void TaskRuntime::finish() {
  ++generation_;
  for (Subtask& s : subtasks_) {
    if (s.state == ExecutionState::running) set_state(s, ExecutionState::finished);
    s.busy = false;
  }
  running_ = 0;
  listener_.all_tasks_terminal();
}

void TaskRuntime::add_stall(int vertex, std::optional<int> subtask, SimTime from,
                            std::optional<Duration> length) {
  Stall st;
  st.from = from;
  st.until = length ? from + *length : core::kNever;
  st.subtask = subtask;
  stalls_[static_cast<std::size_t>(vertex)].push_back(st);
  if (st.until < core::kNever)
    sim_.schedule_at(st.until, this, kStallEnds, static_cast<std::uint64_t>(vertex));
}

// ---------------------------------------------------------------------------------------------
// RPCs from the JobManager

void TaskRuntime::trigger_checkpoint(std::int64_t id, SimTime timestamp,
                                     const CheckpointProperties& props) {
  Item barrier;
  barrier.barrier = true;
  barrier.checkpoint_id = id;
  barrier.checkpoint_timestamp = timestamp;
  barrier.savepoint = props.is_savepoint();
  for (std::size_t i = 0; i < subtasks_.size(); ++i) {
    if (!is_source(subtasks_[i])) continue;
    trigger_rpcs_.push_back({static_cast<int>(i), generation_, barrier});
    // A stop-with-savepoint barrier is the last thing a source emits.
    trigger_rpcs_.back().barrier.last_from_source = props.synchronous;
    sim_.schedule_in(scenario_.cluster.rpc_latency, this, kTriggerArrives,
                     trigger_rpcs_.size() - 1);
  }
}

void TaskRuntime::notify_checkpoint_complete(std::int64_t id) {
  for (std::size_t i = 0; i < subtasks_.size(); ++i) {
    notify_rpcs_.push_back({static_cast<int>(i), generation_, id, true});
    sim_.schedule_in(scenario_.cluster.rpc_latency, this, kNotifyArrives, notify_rpcs_.size() - 1);
  }
}

void TaskRuntime::notify_checkpoint_aborted(std::int64_t id) {
  // Expiry or abort at the JobManager does not unblock aligned inputs (R: only barriers,
  // cancel markers or a newer barrier do); the task only learns the checkpoint is gone.
  for (std::size_t i = 0; i < subtasks_.size(); ++i) {
    notify_rpcs_.push_back({static_cast<int>(i), generation_, id, false});
    sim_.schedule_in(scenario_.cluster.rpc_latency, this, kNotifyArrives, notify_rpcs_.size() - 1);
  }
}

// ---------------------------------------------------------------------------------------------
// The task thread

void TaskRuntime::wake(int id) {
  Subtask& s = subtasks_[static_cast<std::size_t>(id)];
  if (s.wake_scheduled) return;
  s.wake_scheduled = true;
  sim_.schedule_in(0, this, kWake, arg(id));
}

void TaskRuntime::push(int channel, const Item& item) {
  Channel& c = channels_[static_cast<std::size_t>(channel)];
  c.queue.push_back(item);
  if (!item.barrier) ++c.data_items;
  wake(c.consumer);
}

void TaskRuntime::wake_producer(int channel) {
  const int p = channels_[static_cast<std::size_t>(channel)].producer;
  const Subtask& s = subtasks_[static_cast<std::size_t>(p)];
  if (s.blocked_output || s.waiting_output) wake(p);
}

bool TaskRuntime::output_available(const Subtask& s) const {
  // RecordWriter.isAvailable: the next record batch would find a buffer in every target.
  for (const OutputGroup& g : s.outputs) {
    if (g.ship == ShipStrategy::broadcast) {
      for (int c : g.channels)
        if (channels_[static_cast<std::size_t>(c)].data_items >= channel_capacity_) return false;
    } else if (channels_[static_cast<std::size_t>(g.channels[g.next % g.channels.size()])]
                   .data_items >= channel_capacity_) {
      return false;
    }
  }
  return true;
}

bool TaskRuntime::try_emit(Subtask& s, const Item& item) {
  if (item.barrier) {  // events need no buffer: broadcast into every channel
    for (OutputGroup& g : s.outputs)
      for (int c : g.channels) push(c, item);
    return true;
  }
  // A record batch goes to one channel of each downstream edge (all of them for broadcast);
  // if any target is full, the task is back-pressured and emits nothing.
  if (!output_available(s)) return false;
  for (OutputGroup& g : s.outputs) {
    if (g.ship == ShipStrategy::broadcast) {
      for (int c : g.channels) push(c, item);
    } else {
      push(g.channels[g.next % g.channels.size()], item);
      if (g.ship != ShipStrategy::forward) ++g.next;
    }
  }
  return true;
}

void TaskRuntime::schedule_emission(Subtask& s, int id) {
  const VertexSpec& v = scenario_.job.vertices[static_cast<std::size_t>(s.vertex)];
  if (s.emission_scheduled || s.stopped || v.records_per_second <= 0) return;
  s.emission_scheduled = true;
  const double fill_seconds = static_cast<double>(records_per_buffer(s.vertex)) / v.records_per_second;
  // A buffer is sent when it is full or when execution.buffer-timeout flushes it.
  const Duration period = std::max<Duration>(
      core::kMicrosecond,
      std::min(static_cast<Duration>(fill_seconds * 1e9), scenario_.flink.buffer_timeout));
  sim_.schedule_in(period, this, kSourceEmit, arg(id));
}

void TaskRuntime::emit_source_buffer(int id) {
  Subtask& s = subtasks_[static_cast<std::size_t>(id)];
  s.emission_scheduled = false;
  if (s.state != ExecutionState::running || s.busy || stalled(s) || s.stopped)
    return;  // progress() schedules the next emission once the thread is free again
  if (!output_available(s)) {
    // Back-pressured: a FLIP-27 source reads nothing more until there is room; mails
    // (checkpoint triggers) still run meanwhile (SourceOperatorStreamTask).
    s.waiting_output = true;
    return;
  }
  const VertexSpec& v = scenario_.job.vertices[static_cast<std::size_t>(s.vertex)];
  const double fill_seconds = static_cast<double>(records_per_buffer(s.vertex)) / v.records_per_second;
  const double period = std::min(fill_seconds, static_cast<double>(scenario_.flink.buffer_timeout) / 1e9);
  s.fractional_records += v.records_per_second * period;
  const auto records = static_cast<std::int64_t>(std::floor(s.fractional_records));
  s.fractional_records -= static_cast<double>(records);
  if (records > 0) {
    Item item;
    item.records = records;
    s.position += records;  // read from the source system and emitted
    try_emit(s, item);
  }
  schedule_emission(s, id);
}

void TaskRuntime::progress(int id) {
  Subtask& s = subtasks_[static_cast<std::size_t>(id)];
  if (s.state != ExecutionState::running || s.busy || stalled(s)) return;
  // Mails run between records, also while the task is back-pressured (its default action is
  // suspended, the mailbox is not): a checkpoint trigger at a source.
  if (!s.pending_triggers.empty()) {
    const Item barrier = s.pending_triggers.front().second;
    s.pending_triggers.pop_front();
    if (barrier.last_from_source) s.stopped = true;
    sync_phases_[static_cast<std::size_t>(id)] = SyncPhase{barrier, sim_.now(), 0, 0};
    perform_checkpoint(id, barrier);
    return;
  }
  if (s.blocked_output) {
    if (!try_emit(s, *s.blocked_output)) return;  // still back-pressured
    s.blocked_output.reset();
  }
  if (is_source(s)) {
    if (s.waiting_output && !output_available(s)) return;
    s.waiting_output = false;
    schedule_emission(s, id);
    return;
  }
  const std::size_t n = s.inputs.size();
  for (std::size_t k = 0; k < n; ++k) {
    const int c = s.inputs[(s.next_input + k) % n];
    Channel& ch = channels_[static_cast<std::size_t>(c)];
    if (ch.blocked || ch.queue.empty()) continue;
    s.next_input = (s.next_input + k + 1) % n;
    const Item item = ch.queue.front();
    ch.queue.pop_front();
    if (item.barrier) {
      process_barrier(id, c, item);
      if (!s.busy) wake(id);
      return;
    }
    --ch.data_items;
    wake_producer(c);
    const VertexSpec& v = scenario_.job.vertices[static_cast<std::size_t>(s.vertex)];
    s.busy = true;
    s.processing = item;
    if (s.checkpoint_pending) {  // aligning: bytes processed from channels without a barrier yet
      const auto producer_vertex = static_cast<std::size_t>(
          subtasks_[static_cast<std::size_t>(ch.producer)].vertex);
      s.processed_bytes += item.records * scenario_.job.vertices[producer_vertex].record_size;
    }
    sim_.schedule_in(item.records * v.cost_per_record, this, kProcessDone, arg(id));
    return;
  }
}

void TaskRuntime::process_barrier(int id, int channel, const Item& item) {
  Subtask& s = subtasks_[static_cast<std::size_t>(id)];
  const std::int64_t cp = item.checkpoint_id;
  // SingleCheckpointBarrierHandler.processBarrier: obsolete barriers only resume their channel.
  if (cp < s.current_checkpoint || (cp == s.current_checkpoint && !s.checkpoint_pending)) return;
  if (cp > s.current_checkpoint) {
    if (s.checkpoint_pending) {
      // checkNewCheckpoint: a newer barrier subsumes the aligning checkpoint.
      listener_.decline_checkpoint(
          s.current_checkpoint, {s.vertex, s.index, s.attempt},
          CheckpointException{CheckpointFailureReason::checkpoint_declined_subsumed});
      unblock_inputs(s);
    }
    s.current_checkpoint = cp;
    s.checkpoint_pending = true;
    s.barriers_received = 0;
    s.first_barrier = sim_.now();
    s.processed_bytes = 0;
  }
  // Aligned exactly-once (and every savepoint) blocks the channel whose barrier was polled;
  // at-least-once only counts barriers (CheckpointBarrierTracker).
  const bool aligned = item.savepoint ||
                       scenario_.flink.checkpointing.mode == CheckpointingMode::exactly_once;
  if (aligned) channels_[static_cast<std::size_t>(channel)].blocked = true;
  ++s.barriers_received;
  if (s.barriers_received == static_cast<int>(s.inputs.size())) {
    s.checkpoint_pending = false;
    SyncPhase& phase = sync_phases_[static_cast<std::size_t>(id)];
    phase = SyncPhase{item, s.first_barrier, sim_.now() - s.first_barrier, s.processed_bytes};
    perform_checkpoint(id, item);
  }
}

void TaskRuntime::perform_checkpoint(int id, const Item& barrier) {
  // SubtaskCheckpointCoordinatorImpl.checkpointState: the barrier is broadcast before the sync
  // snapshot; inputs are unblocked after the sync phase returns.
  Subtask& s = subtasks_[static_cast<std::size_t>(id)];
  try_emit(s, barrier);
  s.busy = true;
  const VertexSpec& v = scenario_.job.vertices[static_cast<std::size_t>(s.vertex)];
  sim_.schedule_in(v.sync_snapshot, this, kSyncDone, arg(id));
}

void TaskRuntime::finish_sync_phase(int id) {
  Subtask& s = subtasks_[static_cast<std::size_t>(id)];
  const SyncPhase& phase = sync_phases_[static_cast<std::size_t>(id)];
  const VertexSpec& v = scenario_.job.vertices[static_cast<std::size_t>(s.vertex)];
  s.busy = false;
  unblock_inputs(s);
  const CheckpointStorageSpec& storage = scenario_.cluster.checkpoint_storage;
  const Duration upload =
      storage.latency + static_cast<Duration>(static_cast<double>(s.state_size) /
                                              std::max(1.0, storage.bandwidth_bytes_per_second) * 1e9);
  PendingAck ack;
  ack.id = phase.barrier.checkpoint_id;
  ack.task = {s.vertex, s.index, s.attempt};
  ack.generation = generation_;
  ack.metrics.task = ack.task;
  ack.metrics.checkpointed_size = s.state_size;
  ack.metrics.state_size = s.state_size;
  ack.metrics.sync_duration = v.sync_snapshot;
  ack.metrics.async_duration = upload;
  ack.metrics.alignment_duration = phase.alignment;
  ack.metrics.start_delay = std::max<Duration>(0, phase.started - phase.barrier.checkpoint_timestamp);
  ack.metrics.processed_bytes = phase.processed_bytes;
  ack.state.source_position = s.position;
  ack.state.state_size = s.state_size;
  acks_.push_back(ack);
  sim_.schedule_in(upload + scenario_.cluster.rpc_latency, this, kAckArrives, acks_.size() - 1);
  wake(id);
}

void TaskRuntime::unblock_inputs(Subtask& s) {
  for (int c : s.inputs) channels_[static_cast<std::size_t>(c)].blocked = false;
}

void TaskRuntime::on_event(std::uint32_t kind, std::uint64_t a) {
  switch (static_cast<Event>(kind)) {
    case kWake:
      if (!current(a)) return;
      subtasks_[static_cast<std::size_t>(subtask_of(a))].wake_scheduled = false;
      progress(subtask_of(a));
      return;
    case kSourceEmit:
      if (current(a)) emit_source_buffer(subtask_of(a));
      return;
    case kProcessDone: {
      if (!current(a)) return;
      const int id = subtask_of(a);
      Subtask& s = subtasks_[static_cast<std::size_t>(id)];
      s.busy = false;
      const VertexSpec& v = scenario_.job.vertices[static_cast<std::size_t>(s.vertex)];
      s.state_size += s.processing.records * v.state_growth_per_record;
      if (!s.outputs.empty() && !try_emit(s, s.processing)) s.blocked_output = s.processing;
      progress(id);
      return;
    }
    case kSyncDone:
      if (current(a)) finish_sync_phase(subtask_of(a));
      return;
    case kTriggerArrives: {
      const TriggerRpc rpc = trigger_rpcs_[a];
      Subtask& s = subtasks_[static_cast<std::size_t>(rpc.subtask)];
      if (rpc.generation != generation_) return;  // the attempt it was sent to is gone
      if (s.state != ExecutionState::running) {
        // StreamTask.triggerCheckpointAsync on a task that is not running declines.
        listener_.decline_checkpoint(
            rpc.barrier.checkpoint_id, {s.vertex, s.index, s.attempt},
            CheckpointException{CheckpointFailureReason::checkpoint_declined_task_not_ready});
        return;
      }
      s.pending_triggers.push_back({rpc.barrier.checkpoint_id, rpc.barrier});
      wake(rpc.subtask);
      return;
    }
    case kAckArrives: {
      const PendingAck& ack = acks_[a];
      if (ack.generation == generation_)
        listener_.acknowledge_checkpoint(ack.id, ack.task, ack.metrics, ack.state);
      return;
    }
    case kNotifyArrives: {
      const NotifyRpc& rpc = notify_rpcs_[a];
      const Subtask& s = subtasks_[static_cast<std::size_t>(rpc.subtask)];
      if (rpc.generation == generation_ && s.state == ExecutionState::running)
        observer_.task_notified(sim_.now(), {s.vertex, s.index, s.attempt}, rpc.id, rpc.complete);
      return;
    }
    case kStallEnds: {
      const auto vertex = static_cast<std::size_t>(a);
      for (int i = 0; i < scenario_.job.vertices[vertex].parallelism; ++i)
        wake(vertex_first_[vertex] + i);
      return;
    }
    case kStateTransition: {
      if (!current(a)) return;
      const int id = static_cast<int>(a & 0xffffffU);
      const auto to = static_cast<ExecutionState>((a >> 24) & 0xffU);
      Subtask& s = subtasks_[static_cast<std::size_t>(id)];
      if (to == ExecutionState::initializing && s.state == ExecutionState::deploying) {
        set_state(s, to);
      } else if (to == ExecutionState::running && s.state == ExecutionState::initializing) {
        set_state(s, to);
        wake(id);
        if (++running_ == num_subtasks()) listener_.all_tasks_running();
      } else if (to == ExecutionState::canceled && s.state == ExecutionState::canceling) {
        set_state(s, to);
        const bool all_done = std::all_of(subtasks_.begin(), subtasks_.end(), [](const Subtask& t) {
          return t.state != ExecutionState::canceling;
        });
        if (all_done) listener_.all_tasks_terminal();
      }
      return;
    }
  }
}

}  // namespace ckptsim::model
