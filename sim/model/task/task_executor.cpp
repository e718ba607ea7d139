// TaskExecutor: deployment and cancellation of attempts, the JobMaster's RPCs, the task state
// machine (ExecutionState transitions), timeline operations on tasks, and the ConnectorContext
// that connectors see.
#include "sim/model/task/task_executor.hpp"

#include "sim/model/checkpointing/checkpoint_options.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>
#include <utility>

namespace ckptsim::model {

namespace {
const TaskSnapshot* restored_state(const CompletedCheckpoint* restored, int vertex, int index) {
  if (!restored) return nullptr;
  const auto it = restored->task_states.find({vertex, index});
  return it == restored->task_states.end() ? nullptr : &it->second;
}
}  // namespace

TaskExecutor::TaskExecutor(core::Simulation& sim, const Scenario& scenario, Observer& observer,
                           JobMasterGateway& listener)
    : sim_(sim),
      scenario_(scenario),
      observer_(observer),
      listener_(listener),
      checkpointing_(scenario.flink.checkpointing),
      network_(*this),
      tasks_(*this),
      barriers_(*this),
      snapshots_(*this),
      hybrid_(*this),
      rpc_rng_(scenario.seed, "rpc") {
  const auto& vertices = scenario.job.vertices;
  for (std::size_t v = 0; v < vertices.size(); ++v) {
    vertex_first_.push_back(static_cast<int>(subtasks_.size()));
    for (int i = 0; i < vertices[v].parallelism; ++i) {
      Subtask s;
      s.vertex = static_cast<int>(v);
      s.index = i;
      s.taskmanager = taskmanager_of(static_cast<int>(v), i);
      subtasks_.push_back(s);
    }
  }
  snapshots_.resize(subtasks_.size());
  epochs_.assign(subtasks_.size(), 0);
  taskmanager_back_.assign(static_cast<std::size_t>(std::max(1, scenario_.cluster.taskmanagers)), 0);
  connectors_ = make_connectors(scenario, *this);
  network_.build(subtasks_, vertex_first_);
  network_.clear_network();
  hybrid_.start();
}

Subtask& TaskExecutor::at(int id) { return subtasks_[static_cast<std::size_t>(id)]; }

Duration TaskExecutor::rpc_delay(int id, bool to_task) {
  const LatencyDistribution& latency = scenario_.cluster.rpc_latency;
  if (latency.is_fixed()) return latency.median;  // in order anyway
  const auto tm = static_cast<std::size_t>(std::max(0, at(id).taskmanager));
  std::vector<SimTime>& last = rpc_last_[to_task ? 0 : 1];
  if (last.size() <= tm) last.resize(tm + 1, 0);
  const SimTime arrival = std::max(sim_.now() + latency.sample(rpc_rng_), last[tm]);
  last[tm] = arrival;
  return arrival - sim_.now();
}
const Subtask& TaskExecutor::at(int id) const { return subtasks_[static_cast<std::size_t>(id)]; }
const Channel& TaskExecutor::channel(int id) const {
  return network_.channels_[static_cast<std::size_t>(id)];
}
const VertexSpec& TaskExecutor::vertex(const Subtask& s) const {
  return scenario_.job.vertices[static_cast<std::size_t>(s.vertex)];
}
bool TaskExecutor::is_source_task(int vertex) const {
  return !scenario_.job.vertices[static_cast<std::size_t>(vertex)].input.has_value();
}

std::uint64_t TaskExecutor::arg(int subtask) const {
  return (static_cast<std::uint64_t>(epoch(subtask)) << 32) | static_cast<std::uint32_t>(subtask);
}

int TaskExecutor::taskmanager_of(int vertex, int subtask) const {
  (void)vertex;  // default slot sharing: one slot holds subtask i of every vertex
  int max_parallelism = 1;
  for (const VertexSpec& v : scenario_.job.vertices) max_parallelism = std::max(max_parallelism, v.parallelism);
  const int tms = std::max(1, scenario_.cluster.taskmanagers);
  const int slots = scenario_.cluster.slots_per_taskmanager > 0
                        ? scenario_.cluster.slots_per_taskmanager
                        : (max_parallelism + tms - 1) / tms;
  return (subtask / std::max(1, slots)) % tms;
}

TaskRef TaskExecutor::task_ref(int id) const {
  const Subtask& s = at(id);
  return {s.vertex, s.index, s.attempt};
}

std::vector<TaskRef> TaskExecutor::all_tasks() const {
  std::vector<TaskRef> out;
  out.reserve(subtasks_.size());
  for (const Subtask& s : subtasks_) out.push_back({s.vertex, s.index, s.attempt});
  return out;
}

std::string TaskExecutor::task_name(TaskRef t) const {
  const VertexSpec& v = scenario_.job.vertices[static_cast<std::size_t>(t.vertex)];
  return v.name + " (" + std::to_string(t.subtask + 1) + "/" + std::to_string(v.parallelism) + ")";
}

ExecutionState TaskExecutor::state(int vertex, int subtask) const {
  return at(vertex_first_[static_cast<std::size_t>(vertex)] + subtask).state;
}

std::vector<ExecutionState> TaskExecutor::states() const {
  std::vector<ExecutionState> out;
  for (const Subtask& s : subtasks_) out.push_back(s.state);
  return out;
}

bool TaskExecutor::is_finished(TaskRef t) const {
  return at(vertex_first_[static_cast<std::size_t>(t.vertex)] + t.subtask).state ==
         ExecutionState::finished;
}

std::optional<CheckpointCoordinatorGateway::PlanFailure> TaskExecutor::checkpoint_plan_failure(
    bool after_tasks_finish) const {
  // DefaultCheckpointPlanCalculator.calculateCheckpointPlan: finished tasks without FLIP-147
  // fail the plan; then checkTasksStarted over the tasks to wait for, which are every task
  // that has not FINISHED (not only the sources), in topological order.
  const auto finished = [](const Subtask& s) { return s.state == ExecutionState::finished; };
  if (!after_tasks_finish && std::any_of(subtasks_.begin(), subtasks_.end(), finished))
    return CheckpointCoordinatorGateway::PlanFailure{};
  for (const Subtask& s : subtasks_)
    if (!finished(s) && s.state != ExecutionState::running)
      return CheckpointCoordinatorGateway::PlanFailure{task_name({s.vertex, s.index, s.attempt})};
  return std::nullopt;
}

std::int64_t TaskExecutor::total_source_position() const {
  return source_position(all_subtask_ids());
}

std::int64_t TaskExecutor::source_position(const std::vector<int>& ids) const {
  std::int64_t total = 0;
  for (int id : ids)
    if (is_source_task(at(id).vertex)) total += at(id).position;
  return total;
}

std::int64_t TaskExecutor::records_received_by_sinks() const {
  std::int64_t total = 0;
  for (const Subtask& s : subtasks_)
    if (s.outputs.empty() && !is_source_task(s.vertex)) total += s.records_in;
  return total;
}

bool TaskExecutor::back_pressured(TaskRef t) const {
  return at(vertex_first_[static_cast<std::size_t>(t.vertex)] + t.subtask).waiting_output;
}

void TaskExecutor::set_state(Subtask& s, ExecutionState to) {
  const ExecutionState from = s.state;
  if (from == to) return;
  if (from == ExecutionState::running) {
    tasks_.account(s);  // close the time series up to now
    s.left_running = sim_.now();
  }
  s.state = to;
  // Task.releaseResources: a task that ends gives its network buffers back.
  if (to == ExecutionState::canceled || to == ExecutionState::failed ||
      to == ExecutionState::finished)
    network_.release_buffers(subtask_id({s.vertex, s.index, s.attempt}));
  observer_.task_state_changed(sim_.now(), {s.vertex, s.index, s.attempt}, from, to);
}

void TaskExecutor::finish() {
  flush_partial_samples();
  std::fill(epochs_.begin(), epochs_.end(), ++generation_);
  for (Subtask& s : subtasks_) {
    if (s.state == ExecutionState::running) set_state(s, ExecutionState::finished);
    s.busy = false;
  }
  running_ = 0;
  listener_.all_tasks_terminal();
}

void TaskExecutor::stall_taskmanager(int tm, SimTime from, Duration length) {
  for (const Subtask& s : subtasks_)
    if (s.taskmanager == tm) add_stall(s.vertex, s.index, from, length);
}

std::vector<TaskRef> TaskExecutor::tasks_on(int tm) const {
  std::vector<TaskRef> on;
  for (const Subtask& s : subtasks_)
    if (s.taskmanager == tm) on.push_back({s.vertex, s.index, s.attempt});
  return on;
}

void TaskExecutor::fire_timers(int v, std::int64_t count, Duration cost,
                               bool interruptible_operator) {
  // InternalTimerServiceImpl.tryAdvanceWatermark checks mailboxExecutor::shouldInterrupt after
  // each timer when interruptible timers apply: 1.20+, the flag, unaligned checkpoints and an
  // operator that opts in (useInterruptibleTimers). Then a checkpoint's mail runs between two
  // timers instead of after the burst.
  const CheckpointingConfig& c = checkpointing_;
  const bool yields = scenario_.flink.version >= FlinkVersion::v1_20 && c.interruptible_timers &&
                      c.unaligned && interruptible_operator;
  const double total = static_cast<double>(count) * static_cast<double>(cost);
  const Duration length = total >= 1e18 ? static_cast<Duration>(1e18) : static_cast<Duration>(total);
  const int first = vertex_first_[static_cast<std::size_t>(v)];
  for (int i = 0; i < scenario_.job.vertices[static_cast<std::size_t>(v)].parallelism; ++i)
    if (at(first + i).state == ExecutionState::running) {
      // From 1.18 (FLINK-31370) a cancelled task stops firing after the current timer; 1.17
      // fires every due timer first.
      run_long_mail(first + i, length,
                    "firing " + std::to_string(count) + " timers (" + std::to_string(count) +
                        " x " + duration_text(cost) + ")",
                    false, scenario_.flink.version >= FlinkVersion::v1_18);
      at(first + i).mail_yields_to_checkpoint = yields;
    }
}

void TaskExecutor::run_long_mail(int id, Duration length, std::string call, bool commit,
                                 bool interruptible) {
  tasks_.run_long_mail(id, length);
  Subtask& s = at(id);
  s.mail_call = std::move(call);
  s.mail_commit = commit;
  s.mail_uninterruptible = !interruptible;
  s.mail_yields_to_checkpoint = false;
}

void TaskExecutor::run_on_task_thread(int vertex, int index, Duration length, std::string call,
                                      bool interruptible) {
  const int id = vertex_first_[static_cast<std::size_t>(vertex)] + index;
  if (at(id).state == ExecutionState::running)
    run_long_mail(id, length, std::move(call), false, interruptible);
}

void TaskExecutor::call_returned(int vertex, int index) {
  const int id = vertex_first_[static_cast<std::size_t>(vertex)] + index;
  if (at(id).state == ExecutionState::running) tasks_.connector_call_returned(id);
}

void TaskExecutor::end_input(int id) {
  Subtask& s = at(id);
  if (s.state != ExecutionState::running || s.final_checkpoint_min >= 0) return;
  // StreamTask.afterInvoke -> endData: with checkpoints after tasks finish the task waits for a
  // checkpoint triggered after the end of its data to complete (finalCheckpointMinId), taking
  // part in it as a running task; without, or without checkpointing, it finishes now.
  if (checkpointing_.checkpoints_after_tasks_finish && checkpointing_.interval) {
    s.final_checkpoint_min = s.last_checkpoint_taken + 1;
    return;
  }
  finish_subtask(id);
}

void TaskExecutor::maybe_end_input(int id) {
  const Subtask& s = at(id);
  if (s.inputs.empty() || s.finished_inputs < static_cast<int>(s.inputs.size())) return;
  for (int c : s.inputs)
    if (channel(c).received_size() > 0) return;  // data before the EndOfPartition is still read
  end_input(id);
}

void TaskExecutor::finish_subtask(int id) {
  // The task emits EndOfPartition on every output and FINISHES. Its consumers count the channel
  // as ended (they still read the other channels).
  Subtask& s = at(id);
  if (s.state != ExecutionState::running) return;
  set_state(s, ExecutionState::finished);
  s.final_checkpoint_min = -1;
  std::vector<int> consumers;
  for (const OutputGroup& g : s.outputs)
    for (int c : g.channels) {
      Channel& ch = network_.channels_[static_cast<std::size_t>(c)];
      if (ch.finished) continue;
      ch.finished = true;
      ++at(ch.consumer).finished_inputs;
      barriers_.end_of_partition(c);
      consumers.push_back(ch.consumer);
    }
  for (int consumer : consumers) maybe_end_input(consumer);
  const bool all_finished = std::all_of(subtasks_.begin(), subtasks_.end(), [](const Subtask& t) {
    return t.state == ExecutionState::finished;
  });
  if (all_finished) listener_.all_tasks_terminal();
}

std::optional<TaskExecutor::ChannelStats> TaskExecutor::channel_stats(TaskRef from,
                                                                    TaskRef to) const {
  const int c = channel_between(from, to);
  if (c < 0) return std::nullopt;
  const Channel& ch = channel(c);
  ChannelStats st{ch.backlog, static_cast<int>(ch.received_size()), ch.credits,
                  ch.floating, ch.blocked, ch.local};
  for (const NetworkBuffer& b : network_.subpartition(ch)) {
    if (b.is_data()) st.backlog_bytes += b.bytes;
    if (b.kind() == Buffer::Kind::barrier) st.barrier_queued = true;
  }
  return st;
}

int TaskExecutor::channel_between(TaskRef from, TaskRef to) const {
  const int p = vertex_first_[static_cast<std::size_t>(from.vertex)] + from.subtask;
  const int q = vertex_first_[static_cast<std::size_t>(to.vertex)] + to.subtask;
  for (int c : at(q).inputs)
    if (channel(c).producer == p) return c;
  return -1;
}

bool TaskExecutor::track_channel_queue(TaskRef from, TaskRef to) {
  const int c = channel_between(from, to);
  if (c >= 0) network_.track_queue(c);
  return c >= 0;
}

std::optional<TaskExecutor::ChannelQueueStats> TaskExecutor::channel_queue_stats(TaskRef from,
                                                                              TaskRef to) const {
  const int c = channel_between(from, to);
  const QueueStatistics* q = c >= 0 ? network_.queue_statistics(c) : nullptr;
  if (!q) return std::nullopt;
  const double now = static_cast<double>(sim_.now() - q->since);
  const double integral = q->occupancy_integral + static_cast<double>(q->occupancy) *
                                                      static_cast<double>(sim_.now() - q->occupancy_since);
  ChannelQueueStats st;
  st.consumed = q->consumed;
  st.mean_sojourn_seconds =
      q->consumed > 0 ? q->sojourn_total / static_cast<double>(q->consumed) / 1e9 : 0;
  st.mean_buffers = now > 0 ? integral / now : 0;
  st.throughput_per_second = now > 0 ? static_cast<double>(q->consumed) / (now / 1e9) : 0;
  return st;
}

std::int64_t TaskExecutor::records_in_flight() const {
  std::int64_t total = 0;
  for (const Subtask& s : subtasks_)
    for (const OutputGroup& g : s.outputs)
      if (g.round_robin())  // written, not yet in a builder
        total += g.written - std::accumulate(g.taken.begin(), g.taken.end(), std::int64_t{0});
  for (const Channel& c : network_.channels_) {
    total += c.open_records;
    for (const ConstChannelQueue& q : {network_.received(c), network_.subpartition(c)})
      for (const NetworkBuffer& b : q)
        if (b.is_data()) total += b.records;
  }
  return total;  // a buffer being processed already counts as received
}

std::int64_t TaskExecutor::buffer_size(TaskRef from, TaskRef to) const {
  const int c = channel_between(from, to);
  return c < 0 ? 0 : network_.buffer_size(channel(c));
}

void TaskExecutor::flush_samples() {
  for (Subtask& s : subtasks_) tasks_.account(s);
}

void TaskExecutor::flush_partial_samples() { flush_partial_samples(all_subtask_ids()); }

void TaskExecutor::flush_partial_samples(const std::vector<int>& ids) {
  // The attempts end: their last, partial sample periods are reported too.
  for (int id : ids) {
    Subtask& s = at(id);
    tasks_.account(s);
    const Duration covered = s.sample.busy + s.sample.back_pressured + s.sample.idle;
    if (scenario_.sample_period <= 0 || s.state != ExecutionState::running || covered <= 0)
      continue;
    s.sample.start = s.sample_start;
    s.sample.period = covered;
    s.sample.input_buffers = 0;
    for (int c : s.inputs) s.sample.input_buffers += static_cast<int>(channel(c).received_size());
    s.sample.output_buffers = s.partition_buffers;
    observer_.task_sample(sim_.now(), {s.vertex, s.index, s.attempt}, s.sample);
    s.sample = TaskSample{};
  }
}

std::int64_t TaskExecutor::upload_remaining(TaskRef t) const {
  const Subtask& s = at(vertex_first_[static_cast<std::size_t>(t.vertex)] + t.subtask);
  return snapshots_.upload_remaining(s.upload_token);
}

bool TaskExecutor::has_no_partition(const Subtask& s) const {
  const VertexSpec& v = vertex(s);
  const Source* reader = source(s.vertex);
  return is_source_task(s.vertex) && (!reader || reader->reads_partitions()) &&
         v.partitions > 0 && s.index >= v.partitions;
}

// ---------------------------------------------------------------------------------------------
// Lifecycle

std::vector<int> TaskExecutor::all_subtask_ids() const {
  std::vector<int> ids(subtasks_.size());
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int>(i);
  return ids;
}

std::vector<std::pair<int, int>> TaskExecutor::channel_ends() const {
  std::vector<std::pair<int, int>> ends;
  ends.reserve(network_.channels_.size());
  for (const Channel& c : network_.channels_) ends.emplace_back(c.producer, c.consumer);
  return ends;
}

bool TaskExecutor::is_current_attempt(TaskRef t) const {
  return at(subtask_id(t)).attempt == t.attempt;
}

std::vector<char> TaskExecutor::membership(const std::vector<int>& ids) const {
  std::vector<char> in(subtasks_.size(), 0);
  for (int id : ids) in[static_cast<std::size_t>(id)] = 1;
  return in;
}

void TaskExecutor::new_attempts_of(const std::vector<int>& ids) {
  ++generation_;
  for (int id : ids) epochs_[static_cast<std::size_t>(id)] = generation_;
  const std::vector<char> in = membership(ids);
  snapshots_.reset(in);
  network_.clear_network(in);  // in-flight data is lost with the old attempts
  running_ = 0;
  for (std::size_t id = 0; id < subtasks_.size(); ++id)
    if (!in[id] && subtasks_[id].state == ExecutionState::running) ++running_;
}

void TaskExecutor::deploy(const CompletedCheckpoint* restored, const std::vector<int>& ids,
                          bool global) {
  new_attempts_of(ids);
  const ClusterSpec& cluster = scenario_.cluster;
  // A global recovery resets the operator coordinators to the checkpoint; a regional one does
  // not (SchedulerBase.restoreState: restoreLatestCheckpointedStateToSubtasks restores with
  // OperatorCoordinatorRestoreBehavior.SKIP and only notifies subtaskReset, which gives a
  // SourceCoordinator's enumerator the subtask's splits back).
  if (global)
    for (auto& c : connectors_.vertices)
      if (c.source) c.source->restart_enumerator(sim_.now());
  for (int i : ids) {
    const auto id = static_cast<std::size_t>(i);
    Subtask& s = subtasks_[id];
    const TaskSnapshot* state = restored_state(restored, s.vertex, s.index);
    if (Source* reader = source(s.vertex)) {
      ReaderAttempt attempt;
      attempt.index = s.index;
      attempt.previous_attempt = s.attempt;
      attempt.previous_left_running = s.left_running;
      attempt.previous_position = s.position;
      attempt.has_split = !has_no_partition(s);
      attempt.configured_rate = tasks_.configured_rate(s.vertex);
      attempt.restored = restored;
      attempt.state = state;
      reader->deploy_reader(attempt);
    }
    network_.release_buffers(i);  // (an attempt that never ended, e.g. after a finish)
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
      if (g.round_robin()) network_.reset_round_robin(fresh, g, static_cast<std::size_t>(s.index));
      std::fill(g.carry.begin(), g.carry.end(), 0.0);
    }
    fresh.state_size = vertex(s).state_size;
    fresh.flushed_state_size = fresh.state_size;  // the starting state is on disk
    fresh.restored_checkpoint = restored ? restored->id : 0;
    if (state) {
      fresh.position = state->source_position;
      fresh.state_size = state->state_size;
      fresh.confirmed_state_size = state->state_size;  // increments build on it
      fresh.flushed_state_size = state->state_size;    // restored SST files
    }
    s = fresh;
    for (const auto& sink : sinks(s.vertex)) sink->deploy_writer(s.index, state, s.restored_checkpoint);
    for (const auto& f : functions(s.vertex)) f->open(s.index);
    set_state(s, ExecutionState::scheduled);
    // Restore reads the state back from checkpoint storage.
    const double bandwidth = std::max(1.0, cluster.checkpoint_storage.bandwidth_bytes_per_second);
    s.restore_time =
        restored ? cluster.checkpoint_storage.latency.median +
                       static_cast<Duration>(static_cast<double>(s.state_size) / bandwidth * 1e9)
                 : 0;
    // A TaskManager that shut down offers its slots again only when it is back: the execution
    // waits for its slot in SCHEDULED.
    const Duration slot_wait =
        std::max<Duration>(0, taskmanager_back_[static_cast<std::size_t>(s.taskmanager)] - sim_.now());
    if (slot_wait > 0)
      sim_.schedule_in(slot_wait, this, kStateTransition,
                       arg(i) | (static_cast<std::uint64_t>(ExecutionState::deploying) << 24));
    else
      deploy(i);
  }
}

