// The TaskExecutors of the cluster as one object: they host every subtask of the job, take the
// JobMaster's RPCs (TaskExecutorGateway: submitTask, cancelTask, triggerCheckpoint,
// confirmCheckpoint, abortCheckpoint) and answer through JobMasterGateway (acknowledge and
// decline a checkpoint, task state updates). It owns the parts a subtask is made of and wires
// them together: network/ (result partitions, input gates, debloater), task/ (the task thread),
// checkpointing/ (barrier handler, subtask checkpoint coordinator) and the connectors behind
// connectors/connector.hpp. sim/model/README.md walks through them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/simulation.hpp"
#include "sim/model/checkpoint_coordinator.hpp"
#include "sim/model/checkpointing/barrier_handler.hpp"
#include "sim/model/checkpointing/subtask_checkpoint_coordinator.hpp"
#include "sim/model/config.hpp"
#include "sim/model/connectors/connector.hpp"
#include "sim/model/network/hybrid_network.hpp"
#include "sim/model/network/network.hpp"
#include "sim/model/observer.hpp"
#include "sim/model/task/stream_task.hpp"

namespace ckptsim::model {

// What the TaskExecutors report to the JobMaster.
class JobMasterGateway {
 public:
  virtual ~JobMasterGateway() = default;
  virtual void acknowledge_checkpoint(std::int64_t id, TaskRef task, const SubtaskAck& metrics,
                                      const TaskSnapshot& state) = 0;
  virtual void decline_checkpoint(std::int64_t id, TaskRef task, const CheckpointException&) = 0;
  virtual void all_tasks_running() = 0;
  virtual void all_tasks_terminal() = 0;  // every task CANCELED or FINISHED
  // A task failed with an exception from its code (a connector).
  virtual void task_failed(TaskRef, const std::string& /*exception_class*/,
                           const std::string& /*message*/) {}
  // A TaskManager shut down after a fatal error: it disconnected from the JobManager.
  virtual void taskmanager_shut_down(int /*tm*/) {}
  // A connector of task vertex `vertex` entered a phase (the timeline's `at-phase` anchors).
  virtual void connector_phase(int /*vertex*/, ConnectorPhase /*phase*/) {}
  // When the operator coordinator of `vertex`'s connector is free of the work queued so far
  // (a time before now: it is free).
  virtual SimTime coordinator_free_at(int /*vertex*/) { return 0; }
};

class TaskExecutor final : public core::EventHandler, private ConnectorContext {
 public:
  TaskExecutor(core::Simulation& sim, const Scenario& scenario, Observer& observer,
               JobMasterGateway& listener);

  int num_subtasks() const { return static_cast<int>(subtasks_.size()); }
  int num_vertices() const { return static_cast<int>(vertex_first_.size()); }
  std::vector<TaskRef> all_tasks() const;
  TaskRef task_ref(int subtask_id) const;
  int subtask_id(TaskRef t) const {
    return vertex_first_[static_cast<std::size_t>(t.vertex)] + t.subtask;
  }
  // "Source (1/2)": Flink's getTaskNameWithSubtaskIndex.
  std::string task_name(TaskRef t) const override;
  ExecutionState state(int vertex, int subtask) const override;
  std::vector<ExecutionState> states() const;
  std::optional<CheckpointCoordinatorGateway::PlanFailure> checkpoint_plan_failure(
      bool after_tasks_finish) const;
  bool is_finished(TaskRef t) const;
  // The checkpointing options of the current submission (barrier kinds, finished tasks).
  void set_checkpointing(const CheckpointingConfig& c) { checkpointing_ = c; }
  const CheckpointingConfig& checkpointing() const { return checkpointing_; }
  // Timeline operations on the task side.
  void stall_taskmanager(int tm, SimTime from, Duration length);
  std::vector<TaskRef> tasks_on(int tm) const;
  // Timeline: a deployed subtask's code throws (it switches to FAILED and the JobMaster learns).
  void fail_subtask(int vertex, int index, const std::string& exception_class,
                    const std::string& message) {
    const ExecutionState s = state(vertex, index);
    if (s == ExecutionState::deploying || s == ExecutionState::initializing ||
        s == ExecutionState::running)
      fail_task(vertex, index, exception_class, message);
  }
  void set_source_rate(int vertex, double records_per_second);
  // A legacy source takes the checkpoint lock until its next record (length: none) or for
  // `length`.
  void hold_checkpoint_lock(int vertex, std::optional<Duration> length);
  // Every subtask of `vertex` fires `count` timers at once, `cost` each (a window closing for
  // many keys): one long burst of work on the task thread.
  void fire_timers(int vertex, std::int64_t count, Duration cost, bool interruptible_operator);
  // How long the source coordinator of `vertex` is still busy (its checkpoint waits for it).
  Duration coordinator_busy(int vertex) const;
  // The TaskManager (0-based) a subtask runs on: Flink's default slot sharing puts subtask i of
  // every vertex into slot i; slots fill TaskManagers in order.
  int taskmanager_of(int vertex, int subtask) const;
  // Why a subtask has not acknowledged checkpoint `id` (diagnosis/wait_state.cpp).
  WaitState wait_state(TaskRef task, std::int64_t checkpoint_id) const;

