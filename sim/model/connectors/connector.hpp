// The seams between the task runtime and connector code, modelled on Flink's connector API
// (flink-core org.apache.flink.api.connector.source and .sink2). The runtime calls these at the
// points Flink calls user code and knows no connector by name; a connector is one folder
// implementing them plus one line in registry.cpp.
//
//  - Source: the SplitEnumerator (in the SourceCoordinator, an OperatorCoordinator on the
//    JobManager) and the SourceReader of every subtask of one vertex. A reader either emits at a
//    rate (pollNext in every mailbox step) or whole batches its split fetcher read ahead (a CDC
//    snapshot chunk), and may hold the checkpoint lock (a legacy SourceFunction).
//  - Sink: the SinkWriter of every subtask of one vertex (write, which may block the task thread;
//    flush / prepareCommit at the barrier, prepareSnapshotPreBarrier) with its Committer
//    (commit at notifyCheckpointComplete, again on restore), and the OperatorCoordinator of a
//    sink that commits on the JobManager (Hudi's StreamWriteOperatorCoordinator).
//  - UserFunction: user code in an operator's processElement that calls out (a function with a
//    blocking client, or an AsyncFunction behind AsyncWaitOperator).
// Subtask indices here are 0-based within the vertex.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/simulation.hpp"
#include "sim/model/checkpoint_coordinator.hpp"
#include "sim/model/config.hpp"
#include "sim/model/network/buffer.hpp"
#include "sim/model/observer.hpp"

namespace ckptsim::model {

// What connector code may use of the runtime around it (its task's RuntimeContext, the
// TaskManager's failure path) for the vertex it belongs to.
class ConnectorContext {
 public:
  virtual ~ConnectorContext() = default;
  virtual core::Simulation& sim() = 0;
  virtual const Scenario& scenario() const = 0;
  // Events a connector schedules for subtask `index` carry its attempt's generation; those of
  // an earlier attempt are ignored.
  virtual std::uint32_t generation(int vertex, int index) const = 0;
  virtual ExecutionState state(int vertex, int index) const = 0;
  virtual TaskRef task(int vertex, int index) const = 0;
  virtual std::string task_name(TaskRef task) const = 0;
  virtual bool is_source_task(int vertex) const = 0;
  // The task thread looks at its mailbox and input again.
  virtual void wake(int vertex, int index) = 0;
  // The reader's split changed under a step in progress: the step starts over from now.
  virtual void restart_step(int vertex, int index) = 0;
  // Connector code holds the task thread for `length` (a mail: no other mail, trigger or
  // barrier runs meanwhile); `call` names the work and its law, for the diagnosis. A call that
  // is not `interruptible` (blocking JDBC reads) holds up the task's cancellation too.
  virtual void run_on_task_thread(int vertex, int index, Duration length, std::string call,
                                  bool interruptible) = 0;
  // A connector call that returned kNever (a write blocked with no known end) returns now.
  virtual void call_returned(int vertex, int index) = 0;
  // The subtask fails with an exception from connector code (Task.failExternally): it switches
  // to FAILED, then the failure reaches the JobMaster.
  virtual void switch_to_failed(int vertex, int index) = 0;
  virtual void report_failure(int vertex, int index, const std::string& exception_class,
                              const std::string& message) = 0;
  void fail_task(int vertex, int index, const std::string& exception_class,
                 const std::string& message) {
    switch_to_failed(vertex, index);
    report_failure(vertex, index, exception_class, message);
  }
  // When the operator coordinator of `vertex`'s connector is free of the work queued on its
  // thread so far (the timeline's coordinator-busy work, its own earlier actions): an action
  // submitted now runs then (the coordinator executor's FIFO); a time before now: it is free.
  virtual SimTime coordinator_free_at(int vertex) = 0;
  // Something the connector did that explains a run (the TaskManager log's side).
  virtual void connector_event(ConnectorEvent::Kind kind, int vertex, int index,
                               std::string table = {}, std::string detail = {},
                               std::int64_t rows = 0) = 0;
};

// An exception raised in connector code: its class and message.
struct ConnectorException {
  std::string exception_class;
  std::string message;
};

// A new attempt of a subtask, for its reader or writer to start from.
struct ReaderAttempt {
  int index = 0;
  int previous_attempt = -1;          // -1: the first deployment
  SimTime previous_left_running = 0;  // when the previous attempt stopped RUNNING
  std::int64_t previous_position = 0; // records the previous attempt had read
  bool has_split = true;              // the reader has a partition to read
  double configured_rate = 0;         // the vertex's records/s per subtask now
  const CompletedCheckpoint* restored = nullptr;  // the checkpoint restored (nullptr: none)
  const TaskSnapshot* state = nullptr;            // this subtask's state in it, if any
};

class Source {
 public:
  virtual ~Source() = default;

