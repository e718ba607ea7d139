// SubtaskCheckpointCoordinatorImpl for every subtask: checkpointState once the barrier handler
// (or a source's trigger mail) decides (checkAndClearAbortedStatus, R5), the sink writers'
// prepareSnapshotPreBarrier (flush / prepareCommit), broadcasting the barrier downstream before
// the sync part (R2), the synchronous part by state backend (takeSnapshotSync), the aligned
// checkpoint's output timeout (registerAlignmentTimer, R14), the asynchronous upload to
// checkpoint storage (AsyncCheckpointRunnable) with channel state, and the acknowledgement to
// the JobManager (checkpoint_storage.hpp shares the storage bandwidth among uploads).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/model/checkpoint_coordinator.hpp"
#include "sim/model/checkpoint_storage.hpp"
#include "sim/model/connectors/connector.hpp"
#include "sim/model/task/task_part.hpp"

namespace ckptsim::model {

class SubtaskCheckpointCoordinator final : public TaskPart,
                                           public core::EventHandler,
                                           private CheckpointStorage::Listener {
 public:
  struct SyncPhase {  // a subtask's checkpoint between barrier broadcast and sync end
    Buffer barrier;
    SimTime started = 0;           // first barrier (or trigger) processed
    Duration alignment = 0;
    std::int64_t processed_bytes = 0;
    std::int64_t persisted_bytes = 0;   // channel state (unaligned): output + input
    SimTime sync_end = 0;
    Duration pre_barrier = 0;           // prepareSnapshotPreBarrier (a sink's prepareCommit)
    Duration sync = 0;                  // the synchronous part (sync_duration)
    SimTime sync_started = 0;           // when the synchronous part began
    std::string law{};                  // a growing operators' cost, with its quantities
    std::int64_t bytes_read = 0;        // the bytes since the last checkpoint it read
  };

  explicit SubtaskCheckpointCoordinator(TaskExecutor& executor);

  void checkpoint_state(int id, const Buffer& barrier, SimTime started, Duration alignment,
                        std::int64_t processed, std::int64_t persisted_input = 0);
  // A checkpoint the hybrid network replays (HybridNetwork::replay_checkpoint): at `at`, what
  // checkpoint_state does at this subtask, and at the end of its synchronous part what
  // finish_sync_phase does, without a barrier (none is sent) or the task's thread (the replayed
  // samples hold its time). Both events are quiet.
  void replay_state(int id, SimTime at, const Buffer& barrier, SimTime started,
                    Duration alignment, std::int64_t processed, std::int64_t persisted);
  // The acknowledgement goes once the sync part ended, the channel state is complete and the
  // output barriers left (or timed out).
  void maybe_send_ack(int id);
  // The output timeout's mail: barriers still queued become unaligned (R14).
  void convert_output_barriers(int id, std::int64_t checkpoint);
  // Input channel state recorded for the unaligned checkpoint in progress.
  void add_persisted_bytes(int id, std::int64_t bytes) {
    sync_phases_[static_cast<std::size_t>(id)].persisted_bytes += bytes;
  }
  void set_alignment(int id, Duration alignment) {
    sync_phases_[static_cast<std::size_t>(id)].alignment = alignment;
  }
  void resize(std::size_t subtasks) { sync_phases_.resize(subtasks); }
  // New attempts of the subtasks `in` marks (or those cancelled): their uploads in flight are
  // dropped.
  void reset(const std::vector<char>& in);
  // A new submission: its first checkpoint pays the storage's cold start again.
  void job_submitted() { cold_checkpoint_ = -1; }
  std::int64_t upload_remaining(std::uint64_t token) const { return storage_.remaining_bytes(token); }
  double bandwidth_per_upload() const { return storage_.bandwidth_per_upload(); }
  const SyncPhase& sync_phase(int id) const { return sync_phases_[static_cast<std::size_t>(id)]; }

  void on_event(std::uint32_t kind, std::uint64_t arg) override;
  // An acknowledgement travels to the JobManager; the task's thread is done with it.
  bool quiet(std::uint32_t kind) const override {
    return kind == kAckArrives || kind == kReplayState || kind == kReplaySyncDone;
  }

 private:
  enum Event : std::uint32_t {
    kSyncDone, kAckArrives, kOutputTimer, kPrepareThrew, kReplayState, kReplaySyncDone
  };
  struct Replay {  // replay_state's
    std::uint64_t subtask_arg = 0;
    SyncPhase phase;
  };
  struct PendingAck {
    std::int64_t id = 0;
    TaskRef task;
    SubtaskAck metrics;
    TaskSnapshot state;
    std::uint32_t generation = 0;
    int subtask = 0;
    SimTime sync_end = 0;  // its own sync part's end: the subtask may start the next one first
  };
  struct PrepareFailure {  // a sink's prepareCommit threw
    std::uint64_t subtask_arg = 0;
    std::int64_t checkpoint = 0;
    ConnectorException cause;
  };
  // The synchronous part of a snapshot: the operator's (sync-snapshot) plus the state
  // backend's; a RocksDB native checkpoint flushes the memtable (flushed_state_size moves on).
  Duration sync_duration(Subtask& s, const Buffer& barrier);
  void finish_sync_phase(int id);
  void send_ack(int id);
  void upload_finished(std::uint64_t token) override;

  CheckpointStorage storage_;
  std::vector<SyncPhase> sync_phases_;  // per subtask
  std::vector<PendingAck> acks_;
  std::int64_t cold_checkpoint_ = -1;  // the first checkpoint of this submission (-1: none yet)
  std::vector<std::pair<std::uint64_t, std::int64_t>> timers_;  // (subtask arg, checkpoint)
  std::vector<PrepareFailure> prepare_failures_;
  std::vector<Replay> replays_;  // replay_state's, until the next replayed checkpoint
};

}  // namespace ckptsim::model
