// The task and network model. One Subtask is one task thread; progress() is its mailbox loop:
// mails (checkpoint triggers) first, then the default action, which processes one input buffer
// when its output is available (soft back-pressure otherwise, R9). Channels move buffers from a
// result subpartition to an input channel only with credit (events need none, R8); an aligned
// barrier blocks its subpartition once handed out (R1) until the consumer resumes consumption
// after its sync snapshot (R2).
#include "sim/model/task_runtime.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <utility>

namespace ckptsim::model {

TaskRuntime::TaskRuntime(core::Simulation& sim, const Scenario& scenario, Observer& observer,
                         TaskRuntimeListener& listener)
    : sim_(sim),
      scenario_(scenario),
      observer_(observer),
      listener_(listener),
      storage_(sim, scenario.cluster.checkpoint_storage, *this) {
  const auto& vertices = scenario.job.vertices;
  for (std::size_t v = 0; v < vertices.size(); ++v) {
    vertex_first_.push_back(static_cast<int>(subtasks_.size()));
    vertex_is_source_.push_back(!vertices[v].input.has_value());
    for (int i = 0; i < vertices[v].parallelism; ++i) {
      Subtask s;
      s.vertex = static_cast<int>(v);
      s.index = i;
      s.taskmanager = taskmanager_of(static_cast<int>(v), i);
      subtasks_.push_back(s);
    }
  }
  stalls_.resize(vertices.size());
  sync_phases_.resize(subtasks_.size());
  // Connectors and the external systems they talk to; slow-downs and stalls of a system are
  // known from the timeline, so its service profile is fixed up front.
  if (scenario.systems.doris) doris_.emplace(*scenario.systems.doris);
  for (const TimelineAction& a : scenario.timeline) {
    if (a.kind != ActionKind::slow_down) continue;
    const SimTime until = a.duration ? a.at + *a.duration : core::kNever;
    if (scenario.systems.mysql && a.system == scenario.systems.mysql->name)
      mysql_profile_.add_window(a.at, until, a.factor);
    else if (doris_ && a.system == doris_->spec().name)
      doris_->profile().add_window(a.at, until, a.factor);
  }
  writers_.resize(subtasks_.size());
  kafka_.resize(subtasks_.size());
  kafka_committed_.assign(subtasks_.size(), 0);
  for (std::size_t i = 0; i < subtasks_.size(); ++i) {
    const VertexSpec& v = vertex(subtasks_[i]);
    if (doris_ && v.doris) writers_[i].emplace(*v.doris, *doris_, subtasks_[i].index);
    if (v.kafka_sink && v.kafka_sink->guarantee == DeliveryGuarantee::exactly_once)
      kafka_[i].emplace(v.kafka_sink->transaction_timeout);
  }
  for (const VertexSpec& v : vertices) source_rates_.push_back(v.records_per_second);
  checkpointing_ = scenario.flink.checkpointing;
  cdc_plans_.resize(vertices.size());
  cdc_split_done_.resize(vertices.size());
  cdc_enumerator_free_.assign(vertices.size(), 0);
  for (std::size_t v = 0; v < vertices.size(); ++v)
    if (vertices[v].mysql_cdc) cdc_split_done_[v].assign(vertices[v].mysql_cdc->tables.size(), -1);
  cdc_waiting_.assign(vertices.size(), false);
  cdc_finish_checkpoint_.assign(vertices.size(), -1);
  for (std::size_t v = 0; v < vertices.size(); ++v)
    if (vertices[v].mysql_cdc) cdc_plans_[v].emplace(*vertices[v].mysql_cdc);
  for (const Subtask& s : subtasks_)
    rngs_.emplace_back(scenario.seed, "task/" + std::to_string(s.vertex) + "/" +
                                          std::to_string(s.index));
  // Forward connects i -> i; rescale connects pointwise groups; the others all to all.
  for (std::size_t v = 0; v < vertices.size(); ++v) {
    if (!vertices[v].input) continue;
    int u = -1;
    for (std::size_t k = 0; k < v; ++k)
      if (vertices[k].name == *vertices[v].input) u = static_cast<int>(k);
    assert(u >= 0);
    const auto uu = static_cast<std::size_t>(u);
    const int pu = vertices[uu].parallelism;
    const int pv = vertices[v].parallelism;
    const ShipStrategy ship = vertices[v].ship;
    for (int i = 0; i < pu; ++i) {
      OutputGroup group;
      group.ship = ship;
      group.origin = static_cast<std::size_t>(i);
      for (int j = 0; j < pv; ++j) {
        if (ship == ShipStrategy::forward && i != j) continue;
        // RescalePartitioner / POINTWISE: each upstream feeds a contiguous range downstream.
        if (ship == ShipStrategy::rescale &&
            (pu >= pv ? j != i * pv / pu : (j * pu / pv) != i))
          continue;
        Channel c;
        c.producer = vertex_first_[uu] + i;
        c.consumer = vertex_first_[v] + j;
        c.local = sub(c.producer).taskmanager == sub(c.consumer).taskmanager;
        c.input_index = static_cast<int>(sub(c.consumer).inputs.size());
        c.output_group = static_cast<int>(sub(c.producer).outputs.size());
        c.output_position = static_cast<int>(group.channels.size());
        const int id = static_cast<int>(channels_.size());
        channels_.push_back(c);
        group.channels.push_back(id);
        sub(c.consumer).inputs.push_back(id);
      }
      if (ship == ShipStrategy::hash && vertices[v].key_distribution != KeyDistribution::uniform) {
        // Keys map to subtasks by key % parallelism (KeyGroupRangeAssignment, simplified);
        // each channel gets the probability mass of its keys.
        const VertexSpec& d = vertices[v];
        const int keys = std::max(1, d.keys);
        std::vector<double> p(static_cast<std::size_t>(keys));
        double total = 0;
        for (int k = 0; k < keys; ++k) {
          p[static_cast<std::size_t>(k)] =
              d.key_distribution == KeyDistribution::zipf ? 1.0 / std::pow(k + 1.0, d.zipf_s) : 1.0;
          total += p[static_cast<std::size_t>(k)];
        }
        for (double& x : p) x /= total;
        if (d.key_distribution == KeyDistribution::hot_key) {
          for (double& x : p) x *= 1.0 - d.hot_key_share;
          p[0] += d.hot_key_share;
        }
        group.weights.assign(group.channels.size(), 0.0);
        for (int k = 0; k < keys; ++k)
          group.weights[static_cast<std::size_t>(k % pv)] += p[static_cast<std::size_t>(k)];
        group.carry.assign(group.channels.size(), 0.0);
      }
      sub(vertex_first_[uu] + i).outputs.push_back(group);
    }
  }
  for (Subtask& s : subtasks_) {
    std::size_t n = 0;
    for (const OutputGroup& g : s.outputs) n += g.channels.size();
    // NettyShuffleUtils.getMinMaxNetworkBuffersPerResultPartition: max = n * buffers-per-channel
    // + floating-buffers-per-gate, i.e. n*2+8 with the defaults.
    s.pool_size = static_cast<int>(n) * std::max(0, scenario.flink.buffers_per_channel) +
                  std::max(0, scenario.flink.floating_buffers_per_gate);
  }
  clear_network();
}

int TaskRuntime::taskmanager_of(int vertex, int subtask) const {
  (void)vertex;  // default slot sharing: one slot holds subtask i of every vertex
  int max_parallelism = 1;
  for (const VertexSpec& v : scenario_.job.vertices) max_parallelism = std::max(max_parallelism, v.parallelism);
  const int tms = std::max(1, scenario_.cluster.taskmanagers);
  const int slots = scenario_.cluster.slots_per_taskmanager > 0
                        ? scenario_.cluster.slots_per_taskmanager
                        : (max_parallelism + tms - 1) / tms;
  return (subtask / std::max(1, slots)) % tms;
}

std::uint64_t TaskRuntime::arg(int subtask) const {
  return (static_cast<std::uint64_t>(generation_) << 32) | static_cast<std::uint32_t>(subtask);
}

TaskRef TaskRuntime::task_ref(int id) const {
  const Subtask& s = sub(id);
  return {s.vertex, s.index, s.attempt};
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
  return sub(vertex_first_[static_cast<std::size_t>(vertex)] + subtask).state;
}

std::vector<ExecutionState> TaskRuntime::states() const {
  std::vector<ExecutionState> out;
  for (const Subtask& s : subtasks_) out.push_back(s.state);
  return out;
}

bool TaskRuntime::is_finished(TaskRef t) const {
  return sub(vertex_first_[static_cast<std::size_t>(t.vertex)] + t.subtask).state ==
         ExecutionState::finished;
}

bool TaskRuntime::all_sources_running(std::string* not_running) const {
  // FLIP-147 (execution.checkpointing.checkpoints-after-tasks-finish): finished sources are
  // left out of the plan; before it, or with it disabled, they abort the trigger.
  const bool skip_finished = checkpointing_.checkpoints_after_tasks_finish;
  for (const Subtask& s : subtasks_) {
    if (skip_finished && s.state == ExecutionState::finished) continue;
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

std::int64_t TaskRuntime::records_received_by_sinks() const {
  std::int64_t total = 0;
  for (const Subtask& s : subtasks_)
    if (s.outputs.empty() && !is_source(s)) total += s.records_in;
  return total;
}

std::int64_t TaskRuntime::records_in_flight() const {
  std::int64_t total = 0;
  for (const Subtask& s : subtasks_)
    for (const OutputGroup& g : s.outputs)
      if (g.round_robin())  // written, not yet in a builder
        total += g.written - std::accumulate(g.taken.begin(), g.taken.end(), std::int64_t{0});
  for (const Channel& c : channels_) {
    total += c.open_records;
    for (const Buffer& b : c.subpartition) total += b.records;
    for (const Buffer& b : c.received) total += b.records;
  }
  return total;  // a buffer being processed already counts as received
}

std::optional<TaskRuntime::ChannelStats> TaskRuntime::channel_stats(TaskRef from,
                                                                    TaskRef to) const {
  const int p = vertex_first_[static_cast<std::size_t>(from.vertex)] + from.subtask;
  const int q = vertex_first_[static_cast<std::size_t>(to.vertex)] + to.subtask;
  for (int c : sub(q).inputs) {
    const Channel& ch = chan(c);
    if (ch.producer != p) continue;
    return ChannelStats{ch.backlog, static_cast<int>(ch.received.size()), ch.credits,
                        ch.floating, ch.blocked, ch.local};
  }
  return std::nullopt;
}

bool TaskRuntime::back_pressured(TaskRef t) const {
  return sub(vertex_first_[static_cast<std::size_t>(t.vertex)] + t.subtask).waiting_output;
}

void TaskRuntime::account(Subtask& s) {
  // Adds the time since the last transition to the current thread state, closing the sample
  // periods it crosses; queue lengths are those held until now (nothing changed them since the
  // last call, which every mutation of the subtask's queues makes first).
  const Duration period = scenario_.sample_period;
  const SimTime now = sim_.now();
  if (s.state != ExecutionState::running) {
    s.accounted_until = now;
    return;
  }
  if (period <= 0) {  // no time series: only the debloater's idle time is kept
    if (s.thread_state == ThreadState::idle) s.debloat_idle += now - s.accounted_until;
    s.accounted_until = now;
    return;
  }
  while (s.accounted_until < now) {
    const SimTime sample_end = s.sample_start + period;
    const SimTime until = std::min(now, sample_end);
    const Duration d = until - s.accounted_until;
    switch (s.thread_state) {
      case ThreadState::busy: s.sample.busy += d; break;
      case ThreadState::back_pressured: s.sample.back_pressured += d; break;
      case ThreadState::idle:
        s.sample.idle += d;
        s.debloat_idle += d;
        break;
    }
    s.accounted_until = until;
    if (until == sample_end) {
      s.sample.start = s.sample_start;
      // The time the subtask ran in this window (less than the period in its first window).
      s.sample.period = s.sample.busy + s.sample.back_pressured + s.sample.idle;
      s.sample.input_buffers = 0;
      for (int c : s.inputs) s.sample.input_buffers += static_cast<int>(chan(c).received.size());
      s.sample.output_buffers = s.partition_buffers;
      observer_.task_sample(sample_end, {s.vertex, s.index, s.attempt}, s.sample);
      s.sample = TaskSample{};
      s.sample_start = sample_end;
    }
  }
}

void TaskRuntime::update_thread_state(Subtask& s) {
  account(s);
  // A thread inside a user call that does not return counts as busy, like any user code.
  if (s.busy || stalled(s))
    s.thread_state = ThreadState::busy;
  else if (s.waiting_output)
    s.thread_state = ThreadState::back_pressured;
  else
    s.thread_state = ThreadState::idle;
}

void TaskRuntime::recalculate_buffer_size(int id) {
  // BufferDebloater.recalculateBufferSize with BufferSizeEMA.calculateBufferSize (R19).
  Subtask& s = sub(id);
  const FlinkConfig& f = scenario_.flink;
  account(s);
  // ThroughputCalculator pauses while the gate has no data.
  const Duration measured = std::max<Duration>(core::kMillisecond, f.debloat_period - s.debloat_idle);
  const double throughput = static_cast<double>(s.debloat_bytes) / (static_cast<double>(measured) / 1e9);
  s.debloat_bytes = 0;
  s.debloat_idle = 0;
  // RemoteInputChannel.getBuffersInUseCount summed over the gate: queued buffers plus
  // max(0, numRequiredBuffers - initialCredit), i.e. the sender's announced backlog.
  int in_use = 0;
  for (int c : s.inputs) in_use += static_cast<int>(chan(c).received.size()) + chan(c).backlog;
  // desirable = totalBufferSizeInBytes / totalBuffers in long arithmetic, at most twice the last.
  const auto desired_total = static_cast<std::int64_t>(
      std::floor(throughput * static_cast<double>(f.debloat_target / core::kMillisecond) / 1e3));
  const double alpha = 2.0 / (f.debloat_samples + 1);
  const double desirable = std::min(static_cast<double>(desired_total / std::max(1, in_use)),
                                    2 * s.debloat_size);
  s.debloat_size += alpha * (desirable - s.debloat_size);
  // Flink 1.17-1.20 keep the EMA in an int (`lastBufferSize += ...` truncates every step);
  // 2.0 keeps a double and rounds the size it returns (FLINK-36555).
  const bool int_ema = f.version != FlinkVersion::v2_0;
  if (int_ema) s.debloat_size = std::trunc(s.debloat_size);
  const double lo = static_cast<double>(std::min(f.min_segment_size, f.segment_size));
  s.debloat_size = std::clamp(s.debloat_size, lo, static_cast<double>(f.segment_size));
  const auto size = int_ema ? static_cast<std::int64_t>(s.debloat_size) : std::llround(s.debloat_size);
  const bool at_bound = size == static_cast<std::int64_t>(lo) || size == f.segment_size;
  const double change =
      std::abs(1.0 - static_cast<double>(s.debloat_announced) / static_cast<double>(size)) * 100;
  if (size == s.debloat_announced || (change < f.debloat_threshold_percent && !at_bound)) return;
  s.debloat_announced = size;
  for (int c : s.inputs) {  // announceBufferSize to the upstreams
    Channel& ch = chan(c);
    Subtask& producer = sub(ch.producer);
    OutputGroup& g = producer.outputs[static_cast<std::size_t>(ch.output_group)];
    if (!g.round_robin()) {
      ch.buffer_size = size;
      continue;
    }
    // The records written so far went into builders of the old size.
    take_records(producer, g, ch.output_position);
    ch.buffer_size = size;
    update_fill_point(producer, g, ch.output_position);
  }
}

std::int64_t TaskRuntime::buffer_size(TaskRef from, TaskRef to) const {
  const int p = vertex_first_[static_cast<std::size_t>(from.vertex)] + from.subtask;
  const int q = vertex_first_[static_cast<std::size_t>(to.vertex)] + to.subtask;
  for (int c : sub(q).inputs)
    if (chan(c).producer == p) return chan(c).buffer_size;
  return 0;
}

void TaskRuntime::flush_samples() {
  for (Subtask& s : subtasks_) account(s);
}

void TaskRuntime::flush_partial_samples() {
  // The attempts end: their last, partial sample periods are reported too.
  for (Subtask& s : subtasks_) {
    account(s);
    const Duration covered = s.sample.busy + s.sample.back_pressured + s.sample.idle;
    if (scenario_.sample_period <= 0 || s.state != ExecutionState::running || covered <= 0)
      continue;
    s.sample.start = s.sample_start;
    s.sample.period = covered;
    s.sample.input_buffers = 0;
    for (int c : s.inputs) s.sample.input_buffers += static_cast<int>(chan(c).received.size());
    s.sample.output_buffers = s.partition_buffers;
    observer_.task_sample(sim_.now(), {s.vertex, s.index, s.attempt}, s.sample);
    s.sample = TaskSample{};
  }
}

bool TaskRuntime::stalled(const Subtask& s) const {
  const SimTime now = sim_.now();
  if (now < s.mail_busy_until) return true;
  for (const Stall& st : stalls_[static_cast<std::size_t>(s.vertex)])
    if (now >= st.from && now < st.until && (!st.subtask || *st.subtask == s.index)) return true;
  return false;
}

void TaskRuntime::set_state(Subtask& s, ExecutionState to) {
  const ExecutionState from = s.state;
  if (from == to) return;
  if (from == ExecutionState::running) {
    account(s);  // close the time series up to now
    s.left_running = sim_.now();
  }
  s.state = to;
  observer_.task_state_changed(sim_.now(), {s.vertex, s.index, s.attempt}, from, to);
}

// ---------------------------------------------------------------------------------------------
// Lifecycle

void TaskRuntime::occupancy_change(Channel& c, int delta) {
  c.occupancy_integral +=
      static_cast<double>(c.occupancy) * static_cast<double>(sim_.now() - c.occupancy_since);
  c.occupancy_since = sim_.now();
  c.occupancy += delta;
}

std::optional<TaskRuntime::ChannelQueueStats> TaskRuntime::channel_queue_stats(TaskRef from,
                                                                              TaskRef to) const {
  const int p = vertex_first_[static_cast<std::size_t>(from.vertex)] + from.subtask;
  const int q = vertex_first_[static_cast<std::size_t>(to.vertex)] + to.subtask;
  for (int c : sub(q).inputs) {
    const Channel& ch = chan(c);
    if (ch.producer != p) continue;
    const double now = static_cast<double>(sim_.now());
    const double integral = ch.occupancy_integral +
                            static_cast<double>(ch.occupancy) *
                                (now - static_cast<double>(ch.occupancy_since));
    ChannelQueueStats st;
    st.consumed = ch.consumed;
    st.mean_sojourn_seconds =
        ch.consumed > 0 ? ch.sojourn_total / static_cast<double>(ch.consumed) / 1e9 : 0;
    st.mean_buffers = now > 0 ? integral / now : 0;
    st.throughput_per_second = now > 0 ? static_cast<double>(ch.consumed) / (now / 1e9) : 0;
    return st;
  }
  return std::nullopt;
}

void TaskRuntime::clear_network() {
  const FlinkConfig& f = scenario_.flink;
  for (Channel& c : channels_) {
    occupancy_change(c, -c.occupancy);  // the dropped buffers leave the queue statistics
    c.subpartition.clear();
    c.received.clear();
    c.backlog = 0;
    c.received_bytes = 0;
    c.open_bytes = c.open_records = 0;
    c.open_born = 0;
    // Remote channels start with their exclusive buffers as credit; a local channel reads the
    // producer's subpartition directly (modelled as one buffer of credit, no floating buffers).
    c.credits = c.local ? 1 : std::max(0, f.buffers_per_channel);
    c.buffer_size = std::max<std::int64_t>(1, f.segment_size);
    c.floating = 0;
    c.blocked = false;
    c.finished = false;
    c.drained_bytes = 0;
  }
  for (Subtask& s : subtasks_) {
    s.with_data.reset(s.inputs.size());
    s.wants_floating.reset(s.inputs.size());
    s.partition_buffers = 0;
    s.full_subpartitions = 0;
    s.floating_free = s.inputs.empty() ? 0 : std::max(0, f.floating_buffers_per_gate);
    for (OutputGroup& g : s.outputs) {  // round robin goes on where it was
      g.written_since_flush = false;
      if (g.round_robin()) reset_round_robin(s, g, g.origin + static_cast<std::size_t>(g.written));
    }
  }
}

void TaskRuntime::deploy(const CompletedCheckpoint* restored) {
  ++generation_;
  storage_.cancel_all();
  clear_network();  // in-flight data is lost with the old attempts
  running_ = 0;
  const ClusterSpec& cluster = scenario_.cluster;
  std::fill(cdc_waiting_.begin(), cdc_waiting_.end(), false);
  std::fill(cdc_finish_checkpoint_.begin(), cdc_finish_checkpoint_.end(), -1);
  // The new enumerator starts from the checkpointed assigner state: splitting it had not
  // finished starts over.
  for (std::size_t v = 0; v < cdc_split_done_.size(); ++v) {
    for (SimTime& done : cdc_split_done_[v])
      if (done > sim_.now()) done = -1;
    cdc_enumerator_free_[v] = std::min(cdc_enumerator_free_[v], sim_.now());
  }
  for (std::size_t id = 0; id < subtasks_.size(); ++id) {
    Subtask& s = subtasks_[id];
    Subtask fresh;
    fresh.vertex = s.vertex;
    fresh.index = s.index;
    fresh.taskmanager = s.taskmanager;
    fresh.inputs = s.inputs;
    fresh.with_data.reset(s.inputs.size());  // the network was cleared
    fresh.wants_floating.reset(s.inputs.size());
    fresh.outputs = s.outputs;
    fresh.pool_size = s.pool_size;
    fresh.floating_free = s.floating_free;
    fresh.attempt = s.attempt + 1;
    fresh.state = ExecutionState::created;
    fresh.barrier_seen.assign(s.inputs.size(), false);
    for (OutputGroup& g : fresh.outputs) {  // a new attempt starts with empty output state
      if (g.round_robin()) reset_round_robin(fresh, g, static_cast<std::size_t>(s.index));
      std::fill(g.carry.begin(), g.carry.end(), 0.0);
    }
    fresh.state_size = vertex(s).state_size;
    fresh.flushed_state_size = fresh.state_size;  // the starting state is on disk
    fresh.kafka_lag = kafka_start_lag(s, restored);
    fresh.restored_checkpoint = restored ? restored->id : 0;
    fresh.kafka_lag_at = sim_.now();
    if (restored) {
      auto it = restored->task_states.find({s.vertex, s.index});
      if (it != restored->task_states.end()) {
        fresh.position = it->second.source_position;
        fresh.state_size = it->second.state_size;
        fresh.confirmed_state_size = it->second.state_size;  // increments build on it
        fresh.flushed_state_size = it->second.state_size;    // restored SST files
        // MySqlSource.restoreEnumerator: the restored split state decides, whatever
        // scan.startup.mode says (field A.2 [C1]).
        fresh.cdc_phase = static_cast<CdcPhase>(it->second.cdc_phase);
        fresh.cdc_chunks_done = it->second.cdc_chunks_done;
        const VertexSpec& v = vertex(s);
        if (v.mysql_cdc && !v.mysql_cdc->incremental_snapshot && fresh.cdc_phase == CdcPhase::snapshot)
          fresh.cdc_chunks_done = 0;  // the 1.x source restarts an unfinished snapshot
      }
    }
    s = fresh;
    const TaskSnapshot* restored_state = nullptr;
    if (restored)
      if (auto it = restored->task_states.find({s.vertex, s.index}); it != restored->task_states.end())
        restored_state = &it->second;
    kafka_initialize(static_cast<int>(id), restored_state);
    set_state(s, ExecutionState::scheduled);
    set_state(s, ExecutionState::deploying);
    const auto state_arg = [&](ExecutionState to) {
      return arg(static_cast<int>(id)) | (static_cast<std::uint64_t>(to) << 24);
    };
    sim_.schedule_in(cluster.deploy_time, this, kStateTransition,
                     state_arg(ExecutionState::initializing));
    // Restore reads the state back from checkpoint storage.
    const double bandwidth = std::max(1.0, cluster.checkpoint_storage.bandwidth_bytes_per_second);
    const Duration restore =
        restored ? cluster.checkpoint_storage.latency +
                       static_cast<Duration>(static_cast<double>(s.state_size) / bandwidth * 1e9)
                 : 0;
    sim_.schedule_in(cluster.deploy_time + restore, this, kStateTransition,
                     state_arg(ExecutionState::running));
  }
}

void TaskRuntime::cancel() {
  flush_partial_samples();  // the time series sees the queues before they are dropped
  ++generation_;
  for (auto& w : writers_)
    if (w) w->abort_all();
  storage_.cancel_all();
  clear_network();
  running_ = 0;
  bool any = false;
  for (std::size_t id = 0; id < subtasks_.size(); ++id) {
    Subtask& s = subtasks_[id];
    s.busy = s.waiting_output = s.emission_scheduled = s.wake_scheduled = s.flush_scheduled = false;
    s.pending_triggers.clear();
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
  flush_partial_samples();
  ++generation_;
  for (Subtask& s : subtasks_) {
    if (s.state == ExecutionState::running) set_state(s, ExecutionState::finished);
    s.busy = false;
  }
  running_ = 0;
  listener_.all_tasks_terminal();
}

void TaskRuntime::add_stall(int v, std::optional<int> subtask, SimTime from,
                            std::optional<Duration> length) {
  Stall st;
  st.from = from;
  st.until = length ? from + *length : core::kNever;
  st.subtask = subtask;
  stalls_[static_cast<std::size_t>(v)].push_back(st);
  // The thread becomes busy in the call when the stall begins and free again when it ends.
  sim_.schedule_at(from, this, kStallEnds, static_cast<std::uint64_t>(v));
  if (st.until < core::kNever)
    sim_.schedule_at(st.until, this, kStallEnds, static_cast<std::uint64_t>(v));
}

// ---------------------------------------------------------------------------------------------
// RPCs from the JobManager

void TaskRuntime::trigger_checkpoint(std::int64_t id, SimTime timestamp,
                                     const CheckpointProperties& props) {
  Buffer barrier;
  barrier.kind = Buffer::Kind::barrier;
  barrier.checkpoint_id = id;
  barrier.timestamp = timestamp;
  barrier.savepoint = props.is_savepoint();
  // CheckpointOptions.forConfig: savepoints are always aligned; at-least-once never blocks.
  const CheckpointingConfig& cc = checkpointing_;
  const bool exactly_once = cc.mode == CheckpointingMode::exactly_once;
  barrier.unaligned = !props.is_savepoint() && exactly_once && cc.unaligned &&
                      cc.aligned_checkpoint_timeout == 0;
  barrier.aligned = !barrier.unaligned && (props.is_savepoint() || exactly_once);
  // CheckpointOptions.isTimeoutable: aligned, 0 < timeout < Long.MAX (never for savepoints).
  barrier.timeoutable = !props.is_savepoint() && exactly_once && cc.unaligned &&
                        cc.aligned_checkpoint_timeout > 0 &&
                        cc.aligned_checkpoint_timeout < core::kNever;
  barrier.timeout = cc.aligned_checkpoint_timeout;
  barrier.last_from_source = props.synchronous;
  barrier.full = props.is_savepoint() || props.type == SnapshotType::full_checkpoint;
  // MySqlSnapshotSplitAssigner.snapshotState: once all chunks are finished, the first
  // checkpoint after that becomes checkpointIdToFinish (field A.2 [C3]).
  for (std::size_t v = 0; v < cdc_waiting_.size(); ++v)
    if (cdc_waiting_[v] && cdc_finish_checkpoint_[v] < 0) cdc_finish_checkpoint_[v] = id;
  for (std::size_t i = 0; i < subtasks_.size(); ++i) {
    if (!is_source(subtasks_[i]) || subtasks_[i].state == ExecutionState::finished) continue;
    trigger_rpcs_.push_back({static_cast<int>(i), generation_, barrier});
    sim_.schedule_in(scenario_.cluster.rpc_latency, this, kTriggerArrives,
                     trigger_rpcs_.size() - 1);
  }
}

void TaskRuntime::notify_checkpoint_complete(std::int64_t id) {
  // MySqlHybridSplitAssigner.notifyCheckpointComplete: the snapshot assigner is finished, the
  // binlog split can be assigned.
  for (std::size_t v = 0; v < cdc_waiting_.size(); ++v)
    if (cdc_waiting_[v] && cdc_finish_checkpoint_[v] >= 0 && id >= cdc_finish_checkpoint_[v])
      cdc_start_binlog(static_cast<int>(v));
  for (std::size_t i = 0; i < subtasks_.size(); ++i) {
    notify_rpcs_.push_back({static_cast<int>(i), generation_, id, true});
    sim_.schedule_in(scenario_.cluster.rpc_latency, this, kNotifyArrives, notify_rpcs_.size() - 1);
  }
}

void TaskRuntime::notify_checkpoint_aborted(std::int64_t id) {
  for (std::size_t i = 0; i < subtasks_.size(); ++i) {
    notify_rpcs_.push_back({static_cast<int>(i), generation_, id, false});
    sim_.schedule_in(scenario_.cluster.rpc_latency, this, kNotifyArrives, notify_rpcs_.size() - 1);
  }
}

// ---------------------------------------------------------------------------------------------
// Network

int TaskRuntime::InputSet::next(std::size_t from) const {
  const std::size_t n = words_.size();
  if (n == 0) return -1;
  std::size_t w = from / 64;
  if (w >= n) w = 0, from = 0;
  std::uint64_t bits = words_[w] & (~std::uint64_t{0} << (from % 64));
  for (std::size_t step = 0; step <= n; ++step) {
    if (bits) return static_cast<int>(w * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
    w = w + 1 == n ? 0 : w + 1;
    bits = words_[w];
  }
  return -1;
}

int TaskRuntime::InputSet::first_except(int except) const {
  for (std::size_t w = 0; w < words_.size(); ++w) {
    std::uint64_t bits = words_[w];
    if (static_cast<std::size_t>(except) / 64 == w)
      bits &= ~(std::uint64_t{1} << (static_cast<unsigned>(except) % 64));
    if (bits) return static_cast<int>(w * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
  }
  return -1;
}

void TaskRuntime::note_received(const Channel& c) {
  sub(c.consumer).with_data.set(c.input_index, !c.received.empty());
}

void TaskRuntime::note_floating_wish(const Channel& c) {
  sub(c.consumer).wants_floating.set(c.input_index,
                                     !c.local && c.backlog > c.credits && !c.blocked);
}

bool TaskRuntime::output_available(const Subtask& s) const {
  // LocalBufferPool availability: a free buffer in the pool and no subpartition holding
  // max-buffers-per-channel buffers (RecordWriter.isAvailable).
  if (s.outputs.empty()) return true;
  return s.partition_buffers < s.pool_size && s.full_subpartitions == 0;
}

void TaskRuntime::write_records(Subtask& s, std::int64_t records, SimTime born) {
  if (records <= 0) return;
  s.sample.records_out += records;
  const int id = vertex_first_[static_cast<std::size_t>(s.vertex)] + s.index;
  const std::int64_t record_size = std::max<std::int64_t>(1, vertex(s).record_size);
  for (OutputGroup& g : s.outputs) {
    g.written_since_flush = true;
    if (g.round_robin()) {
      write_round_robin(s, id, g, records, born);
    } else if (g.ship == ShipStrategy::hash) {  // skewed keys: each channel its share
      for (std::size_t k = 0; k < g.channels.size(); ++k) {
        g.carry[k] += static_cast<double>(records) * g.weights[k];
        const auto share = static_cast<std::int64_t>(std::floor(g.carry[k]));
        g.carry[k] -= static_cast<double>(share);
        if (share > 0 && append_to_builder(g.channels[k], share, record_size, static_cast<double>(born)))
          schedule_flush(s, id);
      }
    } else {  // forward (one channel) and broadcast: every channel all records
      for (int c : g.channels)
        if (append_to_builder(c, records, record_size, static_cast<double>(born)))
          schedule_flush(s, id);
    }
  }
  if (scenario_.flink.buffer_timeout <= 0) close_builders(s, nullptr);  // execution.buffer-timeout 0
}

namespace {
// Records round robin has given position k (counted from the group's origin) after `written`
// records: the j in [0, written) with j = k mod n.
std::int64_t round_robin_share(std::int64_t written, std::int64_t k, std::int64_t n) {
  return written > k ? (written - k - 1) / n + 1 : 0;
}
constexpr auto kFillsFirst = std::greater<std::pair<std::int64_t, int>>{};
}  // namespace

void TaskRuntime::write_round_robin(Subtask& s, int id, OutputGroup& g, std::int64_t records,
                                    SimTime born) {
  const auto n = static_cast<std::int64_t>(g.channels.size());
  const std::int64_t before = g.written;
  g.written += records;
  g.born_written += static_cast<double>(records) * static_cast<double>(born - g.born_origin);
  // The positions whose builder fills in this write, in the order round robin reaches them
  // (j: the record of this write that reaches the position first).
  std::vector<std::pair<std::int64_t, int>>& filled = filled_scratch_;
  filled.clear();
  while (!g.fills.empty() && g.fills.front().first <= g.written) {
    const auto [at, position] = g.fills.front();
    std::pop_heap(g.fills.begin(), g.fills.end(), kFillsFirst);
    g.fills.pop_back();
    auto& current = g.fills_at[static_cast<std::size_t>(position)];
    if (current != at) continue;  // stale
    current = std::numeric_limits<std::int64_t>::max();
    const std::int64_t k = g.offset(static_cast<std::size_t>(position));
    filled.emplace_back(((k - before) % n + n) % n, position);
  }
  std::sort(filled.begin(), filled.end());
  // Record by record, the flush timer starts at the first channel left with an open builder:
  // any reached channel that did not fill, or a filled one with bytes left over.
  const std::int64_t reached = std::min(records, n);
  std::int64_t unfilled = 0;  // the first reached channel that does not fill
  for (const auto& [j, position] : filled) {
    if (j != unfilled) break;
    ++unfilled;
  }
  for (const auto& [j, position] : filled) {
    if (unfilled < j) schedule_flush(s, id);
    if (take_records(s, g, position)) schedule_flush(s, id);
    update_fill_point(s, g, position);
  }
  if (unfilled < reached) schedule_flush(s, id);
}

bool TaskRuntime::take_records(const Subtask& s, OutputGroup& g, int position) {
  const auto pos = static_cast<std::size_t>(position);
  const auto n = static_cast<std::int64_t>(g.channels.size());
  const std::int64_t k = g.offset(pos);
  const std::int64_t due = round_robin_share(g.written, k, n) - g.taken[pos];
  if (due <= 0) return chan(g.channels[pos]).open_bytes > 0;
  g.taken[pos] += due;
  auto& [written_then, born_then] = g.born_taken[pos];
  const double born = static_cast<double>(g.born_origin) +
                      (g.born_written - born_then) / static_cast<double>(g.written - written_then);
  written_then = g.written;
  born_then = g.born_written;
  return append_to_builder(g.channels[pos], due, std::max<std::int64_t>(1, vertex(s).record_size),
                           born);
}

void TaskRuntime::update_fill_point(const Subtask& s, OutputGroup& g, int position) {
  // The builder fills with the record that brings it to the buffer size: `need` more records
  // to this position, the first of them at least.
  const auto pos = static_cast<std::size_t>(position);
  const Channel& c = chan(g.channels[pos]);
  const std::int64_t record_size = std::max<std::int64_t>(1, vertex(s).record_size);
  const std::int64_t room = c.buffer_size - c.open_bytes;
  const std::int64_t need = room <= 0 ? 1 : (room + record_size - 1) / record_size;
  const auto n = static_cast<std::int64_t>(g.channels.size());
  const std::int64_t k = g.offset(pos);
  const std::int64_t at = k + (g.taken[pos] + need - 1) * n + 1;
  g.fills_at[pos] = at;
  if (g.fills.size() >= 4 * g.channels.size()) {  // mostly stale: rebuild
    g.fills.clear();
    for (std::size_t p = 0; p < g.fills_at.size(); ++p)
      if (g.fills_at[p] != std::numeric_limits<std::int64_t>::max())
        g.fills.emplace_back(g.fills_at[p], static_cast<int>(p));
    std::make_heap(g.fills.begin(), g.fills.end(), kFillsFirst);
    return;
  }
  g.fills.emplace_back(at, position);
  std::push_heap(g.fills.begin(), g.fills.end(), kFillsFirst);
}

void TaskRuntime::reset_round_robin(const Subtask& s, OutputGroup& g, std::size_t origin) {
  const std::size_t n = g.channels.size();
  g.origin = origin % n;
  g.written = 0;
  g.taken.assign(n, 0);
  g.born_origin = sim_.now();
  g.born_written = 0;
  g.born_taken.assign(n, {0, 0.0});
  g.fills_at.assign(n, 0);
  g.fills.clear();
  for (std::size_t p = 0; p < n; ++p) update_fill_point(s, g, static_cast<int>(p));
}

bool TaskRuntime::append_to_builder(int channel, std::int64_t records, std::int64_t record_size,
                                    double born) {
  Channel& c = chan(channel);
  const std::int64_t segment = c.buffer_size;
  c.open_records += records;
  c.open_bytes += records * record_size;
  c.open_born += static_cast<double>(records) * born;
  while (c.open_bytes >= segment) {  // a full BufferBuilder becomes a finished buffer
    Buffer b;
    const double mean_born = c.open_born / static_cast<double>(c.open_records);
    b.born = static_cast<SimTime>(std::llround(mean_born));
    b.bytes = static_cast<std::int32_t>(segment);
    b.records = std::max<std::int64_t>(
        1, std::min(c.open_records,
                    static_cast<std::int64_t>(std::llround(static_cast<double>(c.open_records) *
                                                          static_cast<double>(segment) /
                                                          static_cast<double>(c.open_bytes)))));
    c.open_bytes -= segment;
    c.open_records -= b.records;
    c.open_born -= static_cast<double>(b.records) * mean_born;
    if (c.open_records <= 0) {
      c.open_records = 0;
      c.open_bytes = 0;
      c.open_born = 0;
    }
    add_to_subpartition(channel, b);
  }
  return c.open_bytes > 0;
}

bool TaskRuntime::finish_builder(int channel) {
  Channel& c = chan(channel);
  if (c.open_bytes <= 0) return false;
  Buffer b;
  b.bytes = static_cast<std::int32_t>(c.open_bytes);
  b.records = c.open_records;
  b.born = c.open_records > 0
               ? static_cast<SimTime>(std::llround(c.open_born / static_cast<double>(c.open_records)))
               : sim_.now();
  c.open_bytes = c.open_records = 0;
  c.open_born = 0;
  add_to_subpartition(channel, b);
  return true;
}

void TaskRuntime::schedule_flush(Subtask& s, int id) {
  // The OutputFlusher flushes every buffer timeout: started by the first write, it ticks while
  // the task runs (see kFlush).
  if (s.flush_scheduled || s.flush_with_step || scenario_.flink.buffer_timeout <= 0) return;
  s.flush_scheduled = true;
  sim_.schedule_in(scenario_.flink.buffer_timeout, this, kFlush, arg(id));
}

std::int64_t TaskRuntime::close_builders(Subtask& s, const Buffer* event) {
  // BufferWritingResultPartition.broadcastEvent finishes the open builders first, so an event
  // queues right behind the data written before it (or, unaligned, overtakes all of it).
  std::int64_t persisted = 0;
  for (OutputGroup& g : s.outputs) {
    if (!event && !g.written_since_flush) continue;
    g.written_since_flush = false;
    const bool round_robin = g.round_robin();
    for (std::size_t p = 0; p < g.channels.size(); ++p) {
      const auto position = static_cast<int>(p);
      const std::int64_t taken = round_robin ? g.taken[p] : 0;
      if (round_robin) take_records(s, g, position);
      const bool finished = finish_builder(g.channels[p]);
      if (event) persisted += add_to_subpartition(g.channels[p], *event);
      if (round_robin && (finished || g.taken[p] != taken)) update_fill_point(s, g, position);
    }
    if (round_robin) {  // every record was taken: the read-time sums start again from now
      g.born_origin = sim_.now();
      g.born_written = 0;
      for (auto& taken_at : g.born_taken) taken_at.second = 0;
    }
  }
  return persisted;
}

std::int64_t TaskRuntime::add_to_subpartition(int channel, const Buffer& b) {
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

void TaskRuntime::change_backlog(Channel& c, int delta) {
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

void TaskRuntime::request_floating(int channel) {
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

void TaskRuntime::pump(int channel) {
  Channel& c = chan(channel);
  account(sub(c.producer));
  account(sub(c.consumer));
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
      yield_to_mail(c.consumer);
    } else {
      if (head.kind == Buffer::Kind::barrier && head.timeoutable) {
        // The barrier left the producer's subpartition: its timeoutable output future
        // completes (PipelinedSubpartition.completeTimeoutableCheckpointBarrier).
        Subtask& producer = sub(c.producer);
        if (producer.output_checkpoint == head.checkpoint_id && producer.output_barriers_queued > 0 &&
            --producer.output_barriers_queued == 0)
          maybe_send_ack(c.producer);
        // A remote channel announces it (EventAnnouncement): the consumer's timer starts.
        if (!c.local && head.checkpoint_id > consumer.current_checkpoint)
          register_alignment_timer(c.consumer, head);
      }
      // ChannelStatePersister: data arriving on a channel whose unaligned barrier has not come
      // yet is recorded as input channel state (R11).
      if (head.kind == Buffer::Kind::data && consumer.uc_collecting &&
          !consumer.barrier_seen[static_cast<std::size_t>(c.input_index)])
        sync_phases_[static_cast<std::size_t>(c.consumer)].persisted_bytes += head.bytes;
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
    wake(c.consumer);
    if (sub(c.producer).waiting_output) wake(c.producer);
  }
}

void TaskRuntime::recycle(int channel) {
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

void TaskRuntime::resume_consumption(int channel) {
  chan(channel).blocked = false;
  pump(channel);
}

void TaskRuntime::unblock_all_inputs(Subtask& s, int keep_blocked) {
  for (int c : s.inputs)
    if (chan(c).blocked && c != keep_blocked) resume_consumption(c);
}

void TaskRuntime::end_of_partition(int channel) {
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
  if (checkpointing_.checkpoints_after_tasks_finish) {
    s.barrier_seen[idx] = true;
    ++s.barriers_received;
  } else {
    s.end_of_input_abort = true;
  }
  wake(c.consumer);
}

// ---------------------------------------------------------------------------------------------
// The task thread

void TaskRuntime::wake(int id) {
  Subtask& s = sub(id);
  if (s.wake_scheduled) return;
  s.wake_scheduled = true;
  sim_.schedule_in(0, this, kWake, arg(id));
}

void TaskRuntime::schedule_emission(Subtask& s, int id) {
  const VertexSpec& v = vertex(s);
  if (s.emission_scheduled || s.stopped || has_no_partition(s)) return;
  if (v.mysql_cdc && v.mysql_cdc->incremental_snapshot && s.cdc_phase == CdcPhase::snapshot) {
    s.flush_with_step = false;  // chunks are processed, then written
    // The split fetcher reads the next chunk while the task thread emits the previous one.
    const CdcChunkPlan& plan = *cdc_plans_[static_cast<std::size_t>(s.vertex)];
    if (s.cdc_chunks_done >= plan.chunks_of(s.index, v.parallelism)) {
      cdc_finish_snapshot(id);
      return;
    }
    if (s.cdc_next_ready < 0) {
      const auto chunk =
          plan.chunk(CdcChunkPlan::global_index(s.index, v.parallelism, s.cdc_chunks_done));
      s.cdc_next_ready = mysql_profile_.finish_time(
          std::max(sim_.now(), cdc_chunk_available(s.vertex, chunk.table)),
          static_cast<double>(chunk.rows), scenario_.systems.mysql->read_rows_per_second);
    }
    if (s.cdc_next_ready == core::kNever) return;  // MySQL stalled for ever
    s.emission_scheduled = true;
    sim_.schedule_at(std::max(sim_.now(), s.cdc_next_ready), this, kSourceEmit, arg(id));
    s.busy_since = sim_.now();
    return;
  }
  const double rate = source_rate(s);
  if (rate <= 0) return;
  s.emission_scheduled = true;
  // Read about one buffer's worth per step, at least every buffer timeout.
  const double fill_seconds = static_cast<double>(scenario_.flink.segment_size) /
                              (rate * static_cast<double>(std::max<std::int64_t>(1, v.record_size)));
  Duration period = static_cast<Duration>(fill_seconds * 1e9);
  // A step as long as the buffer timeout ends where a periodic flusher would tick: the records
  // read over it wait half the timeout on average, as records emitted one by one do in Flink.
  // (Not when chained operators process the step's records: they write later.)
  s.flush_with_step = scenario_.flink.buffer_timeout > 0 && v.arrivals == Variability::fixed &&
                      v.cost_per_record <= 0 && !writers_[static_cast<std::size_t>(id)] &&
                      period >= scenario_.flink.buffer_timeout;
  if (scenario_.flink.buffer_timeout > 0) period = std::min(period, scenario_.flink.buffer_timeout);
  if (v.arrivals == Variability::exponential)  // Poisson arrivals: one record at a time
    period = static_cast<Duration>(
        std::llround(rngs_[static_cast<std::size_t>(id)].exponential(1e9 / rate)));
  sim_.schedule_in(std::max<Duration>(core::kMicrosecond, period), this, kSourceEmit, arg(id));
  s.busy_since = sim_.now();  // the step's records are read over the period
}

void TaskRuntime::emit_source_records(int id) {
  Subtask& s = sub(id);
  s.emission_scheduled = false;
  if (s.state != ExecutionState::running || s.busy || stalled(s) || s.stopped) return;
  if (!output_available(s)) {
    // A FLIP-27 source reads nothing while its output is unavailable; its mails (checkpoint
    // triggers) still run (SourceOperatorStreamTask, R6).
    s.waiting_output = true;
    update_thread_state(s);
    return;
  }
  update_thread_state(s);
  const VertexSpec& v = vertex(s);
  Buffer batch;
  if (v.mysql_cdc && v.mysql_cdc->incremental_snapshot && s.cdc_phase == CdcPhase::snapshot) {
    // One whole chunk in one mailbox step (MySqlRecordEmitter, field A.2 [C6][C7]); the fetcher
    // starts on the next chunk.
    const CdcChunkPlan& plan = *cdc_plans_[static_cast<std::size_t>(s.vertex)];
    const auto chunk =
        plan.chunk(CdcChunkPlan::global_index(s.index, v.parallelism, s.cdc_chunks_done));
    ++s.cdc_chunks_done;
    s.position += chunk.rows;
    s.sample.records_in += chunk.rows;
    s.cdc_next_ready = -1;
    if (s.cdc_chunks_done < plan.chunks_of(s.index, v.parallelism)) {
      const auto next =
          plan.chunk(CdcChunkPlan::global_index(s.index, v.parallelism, s.cdc_chunks_done));
      s.cdc_next_ready = mysql_profile_.finish_time(
          std::max(sim_.now(), cdc_chunk_available(s.vertex, next.table)),
          static_cast<double>(next.rows), scenario_.systems.mysql->read_rows_per_second);
    }
    batch.records = chunk.rows;
    batch.table = chunk.table;
    batch.born = sim_.now();
    start_processing(id, batch);
    return;
  }
  // busy_since is the start of the step, or where a mail that interrupted it left off.
  const double elapsed = static_cast<double>(sim_.now() - s.busy_since) / 1e9;
  if (v.arrivals == Variability::exponential)
    s.fractional_records += 1.0;
  else
    s.fractional_records += source_rate(s) * elapsed;
  auto records = static_cast<std::int64_t>(std::floor(s.fractional_records));
  s.fractional_records -= static_cast<double>(records);
  if (v.kafka_source) {
    // Records produced since the last step (back-pressured time included) join the lag; what
    // was read leaves it.
    const double produced = source_rates_[static_cast<std::size_t>(s.vertex)] *
                            static_cast<double>(sim_.now() - s.kafka_lag_at) / 1e9;
    const double available = s.kafka_lag + produced;  // nothing beyond the head can be read
    records = std::min(records, static_cast<std::int64_t>(std::floor(available)));
    s.kafka_lag = available - static_cast<double>(records);
    s.kafka_lag_at = sim_.now();
  }
  if (v.mysql_cdc) {
    batch.table = kAllTables;  // binlog changes of every table
    if (s.cdc_phase == CdcPhase::snapshot) {  // the 1.x source reads the tables in one go
      std::int64_t total = 0;
      for (const CdcTableSpec& t : v.mysql_cdc->tables) total += t.rows;
      records = std::min(records, total - s.cdc_chunks_done);
      std::int64_t before = 0;
      for (std::size_t t = 0; t < v.mysql_cdc->tables.size(); ++t) {
        if (s.cdc_chunks_done < before + v.mysql_cdc->tables[t].rows) {
          batch.table = static_cast<std::int32_t>(t);
          break;
        }
        before += v.mysql_cdc->tables[t].rows;
      }
      s.cdc_chunks_done += records;
      if (s.cdc_chunks_done >= total) cdc_finish_snapshot(id);
    }
  }
  s.position += records;
  s.sample.records_in += records;
  if (records > 0) s.lock_until_record = false;  // the streaming record releases the lock (B2)
  // The step's records were read evenly since it started (a Poisson arrival: just now).
  batch.born = v.arrivals == Variability::exponential
                   ? sim_.now()
                   : s.busy_since + (sim_.now() - s.busy_since) / 2;
  if ((v.cost_per_record > 0 || writers_[static_cast<std::size_t>(id)]) && records > 0) {
    // Operators chained to the source process what it read on the same thread.
    batch.records = records;
    start_processing(id, batch);
    return;  // kProcessDone writes the output, then progress() reads on
  }
  write_records(s, records, batch.born);
  if (s.flush_with_step) close_builders(s, nullptr);
  schedule_emission(s, id);
}

void TaskRuntime::progress(int id) {
  Subtask& s = sub(id);
  if (s.state != ExecutionState::running) return;
  account(s);
  struct Update {  // whatever path returns, the thread state is re-derived afterwards
    TaskRuntime* self;
    Subtask& s;
    ~Update() { self->update_thread_state(s); }
  } update{this, s};
  if (s.busy || stalled(s)) return;
  // Mails run between buffers, and while the default action is suspended (back-pressure, no
  // input): a checkpoint trigger at a source.
  if (s.output_timeout_mail >= 0) {
    const std::int64_t cp = std::exchange(s.output_timeout_mail, -1);
    convert_output_barriers(id, cp);
  }
  if (s.timed_out_checkpoint >= 0) {
    const std::int64_t cp = std::exchange(s.timed_out_checkpoint, -1);
    switch_to_unaligned(id, cp);
    if (s.busy) return;
  }
  // A legacy source blocked on an output buffer holds the checkpoint lock, so its trigger
  // waits until the buffer comes (SourceStreamTask's synchronized executor, R7).
  // The 1.x CDC source takes the lock at the first snapshot record and releases it at the first
  // binlog record: no checkpoint during the whole snapshot (field B1 [C11]).
  const bool lock_held =
      (vertex(s).legacy_source && s.waiting_output && !output_available(s)) ||
      (vertex(s).mysql_cdc && !vertex(s).mysql_cdc->incremental_snapshot &&
       s.cdc_phase == CdcPhase::snapshot) ||
      s.lock_until_record || sim_.now() < s.lock_held_until;
  if (!s.pending_triggers.empty() && !lock_held) {
    const Buffer barrier = s.pending_triggers.front();
    s.pending_triggers.pop_front();
    if (is_source(s) && s.emission_scheduled) {
      // What the source read in this step up to now stays read; the mail takes the thread
      // from here (the step's remainder is not credited while the snapshot runs).
      if (vertex(s).arrivals == Variability::fixed)
        s.fractional_records +=
            source_rate(s) * static_cast<double>(sim_.now() - s.busy_since) / 1e9;
      s.busy_since = sim_.now();
    }
    checkpoint_state(id, barrier, sim_.now(), 0, 0);
    return;
  }
  if (is_source(s)) {
    if (s.waiting_output && !output_available(s)) return;
    s.waiting_output = false;
    schedule_emission(s, id);
    return;
  }
  // An EndOfPartition consumed while aligning (end_of_partition): it completed the alignment,
  // or aborts it when checkpoints after tasks finish are disabled.
  if (s.checkpoint_pending && !s.uc_collecting) {
    if (s.end_of_input_abort) {
      abort_alignment(id, s.current_checkpoint,
                      CheckpointFailureReason::checkpoint_declined_input_end_of_stream);
      wake(id);
      return;
    }
    if (s.barriers_received == static_cast<int>(s.inputs.size())) {
      s.checkpoint_pending = false;
      checkpoint_state(id, s.aligning_barrier, s.first_barrier, sim_.now() - s.first_barrier,
                       s.processed_bytes);
      return;
    }
  }
  // CheckpointedInputGate.processPriorityEvents runs as a mail: unaligned barriers are handled
  // before any data and also while the output is unavailable.
  if (s.priority_pending > 0 && process_priority_event(id)) {
    if (!s.busy) wake(id);
    return;
  }
  // StreamTask.processInput: no input is processed while the output is unavailable (R9).
  if (!output_available(s)) {
    s.waiting_output = true;
    return;
  }
  s.waiting_output = false;
  if (s.remainder) {  // finish the buffer a mail interrupted
    const Buffer rest = *s.remainder;
    s.remainder.reset();
    start_processing(id, rest);
    return;
  }
  // Round robin over the input channels that hold something.
  const int next = s.with_data.next(s.next_input);
  if (next >= 0) {
    const int c = s.inputs[static_cast<std::size_t>(next)];
    Channel& ch = chan(c);
    s.next_input = (static_cast<std::size_t>(next) + 1) % s.inputs.size();
    const Buffer b = ch.received.front();
    ch.received.pop_front();
    note_received(ch);
    switch (b.kind) {
      case Buffer::Kind::data: {
        ch.received_bytes -= b.bytes;
        ch.drained_bytes += b.bytes;
        occupancy_change(ch, -1);
        ch.sojourn_total += static_cast<double>(sim_.now() - b.enqueued);
        ++ch.consumed;
        s.records_in += b.records;
        s.sample.records_in += b.records;
        s.debloat_bytes += b.bytes;
        if (s.checkpoint_pending) s.processed_bytes += b.bytes;  // processed during alignment
        recycle(c);
        start_processing(id, b);
        return;
      }
      case Buffer::Kind::barrier:
        if (b.unaligned) --s.priority_pending;
        process_barrier(id, c, b);
        break;
      case Buffer::Kind::cancel_marker: process_cancel_marker(id, b); break;
    }
    if (!s.busy) wake(id);
    return;
  }
}

// ---------------------------------------------------------------------------------------------
// Barrier handling

void TaskRuntime::process_barrier(int id, int channel, const Buffer& b) {
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
      checkpoint_state(id, b, s.first_barrier, sim_.now() - s.first_barrier, 0);
    } else if (s.tracker.size() > 50) {  // MAX_CHECKPOINTS_TO_TRACK
      s.tracker.erase(s.tracker.begin());
    }
    return;
  }
  // SingleCheckpointBarrierHandler.processBarrier: an obsolete barrier only resumes its channel.
  if (cp < s.current_checkpoint || (cp == s.current_checkpoint && !s.checkpoint_pending)) {
    resume_consumption(channel);
    return;
  }
  if (b.timeoutable && sim_.now() - b.timestamp > b.timeout) {
    // ControllerImpl.isTimedOut (passive check): the timeout passed, so this barrier is
    // processed as an unaligned one (R12/R13).
    Buffer as_unaligned = b;
    as_unaligned.unaligned = true;
    as_unaligned.aligned = false;
    chan(channel).blocked = false;  // it was handed out as an aligned barrier
    note_floating_wish(chan(channel));
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
    checkpoint_state(id, b, s.first_barrier, sim_.now() - s.first_barrier, s.processed_bytes);
  }
}

void TaskRuntime::start_new_checkpoint(int id, const Buffer& b, int channel) {
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

void TaskRuntime::abort_alignment(int id, std::int64_t checkpoint, CheckpointFailureReason reason,
                                  int keep_blocked) {
  // abortInternal: unblock everything, decline to the JobManager, forward a cancel marker.
  Subtask& s = sub(id);
  s.checkpoint_pending = false;
  s.end_of_input_abort = false;
  s.last_checkpoint_taken = std::max(s.last_checkpoint_taken, checkpoint);
  unblock_all_inputs(s, keep_blocked);
  listener_.decline_checkpoint(checkpoint, {s.vertex, s.index, s.attempt},
                               CheckpointException{reason});
  Buffer marker;
  marker.kind = Buffer::Kind::cancel_marker;
  marker.checkpoint_id = checkpoint;
  close_builders(s, &marker);
}

void TaskRuntime::process_cancel_marker(int id, const Buffer& marker) {
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

void TaskRuntime::checkpoint_state(int id, const Buffer& barrier, SimTime started,
                                   Duration alignment, std::int64_t processed,
                                   std::int64_t persisted_input) {
  // SubtaskCheckpointCoordinatorImpl.checkpointState.
  Subtask& s = sub(id);
  const std::int64_t cp = barrier.checkpoint_id;
  s.last_checkpoint_taken = std::max(s.last_checkpoint_taken, cp);
  if (barrier.last_from_source) s.stopped = true;
  if (s.aborted.erase(cp) > 0) {
    // checkAndClearAbortedStatus: aborted at the JobManager before it got here: a cancel marker
    // goes downstream instead of the barrier and no snapshot is taken (R5).
    Buffer marker;
    marker.kind = Buffer::Kind::cancel_marker;
    marker.checkpoint_id = cp;
    close_builders(s, &marker);
    unblock_all_inputs(s);
    wake(id);
    return;
  }
  std::size_t outputs = 0;
  for (const OutputGroup& g : s.outputs) outputs += g.channels.size();
  if (barrier.timeoutable && !barrier.unaligned && outputs > 0) {
    // The acknowledgement waits until the barrier left every subpartition, or its timeout
    // converts it (SubtaskCheckpointCoordinatorImpl.registerAlignmentTimer, R14).
    s.output_checkpoint = cp;
    s.output_barriers_queued = static_cast<int>(outputs);
    s.ack_waits_for_output = true;
    timers_.push_back({arg(id), cp});
    sim_.schedule_in(std::max<Duration>(0, barrier.timeout - (sim_.now() - barrier.timestamp)),
                     this, kOutputTimer, timers_.size() - 1);
  }
  // prepareSnapshotPreBarrier: a Doris writer flushes and stops every open load (prepareCommit)
  // before the barrier goes on; Doris sinks have no network outputs, so it is timed here.
  // KafkaWriter.prepareCommit / snapshotState: flush, the transaction becomes a committable.
  if (auto& k = kafka_[static_cast<std::size_t>(id)]) k->precommit(cp);
  Duration pre_barrier = 0;
  if (auto& w = writers_[static_cast<std::size_t>(id)]) {
    const DorisWriter::Prepared prepared = w->prepare_commit(sim_.now(), cp);
    watch_doris_failure(id);
    if (prepared.thrown) {
      // The exception leaves the checkpoint and fails the task (next event, on this thread).
      doris_failures_.push_back({arg(id), *prepared.thrown});
      doris_failures_.back().second.checkpoint = cp;
      sim_.schedule_in(0, this, kDorisPrepareThrew, doris_failures_.size() - 1);
      s.busy = true;
      s.processing = barrier;
      return;
    }
    pre_barrier = prepared.took;
  }
  const std::int64_t persisted_output = close_builders(s, &barrier);  // before the sync (R2)
  sync_phases_[static_cast<std::size_t>(id)] =
      SyncPhase{barrier, started, alignment, processed, persisted_input + persisted_output};
  SyncPhase& phase = sync_phases_[static_cast<std::size_t>(id)];
  phase.pre_barrier = pre_barrier;
  phase.sync = sync_duration(s, barrier);
  s.busy = true;
  s.processing = barrier;
  if (pre_barrier == core::kNever) return;  // parked in stopLoad for ever
  sim_.schedule_in(pre_barrier + phase.sync, this, kSyncDone, arg(id));
}

Duration TaskRuntime::sync_duration(Subtask& s, const Buffer& barrier) {
  // SubtaskCheckpointCoordinatorImpl.takeSnapshotSync: the operators' snapshotState (the
  // vertex's sync-snapshot), then the keyed state backend's synchronous part:
  // - HashMapStateBackend: HeapSnapshotStrategy.syncPrepareResources takes copy-on-write
  //   snapshots of the state tables (CopyOnWriteStateMap.snapshotMapArrays, a shallow copy of
  //   the bucket arrays): state size / cluster.heap-snapshot-rate;
  // - EmbeddedRocksDBStateBackend, incremental: takeDBNativeCheckpoint; RocksDB's
  //   CreateCheckpoint flushes the active memtable to local disk (the state written since the
  //   last flush, modulo state.backend.rocksdb.writebuffer.size, as full memtables are flushed in
  //   the background) and hard-links the SST files: flush bytes / cluster.local-disk-bandwidth;
  // - EmbeddedRocksDBStateBackend, full (or a savepoint): RocksFullSnapshotStrategy takes a
  //   RocksDB snapshot, constant time; its async part iterates the whole state.
  const FlinkConfig& f = scenario_.flink;
  const ClusterSpec& cluster = scenario_.cluster;
  double seconds = 0;
  if (f.state_backend == StateBackendKind::hashmap) {
    seconds = static_cast<double>(s.state_size) / cluster.heap_snapshot_bytes_per_second;
  } else if (f.incremental && !barrier.full) {
    const std::int64_t written = std::max<std::int64_t>(0, s.state_size - s.flushed_state_size);
    const std::int64_t memtable = written % std::max<std::int64_t>(1, f.rocksdb_writebuffer_size);
    seconds = static_cast<double>(memtable) / cluster.local_disk_bandwidth_bytes_per_second;
    s.flushed_state_size = s.state_size;
  }
  return vertex(s).sync_snapshot + static_cast<Duration>(std::llround(seconds * 1e9));
}

void TaskRuntime::finish_sync_phase(int id) {
  Subtask& s = sub(id);
  s.busy = false;
  sync_phases_[static_cast<std::size_t>(id)].sync_end = sim_.now();
  // resumeConsumption after the sync part (R2); a checkpoint that switched to unaligned keeps
  // its channels blocked until every barrier arrived (AlternatingCollectingBarriersUnaligned).
  if (!s.uc_collecting) unblock_all_inputs(s);
  s.uploading_checkpoint =
      std::max(s.uploading_checkpoint, sync_phases_[static_cast<std::size_t>(id)].barrier.checkpoint_id);
  // Unaligned: the input channel state is complete only once every barrier arrived (R11).
  s.uc_ack_waiting = true;
  maybe_send_ack(id);
  wake(id);
}

void TaskRuntime::maybe_send_ack(int id) {
  Subtask& s = sub(id);
  if (!s.uc_ack_waiting || s.uc_collecting) return;
  if (s.ack_waits_for_output && s.output_barriers_queued > 0) return;
  s.uc_ack_waiting = false;
  s.ack_waits_for_output = false;
  send_ack(id);
}

void TaskRuntime::register_alignment_timer(int id, const Buffer& barrier) {
  // SingleCheckpointBarrierHandler.registerAlignmentTimer: one timer per task and checkpoint,
  // measured from the trigger timestamp (BarrierAlignmentUtil.getTimerDelay).
  Subtask& s = sub(id);
  if (s.timer_checkpoint >= barrier.checkpoint_id) return;
  s.timer_checkpoint = barrier.checkpoint_id;
  timers_.push_back({arg(id), barrier.checkpoint_id});
  sim_.schedule_in(std::max<Duration>(0, barrier.timeout - (sim_.now() - barrier.timestamp)), this,
                   kAlignmentTimer, timers_.size() - 1);
}

void TaskRuntime::switch_to_unaligned(int id, std::int64_t cp) {
  // alignedCheckpointTimeout: announced barriers are prioritized; if alignment of `cp` is under
  // way the checkpoint is triggered unaligned now, with the data not yet behind a barrier as
  // input channel state (R12); otherwise the first barrier will trigger it unaligned (R13).
  Subtask& s = sub(id);
  for (int c : s.inputs) {
    Channel& ch = chan(c);
    if (s.checkpoint_pending && s.current_checkpoint == cp &&
        s.barrier_seen[static_cast<std::size_t>(ch.input_index)])
      continue;
    for (std::size_t i = 0; i < ch.received.size(); ++i) {
      if (ch.received[i].kind == Buffer::Kind::barrier && ch.received[i].checkpoint_id == cp) {
        Buffer b = ch.received[i];
        b.unaligned = true;
        b.aligned = false;
        ch.received.erase(i);
        ch.received.push_front(b);
        ch.blocked = false;
        note_floating_wish(ch);
        ++s.priority_pending;
        break;
      }
    }
  }
  if (!(s.checkpoint_pending && s.current_checkpoint == cp) || s.uc_collecting) return;
  std::int64_t in_flight = 0;
  for (int c : s.inputs)
    if (!s.barrier_seen[static_cast<std::size_t>(chan(c).input_index)])
      in_flight += chan(c).received_bytes;
  s.uc_collecting = true;
  Buffer barrier;
  barrier.kind = Buffer::Kind::barrier;
  barrier.checkpoint_id = cp;
  barrier.unaligned = true;
  barrier.aligned = false;
  barrier.timestamp = s.current_timestamp;
  checkpoint_state(id, barrier, s.first_barrier, 0, s.processed_bytes, in_flight);
}

void TaskRuntime::convert_output_barriers(int id, std::int64_t cp) {
  // PipelinedSubpartition.alignedBarrierTimeout: a barrier still queued becomes a priority
  // unaligned barrier; the data it skips becomes output channel state (R14).
  Subtask& s = sub(id);
  if (s.output_checkpoint != cp) return;
  std::int64_t persisted = 0;
  for (const OutputGroup& g : s.outputs)
    for (int c : g.channels) {
      Channel& ch = chan(c);
      for (std::size_t i = 0; i < ch.subpartition.size(); ++i) {
        const Buffer& queued = ch.subpartition[i];
        if (queued.kind != Buffer::Kind::barrier || queued.checkpoint_id != cp) {
          if (queued.kind == Buffer::Kind::data) persisted += queued.bytes;
          continue;
        }
        Buffer b = queued;
        ch.subpartition.erase(i);
        b.unaligned = true;
        b.aligned = false;
        b.timeoutable = false;
        ch.subpartition.push_front(b);
        if (s.output_barriers_queued > 0) --s.output_barriers_queued;
        pump(c);
        break;
      }
    }
  sync_phases_[static_cast<std::size_t>(id)].persisted_bytes += persisted;
  maybe_send_ack(id);
}

void TaskRuntime::send_ack(int id) {
  Subtask& s = sub(id);
  const SyncPhase& phase = sync_phases_[static_cast<std::size_t>(id)];
  const std::int64_t cp = phase.barrier.checkpoint_id;
  // What the async part uploads: the full state, or with incremental RocksDB snapshots what
  // changed since the last confirmed checkpoint; plus, unaligned, the channel state.
  const bool incremental = scenario_.flink.state_backend == StateBackendKind::rocksdb &&
                           scenario_.flink.incremental && !phase.barrier.full;
  const std::int64_t state_upload =
      incremental ? std::max<std::int64_t>(0, s.state_size - s.confirmed_state_size) : s.state_size;
  s.snapshot_sizes[cp] = s.state_size;
  PendingAck ack;
  ack.id = cp;
  ack.task = {s.vertex, s.index, s.attempt};
  ack.generation = generation_;
  ack.subtask = id;
  ack.metrics.task = ack.task;
  ack.metrics.checkpointed_size = state_upload + phase.persisted_bytes;
  ack.metrics.state_size = s.state_size + phase.persisted_bytes;
  ack.metrics.sync_duration = phase.pre_barrier + phase.sync;
  ack.metrics.alignment_duration = phase.alignment;
  ack.metrics.start_delay = std::max<Duration>(0, phase.started - phase.barrier.timestamp);
  ack.metrics.processed_bytes = phase.processed_bytes;
  ack.metrics.persisted_bytes = phase.persisted_bytes;
  ack.metrics.unaligned = phase.barrier.unaligned;
  ack.state.source_position = s.position;
  ack.state.state_size = s.state_size;
  ack.state.cdc_phase = static_cast<std::uint8_t>(s.cdc_phase);
  ack.state.cdc_chunks_done = s.cdc_chunks_done;
  if (const auto& k = kafka_[static_cast<std::size_t>(id)]) ack.state.kafka_committables = k->committables();
  acks_.push_back(ack);
  s.upload_token = acks_.size() - 1;
  // Uploads share the checkpoint storage's bandwidth with every other upload in flight.
  storage_.start_upload(state_upload + phase.persisted_bytes, s.upload_token);
}

void TaskRuntime::upload_finished(std::uint64_t token) {
  PendingAck& ack = acks_[token];
  if (ack.generation != generation_) return;
  // AsyncCheckpointRunnable runs from the end of the sync part until the uploads finish.
  ack.metrics.async_duration =
      sim_.now() - sync_phases_[static_cast<std::size_t>(ack.subtask)].sync_end;
  sim_.schedule_in(scenario_.cluster.rpc_latency, this, kAckArrives, token);
}

std::int64_t TaskRuntime::upload_remaining(TaskRef t) const {
  const Subtask& s = sub(vertex_first_[static_cast<std::size_t>(t.vertex)] + t.subtask);
  return storage_.remaining_bytes(s.upload_token);
}

Duration TaskRuntime::service_time(int id, std::int64_t records) {
  const VertexSpec& v = vertex(sub(id));
  if (v.service == Variability::fixed || v.cost_per_record <= 0) return records * v.cost_per_record;
  // Exponential service per record: the buffer takes a sum of `records` exponentials (a normal
  // approximation of that Gamma for large buffers keeps the cost per buffer, not per record).
  core::RandomStream& rng = rngs_[static_cast<std::size_t>(id)];
  const double mean = static_cast<double>(v.cost_per_record);
  double total = 0;
  if (records <= 64) {
    for (std::int64_t i = 0; i < records; ++i) total += rng.exponential(mean);
  } else {
    const double n = static_cast<double>(records);
    total = std::max(0.0, rng.normal(n * mean, std::sqrt(n) * mean));
  }
  return static_cast<Duration>(std::llround(total));
}

void TaskRuntime::start_processing(int id, const Buffer& b) {
  Subtask& s = sub(id);
  s.busy = true;
  update_thread_state(s);  // a source's step starts here, outside progress()
  s.processing = b;
  s.processing_started = sim_.now();
  Duration d = service_time(id, b.records);
  if (writers_[static_cast<std::size_t>(id)]) d = sink_write(id, b, d);
  if (auto& k = kafka_[static_cast<std::size_t>(id)]; k && b.kind == Buffer::Kind::data)
    k->write(sim_.now(), b.records);
  if (d == core::kNever) {  // the thread never comes back from the connector call
    s.processing_done = {};
    return;
  }
  s.processing_done = sim_.schedule_in(d, this, kProcessDone, arg(id));
}

void TaskRuntime::yield_to_mail(int id) {
  // The mailbox is checked between records, not between buffers: a priority mail arriving while
  // a buffer is processed runs after the record in progress; the rest of the buffer waits.
  Subtask& s = sub(id);
  const Duration cost = vertex(s).cost_per_record;
  // A CDC chunk is one step, and a thread inside a connector call runs no mail.
  if (vertex(s).mysql_cdc || writers_[static_cast<std::size_t>(id)]) return;
  if (!s.busy || s.processing.kind != Buffer::Kind::data || cost <= 0 ||
      !sim_.is_pending(s.processing_done))
    return;
  const std::int64_t done = std::min<std::int64_t>(
      s.processing.records, (sim_.now() - s.processing_started) / cost + 1);
  if (done >= s.processing.records) return;
  Buffer rest = s.processing;
  rest.records = s.processing.records - done;
  rest.bytes = static_cast<std::int32_t>(static_cast<std::int64_t>(s.processing.bytes) * rest.records /
                                         s.processing.records);
  s.processing.records = done;
  s.processing.bytes -= rest.bytes;
  s.remainder = rest;
  sim_.cancel(s.processing_done);
  s.processing_done = sim_.schedule_at(s.processing_started + done * cost, this, kProcessDone, arg(id));
}

bool TaskRuntime::process_priority_event(int id) {
  Subtask& s = sub(id);
  for (int c : s.inputs) {
    Channel& ch = chan(c);
    if (ch.received.empty()) continue;
    const Buffer& head = ch.received.front();
    if (head.kind != Buffer::Kind::barrier || !head.unaligned) continue;
    const Buffer b = head;
    ch.received.pop_front();
    note_received(ch);
    --s.priority_pending;
    process_unaligned_barrier(id, c, b);
    return true;
  }
  s.priority_pending = 0;  // none left at a head (consumed in FIFO order meanwhile)
  return false;
}

void TaskRuntime::process_unaligned_barrier(int id, int channel, const Buffer& b) {
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
    for (int c : s.inputs) in_flight += chan(c).received_bytes;
    s.barrier_seen[static_cast<std::size_t>(chan(channel).input_index)] = true;
    ++s.barriers_received;
    s.uc_collecting = s.barriers_received < n;
    checkpoint_state(id, b, sim_.now(), 0, 0, in_flight);
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
    SyncPhase& phase = sync_phases_[static_cast<std::size_t>(id)];
    phase.alignment = sim_.now() - s.first_barrier;  // the barriers' spread (R17)
    unblock_all_inputs(s);  // channels still blocked from the aligned phase, if it switched
    maybe_send_ack(id);
  }
}

// ---------------------------------------------------------------------------------------------
// Diagnosis

WaitState TaskRuntime::wait_state(TaskRef task, std::int64_t cp) const {
  WaitState w;
  const int id = vertex_first_[static_cast<std::size_t>(task.vertex)] + task.subtask;
  const Subtask& s = sub(id);
  w.channels_total = static_cast<int>(s.inputs.size());
  if (s.state != ExecutionState::running) return w;
  if (s.acked_checkpoint >= cp) {
    w.kind = WaitState::Kind::acknowledged;
    return w;
  }
  if (s.uc_ack_waiting && s.current_checkpoint == cp) {
    // Unaligned: snapshot taken, the channel state waits for the remaining barriers.
    w.kind = WaitState::Kind::aligning;
    w.channels_aligned = s.barriers_received;
    w.since = s.first_barrier;
    return w;
  }
  if (s.uploading_checkpoint >= cp) {
    w.kind = WaitState::Kind::async_upload;
    w.bytes_ahead = storage_.remaining_bytes(s.upload_token);
    w.drain_bytes_per_second = storage_.bandwidth_per_upload();
    return w;
  }
  if (sink_wait_state(s, id, w)) return w;
  if (stalled(s)) {
    w.kind = WaitState::Kind::blocked_in_user_call;
    for (const Stall& st : stalls_[static_cast<std::size_t>(s.vertex)])
      if (sim_.now() >= st.from && sim_.now() < st.until) w.since = st.from;
    if (sim_.now() < s.mail_busy_until)  // in notifyCheckpointComplete
      w.since = s.mail_busy_until - vertex(s).notify_complete;
    return w;
  }
  if (is_source(s)) {
    const VertexSpec& v = vertex(s);
    const bool cdc_lock = v.mysql_cdc && !v.mysql_cdc->incremental_snapshot &&
                          s.cdc_phase == CdcPhase::snapshot;
    if (s.lock_until_record || sim_.now() < s.lock_held_until) {
      w.kind = WaitState::Kind::lock_held;
      w.until = s.lock_until_record ? core::kNever : s.lock_held_until;
      return w;
    }
    w.kind = cdc_lock                                ? WaitState::Kind::cdc_snapshot_lock
             : v.legacy_source && s.waiting_output ? WaitState::Kind::checkpoint_lock
                                                   : WaitState::Kind::trigger_not_run;
    if (v.mysql_cdc && s.busy && s.processing.kind == Buffer::Kind::data) {
      w.chunk_rows = s.processing.records;  // the trigger waits for the chunk to be emitted
      w.since = s.processing_started;
    }
    return w;
  }
  w.back_pressured = s.waiting_output;
  const bool aligning = s.checkpoint_pending && s.current_checkpoint == cp;
  w.channels_aligned = aligning ? s.barriers_received : 0;
  if (aligning) w.since = s.first_barrier;
  // The channel whose barrier is furthest away: bytes queued ahead of it, or not sent yet.
  w.kind = WaitState::Kind::barrier_not_sent;
  std::int64_t worst = -1;
  for (int c : s.inputs) {
    const Channel& ch = chan(c);
    if (aligning && s.barrier_seen[static_cast<std::size_t>(ch.input_index)]) continue;
    std::int64_t ahead = 0;
    bool found = false;
    for (const Buffer& b : ch.received) {
      if (b.kind == Buffer::Kind::barrier && b.checkpoint_id == cp) { found = true; break; }
      if (b.kind == Buffer::Kind::data) ahead += b.bytes;
    }
    if (!found) {
      for (const Buffer& b : ch.subpartition) {
        if (b.kind == Buffer::Kind::barrier && b.checkpoint_id == cp) { found = true; break; }
        if (b.kind == Buffer::Kind::data) ahead += b.bytes;
      }
    }
    if (found && ahead > worst) {
      worst = ahead;
      w.kind = WaitState::Kind::barrier_behind_data;
      w.has_upstream = true;
      w.upstream = task_ref(ch.producer);
      w.bytes_ahead = ahead;
    } else if (!found && worst < 0) {
      w.has_upstream = true;
      w.upstream = task_ref(ch.producer);
    }
  }
  if (w.kind == WaitState::Kind::barrier_behind_data) {
    const VertexSpec& v = vertex(s);
    const Subtask& producer =
        sub(vertex_first_[static_cast<std::size_t>(w.upstream.vertex)] + w.upstream.subtask);
    const double record_size = static_cast<double>(std::max<std::int64_t>(1, vertex(producer).record_size));
    // The consumer drains what it processes: record size / cost per record.
    w.drain_bytes_per_second = v.cost_per_record > 0
                                   ? record_size * 1e9 / static_cast<double>(v.cost_per_record)
                                   : 0;
  } else if (aligning) {
    w.kind = WaitState::Kind::aligning;
  }
  return w;
}

// ---------------------------------------------------------------------------------------------

void TaskRuntime::on_event(std::uint32_t kind, std::uint64_t a) {
  switch (static_cast<Event>(kind)) {
    case kWake:
      if (!current(a)) return;
      sub(subtask_of(a)).wake_scheduled = false;
      progress(subtask_of(a));
      return;
    case kSourceEmit:
      if (current(a)) emit_source_records(subtask_of(a));
      return;
    case kFlush: {
      if (!current(a)) return;
      Subtask& s = sub(subtask_of(a));
      s.flush_scheduled = false;
      close_builders(s, nullptr);
      if (s.state == ExecutionState::running) schedule_flush(s, subtask_of(a));  // next tick
      return;
    }
    case kProcessDone: {
      if (!current(a)) return;
      const int id = subtask_of(a);
      Subtask& s = sub(id);
      s.busy = false;
      s.state_size += s.processing.records * vertex(s).state_growth_per_record;
      s.output_carry += static_cast<double>(s.processing.records) * vertex(s).selectivity;
      const auto out = static_cast<std::int64_t>(std::floor(s.output_carry));
      s.output_carry -= static_cast<double>(out);
      if (s.outputs.empty() && s.processing.kind == Buffer::Kind::data)  // a sink
        latency_.add(sim_.now() - s.processing.born, s.processing.records);
      write_records(s, out, s.processing.born);
      progress(id);
      return;
    }
    case kSyncDone:
      if (current(a)) finish_sync_phase(subtask_of(a));
      return;
    case kTriggerArrives: {
      const TriggerRpc rpc = trigger_rpcs_[a];
      if (rpc.generation != generation_) return;  // the attempt it was sent to is gone
      Subtask& s = sub(rpc.subtask);
      if (s.state != ExecutionState::running) {
        // StreamTask.triggerCheckpointAsync on a task that is not running declines.
        listener_.decline_checkpoint(
            rpc.barrier.checkpoint_id, {s.vertex, s.index, s.attempt},
            CheckpointException{CheckpointFailureReason::checkpoint_declined_task_not_ready});
        return;
      }
      s.pending_triggers.push_back(rpc.barrier);
      yield_to_mail(rpc.subtask);  // FLIP-27: the mailbox is checked between records
      wake(rpc.subtask);
      return;
    }
    case kAckArrives: {
      const PendingAck& ack = acks_[a];
      if (ack.generation != generation_) return;
      Subtask& s = sub(ack.subtask);
      s.acked_checkpoint = std::max(s.acked_checkpoint, ack.id);
      listener_.acknowledge_checkpoint(ack.id, ack.task, ack.metrics, ack.state);
      return;
    }
    case kNotifyArrives: {
      const NotifyRpc& rpc = notify_rpcs_[a];
      Subtask& s = sub(rpc.subtask);
      if (rpc.generation != generation_ || s.state != ExecutionState::running) return;
      // notifyCheckpointAborted does not touch the barrier handler: aligned inputs stay blocked
      // (R5); a checkpoint not yet taken here is remembered and becomes a cancel marker.
      if (!rpc.complete && rpc.id > s.last_checkpoint_taken) s.aborted.insert(rpc.id);
      if (rpc.complete && writers_[static_cast<std::size_t>(rpc.subtask)])
        writers_[static_cast<std::size_t>(rpc.subtask)]->commit(sim_.now(), rpc.id);
      if (rpc.complete) kafka_commit(rpc.subtask, rpc.id);
      if (rpc.complete && vertex(s).notify_complete > 0)
        run_long_mail(rpc.subtask, vertex(s).notify_complete);
      if (rpc.complete) {  // the snapshot is confirmed: later increments build on it
        auto it = s.snapshot_sizes.find(rpc.id);
        if (it != s.snapshot_sizes.end()) s.confirmed_state_size = it->second;
        s.snapshot_sizes.erase(s.snapshot_sizes.begin(), s.snapshot_sizes.upper_bound(rpc.id));
      }
      observer_.task_notified(sim_.now(), {s.vertex, s.index, s.attempt}, rpc.id, rpc.complete);
      return;
    }
    case kAlignmentTimer:
    case kOutputTimer: {
      // Timers fire as mails: they wait for the task thread (after the record in progress).
      const auto [sa, cp] = timers_[a];
      if (!current(sa)) return;
      const int id = subtask_of(sa);
      Subtask& s = sub(id);
      if (kind == kAlignmentTimer) {
        const bool aligning = s.checkpoint_pending && s.current_checkpoint == cp && !s.uc_collecting;
        if (!aligning && s.current_checkpoint >= cp) return;  // done or already unaligned
        s.timed_out_checkpoint = cp;
      } else {
        if (s.output_checkpoint != cp || s.output_barriers_queued == 0) return;
        s.output_timeout_mail = cp;
      }
      yield_to_mail(id);
      wake(id);
      return;
    }
    case kDebloat: {
      if (!current(a)) return;
      const int id = subtask_of(a);
      if (sub(id).state != ExecutionState::running) return;
      recalculate_buffer_size(id);
      sim_.schedule_in(scenario_.flink.debloat_period, this, kDebloat, a);
      return;
    }
    case kDorisLoadFailed:
    case kDorisCheck:
    case kDorisPrepareThrew: {
      const auto& [sa, failure] = doris_failures_[a];
      if (!current(sa)) return;
      const int id = subtask_of(sa);
      Subtask& s = sub(id);
      if (s.state != ExecutionState::running) return;
      if (kind == kDorisLoadFailed) {
        connector_event(ConnectorEvent::Kind::doris_load_failed, id, failure.table, failure.error);
        // Only DorisWriter's checker thread notices a load that ended early; it runs every
        // sink.check-interval when that is above 1000 ms (field A.3 [D13]).
        const Duration check = vertex(s).doris->check_interval;
        if (check > core::kSecond) sim_.schedule_in(check, this, kDorisCheck, a);
        return;
      }
      const std::string doris_error = "table " + failure.table + " stream load error: " +
                                      failure.error + ", see more in null";
      set_state(s, ExecutionState::failed);
      if (kind == kDorisCheck) {
        connector_event(ConnectorEvent::Kind::doris_failure_detected, id, failure.table,
                        failure.error);
        listener_.task_failed({s.vertex, s.index, s.attempt},
                              "org.apache.doris.flink.exception.DorisRuntimeException",
                              doris_error);
        return;
      }
      // prepareCommit threw: StreamTask fails the task with "Could not perform checkpoint N for
      // operator ..." (an Exception from triggerCheckpointAsyncInMailbox at a source, an
      // IOException from triggerCheckpointOnBarrier otherwise), field B7.
      listener_.task_failed(
          {s.vertex, s.index, s.attempt},
          is_source(s) ? "java.lang.Exception" : "java.io.IOException",
          "Could not perform checkpoint " + std::to_string(failure.checkpoint) +
              " for operator " + task_name({s.vertex, s.index, s.attempt}) + "#" +
              std::to_string(s.attempt) +
              ".\nCaused by: org.apache.doris.flink.exception.DorisRuntimeException: " +
              doris_error);
      return;
    }
    case kInitFailed: {
      if (!current(a)) return;
      Subtask& s = sub(subtask_of(a));
      // (A task without state to restore may already have switched to RUNNING.)
      if (s.state != ExecutionState::initializing && s.state != ExecutionState::running) return;
      const auto it = init_failures_.find(subtask_of(a));
      if (it == init_failures_.end()) return;
      const auto [exception_class, message] = it->second;
      set_state(s, ExecutionState::failed);
      listener_.task_failed({s.vertex, s.index, s.attempt}, exception_class, message);
      return;
    }
    case kStallEnds: {
      const auto v = static_cast<std::size_t>(a);
      for (int i = 0; i < scenario_.job.vertices[v].parallelism; ++i) wake(vertex_first_[v] + i);
      return;
    }
    case kStateTransition: {
      if (!current(a)) return;
      const int id = subtask_of(a);
      const auto to = static_cast<ExecutionState>((a >> 24) & 0xffU);
      Subtask& s = sub(id);
      if (to == ExecutionState::initializing && s.state == ExecutionState::deploying) {
        set_state(s, to);
        if (auto failure = connector_init_failure(id)) {
          init_failures_[id] = *failure;
          sim_.schedule_in(scenario_.cluster.rpc_latency, this, kInitFailed, arg(id));
        }
      } else if (to == ExecutionState::running && s.state == ExecutionState::initializing) {
        set_state(s, to);
        s.accounted_until = sim_.now();
        // Sample periods are aligned to the run's clock so rows of all subtasks line up.
        if (scenario_.sample_period > 0)
          s.sample_start = sim_.now() - sim_.now() % scenario_.sample_period;
        if (scenario_.flink.debloat_enabled && !s.inputs.empty()) {
          s.debloat_size = static_cast<double>(scenario_.flink.segment_size);
          s.debloat_announced = scenario_.flink.segment_size;
          sim_.schedule_in(scenario_.flink.debloat_period, this, kDebloat, arg(id));
        }
        cdc_start(id);
        wake(id);
        if (++running_ == num_subtasks()) listener_.all_tasks_running();
        if (vertex(s).legacy_source && has_no_partition(s)) finish_source(id);
      } else if (to == ExecutionState::canceled && s.state == ExecutionState::canceling) {
        set_state(s, to);
        const bool all_done = std::none_of(subtasks_.begin(), subtasks_.end(), [](const Subtask& t) {
          return t.state == ExecutionState::canceling;
        });
        if (all_done) listener_.all_tasks_terminal();
      }
      return;
    }
  }
}

}  // namespace ckptsim::model