  // Every subtask id, in order (the set a global failover restarts).
  std::vector<int> all_subtask_ids() const;
  // (producer, consumer) subtask ids of every channel: the links of the pipelined regions.
  std::vector<std::pair<int, int>> channel_ends() const;
  // Whether `t` is the current attempt of its subtask.
  bool is_current_attempt(TaskRef t) const;
  // Deploys a new attempt of the subtasks `ids` (ascending), restoring `restored` (nullptr = no
  // state); `global`: a global recovery, which also resets the operator coordinators.
  void deploy(const CompletedCheckpoint* restored, const std::vector<int>& ids, bool global);
  void deploy(const CompletedCheckpoint* restored) { deploy(restored, all_subtask_ids(), true); }
  // Cancels the subtasks `ids` (ascending; in-flight data on their channels is lost); the others
  // run on. all_tasks_terminal() follows once no subtask is CANCELING.
  void cancel(const std::vector<int>& ids);
  void cancel() { cancel(all_subtask_ids()); }
  // Finishes every subtask (after a stop-with-savepoint completed).
  void finish();

  // How long a message between the JobMaster and subtask `id`'s TaskExecutor takes from now: a
  // latency drawn from the cluster's distribution, but never before an earlier message of the
  // same direction to (or from) the same TaskManager, as Pekko delivers one sender's messages.
  Duration rpc_delay(int id, bool to_task);
  // JobManager -> TaskExecutor RPCs (arrive after the RPC latency).
  void trigger_checkpoint(std::int64_t id, SimTime timestamp, const CheckpointProperties& props);
  void notify_checkpoint_complete(std::int64_t id);
  void notify_checkpoint_aborted(std::int64_t id);
  // A running task whose every input channel ended (StreamTask.endData): see end_input.
  void maybe_end_input(int id);
  // What a task's cost laws grow with now (cost_law.hpp), and the checkpoints completed in the
  // run so far.
  CostLaw::Inputs cost_inputs(const Subtask& s) const;
  // The tables the vertex's source captures (else the job's first source with a table list).
  std::int64_t captured_tables(int vertex) const;
  std::int64_t completed_checkpoints() const { return completed_checkpoints_; }
  // The operator coordinators (FLIP-27 sources' SourceCoordinators, sinks' coordinators) learn
  // on the JobMaster's main thread that checkpoint `id` completed or aborted.
  void notify_source_coordinators(std::int64_t id, bool complete);

