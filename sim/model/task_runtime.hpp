// Tasks and Flink's network stack at buffer granularity: each subtask is one thread with a
// mailbox; records travel in network buffers (taskmanager.memory.segment-size) through result
// subpartitions and input channels with credit-based flow control (exclusive credits per
// channel, floating buffers per gate, output pools of n*2+8 buffers with at most
// max-buffers-per-channel per subpartition), flushed when full or by execution.buffer-timeout.
// Barriers: aligned exactly-once (the upstream subpartition blocks after handing out the barrier),
// at-least-once (CheckpointBarrierTracker), cancel markers, subsumption, obsolete barriers, and
// checkpoints aborted at the JobManager that never unblock inputs
// (reference/flink-task-network.md sections 1-3, rules R1-R9, R16, R17).
// The interface to the JobManager is Flink's RPCs: triggerCheckpoint to sources, acknowledge and
// decline to the coordinator, notifyCheckpointComplete/Aborted to every task.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/core/random.hpp"
#include "sim/core/ring_queue.hpp"
#include "sim/core/simulation.hpp"
#include "sim/model/checkpoint_coordinator.hpp"
#include "sim/model/checkpoint_storage.hpp"
#include "sim/model/config.hpp"
#include "sim/model/connectors/doris.hpp"
#include "sim/model/connectors/mysql_cdc.hpp"
#include "sim/model/latency.hpp"
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
  // A task failed with an exception from its code (a connector).
  virtual void task_failed(TaskRef, const std::string& /*exception_class*/,
                           const std::string& /*message*/) {}
};

class TaskRuntime final : public core::EventHandler, private CheckpointStorage::Listener {
 public:
  TaskRuntime(core::Simulation& sim, const Scenario& scenario, Observer& observer,
              TaskRuntimeListener& listener);

  int num_subtasks() const { return static_cast<int>(subtasks_.size()); }
  int num_vertices() const { return static_cast<int>(vertex_first_.size()); }
  std::vector<TaskRef> all_tasks() const;
  TaskRef task_ref(int subtask_id) const;
  // "Source (1/2)": Flink's getTaskNameWithSubtaskIndex.
  std::string task_name(TaskRef t) const;
  ExecutionState state(int vertex, int subtask) const;
  std::vector<ExecutionState> states() const;
  bool all_sources_running(std::string* not_running) const;
  bool is_finished(TaskRef t) const;
  // The checkpointing options of the current submission (barrier kinds, finished tasks).
  void set_checkpointing(const CheckpointingConfig& c) { checkpointing_ = c; }
  // Timeline operations on the task side.
  void stall_taskmanager(int tm, SimTime from, Duration length);
  std::optional<TaskRef> first_task_on(int tm) const;
  void set_source_rate(int vertex, double records_per_second);
  // A legacy source takes the checkpoint lock until its next record (length: none) or for
  // `length`.
  void hold_checkpoint_lock(int vertex, std::optional<Duration> length);
  // Every subtask of `vertex` fires `count` timers at once, `cost` each (a window closing for
  // many keys): one long burst of work on the task thread.
  void fire_timers(int vertex, std::int64_t count, Duration cost);
  // How long the split enumerator of CDC source `vertex` is still busy with split queries.
  Duration cdc_enumerator_busy(int vertex) const;
  // The TaskManager (0-based) a subtask runs on: Flink's default slot sharing puts subtask i of
  // every vertex into slot i; slots fill TaskManagers in order.
  int taskmanager_of(int vertex, int subtask) const;
  WaitState wait_state(TaskRef task, std::int64_t checkpoint_id) const;

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