void TaskExecutor::deploy(int id) {
  Subtask& s = at(id);
  set_state(s, ExecutionState::deploying);
  const auto state_arg = [&](ExecutionState to) {
    return arg(id) | (static_cast<std::uint64_t>(to) << 24);
  };
  const Duration deploy_time = scenario_.cluster.deploy_time;
  sim_.schedule_in(deploy_time, this, kStateTransition, state_arg(ExecutionState::initializing));
  sim_.schedule_in(deploy_time + s.restore_time, this, kStateTransition,
                   state_arg(ExecutionState::running));
}

void TaskExecutor::cancel(const std::vector<int>& ids) {
  flush_partial_samples(ids);  // the time series sees the queues before they are dropped
  std::map<int, Stuck> stuck;
  for (int id : ids) {
    const Subtask& s = at(id);
    for (const auto& sink : sinks(s.vertex)) sink->cancel(s.index);
    for (const auto& f : functions(s.vertex)) f->close(s.index);
    // Task.cancelExecution starts its canceler threads for INITIALIZING and RUNNING tasks.
    if (s.state == ExecutionState::running || s.state == ExecutionState::initializing)
      if (Stuck st = stuck_in_call(s); st.until > sim_.now()) stuck[id] = std::move(st);
  }
  new_attempts_of(ids);
  bool any = false;
  for (int i : ids) {
    const auto id = static_cast<std::size_t>(i);
    Subtask& s = subtasks_[id];
    s.busy = s.waiting_output = s.emission_scheduled = s.wake_scheduled = s.flush_scheduled = false;
    s.pending_triggers.clear();
    if (s.state == ExecutionState::canceled || s.state == ExecutionState::finished ||
        s.state == ExecutionState::failed || s.state == ExecutionState::created)
      continue;
    set_state(s, ExecutionState::canceling);
    any = true;
    if (const auto it = stuck.find(i); it != stuck.end()) {
      cancel_stuck(i, it->second);
      continue;
    }
    sim_.schedule_in(rpc_delay(static_cast<int>(id), true), this, kStateTransition,
                     arg(static_cast<int>(id)) |
                         (static_cast<std::uint64_t>(ExecutionState::canceled) << 24));
  }
  if (!any) listener_.all_tasks_terminal();
}

