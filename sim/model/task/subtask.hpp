// One subtask (Flink's Task running a StreamTask): its identity and execution state, and the
// state each part of the runtime keeps for it, grouped by the part that owns it. Dense records
// in one vector indexed by subtask id (the hot fields of a buffer's way first).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "sim/core/simulation.hpp"
#include "sim/model/network/buffer.hpp"
#include "sim/model/network/channel.hpp"
#include "sim/model/network/channels_with_data.hpp"
#include "sim/model/observer.hpp"
#include "sim/model/types.hpp"

namespace ckptsim::model {

enum class ThreadState : std::uint8_t { idle, busy, back_pressured };

struct Subtask {
  int vertex = 0;
  int index = 0;
  int attempt = -1;
  int taskmanager = 0;
  ExecutionState state = ExecutionState::created;

  // --- A buffer's way: what the events of every buffer read or write (the mailbox loop, the
  // time accounting, availability), together in the first cache lines: a big job's subtasks
  // lie far apart in memory. Their owners are the parts named below.
  // Task thread (stream_task.hpp).
  ThreadState thread_state = ThreadState::idle;  // TimerGauge semantics, on transitions
  bool busy = false;             // processing a buffer or in a sync snapshot
  bool busy_off_records = false;  // the thread is busy now, not on records
  bool wake_scheduled = false;
  bool flush_scheduled = false;
  bool waiting_output = false;   // soft back-pressure: output not available
  // Barrier handler (barrier_handler.hpp).
  bool checkpoint_pending = false;
  // Unaligned checkpoint in progress: input channel state is recorded until every channel
  // delivered its barrier; the acknowledgement waits for that (R11).
  bool uc_collecting = false;
  int priority_pending = 0;      // unaligned barriers at the head of input channels
  // Network (network.hpp).
  int partition_buffers = 0;     // data buffers held in this task's subpartitions
  int full_subpartitions = 0;    // subpartitions holding max-buffers-per-channel or more
  int floating_free = 0;         // the input gate's floating buffers not lent out
  // Task thread: time accounting, the buffer in progress, mails.
  SimTime accounted_until = 0;
  SimTime sample_start = 0;
  TaskSample sample;
  Duration other_work = 0;       // busy time so far not on records (a checkpoint's synchronous
                                 // part, a long mail, a stall), for hybrid's looks
  std::int64_t records_in = 0;   // records consumed
  std::int64_t bytes_since_checkpoint = 0;  // input consumed since its last checkpoint's barrier
  SimTime mail_busy_until = 0;    // the thread runs a long mail (notifyCheckpointComplete)
  Buffer processing;
  core::EventId processing_done;
  SimTime processing_started = 0;
  Duration processing_took = 0;  // the buffer's whole time on the thread (calls out included)
  std::optional<Buffer> remainder;  // records of a buffer left when a mail cut in
  std::deque<Buffer> pending_triggers;  // trigger mails waiting for the thread
  // Mails pending (barrier handler, subtask checkpoint coordinator).
  std::int64_t timed_out_checkpoint = -1;   // switch this checkpoint to UC
  std::int64_t output_timeout_mail = -1;    // convert queued output barriers
  // Network: the input gate's channels and those with data, the writers, the debloater's
  // counts (BufferSizeEMA).
  std::vector<int> inputs;       // channel ids
  ChannelsWithData with_data;    // inputs whose input channel holds buffers or events
  std::vector<OutputGroup> outputs;
  std::int64_t debloat_bytes = 0;     // bytes consumed in the current period
  Duration debloat_idle = 0;          // time without input in the current period

  // --- Network (network.hpp): the task's InputGate and ResultPartition.
  InputSet wants_floating;       // remote inputs with more backlog than credits, not blocked
  int pool_size = 0;             // the result partitions' LocalBufferPools (max n*2+8 each)
  int gate_pool = -1;            // the input gate's LocalBufferPool in the TaskManager's pool
  int gate_pool_size = 0;        // its size: the floating buffers the gate owns
  int exclusive_buffers = 0;     // remote channels' exclusive buffers taken from the pool
  int finished_inputs = 0;       // input channels whose producer FINISHED (EndOfPartition)
  // BufferDebloater of this task's input gate (BufferSizeEMA).
  double debloat_size = 0;            // the EMA's last buffer size
  std::int64_t debloat_announced = 0; // the size last announced upstream
  double debloat_throughput = 0;      // ThroughputCalculator's last result, bytes per second

