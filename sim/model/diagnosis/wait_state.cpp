// "Why it waited": what an unacknowledged subtask was doing when its checkpoint expired, read
// from the parts through their queries (the thread, its input channels, its upload, its
// connectors). Only the analysis of a run uses it; the runtime never asks.
#include <algorithm>

#include "sim/model/task/task_executor.hpp"

namespace ckptsim::model {

WaitState TaskExecutor::wait_state(TaskRef task, std::int64_t cp) const {
  WaitState w;
  const int id = vertex_first_[static_cast<std::size_t>(task.vertex)] + task.subtask;
  const Subtask& s = at(id);
  w.channels_total = static_cast<int>(s.inputs.size());
  if (s.state != ExecutionState::running) return w;
  if (s.acked_checkpoint >= cp) {
    w.kind = WaitState::Kind::acknowledged;
    return w;
  }
  if (s.uc_ack_waiting && s.current_checkpoint == cp) {
    // Unaligned: snapshot taken, the channel state waits for the remaining barriers.
    w.kind = WaitState::Kind::aligning;
    w.channels_aligned = s.barriers_received;
    w.since = s.first_barrier;
    return w;
  }
  if (s.uploading_checkpoint >= cp) {
    w.kind = WaitState::Kind::async_upload;
    w.bytes_ahead = snapshots_.upload_remaining(s.upload_token);
    w.drain_bytes_per_second = snapshots_.bandwidth_per_upload();
    return w;
  }
  if (s.busy && s.processing.kind == Buffer::Kind::barrier &&
      s.processing.checkpoint_id == cp) {
    const auto& phase = snapshots_.sync_phase(id);
    if (!phase.law.empty() && sim_.now() >= phase.sync_started) {
      // The synchronous part, whose operators' share (a flush) follows a law.
      w.kind = WaitState::Kind::sink_flush;
      w.call = "the synchronous part of checkpoint " + std::to_string(cp) +
               " (the operators' flush: " + phase.law + ")";
      w.since = phase.sync_started;
      w.until = phase.sync_started + phase.sync;
      return w;
    }
  }
  // Inside a function's call out: the explanation if the call never returns or the barrier is
  // not queued at this input; with the barrier behind data, the call is what drains it.
  WaitState in_function = w;
  bool in_call = false;
  if (s.busy)
    for (const auto& f : functions(s.vertex))
      if (f->explain_wait(s.index, in_function)) {
        if (in_function.until == core::kNever) return in_function;
        in_call = true;
        break;
      }
  if (s.busy)  // inside a sink writer's call
    for (const auto& sink : sinks(s.vertex))
      if (sink->explain_wait(s.index, w)) {
        const Source* reader = source(s.vertex);
        if (s.processing.kind == Buffer::Kind::data && reader && reader->reads_ahead_batches())
          w.chunk_rows = s.processing.records;  // emitting a whole batch into the writer
        return w;
      }
  if (tasks_.stalled(s)) {
    w.kind = WaitState::Kind::blocked_in_user_call;
    for (const StreamTask::Stall& st : tasks_.stalls(s.vertex))
      if (st.speed == 0 && st.covers(s, sim_.now())) w.since = st.from;
    if (sim_.now() < s.mail_busy_until) {  // notifyCheckpointComplete, timers, connector work
      w.since = s.mail_started;
      if (!s.mail_call.empty()) {  // the work and the law behind its length
        w.kind = s.mail_commit ? WaitState::Kind::sink_flush : WaitState::Kind::in_call;
        w.call = s.mail_call;
        w.until = s.mail_busy_until;
      }
    }
    return w;
  }
  if (in_call && is_source_task(s.vertex)) return in_function;
  if (is_source_task(s.vertex)) {
    const VertexSpec& v = vertex(s);
    if (s.lock_until_record || sim_.now() < s.lock_held_until) {
      w.kind = WaitState::Kind::lock_held;
      w.until = s.lock_until_record ? core::kNever : s.lock_held_until;
      return w;
    }
    w.kind = v.legacy_source && s.waiting_output ? WaitState::Kind::checkpoint_lock
                                                 : WaitState::Kind::trigger_not_run;
    if (const Source* reader = source(s.vertex))  // a lock of its own, a batch in one step
      reader->explain_wait(s.index, s.busy && s.processing.kind == Buffer::Kind::data,
                           s.processing.records, s.processing_started, w);
    return w;
  }
  w.back_pressured = s.waiting_output;
  const bool aligning = s.checkpoint_pending && s.current_checkpoint == cp;
  w.channels_aligned = aligning ? s.barriers_received : 0;
  if (aligning) w.since = s.first_barrier;
  // The channel whose barrier is furthest away: bytes queued ahead of it, or not sent yet.
  w.kind = WaitState::Kind::barrier_not_sent;
  std::int64_t worst = -1;
  for (int c : s.inputs) {
    const Channel& ch = channel(c);
    if (aligning && s.barrier_seen[static_cast<std::size_t>(ch.input_index)]) continue;
    std::int64_t ahead = 0;
    bool found = false;
    for (const NetworkBuffer& b : network().received(ch)) {
      if (b.kind() == Buffer::Kind::barrier && network().event(b).checkpoint_id == cp) {
        found = true;
        break;
      }
      if (b.is_data()) ahead += b.bytes;
    }
    if (!found) {
      for (const NetworkBuffer& b : network().subpartition(ch)) {
        if (b.kind() == Buffer::Kind::barrier && network().event(b).checkpoint_id == cp) {
          found = true;
          break;
        }
        if (b.is_data()) ahead += b.bytes;
      }
    }
    if (found && ahead > worst) {
      worst = ahead;
      w.kind = WaitState::Kind::barrier_behind_data;
      w.has_upstream = true;
      w.upstream = task_ref(ch.producer);
      w.bytes_ahead = ahead;
    } else if (!found && worst < 0) {
      w.has_upstream = true;
      w.upstream = task_ref(ch.producer);
    }
  }
  if (w.kind == WaitState::Kind::barrier_behind_data) {
    const VertexSpec& v = vertex(s);
    const Subtask& producer =
        at(vertex_first_[static_cast<std::size_t>(w.upstream.vertex)] + w.upstream.subtask);
    const double record_size = static_cast<double>(std::max<std::int64_t>(1, vertex(producer).record_size));
    // The consumer drains what it processes: record size / (cost per record and the time its
    // calls out add).
    double per_record = static_cast<double>(v.cost_per_record) / 1e9;
    for (const auto& f : functions(s.vertex)) per_record += f->seconds_per_record(s.index);
    w.drain_bytes_per_second = per_record > 0 ? record_size / per_record : 0;
  } else if (aligning) {
    w.kind = WaitState::Kind::aligning;
  }
  if (in_call) {
    if (w.kind != WaitState::Kind::barrier_behind_data) return in_function;
    w.call = in_function.call;
  }
  return w;
}


}  // namespace ckptsim::model