TaskExecutor::Stuck TaskExecutor::stuck_in_call(const Subtask& s) const {
  Stuck out;
  const SimTime now = sim_.now();
  if (now < s.mail_busy_until && s.mail_uninterruptible) {
    out.until = s.mail_busy_until;
    out.call = s.mail_call;
  }
  for (const StreamTask::Stall& st : tasks_.stalls(s.vertex))
    if (st.speed == 0 && !st.interruptible && st.covers(s, now) && st.until > out.until) {
      out.until = st.until;
      out.call = "a user call that ignores interrupts (stalled since " +
                 std::to_string(core::to_millis(st.from)) + " ms)";
    }
  return out;
}

void TaskExecutor::cancel_stuck(int id, const Stuck& stuck) {
  // TaskInterrupter: every task.cancellation.interval a warning with the thread's stack and
  // another interrupt; TaskCancelerWatchDog: after task.cancellation.timeout, a fatal error.
  const Duration interval = std::max<Duration>(core::kMillisecond, scenario_.flink.task_cancellation_interval);
  const Duration timeout = scenario_.flink.task_cancellation_timeout;
  const SimTime now = sim_.now();
  const bool fatal = timeout > 0 && (stuck.until == core::kNever || stuck.until > now + timeout);
  const SimTime end = fatal ? now + timeout : stuck.until;
  stuck_[id] = stuck;
  for (SimTime t = now + interval; t < end && t - now <= 100 * interval; t += interval)
    sim_.schedule_at(t, this, kCancelInterrupt, arg(id));
  if (fatal)
    sim_.schedule_at(end, this, kCancelWatchdog, arg(id));
  else if (stuck.until != core::kNever)  // the call returned: the invokable ends
    sim_.schedule_at(stuck.until + rpc_delay(id, true), this, kStateTransition,
                     arg(id) | (static_cast<std::uint64_t>(ExecutionState::canceled) << 24));
}

