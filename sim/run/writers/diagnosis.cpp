// "Why it waited": one sentence per subtask that had not acknowledged an expired checkpoint,
// with the numbers behind it (bytes queued ahead of the barrier, drain rate, since when).
#include <fmt/format.h>

#include "sim/run/writers/writers.hpp"

namespace ckptsim::run {
namespace {

std::string task_label(const RunResult& r, int vertex, int subtask) {
  const VertexInfo& v = r.vertices[static_cast<std::size_t>(vertex)];
  return fmt::format("{} ({}/{})", v.name, subtask + 1, v.parallelism);
}

std::string bytes(std::int64_t b) {
  if (b < 1024) return fmt::format("{} B", b);
  if (b < 1024 * 1024) return fmt::format("{:.1f} KiB", static_cast<double>(b) / 1024);
  return fmt::format("{:.1f} MiB", static_cast<double>(b) / (1024.0 * 1024));
}

// Time into the run, as the story's first column shows it.
std::string clock(SimTime t) {
  const std::int64_t s = t / core::kSecond;
  return fmt::format("{:02}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
}

}  // namespace

std::string describe_wait(const RunResult& r, const WaitRecord& w) {
  const std::string task = task_label(r, w.vertex, w.subtask);
  const std::string upstream =
      w.upstream_vertex >= 0 ? task_label(r, w.upstream_vertex, w.upstream_subtask) : "";
  if (w.kind == "blocked_in_user_call")
    return fmt::format("{}: the task thread is blocked in a user call since {} (it runs no mail "
                       "and processes nothing)",
                       task, clock(w.since));
  if (w.kind == "barrier_behind_data") {
    std::string s = fmt::format("{}: the barrier is queued behind {} of data on channel {} -> {}",
                                task, bytes(w.bytes_ahead), upstream, task);
    if (w.back_pressured)
      s += ", which drains nothing: the task is back-pressured (its output is full)";
    else if (w.drain_bytes_per_second > 0)
      s += fmt::format(", draining at {}/s (about {:.1f} s to reach it)",
                       bytes(static_cast<std::int64_t>(w.drain_bytes_per_second)),
                       static_cast<double>(w.bytes_ahead) / w.drain_bytes_per_second);
    if (w.kind == "barrier_behind_data" && w.channels_aligned > 0)
      s += fmt::format("; aligned {} of {} channels since {}", w.channels_aligned,
                       w.channels_total, clock(w.since));
    if (!w.call.empty()) s += "; the task thread drains it through " + w.call;
    return s;
  }
  if (w.kind == "barrier_not_sent")
    return upstream.empty() ? fmt::format("{}: no upstream has emitted the barrier yet", task)
                            : fmt::format("{}: {} has not emitted the barrier yet", task, upstream);
  if (w.kind == "aligning")
    return fmt::format("{}: aligning, {} of {} channels delivered the barrier since {}", task,
                       w.channels_aligned, w.channels_total, clock(w.since));
  if (w.kind == "sink_flush" || w.kind == "in_call") {
    std::string s =
        fmt::format("{}: the task thread is in {} since {}", task, w.call, clock(w.since));
    s += w.until == core::kNever ? "; it never returns" : fmt::format(" (returns at {})", clock(w.until));
    return s;
  }
  if (w.kind == "sink_write" || w.kind == "sink_stop_load") {
    // DorisWriter: RecordBuffer.writeQueue.take() when every buffer is full, or prepareCommit's
    // stopLoad waiting for the stream load's response (field-scenarios.md A.3).
    std::string s =
        w.kind == "sink_write"
            ? fmt::format("{}: the task thread is blocked in the Doris writer since {}: every "
                          "buffer of table {} is full",
                          task, clock(w.since), w.table)
            : fmt::format("{}: prepareCommit is waiting since {} for the stream load of table "
                          "{} to finish (stopLoad), before the barrier can be emitted",
                          task, clock(w.since), w.table);
    if (w.failed_at >= 0)
      s += fmt::format("; that load was ended by Doris at {} ({}) and sink.check-interval is 0, "
                       "so nothing wakes the thread: it stays blocked for ever",
                       clock(w.failed_at), w.error);
    else if (w.until == core::kNever)
      s += "; it never returns";
    else if (w.drain_bytes_per_second > 0)
      s += fmt::format("; the stream load takes the {} left at {}/s (returns at {})",
                       bytes(w.bytes_ahead),
                       bytes(static_cast<std::int64_t>(w.drain_bytes_per_second)),
                       clock(w.until));
    else
      s += fmt::format(" (returns at {})", clock(w.until));
    if (w.chunk_rows > 0)
      s += fmt::format("; the source emits a {}-row snapshot chunk in this one mailbox step",
                       w.chunk_rows);
    return s;
  }
  if (w.kind == "coordinator") {
    if (w.until <= 0 || w.table.empty())
      return fmt::format("the checkpoint never reached the {} tasks: an operator coordinator "
                         "has not finished its checkpoint",
                         w.channels_total);
    // Its checkpoint call waits in the coordinator executor's queue behind the work.
    std::string s = fmt::format("the checkpoint never reached the {} tasks: operator coordinator "
                                "'{}' has not finished its checkpoint; its thread is busy ({})",
                                w.channels_total, w.table, w.call.empty() ? "busy" : w.call);
    if (w.since > 0) s += " since " + clock(w.since);
    s += w.until == core::kNever ? " and does not return" : " until " + clock(w.until);
    return s;
  }
  if (w.kind == "lock_held")
    return w.until == core::kNever
               ? fmt::format("{}: the legacy source holds the checkpoint lock until its next "
                             "record arrives, and no data is flowing, so the trigger cannot run",
                             task)
               : fmt::format("{}: the legacy source holds the checkpoint lock until {}", task,
                             clock(w.until));
  if (w.kind == "cdc_snapshot_lock")
    return fmt::format("{}: the legacy MySQL CDC source holds the checkpoint lock for the whole "
                       "snapshot phase (\"Database snapshot phase can't perform checkpoint, "
                       "acquired Checkpoint lock.\"), so no trigger runs until it reads the "
                       "binlog",
                       task);
  if (w.kind == "checkpoint_lock")
    return fmt::format("{}: the legacy source holds the checkpoint lock while it waits for an "
                       "output buffer (back-pressure), so the trigger cannot run",
                       task);
  if (w.kind == "trigger_not_run")
    return w.chunk_rows > 0
               ? fmt::format("{}: the trigger waits for the source to finish emitting a {}-row "
                             "snapshot chunk (one mailbox step) since {}",
                             task, w.chunk_rows, clock(w.since))
               : fmt::format("{}: the checkpoint trigger has not run in the source's thread",
                             task);
  if (w.kind == "async_upload")
    return fmt::format("{}: snapshot taken, the asynchronous upload has {} left at a shared "
                       "bandwidth of {}/s",
                       task, bytes(w.bytes_ahead),
                       bytes(static_cast<std::int64_t>(w.drain_bytes_per_second)));
  if (w.kind == "not_running") return fmt::format("{}: the task is not running", task);
  return fmt::format("{}: {}", task, w.kind);
}

std::string describe_connector_event(const RunResult& r, const ConnectorRecord& record) {
  const model::ConnectorEvent& e = record.event;
  const std::string task = task_label(r, e.task.vertex, e.task.subtask);
  using Kind = model::ConnectorEvent::Kind;
  const model::DataSourceDialect& d = model::dialect(e.dialect);
  switch (e.kind) {
    case Kind::cdc_snapshot_started:
      return fmt::format("{}: {} snapshot reading starts ({}), {} rows to read", task, d.display,
                         e.detail, e.rows);
    case Kind::cdc_snapshot_finished:
      return fmt::format("{}: {} snapshot chunks all read", task, d.display);
    case Kind::cdc_binlog_waiting:
      return fmt::format("{}: all snapshot chunks finished; the {} waits for a "
                         "completed checkpoint (parallelism > 1)",
                         task, d.split);
    case Kind::cdc_assigner_finished:
      return fmt::format("{}: the snapshot split assigner is finished; the {} is "
                         "assigned",
                         task, d.split);
    case Kind::cdc_binlog_started:
      return e.detail.empty()
                 ? fmt::format("{}: {} reads the {}", task, d.display, d.stream)
                 : fmt::format("{}: {} reads the {} ({})", task, d.display, d.stream, e.detail);
    case Kind::doris_load_failed:
      return fmt::format("{}: Doris ended the stream load of table {}: {}", task, e.table,
                         e.detail);
    case Kind::kafka_txn_lost:
      return fmt::format("{}: KafkaCommitter could not commit the {} ({} records): the broker had "
                         "aborted it and fenced its producer, the records are lost",
                         task, e.detail, e.rows);
    case Kind::kafka_txn_recommitted:
      return fmt::format("{}: the restored {} ({} records) is committed on restore", task,
                         e.detail, e.rows);
    case Kind::task_cancel_stuck:
      // Task.TaskInterrupter's warning (the TaskManager's log), its stack as ckptsim names it.
      return fmt::format("{}: Task '{}' did not react to cancelling signal - interrupting; it is "
                         "stuck for {} seconds in method: {}",
                         task, task, e.rows, e.detail);
    case Kind::taskmanager_fatal_error:
      return fmt::format("{}: TaskCancelerWatchDog: org.apache.flink.util.FlinkRuntimeException: "
                         "Task did not exit gracefully within {} + seconds. Fatal error occurred "
                         "while executing the TaskManager. Shutting it down... (stuck in {})",
                         task, e.rows, e.detail);
    case Kind::doris_failure_detected:
      return fmt::format("{}: the Doris writer's checker thread found the failed load of table "
                         "{} and fails the task",
                         task, e.table);
  }
  return task;
}

}  // namespace ckptsim::run