  // Timeline: an operation on an external system (Doris tables, load rejections).
  void system_action(const TimelineAction& action);
  // A (new) submission of the job: tools that run before it (the Doris whole-database sync
  // creates missing tables).
  void job_submitted();
  // Timeline: the vertex (or one subtask) stops processing from `from` for `length` (or ever).
  void add_stall(int vertex, std::optional<int> subtask, SimTime from,
                 std::optional<Duration> length);
  // Records read by all sources so far (their positions).
  std::int64_t total_source_position() const;
  // One channel as the network sees it (for tests and the diagnosis).
  struct ChannelStats {
    int backlog = 0;          // data buffers in the producer's subpartition
    int received = 0;         // buffers and events in the consumer's input channel
    int credits = 0;
    int floating = 0;
    bool blocked = false;
    bool local = false;
  };
  std::optional<ChannelStats> channel_stats(TaskRef from, TaskRef to) const;
  // Queueing statistics of a channel since the start of the run (data buffers from entering the
  // subpartition to being consumed): for Little's law and queueing oracles.
  struct ChannelQueueStats {
    std::int64_t consumed = 0;
    double mean_sojourn_seconds = 0;
    double mean_buffers = 0;        // time-average data buffers in subpartition + input channel
    double throughput_per_second = 0;
  };
  std::optional<ChannelQueueStats> channel_queue_stats(TaskRef from, TaskRef to) const;
  bool back_pressured(TaskRef task) const;
  // Network statistics (for tests and benchmarks).
  std::uint64_t buffers_transferred() const { return buffers_transferred_; }
  std::int64_t records_received_by_sinks() const;
  std::int64_t records_in_flight() const;
  // Records from source read to the end of their processing at a sink.
  const LatencyHistogram& end_to_end_latency() const { return latency_; }
  // Closes every subtask's time accounting up to now (the end of a run).
  void flush_samples();
  // The same, also reporting the partial last period of every running subtask.
  void flush_partial_samples();

  void on_event(std::uint32_t kind, std::uint64_t arg) override;

 private:
  enum Event : std::uint32_t {
    kSourceEmit, kProcessDone, kTriggerArrives, kSyncDone, kAckArrives, kStallEnds,
    kStateTransition, kNotifyArrives, kWake, kFlush, kAlignmentTimer, kOutputTimer, kDebloat,
    kDorisLoadFailed, kDorisCheck, kDorisPrepareThrew, kInitFailed,
  };
  // A network buffer or an event in a subpartition / input channel queue.
  struct Buffer {  // 64 bytes: one cache line (the flags first, then the 8-byte fields)
    enum class Kind : std::uint8_t { data, barrier, cancel_marker } kind = Kind::data;
    bool aligned = true;           // a barrier that blocks the upstream (exactly-once/savepoint)
    bool unaligned = false;        // a priority barrier that overtakes data (UC, R10/R11)
    bool timeoutable = false;      // aligned, switching to unaligned after `timeout` (R12-R14)
    bool savepoint = false;
    bool last_from_source = false; // stop-with-savepoint: the source emits nothing after it
    bool full = false;             // a full snapshot (savepoint, or FULL after NO_CLAIM restore)
    // Records of one table of a CDC source (its index), kAllTables for binlog changes spread
    // over the tables, kNoTable for records from the network.
    std::int32_t table = -1;
    std::int32_t bytes = 0;
    Duration timeout = 0;          // execution.checkpointing.aligned-checkpoint-timeout
    std::int64_t records = 0;
    std::int64_t checkpoint_id = 0;
    SimTime timestamp = 0;         // the checkpoint's trigger timestamp
    SimTime enqueued = 0;          // when a data buffer entered the subpartition
    SimTime born = 0;              // data: mean time its records were read at the sources
  };
  // A result subpartition of `producer` and the input channel of `consumer`. The fields a
  // buffer's way through the network touches come first (two cache lines with the queues).
  struct Channel {
    int producer = 0;
    int consumer = 0;
    int input_index = 0;           // position in the consumer's inputs
    int backlog = 0;               // data buffers in the subpartition
    int credits = 0;               // buffers the receiver can still accept
    int floating = 0;              // floating buffers this channel holds
    bool local = false;            // same TaskManager: no credits beyond the subpartition
    bool blocked = false;          // an aligned barrier was handed out: nothing more is sent
    bool finished = false;         // the producer FINISHED: EndOfPartition was consumed
    core::RingQueue<Buffer> subpartition;
    core::RingQueue<Buffer> received;
    std::int64_t received_bytes = 0;  // data bytes in `received`
    std::int64_t drained_bytes = 0;   // consumed by the receiver (for drain rates)
    // Queueing statistics (never reset): occupancy integral in buffer-ns, sojourn in ns.
    int occupancy = 0;
    SimTime occupancy_since = 0;
    double occupancy_integral = 0;
    double sojourn_total = 0;
    std::int64_t consumed = 0;
    // The BufferBuilder being filled, and the size of new buffers (debloating shrinks it).
    std::int64_t open_bytes = 0;
    std::int64_t open_records = 0;
    double open_born = 0;          // sum over its records of their read time (ns)
    std::int64_t buffer_size = 0;
    int output_group = 0;          // the producer's OutputGroup holding this channel ...
    int output_position = 0;       // ... and its position there
  };
  struct Stall {
    SimTime from = 0;
    SimTime until = core::kNever;
    std::optional<int> subtask;
  };
  struct OutputGroup {  // the subpartitions to one downstream vertex
    ShipStrategy ship = ShipStrategy::forward;
    std::vector<int> channels;
    bool written_since_flush = false;  // else every builder is empty: a flush has nothing to do
    std::vector<double> weights;   // hash edges with skewed keys: share of each channel
    std::vector<double> carry;     // fractional records owed to each channel
    // Round robin (rebalance, rescale, uniform keys), record by record as RebalancePartitioner,
    // written lazily: records are only counted here and reach a channel's BufferBuilder when it
    // fills, or before anything reads the builders (flush, event, new buffer size). The buffers
    // and their times are those of writing record by record, at a cost per buffer, not per
    // record (issue 3: cost follows buffers, not records).
    std::size_t origin = 0;             // the position that got the first record
    std::int64_t written = 0;           // records written to the group since then
    std::vector<std::int64_t> taken;    // per position: records handed to its builder
    std::vector<std::int64_t> fills_at; // per position: `written` at which its builder fills
    // Read times: their sum over the records written (relative to born_origin, moved to each
    // flush so the sum stays exact), and per position (written, that sum) at its last take; a
    // take gives the records the mean read time of the group's records since.
    SimTime born_origin = 0;
    double born_written = 0;
    std::vector<std::pair<std::int64_t, double>> born_taken;
    // (fills_at, position), smallest first; entries whose fills_at changed since are stale.
    std::vector<std::pair<std::int64_t, int>> fills;
    bool round_robin() const { return ship != ShipStrategy::forward &&
                                      ship != ShipStrategy::broadcast && weights.empty(); }
    // A position's place in the round-robin order, counted from the origin.
    std::int64_t offset(std::size_t position) const {
      return static_cast<std::int64_t>((position + channels.size() - origin) % channels.size());
    }
  };
  struct SyncPhase {  // a subtask's checkpoint between barrier broadcast and sync end
    Buffer barrier;
    SimTime started = 0;           // first barrier (or trigger) processed
    Duration alignment = 0;
    std::int64_t processed_bytes = 0;
    std::int64_t persisted_bytes = 0;   // channel state (unaligned): output + input
    SimTime sync_end = 0;
    Duration pre_barrier = 0;           // prepareSnapshotPreBarrier (a Doris prepareCommit)
    Duration sync = 0;                  // the synchronous part (sync_duration)
  };
 public:
  // Where an unacknowledged subtask's upload stands (bytes left, share of the bandwidth).
  std::int64_t upload_remaining(TaskRef task) const;
 private:
  enum class ThreadState : std::uint8_t { idle, busy, back_pressured };
  // A set of a subtask's input channels by input index: round-robin look-ups in O(P / 64).
  class InputSet {
   public:
    void reset(std::size_t n) { words_.assign((n + 63) / 64, 0); }
    void set(int i, bool member) {
      const std::uint64_t bit = std::uint64_t{1} << (static_cast<unsigned>(i) % 64);
      auto& w = words_[static_cast<std::size_t>(i) / 64];
      w = member ? (w | bit) : (w & ~bit);
    }
    // The first member at or after `from`, wrapping around; -1 if the set is empty.
    int next(std::size_t from) const;
    // The first member other than `except`; -1 if none.
    int first_except(int except) const;

