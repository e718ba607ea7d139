// The facts the model reports while it runs. The model never logs or formats: the Flink log,
// the REST JSON and the summary are views built from these facts by sim/run's Recorder.
// Every method has an empty default so a test can listen to just what it checks.
#pragma once

#include <cstdint>
#include <string>

#include "sim/model/connectors/cdc/data_source_dialect.hpp"
#include "sim/model/types.hpp"
#include "sim/core/time.hpp"

namespace ckptsim::model {

using core::Duration;
using core::SimTime;

// What one subtask reported with its acknowledgement (SubtaskStateStats / CheckpointMetrics).
struct SubtaskAck {
  TaskRef task;
  std::int64_t checkpointed_size = 0;   // bytes persisted by this checkpoint
  std::int64_t state_size = 0;          // full state size
  Duration sync_duration = 0;
  Duration async_duration = 0;
  Duration alignment_duration = 0;
  Duration start_delay = 0;
  std::int64_t processed_bytes = 0;     // during alignment
  std::int64_t persisted_bytes = 0;     // channel state (unaligned)
  bool unaligned = false;
};

struct CheckpointStart {
  std::int64_t id = 0;
  SnapshotType type = SnapshotType::checkpoint;
  SimTime trigger_time = 0;            // the JM's trigger timestamp
  int num_subtasks = 0;
  bool periodic = true;
};

struct RestoreInfo {
  std::int64_t id = 0;
  SnapshotType type = SnapshotType::checkpoint;  // of what was restored
  SimTime snapshot_trigger_time = 0;
  std::string external_path;
};

// Why a subtask has not acknowledged a checkpoint yet (for the diagnosis; plain numbers).
struct WaitState {
  enum class Kind {
    not_running,          // the task is not RUNNING
    blocked_in_user_call, // stalled: the thread is inside a call that does not return
    trigger_not_run,      // a source's trigger mail waits for the thread
    checkpoint_lock,      // a legacy source holds the checkpoint lock while back-pressured
    barrier_behind_data,  // a barrier queued behind data on an input channel
    barrier_not_sent,     // an upstream has not emitted the barrier yet
    aligning,             // some channels delivered the barrier, others not
    async_upload,         // snapshot taken, upload/acknowledgement in flight
    acknowledged,
    sink_write,           // the thread is blocked writing into a sink (Doris RecordBuffer full)
    sink_stop_load,       // prepareCommit waits for a Doris stream load to finish (stopLoad)
    cdc_snapshot_lock,    // the legacy (1.x) MySQL CDC source holds the lock for its snapshot
    coordinator,          // the trigger waits for an operator coordinator's checkpoint (JM side)
    lock_held,            // a legacy source holds the checkpoint lock (until its next record,
                          // or until `until`)
    sink_flush,           // the thread is in a sink writer's flush (`call` says which, in
                          // the connector's words) until `until`
    in_call,              // the thread runs other long work (`call`: firing timers, a
                          // connector's call) until `until`
  } kind = Kind::not_running;
  bool has_upstream = false;
  TaskRef upstream;                 // the producer of the channel concerned
  std::int64_t bytes_ahead = 0;     // data bytes queued ahead of the barrier on that channel
  double drain_bytes_per_second = 0;
  int channels_aligned = 0;         // aligning: channels that delivered the barrier
  int channels_total = 0;
  SimTime since = 0;                // when the current state began (stall start, alignment start)
  bool back_pressured = false;      // the subtask's own output is full: it drains nothing
  // sink_write / sink_stop_load: the table, until when (kNever: for ever), and the load's
  // failure if Doris ended it (failed_at < 0: none).
  std::string table;
  SimTime until = 0;
  SimTime failed_at = -1;
  std::string error;
  // sink_flush: the call the thread is in, as its connector names it.
  std::string call;
  // A source emitting a whole CDC chunk in one mailbox step: the rows of that chunk.
  std::int64_t chunk_rows = 0;
};

// Something a connector did that explains a run (the TaskManager side, not in the JM log).
struct ConnectorEvent {
  enum class Kind {
    cdc_snapshot_started,   // a reader starts snapshotting (rows = its share)
    cdc_snapshot_finished,  // a reader read all its chunks
    cdc_binlog_waiting,     // all chunks read, the binlog split waits for a checkpoint (p > 1)
    cdc_assigner_finished,  // the snapshot split assigner is finished (rows = parallelism)
    cdc_binlog_started,     // the binlog split is assigned
    doris_load_failed,      // Doris rejected or cancelled a stream load (error)
    doris_failure_detected, // the checker thread noticed (sink.check-interval > 1000 ms)
    kafka_txn_lost,         // a Kafka transaction the broker had aborted: rows lost
    kafka_txn_recommitted,  // a restored Kafka transaction committed on restore
    task_cancel_stuck,      // TaskInterrupter: the cancelled task's thread is stuck (detail: in
                            // what; rows: seconds)
    taskmanager_fatal_error,  // TaskCancelerWatchDog: it did not exit within rows seconds
  } kind = Kind::cdc_snapshot_started;
  TaskRef task;
  std::string table;
  std::string detail;       // Doris's error, the startup mode, ...
  std::int64_t rows = 0;
  CdcDialect dialect = CdcDialect::mysql;  // the CDC events' source
};

// One sample period of one subtask, from its thread's state transitions (TaskIOMetricGroup's
// busy / idle / back-pressured time) plus its queues at the end of the period.
struct TaskSample {
  SimTime start = 0;
  Duration period = 0;            // time covered: the sample period, less in a first window
  Duration busy = 0;             // processing, snapshotting, or blocked in a user call
  Duration back_pressured = 0;   // soft back-pressure: output unavailable
  Duration idle = 0;             // no input (or, a source, nothing to read yet)
  int input_buffers = 0;         // buffers and events queued in its input channels
  int output_buffers = 0;        // data buffers queued in its subpartitions
  std::int64_t records_in = 0;   // records consumed in the period (sources: read)
  std::int64_t records_out = 0;  // records written in the period
};

class Observer {
 public:
  virtual ~Observer() = default;

