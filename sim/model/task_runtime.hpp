// Tasks, first version: sources emit records and barriers, operators and sinks process at a
// cost per record, bounded FIFO channels carry both, aligned or at-least-once barrier handling.
// A slow or stalled sink fills its channels, back-pressures its producers and delays barriers.
// The interface to the JobManager is Flink's: triggerCheckpoint to sources, acknowledge and
// decline to the coordinator, notifyCheckpointComplete/Aborted to tasks. The credit-based
// network and the full barrier handlers replace the internals later; this interface stays.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/simulation.hpp"
#include "sim/model/checkpoint_coordinator.hpp"
#include "sim/model/config.hpp"
#include "sim/model/observer.hpp"

namespace ckptsim::model {

// What the runtime reports to the JobMaster (the TaskExecutor -> JobMaster RPCs).
class TaskRuntimeListener {
 public:
  virtual ~TaskRuntimeListener() = default;
  virtual void acknowledge_checkpoint(std::int64_t id, TaskRef task, const SubtaskAck& metrics,
                                      const TaskSnapshot& state) = 0;
  virtual void decline_checkpoint(std::int64_t id, TaskRef task, const CheckpointException&) = 0;
  virtual void all_tasks_running() = 0;
  virtual void all_tasks_terminal() = 0;  // every task CANCELED or FINISHED
};

class TaskRuntime final : public core::EventHandler {
 public:
  TaskRuntime(core::Simulation& sim, const Scenario& scenario, Observer& observer,
              TaskRuntimeListener& listener);

  int num_subtasks() const { return static_cast<int>(subtasks_.size()); }
  int num_vertices() const { return static_cast<int>(vertex_first_.size()); }
  std::vector<TaskRef> all_tasks() const;
  // "Source (1/2)": Flink's getTaskNameWithSubtaskIndex.
  std::string task_name(TaskRef t) const;
  ExecutionState state(int vertex, int subtask) const;
  std::vector<ExecutionState> states() const;
  bool all_sources_running(std::string* not_running) const;

  // Deploys a new attempt of every subtask, restoring `restored` (nullptr = no state).
  void deploy(const CompletedCheckpoint* restored);
  // Cancels every subtask (in-flight data is lost).
  void cancel();
  // Finishes every subtask (after a stop-with-savepoint completed).
  void finish();

  // JobManager -> TaskExecutor RPCs (arrive after the RPC latency).
  void trigger_checkpoint(std::int64_t id, SimTime timestamp, const CheckpointProperties& props);
  void notify_checkpoint_complete(std::int64_t id);
  void notify_checkpoint_aborted(std::int64_t id);

  // Timeline: the vertex (or one subtask) stops processing from `from` for `length` (or ever).
  void add_stall(int vertex, std::optional<int> subtask, SimTime from,
                 std::optional<Duration> length);
  // Records emitted by all sources so far (their positions).
  std::int64_t total_source_position() const;

  void on_event(std::uint32_t kind, std::uint64_t arg) override;

