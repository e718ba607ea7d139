// `ckptsim compare --real`: a real incident (imported) and its simulation side by side, checkpoint
// by checkpoint and failover by failover, and where they first diverge. Both sides are read the
// same way (the simulation through its own jobmanager.log), so what differs is the behaviour,
// not the reading. Knows nothing of the command line.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/import/import.hpp"

namespace ckptsim::analysis {

// One checkpoint attempt of either side: a checkpoint, or a trigger that failed before it got an
// id. Times in ms from that side's origin (RealComparison::origin).
struct CheckpointSide {
  std::optional<std::int64_t> id;  // none: the trigger failed before Flink gave it an id
  std::string status;              // COMPLETED, FAILED, IN_PROGRESS
  std::string reason;              // a failed one's CheckpointFailureReason name, "" if unknown
  std::int64_t trigger_ms = 0;
  std::optional<std::int64_t> duration_ms;  // trigger to completion or failure
};

struct CheckpointRow {
  std::optional<CheckpointSide> real, sim;
  // "status", "reason" or "duration" (the first that differs), then "time" if the triggers are
  // apart as failovers may be; or "missing", "extra"
  std::vector<std::string> differences;
};

struct FailoverRow {
  std::optional<std::int64_t> real_ms, sim_ms;  // from each side's origin
  bool differs = false;
};

// What one side did within the compared span.
struct SideCounts {
  int checkpoints = 0, completed = 0, failed = 0, in_progress = 0;
  int without_id = 0;  // of the failed: triggers that failed before they got an id
  int failovers = 0;
};

struct RealComparison {
  // Each side's times count from its first checkpoint attempt (a real log usually starts in the
  // middle of a job, with ids far from 1: attempts are matched by order). When the real files
  // hold no attempt, from each side's start (the files' first line, the run's start).
  bool from_first_attempt = true;
  std::vector<CheckpointRow> checkpoints;
  std::vector<FailoverRow> failovers;
  std::int64_t window_ms = 0;  // where the real files end: the simulation is compared up to it
  SideCounts real, sim;
  std::string first_divergence;  // empty: they agree
};

// Durations (of a completed or a failed checkpoint alike) differ when they are apart by more
// than 20 % of the larger and 1 s; trigger and failover times when by more than 5 % of the
// later time and 10 s.
// What the simulation does within those 1 s (10 s) of the real files' end is not held against
// it: the real job may have done the same just after the files were cut.
RealComparison compare_real(const Imported& real, const Imported& sim);

// The verdict: "they agree ...", "they diverge: the first divergence is ..." with the counts.
std::string real_comparison_verdict(const RealComparison& comparison);

// What each side is, for the outputs' headers ("tests/data/real/02.log", "incident.yaml, seed 1").
struct ComparedSides {
  std::string real, sim;
};
std::string real_comparison_text(const RealComparison& comparison,
                                 const ComparedSides& sides);  // the terminal table
std::string real_comparison_markdown(const RealComparison& comparison, const ComparedSides& sides);
std::string real_comparison_csv(const RealComparison& comparison);            // checkpoints
std::string real_comparison_failovers_csv(const RealComparison& comparison);  // failovers

}  // namespace ckptsim::analysis