   private:
    std::vector<std::uint64_t> words_;
  };
  struct Subtask {
    int vertex = 0;
    int index = 0;
    int attempt = -1;
    int taskmanager = 0;
    ExecutionState state = ExecutionState::created;
    std::vector<int> inputs;       // channel ids
    InputSet with_data;            // inputs whose input channel holds buffers or events
    InputSet wants_floating;       // remote inputs with more backlog than credits, not blocked
    std::vector<OutputGroup> outputs;
    int partition_buffers = 0;     // data buffers held in this task's subpartitions
    int full_subpartitions = 0;    // subpartitions holding max-buffers-per-channel or more
    int pool_size = 0;             // LocalBufferPool max: n*2+8
    int floating_free = 0;         // the input gate's floating buffers not lent out
    bool busy = false;             // processing a buffer or in a sync snapshot
    bool wake_scheduled = false;
    bool flush_scheduled = false;
    bool flush_with_step = false;  // a source whose steps are one buffer timeout: it flushes
                                   // at the end of each step (see schedule_emission)
    bool emission_scheduled = false;
    bool waiting_output = false;   // soft back-pressure: output not available
    bool stopped = false;          // a source after a stop-with-savepoint barrier
    bool lock_until_record = false; // a legacy source holds the checkpoint lock until a record
    SimTime lock_held_until = 0;    // ... or until then
    SimTime mail_busy_until = 0;    // the thread runs a long mail (notifyCheckpointComplete)
    double kafka_lag = 0;           // a Kafka reader: records behind the head of its partitions
    SimTime kafka_lag_at = 0;       // ... as of then
    std::int64_t restored_checkpoint = 0;  // the checkpoint this attempt restored (0: none)
    SimTime left_running = 0;       // when this attempt stopped RUNNING (a restore's downtime)
    SimTime busy_since = 0;
    Buffer processing;
    core::EventId processing_done;
    SimTime processing_started = 0;
    std::optional<Buffer> remainder;  // records of a buffer left when a mail cut in
    std::size_t next_input = 0;
    double fractional_records = 0;
    double output_carry = 0;       // fractional output records (selectivity)
    std::int64_t position = 0;     // sources: records read
    std::int64_t records_in = 0;   // records consumed
    std::int64_t state_size = 0;
    std::deque<Buffer> pending_triggers;  // trigger mails waiting for the thread
    // Barrier handling (SingleCheckpointBarrierHandler / CheckpointBarrierTracker).
    std::int64_t current_checkpoint = -1;
    bool checkpoint_pending = false;
    Buffer aligning_barrier;       // the first barrier of the checkpoint being aligned
    bool end_of_input_abort = false;  // EndOfPartition while aligning, no checkpoints after
                                      // tasks finish: the alignment aborts (mail pending)
    std::vector<bool> barrier_seen;
    int barriers_received = 0;
    int finished_inputs = 0;      // input channels whose producer FINISHED (EndOfPartition)
    SimTime first_barrier = 0;
    std::int64_t processed_bytes = 0;
    std::map<std::int64_t, int> tracker;  // at-least-once: id -> distinct channels seen
    std::int64_t last_checkpoint_taken = -1;
    std::set<std::int64_t> aborted;       // notified aborted before being triggered here
    // Time accounting on thread-state transitions (TimerGauge semantics).
    ThreadState thread_state = ThreadState::idle;
    // Buffer debloating of this task's input gate (BufferDebloater, BufferSizeEMA).
    double debloat_size = 0;            // the EMA's last buffer size
    std::int64_t debloat_announced = 0; // the size last announced upstream
    std::int64_t debloat_bytes = 0;     // bytes consumed in the current period
    Duration debloat_idle = 0;          // time without input in the current period
    SimTime accounted_until = 0;
    SimTime sample_start = 0;
    TaskSample sample;
    std::int64_t acked_checkpoint = -1;   // the last checkpoint whose ack left this subtask
    // Unaligned checkpoint in progress: input channel state is recorded until every channel
    // delivered its barrier; the acknowledgement waits for that (R11).
    bool uc_collecting = false;
    bool uc_ack_waiting = false;          // sync phase over, the acknowledgement not yet sent
    SimTime current_timestamp = 0;        // trigger timestamp of current_checkpoint
    int priority_pending = 0;             // unaligned barriers at the head of input channels
    // Aligned checkpoints with timeout: the input-side timer (one per task and checkpoint) and
    // the output side: barriers of `output_checkpoint` still queued in this task's
    // subpartitions (the acknowledgement waits for them to leave, or for their timeout).
    std::int64_t timer_checkpoint = -1;
    std::int64_t timed_out_checkpoint = -1;   // mail pending: switch this checkpoint to UC
    std::int64_t output_checkpoint = -1;
    int output_barriers_queued = 0;
    std::int64_t output_timeout_mail = -1;    // mail pending: convert queued output barriers
    bool ack_waits_for_output = false;
    std::int64_t uploading_checkpoint = -1;
    std::uint64_t upload_token = 0;             // acks_ index of the upload in flight
    // Incremental snapshots upload what changed since the last confirmed checkpoint.
    std::int64_t confirmed_state_size = 0;
    std::int64_t flushed_state_size = 0;  // RocksDB: the state size at the last memtable flush
    std::map<std::int64_t, std::int64_t> snapshot_sizes;  // checkpoint -> state size taken
    // A MySQL CDC reader (MySqlSourceReader + its split fetcher).
    CdcPhase cdc_phase = CdcPhase::none;
    std::int64_t cdc_chunks_done = 0;
    SimTime cdc_next_ready = -1;   // when the fetcher has the next chunk (-1: not fetching yet)
  };
  struct PendingAck {
    std::int64_t id = 0;
    TaskRef task;
    SubtaskAck metrics;
    TaskSnapshot state;
    std::uint32_t generation = 0;
    int subtask = 0;
  };
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

