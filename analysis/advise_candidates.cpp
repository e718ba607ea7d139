// The settings `ckptsim advise` tries, chosen by the mechanisms the baseline run shows. Each is a
// Flink or connector option a user sets (never a condition of the incident), with the mechanism
// it acts on (field-scenarios.md A.7 and Part B name the fixes that worked in the field), what
// limits it given the findings, and its cost.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analysis/advise.hpp"

namespace ckptsim::analysis {
namespace {

using model::FlinkVersion;

// A duration in Flink's TimeUtils syntax: whole minutes, else whole seconds, else milliseconds.
std::string duration_text(core::Duration d) {
  if (d % core::kMinute == 0) return fmt::format("{} min", d / core::kMinute);
  if (d % core::kSecond == 0) return fmt::format("{} s", d / core::kSecond);
  return fmt::format("{} ms", d / core::kMillisecond);
}

std::string option(const model::VertexSpec& v, const std::string& key, const std::string& value) {
  return "job.vertices[" + v.name + "].options." + key + "=" + value;
}

// Keys renamed in 1.20 (the older names are still read, but a user copies what is written).
std::string unaligned_key(FlinkVersion v) {
  return v >= FlinkVersion::v1_20 ? "execution.checkpointing.unaligned.enabled"
                                  : "execution.checkpointing.unaligned";
}
std::string finished_tasks_key(FlinkVersion v) {
  return v >= FlinkVersion::v1_20
             ? "execution.checkpointing.checkpoints-after-tasks-finish"
             : "execution.checkpointing.checkpoints-after-tasks-finish.enabled";
}

std::string joined(const std::set<std::string>& kinds) {
  return fmt::format("{}", fmt::join(kinds, ", "));
}

void connector_candidates(const Findings& f, const model::Scenario& s,
                          std::vector<Candidate>& out) {
  for (const model::VertexSpec& v : s.job.vertices) {
    if (const auto& cdc = v.cdc_source) {
      if (!cdc->incremental_snapshot && f.failed > 0)
        out.push_back({{option(v, "scan.incremental.snapshot.enabled", "true")},
                       "the incremental snapshot (flink-cdc 2.x, FLIP-27) checkpoints between "
                       "chunks; the 1.x source holds the checkpoint lock for the whole snapshot",
                       "",
                       ""});
      if (cdc->startup_mode == model::CdcStartupMode::initial && f.cdc_snapshot)
        out.push_back({{option(v, "scan.startup.mode", "latest-offset")},
                       "a start without state reads only the binlog: no snapshot, so no burst of "
                       "snapshot rows reaches the sink",
                       "",
                       "the tables' existing rows are not read: backfill them by other means"});
      if (f.coordinator_busy)
        out.push_back({{option(v, "scan.incremental.snapshot.chunk.size",
                               std::to_string(cdc->chunk_size * 100))},
                       "100x larger chunks: 100x fewer boundary queries on the split "
                       "enumerator's thread, which the checkpoint queues behind",
                       "",
                       "each chunk is read (and emitted) in one longer step"});
      else if (f.chunk_rows > 1024 && f.task_blocked)
        out.push_back({{option(v, "scan.incremental.snapshot.chunk.size",
                               std::to_string(std::max<std::int64_t>(1024, cdc->chunk_size / 8)))},
                       "a chunk is emitted in one mailbox step; smaller chunks let the trigger "
                       "run between them",
                       "",
                       "8x more chunks (and boundary queries)"});
    }
    if (const auto& doris = v.doris;
        doris && doris->check_interval < core::kSecond && f.task_blocked)
      out.push_back({{option(v, "sink.check-interval", "10 s")},
                     "above 1000 ms the Doris writer starts its checker thread, which finds a "
                     "failed stream load and fails the task instead of leaving its thread "
                     "parked for ever",
                     "it turns the hang into a fast failure; whatever makes Doris reject the "
                     "load remains",
                     ""});
    if (const auto& kafka = v.kafka_sink) {
      const core::Duration broker_max =
          s.systems.kafka ? s.systems.kafka->transaction_max_timeout : core::minutes(15);
      if (f.lost_records || kafka->transaction_timeout > broker_max)
        out.push_back({{option(v, "properties.transaction.timeout.ms",
                               std::to_string(broker_max / core::kMillisecond))},
                       "the broker's transaction.max.timeout.ms: the longest a transaction may "
                       "stay open before the broker aborts it, and the most it accepts",
                       "",
                       ""});
    }
  }
}

void checkpointing_candidates(const Findings& f, const model::Scenario& s,
                              std::vector<Candidate>& out) {
  const model::CheckpointingConfig& c = s.flink.checkpointing;
  const FlinkVersion version = s.flink.version;
  if (f.reasons.count(model::CheckpointFailureReason::not_all_required_tasks_running) &&
      !c.checkpoints_after_tasks_finish)
    out.push_back({{finished_tasks_key(version) + "=true"},
                   "checkpoints continue after some tasks have finished (FLIP-147)",
                   "",
                   ""});
  if (f.cdc_binlog_waiting && !c.interval)
    out.push_back({{"execution.checkpointing.interval=3 min"},
                   "the binlog split is assigned only once a checkpoint completes after the "
                   "snapshot: checkpointing must be on",
                   "",
                   ""});
  if (f.back_to_back) {
    const auto pause =
        static_cast<core::Duration>(std::ceil(f.p50_duration_ms / 1000.0)) * core::kSecond;
    out.push_back({{"execution.checkpointing.min-pause=" + duration_text(pause)},
                   "a pause of one checkpoint's duration between checkpoints, so the job is not "
                   "checkpointing all the time",
                   "",
                   "checkpoints are further apart: more to replay after a failover"});
  }
  if (f.failed == 0 && f.failovers == 0) return;
  if (f.expired > 0) {
    // Not worth a run when the thread never returns: within a finite run a longer timeout can
    // only push the expiry past the end, which looks like a fix and is none.
    out.push_back({{"execution.checkpointing.timeout=" + duration_text(c.timeout * 3)},
                   "three times as long for a checkpoint that is slow but finishing",
                   f.thread_never_returns
                       ? "a late subtask's thread never returns: a longer timeout only delays the "
                         "expiry"
                       : "",
                   "",
                   !f.thread_never_returns});
    if (!c.unaligned) {
      const bool behind_data =
          f.wait_kinds.count("barrier_behind_data") || f.wait_kinds.count("aligning");
      out.push_back(
          {{unaligned_key(version) + "=true"},
           "barriers overtake the data queued in front of them, and no input waits for alignment",
           f.task_blocked
               ? "the task thread is blocked in user code (" + joined(f.wait_kinds) +
                     "): a barrier, aligned or unaligned, and a source's trigger are processed "
                     "by that thread, so they wait all the same"
           : !behind_data
               ? "no barrier waited behind data or for alignment in the expired checkpoints"
               : "",
           "in-flight data becomes part of the checkpoint (larger, and read back on restore)"});
    }
    if ((f.wait_kinds.count("barrier_behind_data") || f.wait_kinds.count("aligning")) &&
        !s.flink.debloat_enabled)
      out.push_back({{"taskmanager.network.memory.buffer-debloat.enabled=true"},
                     "less in-flight data per channel, so an aligned barrier has less to wait "
                     "behind",
                     "",
                     ""});
  }
  if (f.checkpoint_failovers)
    out.push_back({{fmt::format("execution.checkpointing.tolerable-failed-checkpoints={}",
                                c.tolerable_failed + 3)},
                   "three more failed checkpoints in a row before the job fails over",
                   "it makes no checkpoint complete: the failures are tolerated, not fixed",
                   "a stuck job stays RUNNING without completing checkpoints: alert on the "
                   "time since the last completed one"});
}

}  // namespace

std::vector<Candidate> candidates(const Findings& findings, const model::Scenario& scenario) {
  std::vector<Candidate> out;
  connector_candidates(findings, scenario, out);
  checkpointing_candidates(findings, scenario, out);
  return out;
}

std::string default_objective(const Findings& f) {
  return f.completed == 0 ? "lost_records,max:completed_checkpoints,failovers,failed_checkpoints,"
                            "latency_p99,overhead"
                          : "lost_records,failovers,failed_checkpoints,latency_p99,overhead";
}

std::vector<std::string> candidate_keys(const std::vector<Candidate>& candidates) {
  std::vector<std::string> keys;
  for (const Candidate& c : candidates)
    for (const std::string& o : c.overrides) {
      const std::string key = o.substr(0, o.find('='));
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    }
  return keys;
}

std::vector<std::string> candidate_values(const Candidate& candidate,
                                          const std::vector<std::string>& keys) {
  std::vector<std::string> values(keys.size(), kAsIs);
  for (const std::string& o : candidate.overrides) {
    const std::size_t equals = o.find('=');
    const auto it = std::find(keys.begin(), keys.end(), o.substr(0, equals));
    if (it != keys.end())
      values[static_cast<std::size_t>(it - keys.begin())] = o.substr(equals + 1);
  }
  return values;
}

}  // namespace ckptsim::analysis