  // Timeline: an operation on an external system (Doris tables, load rejections).
  void system_action(const TimelineAction& action);
  // A (new) submission of the job: tools that run before it.
  void job_submitted();
  // Timeline: the vertex (or one subtask) stops processing from `from` for `length` (or ever).
  // `speed` > 0: a slow-down to that share of the speed instead of a stop.
  void add_stall(int vertex, std::optional<int> subtask, SimTime from,
                 std::optional<Duration> length, double speed = 0, bool interruptible = true);
  // A stall from now that only the current attempts suffer: it ends when the subtask restarts.
  void add_stall_until_restart(int vertex, std::optional<int> subtask,
                               std::optional<Duration> length, double speed = 0,
                               bool interruptible = true);
  // Records read by all sources so far (their positions), or by those of `ids`.
  std::int64_t total_source_position() const;
  std::int64_t source_position(const std::vector<int>& ids) const;
  // One channel as the network sees it (for tests and the diagnosis).
  struct ChannelStats {
    int backlog = 0;          // data buffers in the producer's subpartition
    int received = 0;         // buffers and events in the consumer's input channel
    int credits = 0;
    int floating = 0;
    bool blocked = false;
    bool local = false;
    std::int64_t backlog_bytes = 0;   // bytes of the data buffers in the subpartition
    bool barrier_queued = false;      // a barrier is in the subpartition
  };
  std::optional<ChannelStats> channel_stats(TaskRef from, TaskRef to) const;
  // Queueing statistics of a channel since track_channel_queue (data buffers from entering the
  // subpartition to being consumed): for Little's law and queueing oracles. Only tracked
  // channels keep them (a channel has no room for them otherwise); tracking starts after
  // deploy(), and false if there is no such channel.
  bool track_channel_queue(TaskRef from, TaskRef to);
  struct ChannelQueueStats {
    std::int64_t consumed = 0;
    double mean_sojourn_seconds = 0;
    double mean_buffers = 0;        // time-average data buffers in subpartition + input channel
    double throughput_per_second = 0;
  };
  std::optional<ChannelQueueStats> channel_queue_stats(TaskRef from, TaskRef to) const;
  int channel_between(TaskRef from, TaskRef to) const;  // its index, or -1
  bool back_pressured(TaskRef task) const;
  // Network statistics (for tests and benchmarks).
  std::uint64_t buffers_transferred() const { return network_.buffers_transferred(); }
  std::int64_t records_received_by_sinks() const;
  std::int64_t records_in_flight() const;
  // Records from source read to the end of their processing at a sink.
  const LatencyHistogram& end_to_end_latency() const { return tasks_.end_to_end_latency(); }
  // The hybrid network's skipped time (network: hybrid).
  const HybridNetwork& hybrid_network() const { return hybrid_; }
  HybridNetwork& hybrid_network() { return hybrid_; }
  // Closes every subtask's time accounting up to now (the end of a run).
  void flush_samples();
  // The same, also reporting the partial last period of every running subtask (of `ids`).
  void flush_partial_samples();
  void flush_partial_samples(const std::vector<int>& ids);
  // Where an unacknowledged subtask's upload stands (bytes left).
  std::int64_t upload_remaining(TaskRef task) const;
  // The buffer size the consumer of a channel currently asks for (debloating), in bytes.
  std::int64_t buffer_size(TaskRef from, TaskRef to) const;
  // The throughput its buffer debloater measured last (ThroughputCalculator), bytes per second.
  double debloat_throughput(TaskRef task) const {
    return at(vertex_first_[static_cast<std::size_t>(task.vertex)] + task.subtask)
        .debloat_throughput;
  }

  // --- For the parts (task_part.hpp) and the diagnosis.
  std::vector<Subtask> subtasks_;
  std::vector<int> vertex_first_;  // first subtask id of each vertex
  // The epoch of subtask `id`'s current attempt: events and RPCs carry it, and those of an
  // earlier attempt (one cancelled or replaced since) are ignored.
  std::uint32_t epoch(int id) const { return epochs_[static_cast<std::size_t>(id)]; }
  std::uint32_t generation(int vertex, int index) const override {
    return epoch(vertex_first_[static_cast<std::size_t>(vertex)] + index);
  }
  Network& network() { return network_; }
  const Network& network() const { return network_; }
  StreamTask& tasks() { return tasks_; }
  const StreamTask& tasks() const { return tasks_; }
  BarrierHandler& barriers() { return barriers_; }
  SubtaskCheckpointCoordinator& snapshots() { return snapshots_; }
  const SubtaskCheckpointCoordinator& snapshots() const { return snapshots_; }
  Source* source(int vertex) const {
    return connectors_.vertices[static_cast<std::size_t>(vertex)].source.get();
  }
  const std::vector<std::unique_ptr<Sink>>& sinks(int vertex) const {
    return connectors_.vertices[static_cast<std::size_t>(vertex)].sinks;
  }
  const std::vector<std::unique_ptr<UserFunction>>& functions(int vertex) const {
    return connectors_.vertices[static_cast<std::size_t>(vertex)].functions;
  }
  core::Simulation& sim() override { return sim_; }
  const Scenario& scenario() const override { return scenario_; }
  Observer& observer() { return observer_; }
  JobMasterGateway& listener() { return listener_; }
  // The subtask's state changes (observer informed, time accounting closed when it leaves
  // RUNNING).
  void set_state(Subtask& s, ExecutionState to);
  // A legacy source subtask without a partition: its run() returns and it FINISHES.
  bool has_no_partition(const Subtask& s) const;
  bool is_source_task(int vertex) const override;

