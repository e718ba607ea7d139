// SubtaskCheckpointCoordinatorImpl; see subtask_checkpoint_coordinator.hpp.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "sim/model/checkpointing/barrier_handler.hpp"
#include "sim/model/checkpointing/subtask_checkpoint_coordinator.hpp"
#include "sim/model/network/network.hpp"
#include "sim/model/task/stream_task.hpp"
#include "sim/model/task/task_executor.hpp"

namespace ckptsim::model {

SubtaskCheckpointCoordinator::SubtaskCheckpointCoordinator(TaskExecutor& executor)
    : TaskPart(executor),
      storage_(sim_, scenario_.cluster.checkpoint_storage, *this,
               core::RandomStream(scenario_.seed, "checkpoint-storage")) {}

void SubtaskCheckpointCoordinator::on_event(std::uint32_t kind, std::uint64_t a) {
  switch (static_cast<Event>(kind)) {
    case kSyncDone:
      if (current(a)) finish_sync_phase(subtask_of(a));
      return;
    case kAckArrives: {
      const PendingAck& ack = acks_[a];
      if (ack.generation != x_.epoch(ack.subtask)) return;
      Subtask& s = sub(ack.subtask);
      s.acked_checkpoint = std::max(s.acked_checkpoint, ack.id);
      listener_.acknowledge_checkpoint(ack.id, ack.task, ack.metrics, ack.state);
      return;
    }
    case kOutputTimer: {
      // The output timeout fires as a mail: it waits for the task thread.
      const auto [sa, cp] = timers_[a];
      if (!current(sa)) return;
      const int id = subtask_of(sa);
      Subtask& s = sub(id);
      if (s.output_checkpoint != cp || s.output_barriers_queued == 0) return;
      s.output_timeout_mail = cp;
      tasks().yield_to_mail(id);
      tasks().wake(id);
      return;
    }
    case kReplayState: {
      const Replay& r = replays_[a];
      if (!current(r.subtask_arg)) return;
      const int id = subtask_of(r.subtask_arg);
      Subtask& s = sub(id);
      const std::int64_t cp = r.phase.barrier.checkpoint_id;
      x_.hybrid_network().catch_up_to_snapshot(id, cp);  // the counters it reads and resets
      s.last_checkpoint_taken = std::max(s.last_checkpoint_taken, cp);
      if (s.aborted.erase(cp) > 0) return;  // aborted at the JobManager first (R5)
      SyncPhase& phase = sync_phases_[static_cast<std::size_t>(id)];
      phase = r.phase;
      phase.sync_started = sim_.now();
      if (vertex(s).sync_snapshot.grows())
        phase.law = vertex(s).sync_snapshot.describe(x_.cost_inputs(s));
      phase.sync = sync_duration(s, phase.barrier);
      x_.hybrid_network().replayed_sync(id, phase.sync);
      sim_.schedule_in(phase.sync, this, kReplaySyncDone, r.subtask_arg);
      return;
    }
    case kReplaySyncDone: {
      if (!current(a)) return;
      const int id = subtask_of(a);
      Subtask& s = sub(id);
      SyncPhase& phase = sync_phases_[static_cast<std::size_t>(id)];
      x_.hybrid_network().catch_up(id);  // what the acknowledgement reports
      phase.sync_end = sim_.now();
      s.uploading_checkpoint = std::max(s.uploading_checkpoint, phase.barrier.checkpoint_id);
      s.uc_ack_waiting = true;
      maybe_send_ack(id);
      return;
    }
    case kPrepareThrew: {
      // StreamTask fails the task with "Could not perform checkpoint N for operator ..." (an
      // Exception from triggerCheckpointAsyncInMailbox at a source, an IOException from
      // triggerCheckpointOnBarrier otherwise), field B7.
      const PrepareFailure& f = prepare_failures_[a];
      if (!current(f.subtask_arg)) return;
      Subtask& s = sub(subtask_of(f.subtask_arg));
      if (s.state != ExecutionState::running) return;
      x_.set_state(s, ExecutionState::failed);
      const TaskRef t{s.vertex, s.index, s.attempt};
      listener_.task_failed(t, is_source(s) ? "java.lang.Exception" : "java.io.IOException",
                            "Could not perform checkpoint " + std::to_string(f.checkpoint) +
                                " for operator " + x_.task_name(t) + "#" +
                                std::to_string(s.attempt) + ".\nCaused by: " +
                                f.cause.exception_class + ": " + f.cause.message);
      return;
    }
  }
}

void SubtaskCheckpointCoordinator::checkpoint_state(int id, const Buffer& barrier, SimTime started,
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
    network().close_builders(s, &marker);
    network().unblock_all_inputs(s);
    tasks().wake(id);
    return;
  }
  std::size_t outputs = 0;
  for (const OutputGroup& g : s.outputs) outputs += g.channels.size();
  // FLINK-27251 (1.16) added the output side; release-1.15's SubtaskCheckpointCoordinatorImpl has
  // no registerAlignmentTimer (nor PipelinedSubpartition.alignedBarrierTimeout): the barrier
  // stays behind the data and only the consumers' input timers can switch to unaligned.
  if (barrier.timeoutable && !barrier.unaligned && outputs > 0 &&
      scenario_.flink.version >= FlinkVersion::v1_16) {
    // The acknowledgement waits until the barrier left every subpartition, or its timeout
    // converts it (SubtaskCheckpointCoordinatorImpl.registerAlignmentTimer, R14).
    s.output_checkpoint = cp;
    s.output_barriers_queued = static_cast<int>(outputs);
    s.ack_waits_for_output = true;
    timers_.push_back({arg(id), cp});
    sim_.schedule_in(std::max<Duration>(0, barrier.timeout - (sim_.now() - barrier.timestamp)),
                     this, kOutputTimer, timers_.size() - 1);
  }
  // prepareSnapshotPreBarrier: the sink writers flush and precommit (SinkWriter.flush /
  // prepareCommit) before the barrier goes on; a sink has no network outputs, so it is timed
  // here. Each writer runs after the one before it on the same thread.
  Duration pre_barrier = 0;
  std::optional<ConnectorException> thrown;
  for (const auto& sink : x_.sinks(s.vertex)) {
    const Sink::Prepared prepared = sink->prepare_commit(s.index, cp);
    if (prepared.thrown && !thrown) thrown = prepared.thrown;
    pre_barrier = prepared.took == core::kNever || pre_barrier == core::kNever
                      ? core::kNever
                      : pre_barrier + prepared.took;
  }
  if (thrown) {
    // The exception leaves the checkpoint and fails the task once the writer threw it (after
    // the time it spent: a flush's retries, a wait), on this thread.
    prepare_failures_.push_back({arg(id), cp, *thrown});
    sim_.schedule_in(pre_barrier == core::kNever ? 0 : pre_barrier, this, kPrepareThrew,
                     prepare_failures_.size() - 1);
    s.busy = true;
    s.processing = barrier;
    return;
  }
  const std::int64_t persisted_output = network().close_builders(s, &barrier);  // before the sync (R2)
  sync_phases_[static_cast<std::size_t>(id)] =
      SyncPhase{barrier, started, alignment, processed, persisted_input + persisted_output};
  SyncPhase& phase = sync_phases_[static_cast<std::size_t>(id)];
  phase.pre_barrier = pre_barrier;
  phase.sync_started = pre_barrier == core::kNever ? core::kNever : sim_.now() + pre_barrier;
  if (vertex(s).sync_snapshot.grows())
    phase.law = vertex(s).sync_snapshot.describe(x_.cost_inputs(s));
  phase.bytes_read = s.bytes_since_checkpoint;
  phase.sync = sync_duration(s, barrier);
  s.busy = true;
  s.processing = barrier;
  if (pre_barrier == core::kNever) return;  // parked in stopLoad for ever
  sim_.schedule_in(pre_barrier + phase.sync, this, kSyncDone, arg(id));
}

