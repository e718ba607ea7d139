// What the baseline run of `ckptsim advise` shows: the mechanisms behind its failed checkpoints
// and failovers, read from the run's checkpoints (their waits), failures, connector events and
// log, as the story and the diagnosis name them.
#include <fmt/format.h>

#include <algorithm>

#include "analysis/advise.hpp"
#include "analysis/expect.hpp"
#include "sim/run/writers/flink_stats.hpp"
#include "sim/run/writers/writers.hpp"

namespace ckptsim::analysis {
namespace {

using run::CheckpointRecord;
using run::CheckpointStatus;
using Reason = model::CheckpointFailureReason;
using Kind = model::ConnectorEvent::Kind;

// The waits that mean the task thread is inside user code: no mail runs, so neither an aligned
// nor an unaligned barrier nor a source's trigger is processed until it returns.
bool blocks_task_thread(const std::string& kind) {
  return kind == "blocked_in_user_call" || kind == "sink_write" || kind == "sink_stop_load" ||
         kind == "sink_flush" || kind == "in_call" || kind == "lock_held" || kind == "cdc_snapshot_lock" ||
         kind == "checkpoint_lock" || kind == "trigger_not_run";
}

std::string seconds(core::SimTime t) {
  return fmt::format("{:.1f} s", static_cast<double>(t) / static_cast<double>(core::kSecond));
}

void read_checkpoints(const run::RunResult& r, const std::vector<CheckpointRecord>& checkpoints,
                      Findings& f) {
  for (const CheckpointRecord& c : checkpoints) {
    f.completed += c.status == CheckpointStatus::completed;
    if (c.status != CheckpointStatus::failed) continue;
    ++f.failed;
    if (c.failure_reason) f.reasons.insert(*c.failure_reason);
    if (c.failure_reason != Reason::checkpoint_expired) continue;
    if (f.expired++ == 0) {
      f.lines.push_back(fmt::format("checkpoint {} expired {} after its trigger", c.id,
                                    seconds(c.end_time - c.trigger_time)));
      for (std::size_t k = 0; k < c.waits.size() && k < 3; ++k)
        f.lines.push_back("  " + run::describe_wait(r, c.waits[k]));
    }
    for (const run::WaitRecord& w : c.waits) {
      f.wait_kinds.insert(w.kind);
      if (blocks_task_thread(w.kind)) {
        f.task_blocked = true;
        f.thread_never_returns |= w.until == core::kNever;
      }
      f.chunk_rows = std::max(f.chunk_rows, w.chunk_rows);
      f.coordinator_busy |= w.kind == "coordinator";
    }
  }
}

void read_connector_events(const run::RunResult& r, Findings& f) {
  core::SimTime snapshot_end = -1;
  bool snapshot = false;
  for (const run::ConnectorRecord& e : r.connector_events) {
    snapshot |= e.event.kind == Kind::cdc_snapshot_started;
    if (e.event.kind == Kind::cdc_snapshot_finished) snapshot_end = std::max(snapshot_end, e.time);
    f.cdc_binlog_waiting |= e.event.kind == Kind::cdc_binlog_waiting;
    f.lost_records |= e.event.kind == Kind::kafka_txn_lost;
  }
  // The snapshot matters when a checkpoint failed while it ran.
  const auto during_snapshot = [&](const CheckpointRecord& c) {
    return c.status == CheckpointStatus::failed &&
           (snapshot_end < 0 || c.trigger_time < snapshot_end);
  };
  f.cdc_snapshot =
      snapshot &&
      (std::any_of(r.checkpoints.begin(), r.checkpoints.end(), during_snapshot) ||
       std::any_of(r.earlier_checkpoints.begin(), r.earlier_checkpoints.end(), during_snapshot));
  if (f.cdc_snapshot)
    f.lines.push_back("a MySQL CDC source was reading its snapshot when checkpoints failed");
  if (f.cdc_binlog_waiting)
    f.lines.push_back(
        "the MySQL CDC binlog split waits for a checkpoint completed after the "
        "snapshot");
}

void read_failures(const run::RunResult& r, Findings& f) {
  f.failovers = r.failovers;
  for (const run::RunResult::GlobalFailure& g : r.global_failures)
    f.checkpoint_failovers |= g.message.find("tolerable failure threshold") != std::string::npos;
  if (f.failovers > 0)
    f.lines.push_back(fmt::format(
        "the job failed over {} time{}{}", f.failovers, f.failovers == 1 ? "" : "s",
        f.checkpoint_failovers ? " (\"Exceeded checkpoint tolerable failure threshold.\")" : ""));
  const bool finished = std::find(r.final_task_states.begin(), r.final_task_states.end(),
                                  model::ExecutionState::finished) != r.final_task_states.end();
  for (const run::LogRecord& line : r.log)
    if (finished &&
        line.message.find("Not all required tasks are currently running") != std::string::npos) {
      f.reasons.insert(Reason::not_all_required_tasks_running);
      f.lines.push_back(
          "checkpoints were refused: not all required tasks are running (some "
          "have finished)");
      break;
    }
  if (r.lost_records > 0) {
    f.lost_records = true;
    f.lines.push_back(fmt::format("{} records were lost in Kafka transactions the broker aborted",
                                  r.lost_records));
  }
}

}  // namespace

Findings find(const run::RunResult& r, const model::Scenario& scenario) {
  Findings f;
  read_checkpoints(r, r.earlier_checkpoints, f);
  read_checkpoints(r, r.checkpoints, f);
  std::vector<std::string> expiry = std::move(f.lines);
  f.lines = {fmt::format("{} checkpoint{} completed, {} failed ({} expired)", f.completed,
                         f.completed == 1 ? "" : "s", f.failed, f.expired)};
  for (std::string& line : expiry) f.lines.push_back(std::move(line));
  read_failures(r, f);
  read_connector_events(r, f);
  const std::vector<double> durations =
      completed_checkpoint_durations(r, std::numeric_limits<core::SimTime>::max());
  if (!durations.empty())
    f.p50_duration_ms =
        run::legacy_percentile(durations, 0.5) / static_cast<double>(core::kMillisecond);
  const auto& checkpointing = scenario.flink.checkpointing;
  if (checkpointing.interval && f.p50_duration_ms > 0) {
    const double interval_ms =
        static_cast<double>(*checkpointing.interval) / static_cast<double>(core::kMillisecond);
    const double pause_ms =
        static_cast<double>(checkpointing.min_pause) / static_cast<double>(core::kMillisecond);
    f.back_to_back = f.p50_duration_ms >= 0.5 * interval_ms && pause_ms < f.p50_duration_ms;
    if (f.back_to_back)
      f.lines.push_back(
          fmt::format("checkpoints take {:.0f} ms (p50) of a {:.0f} ms interval, "
                      "with {:.0f} ms of pause between them",
                      f.p50_duration_ms, interval_ms, pause_ms));
  }
  return f;
}

}  // namespace ckptsim::analysis