  void on_event(std::uint32_t kind, std::uint64_t arg) override;
  // notifyCheckpointComplete/Aborted: a mail it runs on the task's thread shows on its own
  // (HybridNetwork's looks see the mail start); not where a notify-complete cost grows with the
  // data, which a skip grows only when it ends.
  bool quiet(std::uint32_t kind) const override {
    if (kind != kNotifyArrives) return false;
    for (const VertexSpec& v : scenario_.job.vertices)
      if (v.notify_complete.per_mb_since_checkpoint != 0 || v.notify_complete.per_mb_state != 0)
        return false;
    return true;
  }
  // Whether a quiet event (a notification's arrival) may run a mail on a task's thread: a
  // notify-complete cost or a sink's commit (HybridNetwork, which skips no job with a sink, asks).
  // Otherwise it changes nothing a thread does.
  bool quiet_event_runs_mail() const {
    for (int v = 0; v < static_cast<int>(scenario_.job.vertices.size()); ++v)
      if (scenario_.job.vertices[static_cast<std::size_t>(v)].notify_complete != CostLaw{} ||
          !sinks(v).empty())
        return true;
    return false;
  }

 private:
  enum Event : std::uint32_t { kTriggerArrives, kNotifyArrives, kStateTransition, kConnectorFailed,
                               kCancelInterrupt, kCancelWatchdog };
  // Where a cancelled task's thread is stuck in a call that ignores interrupts: until when
  // (kNever: for ever) and the call; `until` <= now when it is not.
  struct Stuck {
    SimTime until = 0;
    std::string call;
  };
  Stuck stuck_in_call(const Subtask& s) const;
  // Task.cancelExecution of a task whose thread is stuck: TaskInterrupter's warnings, and
  // CANCELED when the call returns, or TaskCancelerWatchDog's fatal error first.
  void cancel_stuck(int id, const Stuck& stuck);
  // TaskManagerRunner.onFatalError: the TaskManager shuts down; its slots come back after
  // its process exits and cluster.taskmanager-restart.
  void taskmanager_fatal_error(int tm);
  // SCHEDULED -> DEPLOYING once its slot is there, then INITIALIZING and RUNNING.
  void deploy(int id);
  struct TriggerRpc {
    int subtask = 0;
    std::uint32_t generation = 0;
    Buffer barrier;
  };
  struct NotifyRpc {
    int subtask = 0;
    std::uint32_t generation = 0;
    std::int64_t id = 0;
    bool complete = false;
  };
  Subtask& at(int id);
  const Subtask& at(int id) const;
  const Channel& channel(int id) const;
  const VertexSpec& vertex(const Subtask& s) const;
  std::uint64_t arg(int subtask) const;
  std::vector<char> membership(const std::vector<int>& ids) const;  // per subtask: in `ids`
  // The subtasks `ids` get new attempt epochs; their checkpoint uploads and the data on their
  // channels are dropped.
  void new_attempts_of(const std::vector<int>& ids);
  // The task's input ended (a source's run() returned, or EndOfPartition on every input
  // channel): it FINISHES now, or with checkpoints after tasks finish (FLIP-147) after its final
  // checkpoint completes.
  void end_input(int id);
  // FINISHED: EndOfPartition on every output; consumers whose every input ended end theirs; the
  // job FINISHES when every task has.
  void finish_subtask(int id);
  void switch_to_running(int id);
  std::optional<ConnectorException> connector_init_failure(int id) const;
  // ConnectorContext
  TaskRef task(int vertex, int index) const override;
  void wake(int vertex, int index) override;
  void restart_step(int vertex, int index) override;
  void run_on_task_thread(int vertex, int index, Duration length, std::string call,
                          bool interruptible) override;
  // A long mail on subtask `id`'s thread (`commit`: a committer's notifyCheckpointComplete;
  // not `interruptible`: a cancellation waits for it).
  void run_long_mail(int id, Duration length, std::string call, bool commit, bool interruptible);
  void switch_to_failed(int vertex, int index) override;
  void report_failure(int vertex, int index, const std::string& exception_class,
                      const std::string& message) override;
  void connector_event(ConnectorEvent::Kind kind, int vertex, int index, std::string table,
                       std::string detail, std::int64_t rows) override;
  SimTime coordinator_free_at(int vertex) override { return listener_.coordinator_free_at(vertex); }
  void call_returned(int vertex, int index) override;