void SubtaskCheckpointCoordinator::replay_state(int id, SimTime at, const Buffer& barrier,
                                                SimTime started, Duration alignment,
                                                std::int64_t processed, std::int64_t persisted) {
  if (id == 0) replays_.clear();  // the last replayed checkpoint's have all run
  Replay r;
  r.subtask_arg = arg(id);
  r.phase.barrier = barrier;
  r.phase.started = started;
  r.phase.alignment = alignment;
  r.phase.processed_bytes = processed;
  r.phase.persisted_bytes = persisted;
  replays_.push_back(r);
  sim_.schedule_at(at, this, kReplayState, replays_.size() - 1);
}

Duration SubtaskCheckpointCoordinator::sync_duration(Subtask& s, const Buffer& barrier) {
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
  // The operators' part (a sink's flush or prepareCommit), by its law: then the data since the
  // last checkpoint is in this one.
  const Duration operators = vertex(s).sync_snapshot.at(x_.cost_inputs(s));
  s.bytes_since_checkpoint = 0;
  return operators + static_cast<Duration>(std::llround(seconds * 1e9));
}

void SubtaskCheckpointCoordinator::finish_sync_phase(int id) {
  Subtask& s = sub(id);
  s.busy = false;
  sync_phases_[static_cast<std::size_t>(id)].sync_end = sim_.now();
  // resumeConsumption after the sync part (R2); a checkpoint that switched to unaligned keeps
  // its channels blocked until every barrier arrived (AlternatingCollectingBarriersUnaligned).
  if (!s.uc_collecting) network().unblock_all_inputs(s);
  s.uploading_checkpoint =
      std::max(s.uploading_checkpoint, sync_phases_[static_cast<std::size_t>(id)].barrier.checkpoint_id);
  // Unaligned: the input channel state is complete only once every barrier arrived (R11).
  s.uc_ack_waiting = true;
  maybe_send_ack(id);
  tasks().wake(id);
}