void TaskExecutor::taskmanager_fatal_error(int tm) {
  // The process exits about 10 s later (its shutdown blocks on the stuck task until a 10 s
  // timeout); the JobManager hears of it at once, by the disconnect the TaskExecutor sends.
  auto& back = taskmanager_back_[static_cast<std::size_t>(tm)];
  back = std::max(back, sim_.now() + core::seconds(10) + scenario_.cluster.taskmanager_restart);
  bool canceled = false;
  for (std::size_t id = 0; id < subtasks_.size(); ++id) {
    Subtask& s = subtasks_[id];
    if (s.taskmanager != tm || s.state != ExecutionState::canceling) continue;
    stuck_.erase(static_cast<int>(id));
    set_state(s, ExecutionState::canceled);
    canceled = true;
  }
  listener_.taskmanager_shut_down(tm);
  if (canceled && std::none_of(subtasks_.begin(), subtasks_.end(), [](const Subtask& t) {
        return t.state == ExecutionState::canceling;
      }))
    listener_.all_tasks_terminal();
}

void TaskExecutor::add_stall_until_restart(int v, std::optional<int> subtask,
                                           std::optional<Duration> length, double speed,
                                           bool interruptible) {
  const int parallelism = scenario_.job.vertices[static_cast<std::size_t>(v)].parallelism;
  for (int i = 0; i < parallelism; ++i) {
    if (subtask && *subtask != i) continue;
    StreamTask::Stall st;
    st.from = sim_.now();
    st.until = length ? sim_.now() + *length : core::kNever;
    st.subtask = i;
    st.speed = speed;
    st.interruptible = interruptible;
    // A subtask between attempts (not deployed yet, or going away) is stalled in its next one.
    const Subtask& t = at(vertex_first_[static_cast<std::size_t>(v)] + i);
    const bool between = t.state == ExecutionState::created ||
                         t.state == ExecutionState::canceling ||
                         t.state == ExecutionState::canceled || t.state == ExecutionState::failed;
    st.attempt = between ? t.attempt + 1 : t.attempt;
    tasks_.add_stall(v, st);
  }
}

