// What one run produced, as plain data: the checkpoint history with per-subtask statistics,
// job status changes, Flink log records and counters. Built by the Recorder; read by the
// writers (Flink log, REST JSON, summary) and by analysis. No model objects inside.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/model/config.hpp"
#include "sim/model/observer.hpp"
#include "sim/model/types.hpp"

namespace ckptsim::run {

using core::Duration;
using core::SimTime;

enum class LogLevel { debug, info, warn, error };

// Where a logged Flink exception was created, which decides its stack frames
// (writers/java_stack_frames.hpp).
enum class ThrowSite {
  none,  // frames not derived from Flink's source (connector, synthetic, TaskManager-side): none
  checkpoint_canceller,  // CheckpointCoordinator$CheckpointCanceller.run: CHECKPOINT_EXPIRED
  // CheckpointFailureManager.checkFailureAgainstCounter's FlinkRuntimeException, reached from the
  // canceller's abortPendingCheckpoint (handleJobLevelCheckpointException)
  failure_threshold_from_canceller,
};

// One line of Flink's log4j2 layout plus the throwable lines printed under it.
struct LogRecord {
  SimTime time = 0;
  LogLevel level = LogLevel::info;
  std::string logger;                    // fully qualified, e.g. org.apache...CheckpointCoordinator
  std::string message;
  std::vector<std::string> throwable;    // "org...CheckpointException: ..." and "\tat ..." lines
};

struct VertexInfo {
  std::string id;                        // 32 lowercase hex chars, stable per scenario
  std::string name;
  int parallelism = 1;
  int input = -1;          // the upstream vertex (-1: a source)
  bool pointwise = false;  // forward from an upstream of the same parallelism: subtask i reads i
  model::ShipStrategy ship = model::ShipStrategy::forward;  // of the edge from `input`
  std::int64_t record_size = 100;  // bytes per output record (numBytesOut per numRecordsOut)
};

// The current execution attempt of one subtask (Execution: its attempt number and state
// timestamps), for /jobs/:jid and /jobs/:jid/vertices/:vid. -1: the attempt never entered (or
// has not left) that state.
struct SubtaskExecution {
  int attempt = 0;
  std::array<SimTime, model::kExecutionStateCount> entered = filled();
  std::array<SimTime, model::kExecutionStateCount> left = filled();