  core::Simulation& sim_;
  const Scenario& scenario_;
  Observer& observer_;
  JobMasterGateway& listener_;
  CheckpointingConfig checkpointing_;
  std::uint32_t generation_ = 0;        // the last epoch handed out
  std::vector<std::uint32_t> epochs_;   // per subtask
  int running_ = 0;
  std::int64_t completed_checkpoints_ = 0;  // notifyCheckpointComplete rounds in the run
  Network network_;
  StreamTask tasks_;
  BarrierHandler barriers_;
  SubtaskCheckpointCoordinator snapshots_;
  HybridNetwork hybrid_;
  Connectors connectors_;
  std::vector<TriggerRpc> trigger_rpcs_;
  std::vector<NotifyRpc> notify_rpcs_;
  // Per subtask: the exception that fails it at kConnectorFailed (its start, a network buffer
  // request, or a committer at notifyCheckpointComplete).
  std::map<int, ConnectorException> connector_failures_;
  std::map<int, Stuck> stuck_;                 // per subtask being cancelled: its stuck call
  std::vector<SimTime> taskmanager_back_;      // per TaskManager: when it offers slots again
  core::RandomStream rpc_rng_;
  std::vector<SimTime> rpc_last_[2];  // per TaskManager: the last arrival to it, from it
};

// TaskPart's accessors.
inline TaskPart::TaskPart(TaskExecutor& x)
    : x_(x), sim_(x.sim()), scenario_(x.scenario()), observer_(x.observer()),
      listener_(x.listener()) {}
inline Subtask& TaskPart::sub(int id) { return x_.subtasks_[static_cast<std::size_t>(id)]; }
inline const Subtask& TaskPart::sub(int id) const {
  return x_.subtasks_[static_cast<std::size_t>(id)];
}
inline Channel& TaskPart::chan(int id) {
  return x_.network().channels_[static_cast<std::size_t>(id)];
}
inline const Channel& TaskPart::chan(int id) const {
  return x_.network().channels_[static_cast<std::size_t>(id)];
}
inline int TaskPart::subtask_id(const Subtask& s) const {
  return x_.vertex_first_[static_cast<std::size_t>(s.vertex)] + s.index;
}
inline std::uint64_t TaskPart::arg(int subtask) const {
  return (static_cast<std::uint64_t>(x_.epoch(subtask)) << 32) | static_cast<std::uint32_t>(subtask);
}
inline bool TaskPart::current(std::uint64_t a) const {
  return (a >> 32) == x_.epoch(subtask_of(a));
}
inline Network& TaskPart::network() { return x_.network(); }
inline const Network& TaskPart::network() const { return x_.network(); }
inline StreamTask& TaskPart::tasks() { return x_.tasks(); }
inline BarrierHandler& TaskPart::barriers() { return x_.barriers(); }
inline SubtaskCheckpointCoordinator& TaskPart::snapshots() { return x_.snapshots(); }

}  // namespace ckptsim::model
