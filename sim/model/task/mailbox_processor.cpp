// StreamTask's MailboxProcessor loop: mails (trigger, timers, aborted checkpoints) run between
// records and while the default action is suspended; the default action (processInput) reads
// one buffer from the input gate when the output is available (R9) and runs the operator's cost
// (and the chained sink writers) on the thread.
#include <algorithm>
#include <cmath>
#include <utility>

#include "sim/model/checkpointing/barrier_handler.hpp"
#include "sim/model/checkpointing/subtask_checkpoint_coordinator.hpp"
#include "sim/model/connectors/connector.hpp"
#include "sim/model/network/network.hpp"
#include "sim/model/task/stream_task.hpp"
#include "sim/model/task/task_executor.hpp"

namespace ckptsim::model {

bool StreamTask::stalled(const Subtask& s) const {
  return sim_.now() < s.mail_busy_until || stopped_by_stall(s);
}

bool StreamTask::stopped_by_stall(const Subtask& s) const {
  const SimTime now = sim_.now();
  for (const Stall& st : stalls_[static_cast<std::size_t>(s.vertex)])
    if (st.speed == 0 && st.covers(s, now)) return true;
  return false;
}

void StreamTask::wake(int id) {
  Subtask& s = sub(id);
  if (s.wake_scheduled) return;
  s.wake_scheduled = true;
  sim_.schedule_in(0, this, kWake, arg(id));
}

void StreamTask::progress(int id) {
  Subtask& s = sub(id);
  if (s.state != ExecutionState::running) return;
  account(s);
  struct Update {  // whatever path returns, the thread state is re-derived afterwards
    StreamTask* self;
    Subtask& s;
    ~Update() { self->update_thread_state(s); }
  } update{this, s};
  // Interruptible timers (1.20): a pending trigger or unaligned barrier runs between two timers
  // of the burst, which then goes on (the snapshot's few ms overlap it here).
  const bool between_timers = !s.busy && s.mail_yields_to_checkpoint &&
                              sim_.now() < s.mail_busy_until && !stopped_by_stall(s) &&
                              (!s.pending_triggers.empty() || s.priority_pending > 0);
  if (s.busy || (stalled(s) && !between_timers)) return;
  // Mails run between buffers, and while the default action is suspended (back-pressure, no
  // input): a checkpoint trigger at a source.
  if (s.output_timeout_mail >= 0) {
    const std::int64_t cp = std::exchange(s.output_timeout_mail, -1);
    snapshots().convert_output_barriers(id, cp);
  }
  if (s.timed_out_checkpoint >= 0) {
    const std::int64_t cp = std::exchange(s.timed_out_checkpoint, -1);
    barriers().switch_to_unaligned(id, cp);
    if (s.busy) return;
  }
  // A legacy source blocked on an output buffer holds the checkpoint lock, so its trigger
  // waits until the buffer comes (SourceStreamTask's synchronized executor, R7).
  // The 1.x CDC source takes the lock at the first snapshot record and releases it at the first
  // binlog record: no checkpoint during the whole snapshot (field B1 [C11]).
  const bool lock_held =
      (vertex(s).legacy_source && s.waiting_output && !network().output_available(s)) ||
      (x_.source(s.vertex) && x_.source(s.vertex)->holds_checkpoint_lock(s.index)) ||
      s.lock_until_record || sim_.now() < s.lock_held_until;
  if (!s.pending_triggers.empty() && !lock_held) {
    const Buffer barrier = s.pending_triggers.front();
    s.pending_triggers.pop_front();
    if (is_source(s) && s.emission_scheduled) {
      // What the source read in this step up to now stays read; the mail takes the thread
      // from here (the step's remainder is not credited while the snapshot runs).
      if (vertex(s).arrivals == Variability::fixed)
        s.fractional_records +=
            source_rate(s) * static_cast<double>(sim_.now() - s.busy_since) / 1e9;
      s.busy_since = sim_.now();
    }
    snapshots().checkpoint_state(id, barrier, sim_.now(), 0, 0);
    return;
  }
  if (is_source(s)) {
    if (between_timers) return;  // the rest waits for the burst
    if (s.waiting_output && !network().output_available(s)) return;
    s.waiting_output = false;
    schedule_emission(s, id);
    return;
  }
  // An EndOfPartition consumed while aligning (end_of_partition): it completed the alignment,
  // or aborts it when checkpoints after tasks finish are disabled.
  if (s.checkpoint_pending && !s.uc_collecting) {
    if (s.end_of_input_abort) {
      barriers().abort_alignment(id, s.current_checkpoint,
                      CheckpointFailureReason::checkpoint_declined_input_end_of_stream);
      wake(id);
      return;
    }
    if (s.barriers_received == static_cast<int>(s.inputs.size())) {
      s.checkpoint_pending = false;
      snapshots().checkpoint_state(id, s.aligning_barrier, s.first_barrier, sim_.now() - s.first_barrier,
                       s.processed_bytes);
      return;
    }
  }
  // CheckpointedInputGate.processPriorityEvents runs as a mail: unaligned barriers are handled
  // before any data and also while the output is unavailable.
  if (s.priority_pending > 0 && barriers().process_priority_event(id)) {
    if (!s.busy) wake(id);
    return;
  }
  if (between_timers) return;  // the rest waits for the burst
  // StreamTask.processInput: no input is processed while the output is unavailable (R9).
  if (!network().output_available(s)) {
    s.waiting_output = true;
    return;
  }
  s.waiting_output = false;
  if (s.remainder) {  // finish the buffer a mail interrupted
    const Buffer rest = *s.remainder;
    s.remainder.reset();
    start_processing(id, rest);
    return;
  }
  // The input channels that hold something, in the order they became available
  // (SingleInputGate.getChannel; note_received queues this one again while it holds more).
  const int next = s.with_data.poll();
  if (next < 0 && s.finished_inputs > 0) x_.maybe_end_input(id);  // drained after EndOfPartition
  if (next >= 0) {
    const int c = s.inputs[static_cast<std::size_t>(next)];
    Channel& ch = chan(c);
    // What the next two reads touch first lies far apart in a big job's memory: fetch it ahead
    // (hints; the run is the same without them). The next channel's head buffer, then the
    // channel after it, whose head the next read fetches in turn.
    if (const int after = s.with_data.peek(0); after >= 0)
      network().prefetch_received(chan(s.inputs[static_cast<std::size_t>(after)]));
    if (const int later = s.with_data.peek(1); later >= 0)
      __builtin_prefetch(&chan(s.inputs[static_cast<std::size_t>(later)]));
    const Buffer b = network().take_received(ch);
    switch (b.kind) {
      case Buffer::Kind::data: {
        s.records_in += b.records;
        s.bytes_since_checkpoint += b.bytes;
        s.sample.records_in += b.records;
        s.debloat_bytes += b.bytes;
        if (s.checkpoint_pending) s.processed_bytes += b.bytes;  // processed during alignment
        network().recycle(c);
        start_processing(id, b);
        return;
      }
      case Buffer::Kind::barrier:
        if (b.unaligned) --s.priority_pending;
        barriers().process_barrier(id, c, b);
        break;
      case Buffer::Kind::cancel_marker: barriers().process_cancel_marker(id, b); break;
    }
    if (!s.busy) wake(id);
    return;
  }
}

Duration StreamTask::service_time(int id, std::int64_t records) {
  const Subtask& s = sub(id);
  // The timeline's slow-downs active when the buffer's processing starts.
  double speed = 1;
  for (const Stall& st : stalls_[static_cast<std::size_t>(s.vertex)])
    if (st.speed > 0 && st.covers(s, sim_.now())) speed *= st.speed;
  const Duration d = cost_of(id, records);
  return speed == 1 ? d : static_cast<Duration>(std::llround(static_cast<double>(d) / speed));
}

Duration StreamTask::cost_of(int id, std::int64_t records) {
  const VertexSpec& v = vertex(sub(id));
  if (v.service == Variability::fixed || v.cost_per_record <= 0) return records * v.cost_per_record;
  // Exponential service per record: the buffer takes a sum of `records` exponentials (a normal
  // approximation of that Gamma for large buffers keeps the cost per buffer, not per record).
  core::RandomStream& rng = rngs_[static_cast<std::size_t>(id)];
  const double mean = static_cast<double>(v.cost_per_record);
  double total = 0;
  if (records <= 64) {
    for (std::int64_t i = 0; i < records; ++i) total += rng.exponential(mean);
  } else {
    const double n = static_cast<double>(records);
    total = std::max(0.0, rng.normal(n * mean, std::sqrt(n) * mean));
  }
  return static_cast<Duration>(std::llround(total));
}

void StreamTask::start_processing(int id, const Buffer& b) {
  Subtask& s = sub(id);
  s.busy = true;
  s.processing = b;
  update_thread_state(s);  // a source's step starts here, outside progress()
  s.processing_started = sim_.now();
  Duration d = service_time(id, b.records);
  // The operators' calls out of processElement, then SinkWriter.write.
  for (const auto& f : x_.functions(s.vertex))
    if (d != core::kNever) d = f->process(s.index, b, d);
  for (const auto& sink : x_.sinks(s.vertex))
    if (d != core::kNever) d = sink->write(s.index, b, d);
  if (d == core::kNever) {  // the thread never comes back from the connector call
    s.processing_done = {};
    return;
  }
  s.processing_took = d;
  s.processing_done = sim_.schedule_in(d, this, kProcessDone, arg(id));
}

void StreamTask::yield_to_mail(int id) {
  // The mailbox is checked between records, not between buffers: a priority mail arriving while
  // a buffer is processed runs after the record in progress; the rest of the buffer waits.
  Subtask& s = sub(id);
  // A reader's step that is emitted whole, or a thread inside a blocking connector call, runs
  // no mail.
  if (const Source* reader = x_.source(s.vertex); reader && reader->emits_steps_whole()) return;
  for (const auto& sink : x_.sinks(s.vertex))
    if (sink->writes_block_thread()) return;
  if (!s.busy || s.processing.kind != Buffer::Kind::data || !sim_.is_pending(s.processing_done))
    return;
  // Each record takes the operator's cost; with calls out of processElement, the buffer's time
  // spread evenly over its records.
  const auto& functions = x_.functions(s.vertex);
  const Duration cost = vertex(s).cost_per_record;
  const double per_record =
      functions.empty() ? static_cast<double>(cost)
                        : static_cast<double>(s.processing_took) / static_cast<double>(s.processing.records);
  if (per_record <= 0) return;
  const std::int64_t done =
      functions.empty()
          ? std::min<std::int64_t>(s.processing.records, (sim_.now() - s.processing_started) / cost + 1)
          : std::min<std::int64_t>(
                s.processing.records,
                static_cast<std::int64_t>(static_cast<double>(sim_.now() - s.processing_started) / per_record) + 1);
  if (done >= s.processing.records) return;
  for (const auto& f : functions) f->cut(s.index, done, s.processing.records);
  Buffer rest = s.processing;
  rest.records = s.processing.records - done;
  rest.bytes = static_cast<std::int32_t>(static_cast<std::int64_t>(s.processing.bytes) * rest.records /
                                         s.processing.records);
  s.processing.records = done;
  s.processing.bytes -= rest.bytes;
  s.remainder = rest;
  sim_.cancel(s.processing_done);
  const SimTime until =
      functions.empty() ? s.processing_started + done * cost
                        : s.processing_started +
                              static_cast<Duration>(std::llround(static_cast<double>(done) * per_record));
  s.processing_done = sim_.schedule_at(until, this, kProcessDone, arg(id));
}

void StreamTask::connector_call_returned(int id) {
  Subtask& s = sub(id);
  if (!s.busy || s.processing.kind != Buffer::Kind::data || sim_.is_pending(s.processing_done)) return;
  s.processing_took = sim_.now() - s.processing_started;
  s.processing_done = sim_.schedule_in(0, this, kProcessDone, arg(id));
}

void StreamTask::run_long_mail(int id, Duration length) {
  // The mail runs after the step in progress and holds the thread for its duration.
  Subtask& s = sub(id);
  s.mail_started = std::max(sim_.now(), s.mail_busy_until);
  s.mail_busy_until = s.mail_started + length;
  update_thread_state(s);
  sim_.schedule_at(s.mail_busy_until, this, kWake, arg(id));
}


}  // namespace ckptsim::model