void TaskExecutor::add_stall(int v, std::optional<int> subtask, SimTime from,
                             std::optional<Duration> length, double speed, bool interruptible) {
  StreamTask::Stall st;
  st.from = from;
  st.until = length ? from + *length : core::kNever;
  st.subtask = subtask;
  st.speed = speed;
  st.interruptible = interruptible;
  tasks_.add_stall(v, st);
}

// ---------------------------------------------------------------------------------------------
// RPCs from the JobManager

void TaskExecutor::trigger_checkpoint(std::int64_t id, SimTime timestamp,
                                      const CheckpointProperties& props) {
  Buffer barrier;
  barrier.kind = Buffer::Kind::barrier;
  barrier.checkpoint_id = id;
  barrier.timestamp = timestamp;
  barrier.savepoint = props.is_savepoint();
  const CheckpointOptions options = CheckpointOptions::for_config(props, checkpointing_);
  barrier.unaligned = options.unaligned;
  barrier.aligned = options.aligned;
  barrier.timeoutable = options.timeoutable;
  barrier.timeout = options.timeout;
  barrier.last_from_source = props.synchronous;
  barrier.full = props.is_savepoint() || props.type == SnapshotType::full_checkpoint;
  // The source coordinators' checkpoint (SourceCoordinator.checkpointCoordinator).
  for (auto& c : connectors_.vertices)
    if (c.source) c.source->checkpoint_triggered(id);
  if (hybrid_.replay_checkpoint(barrier)) return;  // network: hybrid, a steady job
  for (std::size_t i = 0; i < subtasks_.size(); ++i) {
    // DefaultCheckpointPlanCalculator.calculateAfterTasksFinished: the running tasks whose every
    // input ended are triggered like sources (no barrier can reach them).
    const Subtask& t = subtasks_[i];
    const bool inputs_ended =
        !t.inputs.empty() && t.finished_inputs == static_cast<int>(t.inputs.size());
    if ((!is_source_task(t.vertex) && !inputs_ended) || t.state == ExecutionState::finished)
      continue;
    trigger_rpcs_.push_back({static_cast<int>(i), epochs_[i], barrier});
    sim_.schedule_in(rpc_delay(static_cast<int>(i), true), this, kTriggerArrives,
                     trigger_rpcs_.size() - 1);
  }
}