 private:
  enum Event : std::uint32_t {
    kSourceEmit, kProcessDone, kTriggerArrives, kSyncDone, kAckArrives, kStallEnds,
    kStateTransition, kNotifyArrives, kWake,
  };
  struct Item {
    bool barrier = false;
    std::int64_t records = 0;
    std::int64_t checkpoint_id = 0;
    SimTime checkpoint_timestamp = 0;
    bool savepoint = false;
    bool last_from_source = false;  // a stop-with-savepoint barrier: the source stops after it
  };
  struct Channel {
    int producer = 0;
    int consumer = 0;
    std::deque<Item> queue;
    int data_items = 0;      // buffers in the queue (events take no buffer)
    bool blocked = false;    // its barrier was polled during an aligned checkpoint
  };
  struct Stall {
    SimTime from = 0;
    SimTime until = core::kNever;
    std::optional<int> subtask;
  };
  struct OutputGroup {  // the channels to one downstream vertex
    ShipStrategy ship = ShipStrategy::forward;
    std::vector<int> channels;
    std::size_t next = 0;  // round robin
  };
  struct Subtask {
    int vertex = 0;
    int index = 0;
    int attempt = -1;
    ExecutionState state = ExecutionState::created;
    std::vector<int> inputs;   // channel ids
    std::vector<OutputGroup> outputs;
    bool wake_scheduled = false;
    bool stopped = false;      // a source after a stop-with-savepoint barrier
    bool waiting_output = false;  // a source waiting for room before reading more records
    Item processing;
    bool busy = false;         // processing an item or in a sync snapshot
    std::optional<Item> blocked_output;  // back-pressured: waiting for room to emit this item
    std::size_t next_input = 0;
    bool emission_scheduled = false;
    double fractional_records = 0;
    std::int64_t position = 0;             // sources: records emitted
    std::int64_t state_size = 0;
    std::deque<std::pair<std::int64_t, Item>> pending_triggers;  // mails waiting for the thread
    // Barrier alignment (SingleCheckpointBarrierHandler bookkeeping, first version).
    std::int64_t current_checkpoint = -1;
    bool checkpoint_pending = false;
    int barriers_received = 0;
    SimTime first_barrier = 0;
    std::int64_t processed_bytes = 0;
    Item current_barrier;
  };
  struct PendingAck {
    std::int64_t id = 0;
    TaskRef task;
    SubtaskAck metrics;
    TaskSnapshot state;
    std::uint32_t generation = 0;
  };

  std::uint64_t arg(int subtask) const;
  bool current(std::uint64_t a) const { return (a >> 32) == generation_; }
  static int subtask_of(std::uint64_t a) { return static_cast<int>(a & 0xffffffffU); }
  bool stalled(const Subtask& s) const;
  bool is_source(const Subtask& s) const { return vertex_is_source_[static_cast<std::size_t>(s.vertex)]; }
  void set_state(Subtask& s, ExecutionState to);
  void progress(int id);
  void schedule_emission(Subtask& s, int id);
  void emit_source_buffer(int id);
  bool try_emit(Subtask& s, const Item& item);
  bool output_available(const Subtask& s) const;
  void push(int channel, const Item& item);
  void wake_producer(int channel);
  void process_barrier(int id, int channel, const Item& item);
  void perform_checkpoint(int id, const Item& barrier);
  void unblock_inputs(Subtask& s);
  void clear_channels();
  std::int64_t records_per_buffer(int vertex) const;

  core::Simulation& sim_;
  const Scenario& scenario_;
  Observer& observer_;
  TaskRuntimeListener& listener_;
  std::vector<Subtask> subtasks_;
  std::vector<Channel> channels_;
  std::vector<int> vertex_first_;  // first subtask id of each vertex
  std::vector<bool> vertex_is_source_;
  std::vector<std::vector<Stall>> stalls_;  // per vertex
  std::vector<PendingAck> acks_;
  struct TriggerRpc {
    int subtask = 0;
    std::uint32_t generation = 0;
    Item barrier;
  };
  struct NotifyRpc {
    int subtask = 0;
    std::uint32_t generation = 0;
    std::int64_t id = 0;
    bool complete = false;
  };
  struct SyncPhase {  // a subtask's checkpoint between barrier broadcast and the sync phase end
    Item barrier;
    SimTime started = 0;      // first barrier (or trigger) processed
    Duration alignment = 0;
    std::int64_t processed_bytes = 0;
  };
  void wake(int id);
  void finish_sync_phase(int id);
  std::vector<TriggerRpc> trigger_rpcs_;
  std::vector<NotifyRpc> notify_rpcs_;
  std::vector<SyncPhase> sync_phases_;  // per subtask
  std::uint32_t generation_ = 0;
  int channel_capacity_ = 12;
  int running_ = 0;
};

}  // namespace ckptsim::model
