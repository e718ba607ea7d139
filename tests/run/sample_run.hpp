// A hand-built RunResult for the writer tests: 2 vertices x parallelism 2, a completed
// checkpoint, a savepoint, an expired checkpoint, an unaligned completed checkpoint, an
// in-progress one and a restore; the log holds the JobManager lines of seeds/000 (lines 27-54).
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "sim/run/result.hpp"

namespace ckptsim::tests {

inline constexpr const char* kSampleJobId = "59fa6119ea8f55a9c8066210386fb825";
inline constexpr const char* kSourceId = "cbc357ccb763df2852fee8c4fc7d55f2";
inline constexpr const char* kSinkId = "9dd63673dd41ea021b896d5203f3ba7c";

// Simulated time of a wall-clock offset from the run's start (2024-07-10 12:30:00,000 UTC).
inline core::SimTime at_ms(std::int64_t ms) {
  return core::milliseconds(ms);
}

inline run::SubtaskStats acked(std::int64_t ack_ms, std::int64_t size, bool unaligned = false) {
  run::SubtaskStats s;
  s.acknowledged = true;
  s.ack_time = at_ms(ack_ms);
  s.checkpointed_size = size;
  s.state_size = size * 4;
  s.sync_duration = core::milliseconds(2) + core::kMicrosecond * 700;  // 2.7 ms -> 2
  s.async_duration = core::milliseconds(410);
  s.alignment_duration = unaligned ? core::milliseconds(5) : 0;
  s.start_delay = core::milliseconds(640);
  s.processed_bytes = unaligned ? 0 : 4096;
  s.persisted_bytes = unaligned ? 65536 : 0;
  s.unaligned = unaligned;
  return s;
}

inline run::CheckpointRecord checkpoint(std::int64_t id, run::CheckpointStatus status,
                                        std::int64_t trigger_ms) {
  run::CheckpointRecord c;
  c.id = id;
  c.status = status;
  c.trigger_time = at_ms(trigger_ms);
  c.num_subtasks = 4;
  c.subtasks = {std::vector<run::SubtaskStats>(2), std::vector<run::SubtaskStats>(2)};
  return c;
}

inline void finish(run::CheckpointRecord& c) {
  c.num_acknowledged = 0;
  c.latest_ack_time = -1;
  for (const auto& vertex : c.subtasks) {
    for (const auto& s : vertex) {
      if (!s.acknowledged) continue;
      ++c.num_acknowledged;
      c.latest_ack_time = std::max(c.latest_ack_time, s.ack_time);
    }
  }
}

inline run::RunResult sample_run() {
  using run::CheckpointStatus;
  run::RunResult r;
  r.scenario_name = "writers-sample";
  r.job_id = kSampleJobId;
  r.job_name = "ckptsim-job";
  r.flink_version = model::FlinkVersion::v1_17;
  r.start_epoch_ms = 1720614600000;  // 2024-07-10 12:30:00 UTC
  r.end_time = core::minutes(30);
  r.seed = 42;
  r.flink.version = model::FlinkVersion::v1_17;
  r.flink.checkpointing.interval = core::minutes(1);
  r.flink.checkpointing.retention = model::RetentionPolicy::retain_on_cancellation;
  r.flink.state_backend = model::StateBackendKind::rocksdb;
  r.flink.checkpoint_storage = model::CheckpointStorageKind::filesystem;
  r.flink.checkpoints_dir = "file:/data/ckpt";
  r.flink.web_checkpoints_history = 3;
  r.taskmanagers = 2;
  r.slots_total = 8;
  r.vertices = {{kSourceId, "Source: orders", 2}, {kSinkId, "Sink: doris", 2}};

  const std::string dir = std::string("file:/data/ckpt/") + kSampleJobId;
  // 1: completed, acks 60.500 .. 61.204 s
  auto c1 = checkpoint(1, CheckpointStatus::completed, 60000);
  c1.subtasks[0][0] = acked(60500, 1000);
  c1.subtasks[0][1] = acked(60700, 1000);
  c1.subtasks[1][0] = acked(61180, 3000);
  c1.subtasks[1][1] = acked(61204, 3000);
  c1.end_time = at_ms(61230);
  c1.external_path = dir + "/chk-1";
  c1.discarded = true;
  finish(c1);
  // 2: savepoint
  auto c2 = checkpoint(2, CheckpointStatus::completed, 90000);
  c2.type = model::SnapshotType::savepoint;
  c2.periodic = false;
  for (auto& vertex : c2.subtasks) {
    for (auto& s : vertex) s = acked(92000, 2000);
  }
  c2.end_time = at_ms(92100);
  c2.external_path = "file:/data/savepoints/savepoint-59fa61-0123456789ab";
  finish(c2);
  // 3: expired after two acknowledgements
  auto c3 = checkpoint(3, CheckpointStatus::failed, 120000);
  c3.subtasks[0][0] = acked(120400, 500);
  c3.subtasks[0][1] = acked(120450, 500);
  c3.end_time = at_ms(720000);
  c3.failure_reason = model::CheckpointFailureReason::checkpoint_expired;
  c3.failure_message = "Checkpoint expired before completing.";
  c3.discarded = true;
  finish(c3);
  // 4: completed, one subtask unaligned
  auto c4 = checkpoint(4, CheckpointStatus::completed, 780000);
  c4.subtasks[0][0] = acked(780300, 1000);
  c4.subtasks[0][1] = acked(780310, 1000);
  c4.subtasks[1][0] = acked(781000, 3000, true);
  c4.subtasks[1][1] = acked(781834, 3000);
  c4.end_time = at_ms(781900);
  c4.external_path = dir + "/chk-4";
  finish(c4);
  // 5: in progress, nobody acknowledged yet
  auto c5 = checkpoint(5, CheckpointStatus::in_progress, 840000);
  finish(c5);
  r.checkpoints = {c1, c2, c3, c4, c5};
  r.counts.restored = 1;
  r.counts.total = 5;
  r.counts.in_progress = 1;
  r.counts.completed = 3;
  r.counts.failed = 1;
  r.latest_restored = run::RestoreRecord{1, at_ms(725000), false, dir + "/chk-1"};

  using model::JobStatus;
  r.job_status_changes = {{0, JobStatus::initializing, JobStatus::created},
                          {at_ms(120), JobStatus::created, JobStatus::running},
                          {at_ms(720010), JobStatus::running, JobStatus::restarting},
                          {at_ms(721010), JobStatus::restarting, JobStatus::running}};
  r.final_status = JobStatus::running;
  r.final_task_states.assign(4, model::ExecutionState::running);
  r.failovers = 1;
  r.restarts = 1;
  r.replayed_records = 12345;
  r.events_executed = 98765;

  // The JobManager lines of seeds/000 (12:53:41,653 = start + 1 421 653 ms), stacks shortened.
  using run::LogLevel;
  r.log.push_back(
      {at_ms(1421653),
       LogLevel::warn,
       "org.apache.flink.runtime.checkpoint.CheckpointFailureManager",
       std::string("Failed to trigger or complete checkpoint 2 for job ") + kSampleJobId +
           ". (0 consecutive failed attempts so far)",
       {"org.apache.flink.runtime.checkpoint.CheckpointException: Checkpoint expired before "
        "completing.",
        "\tat org.apache.flink.runtime.checkpoint.CheckpointCoordinator$CheckpointCanceller.run("
        "CheckpointCoordinator.java:2216) [flink-dist-1.17.2.jar:1.17.2]"}});
  r.log.push_back({at_ms(1421672),
                   LogLevel::info,
                   "org.apache.flink.runtime.checkpoint.CheckpointRequestDecider",
                   "checkpoint request time in queue: 590028",
                   {}});
  r.log.push_back({at_ms(1421680),
                   LogLevel::info,
                   "org.apache.flink.runtime.jobmaster.JobMaster",
                   "Trying to recover from a global failure.",
                   {}});
  r.log.push_back({at_ms(1421686),
                   LogLevel::info,
                   "org.apache.flink.runtime.jobmaster.JobMaster",
                   "1 tasks will be restarted to recover from a global failure.",
                   {}});
  return r;
}

}  // namespace ckptsim::tests