  // --- SplitEnumerator (SourceCoordinator thread on the JobManager)
  // A new job attempt: the enumerator starts again from its checkpointed state.
  virtual void restart_enumerator(SimTime /*now*/) {}
  // OperatorCoordinator.checkpointCoordinator, at the trigger of checkpoint `id`.
  virtual void checkpoint_triggered(std::int64_t /*id*/) {}
  virtual void notify_checkpoint_complete(std::int64_t /*id*/) {}
  // How long the coordinator's thread is still busy (its checkpoint waits behind that work).
  virtual Duration coordinator_busy(SimTime /*now*/) const { return 0; }

  // --- SourceReader of subtask `index`
  virtual void deploy_reader(const ReaderAttempt&) {}
  virtual void reader_running(int /*index*/) {}  // the task switched to RUNNING
  // The reader's splits are partitions: subtasks beyond `partitions:` have none.
  virtual bool reads_partitions() const { return true; }
  // Records per second the reader reads now, given the vertex's configured rate.
  virtual double rate(int /*index*/, double configured) const { return configured; }
  // The reader emits whole batches its split fetcher read ahead now (a CDC snapshot chunk).
  virtual bool emits_batch(int /*index*/) const { return false; }
  // Whole batches the split fetcher reads ahead: when the next is ready (kNever: none will be),
  // or nullopt if the reader reads at its rate now.
  virtual std::optional<SimTime> next_batch_ready(int /*index*/) { return std::nullopt; }
  struct Batch {
    std::int64_t records = 0;
    std::int32_t table = Buffer::kNoTable;
  };
  // The batch that is ready (after next_batch_ready said when).
  virtual Batch poll_batch(int /*index*/) { return {}; }
  // A step at the rate: of the `records` due, how many can be read, and their table.
  virtual Batch poll(int /*index*/, std::int64_t records, double /*configured_rate*/) {
    return {records, Buffer::kNoTable};
  }
  // The reader's loop holds the checkpoint lock (a legacy SourceFunction's snapshot phase).
  virtual bool holds_checkpoint_lock(int /*index*/) const { return false; }
  // A step is emitted in one go (no mail runs between its records).
  virtual bool emits_steps_whole() const { return false; }
  // The reader emits batches its fetcher read ahead (next_batch_ready is used).
  virtual bool reads_ahead_batches() const { return false; }
  // The tables a reader's records belong to (Buffer::table indexes them) and each one's share
  // of the changes when records are spread over all of them (Buffer::kAllTables).
  virtual const std::vector<std::string>* tables() const { return nullptr; }
  virtual std::vector<double> change_shares() const { return {}; }
  virtual void snapshot_state(int /*index*/, TaskSnapshot&) const {}
  // Why a checkpoint trigger waits at this reader (a lock, a batch in one step).
  virtual void explain_wait(int /*index*/, bool /*busy_with_batch*/, std::int64_t /*batch_records*/,
                            SimTime /*batch_started*/, WaitState&) const {}
};

class Sink {
 public:
  virtual ~Sink() = default;
  // A new attempt of writer `index` (its committables restored and committed again), restored
  // from checkpoint `restored_checkpoint` (0: none).
  virtual void deploy_writer(int /*index*/, const TaskSnapshot* /*restored*/,
                             std::int64_t /*restored_checkpoint*/) {}
  // Fails the writer's initialisation (SinkWriter creation / initializeState).
  virtual std::optional<ConnectorException> init_failure(int /*index*/,
                                                         std::int64_t /*restored_checkpoint*/) const {
    return std::nullopt;
  }
  // SinkWriter.write for a buffer's records, `cpu` the operator's own cost: the time the task
  // thread spends (kNever: it never returns).
  virtual Duration write(int index, const Buffer& buffer, Duration cpu) = 0;
  // Whether writes block the thread in the connector (no mail runs inside them).
  virtual bool writes_block_thread() const { return false; }
  // SinkWriter.flush / prepareCommit before the barrier goes on (prepareSnapshotPreBarrier):
  // the time it takes (kNever: for ever), or the exception it throws.
  struct Prepared {
    Duration took = 0;
    std::optional<ConnectorException> thrown;
  };
  virtual Prepared prepare_commit(int index, std::int64_t checkpoint) = 0;
  virtual void snapshot_state(int /*index*/, TaskSnapshot&) const {}
  // Committer.commit at notifyCheckpointComplete: the time it takes the task thread (on top of
  // the vertex's notify-complete cost), or the exception it throws (the task fails after it).
  struct Committed {
    Duration took = 0;
    std::optional<ConnectorException> thrown;
  };
  virtual Committed notify_checkpoint_complete(int /*index*/, std::int64_t /*id*/) { return {}; }
  // Why the task thread is inside the writer (true if it is).
  virtual bool explain_wait(int /*index*/, WaitState&) const { return false; }
  // Writer `index`'s attempt is cancelled: its open transactions are aborted.
  virtual void cancel(int /*index*/) {}

