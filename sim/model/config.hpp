// Plain configuration of one simulated job: the Flink options (already resolved to their values
// for the scenario's Flink version), the cluster, the job graph and the timeline. Filled by
// sim/scenario from YAML, or built in code by tests. Knows nothing about YAML or files.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/time.hpp"
#include "sim/model/connectors/specs.hpp"
#include "sim/model/cost_law.hpp"
#include "sim/model/latency_distribution.hpp"
#include "sim/model/task_executor_process_spec.hpp"

namespace ckptsim::model {

using core::Duration;
using core::SimTime;

// Oldest first: version rules compare with < and >=, so a rule written for one version carries
// over to the later ones until Flink changes it again.
enum class FlinkVersion { v1_15, v1_16, v1_17, v1_18, v1_19, v1_20, v2_0, v2_1 };
const char* to_string(FlinkVersion v);               // "1.17"
// Every version ckptsim models, oldest first.
inline constexpr FlinkVersion kFlinkVersions[] = {
    FlinkVersion::v1_15, FlinkVersion::v1_16, FlinkVersion::v1_17, FlinkVersion::v1_18,
    FlinkVersion::v1_19, FlinkVersion::v1_20, FlinkVersion::v2_0,  FlinkVersion::v2_1};
std::optional<FlinkVersion> parse_flink_version(std::string_view s);
const char* flink_release(FlinkVersion v);           // a concrete release, e.g. "1.17.2"

enum class CheckpointingMode { exactly_once, at_least_once };
enum class RetentionPolicy { never_retain, retain_on_cancellation, delete_on_cancellation };
enum class RestartStrategyKind { none, fixed_delay, failure_rate, exponential_delay };
enum class FailoverStrategyKind { region, full };

// execution.checkpointing.* (reference/flink-coordinator.md section 1.1)
struct CheckpointingConfig {
  std::optional<Duration> interval;                      // unset = checkpointing disabled
  Duration timeout = core::minutes(10);
  Duration min_pause = 0;
  int max_concurrent = 1;
  int tolerable_failed = 0;                              // 1.17/1.18 unset => 0 at runtime
  CheckpointingMode mode = CheckpointingMode::exactly_once;
  bool unaligned = false;
  bool unaligned_forced = false;
  // execution.checkpointing.unaligned.interruptible-timers.enabled (1.20+, FLINK-20217)
  bool interruptible_timers = false;
  Duration aligned_checkpoint_timeout = 0;
  RetentionPolicy retention = RetentionPolicy::never_retain;
  int num_retained = 1;
  bool checkpoints_after_tasks_finish = true;
  std::optional<Duration> interval_during_backlog;       // 1.19+
  // CheckpointRequestDecider.DEFAULT_MAX_QUEUED_REQUESTS; not a Flink option (tests change it).
  int max_queued_requests = 1000;
};

// restart-strategy.* (reference/flink-coordinator.md section 1.2, 5.1); values are the resolved
// ones: an unset type becomes the version's default in resolve_defaults().
struct RestartConfig {
  std::optional<RestartStrategyKind> kind;               // unset = Flink's default for the version
  int fixed_delay_attempts = 1;
  Duration fixed_delay = core::seconds(1);
  int failure_rate_max_failures = 1;
  Duration failure_rate_interval = core::minutes(1);
  Duration failure_rate_delay = core::seconds(1);
  Duration exp_initial_backoff = core::seconds(1);
  Duration exp_max_backoff = core::minutes(1);           // 1.17/1.18: 5 min
  double exp_multiplier = 1.5;                           // 1.17/1.18: 2.0
  Duration exp_reset_threshold = core::kHour;
  double exp_jitter = 0.1;
  int exp_attempts_before_reset = 2147483647;            // 1.19+ only
};

enum class StateBackendKind { hashmap, rocksdb };
enum class CheckpointStorageKind { filesystem, jobmanager };

// table.exec.async-lookup.*: an async lookup join's AsyncWaitOperator (ExecutionConfigOptions),
// the defaults of a vertex's `calls:` with `mode: async`.
struct AsyncLookupConfig {
  int buffer_capacity = 100;
  core::Duration timeout = core::minutes(3);
  bool ordered = true;  // output-mode ORDERED (ALLOW_UNORDERED: unordered)
};

struct FlinkConfig {
  FlinkVersion version = FlinkVersion::v1_17;
  AsyncLookupConfig async_lookup;
  CheckpointingConfig checkpointing;
  RestartConfig restart;
  StateBackendKind state_backend = StateBackendKind::hashmap;
  bool incremental = false;
  // state.backend.rocksdb.writebuffer.size: RocksDB flushes a memtable in the background when it
  // reaches this size, so a native checkpoint finds less than this much to flush.
  std::int64_t rocksdb_writebuffer_size = 64 * 1024 * 1024;
  CheckpointStorageKind checkpoint_storage = CheckpointStorageKind::jobmanager;
  std::string checkpoints_dir;                           // state.checkpoints.dir
  std::string savepoints_dir;                            // state.savepoints.dir
  // state.storage.fs.memory-threshold: state chunks smaller than this go inline into the
  // acknowledgement and the _metadata file, with no request to the checkpoint storage.
  std::int64_t inline_threshold = 20 * 1024;
  // taskmanager.numberOfTaskSlots: the default of cluster.slots-per-taskmanager.
  std::optional<int> task_slots;
  int web_checkpoints_history = 10;
  Duration buffer_timeout = core::milliseconds(100);     // execution.buffer-timeout
  Duration heartbeat_timeout = core::seconds(50);        // heartbeat.timeout
  Duration task_cancellation_interval = core::seconds(30);  // task.cancellation.interval
  Duration task_cancellation_timeout = core::minutes(3);    // task.cancellation.timeout (0: none)
  std::int64_t segment_size = 32 * 1024;                 // taskmanager.memory.segment-size
  // taskmanager.memory.* and execution.target: the network memory of each TaskManager
  // (task_executor_process_spec.hpp) and so its number of network buffers.
  TaskManagerMemoryOptions memory;
  int buffers_per_channel = 2;
  int floating_buffers_per_gate = 8;
  static constexpr int kMaxFloatingBuffersPerGate = 32767;  // what a Channel counts (16 bits)
  int max_buffers_per_channel = 10;
  // Buffer debloating (taskmanager.network.memory.buffer-debloat.*, TaskManagerOptions).
  bool debloat_enabled = false;
  Duration debloat_target = core::kSecond;
  Duration debloat_period = core::milliseconds(200);
  int debloat_samples = 20;
  int debloat_threshold_percent = 25;
  bool operator_chaining = true;        // pipeline.operator-chaining
  std::int64_t min_segment_size = 256;  // taskmanager.memory.min-segment-size
  // jobmanager.execution.failover-strategy (JobManagerOptions.EXECUTION_FAILOVER_STRATEGY):
  // 'region' (the default) restarts a failed task's pipelined region, 'full' every task.
  FailoverStrategyKind failover_strategy = FailoverStrategyKind::region;
};

// Fills the version-dependent defaults that the user did not set (restart strategy defaults of
// RestartBackoffTimeStrategyFactoryLoader, exponential-delay defaults of FLINK-33736).
void resolve_defaults(FlinkConfig& config, bool max_backoff_set, bool multiplier_set);

// Where the tasks upload their state and the JobManager writes a checkpoint's metadata, as a
// named profile (checkpoint_storage_profile.hpp) or given values. A struct built in code has no
// spread: every request takes exactly `latency`.
struct CheckpointStorageSpec {
  std::string profile = "fixed";
  double bandwidth_bytes_per_second = 200.0 * 1024 * 1024;
  LatencyDistribution latency = LatencyDistribution::fixed(core::milliseconds(30));
};

struct ClusterSpec {
  int taskmanagers = 1;
  int slots_per_taskmanager = 1;   // 0 = as many as the job needs
  CheckpointStorageSpec checkpoint_storage;
  Duration deploy_time = core::milliseconds(500);   // SCHEDULED -> RUNNING after (re)deploy
  // A TaskManager that shut down (a fatal error) offers slots again after its process exits
  // and this (a new pod or container registers; standalone: your supervisor restarts it).
  Duration taskmanager_restart = core::seconds(30);
  // JM <-> TM messages; delivered in order per TaskManager and direction.
  LatencyDistribution rpc_latency = LatencyDistribution::fixed(core::milliseconds(1));
  // The first checkpoint of a job submission: every subtask's asynchronous part takes this much
  // longer (class loading and JIT of the snapshot path in a fresh job; calibrated against a real
  // job whose first checkpoints took 60 ms more than the others, docs/scenario-format.md).
  Duration checkpoint_warm_up = 0;
  // StandaloneCompletedCheckpointStore.addCheckpointAndSubsumeOldestOne and the subsumption after
  // it: the log's finalizationTime (real logs show 0-2 ms).
  LatencyDistribution completed_checkpoint_store_latency;
  // The synchronous part of a snapshot by state backend (see TaskExecutor::sync_duration): the
  // local disk a RocksDB memtable flush writes to, and how much heap state a HashMapStateBackend
  // copy-on-write snapshot (a shallow copy of its tables) covers per second.
  double local_disk_bandwidth_bytes_per_second = 200e6;
  double heap_snapshot_bytes_per_second = 10e9;
  // Task failures as a Poisson process with this mean time between failures (none if unset);
  // each one fails the job over like a task failure does.
  std::optional<Duration> mtbf;
};

// Something on the JobManager that checkpoints before the tasks are triggered: an
// OperatorCoordinator (e.g. a source split enumerator) or a master hook.
struct MasterStepSpec {
  std::string name;
  bool is_hook = false;             // master hook (true) or operator coordinator (false)
  CostLaw duration;                 // how long its checkpoint call takes
  std::optional<SimTime> hang_from; // from this time on, its checkpoint call never returns
  std::optional<SimTime> fail_from; // from this time on, its checkpoint call fails
  // The vertex whose connector runs this coordinator (a CDC source's split enumerator, a Hudi
  // sink's StreamWriteOperatorCoordinator); -1: none.
  int coordinator_vertex = -1;
};

enum class ShipStrategy { forward, rebalance, hash, broadcast, rescale };
// How a quantity varies: a fixed value, or exponentially distributed with that mean (Poisson
// arrivals for a source's rate, exponential service for a cost per record).
enum class Variability { fixed, exponential };
// The key distribution of a hash edge: uniform over `keys`, Zipf with exponent `zipf_s`, or one
// hot key receiving `hot_key_share` of the records and the rest uniform.
enum class KeyDistribution { uniform, zipf, hot_key };

struct VertexSpec {
  std::string name;
  int parallelism = 1;
  std::optional<std::string> input;          // upstream vertex name; none = a source
  ShipStrategy ship = ShipStrategy::forward;
  double records_per_second = 1000.0;        // sources: per subtask
  Duration cost_per_record = core::kMicrosecond;  // operators and sinks: CPU per record
  // The scenario gave `cost`: a source's own cost per record emitted (without it a source's
  // emission costs nothing and only its chained operators' costs count).
  bool cost_given = false;
  std::int64_t record_size = 100;            // bytes per output record
  std::int64_t state_size = 0;               // bytes of state per subtask at start
  std::int64_t state_growth_per_record = 0;  // bytes of state added per input record
  // The operators' own part of the synchronous snapshot (a flush or prepareCommit at the
  // barrier), on top of the state backend's.
  CostLaw sync_snapshot = CostLaw::constant(core::milliseconds(1));
  // Time the task thread spends in notifyCheckpointComplete (a committer, a sink flushing to an
  // external system): a mail, so nothing else runs meanwhile.
  CostLaw notify_complete;
  Variability arrivals = Variability::fixed;  // sources: fixed rate or Poisson arrivals
  // A legacy SourceFunction (SourceStreamTask) emits under the checkpoint lock: while it waits
  // for an output buffer the trigger cannot take the lock (R7). FLIP-27 sources run mails then.
  bool legacy_source = false;
  // Partitions (splits) the source reads; subtasks beyond them have nothing to read. A legacy
  // SourceFunction subtask without one returns from run() and FINISHES (field B13); a FLIP-27
  // reader without a split stays idle. 0 = one per subtask.
  int partitions = 0;
  Variability service = Variability::fixed;   // cost per record fixed or exponential
  double selectivity = 1.0;                   // output records per input record
  // Hash edges into this vertex: how keys (and so records) spread over its subtasks.
  KeyDistribution key_distribution = KeyDistribution::uniform;
  int keys = 1024;
  double zipf_s = 1.0;
  double hot_key_share = 0.0;
  // The operators chained into this task (Flink's default chaining), in order; empty or just
  // `name` for an unchained vertex. Timeline actions may name any of them.
  std::vector<std::string> operators;
  // Connectors (MODEL.md section 9): a MySQL CDC source, a Doris sink. A chained task carries
  // the connectors of the operators it runs.
  std::optional<CdcSourceSpec> cdc_source;
  std::optional<DorisSinkSpec> doris;
  std::optional<KafkaSinkSpec> kafka_sink;
  std::optional<KafkaSourceSpec> kafka_source;
  std::optional<JdbcSinkSpec> jdbc_sink;
  std::optional<TransactionalSinkSpec> transactional_sink;  // StarRocks, Iceberg, Paimon, JDBC XA
  std::optional<HudiSinkSpec> hudi_sink;
  // Services the task's operators call, in chain order (`per_record` counts the task's input
  // records).
  std::vector<ServiceCallsSpec> calls;
};

struct JobSpec {
  std::string name = "ckptsim-job";
  std::vector<VertexSpec> vertices;          // topologically ordered
};

// Flink's default operator chaining (StreamingJobGraphGenerator.isChainable, reduced): a vertex
// joins its upstream's task when the edge is forward, the parallelisms are equal and the
// upstream has no other consumer. A chain is one task named "A -> B -> C": one thread, one
// mailbox, one barrier handler; its cost per input record is the sum of the operators' costs
// (weighted by the selectivities before them). Returns the job graph of tasks.
JobSpec chain_operators(const JobSpec& job);
// Index of the task (vertex of the chained graph) that runs the operator `name`, or -1.
int task_of_operator(const JobSpec& chained, const std::string& name);

enum class ActionKind {
  stop_with_savepoint,    // savepoint, then FINISHED
  start,                  // start the job again (after a stop)
  trigger_savepoint,      // savepoint, job keeps running
  trigger_checkpoint,     // a manual (non-periodic) checkpoint
  stall,                  // a vertex stops processing for a duration or for ever
  fail_task,              // a task fails (global failover of this first version)
  cancel,                 // cancel the job
  set_rate,               // a source's rate changes to `rate` (0: no data flowing)
  hold_checkpoint_lock,   // a legacy source takes the checkpoint lock until its next record
                          // (or for `duration`) (field B2)
  gc_pause,               // every task thread on TaskManager `taskmanager` stops for `duration`
  lose_taskmanager,       // TaskManager `taskmanager` dies; its tasks fail after heartbeat.timeout
  fire_timers,            // every subtask of `vertex` fires `count` timers of `duration` each
  coordinator_busy,       // operator coordinator `coordinator`'s thread runs `work` for
                          // `duration` (none: until it is reset or for ever)
  // External systems (MODEL.md section 9): `system` names the system (doris, mysql).
  slow_down,              // the system serves at `factor` of its speed for `duration` (0 = stall)
  reject_load,            // Doris answers the next `count` loads of `table` with `error`;
                          // a JDBC database fails the next `count` batches with `error`
  create_table,           // Doris: create `table`
  drop_table,             // Doris: drop `table` (open loads to it fail)
  rename_table,           // Doris: rename `table` to `to_table`
  swap_table,             // Doris: create tmp, copy `table` into it, drop `table`, rename back:
                          // the table exists again, compacted to one version
  drop_database,          // Doris: DROP DATABASE ... FORCE (tables, loads gone)
};

// Operations on an external system (Doris tables, faults), not on the job.
constexpr bool is_system_operation(ActionKind k) {
  return k == ActionKind::reject_load || k == ActionKind::create_table ||
         k == ActionKind::drop_table || k == ActionKind::rename_table ||
         k == ActionKind::swap_table || k == ActionKind::drop_database;
}

enum class StartState { latest_savepoint, checkpoint, none, latest };

// What a timeline action's time is counted from (docs/scenario-format.md, "When an action
// happens").
enum class ActionAnchor {
  time,                  // `at` from the start of the run
  job_running,           // `offset` after every time the job switches to RUNNING
  checkpoint_triggered,  // `offset` after checkpoint `checkpoint` (0: each) is triggered
  checkpoint_completed,  // ... completes
  connector_phase,       // `offset` after a connector of `phase_of` enters `phase`
};

// A connector's phase a timeline action can be anchored to (`at-phase`): a CDC source's readers
// start or finish their snapshot, or the stream (binlog) split is assigned.
enum class ConnectorPhase { snapshot_started, snapshot_finished, stream_started };

struct TimelineAction {
  SimTime at = 0;
  ActionKind kind = ActionKind::start;
  ActionAnchor anchor = ActionAnchor::time;
  Duration offset = 0;                        // after the anchor's event
  std::int64_t checkpoint = 0;                // checkpoint anchors: the id, 0 = every one
  ConnectorPhase phase = ConnectorPhase::stream_started;  // connector_phase: which one ...
  std::string phase_of;                       // ... of which source (operator name)
  std::optional<Duration> repeat_every;       // then again every so often ...
  int times = 1;                              // ... this many times in all (0 = no end)
  bool interruptible = true;                  // stall: Task's interrupt ends it on cancel
  bool until_restart = false;                 // stall: ends when the stalled task restarts;
                                              // coordinator_busy: when the coordinators reset
  // The run places it once at `at` and nothing depends on the job's life.
  bool is_fixed() const {
    return anchor == ActionAnchor::time && !repeat_every && !until_restart;
  }
  // stall / fail_task
  std::string vertex;
  std::optional<int> subtask;                 // none = every subtask of the vertex
  std::optional<Duration> duration;           // stall: none = for ever
  // start
  StartState start_state = StartState::latest_savepoint;
  std::int64_t checkpoint_id = 0;
  // start with changed configuration: the checkpointing and restart options of the new
  // submission (the rest of the Flink configuration stays as it was).
  std::shared_ptr<const FlinkConfig> flink;
  // external systems
  std::string system;
  std::string table;
  std::string to_table;
  double factor = 1.0;
  int count = 1;
  std::string error;
  double rate = 0;                            // set_rate: records per second per subtask
  int taskmanager = 0;                        // gc_pause / lose_taskmanager: 0-based
  std::int64_t timers = 0;                    // fire_timers: how many per subtask
  // fire_timers: the operator opts in to interruptible timers (a SQL/Table operator or CEP;
  // DataStream's WindowOperator and KeyedProcessOperator do not, in 1.20)
  bool timers_interruptible_operator = false;
  std::string coordinator;                    // coordinator_busy: the coordinator's name
  std::string work;                           // ... what its thread is busy with
};

struct JobManagerSpec {
  std::vector<MasterStepSpec> master_steps;   // coordinators first, then hooks, as Flink orders
};

// How the network moves data (docs/scenario-format.md, "network"): exact moves every buffer;
// hybrid moves them too, but skips whole sample periods in which the job runs steadily (its
// rates, queues and thread times repeat), accounting for them from the last period
// (sim/model/network/hybrid_network.hpp).
enum class NetworkMode { exact, hybrid };
const char* to_string(NetworkMode m);  // "exact", "hybrid"

struct Scenario {
  std::string name = "scenario";
  std::string description;
  std::string file;                           // where it came from, for messages
  std::uint64_t seed = 1;
  std::int64_t start_epoch_ms = 1720614600000;  // 2024-07-10 12:30:00 UTC
  Duration duration = core::kHour;
  // Period of the per-subtask time series (busy/idle/back-pressured time, queues, throughput);
  // 0 = none (sweeps turn it off).
  Duration sample_period = core::kSecond;
  NetworkMode network = NetworkMode::hybrid;
  FlinkConfig flink;
  ClusterSpec cluster;
  JobSpec job;
  JobManagerSpec jobmanager;
  SystemsSpec systems;
  std::vector<TimelineAction> timeline;       // sorted by `at` (stable)
};

}  // namespace ckptsim::model