  // --- Task thread (stream_task.hpp): mailbox, the step in progress, time accounting.
  bool flush_with_step = false;  // a source whose steps are one buffer timeout: it flushes
                                 // at the end of each step (see schedule_emission)
  bool emission_scheduled = false;
  Duration step_period = 0;      // a source's reading step at a fixed rate, its timer's period
                                 // (0: batches or Poisson arrivals)
  bool stopped = false;          // a source after a stop-with-savepoint barrier
  bool lock_until_record = false; // a legacy source holds the checkpoint lock until a record
  SimTime lock_held_until = 0;    // ... or until then
  SimTime mail_started = 0;       // the long mail (mail_busy_until) started then
  std::string mail_call;          // ... doing this, with the law behind its length
  bool mail_commit = false;       // ... a committer's commit (notifyCheckpointComplete)
  bool mail_uninterruptible = false;  // ... a call that ignores Task's interrupts
  bool mail_yields_to_checkpoint = false;  // ... interruptible timers: a checkpoint's mail runs
                                           // between two of them
  SimTime running_since = 0;      // this attempt switched to RUNNING then
  std::int64_t restored_checkpoint = 0;  // the checkpoint this attempt restored (0: none)
  Duration restore_time = 0;      // reading its restored state back (INITIALIZING)
  SimTime left_running = 0;       // when this attempt stopped RUNNING (a restore's downtime)
  SimTime busy_since = 0;
  SimTime read_from = -1;        // a source's step went to processing at this time (see
                                 // schedule_emission): records keep arriving meanwhile
  double fractional_records = 0;
  double output_carry = 0;       // fractional output records (selectivity)
  std::int64_t position = 0;     // sources: records read
  std::int64_t state_size = 0;
  TaskSample closed_samples;      // the sums of this attempt's closed samples (hybrid network)

  // --- Barrier handler (barrier_handler.hpp): SingleCheckpointBarrierHandler /
  // CheckpointBarrierTracker.
  std::int64_t current_checkpoint = -1;
  Buffer aligning_barrier;       // the first barrier of the checkpoint being aligned
  bool end_of_input_abort = false;  // EndOfPartition while aligning, no checkpoints after
                                    // tasks finish: the alignment aborts (mail pending)
  std::vector<bool> barrier_seen;
  int barriers_received = 0;
  SimTime first_barrier = 0;
  std::int64_t processed_bytes = 0;
  std::map<std::int64_t, int> tracker;  // at-least-once: id -> distinct channels seen
  std::int64_t last_checkpoint_taken = -1;
  // Every input ended (or a source's run() returned) with checkpoints after tasks finish
  // (FLIP-147): the task FINISHES once a checkpoint with at least this id completes (-1: not
  // waiting).
  std::int64_t final_checkpoint_min = -1;
  std::set<std::int64_t> aborted;       // notified aborted before being triggered here
  SimTime current_timestamp = 0;        // trigger timestamp of current_checkpoint
  std::int64_t timer_checkpoint = -1;   // the input-side alignment timer's checkpoint

  // --- Subtask checkpoint coordinator (subtask_checkpoint_coordinator.hpp).
  std::int64_t acked_checkpoint = -1;   // the last checkpoint whose ack left this subtask
  bool uc_ack_waiting = false;          // sync phase over, the acknowledgement not yet sent
  // Aligned checkpoints with timeout, the output side: barriers of `output_checkpoint` still
  // queued in this task's subpartitions (the acknowledgement waits for them to leave, or for
  // their timeout).
  std::int64_t output_checkpoint = -1;
  int output_barriers_queued = 0;
  bool ack_waits_for_output = false;
  std::int64_t uploading_checkpoint = -1;
  std::uint64_t upload_token = 0;             // the upload in flight
  // Incremental snapshots upload what changed since the last confirmed checkpoint.
  std::int64_t confirmed_state_size = 0;
  std::int64_t flushed_state_size = 0;  // RocksDB: the state size at the last memtable flush
  std::map<std::int64_t, std::int64_t> snapshot_sizes;  // checkpoint -> state size taken
};

}  // namespace ckptsim::model