  // --- The sink's OperatorCoordinator on the JobManager, if it has one.
  virtual bool has_coordinator() const { return false; }
  // OperatorCoordinator.notifyCheckpointComplete / notifyCheckpointAborted: the coordinator
  // submits its action to its thread.
  virtual void coordinator_checkpoint_complete(std::int64_t /*id*/) {}
  virtual void coordinator_checkpoint_aborted(std::int64_t /*id*/) {}
  // How long the coordinator's thread is still busy with the sink's own actions.
  virtual Duration coordinator_busy(SimTime /*now*/) const { return 0; }
};

class UserFunction {
 public:
  virtual ~UserFunction() = default;
  // A new attempt of subtask `index` opens the function (RichFunction.open).
  virtual void open(int /*index*/) {}
  // processElement for a buffer's records, `cpu` the operators' own cost: the time the task
  // thread spends (kNever: it never returns).
  virtual Duration process(int index, const Buffer& buffer, Duration cpu) = 0;
  // A priority mail cut the buffer in progress after `done` of its `records` records (the mailbox
  // runs mails between records): the rest comes to `process` again and must not call twice.
  virtual void cut(int /*index*/, std::int64_t /*done*/, std::int64_t /*records*/) {}
  // The time the function adds per input record now, for the diagnosis's drain rates.
  virtual double seconds_per_record(int /*index*/) const { return 0; }
  // Why the task thread is inside the function (true if it is).
  virtual bool explain_wait(int /*index*/, WaitState&) const { return false; }
  // Subtask `index`'s attempt ends (cancelled or failed): its requests in flight are dropped.
  virtual void close(int /*index*/) {}
};

// An external system connectors talk to (a database, a broker) as a resource of its own: the
// timeline's operations on it, and what happens to it when the job is submitted.
class ExternalSystem {
 public:
  virtual ~ExternalSystem() = default;
  virtual void job_submitted() {}  // tools that run before a submission (creating tables)
  virtual void system_action(const TimelineAction&) {}
};

// The connectors of a job: per vertex its source (if a connector reads it), its sinks (the
// sink operators chained into it) and its functions that call services, and the external
// systems.
struct Connectors {
  struct OfVertex {
    std::unique_ptr<Source> source;
    std::vector<std::unique_ptr<Sink>> sinks;
    std::vector<std::unique_ptr<UserFunction>> functions;  // in chain order
  };
  std::vector<OfVertex> vertices;
  std::vector<std::unique_ptr<ExternalSystem>> systems;
};

// A connector's factory: adds its sources, sinks and systems for the vertices it serves.
using ConnectorFactory = void (*)(const Scenario&, ConnectorContext&, Connectors&);

// Every registered connector's factory applied to the scenario (registry.cpp: one line each).
Connectors make_connectors(const Scenario& scenario, ConnectorContext& context);

}  // namespace ckptsim::model