  // A (new) submission of the job: a new ExecutionGraph, coordinator and statistics.
  virtual void job_submitted(SimTime, int /*submission*/) {}
  // SchedulerBase.triggerSavepoint / stopWithSavepoint was called.
  virtual void savepoint_requested(SimTime, bool /*stop_with_savepoint*/) {}
  // Job and task lifecycle (DefaultExecutionGraph / Execution state transitions).
  virtual void job_status_changed(SimTime, JobStatus /*from*/, JobStatus /*to*/) {}
  virtual void task_state_changed(SimTime, TaskRef, ExecutionState /*from*/,
                                  ExecutionState /*to*/) {}

  // CheckpointCoordinator
  virtual void checkpoint_triggered(SimTime, const CheckpointStart&) {}
  virtual void checkpoint_acknowledged(SimTime, std::int64_t /*id*/, const SubtaskAck&) {}
  virtual void checkpoint_completed(SimTime, std::int64_t /*id*/, std::int64_t /*bytes*/,
                                    Duration /*duration*/, Duration /*finalization*/,
                                    const std::string& /*external_path*/) {}
  virtual void checkpoint_expired(SimTime, std::int64_t /*id*/) {}
  // At expiry (slow: at half the timeout), for every subtask that had not acknowledged: what it
  // was waiting for.
  virtual void checkpoint_wait(SimTime, std::int64_t /*id*/, TaskRef, const WaitState&,
                               bool /*slow*/) {}
  virtual void checkpoint_declined(SimTime, std::int64_t /*id*/, TaskRef,
                                   const CheckpointException&) {}
  // The JobMaster lost a TaskManager that shut down (disconnectTaskManager's cause).
  virtual void taskmanager_disconnected(SimTime, int /*tm*/, const std::string& /*cause*/) {}
  // A pending checkpoint was aborted (its stats entry becomes FAILED).
  virtual void checkpoint_aborted(SimTime, std::int64_t /*id*/, const CheckpointException&) {}
  virtual void trigger_rpc_failed(SimTime, std::int64_t /*id*/, const CheckpointException&) {}
  virtual void late_message(SimTime, std::int64_t /*id*/, TaskRef) {}
  // An acknowledgement for a checkpoint that is no longer pending: reportStats hands its metrics
  // to the stats tracker, which records them in the checkpoint's history entry if that is still
  // a PendingCheckpointStats (a FailedCheckpointStats is one), as a subtask that is not
  // completed (CheckpointCoordinator.reportStats, DefaultCheckpointStatsTracker
  // .reportIncompleteStats).
  virtual void late_subtask_stats(SimTime, std::int64_t /*id*/, const SubtaskAck&) {}
  virtual void checkpoint_id_reset(SimTime, std::int64_t /*next_id*/) {}
  virtual void restored(SimTime, const RestoreInfo&) {}
  virtual void no_checkpoint_found(SimTime, bool /*global*/) {}
  virtual void starting_from_savepoint(SimTime, const RestoreInfo&) {}
  virtual void coordinator_shutdown(SimTime) {}

  // CheckpointRequestDecider: a request that waited > 100 ms in the queue starts.
  virtual void request_queue_time(SimTime, Duration /*waited*/) {}

  // CheckpointFailureManager.handleCheckpointException: id is -1 when no pending checkpoint
  // existed; counter_before is the continuous-failure counter before this failure is counted.
  virtual void checkpoint_failure_handled(SimTime, std::int64_t /*id*/,
                                          const CheckpointException&, int /*counter_before*/,
                                          bool /*had_pending_stats*/) {}

  // Scheduler: global failover and restarts.
  virtual void global_failure(SimTime, const std::string& /*exception_class*/,
                              const std::string& /*message*/, int /*tasks_to_restart*/) {}
  virtual void restart_suppressed(SimTime, const std::string& /*strategy*/) {}
  // DefaultScheduler.restartTasksWithDelay for the failure just reported (task_failed or
  // global_failure): its tasks wait to restart (also when the job is already RESTARTING).
  virtual void restarting_tasks(SimTime) {}
  // A task failed (Execution RUNNING -> FAILED) with this exception; the job fails over.
  virtual void task_failed(SimTime, TaskRef, const std::string& /*exception_class*/,
                           const std::string& /*message*/, int /*tasks_to_restart*/) {}
  virtual void connector_event(SimTime, const ConnectorEvent&) {}
  // A sample period of a subtask ended (only while it is RUNNING).
  virtual void task_sample(SimTime, TaskRef, const TaskSample&) {}
  // notifyCheckpointComplete / notifyCheckpointAborted ran in a task's mailbox.
  virtual void task_notified(SimTime, TaskRef, std::int64_t /*id*/, bool /*complete*/) {}
  // The SourceCoordinator of the FLIP-27 source `source` (its operator name) was told that
  // checkpoint `id` completed or was aborted.
  virtual void source_coordinator_notified(SimTime, std::int64_t /*id*/,
                                           const std::string& /*source*/, bool /*complete*/) {}
};

}  // namespace ckptsim::model