void SubtaskCheckpointCoordinator::maybe_send_ack(int id) {
  Subtask& s = sub(id);
  if (!s.uc_ack_waiting || s.uc_collecting) return;
  if (s.ack_waits_for_output && s.output_barriers_queued > 0) return;
  s.uc_ack_waiting = false;
  s.ack_waits_for_output = false;
  send_ack(id);
}

void SubtaskCheckpointCoordinator::convert_output_barriers(int id, std::int64_t cp) {
  // PipelinedSubpartition.alignedBarrierTimeout: a barrier still queued becomes a priority
  // unaligned barrier; the data it skips becomes output channel state (R14).
  Subtask& s = sub(id);
  if (s.output_checkpoint != cp) return;
  std::int64_t persisted = 0;
  for (const OutputGroup& g : s.outputs)
    for (int c : g.channels) {
      Channel& ch = chan(c);
      const ChannelQueue subpartition = network().subpartition(ch);
      for (std::size_t i = 0; i < subpartition.size(); ++i) {
        const NetworkBuffer queued = subpartition[i];
        if (queued.kind() != Buffer::Kind::barrier ||
            network().event(queued).checkpoint_id != cp) {
          if (queued.is_data()) persisted += queued.bytes;
          continue;
        }
        Buffer b = network().event(queued);
        subpartition.erase(i);
        b.unaligned = true;
        b.aligned = false;
        b.timeoutable = false;
        subpartition.push_front(network().rewrite_event(queued, b));
        if (s.output_barriers_queued > 0) --s.output_barriers_queued;
        network().pump(c);
        break;
      }
    }
  sync_phases_[static_cast<std::size_t>(id)].persisted_bytes += persisted;
  maybe_send_ack(id);
}

void SubtaskCheckpointCoordinator::send_ack(int id) {
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
  ack.generation = x_.epoch(id);
  ack.subtask = id;
  ack.sync_end = phase.sync_end;
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
  // SourceReader.snapshotState / SinkWriter.snapshotState: split state and committables.
  if (const Source* reader = x_.source(s.vertex)) reader->snapshot_state(s.index, ack.state);
  for (const auto& sink : x_.sinks(s.vertex)) sink->snapshot_state(s.index, ack.state);
  acks_.push_back(ack);
  s.upload_token = acks_.size() - 1;
  // Uploads share the checkpoint storage's bandwidth with every other upload in flight. State
  // under the inline threshold makes no request (FsCheckpointStateOutputStream returns a
  // ByteStreamStateHandle; JobManagerCheckpointStorage's profile has no latency at all). The
  // first checkpoint of a submission pays the warm-up.
  const std::int64_t bytes = state_upload + phase.persisted_bytes;
  const bool request = bytes >= scenario_.flink.inline_threshold;
  if (cold_checkpoint_ < 0) cold_checkpoint_ = cp;
  storage_.start_upload(bytes, s.upload_token, request,
                        cp == cold_checkpoint_ ? scenario_.cluster.checkpoint_warm_up : 0);
}

void SubtaskCheckpointCoordinator::reset(const std::vector<char>& in) {
  if (std::all_of(in.begin(), in.end(), [](char c) { return c != 0; })) {
    storage_.cancel_all();
    return;
  }
  storage_.cancel_if([&](std::uint64_t token) {
    return in[static_cast<std::size_t>(acks_[token].subtask)] != 0;
  });
}

void SubtaskCheckpointCoordinator::upload_finished(std::uint64_t token) {
  PendingAck& ack = acks_[token];
  if (ack.generation != x_.epoch(ack.subtask)) return;
  // AsyncCheckpointRunnable runs from the end of the sync part until the uploads finish (the
  // subtask may have started the next checkpoint's sync part meanwhile).
  ack.metrics.async_duration = sim_.now() - ack.sync_end;
  sim_.schedule_in(x_.rpc_delay(ack.subtask, false), this, kAckArrives, token);
}

}  // namespace ckptsim::model
