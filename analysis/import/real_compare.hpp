// `ckptsim compare --real`: a real incident (imported) and its simulation side by side, checkpoint
// by checkpoint and failover by failover, and where they first diverge. Both sides are RunResults
// read the same way (the simulation through its own jobmanager.log), so what differs is the
// behaviour, not the reading.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/run/result.hpp"

namespace ckptsim::analysis {

// One checkpoint of either side, times in ms from that side's first checkpoint trigger (a real
// log usually starts in the middle of a job, with ids far from 1: sides are matched by order).
struct CheckpointSide {
  std::int64_t id = 0;
  std::string status;  // COMPLETED, FAILED, IN_PROGRESS
  std::string reason;  // a failed one's CheckpointFailureReason name, "" if unknown
  std::int64_t trigger_ms = 0;
  std::optional<std::int64_t> duration_ms;  // trigger to completion or failure
};

struct CheckpointRow {
  std::optional<CheckpointSide> real, sim;
  std::vector<std::string> differences;  // "status", "reason", "duration", "missing", "extra"
};

struct FailoverRow {
  std::optional<std::int64_t> real_ms, sim_ms;  // from each side's first checkpoint trigger
  bool differs = false;
};

struct RealComparison {
  std::vector<CheckpointRow> checkpoints;
  std::vector<FailoverRow> failovers;
  std::int64_t window_ms =
      0;  // the real side's span: simulated checkpoints after it are not compared
  std::string first_divergence;  // empty: they agree
};

// Durations differ when both sides completed and they are apart by more than 20 % of the
// larger and 1 s; failovers when more than 5 % of the later time and 10 s apart.
RealComparison compare_real(const run::RunResult& real, const run::RunResult& sim);

std::string real_comparison_text(const RealComparison& comparison);  // the terminal table
std::string real_comparison_csv(const RealComparison& comparison);

}  // namespace ckptsim::analysis