void TaskExecutor::notify_source_coordinators(std::int64_t id, bool complete) {
  // Every FLIP-27 source has a SourceCoordinator; its notifyCheckpointComplete/Aborted logs
  // "Marking checkpoint {} as completed/aborted for source {}.".
  for (const VertexSpec& v : scenario_.job.vertices) {
    const bool flip27 = !v.legacy_source && (!v.cdc_source || v.cdc_source->incremental_snapshot);
    if (v.input || !flip27) continue;
    observer_.source_coordinator_notified(sim_.now(), id,
                                          v.operators.empty() ? v.name : v.operators.front(),
                                          complete);
  }
  // A sink's coordinator submits its action (Hudi: the commit, or the abort of its instant).
  for (auto& c : connectors_.vertices)
    for (auto& sink : c.sinks) {
      if (complete)
        sink->coordinator_checkpoint_complete(id);
      else
        sink->coordinator_checkpoint_aborted(id);
    }
}

std::int64_t TaskExecutor::captured_tables(int vertex) const {
  // The task's own source's tables, else those of the job's first source that has a list (the
  // pipeline's CDC source, for a sink of a whole-database sync).
  const auto count = [](const Source* s) -> std::int64_t {
    const std::vector<std::string>* tables = s ? s->tables() : nullptr;
    return tables ? static_cast<std::int64_t>(tables->size()) : -1;
  };
  if (const std::int64_t own = count(source(vertex)); own >= 0) return own;
  for (const auto& c : connectors_.vertices)
    if (const std::int64_t n = count(c.source.get()); n >= 0) return n;
  return 0;
}

CostLaw::Inputs TaskExecutor::cost_inputs(const Subtask& s) const {
  CostLaw::Inputs in;
  in.completed_checkpoints = completed_checkpoints_;
  in.bytes_since_checkpoint = s.bytes_since_checkpoint;
  in.state_bytes = s.state_size;
  in.since_start = s.state == ExecutionState::running ? sim_.now() - s.running_since : 0;
  in.tables = captured_tables(s.vertex);
  return in;
}

void TaskExecutor::notify_checkpoint_complete(std::int64_t id) {
  ++completed_checkpoints_;
  // OperatorCoordinator.notifyCheckpointComplete on the JobManager first.
  for (auto& c : connectors_.vertices)
    if (c.source) c.source->notify_checkpoint_complete(id);
  for (std::size_t i = 0; i < subtasks_.size(); ++i) {
    notify_rpcs_.push_back({static_cast<int>(i), epochs_[i], id, true});
    sim_.schedule_in(rpc_delay(static_cast<int>(i), true), this, kNotifyArrives,
                     notify_rpcs_.size() - 1);
  }
}