  std::uint64_t arg(int subtask) const;
  bool current(std::uint64_t a) const { return (a >> 32) == generation_; }
  static int subtask_of(std::uint64_t a) { return static_cast<int>(a & 0xffffffU); }
  Subtask& sub(int id) { return subtasks_[static_cast<std::size_t>(id)]; }
  const Subtask& sub(int id) const { return subtasks_[static_cast<std::size_t>(id)]; }
  Channel& chan(int id) { return channels_[static_cast<std::size_t>(id)]; }
  const Channel& chan(int id) const { return channels_[static_cast<std::size_t>(id)]; }
  const VertexSpec& vertex(const Subtask& s) const {
    return scenario_.job.vertices[static_cast<std::size_t>(s.vertex)];
  }
  bool stalled(const Subtask& s) const;
  bool is_source(const Subtask& s) const {
    return vertex_is_source_[static_cast<std::size_t>(s.vertex)];
  }
  void set_state(Subtask& s, ExecutionState to);
  void clear_network();
  void wake(int id);
  void progress(int id);

  // Network
  bool output_available(const Subtask& s) const;
  // Writes records whose mean read time at the sources is `born`.
  void write_records(Subtask& s, std::int64_t records, SimTime born);
  // Adds records to a channel's BufferBuilder, finishing every full buffer; true if bytes are
  // left in the builder (the flush timer has something to do).
  bool append_to_builder(int channel, std::int64_t records, std::int64_t record_size,
                         double born);
  bool finish_builder(int channel);  // true if it held bytes (a buffer was added)
  // Lazy round robin (OutputGroup): a write; handing a position the records due to it (true:
  // its builder holds bytes); its next fill point; a fresh start at `origin`.
  void write_round_robin(Subtask& s, int id, OutputGroup& g, std::int64_t records, SimTime born);
  bool take_records(const Subtask& s, OutputGroup& g, int position);
  void update_fill_point(const Subtask& s, OutputGroup& g, int position);
  void reset_round_robin(const Subtask& s, OutputGroup& g, std::size_t origin);
  // Finishes every open builder (the flush timer), then adds `event` to every subpartition if
  // given (BufferWritingResultPartition.broadcastEvent); returns the output channel state bytes.
  std::int64_t close_builders(Subtask& s, const Buffer* event);
  std::int64_t add_to_subpartition(int channel, const Buffer& b);
  void pump(int channel);
  void recycle(int channel);
  void request_floating(int channel);
  void change_backlog(Channel& c, int delta);
  // Keeps the consumer's InputSets in step with a channel's queue, credits and blocking.
  void note_received(const Channel& c);
  void note_floating_wish(const Channel& c);
  void schedule_flush(Subtask& s, int id);