  static constexpr std::array<SimTime, model::kExecutionStateCount> filled() {
    std::array<SimTime, model::kExecutionStateCount> a{};
    for (SimTime& t : a) t = -1;
    return a;
  }
};

enum class CheckpointStatus { in_progress, completed, failed };

struct SubtaskStats {
  bool acknowledged = false;
  // Reported after the checkpoint failed (a late acknowledgement): Flink's SubtaskStateStats
  // with isCompleted() false. Its sizes count in the checkpoint's and task's totals and REST
  // shows it as "completed" with "aborted": true, but it is not an acknowledged subtask.
  bool aborted = false;
  SimTime ack_time = -1;
  std::int64_t checkpointed_size = 0;
  std::int64_t state_size = 0;
  Duration sync_duration = 0;
  Duration async_duration = 0;
  Duration alignment_duration = 0;
  Duration start_delay = 0;
  std::int64_t processed_bytes = 0;
  std::int64_t persisted_bytes = 0;
  bool unaligned = false;
};

// What an unacknowledged subtask was waiting for when its checkpoint expired.
struct WaitRecord {
  int vertex = 0;
  int subtask = 0;
  std::string kind;                    // blocked_in_user_call, barrier_behind_data, aligning, ...
  int upstream_vertex = -1;            // the channel concerned: its producer (-1: none)
  int upstream_subtask = -1;
  std::int64_t bytes_ahead = 0;        // data bytes queued ahead of the barrier
  double drain_bytes_per_second = 0;   // how fast the subtask drains that channel when it runs
  bool back_pressured = false;         // its own output is full, so it drains nothing
  int channels_aligned = 0;
  int channels_total = 0;
  SimTime since = 0;
  // sink_write / sink_stop_load: the Doris table, until when the call returns (core::kNever:
  // never) and the stream load's failure that keeps it there (failed_at < 0: none).
  std::string table;
  SimTime until = 0;
  SimTime failed_at = -1;
  std::string error;
  std::string call;                    // sink_flush: the call, in the connector's words
  std::int64_t chunk_rows = 0;         // a CDC source emitting a whole snapshot chunk in one step
};

// A connector's own event (the TaskManager side): snapshot phases, Doris load failures.
struct ConnectorRecord {
  SimTime time = 0;
  model::ConnectorEvent event;
};

struct CheckpointRecord {
  std::int64_t id = 0;
  CheckpointStatus status = CheckpointStatus::in_progress;
  model::SnapshotType type = model::SnapshotType::checkpoint;
  bool periodic = true;
  SimTime trigger_time = 0;
  SimTime latest_ack_time = -1;          // -1: no acknowledgement yet
  SimTime end_time = -1;                 // completion or failure time
  std::optional<model::CheckpointFailureReason> failure_reason;
  std::string failure_message;
  std::string external_path;             // completed ones
  bool discarded = false;
  int num_subtasks = 0;
  int num_acknowledged = 0;
  std::vector<std::vector<SubtaskStats>> subtasks;  // [vertex][subtask]
  std::vector<WaitRecord> waits;       // expired checkpoints: why each late subtask waited
  // A checkpoint still pending at half its timeout: why the subtasks not acknowledged then
  // waited; once it completes, only the one that acknowledged last (its slowest subtask).
  std::vector<WaitRecord> slow_waits;
  SimTime slow_probe_time = -1;
  // An imported (real) checkpoint: the size its completion line gave (-1: none, or simulated,
  // whose sizes are the subtasks').
  std::int64_t imported_size = -1;
};

// One sample period of one subtask (timeseries.csv): Flink's busy / back-pressured / idle time
// and the subtask's queues and throughput.
struct TaskSampleRow {
  SimTime end = 0;
  int vertex = 0;
  int subtask = 0;
  model::TaskSample sample;
};

struct JobStatusChange {
  SimTime time = 0;
  model::JobStatus from = model::JobStatus::created;
  model::JobStatus to = model::JobStatus::created;
};

struct RestoreRecord {
  std::int64_t id = 0;
  SimTime time = 0;
  bool is_savepoint = false;
  std::string external_path;
};

struct CheckpointCounts {
  std::int64_t restored = 0, total = 0, in_progress = 0, completed = 0, failed = 0;
};

struct RunResult {
  std::string scenario_name;
  std::string job_id;                    // 32 lowercase hex chars derived from the scenario
  std::string job_name;
  model::FlinkVersion flink_version = model::FlinkVersion::v1_17;
  std::int64_t start_epoch_ms = 0;       // wall clock of simulated time 0
  SimTime end_time = 0;                  // simulated time when the run stopped
  bool stopped_early = false;            // stopped before the scenario's duration (--max-wall)
  // A real job's result read by `ckptsim import`: its files and the Flink version they state or
  // suggest (empty: a simulated run).
  std::string imported_from;
  std::string imported_version;
  std::uint64_t seed = 0;
  model::FlinkConfig flink;              // as resolved
  int taskmanagers = 1;
  int slots_total = 1;
  std::vector<VertexInfo> vertices;
  // The checkpoints of the latest submission of the job, as its REST API shows them, in trigger
  // order; those of earlier submissions (before a stop and start) are in earlier_checkpoints.
  std::vector<CheckpointRecord> checkpoints;
  std::vector<CheckpointRecord> earlier_checkpoints;
  int submissions = 1;
  CheckpointCounts counts;
  // When the latest submission's counts moved without a history entry: failures reported with
  // no pending checkpoint (reportFailedCheckpointsWithoutInProgress) and restores; what
  // result_at() needs to give the counts of an earlier instant.
  std::vector<SimTime> failures_without_checkpoint;
  std::vector<RestoreRecord> restores;  // every restore, oldest first
  std::optional<RestoreRecord> latest_restored;
  std::vector<JobStatusChange> job_status_changes;
  model::JobStatus final_status = model::JobStatus::created;
  std::vector<model::ExecutionState> final_task_states;  // one per subtask, vertex-major
  int failovers = 0;                     // global failovers
  int restarts = 0;                      // restarts that actually happened
  std::int64_t replayed_records = 0;
  std::int64_t lost_records = 0;         // in Kafka transactions the broker aborted
  // Records from their read at a source to the end of their processing at a sink, over the
  // whole run (every submission): how many, and their mean, p50 and p99 in milliseconds.
  struct Latency {
    std::int64_t records = 0;
    double mean_ms = 0;
    double p50_ms = 0;
    double p99_ms = 0;
  };
  Latency end_to_end_latency;
  std::vector<LogRecord> log;
  std::vector<TaskSampleRow> timeseries;  // ordered by (end, vertex, subtask)
  std::vector<ConnectorRecord> connector_events;
  // Task failures (RUNNING -> FAILED) that made the job fail over, with their exception.
  struct TaskFailure {
    SimTime time = 0;
    int vertex = 0;
    int subtask = 0;
    std::string exception_class;
    std::string message;
    int attempt = 0;  // the failed execution attempt
  };
  std::vector<TaskFailure> task_failures;
  // Global failures (e.g. the CheckpointFailureManager's "Exceeded checkpoint tolerable failure
  // threshold"), as the scheduler's global failover received them.
  struct GlobalFailure {
    SimTime time = 0;
    std::string exception_class;
    std::string message;
    ThrowSite site = ThrowSite::none;  // where the exception was created, for its frames
  };
  std::vector<GlobalFailure> global_failures;
  // When the latest submission was received: its ExecutionGraph's status timestamps start here.
  SimTime submission_time = 0;
  // The current execution attempt of every subtask, vertex-major (empty for hand-built results).
  std::vector<SubtaskExecution> executions;
  std::uint64_t events_executed = 0;
  std::uint64_t buffers_transferred = 0;  // network buffers and events moved to input channels
  // How the network ran (scenario key `network`), and with hybrid the simulated time it
  // skipped as steady (in how many skips, from how many references, with how many checkpoints'
  // windows replayed).
  model::NetworkMode network = model::NetworkMode::exact;
  Duration network_skipped = 0;
  std::int64_t network_skips = 0;
  std::int64_t network_references = 0;
  std::int64_t network_replayed = 0;
};

// Epoch milliseconds of a simulated instant.
inline std::int64_t epoch_ms(const RunResult& r, SimTime t) {
  return r.start_epoch_ms + t / core::kMillisecond;
}

}  // namespace ckptsim::run