void TaskExecutor::notify_checkpoint_aborted(std::int64_t id) {
  for (std::size_t i = 0; i < subtasks_.size(); ++i) {
    notify_rpcs_.push_back({static_cast<int>(i), epochs_[i], id, false});
    sim_.schedule_in(rpc_delay(static_cast<int>(i), true), this, kNotifyArrives,
                     notify_rpcs_.size() - 1);
  }
}

Duration TaskExecutor::coordinator_busy(int vertex) const {
  const Source* s = source(vertex);
  Duration busy = s ? s->coordinator_busy(sim_.now()) : 0;
  for (const auto& sink : sinks(vertex)) busy = std::max(busy, sink->coordinator_busy(sim_.now()));
  return busy;
}

// ---------------------------------------------------------------------------------------------
// Timeline operations on tasks and external systems

void TaskExecutor::set_source_rate(int v, double records_per_second) {
  tasks_.set_source_rate(v, records_per_second);
}

void TaskExecutor::hold_checkpoint_lock(int v, std::optional<Duration> length) {
  // A legacy source entering a branch that takes the checkpoint lock (DebeziumChangeConsumer's
  // snapshot branch, field B2): triggers wait until it lets go.
  const int first = vertex_first_[static_cast<std::size_t>(v)];
  for (int i = 0; i < scenario_.job.vertices[static_cast<std::size_t>(v)].parallelism; ++i) {
    Subtask& s = at(first + i);
    if (length)
      s.lock_held_until = sim_.now() + *length;
    else
      s.lock_until_record = true;
  }
  if (length) tasks_.wake_vertex_at(v, sim_.now() + *length);
}

void TaskExecutor::system_action(const TimelineAction& action) {
  for (const auto& system : connectors_.systems) system->system_action(action);
}

void TaskExecutor::job_submitted() {
  snapshots_.job_submitted();
  for (const auto& system : connectors_.systems) system->job_submitted();
}

// ---------------------------------------------------------------------------------------------
// ConnectorContext

TaskRef TaskExecutor::task(int vertex, int index) const {
  return task_ref(vertex_first_[static_cast<std::size_t>(vertex)] + index);
}

void TaskExecutor::wake(int vertex, int index) {
  tasks_.wake(vertex_first_[static_cast<std::size_t>(vertex)] + index);
}

void TaskExecutor::restart_step(int vertex, int index) {
  Subtask& s = at(vertex_first_[static_cast<std::size_t>(vertex)] + index);
  s.busy_since = sim_.now();
  s.fractional_records = 0;
}

void TaskExecutor::switch_to_failed(int vertex, int index) {
  set_state(at(vertex_first_[static_cast<std::size_t>(vertex)] + index), ExecutionState::failed);
}

void TaskExecutor::report_failure(int vertex, int index, const std::string& exception_class,
                                  const std::string& message) {
  listener_.task_failed(task(vertex, index), exception_class, message);
}

void TaskExecutor::connector_event(ConnectorEvent::Kind kind, int vertex, int index,
                                   std::string table, std::string detail, std::int64_t rows) {
  ConnectorEvent e;
  e.kind = kind;
  e.task = task(vertex, index);
  e.table = std::move(table);
  e.detail = std::move(detail);
  e.rows = rows;
  if (const auto& cdc = scenario_.job.vertices[static_cast<std::size_t>(vertex)].cdc_source)
    e.dialect = cdc->dialect;
  observer_.connector_event(sim_.now(), e);
  using K = ConnectorEvent::Kind;
  if (kind == K::cdc_snapshot_started) listener_.connector_phase(vertex, ConnectorPhase::snapshot_started);
  if (kind == K::cdc_snapshot_finished) listener_.connector_phase(vertex, ConnectorPhase::snapshot_finished);
  if (kind == K::cdc_binlog_started) listener_.connector_phase(vertex, ConnectorPhase::stream_started);
}