  // Sources
  void schedule_emission(Subtask& s, int id);
  void emit_source_records(int id);

  // Barriers
  bool needs_alignment(const Buffer& barrier) const;
  void process_barrier(int id, int channel, const Buffer& barrier);
  void process_cancel_marker(int id, const Buffer& marker);
  // `channel` delivered the new barrier: it stays blocked when the old alignment aborts (R3).
  void start_new_checkpoint(int id, const Buffer& barrier, int channel);
  void abort_alignment(int id, std::int64_t checkpoint, CheckpointFailureReason reason,
                       int keep_blocked = -1);
  void resume_consumption(int channel);
  void unblock_all_inputs(Subtask& s, int keep_blocked = -1);
  // An input channel's producer FINISHED (EndOfPartition consumed) while it is open.
  void end_of_partition(int channel);
  void checkpoint_state(int id, const Buffer& barrier, SimTime started, Duration alignment,
                        std::int64_t processed, std::int64_t persisted_input = 0);
  void finish_sync_phase(int id);
  // The synchronous part of a snapshot: the operator's (sync-snapshot) plus the state
  // backend's; a RocksDB native checkpoint flushes the memtable (flushed_state_size moves on).
  Duration sync_duration(Subtask& s, const Buffer& barrier);
  void process_unaligned_barrier(int id, int channel, const Buffer& barrier);
  void send_ack(int id);
  void upload_finished(std::uint64_t token) override;
  bool process_priority_event(int id);
  void start_processing(int id, const Buffer& b);
  void register_alignment_timer(int id, const Buffer& barrier);
  void switch_to_unaligned(int id, std::int64_t checkpoint);
  void convert_output_barriers(int id, std::int64_t checkpoint);
  void maybe_send_ack(int id);
  void account(Subtask& s);
  void occupancy_change(Channel& c, int delta);
  Duration service_time(int id, std::int64_t records);
  void update_thread_state(Subtask& s);
  void recalculate_buffer_size(int id);
 public:
  // The buffer size the consumer of a channel currently asks for (debloating), in bytes.
  std::int64_t buffer_size(TaskRef from, TaskRef to) const;
 private:
  void yield_to_mail(int id);
  // Connectors
  static constexpr std::int32_t kNoTable = -1;
  static constexpr std::int32_t kAllTables = -2;
  double source_rate(const Subtask& s) const;
  // A mail that holds the task thread for `length` (notifyCheckpointComplete, a timer burst).
  void run_long_mail(int id, Duration length);
  // A source subtask without a partition: a legacy one finishes (EndOfPartition downstream).
  bool has_no_partition(const Subtask& s) const;
  // A Kafka reader's lag when (re)deployed: its share of the configured lag on the first start;
  // after a restore what it read since the checkpoint plus what was produced while it was down.
  double kafka_start_lag(const Subtask& old, const CompletedCheckpoint* restored) const;
  void finish_source(int id);
  int open_inputs(const Subtask& s) const {
    return static_cast<int>(s.inputs.size()) - s.finished_inputs;
  }
  void cdc_start(int id);
  void cdc_finish_snapshot(int id);
  void cdc_start_binlog(int vertex);
  Duration sink_write(int id, const Buffer& b, Duration cpu);
  void watch_doris_failure(int id);
  bool sink_wait_state(const Subtask& s, int id, WaitState& w) const;
  void kafka_initialize(int id, const TaskSnapshot* restored);
  // A connector that fails the task while it initializes: (exception class, message).
  std::optional<std::pair<std::string, std::string>> connector_init_failure(int id) const;
  std::map<int, std::pair<std::string, std::string>> init_failures_;  // per subtask
  void kafka_commit(int id, std::int64_t checkpoint);
  void connector_event(ConnectorEvent::Kind kind, int id, std::string table = {},
                       std::string detail = {}, std::int64_t rows = 0);

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
  std::vector<TriggerRpc> trigger_rpcs_;
  std::vector<NotifyRpc> notify_rpcs_;
  std::vector<SyncPhase> sync_phases_;  // per subtask
  std::vector<std::pair<std::uint64_t, std::int64_t>> timers_;  // (subtask arg, checkpoint)
  CheckpointStorage storage_;
  std::vector<core::RandomStream> rngs_;  // one stream per subtask (arrivals, service times)
  std::uint32_t generation_ = 0;
  int running_ = 0;
  // Connectors: the external systems and per-subtask connector state.
  std::optional<DorisSystem> doris_;
  ServiceProfile mysql_profile_;
  std::vector<std::optional<DorisWriter>> writers_;     // per subtask (Doris sinks)
  std::vector<std::optional<KafkaTransactions>> kafka_; // per subtask (exactly-once Kafka sinks)
  std::vector<double> source_rates_;                    // per vertex: records/s per subtask
  CheckpointingConfig checkpointing_;
  // Per subtask slot, across attempts: the newest checkpoint whose Kafka transaction was
  // committed or found aborted (the broker's view; a restore does not undo it).
  std::vector<std::int64_t> kafka_committed_;
  std::vector<std::optional<CdcChunkPlan>> cdc_plans_;  // per vertex (MySQL CDC sources)
  // Per vertex: the hybrid assigner waits for checkpoint `cdc_finish_checkpoint` to complete
  // before it assigns the binlog split (-1: not chosen yet; only while cdc_waiting).
  // Per CDC vertex: when the enumerator finishes splitting each table (-1: not split yet) and
  // when its thread is free. The JobManager keeps them across task restarts.
  std::vector<std::vector<SimTime>> cdc_split_done_;
  std::vector<SimTime> cdc_enumerator_free_;
  SimTime cdc_chunk_available(int vertex, int table);
  std::vector<bool> cdc_waiting_;
  std::vector<std::int64_t> cdc_finish_checkpoint_;
  std::vector<std::pair<std::uint64_t, DorisWriter::Failure>> doris_failures_;
  std::uint64_t buffers_transferred_ = 0;
  LatencyHistogram latency_;
  std::vector<std::pair<std::int64_t, int>> filled_scratch_;  // write_round_robin's
};

}  // namespace ckptsim::model