std::optional<ConnectorException> TaskExecutor::connector_init_failure(int id) const {
  const Subtask& s = at(id);
  for (const auto& sink : sinks(s.vertex))
    if (auto failure = sink->init_failure(s.index, s.restored_checkpoint)) return failure;
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Events: RPCs arriving, task state transitions

void TaskExecutor::switch_to_running(int id) {
  Subtask& s = at(id);
  set_state(s, ExecutionState::running);
  s.running_since = sim_.now();
  s.accounted_until = sim_.now();
  // Sample periods are aligned to the run's clock so rows of all subtasks line up.
  if (scenario_.sample_period > 0)
    s.sample_start = sim_.now() - sim_.now() % scenario_.sample_period;
  network_.start_debloating(id);
  // SingleInputGate.requestPartitions turns the recovered channels into remote ones with their
  // exclusive buffers; a request that does not fit surfaces at the next read.
  if (auto error = network_.request_exclusive_buffers(id)) {
    connector_failures_[id] = {"java.io.IOException", *error};
    sim_.schedule_in(rpc_delay(id, false), this, kConnectorFailed, arg(id));
  }
  if (Source* reader = source(s.vertex)) reader->reader_running(s.index);
  tasks_.wake(id);
  if (++running_ == num_subtasks()) listener_.all_tasks_running();
  if (vertex(s).legacy_source && has_no_partition(s)) end_input(id);
}

void TaskExecutor::on_event(std::uint32_t kind, std::uint64_t a) {
  switch (static_cast<Event>(kind)) {
    case kTriggerArrives: {
      const TriggerRpc rpc = trigger_rpcs_[a];
      if (rpc.generation != epoch(rpc.subtask)) return;  // the attempt it was sent to is gone
      Subtask& s = at(rpc.subtask);
      if (s.state != ExecutionState::running) {
        // StreamTask.triggerCheckpointAsync on a task that is not running declines.
        listener_.decline_checkpoint(
            rpc.barrier.checkpoint_id, {s.vertex, s.index, s.attempt},
            CheckpointException{CheckpointFailureReason::checkpoint_declined_task_not_ready});
        return;
      }
      s.pending_triggers.push_back(rpc.barrier);
      tasks_.yield_to_mail(rpc.subtask);  // FLIP-27: the mailbox is checked between records
      tasks_.wake(rpc.subtask);
      return;
    }
    case kNotifyArrives: {
      const NotifyRpc& rpc = notify_rpcs_[a];
      Subtask& s = at(rpc.subtask);
      if (rpc.generation != epoch(rpc.subtask) || s.state != ExecutionState::running) return;
      // notifyCheckpointAborted does not touch the barrier handler: aligned inputs stay blocked
      // (R5); a checkpoint not yet taken here is remembered and becomes a cancel marker.
      if (!rpc.complete && rpc.id > s.last_checkpoint_taken) s.aborted.insert(rpc.id);
      if (rpc.complete) {
        // The sinks' committers commit (notifyCheckpointComplete) on the task thread, then the
        // operators' own notify work; an exception a committer throws fails the task after it.
        Duration commit = vertex(s).notify_complete.at(cost_inputs(s));
        std::optional<ConnectorException> thrown;
        for (const auto& sink : sinks(s.vertex)) {
          Sink::Committed c = sink->notify_checkpoint_complete(s.index, rpc.id);
          commit += c.took;
          if (c.thrown && !thrown) thrown = std::move(c.thrown);
        }
        if (thrown) {
          connector_failures_[rpc.subtask] = *thrown;
          sim_.schedule_in(commit, this, kConnectorFailed, arg(rpc.subtask));
        }
        if (commit > 0) {
          std::string law = vertex(s).notify_complete.describe(cost_inputs(s));
          if (commit > vertex(s).notify_complete.at(cost_inputs(s)))
            law += " and the sink's commit";
          run_long_mail(rpc.subtask, commit,
                        "notifyCheckpointComplete of checkpoint " + std::to_string(rpc.id) + " (" +
                            law + ")",
                        true, true);
        }
      }
      if (rpc.complete) {  // the snapshot is confirmed: later increments build on it
        auto it = s.snapshot_sizes.find(rpc.id);
        if (it != s.snapshot_sizes.end()) s.confirmed_state_size = it->second;
        s.snapshot_sizes.erase(s.snapshot_sizes.begin(), s.snapshot_sizes.upper_bound(rpc.id));
      }
      observer_.task_notified(sim_.now(), {s.vertex, s.index, s.attempt}, rpc.id, rpc.complete);
      // The final checkpoint of a task whose input ended completed: it finishes.
      if (rpc.complete && s.final_checkpoint_min >= 0 && rpc.id >= s.final_checkpoint_min)
        finish_subtask(rpc.subtask);
      return;
    }
    case kCancelInterrupt:
    case kCancelWatchdog: {  // TaskInterrupter's warning, or TaskCancelerWatchDog
      const int id = static_cast<int>(a & 0xffffffU);
      if ((a >> 32) != epoch(id) || at(id).state != ExecutionState::canceling) return;
      const Subtask& s = at(id);
      const bool watchdog = kind == kCancelWatchdog;
      const Duration after = watchdog ? scenario_.flink.task_cancellation_timeout
                                      : scenario_.flink.task_cancellation_interval;
      connector_event(watchdog ? ConnectorEvent::Kind::taskmanager_fatal_error
                               : ConnectorEvent::Kind::task_cancel_stuck,
                      s.vertex, s.index, {}, stuck_[id].call, core::to_millis(after) / 1000);
      if (watchdog) taskmanager_fatal_error(s.taskmanager);
      return;
    }
    case kConnectorFailed: {
      const int id = static_cast<int>(a & 0xffffffU);
      if ((a >> 32) != epoch(id)) return;
      Subtask& s = at(id);
      // (A task without state to restore may already have switched to RUNNING.)
      if (s.state != ExecutionState::deploying && s.state != ExecutionState::initializing &&
          s.state != ExecutionState::running)
        return;
      const auto it = connector_failures_.find(id);
      if (it == connector_failures_.end()) return;
      const ConnectorException failure = it->second;
      set_state(s, ExecutionState::failed);
      listener_.task_failed({s.vertex, s.index, s.attempt}, failure.exception_class,
                            failure.message);
      return;
    }
    case kStateTransition: {
      const int id = static_cast<int>(a & 0xffffffU);
      if ((a >> 32) != epoch(id)) return;
      const auto to = static_cast<ExecutionState>((a >> 24) & 0xffU);
      Subtask& s = at(id);
      if (to == ExecutionState::deploying && s.state == ExecutionState::scheduled) {
        deploy(id);  // its slot became available
      } else if (to == ExecutionState::initializing && s.state == ExecutionState::deploying) {
        // Task.doRun: setupPartitionsAndGates before INITIALIZING; a pool that does not fit
        // fails the task from DEPLOYING.
        if (auto error = network_.setup_partitions_and_gates(id)) {
          connector_failures_[id] = {"java.io.IOException", *error};
          sim_.schedule_in(rpc_delay(id, false), this, kConnectorFailed, arg(id));
          return;
        }
        set_state(s, to);
        if (auto failure = connector_init_failure(id)) {
          connector_failures_[id] = *failure;
          sim_.schedule_in(rpc_delay(id, false), this, kConnectorFailed, arg(id));
        }
      } else if (to == ExecutionState::running && s.state == ExecutionState::initializing) {
        switch_to_running(id);
      } else if (to == ExecutionState::canceled && s.state == ExecutionState::canceling) {
        stuck_.erase(id);
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
